// SPDX-License-Identifier: MIT
/*
 * The runs and calls grouped by thread, and the indexes the later stages
 * search by: wakeups by wakee and by waker, runs by CPU.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lib/prefault.h"

/*
 * Stable counting sort of items by a thread index: per-thread slices. The
 * items are scattered into a new array, which replaces the old one (a copy
 * back would cost a pass; permuting in place, random swaps, took 3x as long
 * on 9 M runs).
 */
static int group_by_thread(void **arr, size_t n, size_t elem, size_t nthreads,
			   uint32_t (*thread_of)(const void *), size_t *first, size_t *count,
			   uint32_t *moved_to)
{
	char *tmp = malloc((n ? n : 1) * elem), *a = *arr;
	size_t *pos = calloc(nthreads + 1, sizeof(*pos));
	struct prefault *pf;

	if (!tmp || !pos) {
		free(tmp);
		free(pos);
		return -ENOMEM;
	}
	/* Filled to its end; the helper gets the counting pass as a head start. */
	pf = prefault__start(tmp, n * elem, PREFAULT_ALL);
	for (size_t i = 0; i < n; i++)
		pos[thread_of(a + i * elem) + 1]++;
	for (size_t th = 0; th < nthreads; th++) {
		first[th] = pos[th];
		count[th] = pos[th + 1];
		pos[th + 1] += pos[th];
	}
	for (size_t i = 0; i < n; i++) {
		const char *it = a + i * elem;
		size_t to = pos[thread_of(it)]++;

		memcpy(tmp + to * elem, it, elem);
		if (moved_to)
			moved_to[i] = (uint32_t)to;
	}
	prefault__stop(pf);
	free(*arr);
	*arr = tmp;
	free(pos);
	return 0;
}

static uint32_t run_thread(const void *p) { return ((const struct tl_run *)p)[0].thread; }
static uint32_t sc_thread(const void *p) { return ((const struct tl_syscall *)p)[0].thread; }

/* Index lists of wakeups grouped by one side (wakee or waker), time order kept. */
static int wakeup_index(struct timeline *tl, bool by_waker, uint32_t **out, size_t (*first_count)[2])
{
	size_t *pos = calloc(tl->nthreads + 1, sizeof(*pos));
	uint32_t *idx = malloc((tl->nwk ? tl->nwk : 1) * sizeof(*idx));

	if (!pos || !idx) {
		free(pos);
		free(idx);
		return -ENOMEM;
	}
	for (size_t i = 0; i < tl->nwk; i++) {
		uint32_t th = by_waker ? tl->wk[i].waker : tl->wk[i].wakee;

		if (th != TL_NONE)
			pos[th + 1]++;
	}
	for (size_t th = 0; th < tl->nthreads; th++) {
		first_count[th][0] = pos[th];
		first_count[th][1] = pos[th + 1];
		pos[th + 1] += pos[th];
	}
	for (size_t i = 0; i < tl->nwk; i++) {
		uint32_t th = by_waker ? tl->wk[i].waker : tl->wk[i].wakee;

		if (th != TL_NONE)
			idx[pos[th]++] = i;
	}
	free(pos);
	*out = idx;
	return 0;
}

/*
 * A wakeup recorded at sched_waking knows only the CPU the wakee last ran
 * on: the CPU it was enqueued on is where its next run starts. Each
 * wakee's wakeups (wk_by_wakee: in time order, as build_wakeups sorted
 * them) are walked beside its runs; a binary search per wakeup over a busy
 * thread's runs missed the cache at every step (a 15 s storm: 0.14 s of a
 * 0.33 s timeline build).
 */
static void resolve_target_cpus(struct timeline *tl)
{
	for (size_t th = 0; th < tl->nthreads; th++) {
		const struct tl_thread *x = &tl->threads[th];
		size_t r = x->run0;

		for (size_t k = x->wr0; k < x->wr0 + x->nwr; k++) {
			struct tl_wakeup *w = &tl->wk[tl->wk_by_wakee[k]];

			if (!(w->flags & QT_WAKE_CPU_PREV))
				continue;
			r = next_run(tl, x, r, w->ts);
			if (r < x->run0 + x->nrun)
				w->target_cpu = tl->runs[r].cpu;
		}
	}
}

