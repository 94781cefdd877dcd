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

#define TABLE(t) t, sizeof(t) / sizeof(t[0])

/*
 * By uname -m of the recording. A 32-bit ARM program on an arm64 kernel
 * says armv8l and makes its calls by the 32-bit numbers, as does the
 * recorder's whole userland on a set-top with an armhf userland; arm64
 * (aarch64) and the architectures after it share the generic table.
 */
static const struct {
	const char *prefix;
	const char *const *names;
	size_t n;
} tables[] = {
	{ "x86_64", TABLE(names_x86_64) },
	{ "i386", TABLE(names_i386) },
	{ "i486", TABLE(names_i386) },
	{ "i586", TABLE(names_i386) },
	{ "i686", TABLE(names_i386) },
	{ "armv", TABLE(names_arm_eabi) },
};

static const char *const *table_of(const char *arch, size_t *n)
{
	if (!arch)
		arch = "x86_64";
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		if (!strncmp(arch, tables[i].prefix, strlen(tables[i].prefix))) {
			*n = tables[i].n;
			return tables[i].names;
		}
	}
	*n = sizeof(names_generic) / sizeof(names_generic[0]);
	return names_generic;
}

const char *syscall_name(const char *arch, unsigned int nr)
{
	size_t n;
	const char *const *t = table_of(arch, &n);

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
	size_t n;
	const char *const *t = table_of(arch, &n);

	for (size_t i = 0; i < n; i++)
		if (t[i] && !strcmp(t[i], name))
			return (int)i;
	return -1;
}
