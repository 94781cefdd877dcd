// SPDX-License-Identifier: MIT
/*
 * Chance counts by the windows' lengths (chance.h): against ConSGapMiner's
 * plain thresholds when the windows are of one length, against brute force
 * and bisection on random lengths, and the model against a simulated
 * periodic timer.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "patterns/chance.h"
#include "patterns/miner.h"
#include "testutil.h"

#define MAXW 400

static const uint32_t alpha_pct[] = { 0, 1, 2, 3, 4, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 100 };

/* sum_j min(1, r l_j) */
static double sat_sum(const int64_t *l, uint32_t n, double r)
{
	double f = 0;

	for (uint32_t j = 0; j < n; j++)
		f += isinf(r) ? (l[j] > 0) : fmin(1, r * (double)l[j]);
	return f;
}

/* The chance count written out: the rate by bisection, then the sum over D_pos. */
static double brute_expected(const int64_t *pos, uint32_t npos, const int64_t *neg, uint32_t nneg, uint32_t c)
{
	double lo = 0, hi = 1, plain;

	if (!c || !nneg)
		return 0;
	plain = (double)c * npos / nneg;
	if (sat_sum(neg, nneg, INFINITY) == 0)
		return plain;	/* no length: nothing known of rates */
	if (c >= nneg)
		hi = INFINITY;
	else
		for (int it = 0; it < 120; it++) {
			double mid = (lo + hi) / 2;

			if (sat_sum(neg, nneg, mid) < c)
				lo = mid;
			else
				hi = mid;
		}
	return fmax(plain, sat_sum(pos, npos, hi));
}

/* Random lengths: mostly around a period, some far longer, some zero. */
static void random_lengths(int64_t *l, uint32_t n, unsigned long long *seed, int64_t period)
{
	for (uint32_t i = 0; i < n; i++) {
		switch (tu_rand_range(seed, 0, 9)) {
		case 0:
			l[i] = 0;
			break;
		case 1:
			l[i] = period * tu_rand_range(seed, 5, 200);
			break;
		default:
			l[i] = period / 2 + tu_rand_range(seed, 0, period);
		}
	}
}

Test(chance, one_length_is_consgapminer)
{
	unsigned long long seed = 3;

	for (int it = 0; it < 300; it++) {
		uint32_t npos = (uint32_t)tu_rand_range(&seed, 1, 60), nneg = (uint32_t)tu_rand_range(&seed, 1, 400);
		int64_t len = tu_rand_range(&seed, 1, 1000000000), pos[60], neg[400];
		struct chance c;

		for (uint32_t i = 0; i < npos; i++)
			pos[i] = len;
		for (uint32_t j = 0; j < nneg; j++)
			neg[j] = len;
		cr_assert_eq(chance__init(&c, pos, npos, neg, nneg), 0);
		for (size_t a = 0; a < sizeof(alpha_pct) / sizeof(alpha_pct[0]); a++)
			cr_assert_eq(chance__max_neg(&c, PPM_PCT(alpha_pct[a])),
				     miner_max_neg(PPM_PCT(alpha_pct[a]), nneg), "npos %u nneg %u alpha %u %%", npos,
				     nneg, alpha_pct[a]);
		for (uint32_t k = 0; k <= nneg; k++)
			cr_assert_float_eq(chance__expected(&c, k), (double)k * npos / nneg, 1e-9 * npos);
		chance__free(&c);
	}
}

Test(chance, rate_solves_the_kept_windows)
{
	unsigned long long seed = 11;
	int64_t neg[MAXW], pos[8] = { 1 };

	for (int it = 0; it < 300; it++) {
		uint32_t nneg = (uint32_t)tu_rand_range(&seed, 1, MAXW);
		struct chance c;

		random_lengths(neg, nneg, &seed, 10000000);
		cr_assert_eq(chance__init(&c, pos, 1, neg, nneg), 0);
		if (!c.timed) {	/* every kept window of no length: nothing known */
			cr_assert_eq(chance__rate(&c, 1), 0);
			chance__free(&c);
			continue;
		}
		for (uint32_t k = 0; k < nneg; k++) {
			double r = chance__rate(&c, k);

			if (sat_sum(neg, nneg, INFINITY) < k) {	/* more than the windows of some length */
				cr_assert(isinf(r), "%u of %u", k, nneg);
				continue;
			}
			cr_assert(isfinite(r) && r >= 0);
			cr_assert_float_eq(sat_sum(neg, nneg, r), (double)k, 1e-9 * (k + 1), "%u of %u: %.12g", k,
					   nneg, sat_sum(neg, nneg, r));
		}
		cr_assert(isinf(chance__rate(&c, nneg)));
		chance__free(&c);
	}
}

