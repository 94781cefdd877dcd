// SPDX-License-Identifier: MIT
/*
 * Who a softirq woke a thread for (timeline.h, TL_WAKE_VIA; docs/DESIGN.md
 * §3). A wakeup from a softirq is recorded in the softirq's context, on
 * top of whatever thread it interrupted: on its own it says "softirq
 * NET_RX", and the thread whose system call sent the packet is lost. The
 * recording ties each run of a softirq vector to the first raise of that
 * vector on its CPU since it last ran there (QT_REC_SOFTIRQ_RAISE): the
 * kernel runs a pending vector on the CPU that raised it, once for all the
 * raises before the run, and the first made it run.
 *
 * The cause of a run is its raise's context:
 *  - a thread (in a system call or not): the wakeups in the run are that
 *    thread's, at the time it raised the softirq, whether the run came
 *    right after on top of it, later, or in ksoftirqd;
 *  - a hard interrupt: the device's; the wakeups stay the softirq's, never
 *    the interrupted thread's. When a thread raised the vector too before
 *    the run (a loopback send while the network card's softirq waited,
 *    common under load), one run served both and the records cannot say
 *    which woke whom: the wakeups stay the device's, marked
 *    TL_WAKE_SHARED and counted, rather than risk a false edge from an
 *    unrelated sender;
 *  - another softirq: that one's run's cause, at most MAX_HOPS runs back.
 * A run with no raise recorded before it (lost, raised before the
 * recording, recorded without --irqs), or with records lost on its CPU
 * between the raise and the run, has no known cause: its wakeups stay the
 * softirq's, as without raises.
 *
 * Cost O((r + s) log(r + s) + w log s) for r raises, s softirq runs and w
 * wakeups from softirqs; 32 bytes per raise and per run for the build.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

/* Runs followed back through softirqs raised by softirqs. */
#define MAX_HOPS 4

/* A vector on a CPU: cpu << 16 | vec. */
static inline uint32_t group(uint16_t cpu, uint16_t vec)
{
	return (uint32_t)cpu << 16 | vec;
}

struct sq_raise {
	uint64_t ts;
	uint32_t idx;		/* into trace.raise */
	uint32_t group;
};

struct sq_run {
	uint64_t start, end;
	uint32_t raise;		/* into trace.raise, or TL_NONE */
	uint32_t group;
	bool shared;		/* a thread raised it too, after an interrupt */
};

struct sq {
	struct builder *b;
	struct sq_raise *raise;
	size_t nraise;
	struct sq_run *run;
	size_t nrun;
};

/* (cpu, vec, time), the order both lists are merged in. */
static int cmp_key(uint32_t g1, uint64_t t1, uint32_t g2, uint64_t t2)
{
	if (g1 != g2)
		return g1 < g2 ? -1 : 1;
	return (t1 > t2) - (t1 < t2);
}

static int cmp_raise(const void *x, const void *y)
{
	const struct sq_raise *a = x, *b = y;

	return cmp_key(a->group, a->ts, b->group, b->ts);
}

static int cmp_run(const void *x, const void *y)
{
	const struct sq_run *a = x, *b = y;

	return cmp_key(a->group, a->start, b->group, b->start);
}

static bool recorded_vec(uint32_t vec)
{
	return vec < QT_SOFTIRQ_VECS && (QT_RAISE_VECS & (1u << vec));
}

/* The raises and the softirq runs of the recorded vectors, each by (cpu, vec, time). */
static int sq_collect(struct sq *q)
{
	const struct trace *t = q->b->t;
	const struct timeline *tl = q->b->tl;

	q->raise = malloc((t->nraise ? t->nraise : 1) * sizeof(*q->raise));
	q->run = malloc((tl->nirqs ? tl->nirqs : 1) * sizeof(*q->run));
	if (!q->raise || !q->run)
		return -ENOMEM;
	for (size_t i = 0; i < t->nraise; i++) {
		const struct qt_softirq_raise *r = &t->raise[i];

		if (recorded_vec(r->vec))
			q->raise[q->nraise++] = (struct sq_raise){ r->h.ts, (uint32_t)i, group(r->h.cpu, r->vec) };
	}
	for (size_t i = 0; i < tl->nirqs; i++) {
		const struct tl_irq *s = &tl->irqs[i];

		if (s->soft && recorded_vec(s->num))
			q->run[q->nrun++] = (struct sq_run){ s->start, s->end, TL_NONE, group(s->cpu, s->num), false };
	}
	qsort(q->raise, q->nraise, sizeof(*q->raise), cmp_raise);
	qsort(q->run, q->nrun, sizeof(*q->run), cmp_run);
	return 0;
}

/* Whether the raise at k is an interrupt's and a thread raised the vector again before run r. */
static bool sq_shared(const struct sq *q, size_t k, const struct sq_run *r)
{
	const struct qt_softirq_raise *raise = q->b->t->raise;

	if (!(raise[q->raise[k].idx].h.flags & QT_WAKE_HARDIRQ))
		return false;
	for (size_t j = k + 1; j < q->nraise && q->raise[j].group == r->group && q->raise[j].ts <= r->start; j++)
		if (!(raise[q->raise[j].idx].h.flags & (QT_WAKE_HARDIRQ | QT_WAKE_SOFTIRQ)))
			return true;
	return false;
}

