/* SPDX-License-Identifier: MIT */
/*
 * What the files of the progress graph share, and no one else may use.
 *
 *   classify.c  each thread's instants: progressing, or blocked on the
 *               partner, waiting for ever, exited (docs/ALGORITHMS.md §8.2)
 *   sweep.c     the two threads swept together: rays, blocks, Q3 (§8.3-8.4)
 *   cycle.c     the steady cycle, and the departures from it (§8.5)
 *   compute.c   progress_compute(): the three in order
 *   pair.c      which two threads: --pair, or the default
 *   stage.c     the stage over a timeline
 */
#ifndef QT_PROGRESS_INTERNAL_H
#define QT_PROGRESS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "progress.h"

/* An interval where a thread does not progress (rate 0). */
enum pg_zero_kind {
	PG_Z_BLOCKED,		/* blocked on the partner: [s, w) */
	PG_Z_OPEN,		/* waiting, no wakeup before the end */
	PG_Z_EXITED,		/* after its exit */
};

struct pg_zero {
	int64_t s, e;
	int64_t latency;	/* PG_Z_BLOCKED: from the wakeup to the next run */
	uint8_t kind;		/* enum pg_zero_kind */
};

/*
 * The rate-0 intervals of thread x (partner wakeups marked in its input)
 * from its origin to t_end, in time order, into *out (malloc'd, *n of
 * them), and its statistics into *st. 0, -EINVAL (runs overlap or go
 * backwards) or -ENOMEM.
 */
int classify_thread(const struct pg_thread_in *x, int64_t t_end, struct pg_zero **out, size_t *n,
		    struct pg_thread_stats *st);

/*
 * Sweeps both threads' rate-0 intervals over [p->t0, p->t_end) from
 * (p->gx, p->gy): p->rays, p->blocks (with Q3 and their points),
 * p->complete, p->q3_trailing, p->d_ns, the anomalies and the dead point.
 * The blocks' labels come from the calls in `in`. 0 or -ENOMEM.
 */
int sweep_build(const struct pg_input *in, struct pg_zero *const z[2], const size_t nz[2],
		struct progress *p);

/* The steady cycle of p's complete blocks, then the departures from it. 0 or -ENOMEM. */
int cycle_find(struct progress *p);

struct timeline;

/* --pair A,B in tl: th[0], th[1]. -EINVAL (syntax) or -ESRCH (no such thread, after a message). */
int pair_named(const struct timeline *tl, const char *pair, uint32_t th[2]);
/*
 * The default pair into th (x first) and how it was chosen (enum
 * pg_pair_how; *wakeups for PG_PAIR_UPSTREAM): 1, 0 when no two threads
 * block on each other, or -ENOMEM.
 */
int pair_default(const struct timeline *tl, const struct actors_result *ar, uint32_t th[2], uint8_t *how,
		 uint64_t *wakeups);

#endif
