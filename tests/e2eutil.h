/* What the end-to-end tests (tests/test_e2e_*.c) share. */
#ifndef QT_E2EUTIL_H
#define QT_E2EUTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"
#include "probe.h"

/* Where the binaries are: scripts/run-tests.sh says it (SAN builds differ). */
static inline const char *build_dir(void)
{
	const char *b = getenv("QOSTRACE_BUILD");

	return b && *b ? b : "build";
}

/* A test that cannot record says SKIPPED and why; it never passes silently. */
static inline void require_recording(void)
{
	char msg[512];

	if (probe_recording(msg, sizeof(msg))) {
		fprintf(stderr, "SKIPPED: cannot record here: %s\n", msg);
		cr_skip_test("cannot record here: %s", msg);
	}
}

#endif