/*
 * Each run's raise: the first raise of its vector on its CPU after the
 * previous run of it there began, and at or before this one began.
 */
static void sq_pair(struct sq *q)
{
	struct builder *b = q->b;
	size_t k = 0;

	for (size_t i = 0; i < q->nrun; i++) {
		struct sq_run *r = &q->run[i];
		uint16_t cpu = r->group >> 16;
		bool first = !i || r[-1].group != r->group;
		uint64_t after = first ? 0 : r[-1].start;
		const struct sq_raise *x;

		/* the losses of this CPU are asked in time order again, vector by vector */
		if (first && cpu < b->tl->ncpus)
			b->cpu_cursor[cpu] = 0;
		/* raises of the (cpu, vec) before, or before the previous run: that one's */
		while (k < q->nraise && cmp_key(q->raise[k].group, q->raise[k].ts, r->group, after) <= 0)
			k++;
		if (k == q->nraise)
			break;
		x = &q->raise[k];
		if (x->group == r->group && x->ts <= r->start &&
		    (cpu >= b->tl->ncpus || !runs_lost_during(b, cpu, x->ts, r->start))) {
			r->raise = x->idx;
			r->shared = sq_shared(q, k, r);
		}
	}
}

/* The run of vec on cpu that was running at ts, or NULL. */
static const struct sq_run *sq_run_at(const struct sq *q, uint16_t cpu, uint32_t vec, uint64_t ts)
{
	uint32_t g = group(cpu, (uint16_t)vec);
	size_t lo = 0, hi = q->nrun;

	/* past the last run starting at or before ts in the (cpu, vec) order */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_key(q->run[mid].group, q->run[mid].start, g, ts) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || q->run[lo - 1].group != g || q->run[lo - 1].end < ts)
		return NULL;
	return &q->run[lo - 1];
}

/*
 * The raise that caused run r, followed back through softirqs that
 * raised it: a thread's or a hard interrupt's, or NULL when not known.
 */
static const struct qt_softirq_raise *sq_cause(const struct sq *q, const struct sq_run *r)
{
	const struct qt_softirq_raise *x;

	for (int hop = 0; hop < MAX_HOPS && r && r->raise != TL_NONE; hop++) {
		x = &q->b->t->raise[r->raise];
		if (!(x->h.flags & QT_WAKE_SOFTIRQ))
			return x;
		r = sq_run_at(q, x->h.cpu, x->irq, x->h.ts);
	}
	return NULL;
}

/* The wakeups from softirqs given to the threads that raised them; the counts into tl. */
static void sq_attribute(struct sq *q)
{
	struct timeline *tl = q->b->tl;

	for (size_t i = 0; i < tl->nwk; i++) {
		struct tl_wakeup *w = &tl->wk[i];
		const struct qt_softirq_raise *x;
		const struct sq_run *run;
		uint32_t th;

		if (!(w->flags & QT_WAKE_SOFTIRQ))
			continue;
		tl->softirq_wakeups++;
		if (!recorded_vec(w->irq))
			continue;	/* the tick's and the timers' */
		run = sq_run_at(q, w->waker_cpu, w->irq, w->ts);
		x = sq_cause(q, run);
		if (!x) {
			tl->softirq_unknown++;
			continue;
		}
		if (x->h.flags & QT_WAKE_HARDIRQ) {
			tl->softirq_by_irq++;
			if (run->shared) {
				w->flags |= TL_WAKE_SHARED;
				tl->softirq_shared++;
			}
			continue;
		}
		th = x->tid ? threadtab__resolve(tl->tt, x->tid, x->h.ts, x->tgid) : TT_NONE;
		if (th == TT_NONE || th == w->wakee || x->h.ts > w->ts) {
			tl->softirq_unknown++;
			continue;
		}
		w->waker = th;
		w->waking_ts = x->h.ts;
		w->flags = (w->flags & ~QT_WAKE_SOFTIRQ) | TL_WAKE_VIA;
		tl->softirq_by_thread++;
	}
}

int softirq_causes(struct builder *b)
{
	struct sq q = { .b = b };
	int err = 0;

	if (!b->t->nraise) {
		/* nothing ties the softirqs to causes: they stay the softirqs' */
		for (size_t i = 0; i < b->tl->nwk; i++) {
			const struct tl_wakeup *w = &b->tl->wk[i];

			b->tl->softirq_wakeups += !!(w->flags & QT_WAKE_SOFTIRQ);
			b->tl->softirq_unknown += (w->flags & QT_WAKE_SOFTIRQ) && recorded_vec(w->irq);
		}
		return 0;
	}
	err = sq_collect(&q);
	if (!err) {
		sq_pair(&q);
		sq_attribute(&q);
	}
	free(q.raise);
	free(q.run);
	return err;
}
