/*
 * Throughput of fragments -> invocations -> period/breaks/split, per actor,
 * on a large synthetic input (tests/lib/synth_actor.h). Prints the rates and
 * the peak RSS; scripts/bench-period.sh runs it.
 *
 *   bench_period [ACTORS [FRAGMENTS [SEED [GAP_FRAC]]]]
 *
 * Defaults 1000 actors, 10000000 fragments, seed 1, GAP_FRAC 0 (the
 * clustering exactly as docs/ALGORITHMS.md §1.4; 0.5 turns on
 * invocations_opts.max_gap_frac). Breaks recur every 100 invocations.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "actors/invocations.h"
#include "actors/period.h"
#include "synth_actor.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int parse_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || !(*v >= 0) ? -EINVAL : 0;
}

static int parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || *s == '-' ? -EINVAL : 0;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss;
}

/* A mix of actor kinds, so every code path of the clustering runs. */
static void actor_cfg(size_t a, size_t n_inv, const size_t *brk, size_t nbrk,
		      struct synth_actor_cfg *c)
{
	*c = (struct synth_actor_cfg){
		.t0_ns = 1000000000LL + (int64_t)a * 37000,
		.period_ns = 10000000,
		.n_inv = n_inv,
		.jitter = 0.02,
		.run_min_ns = 1000000, .run_max_ns = 3000000,
		.preempt_wait_min_ns = 20000, .preempt_wait_max_ns = 500000,
		.sleep_min_ns = 100000, .sleep_max_ns = 500000,
		.break_at = brk, .n_breaks = nbrk,
		.break_delay_ns = 4000000,
	};
	switch (a % 4) {
	case 0:			/* one run per period */
		break;
	case 1:			/* preempted */
		c->max_preempt = 3;
		break;
	case 2:			/* blocks inside every invocation */
		c->max_preempt = 1;
		c->max_blocks = 2;
		c->block_prob = 1.0;
		break;
	default:		/* sometimes blocks */
		c->max_preempt = 2;
		c->max_blocks = 1;
		c->block_prob = 0.3;
		break;
	}
}

/* Expected fragments per invocation of actor_cfg()'s kinds, to size the input. */
static double frags_per_inv(size_t a)
{
	static const double f[] = { 1.0, 2.5, 1.5 * 2.5, 2.0 * 1.3 };

	return f[a % 4];
}

