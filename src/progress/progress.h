/* SPDX-License-Identifier: MIT */
/*
 * The two-thread progress graph (docs/DESIGN.md §8, docs/ALGORITHMS.md §8;
 * Abrams et al., timed progress graphs): for two threads that synchronise,
 * the trajectory of their progress (A's on x, B's on y) as horizontal,
 * vertical and diagonal rays; Q1 the points where one blocks on the other,
 * Q2 how long each block lasts, Q3 how long they run together between
 * blocks; the steady cycle (the limit cycle of the paper) and its period;
 * and where the real trajectory departs from that cycle.
 *
 * Two layers. progress_compute() is a pure function over two threads'
 * runs, received wakeups and system calls (struct pg_input): the paper's
 * vectors (TV-7) are checked on it without a kernel. progress__analyse()
 * is the stage: it picks the pair in a timeline (report --pair, or by
 * default the upstream actor and the thread it wakes most), builds the
 * input, computes, and places the departures against the actors' period
 * breaks.
 *
 * Progress is wall time minus the time blocked on the partner (§8.2): a
 * thread that sleeps on a disk or a timer still makes progress, so every
 * instant has rate 0 or 1 on each axis and Q2 + Q3 tile wall time. A
 * block of A on B is a voluntary off-CPU gap of A that a wakeup sent by B
 * ended; it ends at that wakeup (the time from the wakeup to A's next run
 * is A's wake latency, reported beside it and counted as progress).
 *
 * All times are int64 ns. Positions are progress in ns since each
 * thread's origin (its creation, or the recording's start).
 */
#ifndef QT_PROGRESS_H
#define QT_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct actors_result;
struct timeline;

#define PG_MAX_K 16			/* longest cycle searched, in blocks (§8.5) */
#define PG_REPEATS 3			/* a cycle must repeat this often (R) */
#define PG_REL_TOL 0.2			/* two blocks match within 20 % ... */
#define PG_ABS_TOL 50000		/* ... or 50 us */

/* ---- the input: two threads ---- */

enum pg_end {
	PG_END_RUNNING = 0,	/* still running when the recording stopped */
	PG_END_PREEMPTED,	/* left the CPU runnable */
	PG_END_WAIT,		/* left the CPU to wait (sleep, blocked, stopped) */
	PG_END_EXIT,		/* the thread exited */
	PG_END_UNKNOWN,		/* the end was lost with dropped records */
};

struct pg_run {
	int64_t s, e;		/* [s, e) on a CPU */
	uint8_t end;		/* enum pg_end */
};

/* A wakeup the thread received. */
struct pg_wake {
	int64_t t;		/* the waker's side (sched_waking) */
	bool by_partner;	/* sent by the other thread of the pair (not from an interrupt) */
};

/* A system call of the thread: labels the blocks (Q1). */
struct pg_call {
	int64_t s, e;
	int32_t nr;
	uint64_t arg0;
};

struct pg_thread_in {
	int64_t origin;			/* its creation, or the recording's start */
	const struct pg_run *runs;	/* time order, not overlapping */
	size_t nruns;
	const struct pg_wake *wakes;	/* time order */
	size_t nwakes;
	const struct pg_call *calls;	/* time order of start */
	size_t ncalls;
};

struct pg_input {
	struct pg_thread_in th[2];	/* [0] on x, [1] on y */
	int64_t t_end;			/* the recording's end */
};

/* ---- the result ---- */

enum pg_ray_kind {
	PG_RAY_D,		/* both progress: slope 1 */
	PG_RAY_H,		/* y blocked on x: horizontal */
	PG_RAY_V,		/* x blocked on y: vertical */
	PG_RAY_X,		/* one thread exited: the paper's bounding line, not a block */
	PG_RAY_S,		/* neither progresses: a point held for a while */
};

struct pg_ray {
	int64_t t0, t1;		/* [t0, t1) */
	int64_t x0, y0, x1, y1;
	uint8_t kind;		/* enum pg_ray_kind */
	bool open;		/* H/V of an open wait (no wakeup before the end) */
	bool dead;		/* S: both wait for ever (a possible deadlock) or exited */
	uint32_t block;		/* H/V: index into blocks; UINT32_MAX otherwise */
};

/* One synchronisation point: Q1 (where, and what), Q2 (how long), Q3. */
struct pg_block {
	uint8_t thread;		/* the thread that blocks: 0 (x) or 1 (y) */
	bool open;		/* no wakeup before the end: Q2 >= t_end - s */
	int64_t s, w;		/* blocked at s, woken by the partner at w (open: the end) */
	int64_t x, y;		/* the trajectory's point at s */
	int64_t q2;		/* w - s */
	int64_t latency;	/* from w to the thread's next run (0 if open) */
	int64_t q3;		/* time both progressed since the previous block's start (T0) */
	/* the label: the call it blocked in, its first argument, the partner's call at w (-1: none) */
	int32_t nr;
	uint64_t arg0;
	int32_t waker_nr;
};

struct pg_thread_stats {
	int64_t blocked_ns;	/* complete blocks on the partner (Q2 summed) */
	int64_t open_ns;	/* open waits, up to the end */
	int64_t latency_ns;	/* from the partner's wakeups to its runs */
	int64_t preempted_ns;	/* runnable, off the CPU (a departure from the model's own CPU) */
	int64_t other_ns;	/* waits another thread, an interrupt, or nothing recorded ended */
	size_t nblocks, nother;
	int64_t exited;		/* exit time, or -1 */
};

