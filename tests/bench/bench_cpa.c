// SPDX-License-Identifier: MIT
/*
 * Reconstruction + critical path analysis on a synthetic scheduling trace.
 *
 *   bench_cpa TASKS [EPS_NS] [CPUS] [SEED]
 *
 * Each CPU runs back-to-back intervals (2 us .. 2 ms, log-uniform): 70 % of
 * switches hand the CPU over at once (exact edges), 25 % leave a short idle
 * gap of 1 .. 50 us (a wakeup latency), 5 % a long one of 50 us .. 5 ms (the
 * CPU idles; the next task there often has no predecessor within eps). The
 * intervals are handed over in
 * the order a sched_switch stream would give them (by end time), so the
 * start order needs a real sort. Prints one line of key=value.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "critical/cpa.h"
#include "critical/precedence.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long peak_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static double unif(uint64_t *s)
{
	return (rnd(s) >> 11) * (1.0 / 9007199254740992.0);
}

struct cpu {
	int64_t start, end;
};

static void next_interval(struct cpu *c, uint64_t *s)
{
	int64_t gap = 0, dur;
	double u = unif(s);

	if (u < 0.05)
		gap = (int64_t)(50000 + unif(s) * 4950000);
	else if (u < 0.30)
		gap = (int64_t)(1000 + unif(s) * 49000);
	dur = (int64_t)(2000 * pow(1000.0, unif(s)));
	c->start = c->end + gap;
	c->end = c->start + dur;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	int64_t eps = argc > 2 ? strtoll(argv[2], NULL, 10) : 50000;
	int ncpu = argc > 3 ? atoi(argv[3]) : 2;
	uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 1;
	struct prec_opts o = { .eps_ns = eps };
	struct prec_task *t = malloc(n * sizeof(*t));
	struct cpu cpus[64];
	struct prec_graph *g;
	struct cpa *c;
	struct cpa_hop *common;
	uint32_t *bad;
	size_t ncommon, nbad, ncrit = 0;
	long base_kb, plen;
	double t0, t1, t2, t3, t4;
	int err;

	if (!t || ncpu < 1 || ncpu > 64 || !n) {
		fprintf(stderr, "usage: bench_cpa TASKS [EPS_NS] [CPUS<=64] [SEED]\n");
		return 2;
	}
	seed = seed * 0x9E3779B97F4A7C15ULL + 1;
	for (int i = 0; i < ncpu; i++) {
		cpus[i].end = (int64_t)(unif(&seed) * 1000);
		next_interval(&cpus[i], &seed);
	}
	for (size_t i = 0; i < n; i++) {
		int k = 0;

		for (int j = 1; j < ncpu; j++)
			if (cpus[j].end < cpus[k].end)
				k = j;
		t[i] = (struct prec_task){ cpus[k].start, cpus[k].end };
		next_interval(&cpus[k], &seed);
	}
	base_kb = peak_kb();

	t0 = now();
	err = prec_graph__build(t, n, &o, &g);
	if (err) {
		fprintf(stderr, "prec_graph__build: %d\n", err);
		return 1;
	}
	t1 = now();
	err = cpa__run(g, &c);
	if (err) {
		fprintf(stderr, "cpa__run: %d\n", err);
		return 1;
	}
	t2 = now();
	if (cpa__common(c, g, &common, &ncommon))
		return 1;
	t3 = now();
	plen = cpa__path_into(c, g, c->last, NULL, 0);
	if (cpa__start_mismatches(c, g, t, n, &bad, &nbad))
		return 1;
	t4 = now();
	for (uint32_t v = 0; v < g->n; v++)
		ncrit += cpa__critical(c, v);

	printf("tasks=%zu cpus=%d eps_ns=%lld edges=%u exact=%u gap=%u init=%u "
	       "build_s=%.3f cpa_s=%.3f common_s=%.3f check_s=%.3f "
	       "tasks_per_s=%.0f makespan_ns=%lld critical=%zu common=%zu path_hops=%ld "
	       "start_mismatches=%zu peak_rss_kb=%ld input_kb=%ld "
	       "analysis_bytes_per_task=%.1f struct_bytes=%.0f\n",
	       n, ncpu, (long long)eps, g->n_edges, g->n_exact, g->n_gap, g->n_init,
	       t1 - t0, t2 - t1, t3 - t2, t4 - t3, n / (t2 - t0),
	       (long long)c->makespan, ncrit, ncommon, plen, nbad, peak_kb(), base_kb,
	       (peak_kb() - base_kb) * 1024.0 / n,
	       /* What stays allocated: graph + cpa. */
	       16.0 * n + 14.0 * g->n_edges + 20.0 * n);
	free(bad);
	free(common);
	cpa__free(c);
	prec_graph__free(g);
	free(t);
	return 0;
}
