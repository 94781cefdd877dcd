/* SPDX-License-Identifier: MIT */
/*
 * The critical-path section of the text report: on a recording, eps and
 * the edges, the path into the end of the recording, the paths into the
 * upstream actor's and every actor's invocations, and what delayed the
 * late invocations; on a Gantt chart, the makespan, critical tasks and
 * paths, the eps check and the floats. Rows beyond the first few only with
 * st->verbose.
 */
#ifndef QT_REPORT_TEXT_CRITICAL_H
#define QT_REPORT_TEXT_CRITICAL_H

#include <stdio.h>

#include "analysis/analysis.h"
#include "style.h"

struct critical_result;
struct crit_break;

/* r is a's critical result; a names the threads, actors and tasks. Errors show in ferror(f). */
void text_critical_print(const struct critical_result *r, const struct analysis *a, FILE *f,
			 const struct report_style *st);

/*
 * What delayed the late invocation of break b, as the report's list of
 * breaks says it ("waited 25.3 ms for CPU behind disturber/77", "held
 * 176 ms, blocked in writev()"), one phrase into f; self is the actor's
 * thread. watch's alert line says the same.
 */
void text_critical_break_cause(FILE *f, const struct analysis *a, const struct crit_break *b, uint32_t self);

#endif
