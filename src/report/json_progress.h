/* SPDX-License-Identifier: MIT */
/* The two-thread progress graph (progress/progress.h) in the JSON report. */
#ifndef QT_JSON_PROGRESS_H
#define QT_JSON_PROGRESS_H

#include "lib/json_writer.h"

struct analysis;

#define JSON_PROGRESS_BLOCKS 2000	/* blocks listed; all are counted */
#define JSON_PROGRESS_RAYS 4000		/* rays listed; all are counted */

/*
 * Writes the field "progress" (docs/report.schema.json) into the object
 * open in w: the pair, the blocks (the first JSON_PROGRESS_BLOCKS, with
 * their points, Q2, Q3 and labels), the steady cycle, the departures
 * (all, with the period break each falls in) and the first
 * JSON_PROGRESS_RAYS rays; null when a->progress is NULL.
 */
void json_progress_write(const struct analysis *a, json_writer_t *w);

#endif