/*
 * The runs come out of runs_build in the order their switches ended them:
 * on one CPU, where runs never overlap, that is time order. Lists each
 * CPU's runs by that place; *moved_to gets room for where grouping by
 * thread puts each run (NULL, and no lists, beyond UINT32_MAX runs).
 */
static int index_by_cpu(struct timeline *tl, uint32_t **moved_to)
{
	size_t *fill;

	*moved_to = NULL;
	if (tl->nruns > UINT32_MAX)
		return 0;
	tl->cpu_run0 = calloc(tl->ncpus + 1, sizeof(*tl->cpu_run0));
	tl->runs_by_cpu = malloc((tl->nruns ? tl->nruns : 1) * sizeof(*tl->runs_by_cpu));
	*moved_to = malloc((tl->nruns ? tl->nruns : 1) * sizeof(**moved_to));
	fill = malloc((tl->ncpus + 1) * sizeof(*fill));
	if (!tl->cpu_run0 || !tl->runs_by_cpu || !*moved_to || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t i = 0; i < tl->nruns; i++)
		tl->cpu_run0[tl->runs[i].cpu + 1]++;
	for (int c = 0; c < tl->ncpus; c++)
		tl->cpu_run0[c + 1] += tl->cpu_run0[c];
	memcpy(fill, tl->cpu_run0, (tl->ncpus + 1) * sizeof(*fill));
	for (size_t i = 0; i < tl->nruns; i++)
		tl->runs_by_cpu[fill[tl->runs[i].cpu]++] = (uint32_t)i;
	free(fill);
	return 0;
}

int group_threads(struct timeline *tl)
{
	size_t n = tl->nthreads;
	size_t *first = calloc(n + 1, sizeof(*first)), *count = calloc(n + 1, sizeof(*count));
	size_t (*fc)[2] = calloc(n + 1, sizeof(*fc));
	uint32_t *moved_to = NULL;
	void *grouped;
	int err;

	if (!first || !count || !fc) {
		err = -ENOMEM;
		goto out;
	}
	err = index_by_cpu(tl, &moved_to);
	if (err)
		goto out;
	grouped = tl->runs;
	err = group_by_thread(&grouped, tl->nruns, sizeof(*tl->runs), n, run_thread, first, count, moved_to);
	tl->runs = grouped;
	if (err)
		goto out;
	/* The CPUs' lists named the runs by their place in time; now by their place by thread. */
	for (size_t i = 0; moved_to && i < tl->nruns; i++)
		tl->runs_by_cpu[i] = moved_to[tl->runs_by_cpu[i]];
	for (size_t i = 0; i < n; i++) {
		struct tl_thread *x = &tl->threads[i];

		x->run0 = first[i];
		x->nrun = count[i];
		x->nruns = count[i];
		for (size_t k = x->run0; k < x->run0 + x->nrun; k++) {
			const struct tl_run *r = &tl->runs[k];

			x->run_ns += r->end - r->start;
			if (r->flags & TL_RUN_START_UNSURE)
				x->unsure_ns += r->end - r->start;
			if (r->end_state == QT_END_PREEMPTED)
				x->npreempted++;
			else if (r->end_state == QT_END_SLEEP || r->end_state == QT_END_BLOCKED)
				x->nvoluntary++;
		}
		if (x->nrun) {
			x->first_run = tl->runs[x->run0].start;
			x->last_end = tl->runs[x->run0 + x->nrun - 1].end;
		}
	}
	grouped = tl->sc;
	err = group_by_thread(&grouped, tl->nsc, sizeof(*tl->sc), n, sc_thread, first, count, NULL);
	tl->sc = grouped;
	if (err)
		goto out;
	for (size_t i = 0; i < n; i++) {
		tl->threads[i].sc0 = first[i];
		tl->threads[i].nsc = count[i];
	}
	err = wakeup_index(tl, false, &tl->wk_by_wakee, fc);
	if (err)
		goto out;
	for (size_t i = 0; i < n; i++) {
		tl->threads[i].wr0 = fc[i][0];
		tl->threads[i].nwr = fc[i][1];
	}
	resolve_target_cpus(tl);
	err = wakeup_index(tl, true, &tl->wk_by_waker, fc);
	if (err)
		goto out;
	for (size_t i = 0; i < n; i++) {
		tl->threads[i].ws0 = fc[i][0];
		tl->threads[i].nws = fc[i][1];
	}
out:
	free(moved_to);
	free(first);
	free(count);
	free(fc);
	return err;
}
