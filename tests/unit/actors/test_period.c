#include <errno.h>
#include <math.h>

#include "testutil.h"
#include "actors/invocations.h"
#include "actors/period.h"
#include "synth_actor.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* TV-4: SATM §4.2's 11 invocations. */
static const int64_t tv4[] = { 45, 75, 104, 134, 164, 352, 382, 413, 443, 538, 568 };

Test(period, tv4_stats_and_breaks)
{
	struct period_stats st;
	struct period_break br[N(tv4)];
	int64_t scratch[N(tv4)];

	cr_assert_eq(period_analyse(tv4, N(tv4), NULL, &st, br, scratch), 0);
	cr_expect_eq(st.n_invocations, 11);
	cr_expect_eq(st.n_intervals, 10);
	cr_expect(st.has_intervals);
	cr_expect_float_eq(st.period_ns, 30.0, 1e-12);
	cr_expect_eq(st.q1_ns, 30);
	cr_expect_eq(st.q3_ns, 31);
	cr_expect_float_eq(st.qcod, 1.0 / 61.0, 1e-12);
	cr_expect_float_eq(st.qcod, 0.016393, 1e-6);
	cr_expect_float_eq(st.fence_ns, 32.5, 1e-12);
	cr_expect(st.periodic);
	cr_assert_eq(st.n_breaks, 2);
	/* Interval #5 (188) and #9 (95), 1-based. */
	cr_expect(br[0].before == 4 && br[0].late == 5 && br[0].interval_ns == 188);
	cr_expect_float_eq(br[0].lateness_ns, 158.0, 1e-12);
	cr_expect(br[1].before == 8 && br[1].late == 9 && br[1].interval_ns == 95);
	cr_expect_float_eq(br[1].lateness_ns, 65.0, 1e-12);

	/* Without a breaks array or scratch: same numbers. */
	struct period_stats st2;

	cr_assert_eq(period_analyse(tv4, N(tv4), NULL, &st2, NULL, NULL), 0);
	cr_expect_eq(st2.n_breaks, 2);
	cr_expect_eq(st2.q3_ns, 31);
}

Test(period, tv4_split)
{
	static const struct { int64_t s, e; bool pos; } want[] = {
		{ 0, 45, false }, { 45, 75, false }, { 75, 104, false }, { 104, 134, false },
		{ 134, 164, false }, { 164, 352, true }, { 352, 382, false }, { 382, 413, false },
		{ 413, 443, false }, { 443, 538, true }, { 538, 568, false }, { 568, 600, false },
	};
	struct period_stats st;
	struct period_window w[N(tv4) + 1];
	size_t m, npos = 0, nneg = 0;

	cr_assert_eq(period_analyse(tv4, N(tv4), NULL, &st, NULL, NULL), 0);
	cr_assert_eq(period_split(tv4, N(tv4), &st, 0, 600, w, &m), 0);
	cr_assert_eq(m, N(want));
	for (size_t i = 0; i < m; i++) {
		cr_expect(w[i].start_ns == want[i].s && w[i].end_ns == want[i].e &&
			  w[i].positive == want[i].pos,
			  "window %zu: [%lld, %lld) %d", i, (long long)w[i].start_ns,
			  (long long)w[i].end_ns, w[i].positive);
		cr_expect_eq(w[i].end_closed, i == m - 1);
		cr_expect_eq(w[i].before, i == 0 ? SIZE_MAX : i - 1);
		npos += w[i].positive;
		nneg += !w[i].positive;
	}
	/* D_pos = {[t5,t6], [t9,t10]}, D_neg has 10 subtraces. */
	cr_expect_eq(npos, 2);
	cr_expect_eq(nneg, 10);

	/* Trace start at the first event instead of 0. */
	cr_assert_eq(period_split(tv4, N(tv4), &st, 45, 568, w, &m), 0);
	cr_expect(w[0].start_ns == 45 && w[0].end_ns == 45);
	cr_expect(w[m - 1].start_ns == 568 && w[m - 1].end_ns == 568 && w[m - 1].end_closed);
}