Test(chance, expected_and_max_neg_against_brute_force)
{
	unsigned long long seed = 17;
	int64_t pos[MAXW], neg[MAXW];

	for (int it = 0; it < 200; it++) {
		uint32_t npos = (uint32_t)tu_rand_range(&seed, 1, 50), nneg = (uint32_t)tu_rand_range(&seed, 0, 300);
		struct chance c;

		random_lengths(pos, npos, &seed, 30000000);
		random_lengths(neg, nneg, &seed, 10000000);
		static double want_of[MAXW + 1];

		cr_assert_eq(chance__init(&c, pos, npos, neg, nneg), 0);
		for (uint32_t k = 0; k <= nneg; k++) {
			double want = want_of[k] = brute_expected(pos, npos, neg, nneg, k);

			cr_assert_float_eq(chance__expected(&c, k), want, 1e-7 * (want + 1), "%u of %u", k, nneg);
			if (nneg)
				cr_assert_geq(chance__expected(&c, k) + 1e-9, (double)k * npos / nneg);
		}
		for (size_t a = 0; a < sizeof(alpha_pct) / sizeof(alpha_pct[0]); a++) {
			uint32_t ppm = PPM_PCT(alpha_pct[a]), want = 0;

			/* the largest count within alpha, scanning every count */
			for (uint32_t k = 0; k <= miner_max_neg(ppm, nneg); k++)
				if (want_of[k] <= alpha_pct[a] / 100.0 * npos * (1 + 1e-9))
					want = k;
			cr_assert_eq(chance__max_neg(&c, ppm), want, "alpha %u %%, nneg %u", alpha_pct[a], nneg);
			cr_assert_leq(want, miner_max_neg(ppm, nneg));
		}
		chance__free(&c);
	}
}

