/*
 * The timeline of a recording (docs/DESIGN.md §3): per thread, its run intervals
 * [start, end) with CPU and how each ended, its system calls, the wakeups it
 * sent and received; the IRQs; the places where data is missing; and a
 * time-ordered stream of all of it for the later stages.
 *
 * Built from a loaded trace. Records that arrived out of order (CPUs stamp
 * their records independently) are sorted, not rejected. A CPU's switch
 * sequence is checked. Where records were lost, no run is assumed: the
 * span becomes a gap. Where the sequence does not chain (prev of a switch is
 * not who was switched in last) but nothing was lost, the kernel did not
 * report a switch: some kernels filter tracepoints by the current task, so
 * the switch out of a filtered thread is missing (perf sees the same). prev
 * certainly ran until this switch, for as long as the kernel charged it
 * (the runtime recorded at each switch-out): its run is kept with that
 * length and TL_RUN_START_UNSURE, and the window becomes a gap. The idle
 * task is never a thread.
 *
 * ASCII picture of one CPU:
 *
 *        switch A->B         switch B->A (B preempted)   switch A->idle
 *   ---A----|-------B-------------|-------------A---------------|---
 *           t1                    t2                             t3
 *   runs: A [.., t1) end=sleep,  B [t1, t2) end=preempted,  A [t2, t3) ...
 */
#ifndef QT_TIMELINE_H
#define QT_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qt_events.h"
#include "file/threadtab.h"
#include "file/trace.h"

#define TL_NONE UINT32_MAX

/* tl_run.flags */
#define TL_RUN_START_CUT 0x1	/* was already running when the recording started */
#define TL_RUN_END_CUT 0x2	/* still running when the recording stopped */
#define TL_RUN_START_UNSURE 0x4	/* the switch in was not recorded: started in [start, end) */

struct tl_run {
	uint64_t start, end;
	uint32_t thread;
	uint16_t cpu;
	uint8_t end_state;	/* enum qt_run_end */
	uint8_t flags;
};

struct tl_syscall {
	uint64_t start, end;
	int64_t ret;
	uint64_t arg0;
	uint32_t thread;
	uint32_t nr;
	uint16_t cpu;
	uint8_t flags;		/* QT_SYS_* */
};

/*
 * tl_wakeup.flags, beyond the QT_WAKE_* of the record: the waker raised
 * the softirq (irq: its vector) that woke the wakee, at waking_ts; the
 * record's QT_WAKE_SOFTIRQ is then cleared (softirq.c).
 */
#define TL_WAKE_VIA 0x40
/*
 * A softirq run that an interrupt raised and a thread raised again before
 * it ran: the wakeup stays the device's (softirq.c says why).
 */
#define TL_WAKE_SHARED 0x80

struct tl_wakeup {
	uint64_t ts;		/* the waker's side (sched_waking) */
	uint64_t waking_ts;	/* the same; older files had the enqueue in ts; TL_WAKE_VIA: the raise */
	uint32_t waker;		/* thread, or TL_NONE for an interrupt / the idle task */
	uint32_t wakee;
	uint16_t target_cpu;	/* where the wakee was enqueued: the CPU of its next run */
	uint16_t waker_cpu;
	uint16_t irq;		/* with QT_WAKE_HARDIRQ/SOFTIRQ: the IRQ or vector, 0xffff unknown */
	uint8_t flags;		/* QT_WAKE_* */
	uint8_t is_new;		/* sched_wakeup_new: the first run of a forked thread */
};

struct tl_irq {
	uint64_t start, end;
	uint32_t num;		/* IRQ number, or softirq vector */
	uint32_t thread;	/* the thread it interrupted, TL_NONE for idle */
	uint16_t cpu;
	uint8_t soft;
	int32_t ret;
};

enum tl_gap_kind {
	TL_GAP_LOST = 1,	/* the kernel could not store records (QT_REC_LOST) */
	TL_GAP_BROKEN = 2,	/* the CPU's switch sequence does not chain */
};

struct tl_gap {
	uint64_t start, end;
	uint64_t count;		/* records lost, when known */
	uint16_t cpu;
	uint8_t kind;
	/*
	 * TL_GAP_BROKEN: the thread (tid, 0 for idle) switched in at the start
	 * on this CPU, whose switch out went unreported: the only one that can
	 * have run unseen inside the window. TL_NONE when not known. The
	 * window ends at the next reported switch, or earlier where the
	 * kernel's charge of the thread that switch took off the CPU places
	 * that thread's start.
	 */
	uint32_t hidden;
};

/* tl_thread.flags, beyond the TT_* of threadtab.h */
#define TL_TARGET 0x100		/* a target of the recording (or a descendant) */
#define TL_RECORDER 0x200	/* qostrace itself */

struct tl_thread {
	uint32_t tid, pid;
	uint32_t flags;
	char comm[16];
	uint64_t run_ns;		/* on-CPU time inside the recording */
	uint64_t unsure_ns;		/* of which runs with an unreported start (upper bound) */
	uint64_t cpu_ns;		/* CPU time as the kernel accounts it (schedstat): from
					 * se.sum_exec_runtime at switch-outs; exact across lost
					 * records, approximate for a run begun before the start */
	uint64_t first_run, last_end;
	uint32_t nruns, npreempted, nvoluntary;
	/* slices of the timeline's arrays */
	size_t run0, nrun;		/* runs[run0 .. run0+nrun) in time order */
	size_t sc0, nsc;		/* syscalls */
	size_t wr0, nwr;		/* wk_by_wakee[]: wakeups received */
	size_t ws0, nws;		/* wk_by_waker[]: wakeups sent */
};

struct timeline {
	const struct trace *trace;
	struct threadtab *tt;
	uint64_t start, end;
	int ncpus;