Test(period, edge_cases_few_invocations)
{
	struct period_stats st;
	struct period_break br[2];
	struct period_window w[3];
	static const int64_t one[] = { 100 };
	static const int64_t two[] = { 100, 130 };
	size_t m = 99;

	/* N = 0: nothing. */
	cr_assert_eq(period_analyse(NULL, 0, NULL, &st, NULL, NULL), 0);
	cr_expect(!st.has_intervals && !st.periodic && st.n_invocations == 0);
	cr_assert_eq(period_split(NULL, 0, &st, 0, 10, NULL, &m), 0);
	cr_expect_eq(m, 0);

	/* N = 1: no interval, no period; the split still has its two windows. */
	cr_assert_eq(period_analyse(one, 1, NULL, &st, br, NULL), 0);
	cr_expect(!st.has_intervals && !st.periodic && st.n_breaks == 0);
	cr_expect_eq(st.period_ns, 0.0);
	cr_assert_eq(period_split(one, 1, &st, 0, 200, w, &m), 0);
	cr_assert_eq(m, 2);
	cr_expect(w[0].start_ns == 0 && w[0].end_ns == 100 && !w[0].positive);
	cr_expect(w[1].start_ns == 100 && w[1].end_ns == 200 && w[1].end_closed);

	/* N = 2: one interval, QCoD 0, periodic, never a break (fence = Q3). */
	cr_assert_eq(period_analyse(two, 2, NULL, &st, br, NULL), 0);
	cr_expect(st.has_intervals && st.n_intervals == 1 && st.periodic);
	cr_expect_float_eq(st.period_ns, 30.0, 0);
	cr_expect(st.q1_ns == 30 && st.q3_ns == 30);
	cr_expect_eq(st.qcod, 0.0);
	cr_expect_float_eq(st.fence_ns, 30.0, 0);
	cr_expect_eq(st.n_breaks, 0);
	cr_assert_eq(period_split(two, 2, &st, 0, 200, w, &m), 0);
	cr_assert_eq(m, 3);
	cr_expect(!w[0].positive && !w[1].positive && !w[2].positive);
}

Test(period, threshold_is_strict_and_settable)
{
	/* Intervals 9, 11, 9, 11: Q1 9, Q3 11, QCoD exactly 0.1. */
	static const int64_t t[] = { 0, 9, 20, 29, 40 };
	struct period_opts o = { .qcod_threshold = 0.01 };
	struct period_stats st;

	cr_assert_eq(period_analyse(t, N(t), NULL, &st, NULL, NULL), 0);
	cr_expect_float_eq(st.qcod, 0.1, 1e-15);
	cr_expect_not(st.periodic);
	cr_expect_float_eq(st.period_ns, 10.0, 0);	/* mean of the middle pair */
	o.qcod_threshold = 0.1000001;
	cr_assert_eq(period_analyse(t, N(t), &o, &st, NULL, NULL), 0);
	cr_expect(st.periodic);

	o.qcod_threshold = 0.01;
	cr_assert_eq(period_analyse(tv4, N(tv4), &o, &st, NULL, NULL), 0);
	cr_expect_not(st.periodic);
	/* Breaks are still reported: the caller decides via st.periodic. */
	cr_expect_eq(st.n_breaks, 2);
}

Test(period, errors)
{
	static const int64_t bad[] = { 10, 5, 20 };
	struct period_stats st;
	struct period_window w[4];
	struct period_opts o = { .qcod_threshold = NAN };
	size_t m;

	cr_expect_eq(period_analyse(bad, 3, NULL, &st, NULL, NULL), -EINVAL);
	cr_expect_eq(period_analyse(tv4, 3, NULL, NULL, NULL, NULL), -EINVAL);
	cr_expect_eq(period_analyse(tv4, 3, &o, &st, NULL, NULL), -EINVAL);
	cr_assert_eq(period_analyse(tv4, 3, NULL, &st, NULL, NULL), 0);
	cr_expect_eq(period_split(tv4, 3, &st, 50, 200, w, &m), -EINVAL);	/* start > t1 */
	cr_expect_eq(period_split(tv4, 3, &st, 0, 100, w, &m), -EINVAL);	/* end < tN */
	cr_expect_eq(period_split(tv4, 2, &st, 0, 200, w, &m), -EINVAL);	/* other t */
	cr_expect_eq(period_split(bad, 3, &st, 0, 200, w, &m), -EINVAL);
	cr_expect_eq(period_split(tv4, 3, &st, 0, 200, w, NULL), -EINVAL);
}

/* ---- Fragments -> invocations -> period, on synthetic ns-scale actors. ---- */

static const size_t breaks_at[] = { 37, 90, 91, 150, 233, 280 };