/* prod_k min(1, rate_k l), written out */
static double brute_all_in(const double *rates, uint32_t len, double l)
{
	double p = 1;

	for (uint32_t k = 0; k < len; k++)
		p *= rates[k] > 0 && l > 0 ? fmin(1, rates[k] * l) : 0;
	return p;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

Test(chance, items_against_brute_force)
{
	unsigned long long seed = 23;
	int64_t pos[MAXW], neg[MAXW], sorted[MAXW];

	for (int it = 0; it < 300; it++) {
		uint32_t npos = (uint32_t)tu_rand_range(&seed, 1, 80), nneg = (uint32_t)tu_rand_range(&seed, 1, 200);
		uint32_t len = (uint32_t)tu_rand_range(&seed, 1, 6), cn = (uint32_t)tu_rand_range(&seed, 0, nneg);
		double rates[6], want = 0, stop, med, base;
		struct chance c;

		random_lengths(pos, npos, &seed, 30000000);
		random_lengths(neg, nneg, &seed, 10000000);
		cr_assert_eq(chance__init(&c, pos, npos, neg, nneg), 0);
		if (!c.timed) {
			chance__free(&c);
			continue;
		}
		for (uint32_t k = 0; k < len; k++)
			rates[k] = chance__rate(&c, (uint32_t)tu_rand_range(&seed, 0, nneg));
		memcpy(sorted, neg, nneg * sizeof(*neg));
		qsort(sorted, nneg, sizeof(*sorted), cmp_i64);
		med = ((double)sorted[(nneg - 1) / 2] + (double)sorted[nneg / 2]) / 2;
		base = brute_all_in(rates, len, med);
		for (uint32_t i = 0; i < npos; i++)
			want += fmin(1, (double)cn / nneg + fmax(0, brute_all_in(rates, len, (double)pos[i]) - base));
		cr_assert_float_eq(chance__items(&c, rates, len, cn, INFINITY), want, 1e-9 * (want + 1));
		/* stopping early tells the same side of the bound */
		stop = want * (double)tu_rand_range(&seed, 0, 200) / 100;
		cr_assert_eq(chance__items(&c, rates, len, cn, stop) > stop, want > stop, "want %g stop %g", want,
			     stop);
		chance__free(&c);
	}
}

/*
 * An activity more likely in the breaks' longest window than in the median
 * kept one: every pattern holding it among events of rates > 0 has a second
 * chance count above 0 (so at alpha 0 the miner may stop extending it), and
 * no other activity is said to be one.
 */
Test(chance, longer_than_kept)
{
	unsigned long long seed = 41;
	int64_t pos[MAXW], neg[MAXW], sorted[MAXW];
	int64_t ten[3] = { 10, 10, 10 }, longer[2] = { 10, 100 };
	struct chance c;
	int hits = 0;

	cr_assert_eq(chance__init(&c, longer, 2, ten, 3), 0);
	cr_assert(chance__longer_than_kept(&c, 0.01));	/* 0.1 in a kept window, 1 in the longest */
	cr_assert(!chance__longer_than_kept(&c, 0.2));	/* certain in a kept window already */
	cr_assert(!chance__longer_than_kept(&c, 0));
	cr_assert(!chance__longer_than_kept(&c, INFINITY));
	chance__free(&c);
	cr_assert_eq(chance__init(&c, ten, 3, longer, 2), 0);	/* the breaks' no longer than the kept */
	cr_assert(!chance__longer_than_kept(&c, 0.001));
	chance__free(&c);
	cr_assert_eq(chance__init(&c, longer, 2, NULL, 0), 0);
	cr_assert(!chance__longer_than_kept(&c, 0.01));
	chance__free(&c);

	for (int it = 0; it < 2000; it++) {
		uint32_t npos = (uint32_t)tu_rand_range(&seed, 1, 40), nneg = (uint32_t)tu_rand_range(&seed, 1, 60);
		uint32_t len = (uint32_t)tu_rand_range(&seed, 1, 8), cn = (uint32_t)tu_rand_range(&seed, 0, 2);
		double rates[8], med, lmax = 0;
		bool any = false, all_rated = true;
		struct chance cc;

		random_lengths(pos, npos, &seed, 30000000);
		random_lengths(neg, nneg, &seed, 10000000);
		cr_assert_eq(chance__init(&cc, pos, npos, neg, nneg), 0);
		memcpy(sorted, neg, nneg * sizeof(*neg));
		qsort(sorted, nneg, sizeof(*sorted), cmp_i64);
		med = ((double)sorted[(nneg - 1) / 2] + (double)sorted[nneg / 2]) / 2;
		for (uint32_t i = 0; i < npos; i++)
			lmax = fmax(lmax, (double)pos[i]);
		for (uint32_t k = 0; k < len; k++) {
			bool want;

			rates[k] = chance__rate(&cc, (uint32_t)tu_rand_range(&seed, 0, nneg));
			/* written out: the longest window's chance above the median one's */
			want = rates[k] > 0 && brute_all_in(&rates[k], 1, lmax) > brute_all_in(&rates[k], 1, med);
			cr_assert_eq(chance__longer_than_kept(&cc, rates[k]), want, "rate %g", rates[k]);
			any |= want;
			all_rated &= rates[k] > 0;
		}
		if (any && all_rated) {
			cr_assert_gt(chance__items(&cc, rates, len, cn, INFINITY), 0, "instance %d", it);
			hits++;
		}
		chance__free(&cc);
	}
	cr_assert_gt(hits, 200);
}

/* Windows of one length: the second chance count is the plain proportion too. */
Test(chance, items_of_one_length_are_plain)
{
	int64_t l[50];
	double rates[3] = { 1e-8, 5e-8, INFINITY };
	struct chance c;

	for (int i = 0; i < 50; i++)
		l[i] = 20000000;
	cr_assert_eq(chance__init(&c, l, 10, l, 40), 0);
	for (uint32_t cn = 0; cn <= 40; cn++)
		cr_assert_float_eq(chance__items(&c, rates, 3, cn, INFINITY), cn * 10.0 / 40, 1e-9);
	chance__free(&c);
}

/*
 * The model against what it models: a timer of period T at a random phase,
 * windows laid end to end, the kept ones about a period long and the
 * breaks' ones 1.5 to 6 periods. The chance count predicted from the kept
 * windows' count is the breaks' count, within sampling error.
 */
Test(chance, periodic_timer_is_predicted)
{
	unsigned long long seed = 29;
	static int64_t pos[400], neg[4000];

	for (int round = 0; round < 5; round++) {
		const int64_t period = 10000000, T = period * tu_rand_range(&seed, 2, 8) + tu_rand_range(&seed, 0, period);
		int64_t t = tu_rand_range(&seed, 0, T), phase = tu_rand_range(&seed, 0, T - 1);
		uint32_t npos = 0, nneg = 0, cpos = 0, cneg = 0;
		struct chance c;
		double e;

		while (npos < 400 || nneg < 4000) {
			bool brk = npos < 400 && (nneg >= 4000 || tu_rand_range(&seed, 0, 9) == 0);
			int64_t l = brk ? period * 3 / 2 + tu_rand_range(&seed, 0, period * 9 / 2) :
					  period * 9 / 10 + tu_rand_range(&seed, 0, period / 5);
			/* a tick in [t, t + l): the first tick at or after t */
			int64_t first = phase + ((t - phase + T - 1) / T) * T;
			bool hit = first < t + l;

			if (brk) {
				pos[npos++] = l;
				cpos += hit;
			} else {
				neg[nneg++] = l;
				cneg += hit;
			}
			t += l;
		}
		cr_assert_eq(chance__init(&c, pos, npos, neg, nneg), 0);
		e = chance__expected(&c, cneg);
		/* the plain proportion misses by far: the breaks' windows are longer */
		cr_assert_lt((double)cneg * npos / nneg, 0.8 * cpos, "T %lld: %u of %u kept, %u of %u breaks",
			     (long long)T, cneg, nneg, cpos, npos);
		cr_assert_lt(fabs(e - cpos), 4 * sqrt(e) + 3, "T %lld: predicted %.1f, %u of %u breaks", (long long)T,
			     e, cpos, npos);
		chance__free(&c);
	}
}

Test(chance, bad_input)
{
	int64_t pos[2] = { 10, 20 }, neg[2] = { 10, -1 }, zero[2] = { 0, 0 };
	struct chance c;

	cr_assert_eq(chance__init(&c, pos, 0, neg, 1), -EINVAL);
	cr_assert_eq(chance__init(&c, NULL, 2, neg, 1), -EINVAL);
	cr_assert_eq(chance__init(&c, pos, 2, NULL, 1), -EINVAL);
	cr_assert_eq(chance__init(&c, pos, 2, neg, 2), -EINVAL);
	cr_assert_eq(chance__init(&c, neg + 1, 1, pos, 2), -EINVAL);
	/* nothing kept, or kept windows of no length: no chance count */
	cr_assert_eq(chance__init(&c, pos, 2, NULL, 0), 0);
	cr_assert_eq(chance__expected(&c, 0), 0);
	cr_assert_eq(chance__max_neg(&c, PPM_PCT(50)), 0);
	chance__free(&c);
	cr_assert_eq(chance__init(&c, pos, 2, zero, 2), 0);
	cr_assert_float_eq(chance__expected(&c, 1), 1.0, 1e-12);	/* 1 of 2 kept, of 2 breaks */
	cr_assert_eq(chance__rate(&c, 1), 0);
	cr_assert_eq(chance__max_neg(&c, PPM_PCT(50)), 1);
	chance__free(&c);
}

/* Windows of one length leave the miner's answer as it was, pattern for pattern. */
Test(chance, miner_unchanged_by_equal_lengths)
{
	unsigned long long seed = 31;

	for (int it = 0; it < 300; it++) {
		uint32_t npos = (uint32_t)tu_rand_range(&seed, 1, 6), nneg = (uint32_t)tu_rand_range(&seed, 1, 12);
		static uint32_t sym[18][10];
		struct miner_seq seq[18];
		int64_t len[18];
		struct miner_data *d;
		struct miner_opts o;
		struct miner_result *a, *b;

		for (uint32_t i = 0; i < npos + nneg; i++) {
			seq[i].len = (uint32_t)tu_rand_range(&seed, 1, 10);
			seq[i].sym = sym[i];
			for (uint32_t k = 0; k < seq[i].len; k++)
				sym[i][k] = (uint32_t)tu_rand_range(&seed, 0, 4);
			len[i] = 1000;
		}
		miner_opts_default(&o);
		o.delta_ppm = PPM_PCT(tu_rand_range(&seed, 30, 100));
		o.alpha_ppm = PPM_PCT(alpha_pct[tu_rand_range(&seed, 0, 15)]);
		o.gap_max = (uint32_t)tu_rand_range(&seed, 0, 2);
		cr_assert_eq(miner_data__new(seq, npos, seq + npos, nneg, &o, &d), 0);
		cr_assert_eq(miner_data__mine(d, &o, &a), 0);
		cr_assert_eq(miner_data__set_lengths(d, len, len + npos), 0);
		cr_assert_eq(miner_data__mine(d, &o, &b), 0);
		cr_assert_eq(a->max_neg, b->max_neg);
		cr_assert_eq(a->npatterns, b->npatterns, "instance %d", it);
		for (uint32_t i = 0; i < a->npatterns; i++) {
			cr_assert_eq(a->patterns[i].len, b->patterns[i].len);
			cr_assert_arr_eq(a->patterns[i].sym, b->patterns[i].sym, a->patterns[i].len * sizeof(uint32_t));
		}
		miner_result__free(a);
		miner_result__free(b);
		miner_data__free(d);
	}
}
