// SPDX-License-Identifier: MIT
/*
 * The precedence graph of a recording's task model (critical.h): Algorithm
 * 4 proposes every pair (t, t') with 0 <= s(t') - e(t) <= eps; a hook
 * classifies each proposal:
 *  - same thread, next fragment: program order. After a split the edge is
 *    exact (CONT); after a preemption its lag is the time the thread waited
 *    for a CPU (PREEMPT); after a sleep, the time it was blocked (BLOCKED).
 *    Later fragments of the same thread are implied by these and dropped.
 *  - other thread, exact, same CPU: prev left the CPU when next took it, a
 *    resource precedence (RESOURCE, like D -> E in the paper's Fig. 2).
 *  - other thread otherwise: with wakeups, kept only when a recorded wakeup
 *    confirms it (the fragment that ends at the waking point, into the
 *    wakee's first run after the wakeup: WAKEUP, lag = wakeup latency);
 *    every other proposal has no causal support and is dropped as spurious
 *    (Hendriks & Vaandrager §IV). Without wakeups it is kept as the paper's
 *    control task (GAP, lag = the gap).
 * With wakeups, what the trace proves is then added even where it lies
 * beyond eps (prec_graph__add_edges): the wakeup edges with a larger gap and
 * the program order after a long preemption. Without wakeups nothing is
 * added: timing alone, as in the paper.
 * (Implementation: with wakeups the graph is built with eps = 0 through the
 * hook, and the proposals in (0, eps] are judged by the same rules in a scan
 * that allocates nothing per proposal (eps.c); the result is the graph the
 * hook would give at eps, without the 14 bytes per proposal the build
 * reserves before judging: on a busy trace most proposals are spurious, 5.8
 * per task in the benchmark.)
 *
 * Releases. A run started by an interrupt (a timer, an IRQ, a softirq) has
 * no thread predecessor: the trace says when it was released, and a root
 * lag (an initial control task reaching back to the origin) pins its
 * earliest start to its observed start. A task left without any predecessor
 * gets the same root lag, marked "no recorded cause" (timing-only: "no
 * predecessor within eps"). So every lag equals an observed gap and, by
 * induction over the order, the non-delay interpretation reproduces every
 * observed start exactly: est(t) = s(t) - origin. On a kernel trace the
 * paper's eps check is therefore replaced by the count of starts the
 * reconstruction cannot explain (the tasks given a "no recorded cause" root).
 * The paper's INIT edges are not used on kernel traces: they are releases.
 *
 * Cost O(n log n + candidates); 16 bytes per task + 14 per edge, and the
 * build's sort for a while.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The hook's context: one per thread of the build, each with its own counts. */
struct hook_ctx {
	struct model *m;
	struct crit_edge_stats st;
};

static int trace_hook(void *ctx, uint32_t u, uint32_t v, int64_t gap, enum prec_edge_kind kind,
		      uint8_t *cat)
{
	struct hook_ctx *hc = ctx;
	struct model *m = hc->m;
	struct crit_edge_stats *st = &hc->st;
	uint32_t tu, tv;

	(void)kind;
	if (u == PREC_ROOT)
		return 0;	/* releases are decided by what the trace says */
	tu = model_owner(m, u);
	tv = model_owner(m, v);
	if (tu == tv) {
		if (v != u + 1) {
			st->redundant++;
			return 0;
		}
		if (!(m->fl[u] & TF_LAST))
			*cat = CRIT_CAT_CONT;
		else if (model_run(m, u)->end_state == QT_END_PREEMPTED)
			*cat = CRIT_CAT_PREEMPT;
		else
			*cat = CRIT_CAT_BLOCKED;
		st->same_thread++;
		m->kept[v] |= KEPT_PO | KEPT_ANY;
		return 1;
	}
	if (m->split && model_confirmed(m, u, v)) {
		st->cross++;
		st->confirmed++;
		*cat = CRIT_CAT_WAKEUP;
		m->kept[v] |= KEPT_WK | KEPT_ANY;
		return 1;
	}
	if (gap == 0 && model_run(m, u)->cpu == model_run(m, v)->cpu && (m->fl[u] & TF_LAST) &&
	    (m->fl[v] & TF_FIRST) && !(m->fl[v] & TF_UNSURE)) {
		st->resource++;
		*cat = CRIT_CAT_RESOURCE;
		m->kept[v] |= KEPT_ANY;
		return 1;
	}
	st->cross++;
	if (m->nmiss && model_missing(m, m->tasks[u].end_ns, m->tasks[v].start_ns)) {
		st->missing_data++;
		return 0;
	}
	if (!m->split) {
		st->unchecked++;
		*cat = CRIT_CAT_GAP;
		m->kept[v] |= KEPT_ANY;
		return 1;
	}
	st->rejected++;
	return 0;
}

void graph_stats_add(struct crit_edge_stats *d, const struct crit_edge_stats *s)
{
	d->candidates += s->candidates;
	d->exact += s->exact;
	d->same_thread += s->same_thread;
	d->resource += s->resource;
	d->cross += s->cross;
	d->confirmed += s->confirmed;
	d->rejected += s->rejected;
	d->unchecked += s->unchecked;
	d->missing_data += s->missing_data;
	d->redundant += s->redundant;
	d->wakeups_beyond += s->wakeups_beyond;
	d->preempt_beyond += s->preempt_beyond;
	for (int c = 0; c < CRIT_CAT_MAX; c++)
		d->releases[c] += s->releases[c];
	d->wakeups_unmatched += s->wakeups_unmatched;
}

