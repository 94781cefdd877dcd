// SPDX-License-Identifier: MIT
/*
 * A path walked back along the binding edges (bind.c) and accounted, from a
 * horizon up to where its task completes: each task's time goes to its
 * thread (Gantt: its actor). A lag during which the task was runnable (a
 * wakeup latency: on the CPU it was woken on; a preemption: on the CPU it
 * was preempted on) is split into the time other threads ran on that CPU
 * (they "held the CPU": counted for them, as held_ns) and the rest, which
 * goes to the edge's category (wakeup latency, CPU wait); other lags go to
 * theirs whole (blocked, control overhead). A release splits into the time
 * before the interrupt (timer, irq N name, softirq NAME: what released the
 * chain) and the latency after it. Everything between horizon and
 * completion is accounted, exactly once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lib/workq.h"

int acc_init(struct acc *a, size_t nowners)
{
	size_t k = nowners ? nowners : 1;

	memset(a, 0, sizeof(*a));
	/* Each accounting worker has its own: lines of their own (workq_calloc). */
	a->run = workq_calloc(k, sizeof(*a->run));
	a->held = workq_calloc(k, sizeof(*a->held));
	a->mark = workq_calloc(k, 1);
	a->touched = workq_calloc(k, sizeof(*a->touched));
	if (!a->run || !a->held || !a->mark || !a->touched)
		return -ENOMEM;
	return 0;
}

void acc_free(struct acc *a)
{
	free(a->run);
	free(a->held);
	free(a->mark);
	free(a->touched);
	free(a->cats);
}

static inline void acc_touch(struct acc *a, uint32_t ow)
{
	if (!a->mark[ow]) {
		a->mark[ow] = 1;
		a->touched[a->ntouched++] = ow;
	}
}

static void acc_run(struct acc *a, uint32_t ow, int64_t ns)
{
	acc_touch(a, ow);
	a->run[ow] += ns;
}

static void acc_held(void *ctx, uint32_t ow, int64_t ns)
{
	struct acc *a = ctx;

	acc_touch(a, ow);
	a->held[ow] += ns;
}

static void acc_cat(struct acc *a, uint8_t cat, uint16_t sub, int64_t ns)
{
	for (size_t i = 0; i < a->ncats; i++) {
		if (a->cats[i].cat == cat && a->cats[i].sub == sub) {
			a->cats[i].ns += ns;
			return;
		}
	}
	if (a->ncats == a->capcats) {
		size_t cap = a->capcats ? a->capcats * 2 : 16;
		struct crit_share *p = workq_calloc(cap, sizeof(*p));

		if (!p) {
			a->err = -ENOMEM;
			return;
		}
		if (a->ncats)
			memcpy(p, a->cats, a->ncats * sizeof(*p));
		free(a->cats);
		a->cats = p;
		a->capcats = cap;
	}
	a->cats[a->ncats++] = (struct crit_share){ .thread = CRIT_NONE, .cat = cat, .sub = sub, .ns = ns };
}

void acc_add(struct acc *dst, const struct acc *src)
{
	for (size_t i = 0; i < src->ntouched; i++) {
		uint32_t ow = src->touched[i];

		acc_touch(dst, ow);
		dst->run[ow] += src->run[ow];
		dst->held[ow] += src->held[ow];
	}
	for (size_t i = 0; i < src->ncats; i++)
		acc_cat(dst, src->cats[i].cat, src->cats[i].sub, src->cats[i].ns);
	if (src->err)
		dst->err = src->err;
}

static int cmp_share(const void *x, const void *y)
{
	const struct crit_share *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->cat != b->cat)
		return a->cat < b->cat ? -1 : 1;
	return (a->sub > b->sub) - (a->sub < b->sub);
}

