/*
 * Throughput and memory of the actors stage (actors__analyse) on a large
 * synthetic timeline built directly as arrays (no trace, no timeline__build):
 * ACTORS periodic threads (period 10 ms, 2 % jitter, 1-3 fragments per
 * invocation by preemption, a quarter of the invocations blocking once, a
 * break every 100 invocations), in pipelines of 8 where each stage wakes
 * the next for every invocation. Prints the rates and the peak RSS;
 * scripts/bench-actors.sh runs it.
 *
 *   bench_actors [ACTORS [RUNS [SEED]]]     defaults 1000, 10000000, 1
 *   bench_actors --trace FILE.qtrace        a recording: load, timeline, the
 *                                           stage, and the JSON, timed apart
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "actors/actors.h"
#include "file/trace.h"
#include "lib/json_writer.h"
#include "lib/workq.h"
#include "report/json_actors.h"
#include "synth_actor.h"
#include "timeline/timeline.h"

#define PIPE 8		/* stages per pipeline */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static int parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || *s == '-' ? -EINVAL : 0;
}

static int cmp_wk(const void *x, const void *y)
{
	const struct tl_wakeup *a = x, *b = y;

	return (a->ts > b->ts) - (a->ts < b->ts);
}

static int bench_trace(const char *path)
{
	struct trace *t = NULL;
	struct timeline *tl = NULL;
	struct actors_result *r = NULL;
	struct actors_opts o = { .jobs = workq_cpus_usable() > 1 ? 2 : 1 };	/* as the analysis runs it */
	size_t inv = 0, runs = 0;
	double t0, t1, t2, t3, t4;
	char err[512];
	FILE *null;
	json_writer_t *w;

	t0 = now();
	if (trace__load(path, NULL, &t, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	t1 = now();
	if (timeline__build(t, NULL, &tl))
		return 1;
	t2 = now();
	if (actors__analyse(tl, &o, &r))
		return 1;
	t3 = now();
	null = fopen("/dev/null", "w");
	w = jsonw_new(null, true);
	jsonw_start_object(w);
	json_actors_write(r, tl, w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
	fclose(null);
	t4 = now();
	for (size_t i = 0; i < r->n; i++) {
		inv += r->v[i].ninv;
		runs += r->v[i].noccurrences;
	}
	printf("%s: %llu events, %zu runs, %zu threads\n", path, (unsigned long long)t->events, tl->nruns,
	       tl->nthreads);
	printf("  load %.3f s, timeline %.3f s, actors %.3f s (%zu actors, %zu skipped, %zu occurrences, "
	       "%zu invocations, %.2f M actor-invocations/s), JSON %.3f s; peak RSS %.1f MB\n", t1 - t0, t2 - t1,
	       t3 - t2, r->n, r->nskipped, runs, inv, inv / (t3 - t2 + 1e-9) / 1e6, t4 - t3, peak_rss_kb() / 1024.0);
	actors__free(r);
	timeline__free(tl);
	trace__free(t);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long nact = 1000, nruns = 10000000, seed = 1;
	static const char *const none[1];
	struct timeline tl = { 0 };
	struct actors_opts o = { .jobs = workq_cpus_usable() > 1 ? 2 : 1 };
	struct actors_result *r = NULL;
	struct invoc_fragment *f;
	size_t *first, nwk = 0, cap_wk, total_inv = 0, total_breaks = 0, periodic = 0;
	size_t per_actor, n_inv;
	uint64_t s;
	double t0, t1, t2;
	long rss0;
	int err;

	if (argc == 3 && !strcmp(argv[1], "--trace"))
		return bench_trace(argv[2]);
	if ((argc > 1 && parse_u64(argv[1], &nact)) || (argc > 2 && parse_u64(argv[2], &nruns)) ||
	    (argc > 3 && parse_u64(argv[3], &seed)) || !nact || nruns < nact) {
		fprintf(stderr, "usage: bench_actors [ACTORS [RUNS [SEED]]]\n");
		return 2;
	}
	per_actor = nruns / nact;
	/* about 2.4 fragments per invocation with these settings */
	n_inv = per_actor * 10 / 24;

	struct synth_actor_cfg c = {
		.period_ns = 10000000, .n_inv = n_inv, .jitter = 0.02,
		.run_min_ns = 500000, .run_max_ns = 2000000,
		.max_preempt = 2, .preempt_wait_min_ns = 20000, .preempt_wait_max_ns = 300000,
		.block_prob = 0.25, .max_blocks = 1, .sleep_min_ns = 100000, .sleep_max_ns = 500000,
		.break_delay_ns = 5000000,
	};
	size_t *brk = malloc((n_inv / 100 + 1) * sizeof(*brk));

	for (size_t k = 0; brk && 50 + 100 * k < n_inv; k++)
		brk[c.n_breaks++] = 50 + 100 * k;
	c.break_at = brk;

	f = malloc(synth_actor_max_frags(&c) * sizeof(*f));
	first = malloc(n_inv * sizeof(*first));
	tl.threads = calloc(nact, sizeof(*tl.threads));
	tl.runs = malloc(nact * synth_actor_max_frags(&c) * sizeof(*tl.runs));
	cap_wk = nact * n_inv;
	tl.wk = malloc(cap_wk * sizeof(*tl.wk));
	if (!f || !first || !tl.threads || !tl.runs || !tl.wk || !brk) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	tl.nthreads = nact;
	tl.start = 1000000000ull;
	tl.ncpus = 8;
	s = seed * 0x9e3779b97f4a7c15ULL;
	for (size_t a = 0; a < nact; a++) {
		struct tl_thread *th = &tl.threads[a];
		size_t nf;

		/* stage k of a pipeline starts 1 ms after stage k-1 */
		c.t0_ns = 1000000000LL + (int64_t)(a % PIPE) * 1000000;
		nf = synth_actor_gen(&c, &s, f, first, NULL);
		th->tid = 1000 + a;
		th->pid = 1000 + a / PIPE * PIPE;
		th->flags = TL_TARGET;
		snprintf(th->comm, sizeof(th->comm), "stage%u", (unsigned int)(a % 1000000));
		th->run0 = tl.nruns;
		th->nrun = th->nruns = nf;
		for (size_t j = 0; j < nf; j++) {
			struct tl_run *x = &tl.runs[tl.nruns++];

			x->start = f[j].start_ns;
			x->end = f[j].end_ns;
			x->thread = a;
			x->cpu = a % 8;
			x->end_state = f[j].continues ? QT_END_PREEMPTED : QT_END_SLEEP;
		}
		if (f[nf - 1].end_ns > (int64_t)tl.end)
			tl.end = f[nf - 1].end_ns;
		/* the previous stage wakes this one just before each invocation */
		for (size_t k = 0; a % PIPE && k < n_inv; k++) {
			struct tl_wakeup *w = &tl.wk[nwk++];

			memset(w, 0, sizeof(*w));
			w->ts = w->waking_ts = f[first[k]].start_ns - 20000;
			w->waker = a - 1;
			w->wakee = a;
		}
	}
	tl.nwk = nwk;
	qsort(tl.wk, nwk, sizeof(*tl.wk), cmp_wk);
	tl.wk_by_wakee = malloc((nwk ? nwk : 1) * sizeof(uint32_t));
	tl.wk_by_waker = malloc((nwk ? nwk : 1) * sizeof(uint32_t));
	{
		size_t *cnt = calloc(nact + 1, sizeof(*cnt)), *cnt2 = calloc(nact + 1, sizeof(*cnt2));

		for (size_t i = 0; i < nwk; i++) {
			cnt[tl.wk[i].wakee + 1]++;
			cnt2[tl.wk[i].waker + 1]++;
		}
		for (size_t a = 0; a < nact; a++) {
			tl.threads[a].wr0 = cnt[a];
			tl.threads[a].nwr = cnt[a + 1];
			cnt[a + 1] += cnt[a];
			tl.threads[a].ws0 = cnt2[a];
			tl.threads[a].nws = cnt2[a + 1];
			cnt2[a + 1] += cnt2[a];
		}
		for (size_t i = 0; i < nwk; i++) {
			tl.wk_by_wakee[cnt[tl.wk[i].wakee]++] = i;
			tl.wk_by_waker[cnt2[tl.wk[i].waker]++] = i;
		}
		free(cnt);
		free(cnt2);
	}
	free(f);
	free(first);
	tl.end += 1000000;
	rss0 = peak_rss_kb();

	o.actor_specs = none;
	t0 = now();
	err = actors__analyse(&tl, &o, &r);
	t1 = now();
	if (err) {
		fprintf(stderr, "actors__analyse: %s\n", strerror(-err));
		return 1;
	}
	for (size_t i = 0; i < r->n; i++) {
		total_inv += r->v[i].ninv;
		total_breaks += r->v[i].nbreaks;
		periodic += r->v[i].st.periodic;
	}
	t2 = now();
	printf("timeline: %zu threads, %zu runs, %zu wakeups (built as arrays; peak RSS %.1f MB before the stage)\n",
	       tl.nthreads, tl.nruns, tl.nwk, rss0 / 1024.0);
	printf("actors:   %zu actors, %zu periodic, %zu invocations (expected %zu), %zu breaks (%zu expected), "
	       "%zu edges, upstream %s\n", r->n, periodic, total_inv, (size_t)nact * n_inv, total_breaks,
	       (size_t)nact * c.n_breaks, r->nedges, r->upstream >= 0 ? r->v[r->upstream].name : "none");
	printf("time:     %.3f s: %.2f M actor-invocations/s, %.2f M runs/s\n", t1 - t0,
	       total_inv / (t1 - t0) / 1e6, tl.nruns / (t1 - t0) / 1e6);
	printf("memory:   peak RSS %.1f MB (the stage's own: %.1f MB)\n", peak_rss_kb() / 1024.0,
	       (peak_rss_kb() - rss0) / 1024.0);
	(void)t2;
	actors__free(r);
	free(tl.threads);
	free(tl.runs);
	free(tl.wk);
	free(tl.wk_by_wakee);
	free(tl.wk_by_waker);
	free(brk);
	return 0;
}
