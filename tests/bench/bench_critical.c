// SPDX-License-Identifier: MIT
/*
 * Throughput and memory of the critical-path stage on timeline-derived
 * tasks: a synthetic timeline (8 CPUs, 64 threads pinned to each, runs of
 * 2-100 us, idle gaps, preemptions, two wakeups in three from a thread
 * running on another CPU, the rest from the timer) is built in memory,
 * then critical__analyse() runs on it with 16 actors (one invocation per
 * run, a break every 100 invocations). Reports the phases' wall time,
 * tasks per second of reconstruction + Algorithm 1, and the peak RSS the
 * analysis adds (VmHWM reset through /proc/self/clear_refs before it).
 *
 *   bench_critical TASKS...        e.g. 1000000 10000000
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "actors/actors.h"
#include "critical/critical.h"
#include "timeline/timeline.h"

#define NCPU 8
#define PER_CPU 64
#define NTH (NCPU * PER_CPU)
#define US 1000

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int64_t range(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(next() % (uint64_t)(hi - lo + 1));
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Current and peak resident set (kB) from /proc/self/status. */
static long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = strtol(line + strlen(key), NULL, 10);
	fclose(f);
	return v;
}

static void reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");

	if (f) {
		fputs("5", f);
		fclose(f);
	}
}

struct cpu_runs {
	struct tl_run *v;
	size_t n;
};

