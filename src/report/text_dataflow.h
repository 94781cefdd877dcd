/* SPDX-License-Identifier: MIT */
/* The data-flow critical path in the text report. */
#ifndef QT_REPORT_TEXT_DATAFLOW_H
#define QT_REPORT_TEXT_DATAFLOW_H

#include <stdio.h>

struct analysis;
struct report_style;

/*
 * The "Data path" section into f from a->dataflow (dataflow/stage.h):
 * the target and why it was chosen, the hops root first (the process,
 * the object and versions it made, the time its input waited and the
 * time in the process), each merge's other inputs with their slack, and
 * the shares of the processes and of the waits. Nothing when
 * a->dataflow is NULL (a recording without data records).
 */
void text_dataflow_print(const struct analysis *a, FILE *f, const struct report_style *st);

#endif
