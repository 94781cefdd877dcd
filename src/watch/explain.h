/* SPDX-License-Identifier: MIT */
/*
 * What delayed a window's break, as the report says it: the analysis of a
 * window file, run by the child process the watcher starts at low
 * priority (explainer.h) so that it never takes the recording's CPU or
 * memory. It is `qostrace report` on the window with the watched actors
 * named, and the phrase the report's list of breaks gives for that one
 * break (text_critical_break_cause): "waited 25.3 ms for CPU behind
 * disturber/77".
 */
#ifndef QT_WATCH_EXPLAIN_H
#define QT_WATCH_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Analyses the window at path, its actors those of specs (the window's
 * TF_META_WATCH_ACTORS when nspecs is 0) that name a thread of the window,
 * and prints one line to out:
 * what delayed the break of thread tid whose late invocation started at
 * at_ns; or, when the report does not find that break, what the
 * Diagnosis blames. 0, or a negative errno after a message.
 */
int explain_window(const char *path, const char *const *specs, size_t nspecs, uint32_t tid, int64_t at_ns,
		   FILE *out);

#endif
