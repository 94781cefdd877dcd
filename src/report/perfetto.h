/*
 * qostrace export --perfetto: the analysis as Chrome trace-event JSON (the
 * "Trace Event Format"), which ui.perfetto.dev, chrome://tracing and the
 * Chrome DevTools performance panel open (docs/DESIGN.md §9).
 *
 * What a viewer shows, per process (pid) and thread (tid) of the recording:
 *
 *   dec 1234            [invocation             ][late invocation ]   actors only
 *                        [run: preempted][run: sleep]  [run: sleep]   one X per run interval
 *                              ^ wakeup scale           ^             0-duration slices
 *   dec 1234 syscalls   [read][futex        ]    [write]              tid 1000000000 + 1234
 *   dec 1234 breaks               [period break +12.5 ms      ]       tid 2000000000 + 1234
 *
 * plus a process "qostrace" with one track per CPU for hard IRQs, softirqs
 * and missing data. Flow arrows ("s"/"f" events, category "sched") go from
 * a wakeup slice on the waker to the wakee's next run, and (category
 * "critical") along the critical path of each late invocation when the
 * critical stage has a result; and along the data-flow path, between
 * the system-call slices of the threads (category "syscall"; from run to
 * run, category "sched", where a read began before the write it
 * returned), with a track "data path into OBJECT" of its hops in the
 * qostrace process. Both ends of a flow sit at the exact
 * timestamp of the slice they bind to, which Perfetto, catapult and
 * DevTools all accept.
 *
 * Times: "ts" and "dur" are microseconds relative to the recording's start
 * (otherData.start_ns holds it in CLOCK_MONOTONIC ns), written with four
 * decimals: whole nanoseconds plus 0.1 ns, so that readers that truncate
 * ts * 1000 to an integer (Perfetto) get the nanosecond back exactly.
 *
 * The writer streams: memory does not grow with the number of events.
 */
#ifndef QT_EXPORT_PERFETTO_H
#define QT_EXPORT_PERFETTO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"

/* Zero-initialised (or NULL) means: everything. */
struct perfetto_opts {
	bool no_syscalls;	/* no syscall tracks */
	bool no_wakeups;	/* no wakeup slices and flows */
	bool no_irqs;		/* no IRQ and softirq tracks */
};

/* What was written, by kind (for the command's summary and the tests). */
struct perfetto_stats {
	uint64_t events;		/* JSON objects in traceEvents */
	uint64_t threads;		/* threads with a track (thread_name events) */
	uint64_t runs;			/* run-interval slices */
	uint64_t syscalls;
	uint64_t wakeups;		/* wakeup slices on wakers */
	uint64_t wakeup_flows;		/* of which have a flow to the wakee's next run */
	uint64_t irqs;
	uint64_t gaps;
	uint64_t invocations;
	uint64_t breaks;
	uint64_t critical_flows;
	uint64_t data_flows;		/* along the data-flow path, between system calls */
	uint64_t tasks;			/* Gantt chart tasks */
};

/* Pseudo thread ids of the extra tracks (Linux tids stay below 2^22). */
#define PERFETTO_SYSCALL_TID_BASE 1000000000u
#define PERFETTO_BREAK_TID_BASE 2000000000u
/* The "qostrace" process of the per-CPU IRQ and missing-data tracks. */
#define PERFETTO_QOSTRACE_PID 2100000000u

/*
 * Writes the document to f. An analysis of a Gantt chart gives one track
 * per actor with its tasks. Returns 0, or -EIO when writing failed.
 */
int export_perfetto(const struct analysis *a, FILE *f, const struct perfetto_opts *opts,
		    struct perfetto_stats *stats);

#endif
