/*
 * A trace file loaded into memory: its header, thread snapshots and records,
 * one array per kind in file order. What the file lacks (no END block, lost
 * records, damaged blocks) is kept here so every command can say it.
 */
#ifndef QT_TRACE_H
#define QT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qt_events.h"
#include "tracefile.h"

struct trace {
	char *path;
	uint64_t file_bytes;
	struct tf_kv meta;
	struct tf_kv end;		/* empty if the recording was not finished */
	bool finished;			/* the END block is there */
	struct tf_damage damage;
	unsigned int format_version;	/* of the file (tracefile.h) */
	uint64_t undecodable;		/* records lost in blocks that failed to decode */

	uint64_t start_ns, stop_ns;	/* the recording's span (see trace__load) */
	int ncpus;

	struct tf_thread *threads_start, *threads_end;	/* comm NUL-terminated */
	size_t nthreads_start, nthreads_end;
	uint64_t threads_start_ts, threads_end_ts;

	struct qt_switch *sw;
	struct qt_wakeup *wk;		/* WAKEUP and WAKEUP_NEW */
	struct qt_syscall *sc;
	struct qt_irq *irq;		/* IRQ and SOFTIRQ */
	struct qt_task *task;		/* FORK, EXEC, RENAME, EXIT; comm NUL-terminated */
	struct qt_irq_name *irqn;	/* name NUL-terminated */
	struct qt_lost *lost;
	struct qt_softirq_raise *raise;	/* SOFTIRQ_RAISE (format 2) */
	struct qt_data *data;		/* DATA (format 3): kept by trace__drop_records() */
	size_t nsw, nwk, nsc, nirq, ntask, nirqn, nlost, nraise, ndata;

	uint64_t by_type[QT_REC_MAX];	/* records in the file */
	uint64_t events;		/* all records except STATS */
	struct qt_stats last_stats;	/* the newest STATS record */
	uint64_t lost_events;		/* kernel: END block, else newest STATS, else LOST records */
	uint64_t user_dropped;
	uint64_t first_ts, last_ts;	/* of the records */
};

struct trace_load_opts {
	bool progress;			/* progress line on a terminal */
};

/*
 * Loads a trace. start_ns/stop_ns are the recording's start and stop as
 * written by the recorder, widened to the records actually present (a file
 * cut short stops at its last record). Damage is reported with log_warn()
 * and kept in ->damage; only an unreadable file fails, with a message in err.
 */
int trace__load(const char *path, const struct trace_load_opts *opts, struct trace **out,
		char *err, size_t errlen);
void trace__free(struct trace *t);

/*
 * Frees the switch, wakeup, syscall, IRQ and softirq raise records once a timeline holds
 * them (they are most of a trace's memory): the arrays become empty, the
 * counts by type and the task, IRQ name, lost and data records stay.
 */
void trace__drop_records(struct trace *t);

/* The switch records alone: the first and largest part of trace__drop_records(). */
void trace__drop_switches(struct trace *t);

/*
 * Grows one of a trace's record arrays (sw, wk, sc, irq, task, irqn, lost, raise)
 * to hold at least n items of elem bytes: their pages move on growth, they
 * are never copied. NULL when out of memory (arr is kept). trace__free()
 * and trace__drop_records() release only arrays made here: code that builds
 * a trace by hand (tests, benchmarks) grows its record arrays with this.
 */
void *trace__grow_records(void *arr, size_t n, size_t elem);

/*
 * A trace made in memory rather than read from a file: watch learns and
 * judges from the blocks it keeps and from one thread's records. Fill
 * trace_builder__trace()'s meta (and end, with finished) directly; add
 * records one at a time or a packed EVENTS payload at a time; finish
 * gives the trace with its totals as trace__load() computes them (its
 * span widened to the records).
 */
union qt_record;
struct trace_builder;

/* An empty trace named name (for messages); NULL when out of memory. */
struct trace_builder *trace_builder__new(const char *name);
/* The trace being built (its meta, end, finished, ncpus may be set). */
struct trace *trace_builder__trace(struct trace_builder *b);
/* One record (its names are NUL-terminated in place). 0, -EINVAL (no such type), -ENOMEM. */
int trace_builder__add(struct trace_builder *b, union qt_record *r);
/*
 * The records of an EVENTS block's payload (blk->data, len, count,
 * base_ts). A record that does not decode ends the block, counted in
 * undecodable as trace__load() does. 0 or -ENOMEM.
 */
int trace_builder__add_events(struct trace_builder *b, const struct tf_block *blk);
/* The start snapshot of the threads (a copy). 0 or -ENOMEM. */
int trace_builder__threads(struct trace_builder *b, const struct tf_thread *t, size_t n, uint64_t ts);
/* The trace, freed with trace__free(); b is gone. */
struct trace *trace_builder__finish(struct trace_builder *b);
/* Drops an unfinished builder and its trace; NULL is fine. */
void trace_builder__free(struct trace_builder *b);

/* The recording's architecture (uname -m), NULL when t is or it is unknown: syscall_name()'s arch. */
const char *trace__arch(const struct trace *t);

/* The IRQ handler name recorded for an IRQ number, or NULL. */
const char *trace__irq_name(const struct trace *t, uint32_t irq);

/*
 * A hard interrupt source as a person reads it: "irq 24 xhci_hcd",
 * "timer", "irq_work", "IPI", "irq ?".
 */
const char *irq_source_name(const struct trace *t, uint32_t irq, char *buf, size_t len);

/* "TIMER", "NET_RX", ... for a softirq vector. */
const char *softirq_name(uint32_t vec);

#endif
