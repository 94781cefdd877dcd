/* Renderings of an analysis: the terminal report and the JSON document. */
#ifndef QT_REPORT_H
#define QT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "lib/json_writer.h"
#include "style.h"

/* The JSON document of DESIGN.md §10 (schema in docs/report.schema.json). */
int report_json(const struct analysis *a, FILE *f);
/* The three answers in three sentences, at the top of the text report. */
void report_summary(const struct analysis *a, FILE *f, const struct report_style *st);
/* The terminal report: the recording's story, top-down. */
int report_text(const struct analysis *a, FILE *f, const struct report_style *st);

/* JSON of the "trace" and "threads" sections, shared with the HTML page. */
void report_json_trace(const struct analysis *a, json_writer_t *w);
void report_json_threads(const struct analysis *a, json_writer_t *w);

#endif
