// SPDX-License-Identifier: MIT
/*
 * System call names by number. The tables come from the kernel's UAPI
 * headers at build time (scripts/gen-syscall-names.sh makes
 * syscall_tables.h in the build directory).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "syscall_names.h"
#include "syscall_tables.h"

const char *syscall_name(const char *arch, unsigned int nr)
{
	const char *const *t = names_generic;
	size_t n = sizeof(names_generic) / sizeof(names_generic[0]);

	if (!arch || !strcmp(arch, "x86_64")) {
		t = names_x86_64;
		n = sizeof(names_x86_64) / sizeof(names_x86_64[0]);
	}
	return nr < n ? t[nr] : NULL;
}

const char *syscall_label(const char *arch, unsigned int nr, char *buf, size_t len)
{
	const char *name = syscall_name(arch, nr);

	if (name)
		return name;
	snprintf(buf, len, "syscall %u", nr);
	return buf;
}

int syscall_number(const char *arch, const char *name)
{
	const char *const *t = names_generic;
	size_t n = sizeof(names_generic) / sizeof(names_generic[0]);

	if (!arch || !strcmp(arch, "x86_64")) {
		t = names_x86_64;
		n = sizeof(names_x86_64) / sizeof(names_x86_64[0]);
	}
	for (size_t i = 0; i < n; i++)
		if (t[i] && !strcmp(t[i], name))
			return (int)i;
	return -1;
}
