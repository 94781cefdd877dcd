// SPDX-License-Identifier: MIT
/*
 * The task model of a recording (critical.h). Tasks are run intervals,
 * split where the thread wakes another thread (at the waker's waking time):
 * a waker usually runs on after waking, and Algorithm 1 needs a predecessor
 * to END before its successor starts, so the fragment up to the waking
 * point is what the wakee waited for. The idle task is never a task (the
 * timeline has no idle runs). Runs begun before the recording are clamped
 * to its start (the origin). Without wakeups (timing-only) the tasks are
 * the whole run intervals.
 *
 * Beside the tasks: the wakeup that released each run and the waker's
 * task it came from, the tasks by CPU (cpus.c) and the windows where data
 * is missing. Cost O(n + wakeups) plus one sort of the tasks by start (the
 * CPU index); about 33 bytes per task.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lib/prefault.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The waking points of thread th inside its runs: times where it woke
 * another thread (sorted, into buf; returns how many).
 */
static size_t waking_points(const struct timeline *tl, uint32_t th, uint64_t *buf)
{
	const struct tl_thread *x = &tl->threads[th];
	size_t k = 0;
	bool sorted = true;

	for (size_t i = x->ws0; i < x->ws0 + x->nws; i++) {
		const struct tl_wakeup *w = &tl->wk[tl->wk_by_waker[i]];

		if (w->waker != th || w->wakee == th)
			continue;
		if (k && w->waking_ts < buf[k - 1])
			sorted = false;
		buf[k++] = w->waking_ts;
	}
	if (!sorted)
		qsort(buf, k, sizeof(*buf), cmp_u64);
	return k;
}

/*
 * Fragments of every run, thread by thread in time order (two passes: the
 * first with tasks == NULL counts). Returns the number of fragments.
 */
static size_t fragment(struct model *m, uint64_t *pts)
{
	const struct timeline *tl = m->tl;
	size_t n = 0;

	for (uint32_t th = 0; th < tl->nthreads; th++) {
		const struct tl_thread *x = &tl->threads[th];
		size_t np = m->split ? waking_points(tl, th, pts) : 0, p = 0;

		if (m->thr_first)
			m->thr_first[th] = (uint32_t)n;
		for (size_t r = x->run0; r < x->run0 + x->nrun; r++) {
			const struct tl_run *run = &tl->runs[r];
			int64_t s = (int64_t)run->start, e = (int64_t)run->end, last;
			size_t first = n;

			if (s < m->t0)
				s = m->t0;
			if (e < s) {
				if (m->run_first)
					m->run_first[r] = CRIT_NONE;
				continue;
			}
			last = s;
			while (p < np && (int64_t)pts[p] <= s)
				p++;
			for (; p < np && (int64_t)pts[p] < e; p++) {
				if ((int64_t)pts[p] == last)
					continue;
				if (m->tasks) {
					m->tasks[n] = (struct prec_task){ last, (int64_t)pts[p] };
					m->src[n] = (uint32_t)r;
					m->fl[n] = 0;
				}
				n++;
				last = (int64_t)pts[p];
			}
			if (m->tasks) {
				uint8_t f = 0;

				m->tasks[n] = (struct prec_task){ last, e };
				m->src[n] = (uint32_t)r;
				m->fl[n] = TF_LAST;
				if (run->flags & TL_RUN_START_UNSURE)
					f |= TF_UNSURE;
				if ((run->flags & TL_RUN_START_CUT) || (int64_t)run->start < m->t0)
					f |= TF_CUT;
				m->fl[first] |= TF_FIRST | f;
				m->run_first[r] = (uint32_t)first;
			}
			n++;
		}
	}
	if (m->thr_first)
		m->thr_first[tl->nthreads] = (uint32_t)n;
	return n;
}

/*
 * The wakeup that released each run: the last one the thread received at
 * or before the run's start and not before its previous run ended. None
 * after a preemption (still runnable: program order explains the start).
 */
static void find_causes(struct model *m)
{
	const struct timeline *tl = m->tl;

	for (size_t v = 0; v < m->n; v++)
		m->cause[v] = CRIT_NONE;
	for (uint32_t th = 0; th < tl->nthreads; th++) {
		const struct tl_thread *x = &tl->threads[th];
		size_t q = x->wr0, qend = x->wr0 + x->nwr;
		const struct tl_run *prev = NULL;

		for (size_t r = x->run0; r < x->run0 + x->nrun; prev = &tl->runs[r], r++) {
			const struct tl_run *run = &tl->runs[r];
			uint32_t best = CRIT_NONE;

			while (q < qend && tl->wk[tl->wk_by_wakee[q]].ts <= run->start) {
				const struct tl_wakeup *w = &tl->wk[tl->wk_by_wakee[q]];

				if (!prev || w->ts >= prev->end)
					best = tl->wk_by_wakee[q];
				q++;
			}
			if (prev && prev->end_state == QT_END_PREEMPTED)
				best = CRIT_NONE;
			if (m->run_first[r] != CRIT_NONE)
				m->cause[m->run_first[r]] = best;
		}
	}
}

uint32_t model_task_at(const struct model *m, uint32_t th, int64_t w)
{
	uint32_t lo = model_first_end_from(m, m->thr_first[th], m->thr_first[th + 1], w);

	if (lo < m->thr_first[th + 1] && m->tasks[lo].start_ns < w)
		return lo;
	return CRIT_NONE;
}

/*
 * wfrom[v]: the waker's task of the wakeup that released v (the task of
 * the waker that contains the waking time and ends before v starts), or
 * CRIT_NONE. Each waker's wakeups and tasks are both in time order, so one
 * merge per thread finds them all (a binary search where the waking times
 * go back).
 */
