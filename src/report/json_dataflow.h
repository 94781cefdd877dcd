/* SPDX-License-Identifier: MIT */
/* The data-flow critical path (dataflow/stage.h) in the JSON report. */
#ifndef QT_JSON_DATAFLOW_H
#define QT_JSON_DATAFLOW_H

#include "lib/json_writer.h"

struct analysis;

/*
 * Writes the field "data_path" (docs/report.schema.json) into the object
 * open in w: the target, the hops root first with their times, the
 * merges' other inputs and the processes' shares; null when a->dataflow
 * is NULL (a recording without data records).
 */
void json_dataflow_write(const struct analysis *a, json_writer_t *w);

#endif
