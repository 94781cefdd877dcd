/* SPDX-License-Identifier: MIT */
/*
 * Names the critical-path section prints, in text and JSON alike: of a
 * path's owners (threads of a recording, actors of a Gantt chart), of an
 * actor, of a chart's task. Each returns a constant, a name the analysis
 * holds, or buf (len bytes) filled.
 */
#ifndef QT_REPORT_CRITICAL_NAMES_H
#define QT_REPORT_CRITICAL_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"

struct crit_actor;

/* "comm/tid" of a thread, or the Gantt actor's name; "-" for CRIT_NONE, "?" out of range. */
const char *critical_names_owner(const struct analysis *a, uint32_t ow, char *buf, size_t len);
/* The actor's name, or its owner's. */
const char *critical_names_actor(const struct analysis *a, const struct crit_actor *ca, char *buf, size_t len);
/* The name of task t of a Gantt chart (a->gantt set). */
const char *critical_names_task(const struct analysis *a, uint32_t t);

#endif
