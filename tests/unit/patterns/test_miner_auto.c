// SPDX-License-Identifier: MIT
/* miner_auto: the strict-to-relaxed threshold walk and the ranking. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "patterns/miner_auto.h"
#include "testutil.h"

#define MAXSEQ 16
#define MAXLEN 64

struct set {
	uint32_t n;
	uint32_t buf[MAXSEQ][MAXLEN];
	struct miner_seq s[MAXSEQ];
};

static void set_add(struct set *st, const char *str, int times)
{
	for (int t = 0; t < times; t++) {
		uint32_t i = st->n++, len = (uint32_t)strlen(str);

		cr_assert_leq(st->n, MAXSEQ);
		for (uint32_t j = 0; j < len; j++)
			st->buf[i][j] = (unsigned char)str[j];
		st->s[i].sym = st->buf[i];
		st->s[i].len = len;
	}
}

static void pattern_str(const struct miner_auto_pattern *p, char *out)
{
	for (uint32_t k = 0; k < p->len; k++)
		out[k] = (char)p->sym[k];
	out[p->len] = '\0';
}

/* The SATM example finds BX at the strict corner, in the first run. */
Test(miner_auto, tv5_strict_corner)
{
	static const char *const pos[] = { "ABXCD", "ABXCED" };
	static const char *const neg[] = { "AXBCD", "AXBECD", "ABCED", "AXBD" };
	struct set p = { 0 }, q = { 0 };
	struct miner_auto_opts o;
	struct miner_auto_result *r;
	struct miner_data *d;
	char s[16];

	for (int i = 0; i < 2; i++)
		set_add(&p, pos[i], 1);
	for (int i = 0; i < 4; i++)
		set_add(&q, neg[i], 1);
	cr_assert_eq(miner_data__new(p.s, p.n, q.s, q.n, NULL, &d), 0);
	miner_auto_opts_default(&o);
	o.base.gap_max = 1;
	cr_assert_eq(miner_auto_run(d, &o, &r), 0);
	cr_assert(r->found);
	cr_assert_eq(r->round, 0);
	cr_assert_eq(r->nruns, 1);
	cr_assert_eq(r->runs[0].delta_ppm, PPM_PCT(100));
	cr_assert_eq(r->runs[0].alpha_ppm, 0);
	cr_assert_eq(r->npatterns, 1);
	pattern_str(&r->patterns[0], s);
	cr_assert_str_eq(s, "BX");
	cr_assert_eq(r->patterns[0].pos_count, 2);
	cr_assert_eq(r->patterns[0].neg_count, 0);
	cr_assert_float_eq(r->patterns[0].score, 1.0, 1e-12);
	cr_assert_eq(r->bounds, 0u);
	miner_auto_result__free(r);
	miner_data__free(d);
}

/*
 * A target ABC in 9 of 10 broken subtraces and 1 of 10 good ones, g = 0; its
 * subpatterns AB and BC are common in D_neg. With 10 sequences per side,
 * delta >= 91 % means all 10 and alpha < 10 % means none, so ABC can only
 * appear at (90 %, 10 %): grid indices (5, 7), round 12. Every point before
 * is strict in one of the two and finds nothing.
 */
static struct miner_data *target_data(void)
{
	struct set p = { 0 }, q = { 0 };
	struct miner_data *d;

	set_add(&p, "ABC", 9);
	set_add(&p, "ACB", 1);
	set_add(&q, "ABC", 1);
	set_add(&q, "ABD", 4);
	set_add(&q, "DBC", 5);
	cr_assert_eq(miner_data__new(p.s, p.n, q.s, q.n, NULL, &d), 0);
	return d;
}

