/* Renderings of an analysis: the terminal report and the JSON document. */
#ifndef QT_REPORT_H
#define QT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "lib/json_writer.h"
#include "style.h"

/* The JSON document of docs/DESIGN.md §10 (schema in docs/report.schema.json). */
int report_json(const struct analysis *a, FILE *f);
/*
 * The Diagnosis (a->diagnosis, src/analysis/diagnosis.h) in three
 * sentences, at the top of the text report; nothing when a->diagnosis is
 * NULL.
 */
void report_summary(const struct analysis *a, FILE *f, const struct report_style *st);
/* The terminal report: the recording's story, top-down. */
int report_text(const struct analysis *a, FILE *f, const struct report_style *st);

/* JSON of the "trace" and "threads" sections, shared with the HTML page. */
void report_json_trace(const struct analysis *a, json_writer_t *w);
void report_json_threads(const struct analysis *a, json_writer_t *w);
/* "diagnosis": a->diagnosis field for field, or null (a Gantt chart). */
void report_json_diagnosis(const struct analysis *a, json_writer_t *w);
/*
 * "verdict": "keeps_rhythm" (no periodic actor has a major break),
 * "breaks", or null where there is nothing to judge (no periodic actor, a
 * Gantt chart).
 */
void report_json_verdict(const struct analysis *a, json_writer_t *w);

#endif
