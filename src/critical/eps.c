// SPDX-License-Identifier: MIT
/*
 * eps of a recording (critical.h), and what Algorithm 4 proposes within it.
 *
 * Explicit --epsilon is used as given. auto with wakeups: the largest
 * invisible gap of a wakeup-backed precedence (from the waking time to the
 * wakee's start, minus the time other threads held the CPU it was woken
 * on; windows with missing data left out): Theorem 2 wants eps >= every
 * chain of invisible tasks, and a wait behind a visible task is not
 * invisible. Capped at epsilon_cap_ns (default 1 ms); halved while the
 * candidate pairs exceed the edge budget (timing-only). It can be 0 on a
 * saturated machine, where every latency is spent behind someone. With
 * wakeups the graph does not depend on eps beyond the BLOCKED edges: eps
 * decides which timing-only proposals are checked, and the counts of
 * confirmed and spurious ones say how far timing alone would have been
 * right at that eps. Timing-only still takes its auto eps from the wakeups
 * when the trace has them. auto without wakeups: 100 us on a trace
 * (CRIT_DEFAULT_EPS_TRACE), 0 on a Gantt chart (Algorithm 2).
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "lib/workq.h"

/*
 * Theorem 2's evidence: the largest gap of a wakeup-backed precedence that
 * no visible task fills (the CPU the wakee was woken on held by nobody
 * else). -1 if none.
 */
int64_t eps_evidence(const struct model *m)
{
	int64_t best = -1;

	/* In time order, so that the searches on each CPU move forward. */
	for (size_t k = 0; k < m->tl->nwk; k++) {
		const struct tl_wakeup *w = &m->tl->wk[k];
		uint32_t v = m->wk_task[k];
		int64_t a, b, x;

		/* Whole runs (timing-only): the waker's run may end after v starts. */
		if (v == CRIT_NONE || m->cause[v] != k || !(m->fl[v] & TF_WAKER_RAN))
			continue;
		a = (int64_t)w->waking_ts;
		b = m->tasks[v].start_ns;
		/* Where data is missing, who held the CPU is not known. */
		if (b < a || (m->nmiss && model_missing(m, a, b)))
			continue;
		x = (b - a) - cpus_held(m, m->cpu_hint, w->target_cpu, model_owner(m, v), a, b, NULL, NULL);
		if (x > best)
			best = x;
	}
	return best;
}

/* The tasks ending in [rs - eps, rs): byend[*lo, *hi), moved forward as rs grows. */
static inline void eps_window(const struct model *m, const uint32_t *byend, int64_t rs, int64_t eps, uint32_t *lo,
			      uint32_t *hi)
{
	while (*lo < m->n && m->tasks[byend[*lo]].end_ns < rs - eps)
		(*lo)++;
	if (*hi < *lo)
		*hi = *lo;
	while (*hi < m->n && m->tasks[byend[*hi]].end_ns < rs)
		(*hi)++;
}

/* Program order within eps kept: u is v's thread's fragment just before it. */
static void keep_program_order(struct model *m, struct crit_edge_stats *st, uint32_t v)
{
	st->same_thread++;
	m->kept[v] |= KEPT_PO | KEPT_ANY;
	m->xcat[2 * v] = model_run(m, v - 1)->end_state == QT_END_PREEMPTED ? CRIT_CAT_PREEMPT : CRIT_CAT_BLOCKED;
}

/* A proposal within eps confirmed by the wakeup that released v. */
static void keep_wakeup(struct model *m, struct crit_edge_stats *st, uint32_t v)
{
	st->confirmed++;
	m->kept[v] |= KEPT_WK | KEPT_ANY;
	m->xcat[2 * v + 1] = CRIT_CAT_WAKEUP;
}

/*
 * With wakeups, the graph is built with eps = 0 (the exact hand-overs and
 * program order), and what Algorithm 4 proposes within (0, eps] is judged
 * here, pair by pair as the hook would, without edge memory for the
 * proposals: every cross-thread one is counted as confirmed by a wakeup (its
 * edge added) or rejected; program order within eps is added. The graph is
 * the one a build with eps and the hook gives, at a fraction of its peak
 * memory (the build sizes edge memory by proposals before any is judged).
 */