int acc_take(struct acc *a, struct crit_share **out, size_t *nout)
{
	size_t n = 0, k = a->ntouched + a->ncats;
	struct crit_share *s = malloc((k ? k : 1) * sizeof(*s));

	if (!s || a->err) {
		free(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < a->ntouched; i++) {
		uint32_t ow = a->touched[i];

		if (a->run[ow] + a->held[ow] > 0)
			s[n++] = (struct crit_share){ .thread = ow, .ns = a->run[ow] + a->held[ow],
						      .run_ns = a->run[ow], .held_ns = a->held[ow] };
		a->run[ow] = a->held[ow] = 0;
		a->mark[ow] = 0;
	}
	for (size_t i = 0; i < a->ncats; i++)
		if (a->cats[i].ns > 0)
			s[n++] = a->cats[i];
	a->ntouched = 0;
	a->ncats = 0;
	qsort(s, n, sizeof(*s), cmp_share);
	*out = s;
	*nout = n;
	return 0;
}

/* The segment built so far goes to the kept ones (up to limit) and the count. */
static void seg_commit(struct segbuf *sb)
{
	if (!sb->has_cur)
		return;
	sb->has_cur = false;
	sb->total++;
	if (sb->n >= sb->limit)
		return;
	if (sb->n == sb->cap) {
		size_t cap = sb->cap ? sb->cap * 2 : 16;
		struct crit_seg *p = realloc(sb->v, cap * sizeof(*p));

		if (!p) {
			sb->err = -ENOMEM;
			return;
		}
		sb->v = p;
		sb->cap = cap;
	}
	sb->v[sb->n++] = sb->cur;
}

/*
 * Segments arrive last first; only the latest `limit` are kept, and all
 * are counted (a limit of 0 counts only). One continuing the segment
 * before it in time is merged into it, kept or not.
 */
static void seg_push(struct segbuf *sb, struct crit_seg s)
{
	struct crit_seg *p;

	if (!sb)
		return;
	p = &sb->cur;
	if (sb->has_cur && p->kind == s.kind && p->start_ns == s.end_ns && p->thread == s.thread &&
	    (s.kind == CRIT_SEG_RUN || (p->cat == s.cat && p->sub == s.sub &&
					p->holder == s.holder && p->cpu == s.cpu))) {
		p->start_ns = s.start_ns;
		p->holder_ns += s.holder_ns;
		p->held_ns += s.held_ns;
		return;
	}
	seg_commit(sb);
	sb->cur = s;
	sb->has_cur = true;
}

/* acc2's part of [a, b): what lies at or after h2; 0 without acc2. */
static inline int64_t acc2_part(const struct sink *k, int64_t a, int64_t b)
{
	return k->acc2 && b > k->h2 ? b - (a > k->h2 ? a : k->h2) : 0;
}

/* Thread ow ran during [a, b) of the walk. */
static void sink_run(const struct sink *k, uint32_t ow, int64_t a, int64_t b)
{
	int64_t x = acc2_part(k, a, b);

	acc_run(k->acc, ow, b - a);
	if (x > 0)
		acc_run(k->acc2, ow, x);
}

/* [a, b) of the walk went to category cat. */
static void sink_cat(const struct sink *k, uint8_t cat, uint16_t sub, int64_t a, int64_t b)
{
	int64_t x = acc2_part(k, a, b);

	acc_cat(k->acc, cat, sub, b - a);
	if (x > 0)
		acc_cat(k->acc2, cat, sub, x);
}

struct top_holder {
	struct acc *acc, *acc2;
	uint32_t top;
	int64_t top_ns;
	uint32_t last;
	int64_t last_ns;
};

static void holder_cb(void *ctx, uint32_t ow, int64_t ns)
{
	struct top_holder *h = ctx;

	acc_held(h->acc, ow, ns);
	if (h->acc2)
		acc_held(h->acc2, ow, ns);
	/* Consecutive stretches of one holder add up. */
	if (ow == h->last)
		h->last_ns += ns;
	else {
		h->last = ow;
		h->last_ns = ns;
	}
	if (h->last_ns > h->top_ns) {
		h->top = ow;
		h->top_ns = h->last_ns;
	}
}

/*
 * The wait [a, b) (relative) of task v, runnable on `cpu` (CRIT_NONE: not
 * waiting for a CPU): the time other threads held that CPU goes to them,
 * the rest to cat.
 */
static void wait_into(const struct walker *w, struct acc *acc, struct acc *acc2, struct segbuf *sb, uint32_t v,
		      int64_t a, int64_t b, uint8_t cat, uint16_t sub, uint32_t cpu)
{
	const struct model *m = w->m;
	struct top_holder h = { .acc = acc, .acc2 = acc2, .top = CRIT_NONE, .last = CRIT_NONE };
	int64_t held = 0;

	if (b <= a)
		return;
	if (cpu != CRIT_NONE && m->cpu_idx)
		held = cpus_held(m, w->hint, cpu, model_owner(m, v), a + m->t0, b + m->t0, holder_cb, &h);
	if (b - a - held > 0) {
		acc_cat(acc, cat, sub, b - a - held);
		if (acc2)
			acc_cat(acc2, cat, sub, b - a - held);
	}
	seg_push(sb, (struct crit_seg){ .start_ns = a + m->t0, .end_ns = b + m->t0, .thread = model_owner(m, v),
					.holder = h.top, .holder_ns = h.top_ns, .held_ns = held,
					.cpu = cpu == CRIT_NONE ? UINT16_MAX : (uint16_t)cpu,
					.kind = CRIT_SEG_WAIT, .cat = cat, .sub = sub });
}

/*
 * The wait [a, b) into the sink. Where acc2 starts taking inside it, acc2's
 * part is counted again on its own (the time held adds up over the parts),
 * so that acc and the segment see the wait whole, as without acc2.
 */
static void account_wait(const struct walker *w, const struct sink *k, uint32_t v, int64_t a, int64_t b,
			 uint8_t cat, uint16_t sub, uint32_t cpu)
{
	if (k->acc2 && a < k->h2 && b > k->h2) {
		wait_into(w, k->acc, NULL, k->sb, v, a, b, cat, sub, cpu);
		wait_into(w, k->acc2, NULL, NULL, v, k->h2, b, cat, sub, cpu);
		return;
	}
	wait_into(w, k->acc, k->acc2 && a >= k->h2 ? k->acc2 : NULL, k->sb, v, a, b, cat, sub, cpu);
}

static void account_release(const struct walker *w, const struct sink *k, uint32_t v, uint8_t cat,
			    int64_t horizon)
{
	const struct model *m = w->m;
	int64_t s = walker_est(w, v), r = s;
	uint16_t sub = 0;

	if (m->tl && m->cause[v] != CRIT_NONE &&
	    (cat == CRIT_CAT_REL_HARDIRQ || cat == CRIT_CAT_REL_SOFTIRQ || cat == CRIT_CAT_REL_KERNEL ||
	     cat == CRIT_CAT_REL_WAKER)) {
		const struct tl_wakeup *wk = &m->tl->wk[m->cause[v]];

		r = (int64_t)wk->waking_ts - m->t0;
		if (cat != CRIT_CAT_REL_WAKER && cat != CRIT_CAT_REL_KERNEL)
			sub = wk->irq;
		r = r < 0 ? 0 : r > s ? s : r;
		/* After the release the task was runnable where it was woken: latency. */
		account_wait(w, k, v, r > horizon ? r : horizon, s, CRIT_CAT_WAKEUP, 0, wk->target_cpu);
	}
	if (r > horizon) {
		sink_cat(k, cat, sub, horizon, r);
		seg_push(k->sb, (struct crit_seg){ .start_ns = horizon + m->t0, .end_ns = r + m->t0,
						.thread = model_owner(m, v), .holder = CRIT_NONE,
						.kind = CRIT_SEG_RELEASE, .cat = cat, .sub = sub });
	}
}

/*
 * A task of an invocation released inside it (a timeout the thread set, an
 * interrupt it waited for) after its earlier task ended at `from`: until
 * the release the invocation waited on itself (OWN_WAIT), after it the task
 * waited where it was woken. A live GStreamer source kept off its CPU
 * catches up in one invocation with short clock waits; its late start, not
 * the last of those waits, is what made it late.
 */
static void account_inner_wait(const struct walker *w, const struct sink *k, uint32_t v, int64_t from)
{
	const struct model *m = w->m;
	int64_t s = walker_est(w, v), r = s;

	if (m->tl && m->cause[v] != CRIT_NONE) {
		const struct tl_wakeup *wk = &m->tl->wk[m->cause[v]];

		r = (int64_t)wk->waking_ts - m->t0;
		r = r < from ? from : r > s ? s : r;
		account_wait(w, k, v, r, s, CRIT_CAT_WAKEUP, 0, wk->target_cpu);
	}
	if (r > from)
		account_wait(w, k, v, from, r, CRIT_CAT_OWN_WAIT, 0, CRIT_NONE);
}

/*
 * The sub of a wakeup edge's latency into v: 1 + the softirq vector when
 * the waker raised the softirq that woke v (TL_WAKE_VIA: the hop went
 * through the kernel, "wakeup latency via NET_RX"), else 0.
 */
static uint16_t wait_via(const struct model *m, uint8_t cat, uint32_t v)
{
	const struct tl_wakeup *wk;

	if (!m->tl || cat != CRIT_CAT_WAKEUP || m->cause[v] == CRIT_NONE)
		return 0;
	wk = &m->tl->wk[m->cause[v]];
	return wk->flags & TL_WAKE_VIA ? (uint16_t)(wk->irq + 1) : 0;
}

/*
 * The CPU a task waited for on the lag of its binding edge e from u: a
 * wakee where it was woken, a preempted thread where it was preempted;
 * CRIT_NONE where the lag is not a wait for a CPU (blocked, control
 * overhead).
 */
static uint32_t wait_cpu(const struct model *m, uint8_t cat, uint32_t u, uint32_t v)
{
	if (!m->tl)
		return CRIT_NONE;
	if (cat == CRIT_CAT_WAKEUP && m->cause[v] != CRIT_NONE)
		return m->tl->wk[m->cause[v]].target_cpu;
	if (cat == CRIT_CAT_PREEMPT)
		return model_run(m, u)->cpu;
	return CRIT_NONE;
}

size_t walk_path(const struct walker *w, uint32_t v, int64_t end, int64_t horizon, const struct sink *k)
{
	const struct model *m = w->m;
	const struct prec_graph *g = w->g;
	size_t ntasks = 0;

	for (;;) {
		int64_t s = walker_est(w, v), e = s + prec_dur(g, v), a, lag;
		uint32_t b, u;
		uint8_t cat;

		if (end < e)
			e = end;
		a = s > horizon ? s : horizon;
		if (e > a) {
			sink_run(k, model_owner(m, v), a, e);
			seg_push(k->sb, (struct crit_seg){ .start_ns = a + m->t0, .end_ns = e + m->t0,
							.thread = model_owner(m, v), .holder = CRIT_NONE,
							.kind = CRIT_SEG_RUN });
		}
		ntasks++;
		if (s <= horizon)
			break;
		b = w->bind[v];
		if (b == CRIT_NONE)
			break;
		u = g->pred[b];
		cat = g->cat[b];
		lag = prec_lag(g, v, b);
		if (u == PREC_ROOT && v > k->own_lo && v <= k->own_hi) {
			/* Inside the invocation: its own wait, then back into its earlier task. */
			end = walker_est(w, v - 1) + prec_dur(g, v - 1);
			account_inner_wait(w, k, v, end > horizon ? end : horizon);
			if (end <= horizon)
				break;
			v--;
			continue;
		}
		if (u == PREC_ROOT) {
			if (m->tl)
				account_release(w, k, v, cat, horizon);
			else if (lag > 0)
				account_wait(w, k, v, s - lag > horizon ? s - lag : horizon, s, CRIT_CAT_INIT, 0,
					     CRIT_NONE);
			break;
		}
		if (lag > 0)
			account_wait(w, k, v, s - lag > horizon ? s - lag : horizon, s, cat, wait_via(m, cat, v),
				     wait_cpu(m, cat, u, v));
		end = walker_est(w, u) + prec_dur(g, u);
		if (end <= horizon)
			break;
		v = u;
	}
	return ntasks;
}

static void reverse_segs(struct segbuf *sb)
{
	for (size_t i = 0; i < sb->n / 2; i++) {
		struct crit_seg t = sb->v[i];

		sb->v[i] = sb->v[sb->n - 1 - i];
		sb->v[sb->n - 1 - i] = t;
	}
}

int path_take(const struct walker *w, struct segbuf *sb, size_t ntasks, int64_t end, int64_t horizon,
	      struct acc *acc, struct crit_path *p)
{
	int err;

	p->ntasks = ntasks;
	seg_commit(sb);
	p->start_ns = horizon + w->m->t0;
	p->end_ns = end + w->m->t0;
	err = sb->err ? sb->err : acc_take(acc, &p->share, &p->nshare);
	reverse_segs(sb);
	p->seg = sb->v;
	p->nseg = sb->n;
	p->nseg_total = sb->total;
	return err;
}

int path_into(const struct walker *w, uint32_t v, int64_t end, int64_t horizon, struct acc *acc,
	      size_t seg_limit, struct crit_path *p)
{
	struct segbuf sb = { .limit = seg_limit };

	return path_take(w, &sb, walk_path(w, v, end, horizon, &(struct sink){ .acc = acc, .sb = &sb }), end, horizon,
			 acc, p);
}

void path_free(struct crit_path *p)
{
	free(p->share);
	free(p->seg);
}