/* Edges the trace proves beyond eps, and the releases. */
static void trace_extras(struct model *m)
{
	const struct timeline *tl = m->tl;
	struct crit_edge_stats *st = m->st;

	for (uint32_t v = 0; v < m->n; v++) {
		int64_t s = m->tasks[v].start_ns;
		bool has = m->kept[v] & KEPT_ANY;
		uint8_t rel = 0;

		if (m->split && (m->fl[v] & TF_FIRST)) {
			const struct tl_wakeup *w = m->cause[v] != CRIT_NONE ? &tl->wk[m->cause[v]] : NULL;

			if (w && w->waker != TL_NONE) {
				uint32_t u = m->wfrom[v];

				if (u == CRIT_NONE) {
					rel = CRIT_CAT_REL_WAKER;
					st->wakeups_unmatched++;
				} else if (!(m->kept[v] & KEPT_WK)) {
					/* Beyond eps: gap > eps >= 0, so u is before v in the order. */
					m->xcat[2 * v + 1] = CRIT_CAT_WAKEUP;
					st->wakeups_beyond++;
					has = true;
				}
			} else if (w) {
				rel = w->flags & QT_WAKE_HARDIRQ ? CRIT_CAT_REL_HARDIRQ :
				      w->flags & QT_WAKE_SOFTIRQ ? CRIT_CAT_REL_SOFTIRQ : CRIT_CAT_REL_KERNEL;
			} else if (v > 0 && model_owner(m, v - 1) == model_owner(m, v) && (m->fl[v - 1] & TF_LAST) &&
				   model_run(m, v - 1)->end_state == QT_END_PREEMPTED && !(m->kept[v] & KEPT_PO) &&
				   m->tasks[v - 1].end_ns <= s && m->tasks[v - 1].start_ns < s) {
				m->xcat[2 * v] = CRIT_CAT_PREEMPT;
				st->preempt_beyond++;
				has = true;
			}
		}
		/* The first run of a thread without a recorded cause: it lies before the recording. */
		if (!rel && !has && s > m->t0)
			rel = v == m->thr_first[model_owner(m, v)] ? CRIT_CAT_REL_START : CRIT_CAT_REL_NONE;
		if (rel) {
			m->xcat[2 * v + 1] = rel;
			st->releases[rel]++;
		}
	}
}

static struct prec_edge given_edge(const struct model *m, uint32_t from, uint32_t v, uint8_t cat)
{
	return (struct prec_edge){ from, v, prec_gap(m->tasks, m->t0, from, v), PREC_EDGE_GIVEN, cat };
}

/* The edges trace_extras and the eps scan chose for task v (prec_edge_gen). */
static size_t extra_edges(void *ctx, uint32_t v, struct prec_edge *out)
{
	const struct model *m = ctx;
	uint8_t a = m->xcat[2 * v], b = m->xcat[2 * v + 1];
	size_t c = 0;

	if (a)
		out[c++] = given_edge(m, v - 1, v, a);
	if (b)
		out[c++] = given_edge(m, b == CRIT_CAT_WAKEUP ? m->wfrom[v] : PREC_ROOT, v, b);
	return c;
}

int graph_build(struct model *m, int64_t eps, uint64_t max_edges, int jobs, eps_scan_fn scan,
		struct prec_graph **out)
{
	struct prec_opts po = {
		.eps_ns = m->split ? 0 : eps,
		.has_origin = 1,
		.origin_ns = m->t0,
		.max_edges = max_edges,
		.edge_fn = trace_hook,
		.lean = 1,
		.jobs = jobs < 1 ? 1 : jobs > PREC_MAX_JOBS ? PREC_MAX_JOBS : jobs,
	};
	struct hook_ctx hc[PREC_MAX_JOBS];
	void *ctxs[PREC_MAX_JOBS];
	int err = -ENOMEM;

	for (int i = 0; i < po.jobs; i++) {
		hc[i] = (struct hook_ctx){ .m = m };
		ctxs[i] = &hc[i];
	}
	po.edge_ctx = ctxs[0];
	po.edge_ctxs = ctxs;
	m->xcat = calloc(m->n ? 2 * m->n : 1, 1);
	m->kept = calloc(m->n ? m->n : 1, 1);
	if (!m->xcat || !m->kept)
		goto out;
	memset(m->st, 0, sizeof(*m->st));
	err = prec_graph__build(m->tasks, m->n, &po, out);
	for (int i = 0; i < po.jobs; i++)
		graph_stats_add(m->st, &hc[i].st);
	if (err)
		goto out;
	m->st->candidates = (*out)->n_candidates;
	if (m->split && eps > 0)
		err = scan(m, *out, eps, jobs);
	if (!err) {
		trace_extras(m);
		err = prec_graph__add_edges(*out, extra_edges, m);
	}
	if (err) {
		prec_graph__free(*out);
		*out = NULL;
	}
out:
	free(m->xcat);
	free(m->kept);
	m->xcat = NULL;
	m->kept = NULL;
	return err;
}