int eps_scan_each(struct model *m, const struct prec_graph *g, int64_t eps)
{
	struct crit_edge_stats *st = m->st;
	uint32_t *byend = NULL, lo = 0, hi = 0;
	int err = cpus_by_end(m, &byend, NULL);

	for (uint32_t p = 0; p < g->n && !err; p++) {
		uint32_t v = g->order[p];
		int64_t rs = m->tasks[v].start_ns;

		eps_window(m, byend, rs, eps, &lo, &hi);
		for (uint32_t k = lo; k < hi; k++) {
			uint32_t u = byend[k];
			int64_t gap = rs - m->tasks[u].end_ns;

			if (u == v || gap <= 0)
				continue;
			st->candidates++;
			if (model_owner(m, u) == model_owner(m, v)) {
				if (v != u + 1) {
					st->redundant++;
					continue;
				}
				keep_program_order(m, st, v);
				continue;
			}
			st->cross++;
			if (model_confirmed(m, u, v)) {
				keep_wakeup(m, st, v);
			} else if (m->nmiss && model_missing(m, m->tasks[u].end_ns, rs)) {
				st->missing_data++;
			} else {
				st->rejected++;
			}
		}
	}
	free(byend);
	return err;
}

/*
 * Tasks of thread th before v whose end is < t (their ends are in order).
 * t lies within eps of v's start, so the answer is a few tasks back from v:
 * galloping back from v finds it in O(log distance), where a binary search
 * over the whole thread (a storm's busy thread has 10^5 fragments) missed
 * the cache at every step.
 */
static uint32_t thread_ends_before(const struct model *m, uint32_t th, uint32_t v, int64_t t)
{
	uint32_t lo = m->thr_first[th], hi = v, step = 1;

	/* every task in [hi, v) ends at or after t */
	while (hi - lo > step && m->tasks[hi - step].end_ns >= t) {
		hi -= step;
		step *= 2;
	}
	if (hi - lo > step)
		lo = hi - step + 1;
	return model_first_end_from(m, lo, hi, t) - m->thr_first[th];
}

/* Positions in byend[lo, hi) whose task ends before t. */
static uint32_t byend_before(const struct model *m, const uint32_t *byend, uint32_t lo, uint32_t hi,
			     int64_t t)
{
	uint32_t a = lo;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->tasks[byend[mid]].end_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - a;
}

/* Does every thread's fragments end in time order? (Then counting is exact.) */
static bool ends_in_order(const struct model *m)
{
	for (uint32_t th = 0; th < m->tl->nthreads; th++)
		for (uint32_t v = m->thr_first[th] + 1; v < m->thr_first[th + 1]; v++)
			if (m->tasks[v].end_ns < m->tasks[v - 1].end_ns)
				return false;
	return true;
}

struct eps_part {
	struct model *m;
	const struct prec_graph *g;
	const uint32_t *byend;
	int64_t eps;
	uint32_t p0, p1;		/* the targets at these positions of the order */
	struct crit_edge_stats st;	/* what they counted */
};