static int cmp_wk(const void *x, const void *y)
{
	const struct tl_wakeup *a = x, *b = y;

	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/* The run on CPU c containing t, or NULL. */
static const struct tl_run *run_at(const struct cpu_runs *c, uint64_t t)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->v[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n && c->v[lo].start < t ? &c->v[lo] : NULL;
}

static struct timeline *make_timeline(size_t nruns)
{
	struct timeline *tl = calloc(1, sizeof(*tl));
	struct cpu_runs cpu[NCPU];
	uint32_t *fill;
	size_t nwk = 0, per = nruns / NCPU;
	uint64_t *last_end = calloc(NTH, sizeof(*last_end));
	uint8_t *slept = calloc(NTH, 1);

	tl->ncpus = NCPU;
	tl->nthreads = NTH;
	tl->threads = calloc(NTH, sizeof(*tl->threads));
	for (int i = 0; i < NTH; i++) {
		tl->threads[i].tid = 1000 + i;
		tl->threads[i].pid = 1000 + i;
		snprintf(tl->threads[i].comm, sizeof(tl->threads[i].comm), "t%d", i);
	}
	/* Each CPU's runs, in time order. */
	for (int c = 0; c < NCPU; c++) {
		uint64_t t = 1000 * US;
		uint32_t prev = UINT32_MAX;

		cpu[c].v = malloc(per * sizeof(*cpu[c].v));
		cpu[c].n = per;
		for (size_t i = 0; i < per; i++) {
			uint32_t th = (uint32_t)(c + NCPU * range(0, PER_CPU - 1));
			struct tl_run *r = &cpu[c].v[i];

			if (th == prev)
				t += range(1, 20) * US;
			r->start = t;
			t += range(2, 100) * US;
			r->end = t;
			r->thread = th;
			r->cpu = (uint16_t)c;
			r->end_state = next() % 10 < 3 ? QT_END_PREEMPTED : QT_END_SLEEP;
			prev = th;
			if (next() % 10 < 3) {
				t += range(1, 50) * US;
				prev = UINT32_MAX;
			}
		}
		if (t > tl->end)
			tl->end = t;
	}
	tl->start = 0;
	tl->end += 1000 * US;
	/* Wakeups for every run whose thread slept before. */
	tl->wk = malloc(nruns * sizeof(*tl->wk));
	for (int c = 0; c < NCPU; c++) {
		for (size_t i = 0; i < cpu[c].n; i++) {
			const struct tl_run *r = &cpu[c].v[i];
			struct tl_wakeup w = { .wakee = r->thread, .target_cpu = (uint16_t)c };
			uint64_t lat = (uint64_t)range(1, 30) * US;

			if (!(slept[r->thread] || !last_end[r->thread]) || r->start < lat + last_end[r->thread] + 1) {
				slept[r->thread] = r->end_state != QT_END_PREEMPTED;
				last_end[r->thread] = r->end;
				continue;
			}
			w.waking_ts = r->start - lat;
			w.ts = w.waking_ts + 500;
			w.waker = TL_NONE;
			if (next() % 3 < 2) {
				int c2 = (int)((c + range(1, NCPU - 1)) % NCPU);
				const struct tl_run *x = run_at(&cpu[c2], w.waking_ts);

				if (x && x->thread != r->thread) {
					w.waker = x->thread;
					w.waker_cpu = (uint16_t)c2;
				}
			}
			if (w.waker == TL_NONE) {
				w.flags = QT_WAKE_HARDIRQ;
				w.irq = QT_IRQ_TIMER;
			}
			tl->wk[nwk++] = w;
			slept[r->thread] = r->end_state != QT_END_PREEMPTED;
			last_end[r->thread] = r->end;
		}
	}
	qsort(tl->wk, nwk, sizeof(*tl->wk), cmp_wk);
	tl->nwk = nwk;
	/* Runs grouped by thread, time order kept. */
	for (int c = 0; c < NCPU; c++)
		for (size_t i = 0; i < cpu[c].n; i++)
			tl->threads[cpu[c].v[i].thread].nrun++;
	fill = calloc(NTH, sizeof(*fill));
	for (int i = 1; i < NTH; i++)
		tl->threads[i].run0 = tl->threads[i - 1].run0 + tl->threads[i - 1].nrun;
	tl->nruns = per * NCPU;
	tl->runs = malloc(tl->nruns * sizeof(*tl->runs));
	for (int c = 0; c < NCPU; c++) {
		for (size_t i = 0; i < cpu[c].n; i++) {
			struct tl_thread *x = &tl->threads[cpu[c].v[i].thread];

			tl->runs[x->run0 + fill[cpu[c].v[i].thread]++] = cpu[c].v[i];
		}
		free(cpu[c].v);
	}
	/* Wakeup indices by wakee and by waker. */
	tl->wk_by_wakee = malloc((nwk ? nwk : 1) * sizeof(uint32_t));
	tl->wk_by_waker = malloc((nwk ? nwk : 1) * sizeof(uint32_t));
	for (size_t k = 0; k < nwk; k++) {
		tl->threads[tl->wk[k].wakee].nwr++;
		if (tl->wk[k].waker != TL_NONE)
			tl->threads[tl->wk[k].waker].nws++;
	}
	for (int i = 1; i < NTH; i++) {
		tl->threads[i].wr0 = tl->threads[i - 1].wr0 + tl->threads[i - 1].nwr;
		tl->threads[i].ws0 = tl->threads[i - 1].ws0 + tl->threads[i - 1].nws;
	}
	memset(fill, 0, NTH * sizeof(*fill));
	{
		uint32_t *fill2 = calloc(NTH, sizeof(*fill2));

		for (size_t k = 0; k < nwk; k++) {
			struct tl_thread *x = &tl->threads[tl->wk[k].wakee];

			tl->wk_by_wakee[x->wr0 + fill[tl->wk[k].wakee]++] = (uint32_t)k;
			if (tl->wk[k].waker != TL_NONE) {
				x = &tl->threads[tl->wk[k].waker];
				tl->wk_by_waker[x->ws0 + fill2[tl->wk[k].waker]++] = (uint32_t)k;
			}
		}
		free(fill2);
	}
	free(fill);
	free(last_end);
	free(slept);
	return tl;
}

static void free_timeline(struct timeline *tl)
{
	free(tl->threads);
	free(tl->runs);
	free(tl->wk);
	free(tl->wk_by_wakee);
	free(tl->wk_by_waker);
	free(tl);
}

/* 16 actors: threads 0..15, one invocation per run, a break every 100. */
static struct actors_result *make_actors(const struct timeline *tl)
{
	struct actors_result *ar = calloc(1, sizeof(*ar));

	ar->n = 16;
	ar->upstream = 0;
	ar->v = calloc(ar->n, sizeof(*ar->v));
	for (size_t i = 0; i < ar->n; i++) {
		struct actor *a = &ar->v[i];
		const struct tl_thread *x = &tl->threads[i];

		a->kind = ACTOR_THREAD;
		a->thread = (uint32_t)i;
		snprintf(a->name, sizeof(a->name), "t%zu", i);
		a->inv = malloc((x->nrun ? x->nrun : 1) * sizeof(*a->inv));
		a->breaks = malloc((x->nrun / 100 + 1) * sizeof(*a->breaks));
		for (size_t k = 0; k < x->nrun; k++) {
			const struct tl_run *r = &tl->runs[x->run0 + k];

			a->inv[a->ninv++] = (struct actor_invocation){ (int64_t)r->start, (int64_t)r->end,
								       x->run0 + k, x->run0 + k };
			if (k && k % 100 == 0)
				a->breaks[a->nbreaks++] = (struct actor_break){ .before = k - 1, .late = k,
										.start_ns = a->inv[k - 1].start_ns,
										.end_ns = (int64_t)r->start };
		}
	}
	return ar;
}

static void free_actors(struct actors_result *ar)
{
	for (size_t i = 0; i < ar->n; i++) {
		free(ar->v[i].inv);
		free(ar->v[i].breaks);
	}
	free(ar->v);
	free(ar);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_critical TASKS...   (e.g. 1000000 10000000)\n");
		return 2;
	}
	printf("%10s %10s %9s %9s %7s %8s %7s %7s %8s %11s %8s %8s %7s\n", "tasks", "runs", "wakeups", "edges",
	       "eps_us", "build_s", "cpa_s", "acct_s", "cpu_s", "tasks/s", "wall_s", "peak_MB", "B/task");
	for (int i = 1; i < argc; i++) {
		size_t target = strtoull(argv[i], NULL, 10);
		/* About 1.4 tasks per run: two wakeups in three split their waker's run. */
		struct timeline *tl = make_timeline(target * 10 / 14);
		struct actors_result *ar = make_actors(tl);
		struct critical_result *r = NULL;
		long base;
		double t0, c0, wall, cpu;
		int err;

		reset_peak();
		base = status_kb("VmRSS:");
		t0 = clock_s(CLOCK_MONOTONIC);
		c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		err = critical__analyse(tl, ar, NULL, &r);
		wall = clock_s(CLOCK_MONOTONIC) - t0;
		cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (err) {
			fprintf(stderr, "critical__analyse: %s\n", strerror(-err));
			return 1;
		}
		{
			long peak = status_kb("VmHWM:") - base;
			double bc = (r->build_ns + r->cpa_ns) / 1e9;

			/* tasks/s: reconstruction + Algorithm 1, wall time of those phases. */
			printf("%10zu %10zu %9zu %9llu %7.1f %8.2f %7.2f %7.2f %8.2f %11.0f %8.2f %8.1f %7.0f\n",
			       r->ntasks, tl->nruns, tl->nwk, (unsigned long long)r->nedges, r->epsilon_ns / 1e3,
			       r->build_ns / 1e9, r->cpa_ns / 1e9, r->account_ns / 1e9, cpu, r->ntasks / bc, wall,
			       peak / 1024.0, peak * 1024.0 / r->ntasks);
			fflush(stdout);
			fprintf(stderr, "  %zu tasks: whole %.3f s; eps-edges %llu (%llu confirmed, %llu rejected), "
				"%llu wakeups beyond eps; %zu actors, %zu breaks; total %.2f s\n", r->ntasks, wall,
				(unsigned long long)r->edges.cross, (unsigned long long)r->edges.confirmed,
				(unsigned long long)r->edges.rejected, (unsigned long long)r->edges.wakeups_beyond,
				r->nactors, r->nbreaks, wall);
		}
		critical__free(r);
		free_actors(ar);
		free_timeline(tl);
	}
	return 0;
}
