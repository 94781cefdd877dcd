/* SPDX-License-Identifier: MIT */
/*
 * What the end-to-end tests on real GStreamer pipelines need first:
 * gst-launch-1.0 and the elements of their pipeline, or SKIPPED saying
 * what is missing (scripts/install-deps.sh installs them).
 */
#ifndef QT_E2E_GST_H
#define QT_E2E_GST_H

#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include "e2eutil.h"
#include "testutil.h"

#define E2E_GST_LAUNCH "/usr/bin/gst-launch-1.0"
#define E2E_GST_INSPECT "/usr/bin/gst-inspect-1.0"

/* gst-launch-1.0 and elements[0..n), or the test is SKIPPED with the reason. */
static inline void e2e_require_gstreamer(const char *const *elements, size_t n)
{
	if (access(E2E_GST_LAUNCH, X_OK) || access(E2E_GST_INSPECT, X_OK)) {
		fprintf(stderr, "SKIPPED: no %s (scripts/install-deps.sh installs GStreamer)\n", E2E_GST_LAUNCH);
		cr_skip_test("no %s", E2E_GST_LAUNCH);
	}
	for (size_t i = 0; i < n; i++) {
		char *argv[] = { E2E_GST_INSPECT, (char *)elements[i], NULL };

		if (e2e_run(argv, NULL, true, 30000)) {
			fprintf(stderr, "SKIPPED: no GStreamer element %s (gstreamer1.0-plugins-base)\n", elements[i]);
			cr_skip_test("no GStreamer element %s", elements[i]);
		}
	}
}

#endif