int main(int argc, char **argv)
{
	unsigned long long actors = 1000, target = 10000000, seed = 1;
	struct invocations_opts opts = { 0 };
	struct invocations_ws *ws = NULL;
	struct invoc_fragment *frag = NULL;
	struct invocation *inv = NULL;
	struct period_break *brk_out = NULL;
	struct period_window *win = NULL;
	size_t *off = NULL, *n_inv_of = NULL, *brk = NULL;
	int64_t *t = NULL, *scratch = NULL;
	size_t total = 0, cap = 0, max_actor = 0, nbrk = 0, inserted = 0;
	size_t max_frags = 0, n_invocations = 0, n_breaks = 0, wrong = 0, periodic = 0;
	double t0, t_gen, t_all, t_inv = 0, t_per = 0;
	uint64_t s = seed;
	int err = 1;

	if ((argc > 1 && parse_u64(argv[1], &actors)) ||
	    (argc > 2 && parse_u64(argv[2], &target)) ||
	    (argc > 3 && parse_u64(argv[3], &seed)) ||
	    (argc > 4 && parse_double(argv[4], &opts.max_gap_frac)) || argc > 5 ||
	    actors == 0) {
		fprintf(stderr, "usage: %s [ACTORS [FRAGMENTS [SEED [GAP_FRAC]]]]\n", argv[0]);
		return 2;
	}

	/* Same number of fragments per actor, whatever its kind. */
	off = calloc(actors + 1, sizeof(*off));
	n_inv_of = calloc(actors, sizeof(*n_inv_of));
	if (!off || !n_inv_of)
		goto out;
	for (size_t a = 0; a < actors; a++) {
		struct synth_actor_cfg c;
		size_t n = (size_t)((double)target / (double)actors / frags_per_inv(a)) + 3;

		n_inv_of[a] = n;
		actor_cfg(a, n, NULL, 0, &c);
		cap += synth_actor_max_frags(&c);
		if (n > max_actor)
			max_actor = n;
	}
	/* 1 % of the invocations are late, at the same places for every actor. */
	brk = malloc(max_actor * sizeof(*brk));
	if (!brk)
		goto out;
	for (size_t k = 50; k < max_actor; k += 100)
		brk[nbrk++] = k;

	frag = malloc(cap * sizeof(*frag));
	if (!frag)
		goto out;
	t0 = now();
	s = seed * 0x9e3779b97f4a7c15ULL;

	for (size_t a = 0; a < actors; a++) {
		struct synth_actor_cfg c;
		size_t nb = 0;

		while (nb < nbrk && brk[nb] < n_inv_of[a])
			nb++;
		actor_cfg(a, n_inv_of[a], brk, nb, &c);
		inserted += nb;
		off[a] = total;
		total += synth_actor_gen(&c, &s, frag + total, NULL, NULL);
	}
	off[actors] = total;
	t_gen = now() - t0;

	for (size_t a = 0; a < actors; a++)
		if (off[a + 1] - off[a] > max_frags)
			max_frags = off[a + 1] - off[a];
	ws = invocations_ws__new();
	inv = malloc(max_frags * sizeof(*inv));
	t = malloc(max_frags * sizeof(*t));
	scratch = malloc(max_frags * sizeof(*scratch));
	brk_out = malloc(max_frags * sizeof(*brk_out));
	win = malloc((max_frags + 1) * sizeof(*win));
	if (!ws || !inv || !t || !scratch || !brk_out || !win)
		goto out;

	t0 = now();
	for (size_t a = 0; a < actors; a++) {
		const struct invoc_fragment *f = frag + off[a];
		size_t nf = off[a + 1] - off[a], m, nw;
		struct period_stats st;
		double t1 = now();

		if (invocations_build(f, nf, &opts, ws, inv, &m, NULL))
			goto out;
		double t2 = now();

		for (size_t k = 0; k < m; k++)
			t[k] = inv[k].start_ns;
		if (period_analyse(t, m, NULL, &st, brk_out, scratch) ||
		    period_split(t, m, &st, f[0].start_ns, f[nf - 1].end_ns, win, &nw))
			goto out;
		t_inv += t2 - t1;
		t_per += now() - t2;
		n_invocations += m;
		n_breaks += st.n_breaks;
		periodic += st.periodic;
		wrong += m != n_inv_of[a];
	}
	t_all = now() - t0;

	printf("actors             %llu (max_gap_frac %g)\n", actors, opts.max_gap_frac);
	printf("fragments          %zu (%.1f MB input)\n", total,
	       (double)total * sizeof(*frag) / 1e6);
	printf("invocations        %zu (%zu actors with a count != truth)\n",
	       n_invocations, wrong);
	printf("periodic actors    %zu, breaks %zu (%zu inserted)\n", periodic, n_breaks,
	       inserted);
	printf("generate           %.3f s\n", t_gen);
	printf("analyse            %.3f s (invocations %.3f s, period+split %.3f s)\n",
	       t_all, t_inv, t_per);
	printf("invocations/s      %.3g (actors x invocations per second)\n",
	       (double)n_invocations / t_all);
	printf("fragments/s        %.3g\n", (double)total / t_all);
	printf("ns per fragment    %.1f\n", t_all * 1e9 / (double)total);
	printf("peak RSS           %ld MB\n", peak_rss_kb() / 1024);
	err = 0;
out:
	if (err)
		fprintf(stderr, "bench_period: failed (out of memory or invalid input)\n");
	invocations_ws__free(ws);
	free(frag);
	free(inv);
	free(t);
	free(scratch);
	free(brk_out);
	free(win);
	free(off);
	free(n_inv_of);
	free(brk);
	return err;
}