Test(miner_auto, target_needs_both_relaxed)
{
	struct miner_data *d = target_data();
	struct miner_auto_opts o;
	struct miner_auto_result *r;
	const struct miner_auto_run *last;
	char s[16];

	miner_auto_opts_default(&o);
	o.base.gap_max = 0;
	cr_assert_eq(miner_auto_run(d, &o, &r), 0);
	cr_assert(r->found);
	cr_assert_eq(r->round, 12);
	cr_assert_eq(r->npatterns, 1);
	pattern_str(&r->patterns[0], s);
	cr_assert_str_eq(s, "ABC");
	cr_assert_eq(r->patterns[0].pos_count, 9);
	cr_assert_eq(r->patterns[0].neg_count, 1);
	cr_assert_eq(r->patterns[0].delta_ppm, PPM_PCT(90));
	cr_assert_eq(r->patterns[0].alpha_ppm, PPM_PCT(10));
	cr_assert_eq(r->patterns[0].nruns, 1);
	cr_assert_float_eq(r->patterns[0].score, 0.8, 1e-12);
	/* Only distinct (min_pos, max_neg) pairs ran: (10,0) (9,0) (10,1)
	 * (8,0) (7,0) (10,2) (6,0) in rounds 0..11, then round 12. */
	for (uint32_t i = 0; i < r->nruns; i++)
		for (uint32_t k = 0; k < i; k++)
			cr_assert(r->runs[i].min_pos != r->runs[k].min_pos ||
				  r->runs[i].max_neg != r->runs[k].max_neg);
	for (uint32_t i = 0; i < r->nruns; i++)
		if (r->runs[i].round < 12)
			cr_assert_eq(r->runs[i].npatterns, 0);
	last = &r->runs[r->patterns[0].run];
	cr_assert_eq(last->round, 12);
	cr_assert_eq(last->min_pos, 9);
	cr_assert_eq(last->max_neg, 1);
	miner_auto_result__free(r);

	/* Fixing delta at 100 % leaves only alpha to relax: nothing at (10,0),
	 * nothing at the ceiling (10,2) either, so nothing in between: two runs. */
	miner_auto_opts_default(&o);
	o.base.gap_max = 0;
	o.fix_delta = true;
	o.base.delta_ppm = PPM_PCT(100);
	cr_assert_eq(miner_auto_run(d, &o, &r), 0);
	cr_assert(!r->found);
	cr_assert_eq(r->npatterns, 0);
	cr_assert_eq(r->nruns, 2);
	cr_assert_eq(r->runs[1].max_neg, 2);
	cr_assert_eq(r->runs[1].alpha_ppm, PPM_PCT(25));
	cr_assert_eq(r->round, r->runs[1].round);
	miner_auto_result__free(r);

	/* Fixing both is a single run. */
	o.fix_alpha = true;
	o.base.delta_ppm = PPM_PCT(90);
	o.base.alpha_ppm = PPM_PCT(10);
	cr_assert_eq(miner_auto_run(d, &o, &r), 0);
	cr_assert(r->found);
	cr_assert_eq(r->nruns, 1);
	cr_assert_eq(r->npatterns, 1);
	miner_auto_result__free(r);

	/* A floor of 95 % never reaches 9 of 10. */
	miner_auto_opts_default(&o);
	o.base.gap_max = 0;
	o.delta_floor_ppm = PPM_PCT(95);
	cr_assert_eq(miner_auto_run(d, &o, &r), 0);
	cr_assert(!r->found);
	for (uint32_t i = 0; i < r->nruns; i++) {
		cr_assert_geq(r->runs[i].delta_ppm, PPM_PCT(95));
		cr_assert_leq(r->runs[i].alpha_ppm, PPM_PCT(25));
	}
	miner_auto_result__free(r);
	miner_data__free(d);
}

/* Several patterns in the final round: ranked by supp_pos - supp_neg, then
 * shorter, then higher pos count. */
Test(miner_auto, ranking)
{
	struct set p = { 0 }, q = { 0 };
	struct miner_data *d;
	struct miner_auto_opts o;
	struct miner_auto_result *r;
	char s[4][16];

	/* XY: pos 4/4 neg 1/4 -> 0.75. Z: pos 2/4 neg 0 -> 0.5.
	 * W: pos 3/4 neg 1/4 -> 0.5, same score as Z but... both length 1:
	 * W first by higher pos count. */
	set_add(&p, "XYZW", 2);
	set_add(&p, "XYW", 1);
	set_add(&p, "XY", 1);
	set_add(&q, "XYW", 1);
	set_add(&q, "YX", 3);
	cr_assert_eq(miner_data__new(p.s, p.n, q.s, q.n, NULL, &d), 0);
	miner_auto_opts_default(&o);
	o.base.gap_max = 0;
	o.fix_delta = true;
	o.base.delta_ppm = PPM_PCT(50);
	o.fix_alpha = true;
	o.base.alpha_ppm = PPM_PCT(25);
	cr_assert_eq(miner_auto_run(d, &o, &r), 0);
	cr_assert_eq(r->npatterns, 3);
	for (int i = 0; i < 3; i++)
		pattern_str(&r->patterns[i], s[i]);
	cr_assert_str_eq(s[0], "XY");
	cr_assert_str_eq(s[1], "W");
	cr_assert_str_eq(s[2], "Z");
	cr_assert_float_eq(r->patterns[0].score, 0.75, 1e-12);
	cr_assert_float_eq(r->patterns[1].score, 0.5, 1e-12);
	cr_assert_float_eq(r->patterns[2].score, 0.5, 1e-12);
	miner_auto_result__free(r);
	miner_data__free(d);
}

