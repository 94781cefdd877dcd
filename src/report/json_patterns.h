/* SPDX-License-Identifier: MIT */
/* The emerging patterns (patterns/patterns.h) in the JSON report. */
#ifndef QT_JSON_PATTERNS_H
#define QT_JSON_PATTERNS_H

#include "lib/json_writer.h"
#include "patterns/patterns.h"

/*
 * Writes the fields "patterns": [...] and "patterns_search": {...} of
 * docs/DESIGN.md §10 into the object open in @w: an empty list and null
 * when @r is NULL (the stage did not run).
 */
void json_patterns_write(const struct patterns_result *r, json_writer_t *w);

#endif
