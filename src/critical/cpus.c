// SPDX-License-Identifier: MIT
/*
 * Who held a CPU when: the tasks of a recording's model by (CPU, start),
 * the time other threads held a CPU over a window (what a runnable task
 * waited behind), and all tasks by end from the CPUs' lists. About 4 bytes
 * per task, 12 where a CPU's ends are out of order (cpus_reach).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lib/sort.h"
#include "lib/workq.h"

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

int cpus_index(struct model *m)
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
		return cpus_reach(m);
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
	return err ? err : cpus_reach(m);
}

#define CPU_END(i) (m->tasks[m->cpu_idx[i]].end_ns)

int cpus_reach(struct model *m)
{
	bool ordered = true;

	free(m->cpu_reach);
	m->cpu_reach = NULL;
	for (uint32_t c = 0; c < m->ncpu && ordered; c++)
		for (uint32_t i = m->cpu_off[c] + 1; i < m->cpu_off[c + 1] && ordered; i++)
			ordered = CPU_END(i) >= CPU_END(i - 1);
	/* Only where needed: the 2.3 M tasks of a storm, all in order, would take 18 MB more. */
	if (ordered)
		return 0;
	m->cpu_reach = malloc((m->n ? m->n : 1) * sizeof(*m->cpu_reach));
	if (!m->cpu_reach)
		return -ENOMEM;
	for (uint32_t c = 0; c < m->ncpu; c++) {
		int64_t far = INT64_MIN;

		for (uint32_t i = m->cpu_off[c]; i < m->cpu_off[c + 1]; i++) {
			far = CPU_END(i) > far ? CPU_END(i) : far;
			m->cpu_reach[i] = far;
		}
	}
	return 0;
}

/* How far tasks cpu_idx[cpu_off[c] .. i] reach: in order along each CPU. */
#define CPU_REACH(i) (m->cpu_reach ? m->cpu_reach[i] : CPU_END(i))

/*
 * The first task on cpu that ends after a: the first whose reach exceeds a,
 * since every task before it ends at or before a. A galloping search from
 * where the last one on that CPU ended, since queries come in bursts close
 * in time; the hint only saves steps, it never changes the answer (a search
 * on the ends themselves did where they were out of order, and the time
 * held then depended on which accounting thread had searched before).
 * hint[cpu]: where the caller's last search on that CPU ended (one array
 * per thread).
 */
static uint32_t first_ending_after(const struct model *m, uint32_t *hint, uint32_t cpu, int64_t a)
{
	uint32_t lo = m->cpu_off[cpu], hi = m->cpu_off[cpu + 1], p = hint[cpu], l, r, step = 1;

	if (p < lo || p > hi)
		p = lo;
	if (p < hi && CPU_REACH(p) <= a) {
		/* Right of p: double the step until a task ends after a. */
		l = p + 1;
		r = l;
		while (r < hi && CPU_REACH(r) <= a) {
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

			if (CPU_REACH(c) <= a) {
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

		if (CPU_REACH(mid) <= a)
			l = mid + 1;
		else
			r = mid;
	}
	hint[cpu] = l;
	return l;
}

int64_t cpus_held(const struct model *m, uint32_t *hint, uint32_t cpu, uint32_t th, int64_t a, int64_t b, held_fn fn,
		  void *ctx)
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
		ow = model_owner(m, u);
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

int cpus_by_end(const struct model *m, uint32_t **out, bool *sorted)
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
