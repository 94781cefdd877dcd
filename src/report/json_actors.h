/* SPDX-License-Identifier: MIT */
/* The actors' stage in the JSON report. */
#ifndef QT_REPORT_JSON_ACTORS_H
#define QT_REPORT_JSON_ACTORS_H

#include "lib/json_writer.h"

struct actors_result;
struct timeline;

/*
 * The fields "actors": [...], "actors_skipped": [...] and "upstream_actor":
 * {...} | null of docs/DESIGN.md §10 into the open object of w. r may be
 * NULL (the stage did not run): empty lists and null. tl is the timeline
 * r was made on (unread when r is NULL).
 */
void json_actors_write(const struct actors_result *r, const struct timeline *tl, json_writer_t *w);

#endif