static int find_wakers(struct model *m)
{
	const struct timeline *tl = m->tl;
	uint32_t *wk_task = malloc((tl->nwk ? tl->nwk : 1) * sizeof(*wk_task));

	if (!wk_task)
		return -ENOMEM;
	m->wk_task = wk_task;
	for (size_t i = 0; i < tl->nwk; i++)
		wk_task[i] = CRIT_NONE;
	for (uint32_t v = 0; v < m->n; v++) {
		m->wfrom[v] = CRIT_NONE;
		if (m->cause[v] != CRIT_NONE)
			wk_task[m->cause[v]] = v;
	}
	for (uint32_t th = 0; th < tl->nthreads; th++) {
		const struct tl_thread *x = &tl->threads[th];
		uint32_t p = m->thr_first[th], end = m->thr_first[th + 1];

		for (size_t i = x->ws0; i < x->ws0 + x->nws; i++) {
			uint32_t k = tl->wk_by_waker[i], v = wk_task[k], u;
			int64_t t = (int64_t)tl->wk[k].waking_ts;

			if (v == CRIT_NONE || tl->wk[k].waker != th)
				continue;
			if (p > m->thr_first[th] && m->tasks[p - 1].end_ns >= t) {
				u = model_task_at(m, th, t);
			} else {
				while (p < end && m->tasks[p].end_ns < t)
					p++;
				u = p < end && m->tasks[p].start_ns < t ? p : CRIT_NONE;
			}
			if (u != CRIT_NONE)
				m->fl[v] |= TF_WAKER_RAN;
			if (u != CRIT_NONE && m->tasks[u].end_ns <= m->tasks[v].start_ns)
				m->wfrom[v] = u;
		}
	}
	return 0;
}

static int cmp_span(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	return a->a < b->a ? -1 : a->a > b->a;
}

/* Missing data on any CPU, as disjoint sorted windows. */
static int merge_missing(struct model *m)
{
	const struct timeline *tl = m->tl;
	size_t k = 0;

	if (!tl->ngaps)
		return 0;
	m->miss = malloc(tl->ngaps * sizeof(*m->miss));
	if (!m->miss)
		return -ENOMEM;
	for (size_t i = 0; i < tl->ngaps; i++)
		m->miss[i] = (struct span){ (int64_t)tl->gaps[i].start, (int64_t)tl->gaps[i].end };
	qsort(m->miss, tl->ngaps, sizeof(*m->miss), cmp_span);
	for (size_t i = 0; i < tl->ngaps; i++) {
		if (k && m->miss[i].a <= m->miss[k - 1].b) {
			if (m->miss[i].b > m->miss[k - 1].b)
				m->miss[k - 1].b = m->miss[i].b;
		} else {
			m->miss[k++] = m->miss[i];
		}
	}
	m->nmiss = k;
	return 0;
}

void model_free(struct model *m)
{
	free(m->tasks);
	free(m->src);
	free(m->fl);
	free(m->cause);
	free(m->wfrom);
	free(m->wk_task);
	free(m->thr_first);
	free(m->run_first);
	free(m->cpu_idx);
	free(m->cpu_off);
	free(m->cpu_hint);
	free(m->cpu_reach);
	free(m->miss);
}

void model_drop_build(struct model *m)
{
	free(m->fl);
	free(m->wfrom);
	free(m->wk_task);
	m->fl = NULL;
	m->wfrom = NULL;
	m->wk_task = NULL;
}

/*
 * The model's arrays, each written to its end by the passes below: their
 * memory faulted in beside them (prefault.h), 300 MB at 10 M events.
 */
static struct prefault *prefault_model(const struct model *m)
{
	void *arr[] = { m->tasks, m->src, m->run_first, m->cause, m->wfrom, m->fl };
	size_t len[] = { m->n * sizeof(*m->tasks), m->n * sizeof(*m->src), m->tl->nruns * sizeof(*m->run_first),
			 m->n * sizeof(*m->cause), m->n * sizeof(*m->wfrom), m->n };

	return prefault__start_all(arr, len, sizeof(arr) / sizeof(arr[0]));
}

int model_build(struct model *m)
{
	const struct timeline *tl = m->tl;
	struct prefault *pf = NULL;
	uint64_t *pts = NULL;
	size_t maxws = 1;
	int err = -ENOMEM;

	for (uint32_t th = 0; th < tl->nthreads; th++)
		if (tl->threads[th].nws > maxws)
			maxws = tl->threads[th].nws;
	pts = malloc(maxws * sizeof(*pts));
	if (!pts)
		return -ENOMEM;
	m->n = fragment(m, pts);
	if (m->n > PREC_MAX_TASKS) {
		free(pts);
		return -E2BIG;
	}
	m->tasks = malloc((m->n ? m->n : 1) * sizeof(*m->tasks));
	m->src = malloc((m->n ? m->n : 1) * sizeof(*m->src));
	m->fl = malloc(m->n ? m->n : 1);
	m->cause = malloc((m->n ? m->n : 1) * sizeof(*m->cause));
	m->wfrom = malloc((m->n ? m->n : 1) * sizeof(*m->wfrom));
	m->thr_first = malloc((tl->nthreads + 1) * sizeof(*m->thr_first));
	m->run_first = malloc((tl->nruns ? tl->nruns : 1) * sizeof(*m->run_first));
	if (!m->tasks || !m->src || !m->fl || !m->cause || !m->wfrom || !m->thr_first || !m->run_first)
		goto out;
	pf = prefault_model(m);
	fragment(m, pts);
	find_causes(m);
	err = find_wakers(m);
	if (!err)
		err = cpus_index(m);
	if (!err)
		err = merge_missing(m);
out:
	prefault__stop(pf);
	free(pts);
	return err;
}