static void *eps_count_part(void *arg)
{
	struct eps_part *pt = arg;
	struct model *m = pt->m;
	const struct prec_graph *g = pt->g;
	const uint32_t *byend = pt->byend;
	struct crit_edge_stats *st = &pt->st;
	int64_t eps = pt->eps;
	uint32_t lo = 0, hi = 0;
	size_t jm = 0;

	if (pt->p0 && pt->p0 < pt->p1) {
		/* Where the forward-only window of a scan from 0 would be (byend sorted). */
		int64_t rs0 = m->tasks[g->order[pt->p0]].start_ns;

		lo = byend_before(m, byend, 0, (uint32_t)m->n, rs0 - eps);
		hi = lo + byend_before(m, byend, lo, (uint32_t)m->n, rs0);
	}
	for (uint32_t p = pt->p0; p < pt->p1; p++) {
		uint32_t v = g->order[p], th = model_owner(m, v), u = CRIT_NONE, w = CRIT_NONE, below;
		int64_t rs = m->tasks[v].start_ns;
		uint64_t same, miss_all = 0;

		eps_window(m, byend, rs, eps, &lo, &hi);
		if (lo == hi)
			continue;
		st->candidates += hi - lo;
		below = thread_ends_before(m, th, v, rs - eps);
		same = thread_ends_before(m, th, v, rs) - below;
		if (v > m->thr_first[th] && m->tasks[v - 1].end_ns < rs && m->tasks[v - 1].end_ns >= rs - eps)
			u = v - 1;
		if (m->wfrom[v] != CRIT_NONE && model_owner(m, m->wfrom[v]) != th &&
		    m->tasks[m->wfrom[v]].end_ns < rs && m->tasks[m->wfrom[v]].end_ns >= rs - eps)
			w = m->wfrom[v];
		st->redundant += same - (u != CRIT_NONE);
		st->cross += hi - lo - same;
		if (m->nmiss) {
			while (jm < m->nmiss && m->miss[jm].a <= rs)
				jm++;
			if (jm) {
				int64_t b = m->miss[jm - 1].b;

				/* Less the thread's own and the waker's, judged before. */
				miss_all = byend_before(m, byend, lo, hi, b);
				if (b > rs - eps)
					miss_all -= thread_ends_before(m, th, v, b < rs ? b : rs) - below;
				if (w != CRIT_NONE && m->tasks[w].end_ns < b)
					miss_all--;
			}
		}
		st->missing_data += miss_all;
		st->rejected += hi - lo - same - (w != CRIT_NONE) - miss_all;
		if (u != CRIT_NONE)
			keep_program_order(m, st, v);
		if (w != CRIT_NONE)
			keep_wakeup(m, st, v);
	}
	return NULL;
}

/*
 * What scan_eps_each finds, without visiting every proposal: a storm's
 * eps (131 us around 12 us runs) proposes ~40 pairs per task, 138 M for
 * 3.4 M tasks, all but one or two rejected. Of the pairs proposed into v
 * (the tasks ending in [start - eps, start)), only two can be kept: the
 * thread's previous fragment and the waker's task. The rest are counted:
 * the window in the tasks by end, the thread's own fragments in it by a
 * binary search over the thread (its ends in order), the ones whose gap
 * meets missing data as those ending before the end B of the last missing
 * window that starts by v's start (the windows are disjoint and sorted, so
 * [end, start] meets one iff end < B). The graph is the same: the kept
 * edges are noted per task (xcat), not in the order they are found.
 *
 * Each target is judged on its own, so with jobs > 1 and a spare CPU the
 * two halves of the order are counted side by side (a helper thread takes
 * the first), each into its own counts; the flags each sets are its own
 * targets'.
 */
static int eps_scan_count(struct model *m, const struct prec_graph *g, int64_t eps, int jobs)
{
	struct eps_part pt[2];
	uint32_t *byend = NULL, mid;
	bool sorted;
	int err = cpus_by_end(m, &byend, &sorted), two;

	if (err)
		return err;
	/* The second half finds its window by binary search: ends in order only. */
	two = jobs > 1 && sorted && g->n > 1 ? 1 + workq_spare(1) : 1;
	mid = two > 1 ? g->n / 2 : 0;
	for (int i = 0; i < 2; i++)
		pt[i] = (struct eps_part){ .m = m, .g = g, .byend = byend, .eps = eps,
					   .p0 = i ? mid : 0, .p1 = i ? g->n : mid };
	workq_parts(two, eps_count_part, two > 1 ? pt : pt + 1, sizeof(pt[0]));
	workq_busy(1 - two);
	graph_stats_add(m->st, &pt[0].st);
	graph_stats_add(m->st, &pt[1].st);
	free(byend);
	return 0;
}

int eps_scan(struct model *m, const struct prec_graph *g, int64_t eps, int jobs)
{
	return ends_in_order(m) ? eps_scan_count(m, g, eps, jobs) : eps_scan_each(m, g, eps);
}