static struct synth_actor_cfg base_cfg(void)
{
	return (struct synth_actor_cfg){
		.t0_ns = 5000000000LL,
		.period_ns = 10000000,	/* 10 ms */
		.n_inv = 300,
		.jitter = 0.02,
		.run_min_ns = 1000000, .run_max_ns = 3000000,
		.preempt_wait_min_ns = 20000, .preempt_wait_max_ns = 500000,
		.sleep_min_ns = 100000, .sleep_max_ns = 500000,
		.break_at = breaks_at, .n_breaks = N(breaks_at),
		.break_delay_ns = 4000000,
	};
}

struct pipeline {
	size_t n_inv;
	struct period_stats st;
	struct period_break br[2048];
	size_t n_pos;
};

static void run_pipeline(const struct synth_actor_cfg *c, unsigned long long seed,
			 const struct invocations_opts *o, struct pipeline *p)
{
	size_t cap = synth_actor_max_frags(c);
	struct invoc_fragment *f = malloc(cap * sizeof(*f));
	struct invocation *inv = malloc(cap * sizeof(*inv));
	int64_t *t = malloc(cap * sizeof(*t));
	struct period_window *w = malloc((cap + 1) * sizeof(*w));
	uint64_t s = seed * 0x9e3779b97f4a7c15ULL;
	size_t nf, nw;

	cr_assert(f && inv && t && w && c->n_inv <= N(p->br));
	nf = synth_actor_gen(c, &s, f, NULL, NULL);
	cr_assert_eq(invocations_build(f, nf, o, NULL, inv, &p->n_inv, NULL), 0);
	for (size_t k = 0; k < p->n_inv; k++)
		t[k] = inv[k].start_ns;
	cr_assert_eq(period_analyse(t, p->n_inv, NULL, &p->st, p->br, NULL), 0);
	cr_assert_eq(period_split(t, p->n_inv, &p->st, c->t0_ns - 1000000,
				  f[nf - 1].end_ns, w, &nw), 0);
	cr_assert_eq(nw, p->n_inv + 1);
	p->n_pos = 0;
	for (size_t i = 0; i < nw; i++) {
		if (!w[i].positive)
			continue;
		/* Each D_pos window is exactly one reported break. */
		cr_assert_lt(p->n_pos, p->st.n_breaks);
		cr_assert_eq(w[i].before, p->br[p->n_pos].before);
		cr_assert_eq(w[i].end_ns - w[i].start_ns, p->br[p->n_pos].interval_ns);
		p->n_pos++;
	}
	cr_assert_eq(p->n_pos, p->st.n_breaks);
	free(f);
	free(inv);
	free(t);
	free(w);
}

static void expect_breaks_exact(const char *name, const struct synth_actor_cfg *c,
				const struct invocations_opts *o, unsigned long long seeds)
{
	static struct pipeline p;

	for (unsigned long long seed = 1; seed <= seeds; seed++) {
		run_pipeline(c, seed, o, &p);
		cr_assert_eq(p.n_inv, c->n_inv, "%s seed %llu: %zu invocations", name, seed,
			     p.n_inv);
		cr_assert(p.st.periodic, "%s seed %llu: qcod %g", name, seed, p.st.qcod);
		cr_assert(fabs(p.st.period_ns - (double)c->period_ns) < 0.01 * (double)c->period_ns,
			  "%s seed %llu: period %g", name, seed, p.st.period_ns);
		cr_assert_eq(p.st.n_breaks, c->n_breaks, "%s seed %llu: %zu breaks", name, seed,
			     p.st.n_breaks);
		for (size_t b = 0; b < c->n_breaks; b++) {
			cr_assert_eq(p.br[b].late, c->break_at[b], "%s seed %llu", name, seed);
			cr_assert_eq(p.br[b].before, c->break_at[b] - 1);
			/* Lateness = delay +- the release jitter of two invocations. */
			cr_assert(fabs(p.br[b].lateness_ns - (double)c->break_delay_ns) <=
				  0.05 * (double)c->period_ns,
				  "%s seed %llu: lateness %g", name, seed, p.br[b].lateness_ns);
		}
	}
}

Test(period, pipeline_preempted_invocations_with_breaks)
{
	struct synth_actor_cfg c = base_cfg();

	c.max_preempt = 4;
	expect_breaks_exact("preempt", &c, NULL, 20);
}

