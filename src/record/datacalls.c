// SPDX-License-Identifier: MIT
/* The data system calls by number; see src/record/datacalls.h. */
#include <sys/utsname.h>
#include <string.h>

#include "datacalls.h"
#include "file/syscall_names.h"
#include "qt_events.h"

/*
 * By name, as every architecture's table spells them (a name the
 * architecture lacks, as open on arm64, is skipped). rename and truncate
 * by path are left out: the programs cannot resolve a path to its inode
 * (docs/ALGORITHMS.md §9.7b).
 */
static const struct {
	const char *name;
	uint8_t cls;
} calls[] = {
	{ "read", QT_DC_FD0 }, { "write", QT_DC_FD0 },
	{ "readv", QT_DC_FD0 }, { "writev", QT_DC_FD0 },
	{ "pread64", QT_DC_FD0 }, { "pwrite64", QT_DC_FD0 },
	{ "preadv", QT_DC_FD0 }, { "pwritev", QT_DC_FD0 },
	{ "preadv2", QT_DC_FD0 }, { "pwritev2", QT_DC_FD0 },
	{ "recvfrom", QT_DC_FD0 }, { "recvmsg", QT_DC_FD0 }, { "recv", QT_DC_FD0 },
	{ "sendto", QT_DC_FD0 }, { "sendmsg", QT_DC_FD0 }, { "send", QT_DC_FD0 },
	{ "splice", QT_DC_IN0_OUT2 }, { "copy_file_range", QT_DC_IN0_OUT2 },
	{ "sendfile", QT_DC_OUT0_IN1 }, { "sendfile64", QT_DC_OUT0_IN1 },
	{ "tee", QT_DC_IN0_OUT1 },
	{ "open", QT_DC_OPEN_FLAGS1 }, { "openat", QT_DC_OPEN_FLAGS2 },
	{ "creat", QT_DC_CREAT },
	{ "ftruncate", QT_DC_FTRUNCATE }, { "ftruncate64", QT_DC_FTRUNCATE },
};

size_t datacalls_fill(uint8_t *tab, size_t n, const char *arch)
{
	struct utsname u;
	size_t found = 0;

	memset(tab, QT_DC_NONE, n);
	if (!arch && uname(&u) == 0)
		arch = u.machine;
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		int nr = syscall_number(arch, calls[i].name);

		if (nr >= 0 && (size_t)nr < n) {
			tab[nr] = calls[i].cls;
			found++;
		}
	}
	return found;
}