	struct tl_thread *threads;	/* index = threadtab index */
	size_t nthreads;
	struct tl_run *runs;		/* grouped by thread */
	size_t nruns;
	/*
	 * The runs of CPU c in time order: runs_by_cpu[cpu_run0[c] ..
	 * cpu_run0[c + 1]) (indices into runs; ncpus + 1 offsets). Known
	 * from the build's switch order, where sorting the runs again would
	 * cost a sort and its memory. NULL beyond UINT32_MAX runs.
	 */
	uint32_t *runs_by_cpu;
	size_t *cpu_run0;
	struct tl_syscall *sc;		/* grouped by thread */
	size_t nsc;
	struct tl_wakeup *wk;		/* time order */
	size_t nwk;
	uint32_t *wk_by_wakee, *wk_by_waker;
	struct tl_irq *irqs;		/* time order */
	size_t nirqs;
	struct tl_gap *gaps;		/* time order */
	size_t ngaps;

	uint64_t out_of_order;		/* switch records that arrived after a later one */
	uint64_t broken_chains;		/* switch sequence breaks */
	uint64_t runs_dropped;		/* runs inside lost data, not counted */
	uint64_t unsure_runs, unsure_ns;	/* runs with TL_RUN_START_UNSURE, their total span */
	/*
	 * Wakeups from softirqs, and what those of the vectors in
	 * QT_RAISE_VECS became: the raising thread's (TL_WAKE_VIA), a hard
	 * interrupt's (kept as the softirq's), or of no recorded cause (kept).
	 * The rest are the tick's and the timers' (TIMER, RCU, ...).
	 * softirq_shared: of the interrupt's, those a thread raised too.
	 */
	uint64_t softirq_wakeups, softirq_by_thread, softirq_by_irq, softirq_unknown, softirq_shared;
};

struct timeline_opts {
	bool progress;
};

/*
 * Builds the timeline of a loaded trace t (opts may be NULL). On success
 * *out is the caller's, freed with timeline__free(); it points to t
 * (tl->trace: the recording's metadata), which must outlive it.
 * Returns 0, -ENOMEM, or -E2BIG for more than UINT32_MAX records of one
 * kind (then *out is untouched). Unsure runs are said once (log_info).
 */
int timeline__build(const struct trace *t, const struct timeline_opts *opts,
		    struct timeline **out);

/*
 * The same for a trace read no further than its timeline (report, export):
 * each kind of record is freed once the timeline holds it, all of them by
 * the end (trace__drop_records). The switches, most of a trace, are gone
 * before the runs are grouped by thread, which is the build's peak: a copy
 * of the runs beside the records. On failure the records may be gone too.
 */
int timeline__build_consuming(struct trace *t, const struct timeline_opts *opts,
			      struct timeline **out);
/* Frees a timeline and everything it holds but its trace; NULL is fine. */
void timeline__free(struct timeline *tl);

/*
 * Name of a thread at a moment (it may have changed by exec/prctl): a
 * string of the timeline's, "-" for TL_NONE or an unknown thread.
 */
const char *timeline__comm_at(const struct timeline *tl, uint32_t thread, uint64_t ts);

/*
 * Does [start, end) on cpu (or any CPU if cpu < 0) overlap missing data?
 * With end <= start, is the instant start inside missing data?
 */
bool timeline__missing(const struct timeline *tl, int cpu, uint64_t start, uint64_t end);

/*
 * The threads whose switches out went unreported (TL_GAP_BROKEN), most
 * often first, as "comm/tid (count), ..." into buf, at most three and
 * "and N more". Returns how many threads; 0 writes "".
 */
size_t timeline__hidden_threads(const struct timeline *tl, char *buf, size_t len);

/* The time-ordered stream of everything that happened, for pattern mining. */
enum tl_ev_kind {
	TL_EV_RUN = 1,		/* a thread switched in: idx into runs */
	TL_EV_SYSCALL,		/* a system call started: idx into sc */
	TL_EV_WAKEUP,		/* idx into wk */
	TL_EV_IRQ,		/* idx into irqs (hard or soft) */
	TL_EV_GAP,		/* data missing from here: idx into gaps */
};

struct tl_event {
	uint64_t ts;
	uint32_t idx;
	uint8_t kind;
};

/* A stretch of time, both ends included. */
struct tl_span {
	uint64_t start, end;
};

/*
 * The events at times inside any of spans[0..nspans) (in any order,
 * overlapping or not), or all events when spans is NULL, in time order
 * (ties: runs, system calls, wakeups, IRQs, gaps, each in its array's
 * order): *out (malloc'd), *n. A pattern search reads a few thousand
 * windows, a fraction of a long recording. 0 or -ENOMEM.
 */
int timeline__stream(const struct timeline *tl, const struct tl_span *spans, size_t nspans,
		     struct tl_event **out, size_t *n);
/* First event with ts >= t. */
size_t timeline__lower_bound(const struct tl_event *ev, size_t n, uint64_t t);
/*
 * The first run of thread x that starts at or after ts (x->run0 + x->nrun:
 * none), searched forward from run from: x->run0, or a run known to start
 * before ts. Callers asking in time order pass the last answer, and a busy
 * thread's answer is then a few runs on, not a search over a million.
 */
size_t timeline__next_run(const struct timeline *tl, const struct tl_thread *x, size_t from, uint64_t ts);

/*
 * Classifies the raw prev_state of a switch (TASK_* bits): an enum
 * qt_run_end; preempt (the switch was a preemption) wins.
 */
uint8_t timeline__end_state(uint32_t prev_state, bool preempt);
/* "preempted", "sleep", "blocked", ...: a static string, "?" for an unknown state. */
const char *timeline__end_state_name(uint8_t end_state);

#endif
