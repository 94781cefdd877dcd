// SPDX-License-Identifier: MIT
/*
 * The table of data calls the loader hands to the BPF programs
 * (src/record/datacalls.c): each call of docs/ALGORITHMS.md §9.2 with the
 * descriptors its programs resolve, by the numbers of the recording's
 * architecture; nothing else.
 */
#include "file/syscall_names.h"
#include "qt_events.h"
#include "record/datacalls.h"
#include "testutil.h"

static uint8_t cls_of(const uint8_t *tab, const char *arch, const char *name)
{
	int nr = syscall_number(arch, name);

	cr_assert_geq(nr, 0, "%s has no %s", arch, name);
	cr_assert_lt(nr, QT_DATA_NRS, "%s's %s is %d: beyond the table", arch, name, nr);
	return tab[nr];
}

Test(datacalls, x86_64)
{
	uint8_t tab[QT_DATA_NRS];
	size_t n = datacalls_fill(tab, sizeof(tab), "x86_64");
	size_t set = 0;

	cr_expect_eq(cls_of(tab, "x86_64", "read"), QT_DC_FD0);
	cr_expect_eq(cls_of(tab, "x86_64", "pwritev2"), QT_DC_FD0);
	cr_expect_eq(cls_of(tab, "x86_64", "recvmsg"), QT_DC_FD0);
	cr_expect_eq(cls_of(tab, "x86_64", "splice"), QT_DC_IN0_OUT2);
	cr_expect_eq(cls_of(tab, "x86_64", "copy_file_range"), QT_DC_IN0_OUT2);
	cr_expect_eq(cls_of(tab, "x86_64", "sendfile"), QT_DC_OUT0_IN1);
	cr_expect_eq(cls_of(tab, "x86_64", "tee"), QT_DC_IN0_OUT1);
	cr_expect_eq(cls_of(tab, "x86_64", "open"), QT_DC_OPEN_FLAGS1);
	cr_expect_eq(cls_of(tab, "x86_64", "openat"), QT_DC_OPEN_FLAGS2);
	cr_expect_eq(cls_of(tab, "x86_64", "creat"), QT_DC_CREAT);
	cr_expect_eq(cls_of(tab, "x86_64", "ftruncate"), QT_DC_FTRUNCATE);
	cr_expect_eq(cls_of(tab, "x86_64", "getpid"), QT_DC_NONE);
	cr_expect_eq(cls_of(tab, "x86_64", "close"), QT_DC_NONE);
	cr_expect_eq(cls_of(tab, "x86_64", "rename"), QT_DC_NONE);
	for (size_t i = 0; i < sizeof(tab); i++)
		set += tab[i] != QT_DC_NONE;
	cr_expect_eq(set, n);
	cr_expect_eq(n, 22);	/* of 26 names: x86_64 has no recv, send, sendfile64, ftruncate64 */
}

/* arm64 (the generic table) has no open or creat; 32-bit ARM numbers its calls its own way. */
Test(datacalls, other_architectures)
{
	uint8_t tab[QT_DATA_NRS];

	datacalls_fill(tab, sizeof(tab), "aarch64");
	cr_expect_eq(syscall_number("aarch64", "open"), -1);
	cr_expect_eq(cls_of(tab, "aarch64", "openat"), QT_DC_OPEN_FLAGS2);
	cr_expect_eq(cls_of(tab, "aarch64", "write"), QT_DC_FD0);
	cr_expect_eq(cls_of(tab, "aarch64", "sendfile"), QT_DC_OUT0_IN1);
	datacalls_fill(tab, sizeof(tab), "armv7l");
	cr_expect_eq(cls_of(tab, "armv7l", "sendfile64"), QT_DC_OUT0_IN1);
	cr_expect_eq(cls_of(tab, "armv7l", "recv"), QT_DC_FD0);
	cr_expect_eq(cls_of(tab, "armv7l", "ftruncate64"), QT_DC_FTRUNCATE);
}