Test(miner_auto, total_time_budget)
{
	static uint32_t buf[300];
	unsigned long long seed = 42;
	struct miner_seq pos, neg;
	struct miner_data *d;
	struct miner_auto_opts o;
	struct miner_auto_result *r;

	for (uint32_t i = 0; i < 300; i++)
		buf[i] = (uint32_t)tu_rand_range(&seed, 0, 2);
	pos.sym = buf;
	pos.len = 300;
	neg = pos;
	cr_assert_eq(miner_data__new(&pos, 1, &neg, 1, NULL, &d), 0);
	miner_auto_opts_default(&o);
	o.base.gap_max = 3;
	o.base.max_len = 0;
	o.base.max_nodes = 0;
	o.total_time_budget_ns = 30 * 1000 * 1000;
	cr_assert_eq(miner_auto_run(d, &o, &r), 0);
	cr_assert(!r->found);
	cr_assert(r->bounds & MINER_BOUND_TIME);
	cr_assert_lt(r->elapsed_ns, 5000LL * 1000 * 1000);
	miner_auto_result__free(r);
	miner_data__free(d);
}

Test(miner_auto, invalid)
{
	struct miner_data *d = target_data();
	struct miner_auto_opts o;
	struct miner_auto_result *r = (void *)1;

	miner_auto_opts_default(&o);
	o.delta_floor_ppm = PPM_ONE + 1;
	cr_assert_eq(miner_auto_run(d, &o, &r), -EINVAL);
	cr_assert_null(r);
	miner_auto_opts_default(&o);
	o.base.gap_min = 2;
	o.base.gap_max = 1;
	cr_assert_eq(miner_auto_run(d, &o, &r), -EINVAL);
	miner_data__free(d);
}

/* ------------------------------------------------------ property test */

static bool same_pattern(const struct miner_pattern *a, const struct miner_auto_pattern *b)
{
	return a->len == b->len && !memcmp(a->sym, b->sym, a->len * sizeof(uint32_t));
}

/* For random small instances: every run reproduces the plain miner at its
 * thresholds, only the last round reports patterns, the merged list is exactly
 * the union of that round's reports with the first reporting run, and the
 * order follows the documented ranking (checked with exact cross-products). */