Test(period, pipeline_blocking_invocations_with_breaks)
{
	struct synth_actor_cfg c = base_cfg();

	c.max_preempt = 2;
	c.max_blocks = 2;
	c.block_prob = 1.0;
	expect_breaks_exact("block-all", &c, NULL, 20);
	c.block_prob = 0.5;
	expect_breaks_exact("block-half", &c, NULL, 20);
	/* Small breaks (1 ms, 10 % of the period) are found too. */
	c.block_prob = 0.2;
	c.break_delay_ns = 1000000;
	expect_breaks_exact("block-20%-1ms", &c, NULL, 20);
}

Test(period, pipeline_plain_with_breaks)
{
	struct synth_actor_cfg c = base_cfg();

	expect_breaks_exact("plain", &c, NULL, 20);
}

/* Jitter alone never crosses the fence: no false break in 20 x 300 invocations. */
Test(period, pipeline_no_breaks_no_false_positives)
{
	struct synth_actor_cfg c = base_cfg();
	struct invocations_opts gap = { .max_gap_frac = 0.5 };

	c.n_breaks = 0;
	c.max_preempt = 2;
	c.max_blocks = 2;
	c.block_prob = 0.7;
	expect_breaks_exact("blocking-no-break", &c, NULL, 20);
	/*
	 * One run per period needs the gap rule: with the default, the edge
	 * merge of invocation 2 into 1 (see test_invocations.c) shows up as a
	 * 2-period "break" at the start.
	 */
	c.max_blocks = 0;
	expect_breaks_exact("plain-no-break", &c, &gap, 20);
}

/* Exponential gaps (mean 10 ms): reported as not periodic. */
Test(period, pipeline_random_actor_is_not_periodic)
{
	static struct pipeline p;
	struct invoc_fragment *f = malloc(2000 * sizeof(*f));
	struct invocation *inv = malloc(2000 * sizeof(*inv));
	int64_t *t = malloc(2000 * sizeof(*t));

	cr_assert(f && inv && t);
	for (unsigned long long seed = 1; seed <= 20; seed++) {
		uint64_t s = seed * 0x9e3779b97f4a7c15ULL;
		int64_t cur = 1000000000LL;
		size_t nf = 0;

		for (size_t k = 0; k < 500; k++) {
			double u = synth_unit(&s);
			int64_t run = synth_range(&s, 200000, 1000000);
			/* 1 or 2 preempted pieces: step 1 merges them exactly. */
			bool split = synth_unit(&s) < 0.3;

			f[nf++] = (struct invoc_fragment){ cur, cur + run / 2, split };
			if (split) {
				cur += run / 2 + 100000;
				f[nf++] = (struct invoc_fragment){ cur, cur + run / 2, false };
			}
			cur += run + (int64_t)(-log(1.0 - u) * 10000000.0);
		}
		cr_assert_eq(invocations_build(f, nf, NULL, NULL, inv, &p.n_inv, NULL), 0);
		for (size_t k = 0; k < p.n_inv; k++)
			t[k] = inv[k].start_ns;
		cr_assert_eq(period_analyse(t, p.n_inv, NULL, &p.st, NULL, NULL), 0);
		cr_assert(p.st.has_intervals && !p.st.periodic,
			  "seed %llu: %zu invocations, qcod %g", seed, p.n_inv, p.st.qcod);
		cr_assert_gt(p.st.qcod, 0.3, "seed %llu: qcod %g", seed, p.st.qcod);
	}
	free(f);
	free(inv);
	free(t);
}

/* Breaks every 20 invocations: exact with the gap rule (test_invocations.c, limitation 2). */
Test(period, pipeline_recurring_breaks_with_gap_rule)
{
	static size_t every20[15];
	struct synth_actor_cfg c = base_cfg();
	struct invocations_opts gap = { .max_gap_frac = 0.5 };

	for (size_t i = 0; i < N(every20); i++)
		every20[i] = 10 + 20 * i;
	c.break_at = every20;
	c.n_breaks = N(every20);
	expect_breaks_exact("recurring-plain", &c, &gap, 20);
	c.max_preempt = 3;
	expect_breaks_exact("recurring-preempt", &c, &gap, 20);
	c.max_blocks = 2;
	c.block_prob = 0.5;
	expect_breaks_exact("recurring-block", &c, &gap, 20);
}
