/*
 * What a recording could not record, as its META key "missing" lists it
 * (TF_META_MISSING, comma separated): the words the recorder writes
 * (src/record/backend.h) and the readers (info, report) interpret.
 */
#ifndef QT_MISSING_H
#define QT_MISSING_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The kernel's CPU time at each switch (qt_switch.prev_runtime): of no
 * thread, or of the threads of one scheduling class: real-time
 * (SCHED_FIFO, SCHED_RR), deadline (SCHED_DEADLINE), or the stop class
 * (the per-CPU migration/N threads). Their CPU times are then
 * switch-to-switch intervals.
 */
#define MISSING_RUNTIME "runtime"
#define MISSING_RUNTIME_RT "runtime-rt"
#define MISSING_RUNTIME_DL "runtime-dl"
#define MISSING_RUNTIME_STOP "runtime-stop"

/*
 * The objects of the data calls (QT_REC_DATA): asked for, but the attach
 * path (tracefs) cannot read a descriptor's file.
 */
#define MISSING_DATA "data"

/* Whether list (NULL: nothing) names token, a whole item. */
bool missing_has(const char *list, const char *token);

/*
 * Whose CPU time the recording lacks, in words: "every thread", or the
 * classes ("real-time, deadline and stop-class threads (migration/N)"),
 * written into buf; NULL when it has every thread's.
 */
const char *missing_runtime_who(const char *list, char *buf, size_t len);

#endif
