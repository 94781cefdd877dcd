// SPDX-License-Identifier: MIT
/*
 * The critical-path stage: task model, reconstruction, Algorithm 1, ranking
 * of tight edges, and the accounting of paths. See src/critical/critical.h for
 * the model and the choices; this file follows it section by section.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "actors/actors.h"
#include "cpa.h"
#include "critical.h"
#include "file/gantt_csv.h"
#include "precedence.h"
#include "lib/prefault.h"
#include "lib/sort.h"
#include "lib/workq.h"

/* Task flags. */
#define TF_FIRST 0x01		/* first fragment of its run */
#define TF_LAST 0x02		/* last fragment of its run */
#define TF_UNSURE 0x04		/* the run's start was not reported by the kernel */
#define TF_CUT 0x08		/* the run began before the recording */
#define TF_WAKER_RAN 0x80	/* the waker of its wakeup was running at the waking time */

/* What the graph's build kept into a task (model.kept). */
#define KEPT_WK 0x01		/* the wakeup edge */
#define KEPT_PO 0x02		/* the program-order edge */
#define KEPT_ANY 0x04		/* some edge */

struct span {
	int64_t a, b;
};

struct model {
	const struct timeline *tl;	/* trace input */
	const struct gantt *gt;		/* Gantt input */
	bool split;			/* runs split at waking points, wakeups confirm edges */
	int64_t t0;
	size_t n;
	struct prec_task *tasks;	/* [n] absolute, clamped to t0 */
	uint32_t *src;			/* [n] trace: run index */
	uint8_t *fl;			/* [n] TF_* */
	uint32_t *cause;		/* [n] the wakeup that released a FIRST fragment, or CRIT_NONE */
	uint32_t *wfrom;		/* [n] the waker's task of that wakeup, or CRIT_NONE */
	uint32_t *wk_task;		/* [nwk] the task a wakeup released, or CRIT_NONE */
	uint32_t *thr_first;		/* [nthreads + 1] fragments of thread i */
	uint32_t *run_first;		/* [nruns] first fragment of run r, or CRIT_NONE */
	uint32_t *cpu_idx;		/* [n] tasks by (CPU, start) */
	uint32_t *cpu_off;		/* [ncpu + 1] */
	uint32_t *cpu_hint;		/* [ncpu] where the last search on that CPU ended (model building) */
	uint32_t ncpu;
	struct span *miss;		/* merged windows of missing data (any CPU) */
	size_t nmiss;
	/*
	 * [2n] the edges the trace adds into each task, at most two: [2v] the
	 * category of one from v - 1, the thread's fragment before (program
	 * order, a preemption); [2v + 1] of one from wfrom[v] (CRIT_CAT_WAKEUP)
	 * or from the root (a release). 0: none.
	 */
	uint8_t *xcat;
	/*
	 * [n] KEPT_*, apart from fl: the build's threads each set the bits of
	 * their own targets while reading fl of any task.
	 */
	uint8_t *kept;
	struct crit_edge_stats *st;
	bool enumerate;			/* judge every proposal within eps (the reference) */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void critical_opts_default(struct critical_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->epsilon_ns = -1;
}

static inline const struct tl_run *run_of(const struct model *m, uint32_t v)
{
	return &m->tl->runs[m->src[v]];
}

static inline uint32_t owner_of(const struct model *m, uint32_t v)
{
	return m->tl ? m->tl->runs[m->src[v]].thread : m->gt->actor[v];
}

/* ---- the task model of a trace ---- */

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

/* The first of tasks [lo, hi) (one thread's, so their ends are in order) to end at or after t. */
static uint32_t first_end_from(const struct model *m, uint32_t lo, uint32_t hi, int64_t t)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->tasks[mid].end_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The task of thread th that contains the waking time w, in (start, end]:
 * with split runs, the fragment that ends at w. CRIT_NONE if th was not
 * running then as far as the trace knows.
 */
static uint32_t task_at(const struct model *m, uint32_t th, int64_t w)
{
	uint32_t lo = first_end_from(m, m->thr_first[th], m->thr_first[th + 1], w);

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
				u = task_at(m, th, t);
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

/*
 * Tasks by (CPU, start), ties in task order, from the timeline's runs in
 * time order on each CPU (a run's fragments follow one another): no sort,
 * and none of its memory (92 of the 636 MB the task model's build peaked
 * at on a 15 s storm).
 * Checked as it goes (the CPU's count, the order); false: sort instead.
 */
static bool by_runs(struct model *m)
{
	const struct timeline *tl = m->tl;
	uint32_t k = 0;

	if (!tl->runs_by_cpu || (int)m->ncpu > tl->ncpus)
		return false;
	for (uint32_t c = 0; c < m->ncpu; c++) {
		for (size_t i = tl->cpu_run0[c]; i < tl->cpu_run0[c + 1]; i++) {
			uint32_t r = tl->runs_by_cpu[i];

			for (uint32_t v = m->run_first[r]; v < m->n && m->src[v] == r; v++) {
				uint32_t a = k > m->cpu_off[c] ? m->cpu_idx[k - 1] : v;

				if (k == m->cpu_off[c + 1] || m->tasks[v].start_ns < m->tasks[a].start_ns ||
				    (m->tasks[v].start_ns == m->tasks[a].start_ns && v < a))
					return false;
				m->cpu_idx[k++] = v;
			}
		}
		if (k != m->cpu_off[c + 1])
			return false;
	}
	return true;
}

/* Tasks by (CPU, start): who held a CPU when. */
static int index_cpus(struct model *m)
{
	const struct timeline *tl = m->tl;
	struct sort_pair *p;
	uint32_t ncpu = 0, *fill, most = 0;
	int err = 0;

	for (size_t v = 0; v < m->n; v++)
		if (tl->runs[m->src[v]].cpu + 1u > ncpu)
			ncpu = tl->runs[m->src[v]].cpu + 1u;
	m->ncpu = ncpu;
	m->cpu_off = calloc(ncpu + 1, sizeof(*m->cpu_off));
	m->cpu_hint = workq_calloc(ncpu ? ncpu : 1, sizeof(*m->cpu_hint));
	m->cpu_idx = malloc((m->n ? m->n : 1) * sizeof(*m->cpu_idx));
	fill = malloc((ncpu ? ncpu : 1) * sizeof(*fill));
	if (!m->cpu_off || !m->cpu_idx || !m->cpu_hint || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t v = 0; v < m->n; v++)
		m->cpu_off[tl->runs[m->src[v]].cpu + 1]++;
	for (uint32_t c = 0; c < ncpu; c++) {
		if (m->cpu_off[c + 1] > most)
			most = m->cpu_off[c + 1];
		m->cpu_off[c + 1] += m->cpu_off[c];
	}
	if (by_runs(m)) {
		free(fill);
		return 0;
	}
	/*
	 * A stable distribution by CPU, then each CPU's tasks sorted by start
	 * (ties in task order): sort memory for one CPU's tasks at a time,
	 * not for all of them.
	 */
	memcpy(fill, m->cpu_off, ncpu * sizeof(*fill));
	for (uint32_t v = 0; v < m->n; v++)
		m->cpu_idx[fill[tl->runs[m->src[v]].cpu]++] = v;
	free(fill);
	p = malloc((most ? most : 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (uint32_t c = 0; c < ncpu && !err; c++) {
		uint32_t *idx = m->cpu_idx + m->cpu_off[c], k = m->cpu_off[c + 1] - m->cpu_off[c];

		for (uint32_t i = 0; i < k; i++) {
			p[i].key = (uint64_t)(m->tasks[idx[i]].start_ns - m->t0);
			p[i].idx = idx[i];
		}
		err = sort_pairs(p, k);
		for (uint32_t i = 0; i < k && !err; i++)
			idx[i] = (uint32_t)p[i].idx;
	}
	free(p);
	return err;
}

#define CPU_END(i) (m->tasks[m->cpu_idx[i]].end_ns)

/*
 * The first task on cpu that ends after a (ends grow with starts on one
 * CPU): a galloping search from where the last one on that CPU ended, since
 * queries come in bursts close in time.
 */
/* hint[cpu]: where the caller's last search on that CPU ended (one array per thread). */
static uint32_t first_ending_after(const struct model *m, uint32_t *hint, uint32_t cpu, int64_t a)
{
	uint32_t lo = m->cpu_off[cpu], hi = m->cpu_off[cpu + 1], p = hint[cpu], l, r, step = 1;

	if (p < lo || p > hi)
		p = lo;
	if (p < hi && CPU_END(p) <= a) {
		/* Right of p: double the step until a task ends after a. */
		l = p + 1;
		r = l;
		while (r < hi && CPU_END(r) <= a) {
			l = r + 1;
			r = l + step < hi ? l + step : hi;
			step *= 2;
		}
	} else {
		/* At or left of p. */
		r = p;
		l = p;
		while (l > lo) {
			uint32_t c = l - lo > step ? l - step : lo;

			if (CPU_END(c) <= a) {
				l = c + 1;
				break;
			}
			r = c;
			l = c;
			step *= 2;
		}
	}
	while (l < r) {
		uint32_t mid = l + (r - l) / 2;

		if (CPU_END(mid) <= a)
			l = mid + 1;
		else
			r = mid;
	}
	hint[cpu] = l;
	return l;
}

/*
 * Calls fn for each stretch of [a, b) (absolute) in which a thread other
 * than th ran on cpu. Returns the total.
 */
typedef void (*held_fn)(void *ctx, uint32_t thread, int64_t ns);

static int64_t held_on_cpu(const struct model *m, uint32_t *hint, uint32_t cpu, uint32_t th, int64_t a,
			   int64_t b, held_fn fn, void *ctx)
{
	uint32_t lo;
	int64_t total = 0;

	if (!m->cpu_idx || cpu >= m->ncpu || b <= a)
		return 0;
	lo = first_ending_after(m, hint, cpu, a);
	for (uint32_t i = lo; i < m->cpu_off[cpu + 1]; i++) {
		uint32_t u = m->cpu_idx[i];
		int64_t s = m->tasks[u].start_ns, e = m->tasks[u].end_ns;
		uint32_t ow;

		if (s >= b)
			break;
		ow = owner_of(m, u);
		if (ow == th)
			continue;
		s = s > a ? s : a;
		e = e < b ? e : b;
		if (e > s) {
			total += e - s;
			if (fn)
				fn(ctx, ow, e - s);
		}
	}
	return total;
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

/* Does [a, b] meet missing data? */
static bool missing(const struct model *m, int64_t a, int64_t b)
{
	size_t lo = 0, hi = m->nmiss;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->miss[mid].b <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nmiss && m->miss[lo].a <= b;
}

static void model_free(struct model *m)
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
	free(m->miss);
}

/* What only the graph's build reads: gone before the CPA and the walks. */
static void model_drop_build(struct model *m)
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

static int model_build(struct model *m)
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
		err = index_cpus(m);
	if (!err)
		err = merge_missing(m);
out:
	prefault__stop(pf);
	free(pts);
	return err;
}

/* ---- the hook: what each proposal of Algorithm 4 is ---- */

static inline bool confirmed(const struct model *m, uint32_t u, uint32_t v)
{
	return m->wfrom[v] == u;
}

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
	tu = owner_of(m, u);
	tv = owner_of(m, v);
	if (tu == tv) {
		if (v != u + 1) {
			st->redundant++;
			return 0;
		}
		if (!(m->fl[u] & TF_LAST))
			*cat = CRIT_CAT_CONT;
		else if (run_of(m, u)->end_state == QT_END_PREEMPTED)
			*cat = CRIT_CAT_PREEMPT;
		else
			*cat = CRIT_CAT_BLOCKED;
		st->same_thread++;
		m->kept[v] |= KEPT_PO | KEPT_ANY;
		return 1;
	}
	if (m->split && confirmed(m, u, v)) {
		st->cross++;
		st->confirmed++;
		*cat = CRIT_CAT_WAKEUP;
		m->kept[v] |= KEPT_WK | KEPT_ANY;
		return 1;
	}
	if (gap == 0 && run_of(m, u)->cpu == run_of(m, v)->cpu && (m->fl[u] & TF_LAST) &&
	    (m->fl[v] & TF_FIRST) && !(m->fl[v] & TF_UNSURE)) {
		st->resource++;
		*cat = CRIT_CAT_RESOURCE;
		m->kept[v] |= KEPT_ANY;
		return 1;
	}
	st->cross++;
	if (m->nmiss && missing(m, m->tasks[u].end_ns, m->tasks[v].start_ns)) {
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

/* ---- eps ---- */

/*
 * Theorem 2's evidence: the largest gap of a wakeup-backed precedence that
 * no visible task fills (the CPU the wakee was woken on held by nobody
 * else). -1 if none.
 */
static int64_t invisible_gap_max(const struct model *m)
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
		if (b < a || (m->nmiss && missing(m, a, b)))
			continue;
		x = (b - a) - held_on_cpu(m, m->cpu_hint, w->target_cpu, owner_of(m, v), a, b, NULL, NULL);
		if (x > best)
			best = x;
	}
	return best;
}

/* ---- ranking the tight edges ---- */

static int cat_rank(uint8_t cat)
{
	switch (cat) {
	case CRIT_CAT_CONT:
	case CRIT_CAT_PREEMPT:
		return 7;
	case CRIT_CAT_WAKEUP:
		return 6;
	case CRIT_CAT_REL_HARDIRQ:
	case CRIT_CAT_REL_SOFTIRQ:
	case CRIT_CAT_REL_KERNEL:
	case CRIT_CAT_REL_WAKER:
		return 5;
	case CRIT_CAT_GAP:
	case CRIT_CAT_NONE:
	case CRIT_CAT_INIT:
		return 4;
	case CRIT_CAT_BLOCKED:
		return 3;
	case CRIT_CAT_RESOURCE:
		return 2;
	default:
		return 1;
	}
}

/*
 * The binding edge of every task among its tight edges, by rank
 * (critical.h). est NULL: a recording's graph, where every edge is tight
 * (cpa__observed).
 */
static void rank_bind(const struct prec_graph *g, const int64_t *est, uint32_t *bind)
{
	for (uint32_t v = 0; v < g->n; v++) {
		uint32_t b = CRIT_NONE;
		int64_t blag = 0;
		int br = 0;

		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			uint32_t u = g->pred[e];
			int64_t lag = prec_lag(g, v, e);
			int r;

			if (est && (u == PREC_ROOT ? 0 : est[u] + prec_dur(g, u)) + lag != est[v])
				continue;
			r = cat_rank(g->cat[e]);
			if (b == CRIT_NONE || r > br || (r == br && (lag < blag || (lag == blag && u < g->pred[b])))) {
				b = e;
				br = r;
				blag = lag;
			}
		}
		bind[v] = b;
	}
}

/* ---- accounting ---- */

struct acc {
	int64_t *run, *held;		/* [nowners] */
	uint8_t *mark;
	uint32_t *touched;
	size_t ntouched;
	struct crit_share *cats;
	size_t ncats, capcats;
	int err;
};

static int acc_init(struct acc *a, size_t nowners)
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

static void acc_free(struct acc *a)
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

/* dst += src (src unchanged). */
static void acc_add(struct acc *dst, const struct acc *src)
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

/* The rows so far, most time first (rows of zero time left out); resets. */
static int acc_take(struct acc *a, struct crit_share **out, size_t *nout)
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

struct segbuf {
	struct crit_seg *v;
	size_t n, cap, limit, total;
	struct crit_seg cur;		/* the latest, still growing by merges */
	bool has_cur;
	int err;
};

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

/*
 * Where a walk's time goes: acc gets all of it from the walk's horizon on;
 * acc2, if any, also gets what lies at or after h2 (>= the horizon). So one
 * walk accounts both the path into an invocation and its reference window,
 * which reaches further back along the same path. The segments (sb) are
 * acc's.
 */
struct sink {
	struct acc *acc, *acc2;
	int64_t h2;
	struct segbuf *sb;
	/*
	 * Tasks own_lo < v <= own_hi are the walked invocation's own, after
	 * its first: a release into one of them is a wait inside the
	 * invocation (own_hi 0: none).
	 */
	uint32_t own_lo, own_hi;
};

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

struct walker {
	const struct model *m;
	const struct prec_graph *g;
	const int64_t *est;		/* NULL: the observed starts (a recording) */
	const uint32_t *bind;
	uint32_t *hint;			/* [m->ncpu] this walker's CPU search hints */
	bool separate;			/* critical_opts.separate_walks */
};

static inline int64_t w_est(const struct walker *w, uint32_t v)
{
	return w->est ? w->est[v] : w->m->tasks[v].start_ns - w->m->t0;
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
		held = held_on_cpu(m, w->hint, cpu, owner_of(m, v), a + m->t0, b + m->t0, holder_cb, &h);
	if (b - a - held > 0) {
		acc_cat(acc, cat, sub, b - a - held);
		if (acc2)
			acc_cat(acc2, cat, sub, b - a - held);
	}
	seg_push(sb, (struct crit_seg){ .start_ns = a + m->t0, .end_ns = b + m->t0, .thread = owner_of(m, v),
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
	int64_t s = w_est(w, v), r = s;
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
						.thread = owner_of(m, v), .holder = CRIT_NONE,
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
	int64_t s = w_est(w, v), r = s;

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
		return run_of(m, u)->cpu;
	return CRIT_NONE;
}

/*
 * The path into task v, completing at `end` (relative, within v), back to
 * `horizon` (relative). Returns the tasks visited inside the window.
 */
static size_t walk(const struct walker *w, uint32_t v, int64_t end, int64_t horizon, const struct sink *k)
{
	const struct model *m = w->m;
	const struct prec_graph *g = w->g;
	size_t ntasks = 0;

	for (;;) {
		int64_t s = w_est(w, v), e = s + prec_dur(g, v), a, lag;
		uint32_t b, u;
		uint8_t cat;

		if (end < e)
			e = end;
		a = s > horizon ? s : horizon;
		if (e > a) {
			sink_run(k, owner_of(m, v), a, e);
			seg_push(k->sb, (struct crit_seg){ .start_ns = a + m->t0, .end_ns = e + m->t0,
							.thread = owner_of(m, v), .holder = CRIT_NONE,
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
			end = w_est(w, v - 1) + prec_dur(g, v - 1);
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
			account_wait(w, k, v, s - lag > horizon ? s - lag : horizon, s, cat, 0, wait_cpu(m, cat, u, v));
		end = w_est(w, u) + prec_dur(g, u);
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

/* The path walked into acc and sb, from horizon to end, into p; takes acc. */
static int path_take(const struct walker *w, struct segbuf *sb, size_t ntasks, int64_t end, int64_t horizon,
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

static int path_into(const struct walker *w, uint32_t v, int64_t end, int64_t horizon, struct acc *acc,
		     size_t seg_limit, struct crit_path *p)
{
	struct segbuf sb = { .limit = seg_limit };

	return path_take(w, &sb, walk(w, v, end, horizon, &(struct sink){ .acc = acc, .sb = &sb }), end, horizon,
			 acc, p);
}

static void path_free(struct crit_path *p)
{
	free(p->share);
	free(p->seg);
}

void critical__free(struct critical_result *r)
{
	if (!r)
		return;
	path_free(&r->whole);
	for (size_t i = 0; i < r->nactors; i++)
		free(r->actors[i].share);
	free(r->actors);
	for (size_t i = 0; i < r->nbreaks; i++)
		path_free(&r->breaks[i].path);
	free(r->breaks);
	free(r->est);
	free(r->lst);
	free(r->critical);
	for (size_t i = 0; i < r->npaths_listed; i++)
		free(r->paths[i]);
	free(r->paths);
	free(r->path_len);
	free(r->common);
	free(r->common_joined);
	free(r->mismatch);
	free(r);
}

/* ---- per actor and per break (trace) ---- */

/*
 * The first task of invocation k of a thread actor, where the path into it
 * may stop at a release; CRIT_NONE (every release stops it) otherwise.
 */
static uint32_t first_task(const struct model *m, const struct actor *a, size_t k)
{
	if (a->kind != ACTOR_THREAD || a->inv[k].first >= m->tl->nruns)
		return CRIT_NONE;
	return m->run_first[a->inv[k].first];
}

/* The task where invocation k of actor a completes, and when (relative). */
static uint32_t completion(const struct model *m, const struct actor *a, size_t k, int64_t *end)
{
	const struct actor_invocation *inv = &a->inv[k];
	uint32_t v;
	int64_t t;

	if (a->kind == ACTOR_THREAD) {
		if (inv->last >= m->tl->nruns || m->run_first[inv->last] == CRIT_NONE)
			return CRIT_NONE;
		v = m->run_first[inv->last];
		while (v + 1 < m->n && m->src[v + 1] == inv->last)
			v++;
		t = inv->end_ns < m->tasks[v].end_ns ? inv->end_ns : m->tasks[v].end_ns;
	} else {
		const struct tl_syscall *sc;

		if (inv->last >= m->tl->nsc)
			return CRIT_NONE;
		sc = &m->tl->sc[inv->last];
		t = (int64_t)sc->end;
		v = task_at(m, sc->thread, t);
		if (v == CRIT_NONE) {
			/* Ended while not running as the trace saw it: the last task before. */
			uint32_t lo = m->thr_first[sc->thread], hi = m->thr_first[sc->thread + 1];

			while (lo < hi && m->tasks[hi - 1].end_ns > t)
				hi--;
			if (hi == lo)
				return CRIT_NONE;
			v = hi - 1;
			t = m->tasks[v].end_ns;
		}
	}
	*end = t - m->t0;
	return v;
}

/* Worst (latest) first, then by actor and break: the order of res->breaks. */
static int break_order(int64_t la, size_t aa, size_t ba, int64_t lb, size_t ab, size_t bb)
{
	if (la != lb)
		return la > lb ? -1 : 1;
	if (aa != ab)
		return aa < ab ? -1 : 1;
	return (ba > bb) - (ba < bb);
}

static int cmp_break(const void *x, const void *y)
{
	const struct crit_break *a = x, *b = y;

	return break_order(a->lateness_ns, a->actor, a->brk, b->lateness_ns, b->actor, b->brk);
}

struct brk_key {
	int64_t lateness_ns;
	size_t actor, brk, slot;
};

static int cmp_brk_key(const void *x, const void *y)
{
	const struct brk_key *a = x, *b = y;

	return break_order(a->lateness_ns, a->actor, a->brk, b->lateness_ns, b->actor, b->brk);
}

/*
 * The row of a break's path that exceeds its mean in the reference windows
 * the most. A row at or below its mean delayed nothing: a break whose rows
 * all are has no culprit (culprit.ns == 0), as a release not later than
 * usual has none.
 */
static void find_culprit(struct crit_break *b, const struct crit_share *ref, size_t nref, size_t nwin)
{
	b->excess_ns = b->release_excess_ns = 0;
	b->culprit = (struct crit_share){ .thread = CRIT_NONE };
	for (size_t i = 0; i < b->path.nshare; i++) {
		const struct crit_share *r = &b->path.share[i];
		int64_t mean = 0, x;

		for (size_t j = 0; j < nref; j++) {
			const struct crit_share *q = &ref[j];

			if (q->thread == r->thread && (r->thread != CRIT_NONE ||
						       (q->cat == r->cat && q->sub == r->sub))) {
				mean = nwin ? q->ns / (int64_t)nwin : 0;
				break;
			}
		}
		x = r->ns - mean;
		/*
		 * A release is when the chain began, not a delay on it: a late
		 * one says the input came late (look upstream), kept apart.
		 */
		if (r->thread == CRIT_NONE && r->cat >= CRIT_CAT_REL_HARDIRQ) {
			if (x > b->release_excess_ns) {
				b->release_excess_ns = x;
				b->release = *r;
			}
			continue;
		}
		if (x > b->excess_ns) {
			b->excess_ns = x;
			b->culprit = *r;
		}
	}
}

/*
 * The windows of the per-actor accounting partition the time: invocation
 * k from the completion of k - 1. A break is about a late start, so its
 * path is accounted from the start of the invocation before it; the
 * culprit is then measured against the same windows of every invocation
 * (from the start of the one before to its completion), so that what a
 * normal period holds (a timer, the actor's own work) cancels out.
 *
 * The path into break k of actor a: into task v, completed at end, of its
 * target invocation (the late one, or the one before that overran:
 * actors.h), from the horizon h (the start of the invocation before the
 * target). False when the break has no path (that invocation's end was
 * not recorded).
 */
static bool break_window(const struct model *m, const struct actor *a, size_t k, uint32_t *v, int64_t *end,
			 int64_t *h)
{
	const struct actor_break *ab = &a->breaks[k];
	size_t target = actor_break_target(ab);
	int64_t from;

	if (target >= a->ninv)
		return false;
	*v = completion(m, a, target, end);
	from = target ? a->inv[target - 1].start_ns : ab->start_ns;
	*h = from - m->t0 < 0 ? 0 : from - m->t0;
	return *v != CRIT_NONE && *end > *h;
}

/* How many stretches the path of break slot keeps (mark_kept; keep NULL: all). */
static size_t break_segs(const uint8_t *keep, size_t slot)
{
	return keep && !keep[slot] ? 0 : CRIT_MAX_SEGS;
}

/* The accumulators of one accounting thread. */
struct accs {
	struct acc *inv;		/* the actor's invocations (the caller's) */
	struct acc ref;			/* its reference windows */
	struct acc brk;			/* one break's path */
};

static int accs_init(struct accs *ac, struct acc *inv, size_t nowners)
{
	int err;

	ac->inv = inv;
	err = acc_init(&ac->ref, nowners);
	if (!err)
		err = acc_init(&ac->brk, nowners);
	return err;
}

static void accs_free(struct accs *ac)
{
	acc_free(&ac->ref);
	acc_free(&ac->brk);
}

/*
 * The breaks of actor a into res->breaks[slot .. slot + a->nbreaks): a break
 * without a path leaves its slot with actor = CRIT_NONE, for the caller to
 * squeeze out. With keep, only the breaks it marks keep their segments.
 * The paths of those walked with their reference window (actor set) are
 * there already; each break gets its culprit against the windows' means.
 */
static int account_actor_breaks(struct critical_result *res, const struct walker *w, const struct actor *a,
				size_t ai, size_t slot, const uint8_t *keep, struct accs *ac, size_t nwin)
{
	const struct model *m = w->m;
	struct crit_share *ref = NULL;
	size_t nref = 0;
	int err;

	err = acc_take(&ac->ref, &ref, &nref);
	for (size_t k = 0; k < a->nbreaks && !err; k++) {
		struct crit_break *b = &res->breaks[slot + k];
		int64_t end, h;
		uint32_t v;

		if (b->actor == CRIT_NONE) {
			if (!break_window(m, a, k, &v, &end, &h))
				continue;
			b->actor = ai;
			b->brk = k;
			b->lateness_ns = a->breaks[k].lateness_ns;
			err = path_into(w, v, end, h, &ac->brk, break_segs(keep, slot + k), &b->path);
		}
		if (!err)
			find_culprit(b, ref, nref, nwin);
	}
	free(ref);
	return err;
}

/*
 * The walk into completion v of invocation k, from the earlier of the two
 * horizons: the invocation's (the previous completion, if inv) and its
 * reference window's (the start of invocation k - 1, if win), which
 * usually reaches further back along the same binding edges. A break whose
 * window is that reference window (the usual case: late invocation k, the
 * one before k - 1) is the same walk with segments: its path is taken here
 * and added to the reference windows.
 */
static int walk_invocation(struct critical_result *res, const struct walker *w, const struct actor *a,
			   size_t ai, size_t slot, const uint8_t *keep, struct accs *ac, uint32_t v, int64_t end,
			   int64_t horizon, bool inv, int64_t h, bool win, size_t brk, uint32_t own_lo,
			   uint32_t own_hi)
{
	struct segbuf sb = { 0 };
	struct crit_break *b;
	int64_t be, bh;
	size_t ntasks;
	uint32_t bv;

	if (w->separate) {
		if (inv)
			walk(w, v, end, horizon, &(struct sink){ .acc = ac->inv, .own_lo = own_lo, .own_hi = own_hi });
		if (win)
			walk(w, v, end, h, &(struct sink){ .acc = &ac->ref, .own_lo = own_lo, .own_hi = own_hi });
		return 0;
	}
	if (win && h > horizon && inv) {
		/* the invocation's path reaches further back: acc is its */
		walk(w, v, end, horizon, &(struct sink){ .acc = ac->inv, .acc2 = &ac->ref, .h2 = h,
							 .own_lo = own_lo, .own_hi = own_hi });
		return 0;
	}
	if (!win) {
		if (inv)
			walk(w, v, end, horizon, &(struct sink){ .acc = ac->inv, .own_lo = own_lo, .own_hi = own_hi });
		return 0;
	}
	if (brk == SIZE_MAX || !break_window(w->m, a, brk, &bv, &be, &bh) || bv != v || be != end || bh != h) {
		walk(w, v, end, h, &(struct sink){ .acc = &ac->ref, .acc2 = inv ? ac->inv : NULL, .h2 = horizon,
						   .own_lo = own_lo, .own_hi = own_hi });
		return 0;
	}
	b = &res->breaks[slot + brk];
	b->actor = ai;
	b->brk = brk;
	b->lateness_ns = a->breaks[brk].lateness_ns;
	sb.limit = break_segs(keep, slot + brk);
	ntasks = walk(w, v, end, h, &(struct sink){ .acc = &ac->brk, .acc2 = inv ? ac->inv : NULL, .h2 = horizon,
						   .sb = &sb, .own_lo = own_lo, .own_hi = own_hi });
	acc_add(&ac->ref, &ac->brk);
	return path_take(w, &sb, ntasks, end, h, &ac->brk, &b->path);
}

/*
 * Actor i: the path into every invocation, then its breaks. With breaks,
 * the reference windows too (the start of the invocation before to the
 * completion: find_culprit's means), in the same walks (walk_invocation).
 */
static int account_actor(struct critical_result *res, const struct walker *w, const struct actors_result *ar,
			 size_t i, size_t slot, const uint8_t *keep, struct accs *ac)
{
	const struct actor *a = &ar->v[i];
	struct crit_actor *ca = &res->actors[i];
	int64_t horizon = 0;
	size_t nwin = 0, bi = 0, ninv = 0;
	int err = 0;

	ca->actor = i;
	ca->thread = a->thread;
	for (size_t k = 0; k < a->nbreaks; k++)
		res->breaks[slot + k].actor = CRIT_NONE;
	for (size_t k = 0; k < a->ninv && !err; k++) {
		int64_t end, h = k ? a->inv[k - 1].start_ns - w->m->t0 : -1;
		uint32_t v = completion(w->m, a, k, &end), own;
		bool inv, win;

		if (v == CRIT_NONE)
			continue;
		inv = end > horizon;
		win = a->nbreaks && h >= 0 && end > h;
		while (bi < a->nbreaks && actor_break_target(&a->breaks[bi]) < k)
			bi++;
		own = first_task(w->m, a, k);
		err = walk_invocation(res, w, a, i, slot, keep, ac, v, end, horizon, inv, h, win,
				      bi < a->nbreaks && actor_break_target(&a->breaks[bi]) == k ? bi : SIZE_MAX, own,
				      own == CRIT_NONE ? 0 : v);
		nwin += win;
		if (inv) {
			ninv++;
			horizon = end;
		}
	}
	/* Written once: the other worker's actor may share the line. */
	ca->ninv = ninv;
	ca->total_ns = horizon;
	if (!err)
		err = acc_take(ac->inv, &ca->share, &ca->nshare);
	if (!err && a->nbreaks)
		err = account_actor_breaks(res, w, a, i, slot, keep, ac, nwin);
	return err;
}

/*
 * Accounting threads: each takes the next actor not yet taken, with its own
 * accumulator and CPU search hints; the actors' results go to their own
 * slots, so the result does not depend on who did which.
 */
struct acct_job {
	struct critical_result *res;
	const struct actors_result *ar;
	const size_t *slot;		/* [ar->n] first break slot of each actor */
	const uint8_t *keep;		/* [breaks] keep the segments of this slot's path; NULL: all */
	struct workq q;			/* the actors */
};

struct acct_worker {
	struct acct_job *job;
	struct walker w;
	struct accs ac;
	int err;
};

static int acct_one(void *ctx, size_t i)
{
	struct acct_worker *wk = ctx;
	struct acct_job *j = wk->job;

	return account_actor(j->res, &wk->w, j->ar, i, j->slot[i], j->keep, &wk->ac);
}

static void *acct_work(void *arg)
{
	struct acct_worker *wk = arg;

	wk->err = workq_each(&wk->job->q, acct_one, wk);
	return NULL;
}

/*
 * Which break slots keep their path's segments: those of the max worst
 * breaks that will have a path, in the order res->breaks ends up in. The
 * rest are accounted alike (shares, culprit) without their stretches: a
 * storm has 10^5 breaks, whose segments were a fifth of a report's peak
 * memory, and only the worst are shown. *keep is NULL when all are kept.
 */
static int mark_kept(const struct model *m, const struct actors_result *ar, const size_t *slot, size_t nb,
		     size_t max, uint8_t **keep)
{
	struct brk_key *key;
	size_t n = 0;
	uint32_t v;
	int64_t end, h;

	*keep = NULL;
	if (!max || nb <= max)
		return 0;
	key = malloc(nb * sizeof(*key));
	*keep = calloc(nb, 1);
	if (!key || !*keep) {
		free(key);
		free(*keep);
		*keep = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < ar->n; i++)
		for (size_t k = 0; k < ar->v[i].nbreaks; k++)
			if (break_window(m, &ar->v[i], k, &v, &end, &h))
				key[n++] = (struct brk_key){ ar->v[i].breaks[k].lateness_ns, i, k, slot[i] + k };
	qsort(key, n, sizeof(*key), cmp_brk_key);
	for (size_t i = 0; i < n && i < max; i++)
		(*keep)[key[i].slot] = 1;
	free(key);
	return 0;
}

static int account_actors(struct critical_result *res, const struct walker *w, const struct actors_result *ar,
			  struct acc *acc, int jobs, size_t nowners, size_t seg_breaks)
{
	struct acct_job job = { .res = res, .ar = ar, .q.n = ar->n };
	struct acct_worker main_wk = { .job = &job, .w = *w, .ac.inv = acc }, side = { .job = &job, .w = *w };
	struct acc side_acc = { 0 };
	size_t *slot, nb = 0, k = 0;
	uint8_t *keep = NULL;
	pthread_t th;
	bool two = false;
	int err;

	res->actors = calloc(ar->n ? ar->n : 1, sizeof(*res->actors));
	slot = malloc((ar->n ? ar->n : 1) * sizeof(*slot));
	if (!res->actors || !slot) {
		free(slot);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ar->n; i++) {
		slot[i] = nb;
		nb += ar->v[i].nbreaks;
	}
	res->breaks = calloc(nb ? nb : 1, sizeof(*res->breaks));
	if (!res->breaks) {
		free(slot);
		return -ENOMEM;
	}
	/* Every slot is freed by critical__free, filled or not, until squeezed. */
	res->nactors = ar->n;
	res->nbreaks = nb;
	job.slot = slot;
	err = mark_kept(w->m, ar, slot, nb, seg_breaks, &keep);
	if (err) {
		free(slot);
		return err;
	}
	job.keep = keep;
	side.w.hint = NULL;	/* its own, or none */
	/* A second thread is worth it with a second actor; without one, this thread does all. */
	if (jobs > 1 && ar->n > 1 && !acc_init(&side_acc, nowners) && !accs_init(&side.ac, &side_acc, nowners)) {
		side.w.hint = workq_calloc(w->m->ncpu ? w->m->ncpu : 1, sizeof(*side.w.hint));
		two = side.w.hint && !pthread_create(&th, NULL, acct_work, &side);
	}
	workq_busy(two);
	main_wk.err = accs_init(&main_wk.ac, acc, nowners);
	if (!main_wk.err)
		acct_work(&main_wk);
	if (two)
		pthread_join(th, NULL);
	workq_busy(-two);
	free(side.w.hint);
	acc_free(&side_acc);
	accs_free(&side.ac);
	accs_free(&main_wk.ac);
	free(slot);
	free(keep);
	err = main_wk.err ? main_wk.err : side.err;
	if (err)
		return err;
	for (size_t i = 0; i < nb; i++)
		if (res->breaks[i].actor != CRIT_NONE)
			res->breaks[k++] = res->breaks[i];
	res->nbreaks = k;
	qsort(res->breaks, res->nbreaks, sizeof(*res->breaks), cmp_break);
	return 0;
}

/* ---- the stage over a trace ---- */

struct heap_ent {
	int64_t end;
	uint32_t cpu, pos;
};

static void heap_down(struct heap_ent *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct heap_ent t;

		if (l < n && h[l].end < h[m].end)
			m = l;
		if (r < n && h[r].end < h[m].end)
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* All tasks by end: a merge of the CPUs' lists, each already in end order. */
/* *sorted (if asked): whether the merge came out in end order, as it does unless a CPU's tasks overlap. */
static int merge_by_end(const struct model *m, uint32_t **out, bool *sorted)
{
	int64_t last = INT64_MIN;

	uint32_t *byend = malloc((m->n ? m->n : 1) * sizeof(*byend));
	struct heap_ent *h = malloc((m->ncpu ? m->ncpu : 1) * sizeof(*h));
	size_t nh = 0, k = 0;

	if (!byend || !h) {
		free(byend);
		free(h);
		return -ENOMEM;
	}
	for (uint32_t c = 0; c < m->ncpu; c++)
		if (m->cpu_off[c] < m->cpu_off[c + 1])
			h[nh++] = (struct heap_ent){ CPU_END(m->cpu_off[c]), c, m->cpu_off[c] };
	for (size_t i = nh; i-- > 0;)
		heap_down(h, nh, i);
	if (sorted)
		*sorted = true;
	while (nh) {
		struct heap_ent *t = &h[0];

		if (sorted && t->end < last)
			*sorted = false;
		last = t->end;
		byend[k++] = m->cpu_idx[t->pos];
		if (++t->pos < m->cpu_off[t->cpu + 1]) {
			t->end = CPU_END(t->pos);
		} else {
			h[0] = h[--nh];
		}
		heap_down(h, nh, 0);
	}
	free(h);
	*out = byend;
	return 0;
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
	m->xcat[2 * v] = run_of(m, v - 1)->end_state == QT_END_PREEMPTED ? CRIT_CAT_PREEMPT : CRIT_CAT_BLOCKED;
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
static int scan_eps_each(struct model *m, const struct prec_graph *g, int64_t eps)
{
	struct crit_edge_stats *st = m->st;
	uint32_t *byend = NULL, lo = 0, hi = 0;
	int err = merge_by_end(m, &byend, NULL);

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
			if (owner_of(m, u) == owner_of(m, v)) {
				if (v != u + 1) {
					st->redundant++;
					continue;
				}
				keep_program_order(m, st, v);
				continue;
			}
			st->cross++;
			if (confirmed(m, u, v)) {
				keep_wakeup(m, st, v);
			} else if (m->nmiss && missing(m, m->tasks[u].end_ns, rs)) {
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
	return first_end_from(m, lo, hi, t) - m->thr_first[th];
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
		uint32_t v = g->order[p], th = owner_of(m, v), u = CRIT_NONE, w = CRIT_NONE, below;
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
		if (m->wfrom[v] != CRIT_NONE && owner_of(m, m->wfrom[v]) != th &&
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

static void edge_stats_add(struct crit_edge_stats *d, const struct crit_edge_stats *s)
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
static int scan_eps_count(struct model *m, const struct prec_graph *g, int64_t eps, int jobs)
{
	struct eps_part pt[2];
	uint32_t *byend = NULL, mid;
	bool sorted;
	int err = merge_by_end(m, &byend, &sorted), two;

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
	edge_stats_add(m->st, &pt[0].st);
	edge_stats_add(m->st, &pt[1].st);
	free(byend);
	return 0;
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
			} else if (v > 0 && owner_of(m, v - 1) == owner_of(m, v) && (m->fl[v - 1] & TF_LAST) &&
				   run_of(m, v - 1)->end_state == QT_END_PREEMPTED && !(m->kept[v] & KEPT_PO) &&
				   m->tasks[v - 1].end_ns <= s && m->tasks[v - 1].start_ns < s) {
				m->xcat[2 * v] = CRIT_CAT_PREEMPT;
				st->preempt_beyond++;
				has = true;
			}
		}
		/* The first run of a thread without a recorded cause: it lies before the recording. */
		if (!rel && !has && s > m->t0)
			rel = v == m->thr_first[owner_of(m, v)] ? CRIT_CAT_REL_START : CRIT_CAT_REL_NONE;
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

static int build_graph(struct model *m, int64_t eps, uint64_t max_edges, int jobs, struct prec_graph **out)
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
		edge_stats_add(m->st, &hc[i].st);
	if (err)
		goto out;
	m->st->candidates = (*out)->n_candidates;
	if (m->split && eps > 0)
		err = m->enumerate || !ends_in_order(m) ? scan_eps_each(m, *out, eps) : scan_eps_count(m, *out, eps, jobs);
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

/*
 * Algorithm 1 on a recording's graph, and the binding edge of every task by
 * rank. The graph reproduces every observed start (critical.h), so the
 * earliest starts are the observed ones and every edge is tight: what is
 * left is which tasks are critical (cpa__observed). full runs Algorithm 1
 * and checks that instead (critical_opts.full_cpa).
 */
static int trace_cpa(const struct model *m, const struct prec_graph *g, bool full, struct cpa_observed *ob,
		     uint32_t **bind)
{
	struct cpa *c;
	int err;

	*bind = NULL;
	if (!full) {
		err = cpa__observed(g, ob);
		if (err)
			return err;
		*bind = malloc((m->n ? m->n : 1) * sizeof(**bind));
		if (!*bind)
			return -ENOMEM;
		rank_bind(g, NULL, *bind);
		return 0;
	}
	err = cpa__run(g, &c);
	if (err)
		return err;
	*ob = (struct cpa_observed){ .makespan = c->makespan, .last = c->last };
	for (uint32_t v = 0; v < m->n; v++) {
		if (c->est[v] != m->tasks[v].start_ns - m->t0) {
			cpa__free(c);
			return -EPROTO;
		}
		ob->ncritical += cpa__critical(c, v);
	}
	rank_bind(g, c->est, c->bind);
	*bind = c->bind;
	c->bind = NULL;
	cpa__free(c);
	return 0;
}

/* A recording's graph, its critical path and the path into its end: all but the actors' accounting. */
struct critical_prep {
	struct critical_opts o;
	struct critical_result *res;
	struct model m;
	struct prec_graph *g;
	uint32_t *bind;
	struct acc acc;
	struct walker w;
	uint64_t whole_ns;		/* the path into the end (accounting time) */
};

void critical__prep_free(struct critical_prep *p)
{
	if (!p)
		return;
	acc_free(&p->acc);
	free(p->bind);
	prec_graph__free(p->g);
	model_free(&p->m);
	critical__free(p->res);
	free(p);
}

int critical__prepare(const struct timeline *tl, const struct critical_opts *o, struct critical_prep **out)
{
	struct critical_prep *p;
	struct critical_result *res;
	struct model *m;
	struct cpa_observed ob;
	int64_t eps, cap;
	uint64_t t_start, t_graph, t_cpa;
	int err;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (o)
		p->o = *o;
	else
		critical_opts_default(&p->o);
	o = &p->o;
	m = &p->m;
	res = p->res = calloc(1, sizeof(*res));
	if (!res) {
		free(p);
		return -ENOMEM;
	}
	m->tl = tl;
	res->input = CRIT_INPUT_TRACE;
	res->whole_last = CRIT_NONE;
	res->epsilon_evidence_ns = -1;
	m->st = &res->edges;
	m->t0 = (int64_t)tl->start;
	m->split = !o->timing_only && tl->nwk > 0;
	m->enumerate = o->enumerate_eps;
	res->wakeups = m->split;
	res->origin_ns = m->t0;
	t_start = now_ns();
	err = model_build(m);
	if (err)
		goto out;
	res->ntasks = m->n;

	cap = o->epsilon_cap_ns > 0 ? o->epsilon_cap_ns : CRIT_DEFAULT_EPS_CAP;
	/* What the wakeups say, also next to a given eps. */
	if (tl->nwk > 0)
		res->epsilon_evidence_ns = invisible_gap_max(m);
	if (o->epsilon_ns >= 0) {
		eps = o->epsilon_ns;
		res->epsilon_source = "given";
	} else if (res->epsilon_evidence_ns >= 0) {
		eps = res->epsilon_evidence_ns;
		res->epsilon_source = "auto";
		if (eps > cap) {
			eps = cap;
			res->epsilon_capped = true;
		}
	} else {
		eps = CRIT_DEFAULT_EPS_TRACE;
		res->epsilon_source = "default";
	}
	/* Halve an automatic eps until the proposals fit the edge budget. */
	for (;;) {
		err = build_graph(m, eps, o->max_edges, o->jobs, &p->g);
		if (err != -E2BIG || o->epsilon_ns >= 0 || eps == 0)
			break;
		eps /= 2;
		res->epsilon_capped = true;
	}
	if (err)
		goto out;
	res->epsilon_ns = eps;
	model_drop_build(m);
	res->nedges = p->g->n_edges;
	t_graph = now_ns();
	err = trace_cpa(m, p->g, o->full_cpa, &ob, &p->bind);
	if (err)
		goto out;
	res->makespan_ns = ob.makespan;
	res->ncritical = ob.ncritical;
	t_cpa = now_ns();
	res->unexplained = res->edges.releases[CRIT_CAT_REL_NONE];
	res->edges.exact = p->g->n_exact;
	res->build_ns = t_graph - t_start;
	res->cpa_ns = t_cpa - t_graph;

	p->w = (struct walker){ .m = m, .g = p->g, .bind = p->bind, .hint = m->cpu_hint,
				.separate = o->separate_walks };
	err = acc_init(&p->acc, tl->nthreads);
	if (err)
		goto out;
	if (ob.last != CPA_NONE) {
		res->whole_last = ob.last;
		err = path_into(&p->w, ob.last, ob.makespan, 0, &p->acc, 4 * CRIT_MAX_SEGS, &res->whole);
	}
	p->whole_ns = now_ns() - t_cpa;
out:
	if (err) {
		critical__prep_free(p);
		return err;
	}
	*out = p;
	return 0;
}

int critical__finish(struct critical_prep *p, const struct actors_result *ar, struct critical_result **out)
{
	uint64_t t0 = now_ns();
	int err = 0;

	*out = NULL;
	if (ar)
		err = account_actors(p->res, &p->w, ar, &p->acc, p->o.jobs, p->m.tl->nthreads, p->o.seg_breaks);
	p->res->account_ns = p->whole_ns + (now_ns() - t0);
	if (!err) {
		*out = p->res;
		p->res = NULL;
	}
	critical__prep_free(p);
	return err;
}

int critical__analyse(const struct timeline *tl, const struct actors_result *ar,
		      const struct critical_opts *o, struct critical_result **out)
{
	struct critical_prep *p;
	int err = critical__prepare(tl, o, &p);

	*out = NULL;
	return err ? err : critical__finish(p, ar, out);
}

/* ---- the stage over a Gantt chart ---- */

static int gantt_hook(void *ctx, uint32_t u, uint32_t v, int64_t gap, enum prec_edge_kind kind, uint8_t *cat)
{
	struct crit_edge_stats *st = ctx;

	(void)u;
	(void)v;
	(void)gap;
	if (kind == PREC_EDGE_INIT) {
		*cat = CRIT_CAT_INIT;
		st->releases[CRIT_CAT_INIT]++;
	} else if (kind == PREC_EDGE_GAP) {
		*cat = CRIT_CAT_GAP;
		st->cross++;
		st->unchecked++;
	} else {
		*cat = CRIT_CAT_NONE;
	}
	return 1;
}

static inline bool crit_edge(const struct cpa *c, const struct prec_graph *g, uint32_t v, uint32_t e)
{
	return (prec_lag(g, v, e) > 0 || g->pred[e] != PREC_ROOT) && cpa__edge_float(c, g, v, e) == 0;
}

/* Starts a critical path (no critical edge from a task into it, at time 0)? */
static bool path_start(const struct cpa *c, const struct prec_graph *g, uint32_t v)
{
	if (c->est[v] != 0 || !cpa__critical(c, v))
		return false;
	for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++)
		if (g->pred[e] != PREC_ROOT && crit_edge(c, g, v, e))
			return false;
	return true;
}

/* Lists the path on the stack (last task first there), if there is room. */
static int emit_path(struct critical_result *res, const uint32_t *stk, size_t depth)
{
	uint32_t *path;

	if (res->npaths_listed >= CRIT_MAX_PATHS)
		return 0;
	path = malloc(depth * sizeof(*path));
	if (!path)
		return -ENOMEM;
	for (size_t i = 0; i < depth; i++)
		path[i] = stk[depth - 1 - i];
	res->path_len[res->npaths_listed] = depth;
	res->paths[res->npaths_listed++] = path;
	return 0;
}

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * Counts the critical paths (maximal ones: from a start at 0 to a task
 * ending at the makespan with no critical successor) and lists up to
 * CRIT_MAX_PATHS of them, by a depth-first walk back over critical edges:
 * every critical task lies on a critical path, so every branch ends in a
 * path and the walk costs O(paths listed x length).
 */
static int gantt_paths(struct critical_result *res, const struct prec_graph *g, const struct cpa *c)
{
	uint32_t n = g->n;
	uint64_t *cnt = calloc(n ? n : 1, sizeof(*cnt));
	uint8_t *has_succ = calloc(n ? n : 1, 1);
	uint32_t *stk = malloc((n ? n : 1) * sizeof(*stk)), *cur = malloc((n ? n : 1) * sizeof(*cur));
	int err = -ENOMEM;

	res->paths = calloc(CRIT_MAX_PATHS, sizeof(*res->paths));
	res->path_len = calloc(CRIT_MAX_PATHS, sizeof(*res->path_len));
	if (!cnt || !has_succ || !stk || !cur || !res->paths || !res->path_len)
		goto out;
	for (uint32_t p = 0; p < n; p++) {
		uint32_t v = g->order[p];

		if (!cpa__critical(c, v))
			continue;
		cnt[v] = path_start(c, g, v);
		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			if (!crit_edge(c, g, v, e))
				continue;
			if (g->pred[e] == PREC_ROOT) {
				cnt[v] = sat_add(cnt[v], 1);
			} else {
				cnt[v] = sat_add(cnt[v], cnt[g->pred[e]]);
				has_succ[g->pred[e]] = 1;
			}
		}
	}
	for (uint32_t p = 0; p < n; p++) {
		uint32_t end = g->order[p];
		size_t depth = 1;

		if (!cpa__critical(c, end) || has_succ[end] || c->est[end] + prec_dur(g, end) != c->makespan)
			continue;
		res->npaths = sat_add(res->npaths, cnt[end]);
		/* Depth-first, back from end; a path is complete at a start or a root lag. */
		stk[0] = end;
		cur[0] = g->pred_off[end];
		if (path_start(c, g, end) && emit_path(res, stk, 1))
			goto out;
		while (depth && res->npaths_listed < CRIT_MAX_PATHS) {
			uint32_t v = stk[depth - 1], e = cur[depth - 1], u;

			if (e == g->pred_off[v + 1]) {
				depth--;
				continue;
			}
			cur[depth - 1]++;
			if (!crit_edge(c, g, v, e))
				continue;
			u = g->pred[e];
			if (u == PREC_ROOT) {
				if (emit_path(res, stk, depth))
					goto out;
				continue;
			}
			stk[depth] = u;
			cur[depth] = g->pred_off[u];
			depth++;
			if (path_start(c, g, u) && emit_path(res, stk, depth))
				goto out;
		}
	}
	err = 0;
out:
	free(cnt);
	free(has_succ);
	free(stk);
	free(cur);
	return err;
}

static int cmp_est(const void *x, const void *y, void *ctx)
{
	const int64_t *est = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (est[a] != est[b])
		return est[a] < est[b] ? -1 : 1;
	return (a > b) - (a < b);
}

struct gantt_done {
	uint32_t task;
	int64_t end;
};

static int cmp_done(const void *x, const void *y)
{
	const struct gantt_done *a = x, *b = y;

	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return (a->task > b->task) - (a->task < b->task);
}

/* Per actor of the chart: every task is an invocation; horizons in non-delay time. */
static int gantt_actors(struct critical_result *res, const struct walker *w, const struct gantt *gt,
			struct acc *acc)
{
	struct gantt_done *d = malloc((gt->n ? gt->n : 1) * sizeof(*d));
	size_t *first = calloc(gt->n_actors + 1, sizeof(*first));
	int err = -ENOMEM;

	res->actors = calloc(gt->n_actors ? gt->n_actors : 1, sizeof(*res->actors));
	if (!d || !first || !res->actors)
		goto out;
	for (size_t i = 0; i < gt->n; i++)
		first[gt->actor[i] + 1]++;
	for (size_t a = 0; a < gt->n_actors; a++)
		first[a + 1] += first[a];
	{
		size_t *fill = malloc((gt->n_actors ? gt->n_actors : 1) * sizeof(*fill));

		if (!fill)
			goto out;
		memcpy(fill, first, gt->n_actors * sizeof(*fill));
		for (uint32_t i = 0; i < gt->n; i++)
			d[fill[gt->actor[i]]++] = (struct gantt_done){ i, w_est(w, i) + prec_dur(w->g, i) };
		free(fill);
	}
	for (size_t a = 0; a < gt->n_actors; a++) {
		struct crit_actor *ca = &res->actors[res->nactors];
		int64_t horizon = 0;

		qsort(d + first[a], first[a + 1] - first[a], sizeof(*d), cmp_done);
		ca->actor = a;
		ca->thread = (uint32_t)a;
		for (size_t k = first[a]; k < first[a + 1]; k++) {
			if (d[k].end <= horizon && k > first[a])
				continue;
			walk(w, d[k].task, d[k].end, horizon, &(struct sink){ .acc = acc });
			ca->ninv++;
			ca->total_ns = d[k].end;
			horizon = d[k].end;
		}
		err = acc_take(acc, &ca->share, &ca->nshare);
		if (err)
			goto out;
		res->nactors++;
	}
	err = 0;
out:
	free(d);
	free(first);
	return err;
}

int critical__analyse_gantt(const struct gantt *gt, const struct critical_opts *o,
			    struct critical_result **out)
{
	struct critical_opts def;
	struct critical_result *res;
	struct model m = { .gt = gt };
	struct prec_graph *g = NULL;
	struct cpa *c = NULL;
	struct cpa_hop *hops = NULL;
	struct acc acc = { 0 };
	struct walker w;
	size_t nh = 0;
	uint64_t t_start, t_graph, t_cpa;
	int err;

	*out = NULL;
	if (!o) {
		critical_opts_default(&def);
		o = &def;
	}
	res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	res->input = CRIT_INPUT_GANTT;
	res->whole_last = CRIT_NONE;
	res->epsilon_evidence_ns = -1;
	res->ntasks = gt->n;
	if (o->epsilon_ns >= 0) {
		res->epsilon_ns = o->epsilon_ns;
		res->epsilon_source = "given";
	} else {
		res->epsilon_ns = 0;
		res->epsilon_source = "default";
	}
	t_start = now_ns();
	{
		struct prec_opts po = {
			.eps_ns = res->epsilon_ns,
			.max_edges = o->max_edges,
			.edge_fn = gantt_hook,
			.edge_ctx = &res->edges,
		};

		err = prec_graph__build(gt->tasks, gt->n, &po, &g);
	}
	if (err)
		goto out;
	res->edges.candidates = g->n_candidates;
	res->edges.exact = g->n_exact;
	res->nedges = g->n_edges;
	res->origin_ns = g->t0;
	m.t0 = g->t0;
	m.n = gt->n;
	m.tasks = gt->tasks;
	t_graph = now_ns();
	err = cpa__run(g, &c);
	if (err)
		goto out;
	t_cpa = now_ns();
	res->makespan_ns = c->makespan;
	res->est = malloc((gt->n ? gt->n : 1) * sizeof(*res->est));
	res->lst = malloc((gt->n ? gt->n : 1) * sizeof(*res->lst));
	err = -ENOMEM;
	if (!res->est || !res->lst)
		goto out;
	memcpy(res->est, c->est, gt->n * sizeof(*res->est));
	memcpy(res->lst, c->lst, gt->n * sizeof(*res->lst));
	for (uint32_t v = 0; v < gt->n; v++)
		res->ncritical += cpa__critical(c, v);
	res->critical = malloc((res->ncritical ? res->ncritical : 1) * sizeof(*res->critical));
	if (!res->critical)
		goto out;
	res->ncritical = 0;
	for (uint32_t v = 0; v < gt->n; v++)
		if (cpa__critical(c, v))
			res->critical[res->ncritical++] = v;
	qsort_r(res->critical, res->ncritical, sizeof(*res->critical), cmp_est, res->est);
	err = gantt_paths(res, g, c);
	if (!err)
		err = cpa__common(c, g, &hops, &nh);
	if (err)
		goto out;
	res->common = malloc((nh ? nh : 1) * sizeof(*res->common));
	res->common_joined = calloc(nh ? nh : 1, 1);
	err = -ENOMEM;
	if (!res->common || !res->common_joined)
		goto out;
	for (size_t i = 0; i < nh; i++) {
		res->common[i] = hops[i].task;
		res->common_joined[i] = i && hops[i].edge != CPA_NONE && g->pred[hops[i].edge] == hops[i - 1].task;
	}
	res->ncommon = nh;
	err = cpa__start_mismatches(c, g, gt->tasks, gt->n, &res->mismatch, &res->nmismatch);
	if (err)
		goto out;

	w = (struct walker){ .m = &m, .g = g, .est = c->est, .bind = c->bind, .hint = m.cpu_hint };
	err = acc_init(&acc, gt->n_actors);
	if (err)
		goto out;
	if (c->last != CPA_NONE) {
		res->whole_last = c->last;
		err = path_into(&w, c->last, c->makespan, 0, &acc, SIZE_MAX, &res->whole);
		if (err)
			goto out;
	}
	err = gantt_actors(res, &w, gt, &acc);
	res->build_ns = t_graph - t_start;
	res->cpa_ns = t_cpa - t_graph;
	res->account_ns = now_ns() - t_cpa;
out:
	free(hops);
	acc_free(&acc);
	cpa__free(c);
	prec_graph__free(g);
	if (err) {
		critical__free(res);
		return err;
	}
	*out = res;
	return 0;
}