enum pg_cycle_state {
	PG_CYCLE_NONE,		/* blocks, but no steady cycle */
	PG_CYCLE_FOUND,
	PG_CYCLE_NONBLOCKING,	/* no blocks, or they stopped: the trailing Q3 is half the time or more */
};

/* One position of the steady cycle: a block's label with its median Q3 and Q2. */
struct pg_pattern {
	uint8_t thread;
	int32_t nr, waker_nr;
	uint64_t arg0;
	int64_t q3, q2;
};

struct pg_cycle {
	uint8_t state;			/* enum pg_cycle_state */
	/* the longest unbroken stretch of the cycle starts here, in complete blocks (the transient before) */
	size_t first;
	size_t k;			/* blocks per cycle */
	struct pg_pattern pat[PG_MAX_K];
	size_t reps;			/* whole repetitions in that stretch */
	/*
	 * all the complete blocks that match the cycle's block at their place:
	 * one late block ends a stretch, but the cycle may hold nearly
	 * everywhere (the departures are the rest)
	 */
	size_t follow;
	int64_t period;			/* median time from one repetition's first block to the next's */
	int64_t adv_x, adv_y;		/* progress per cycle: the paper's cycle times */
	double blocked_share[2];	/* of the period, each thread blocked */
};

/*
 * A departure from the steady cycle: consecutive complete blocks that do
 * not match the cycle's block expected at their place (docs/ALGORITHMS.md
 * §8.5, departures).
 */
struct pg_departure {
	size_t first, last;		/* complete blocks, inclusive */
	int64_t start, end;		/* the first block's start, the last one's wakeup */
	/*
	 * Q3 + Q2 summed over them, less the cycle's for the same places: the
	 * time the departure cost (the very first block's Q3, from T0, left out)
	 */
	int64_t excess;
	size_t worst;			/* the block of the largest Q2 excess */
	int64_t worst_expect;		/* the cycle's Q2 at that block's place (-1: no such block there) */
	/* filled by the stage: a period break of an actor of the pair overlapping it */
	long actor;			/* index into actors_result.v, -1 if none */
	size_t brk;			/* index into that actor's breaks */
};

struct progress {
	int64_t t0, t_end;		/* T0: both threads exist */
	int64_t gx, gy;			/* G_C: the progress of each at T0 */
	struct pg_ray *rays;
	size_t nrays;
	struct pg_block *blocks;	/* Q1, by start (ties: x first) */
	size_t nblocks;
	size_t *complete;		/* indices of the blocks that are not open */
	size_t ncomplete;
	int64_t q3_trailing;		/* both progressing after the last block's start */
	int64_t d_ns;			/* all the time both progressed */
	struct pg_thread_stats th[2];
	size_t anomalies;		/* neither progresses, without being a dead point */
	int64_t anomaly_ns;
	int64_t dead_at;		/* a dead point's time, -1 if none */
	bool deadlock;			/* the dead point is two open waits (not an exit) */
	struct pg_cycle cycle;
	struct pg_departure *dep;
	size_t ndep;
};

/*
 * Computes the progress graph of in (docs/ALGORITHMS.md §8.2-8.5) into
 * *out (zeroed first; free with progress_release()). 0, -EINVAL (a
 * thread's runs overlap or go backwards, or t_end before both origins) or
 * -ENOMEM.
 */
int progress_compute(const struct pg_input *in, struct progress *out);
/* Frees what progress_compute() allocated; the struct itself is the caller's. */
void progress_release(struct progress *p);

/* Do two Q2 or Q3 values match, within PG_REL_TOL or PG_ABS_TOL? */
bool progress_close(int64_t a, int64_t b);

/* ---- the stage ---- */

struct progress_opts {
	/*
	 * report --pair A,B: each a thread name or tid (tid:N, comm:NAME);
	 * NULL: the default pair. A named pair keeps its order (A on x).
	 */
	const char *pair;
};

/* How the pair was chosen. */
enum pg_pair_how {
	PG_PAIR_NAMED,		/* --pair */
	PG_PAIR_UPSTREAM,	/* the upstream actor and the thread it wakes most */
	PG_PAIR_BLOCKING,	/* the pair blocked on each other the longest */
};

struct progress_result {
	uint32_t thread[2];		/* timeline thread indices: [0] on x */
	uint8_t how;			/* enum pg_pair_how */
	uint64_t wakeups;		/* PG_PAIR_UPSTREAM: the upstream actor woke the other this often */
	struct progress pg;
};

/*
 * Checks a --pair argument before any file is read: 0, or -EINVAL with a
 * message in msg[len].
 */
int progress_check_pair(const char *pair, char *msg, size_t len);

/*
 * The stage: *out is NULL when there is no pair to study (no two threads
 * block on each other). actors may be NULL. 0, -ENOMEM, -EINVAL (a bad
 * --pair, or runs the timeline left overlapping), or -ESRCH when --pair
 * names no thread of the recording (after a message saying which).
 */
int progress__analyse(const struct timeline *tl, const struct actors_result *actors,
		      const struct progress_opts *o, struct progress_result **out);
void progress__free(struct progress_result *r);

#endif
