// SPDX-License-Identifier: MIT
/*
 * System calls are named by the table of the recording's architecture (its
 * uname -m in the file's META): a trace from an arm64 or armhf box reads
 * with the right names on an x86_64 workstation.
 */
#include "testutil.h"
#include "file/syscall_names.h"

struct want { const char *arch; unsigned int nr; const char *name; };

Test(syscall_names, each_architecture_has_its_numbers)
{
	static const struct want w[] = {
		{ "x86_64", 0, "read" }, { "x86_64", 257, "openat" }, { "x86_64", 230, "clock_nanosleep" },
		{ NULL, 0, "read" },		/* files from before the arch was kept */
		{ "aarch64", 63, "read" }, { "aarch64", 56, "openat" }, { "aarch64", 115, "clock_nanosleep" },
		{ "aarch64", 79, "newfstatat" },	/* the 64-bit name of the generic table's fstatat */
		{ "riscv64", 63, "read" },
		{ "armv7l", 3, "read" }, { "armv7l", 322, "openat" }, { "armv7l", 265, "clock_nanosleep" },
		{ "armv8l", 3, "read" },	/* a 32-bit program on an arm64 kernel */
		{ "armv7l", 403, "clock_gettime64" }, { "armv7l", 451, "cachestat" },
		{ "i686", 3, "read" }, { "i386", 295, "openat" },
		{ "x86_64", 451, "cachestat" }, { "aarch64", 462, "mseal" },
	};

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		const char *got = syscall_name(w[i].arch, w[i].nr);

		cr_expect(got && !strcmp(got, w[i].name), "%s %u: %s, want %s", w[i].arch ? w[i].arch : "NULL",
			  w[i].nr, got ? got : "NULL", w[i].name);
		cr_expect_eq(syscall_number(w[i].arch, w[i].name), (int)w[i].nr, "%s %s",
			     w[i].arch ? w[i].arch : "NULL", w[i].name);
	}
}

Test(syscall_names, numbers_without_a_name)
{
	char buf[32];

	cr_expect_null(syscall_name("armv7l", 100000));
	cr_expect_null(syscall_name("aarch64", 1000));
	cr_expect_str_eq(syscall_label("armv7l", 100000, buf, sizeof(buf)), "syscall 100000");
	cr_expect_str_eq(syscall_label("aarch64", 63, buf, sizeof(buf)), "read");
	cr_expect_eq(syscall_number("aarch64", "open"), -1);	/* arm64 has openat only */
	cr_expect_eq(syscall_number("armv7l", "no_such_call"), -1);
}
