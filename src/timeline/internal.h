/* SPDX-License-Identifier: MIT */
/*
 * What the files of the timeline share, and no one else may use.
 *
 *   build.c   the build: the thread table, the calls, wakeups and IRQs,
 *             the steps in order; freeing
 *   runs.c    the switches into runs, and where data is missing
 *   group.c   the runs and calls grouped by thread; the wakeup and CPU indexes
 *   softirq.c the wakeups from softirqs given to the threads that raised them
 *   query.c   questions asked of a built timeline
 *   stream.c  the time-ordered event stream for pattern mining
 */
#ifndef QT_TIMELINE_INTERNAL_H
#define QT_TIMELINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timeline.h"

/* A small set of u32 (target processes). */
struct u32set {
	uint32_t *k;
	size_t cap, n;
};

/* The build's state beside the timeline it makes. */
struct builder {
	struct timeline *tl;
	const struct trace *t;
	struct trace *consume;		/* t, when its records may be freed as they are used */
	struct u32set targets;
	bool all;
	uint64_t recorder;
	size_t runs_cap, gaps_cap;
	/* the kernel's CPU time of each thread at its last switch-out */
	uint64_t *last_rt, *cpu_ns;
	uint8_t *has_rt;
	size_t rt_cap;
	/* per-CPU lost windows, for the run check */
	struct tl_gap **cpu_gaps;
	size_t *cpu_ngaps, *cpu_cursor;
};

/*
 * timeline__next_run(), inline: the build asks it once per wakeup (group.c,
 * resolve_target_cpus), millions on a storm.
 */
static inline size_t next_run(const struct timeline *tl, const struct tl_thread *x, size_t from, uint64_t ts)
{
	size_t end = x->run0 + x->nrun, lo = from, hi = from, step = 1;

	/* Gallop forward, then search the last step. */
	while (hi < end && tl->runs[hi].start < ts) {
		lo = hi + 1;
		hi = end - hi > step ? hi + step : end;
		step *= 2;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl->runs[mid].start < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- runs.c ---- */

/* The lost windows into tl->gaps, and b's index of them per CPU. 0 or -ENOMEM. */
int runs_lost_gaps(struct builder *b);
/*
 * Did cpu (< tl->ncpus) lose records during [start, end]? Asked in time
 * order per CPU: b->cpu_cursor[cpu] moves forward (set it to 0 to ask
 * from the start again).
 */
bool runs_lost_during(struct builder *b, uint16_t cpu, uint64_t start, uint64_t end);
/*
 * The runs from the switches (after runs_lost_gaps), in the order their
 * switches ended them; the broken chains become gaps; b->cpu_ns gets each
 * thread's CPU time. 0 or -ENOMEM.
 */
int runs_build(struct builder *b);

/* ---- softirq.c ---- */

/*
 * With the wakeups and IRQs built (and the records still there): each
 * wakeup from a softirq that a thread raised becomes that thread's, at the
 * raise (TL_WAKE_VIA), and tl's softirq_* counts are set. 0 or -ENOMEM.
 */
int softirq_causes(struct builder *b);

/* ---- group.c ---- */

/*
 * With tl->threads made: the runs and calls grouped by thread (each
 * thread's slices and totals), the wakeups indexed by wakee and by waker,
 * the wakeups' target CPUs, and the runs listed per CPU. 0 or -ENOMEM.
 */
int group_threads(struct timeline *tl);

#endif
