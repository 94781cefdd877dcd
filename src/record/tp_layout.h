/*
 * What the tracefs attach path reads from each tracepoint's record: the
 * offsets, sizes and encodings of the fields qostrace needs, from the
 * kernel's format files, as the knobs of bpf/qostrace_tracefs.bpf.c.
 */
#ifndef QT_TP_LAYOUT_H
#define QT_TP_LAYOUT_H

#include <stddef.h>

#include "qt_knobs.h"

/*
 * Fills l from the format files under root (a tracefs mount, see
 * tracefs_find()). Returns 0, or a negative errno with msg naming the
 * event or field that is missing or cannot be read. An optional event the
 * kernel lacks (sched_stat_runtime) is left with length 0.
 */
int tp_layout_read(const char *root, struct qt_tp_layout *l, char *msg, size_t len);

/*
 * The TASK_* bits (as qt_switch.prev_state holds them, Linux 4.14+
 * values) that a state letter of sched_switch's format stands for.
 */
__u32 tp_layout_task_state(char letter);

#endif