Test(miner_auto, random_consistency, .timeout = 300)
{
	unsigned long long seed = 0x5151;
	static const uint32_t grid_delta[] = { 100, 98, 96, 94, 92, 90, 85, 80, 75, 70, 65, 60, 55, 50 };
	static const uint32_t grid_alpha[] = { 0, 1, 2, 3, 4, 6, 8, 10, 12, 15, 20, 25 };
	int found = 0, later = 0, multi = 0, by_corner = 0, final_hits = 0;

	for (int it = 0; it < 400; it++) {
		uint32_t n[2], len, nsym = (uint32_t)tu_rand_range(&seed, 2, 4);
		static uint32_t s[2][12][10];
		struct miner_seq seq[2][12];
		struct miner_data *d;
		struct miner_auto_opts o;
		struct miner_auto_result *r;
		uint32_t last_round, nfinal = 0;

		for (int side = 0; side < 2; side++) {
			n[side] = (uint32_t)tu_rand_range(&seed, 1, 12);
			for (uint32_t i = 0; i < n[side]; i++) {
				len = (uint32_t)tu_rand_range(&seed, 1, 10);
				for (uint32_t j = 0; j < len; j++)
					s[side][i][j] = (uint32_t)tu_rand_range(&seed, 0, nsym - 1);
				seq[side][i].sym = s[side][i];
				seq[side][i].len = len;
			}
		}
		cr_assert_eq(miner_data__new(seq[0], n[0], seq[1], n[1], NULL, &d), 0);
		miner_auto_opts_default(&o);
		o.base.gap_max = (uint32_t)tu_rand_range(&seed, 0, 2);
		o.base.max_len = 0;
		cr_assert_eq(miner_auto_run(d, &o, &r), 0);
		cr_assert_gt(r->nruns, 0);
		last_round = r->runs[r->nruns - 1].round;
		cr_assert_eq(r->round, last_round);
		cr_assert_eq(r->found, r->npatterns > 0, "iteration %d", it);
		for (uint32_t k = 0; k < r->nruns; k++) {
			const struct miner_auto_run *ru = &r->runs[k];
			struct miner_opts mo = o.base;
			struct miner_result *mr;

			if (k) {
				cr_assert_geq(ru->round, r->runs[k - 1].round);
				if (ru->round == r->runs[k - 1].round)
					cr_assert_lt(ru->delta_ppm, r->runs[k - 1].delta_ppm);
			}
			cr_assert_geq(ru->delta_ppm, PPM_PCT(50));
			cr_assert_leq(ru->alpha_ppm, PPM_PCT(25));
			mo.delta_ppm = ru->delta_ppm;
			mo.alpha_ppm = ru->alpha_ppm;
			cr_assert_eq(miner_data__mine(d, &mo, &mr), 0);
			cr_assert_eq(mr->npatterns, ru->npatterns, "iteration %d run %u", it, k);
			cr_assert_eq(mr->min_pos, ru->min_pos);
			cr_assert_eq(mr->max_neg, ru->max_neg);
			if (ru->round < last_round)
				cr_assert_eq(ru->npatterns, 0);
			/* Each pattern of this run is in the merged list, first
			 * reported by this run or an earlier one. */
			for (uint32_t i = 0; i < mr->npatterns; i++) {
				bool in = false;

				for (uint32_t q = 0; q < r->npatterns && !in; q++) {
					if (!same_pattern(&mr->patterns[i], &r->patterns[q]))
						continue;
					in = true;
					cr_assert_leq(r->patterns[q].run, k);
					if (r->patterns[q].run == k) {
						nfinal++;
						cr_assert_eq(r->patterns[q].delta_ppm, ru->delta_ppm);
						cr_assert_eq(r->patterns[q].alpha_ppm, ru->alpha_ppm);
					}
					cr_assert_eq(r->patterns[q].pos_count, mr->patterns[i].pos_count);
					cr_assert_eq(r->patterns[q].neg_count, mr->patterns[i].neg_count);
				}
				cr_assert(in, "iteration %d: run %u pattern %u missing", it, k, i);
			}
			miner_result__free(mr);
		}
		/* Every merged pattern was first reported by exactly its run. */
		cr_assert_eq(nfinal, r->npatterns);
		for (uint32_t q = 1; q < r->npatterns; q++) {
			const struct miner_auto_pattern *a = &r->patterns[q - 1], *b = &r->patterns[q];
			int64_t sa = (int64_t)a->pos_count * n[1] - (int64_t)a->neg_count * n[0];
			int64_t sb = (int64_t)b->pos_count * n[1] - (int64_t)b->neg_count * n[0];

			cr_assert_geq(sa, sb, "iteration %d: rank %u", it, q);
			if (sa == sb) {
				cr_assert_leq(a->len, b->len);
				if (a->len == b->len)
					cr_assert_geq(a->pos_count, b->pos_count);
			}
		}
		/* The walk's answer by brute force over the whole default grid: no
		 * point of an earlier round finds anything, one of the final round
		 * does (none anywhere when nothing was found, which the walk may
		 * conclude from the corner alone). */
		for (size_t i = 0; i < sizeof(grid_delta) / sizeof(grid_delta[0]); i++) {
			for (size_t j = 0; j < sizeof(grid_alpha) / sizeof(grid_alpha[0]); j++) {
				struct miner_opts mo = o.base;
				struct miner_result *mr;
				uint32_t rr = (uint32_t)(i + j);

				if (r->found && rr > r->round)
					continue;
				mo.delta_ppm = PPM_PCT(grid_delta[i]);
				mo.alpha_ppm = PPM_PCT(grid_alpha[j]);
				cr_assert_eq(miner_data__mine(d, &mo, &mr), 0);
				if (!r->found || rr < r->round)
					cr_assert_eq(mr->npatterns, 0, "iteration %d: (%u%%, %u%%) finds %u", it,
						     grid_delta[i], grid_alpha[j], mr->npatterns);
				else
					final_hits += mr->npatterns > 0;
				miner_result__free(mr);
			}
		}
		cr_assert(!r->found || final_hits, "iteration %d: nothing in the final round", it);
		final_hits = 0;
		by_corner += !r->found && r->nruns == 2;
		found += r->found;
		later += r->found && r->round > 0;
		multi += r->npatterns > 1;
		miner_auto_result__free(r);
		miner_data__free(d);
	}
	fprintf(stderr, "400 instances: %d found, %d after round 0, %d with several patterns, %d ended by the corner\n",
		found, later, multi, by_corner);
	cr_assert_gt(by_corner, 20);
	cr_assert_gt(found, 200);
	cr_assert_gt(later, 50);
	cr_assert_gt(multi, 50);
}
