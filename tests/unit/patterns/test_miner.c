// SPDX-License-Identifier: MIT
/*
 * miner: TV-5 of docs/ALGORITHMS.md §6, the containment spot checks, the bounds,
 * and the miner against a brute-force enumeration on random instances.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "patterns/chance.h"
#include "patterns/miner.h"
#include "ref/miner_contains.h"
#include "testutil.h"

/* ------------------------------------------------------------ helpers */

#define MAXSEQ 16
#define MAXLEN 64

/* A set of sequences written as strings: each character is a symbol id. */
struct set {
	uint32_t n;
	uint32_t buf[MAXSEQ][MAXLEN];
	struct miner_seq s[MAXSEQ];
};

static void set_init(struct set *st, const char *const *strs, uint32_t n)
{
	st->n = n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t len = (uint32_t)strlen(strs[i]);

		for (uint32_t j = 0; j < len; j++)
			st->buf[i][j] = (unsigned char)strs[i][j];
		st->s[i].sym = st->buf[i];
		st->s[i].len = len;
	}
}

static const char *const tv_pos[] = { "ABXCD", "ABXCED" };
static const char *const tv_neg[] = { "AXBCD", "AXBECD", "ABCED", "AXBD" };

/* "BX[2/0] XC[2/1]" */
static void format_result(const struct miner_result *r, char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	for (uint32_t i = 0; i < r->npatterns && n < size; i++) {
		const struct miner_pattern *p = &r->patterns[i];

		if (i)
			n += (size_t)snprintf(out + n, size - n, " ");
		for (uint32_t k = 0; k < p->len && n < size; k++)
			n += (size_t)snprintf(out + n, size - n, "%c", (char)p->sym[k]);
		if (n < size)
			n += (size_t)snprintf(out + n, size - n, "[%u/%u]", p->pos_count, p->neg_count);
	}
}

static struct miner_result *mine_tv(uint32_t delta_pct, uint32_t alpha_pct, uint32_t g)
{
	struct set p, q;
	struct miner_opts o;
	struct miner_result *r = NULL;
	int err;

	set_init(&p, tv_pos, 2);
	set_init(&q, tv_neg, 4);
	miner_opts_default(&o);
	o.delta_ppm = PPM_PCT(delta_pct);
	o.alpha_ppm = PPM_PCT(alpha_pct);
	o.gap_max = g;
	err = miner_mine(p.s, p.n, q.s, q.n, &o, &r);
	cr_assert_eq(err, 0, "miner_mine: %d", err);
	return r;
}

static void check_tv(uint32_t delta_pct, uint32_t alpha_pct, uint32_t g, const char *expect)
{
	struct miner_result *r = mine_tv(delta_pct, alpha_pct, g);
	char got[512];

	format_result(r, got, sizeof(got));
	cr_expect_str_eq(got, expect, "delta %u%% alpha %u%% g %u: got '%s', expected '%s'",
			 delta_pct, alpha_pct, g, got, expect);
	cr_expect_eq(r->bounds, 0u, "bounds %#x", r->bounds);
	miner_result__free(r);
}

/* ---------------------------------------------------------------- TV-5 */

Test(miner_tv5, delta100_alpha0_g1)
{
	struct miner_result *r = mine_tv(100, 0, 1);
	char got[256];

	format_result(r, got, sizeof(got));
	cr_assert_str_eq(got, "BX[2/0]");
	cr_assert_eq(r->min_pos, 2);
	cr_assert_eq(r->max_neg, 0);
	cr_assert_eq(r->npos, 2);
	cr_assert_eq(r->nneg, 4);
	cr_assert_eq(r->nsymbols, 6);
	cr_assert_eq(r->nsymbols_frequent, 5);	/* E misses Pos1 */
	cr_assert_eq(r->bounds, 0u);
	miner_result__free(r);
}

Test(miner_tv5, delta100_alpha0_g0) { check_tv(100, 0, 0, "BX[2/0] XC[2/0]"); }
Test(miner_tv5, delta100_alpha0_g2) { check_tv(100, 0, 2, "BX[2/0]"); }
Test(miner_tv5, delta50_alpha0_g1) { check_tv(50, 0, 1, "BX[2/0] XCE[1/0]"); }
Test(miner_tv5, delta100_alpha25_g1) { check_tv(100, 25, 1, "BX[2/0] XC[2/1]"); }
Test(miner_tv5, delta100_alpha50_g1) { check_tv(100, 50, 1, "BX[2/0] XC[2/1]"); }

Test(miner_tv5, delta50_alpha25_g0)
{
	check_tv(50, 25, 0, "AB[2/1] BX[2/0] CE[1/1] ED[1/1] XC[2/0]");
}

/* The "all emerging" column: every listed pattern is emerging with the listed
 * counts, checked through the bitset containment (tests/ref/miner_contains.c). */
Test(miner_tv5, all_emerging_counts)
{
	static const struct {
		uint32_t g;
		const char *pats[8];
	} rows[] = {
		{ 1, { "BX", "ABX", "BXC", "ABXC", "BXCD", "ABXCD" } },
		{ 0, { "BX", "XC", "ABX", "BXC", "ABXC" } },
		{ 2, { "BX", "ABX", "BXC", "BXD", "ABXC", "ABXD", "BXCD", "ABXCD" } },
	};
	struct set p, q;

	set_init(&p, tv_pos, 2);
	set_init(&q, tv_neg, 4);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		for (int k = 0; k < 8 && rows[i].pats[k]; k++) {
			uint32_t pat[8], n = (uint32_t)strlen(rows[i].pats[k]), cp, cn;

			for (uint32_t j = 0; j < n; j++)
				pat[j] = (unsigned char)rows[i].pats[k][j];
			cr_assert_eq(miner_contains_count(p.s, 2, q.s, 4, pat, n, 0, rows[i].g, &cp, &cn), 0);
			cr_expect_eq(cp, 2, "%s g=%u pos %u", rows[i].pats[k], rows[i].g, cp);
			cr_expect_eq(cn, 0, "%s g=%u neg %u", rows[i].pats[k], rows[i].g, cn);
		}
	}
	/* XC at g = 1 is in Neg1 (one skipped event): not emerging at alpha 0. */
	{
		uint32_t xc[2] = { 'X', 'C' }, cp, cn;

		cr_assert_eq(miner_contains_count(p.s, 2, q.s, 4, xc, 2, 0, 1, &cp, &cn), 0);
		cr_assert_eq(cp, 2);
		cr_assert_eq(cn, 1);
	}
}

/* --------------------------------------------------------- containment */

static void check_contains(const char *pat, uint32_t g, const char *expect)
{
	const char *const seqs[6] = { "ABXCD", "ABXCED", "AXBCD", "AXBECD", "ABCED", "AXBD" };
	uint32_t pp[16], ss[16];
	size_t m = strlen(pat);

	for (size_t j = 0; j < m; j++)
		pp[j] = (unsigned char)pat[j];
	for (int i = 0; i < 6; i++) {
		size_t n = strlen(seqs[i]);
		int want = expect[2 * i] == 'T';

		for (size_t j = 0; j < n; j++)
			ss[j] = (unsigned char)seqs[i][j];
		cr_expect_eq(miner_contains(pp, m, ss, n, 0, g), want,
			     "%s in %s with g=%u: expected %d", pat, seqs[i], g, want);
	}
}

Test(miner_contains, spot_checks)
{
	check_contains("XC", 0, "T T F F F F");
	check_contains("XC", 1, "T T T F F F");
	check_contains("ABXCD", 0, "T F F F F F");
	check_contains("ABXCD", 1, "T T F F F F");
	check_contains("BXD", 1, "T F F F F F");
	check_contains("AC", 1, "F F F F T F");
	check_contains("XD", 1, "T F F F F T");
}

Test(miner_contains, gap_min_and_edges)
{
	uint32_t t[] = { 1, 2, 3, 1, 9, 9, 2 };
	uint32_t p12[] = { 1, 2 }, p1[] = { 1 }, p7[] = { 7 };

	/* 1 -> 2: adjacent at (0,1), 2 skipped at (3,6). */
	cr_assert_eq(miner_contains(p12, 2, t, 7, 0, 0), 1);
	cr_assert_eq(miner_contains(p12, 2, t, 7, 1, 1), 0);
	cr_assert_eq(miner_contains(p12, 2, t, 7, 1, 2), 1);
	cr_assert_eq(miner_contains(p12, 2, t, 7, 3, 4), 0);
	cr_assert_eq(miner_contains(p12, 2, t, 7, 3, 5), 1);	/* 0 -> 6 skips 5 */
	cr_assert_eq(miner_contains(p12, 2, t, 7, 2, 5), 1);
	cr_assert_eq(miner_contains(p1, 1, t, 7, 0, 0), 1);
	cr_assert_eq(miner_contains(p7, 1, t, 7, 0, 0), 0);
	cr_assert_eq(miner_contains(p12, 2, t, 1, 0, 5), 0);
	cr_assert_eq(miner_contains(p12, 2, NULL, 0, 0, 5), 0);
	cr_assert_eq(miner_contains(p12, 0, t, 7, 0, 0), -EINVAL);
	cr_assert_eq(miner_contains(p12, 2, t, 7, 2, 1), -EINVAL);
	/* Huge gaps must not overflow. */
	cr_assert_eq(miner_contains(p12, 2, t, 7, 0, UINT32_MAX), 1);
	cr_assert_eq(miner_contains(p12, 2, t, 7, UINT32_MAX, UINT32_MAX), 0);
}

/* Long sequences cross word boundaries of the bitsets. */
Test(miner_contains, long_sequences_match_naive)
{
	unsigned long long seed = 0x5eed0001;
	static uint32_t t[700];

	for (int it = 0; it < 300; it++) {
		size_t n = (size_t)tu_rand_range(&seed, 1, 700), m = (size_t)tu_rand_range(&seed, 1, 5);
		uint32_t p[5], gmin = (uint32_t)tu_rand_range(&seed, 0, 3);
		uint32_t gmax = gmin + (uint32_t)tu_rand_range(&seed, 0, 140);
		bool want = false;

		for (size_t j = 0; j < n; j++)
			t[j] = (uint32_t)tu_rand_range(&seed, 0, 3);
		for (size_t k = 0; k < m; k++)
			p[k] = (uint32_t)tu_rand_range(&seed, 0, 3);
		/* Naive: reachable set of end positions, position by position. */
		{
			static bool reach[5][700];

			memset(reach, 0, sizeof(reach));
			for (size_t j = 0; j < n; j++)
				reach[0][j] = t[j] == p[0];
			for (size_t k = 1; k < m; k++)
				for (size_t j = 0; j < n; j++)
					for (size_t i = 0; i < j && t[j] == p[k]; i++)
						if (reach[k - 1][i] && j - i - 1 >= gmin &&
						    j - i - 1 <= gmax)
							reach[k][j] = true;
			for (size_t j = 0; j < n; j++)
				want |= reach[m - 1][j];
		}
		cr_assert_eq(miner_contains(p, m, t, n, gmin, gmax), want,
			     "iteration %d n=%zu m=%zu gmin=%u gmax=%u", it, n, m, gmin, gmax);
	}
}

/* --------------------------------------------------------- thresholds */

Test(miner_thresholds, exact_counts)
{
	/* 94 % of 50 = 47 exactly; 3 % of 100 = 3 exactly: no float drift. */
	cr_assert_eq(miner_min_pos(PPM_PCT(94), 50), 47);
	cr_assert_eq(miner_max_neg(PPM_PCT(3), 100), 3);
	cr_assert_eq(miner_min_pos(PPM_PCT(70), 10), 7);	/* 0.7*10 = 7.000000000000001 in float */
	cr_assert_eq(miner_max_neg(PPM_PCT(29), 100), 29);	/* 0.29*100 = 28.999999999999996 */
	cr_assert_eq(miner_min_pos(PPM_PCT(50), 3), 2);
	cr_assert_eq(miner_min_pos(0, 3), 1);
	cr_assert_eq(miner_min_pos(PPM_ONE, 7), 7);
	cr_assert_eq(miner_max_neg(PPM_PCT(25), 3), 0);
	cr_assert_eq(miner_max_neg(PPM_PERMILLE(250), 4), 1);
	cr_assert_eq(miner_max_neg(PPM_ONE, 5), 5);
}

/* ------------------------------------------------------------- misc API */

Test(miner_api, invalid_arguments)
{
	struct set p, q;
	struct miner_opts o;
	struct miner_result *r = (void *)1;
	struct miner_data *d = (void *)1;

	set_init(&p, tv_pos, 2);
	set_init(&q, tv_neg, 4);
	miner_opts_default(&o);
	cr_assert_eq(miner_mine(p.s, 0, q.s, 4, &o, &r), -EINVAL);
	cr_assert_null(r);
	cr_assert_eq(miner_data__new(NULL, 2, q.s, 4, &o, &d), -EINVAL);
	o.delta_ppm = PPM_ONE + 1;
	cr_assert_eq(miner_mine(p.s, 2, q.s, 4, &o, &r), -EINVAL);
	miner_opts_default(&o);
	o.gap_min = 3;
	o.gap_max = 2;
	cr_assert_eq(miner_mine(p.s, 2, q.s, 4, &o, &r), -EINVAL);
}

Test(miner_api, no_neg_and_empty_sequences)
{
	uint32_t a[] = { 5, 6, 5 }, b[] = { 6, 5 };
	struct miner_seq pos[3] = { { a, 3 }, { b, 2 }, { NULL, 0 } };
	struct miner_opts o;
	struct miner_result *r;

	/* |D_neg| = 0: every symbol frequent in D_pos is minimal by itself. */
	miner_opts_default(&o);
	o.delta_ppm = PPM_PCT(66);
	cr_assert_eq(miner_mine(pos, 3, NULL, 0, &o, &r), 0);
	cr_assert_eq(r->min_pos, 2);
	cr_assert_eq(r->npatterns, 2);
	cr_assert_eq(r->patterns[0].len, 1);
	cr_assert_eq(r->patterns[0].sym[0], 5);
	cr_assert_eq(r->patterns[1].sym[0], 6);
	cr_assert_eq(r->patterns[1].pos_count, 2);
	cr_assert_eq(r->patterns[1].neg_count, 0);
	miner_result__free(r);

	/* At 100 % the empty sequence defeats every pattern. */
	o.delta_ppm = PPM_PCT(100);
	cr_assert_eq(miner_mine(pos, 3, NULL, 0, &o, &r), 0);
	cr_assert_eq(r->npatterns, 0);
	cr_assert_eq(r->nsymbols_frequent, 0);
	cr_assert_eq(r->bounds, 0u);
	miner_result__free(r);
}

Test(miner_api, large_symbol_ids)
{
	uint32_t a[] = { UINT32_MAX, 0, 7 }, b[] = { 0, UINT32_MAX };
	struct miner_seq pos[1] = { { a, 3 } }, neg[1] = { { b, 2 } };
	struct miner_opts o;
	struct miner_result *r;

	miner_opts_default(&o);
	o.gap_max = 0;
	cr_assert_eq(miner_mine(pos, 1, neg, 1, &o, &r), 0);
	/* 7 alone, and UINT32_MAX·0 (0·UINT32_MAX is the neg order). */
	cr_assert_eq(r->npatterns, 2);
	cr_assert_eq(r->patterns[0].len, 1);
	cr_assert_eq(r->patterns[0].sym[0], 7);
	cr_assert_eq(r->patterns[1].len, 2);
	cr_assert_eq(r->patterns[1].sym[0], UINT32_MAX);
	cr_assert_eq(r->patterns[1].sym[1], 0);
	miner_result__free(r);
}

/* ---------------------------------------------------------------- bounds */

/* Pos and neg share one long random sequence: every pos-frequent pattern is
 * also in neg, nothing emerges, and the search space is huge. */
static void pathological(struct miner_seq *pos, struct miner_seq *neg, uint32_t *buf, uint32_t n)
{
	unsigned long long seed = 42;

	for (uint32_t i = 0; i < n; i++)
		buf[i] = (uint32_t)tu_rand_range(&seed, 0, 2);
	pos->sym = buf;
	pos->len = n;
	*neg = *pos;
}

Test(miner_bounds, node_budget)
{
	static uint32_t buf[300];
	struct miner_seq pos, neg;
	struct miner_opts o;
	struct miner_result *r;
	char msg[256];

	pathological(&pos, &neg, buf, 300);
	miner_opts_default(&o);
	o.gap_max = 3;
	o.max_len = 0;
	o.max_nodes = 1000;
	cr_assert_eq(miner_mine(&pos, 1, &neg, 1, &o, &r), 0);
	cr_assert_eq(r->bounds, MINER_BOUND_NODES, "bounds %#x", r->bounds);
	/* The cut DFS, then as many again for the iterative deepening. */
	cr_assert_eq(r->nodes, 2000);
	cr_assert_eq(r->npatterns, 0);
	cr_assert_geq(r->complete_len, 3, "complete_len %u", r->complete_len);
	cr_assert_lt(r->complete_len, 300);
	miner_bounds_describe(r->bounds, &r->opts, msg, sizeof(msg));
	cr_assert_str_eq(msg, "search truncated at node budget 1000");
	{
		char want[256];

		snprintf(want, sizeof(want), "search truncated at node budget 1000; "
			 "complete for patterns up to length %u", r->complete_len);
		miner_result__describe_bounds(r, msg, sizeof(msg));
		cr_assert_str_eq(msg, want);
		/* Truncating buffers: snprintf semantics. */
		cr_assert_eq(miner_result__describe_bounds(r, msg, 10), (int)strlen(want));
		cr_assert_str_eq(msg, "search tr");
		cr_assert_eq(miner_result__describe_bounds(r, NULL, 0), (int)strlen(want));
	}
	miner_result__free(r);
}

/*
 * The emerging pattern uses the two largest symbol ids, whose subtrees a
 * depth-first search visits last: when the budget cuts the DFS, the iterative
 * deepening still finds it, with everything else up to its length.
 */
Test(miner_bounds, node_budget_deepening_finds_short_patterns)
{
	static uint32_t pbuf[302], nbuf[302];
	struct miner_seq pos, neg;
	struct miner_opts o;
	struct miner_result *r;

	pathological(&pos, &neg, pbuf, 300);
	memcpy(nbuf, pbuf, sizeof(nbuf));
	pbuf[300] = 9;
	pbuf[301] = 8;
	nbuf[300] = 8;
	nbuf[301] = 9;
	pos.len = neg.len = 302;
	neg.sym = nbuf;
	miner_opts_default(&o);
	o.gap_max = 3;
	o.max_len = 0;
	o.max_nodes = 1000;
	cr_assert_eq(miner_mine(&pos, 1, &neg, 1, &o, &r), 0);
	cr_assert_eq(r->bounds, MINER_BOUND_NODES, "bounds %#x", r->bounds);
	/* Passes to lengths 1..6 fit in the second 1000 nodes, 7 does not. */
	cr_assert_eq(r->complete_len, 6, "complete_len %u", r->complete_len);
	cr_assert_eq(r->npatterns, 2);
	cr_assert_eq(r->patterns[0].len, 2);
	cr_assert_eq(r->patterns[0].sym[0], 9);
	cr_assert_eq(r->patterns[0].sym[1], 8);
	cr_assert_eq(r->patterns[1].len, 4);
	miner_result__free(r);

	/* The exact answer to length 4: 9 8 and 2 0 0 9 (the neg copy has 8
	 * before 9, and no 2 within reach of its 0 0). */
	o.max_nodes = 0;
	o.max_len = 4;
	cr_assert_eq(miner_mine(&pos, 1, &neg, 1, &o, &r), 0);
	cr_assert_eq(r->bounds, MINER_BOUND_MAX_LEN);
	cr_assert_eq(r->complete_len, 4);
	cr_assert_eq(r->npatterns, 2);
	cr_assert_eq(r->patterns[0].sym[0], 9);
	cr_assert_eq(r->patterns[1].len, 4);
	cr_assert_eq(r->patterns[1].sym[0], 2);
	cr_assert_eq(r->patterns[1].sym[3], 9);
	miner_result__free(r);
}

/*
 * Whatever cuts the search, the patterns up to complete_len are exactly the
 * minimal emerging patterns of those lengths, and the longer ones reported
 * are minimal emerging patterns too.
 */
static bool pattern_in(const struct miner_pattern *p, const struct miner_result *r)
{
	for (uint32_t k = 0; k < r->npatterns; k++)
		if (r->patterns[k].len == p->len &&
		    !memcmp(r->patterns[k].sym, p->sym, p->len * sizeof(uint32_t)))
			return true;
	return false;
}

static void print_result(const char *what, const struct miner_result *r)
{
	fprintf(stderr, "  %s (complete_len %u, bounds %#x):", what, r->complete_len, r->bounds);
	for (uint32_t i = 0; i < r->npatterns; i++) {
		fprintf(stderr, " ");
		for (uint32_t k = 0; k < r->patterns[i].len; k++)
			fprintf(stderr, "%c", 'A' + r->patterns[i].sym[k]);
	}
	fprintf(stderr, "\n");
}

/*
 * Whatever cuts the search (node budget or pattern cap), the patterns up to
 * complete_len are exactly the minimal emerging patterns of those lengths,
 * and the longer ones reported are minimal emerging patterns too.
 */
Test(miner_bounds, complete_len_is_exact, .timeout = 120)
{
	unsigned long long seed = 0xb0b;

	for (int it = 0; it < 300; it++) {
		static uint32_t buf[2][4][60];
		struct miner_seq seq[2][4];
		struct miner_opts o;
		struct miner_result *cut, *full;
		uint32_t n[2] = { (uint32_t)tu_rand_range(&seed, 1, 4),
				  (uint32_t)tu_rand_range(&seed, 1, 4) };
		bool ok = true;

		for (int s = 0; s < 2; s++)
			for (uint32_t i = 0; i < n[s]; i++) {
				seq[s][i].len = (uint32_t)tu_rand_range(&seed, 10, 60);
				for (uint32_t j = 0; j < seq[s][i].len; j++)
					buf[s][i][j] = (uint32_t)tu_rand_range(&seed, 0, 4);
				seq[s][i].sym = buf[s][i];
			}
		miner_opts_default(&o);
		o.gap_max = (uint32_t)tu_rand_range(&seed, 0, 2);
		o.delta_ppm = PPM_PCT(tu_rand_range(&seed, 30, 100));
		o.alpha_ppm = PPM_PCT(tu_rand_range(&seed, 0, 40));
		o.max_len = 6;
		o.max_nodes = 0;
		o.max_patterns = 0;
		cr_assert_eq(miner_mine(seq[0], n[0], seq[1], n[1], &o, &full), 0);
		if (tu_rand_range(&seed, 0, 1))
			o.max_nodes = (uint64_t)tu_rand_range(&seed, 1, 200);
		else
			o.max_patterns = (uint32_t)tu_rand_range(&seed, 1, 10);
		o.deepen = tu_rand_range(&seed, 0, 1);
		cr_assert_eq(miner_mine(seq[0], n[0], seq[1], n[1], &o, &cut), 0);
		for (uint32_t i = 0; i < full->npatterns; i++)
			if (full->patterns[i].len <= cut->complete_len)
				ok &= pattern_in(&full->patterns[i], cut);
		for (uint32_t i = 0; i < cut->npatterns; i++)
			ok &= pattern_in(&cut->patterns[i], full);
		if (!(cut->bounds & ~MINER_BOUND_MAX_LEN))
			ok &= cut->npatterns == full->npatterns && cut->complete_len == 6;
		else
			ok &= cut->complete_len < 6;
		if (!ok) {
			fprintf(stderr, "iteration %d: g %u delta %u alpha %u max_nodes %llu "
				"max_patterns %u\n", it, o.gap_max, o.delta_ppm, o.alpha_ppm,
				(unsigned long long)o.max_nodes, o.max_patterns);
			for (int s = 0; s < 2; s++)
				for (uint32_t i = 0; i < n[s]; i++) {
					fprintf(stderr, "  %s ", s ? "neg" : "pos");
					for (uint32_t j = 0; j < seq[s][i].len; j++)
						fprintf(stderr, "%c", 'A' + buf[s][i][j]);
					fprintf(stderr, "\n");
				}
			print_result("cut ", cut);
			print_result("full", full);
		}
		cr_assert(ok, "iteration %d (seed 0xb0b): see stderr", it);
		miner_result__free(cut);
		miner_result__free(full);
	}
}

Test(miner_bounds, time_budget)
{
	static uint32_t buf[300];
	struct miner_seq pos, neg;
	struct miner_opts o;
	struct miner_result *r;

	pathological(&pos, &neg, buf, 300);
	miner_opts_default(&o);
	o.gap_max = 3;
	o.max_len = 0;
	o.max_nodes = 0;
	o.time_budget_ns = 20 * 1000 * 1000;
	cr_assert_eq(miner_mine(&pos, 1, &neg, 1, &o, &r), 0);
	cr_assert_eq(r->bounds, MINER_BOUND_TIME, "bounds %#x", r->bounds);
	cr_assert_geq(r->elapsed_ns, o.time_budget_ns);
	cr_assert_lt(r->elapsed_ns, 5000LL * 1000 * 1000);
	miner_result__free(r);
}

Test(miner_bounds, max_len)
{
	static const char *const p[] = { "ABCDE" }, *const n[] = { "ABCD", "BCDE" };
	struct set ps, ns;
	struct miner_opts o;
	struct miner_result *r;
	char got[256];

	set_init(&ps, p, 1);
	set_init(&ns, n, 2);
	miner_opts_default(&o);
	o.gap_max = 0;
	o.max_len = 4;
	cr_assert_eq(miner_mine(ps.s, 1, ns.s, 2, &o, &r), 0);
	cr_assert_eq(r->npatterns, 0);
	cr_assert_eq(r->bounds, MINER_BOUND_MAX_LEN, "bounds %#x", r->bounds);
	miner_bounds_describe(r->bounds, &r->opts, got, sizeof(got));
	cr_assert_str_eq(got, "search truncated at max pattern length 4");
	miner_result__free(r);

	o.max_len = 5;
	cr_assert_eq(miner_mine(ps.s, 1, ns.s, 2, &o, &r), 0);
	format_result(r, got, sizeof(got));
	cr_assert_str_eq(got, "ABCDE[1/0]");
	cr_assert_eq(r->bounds, 0u);
	miner_result__free(r);

	/* A limit above the longest pos sequence cuts nothing. */
	o.max_len = 50;
	cr_assert_eq(miner_mine(ps.s, 1, ns.s, 2, &o, &r), 0);
	cr_assert_eq(r->npatterns, 1);
	cr_assert_eq(r->bounds, 0u);
	miner_result__free(r);
}

/*
 * A context-switch storm in small: every window holds A, half the kept ones
 * a mix of A and B as well, and the breaks' windows are 100 times as long.
 * B is then more likely in a break's window by its length alone, and so is
 * every pattern holding it: at alpha 0 the search follows A's only, instead
 * of every sequence of A and B up to max_len.
 */
Test(miner_bounds, storm_at_alpha0_follows_what_can_emerge)
{
	static uint32_t buf[440][60];
	static struct miner_seq seq[440];
	static int64_t len[440];
	unsigned long long seed = 7;
	struct miner_data *d;
	struct miner_opts o;
	struct miner_result *r;
	uint64_t plain_nodes;

	for (uint32_t i = 0; i < 440; i++) {
		bool pos = i < 40;

		seq[i].sym = buf[i];
		seq[i].len = pos ? 60 : 12;
		len[i] = pos ? 100000 : 1000;
		for (uint32_t k = 0; k < seq[i].len; k++)
			buf[i][k] = (pos || i % 2) ? (uint32_t)tu_rand_range(&seed, 0, 1) : 0;
	}
	miner_opts_default(&o);
	o.max_nodes = 0;
	cr_assert_eq(miner_data__new(seq, 40, seq + 40, 400, &o, &d), 0);
	cr_assert_eq(miner_mine(seq, 40, seq + 40, 400, &o, &r), 0);
	plain_nodes = r->nodes;
	miner_result__free(r);
	cr_assert_eq(miner_data__set_lengths(d, len, len + 40), 0);
	cr_assert_eq(miner_data__mine(d, &o, &r), 0);
	cr_assert_eq(r->npatterns, 0);
	cr_assert_eq(r->bounds, 0u, "bounds %#x", r->bounds);	/* the exact answer */
	cr_assert_leq(r->nodes, 2 * (o.max_len + 1), "%llu nodes", (unsigned long long)r->nodes);
	cr_assert_gt(plain_nodes, 100, "%llu nodes without the lengths", (unsigned long long)plain_nodes);
	miner_result__free(r);
	miner_data__free(d);
}

Test(miner_bounds, patterns_cap)
{
	struct set p, q;
	struct miner_opts o;
	struct miner_result *r;

	set_init(&p, tv_pos, 2);
	set_init(&q, tv_neg, 4);
	miner_opts_default(&o);
	o.delta_ppm = PPM_PCT(50);
	o.alpha_ppm = PPM_PCT(25);
	o.gap_max = 0;
	o.max_patterns = 2;
	cr_assert_eq(miner_mine(p.s, 2, q.s, 4, &o, &r), 0);
	cr_assert_eq(r->bounds, MINER_BOUND_PATTERNS);
	cr_assert_eq(r->nrecorded, 2);
	cr_assert_leq(r->npatterns, 2);
	miner_result__free(r);

	/* Exactly as many as the cap: nothing was cut. */
	o.max_patterns = 5;
	cr_assert_eq(miner_mine(p.s, 2, q.s, 4, &o, &r), 0);
	cr_assert_eq(r->npatterns, 5);
	cr_assert_eq(r->bounds, 0u, "bounds %#x", r->bounds);
	miner_result__free(r);
}

Test(miner_bounds, seq_len_cap)
{
	struct set p, q;
	struct miner_opts o;
	struct miner_result *r;
	char msg[256];

	set_init(&p, tv_pos, 2);
	set_init(&q, tv_neg, 4);
	miner_opts_default(&o);
	o.gap_max = 1;
	o.max_seq_len = 3;	/* ABX, ABX | AXB, AXB, ABC, AXB */
	cr_assert_eq(miner_mine(p.s, 2, q.s, 4, &o, &r), 0);
	cr_assert_eq(r->nseq_truncated, 6);
	cr_assert_eq(r->bounds, MINER_BOUND_SEQ_LEN);
	cr_assert_eq(r->npatterns, 1);	/* BX still */
	miner_bounds_describe(r->bounds, &r->opts, msg, sizeof(msg));
	cr_assert_str_eq(msg, "search truncated at sequence length 3 (longer subtraces cut)");
	miner_result__free(r);
}

/* --------------------------------------------- brute-force comparison */

struct inst {
	uint32_t nsym, gmin, gmax;
	uint32_t delta_ppm, alpha_ppm;
	uint32_t n[2];
	uint32_t len[2][5];
	uint32_t s[2][5][8];
	struct miner_seq seq[2][5];
};

/* Positions for pat[k] lie in [lo, hi]; plain recursion. */
static bool naive_match(const uint32_t *pat, uint32_t m, uint32_t k, const uint32_t *t,
			uint32_t n, uint64_t lo, uint64_t hi, uint32_t gmin, uint32_t gmax)
{
	for (uint64_t i = lo; i <= hi && i < n; i++) {
		if (t[i] != pat[k])
			continue;
		if (k + 1 == m)
			return true;
		if (naive_match(pat, m, k + 1, t, n, i + gmin + 1, i + (uint64_t)gmax + 1, gmin, gmax))
			return true;
	}
	return false;
}

static uint32_t naive_count(const struct inst *in, int side, const uint32_t *pat, uint32_t m)
{
	uint32_t c = 0;

	for (uint32_t i = 0; i < in->n[side]; i++)
		if (in->len[side][i] &&
		    naive_match(pat, m, 0, in->s[side][i], in->len[side][i], 0,
				in->len[side][i] - 1, in->gmin, in->gmax))
			c++;
	return c;
}

/* a is an ordinary subsequence of b: recursion on both ends. */
static bool naive_subseq(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
	if (!na)
		return true;
	if (nb < na)
		return false;
	if (a[na - 1] == b[nb - 1] && naive_subseq(a, na - 1, b, nb - 1))
		return true;
	return naive_subseq(a, na, b, nb - 1);
}

struct bpat {
	uint32_t len, pos, neg;
	uint32_t s[8];
};

struct brute {
	const struct inst *in;
	uint32_t min_pos, max_neg;
	bool full;
	struct bpat *em;
	uint32_t nem, cap;
	uint32_t cur[8];
};

static void brute_rec(struct brute *b, uint32_t len, uint32_t maxlen)
{
	for (uint32_t x = 0; x < b->in->nsym; x++) {
		uint32_t p, q;

		b->cur[len] = x;
		p = naive_count(b->in, 0, b->cur, len + 1);
		/* Without @full, skip extensions of patterns absent from every
		 * pos sequence: a pattern with an absent prefix is absent too. */
		if (!b->full && !p)
			continue;
		q = naive_count(b->in, 1, b->cur, len + 1);
		if (p >= b->min_pos && q <= b->max_neg) {
			if (b->nem == b->cap) {
				b->cap = b->cap ? 2 * b->cap : 64;
				b->em = realloc(b->em, b->cap * sizeof(*b->em));
				cr_assert(b->em);
			}
			b->em[b->nem].len = len + 1;
			b->em[b->nem].pos = p;
			b->em[b->nem].neg = q;
			memcpy(b->em[b->nem].s, b->cur, (len + 1) * sizeof(uint32_t));
			b->nem++;
		}
		if (len + 1 < maxlen)
			brute_rec(b, len + 1, maxlen);
	}
}

static int cmp_bpat(const void *a, const void *b)
{
	const struct bpat *x = a, *y = b;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	for (uint32_t i = 0; i < x->len; i++)
		if (x->s[i] != y->s[i])
			return x->s[i] < y->s[i] ? -1 : 1;
	return 0;
}

/*
 * Minimal emerging patterns by enumeration; returns their number in *out.
 * max_neg UINT32_MAX: ConSGapMiner's, from alpha.
 */
static uint32_t brute_force(const struct inst *in, bool full, uint32_t max_neg, struct bpat **out)
{
	struct brute b = { .in = in, .full = full };
	uint32_t maxlen = 0, nmin = 0;
	struct bpat *res;

	for (uint32_t i = 0; i < in->n[0]; i++)
		if (in->len[0][i] > maxlen)
			maxlen = in->len[0][i];
	/* Independent of miner_min_pos(): smallest count c with c/n >= delta. */
	b.min_pos = 1;
	while ((uint64_t)b.min_pos * PPM_ONE < (uint64_t)in->delta_ppm * in->n[0])
		b.min_pos++;
	b.max_neg = 0;
	while ((uint64_t)(b.max_neg + 1) * PPM_ONE <= (uint64_t)in->alpha_ppm * in->n[1])
		b.max_neg++;
	if (max_neg != UINT32_MAX)
		b.max_neg = max_neg;
	if (maxlen)
		brute_rec(&b, 0, maxlen);
	res = calloc(b.nem + 1, sizeof(*res));
	cr_assert(res);
	for (uint32_t i = 0; i < b.nem; i++) {
		bool minimal = true;

		for (uint32_t j = 0; j < b.nem && minimal; j++)
			if (j != i && naive_subseq(b.em[j].s, b.em[j].len, b.em[i].s, b.em[i].len))
				minimal = false;
		if (minimal)
			res[nmin++] = b.em[i];
	}
	free(b.em);
	qsort(res, nmin, sizeof(*res), cmp_bpat);
	*out = res;
	return nmin;
}

static void random_inst(struct inst *in, unsigned long long *seed, bool with_gmin)
{
	memset(in, 0, sizeof(*in));
	in->nsym = (uint32_t)tu_rand_range(seed, 2, 5);
	in->gmax = (uint32_t)tu_rand_range(seed, 0, 3);
	in->gmin = with_gmin ? (uint32_t)tu_rand_range(seed, 0, in->gmax) : 0;
	/* Thresholds: often the extremes, otherwise anything, in ppm. */
	switch (tu_rand_range(seed, 0, 3)) {
	case 0:
		in->delta_ppm = PPM_ONE;
		break;
	case 1:
		in->delta_ppm = PPM_PCT(tu_rand_range(seed, 0, 100));
		break;
	default:
		in->delta_ppm = (uint32_t)tu_rand_range(seed, 0, PPM_ONE);
	}
	switch (tu_rand_range(seed, 0, 3)) {
	case 0:
		in->alpha_ppm = 0;
		break;
	case 1:
		in->alpha_ppm = PPM_PCT(tu_rand_range(seed, 0, 100));
		break;
	default:
		in->alpha_ppm = (uint32_t)tu_rand_range(seed, 0, PPM_ONE);
	}
	for (int s = 0; s < 2; s++) {
		in->n[s] = (uint32_t)tu_rand_range(seed, 1, 5);
		for (uint32_t i = 0; i < in->n[s]; i++) {
			in->len[s][i] = (uint32_t)tu_rand_range(seed, 1, 8);
			for (uint32_t j = 0; j < in->len[s][i]; j++)
				in->s[s][i][j] = (uint32_t)tu_rand_range(seed, 0, in->nsym - 1);
			in->seq[s][i].sym = in->s[s][i];
			in->seq[s][i].len = in->len[s][i];
		}
	}
}

static void print_inst(const struct inst *in, unsigned long long seed)
{
	fprintf(stderr, "instance seed %#llx: nsym %u g [%u,%u] delta %u ppm alpha %u ppm\n",
		seed, in->nsym, in->gmin, in->gmax, in->delta_ppm, in->alpha_ppm);
	for (int s = 0; s < 2; s++) {
		fprintf(stderr, "  %s:", s ? "neg" : "pos");
		for (uint32_t i = 0; i < in->n[s]; i++) {
			fprintf(stderr, " ");
			for (uint32_t j = 0; j < in->len[s][i]; j++)
				fprintf(stderr, "%c", 'A' + in->s[s][i][j]);
		}
		fprintf(stderr, "\n");
	}
}

static void print_pats(const char *what, const struct bpat *p, uint32_t n)
{
	fprintf(stderr, "  %s:", what);
	for (uint32_t i = 0; i < n; i++) {
		fprintf(stderr, " ");
		for (uint32_t k = 0; k < p[i].len; k++)
			fprintf(stderr, "%c", 'A' + p[i].s[k]);
		fprintf(stderr, "[%u/%u]", p[i].pos, p[i].neg);
	}
	fprintf(stderr, "\n");
}

/*
 * Asked only whether a pattern emerges (opts.any), the miner answers as the
 * full answer does, exactly (no bound), with one pattern that does emerge.
 */
static void check_any(const struct inst *in, const struct miner_opts *full, uint32_t nwant,
		      unsigned long long iseed)
{
	struct miner_opts o = *full;
	struct miner_result *r;
	uint32_t cnt[2] = { 0, 0 };

	o.any = true;
	cr_assert_eq(miner_mine(in->seq[0], in->n[0], in->seq[1], in->n[1], &o, &r), 0);
	cr_assert_eq(r->npatterns, nwant > 0, "instance seed %#llx: any says %u, the full answer has %u",
		     iseed, r->npatterns, nwant);
	cr_assert_eq(r->bounds, 0, "instance seed %#llx", iseed);
	if (r->npatterns) {
		const struct miner_pattern *p = &r->patterns[0];

		for (int s = 0; s < 2; s++)
			for (uint32_t i = 0; i < in->n[s]; i++)
				cnt[s] += miner_contains(p->sym, p->len, in->seq[s][i].sym, in->seq[s][i].len,
							 in->gmin, in->gmax) == 1;
		cr_assert_eq(cnt[0], p->pos_count, "instance seed %#llx", iseed);
		cr_assert_eq(cnt[1], p->neg_count, "instance seed %#llx", iseed);
		cr_assert_geq(p->pos_count, r->min_pos, "instance seed %#llx", iseed);
		cr_assert_leq(p->neg_count, r->max_neg, "instance seed %#llx", iseed);
	}
	miner_result__free(r);
}

/* Compare miner and brute force on @count instances from @seed0. */
/* Whether every pattern up to the longest pos sequence can be enumerated. */
static bool enumerable(const struct inst *in)
{
	uint32_t maxlen = 0;
	uint64_t space = 1;

	for (uint32_t i = 0; i < in->n[0]; i++)
		if (in->len[0][i] > maxlen)
			maxlen = in->len[0][i];
	for (uint32_t k = 0; k < maxlen; k++)
		space *= in->nsym;
	return space <= 20000;
}

/* The instance's thresholds and gaps, no bound: the exact answer. */
static void exact_opts(const struct inst *in, unsigned long long *seed, struct miner_opts *o)
{
	miner_opts_default(o);
	o->delta_ppm = in->delta_ppm;
	o->alpha_ppm = in->alpha_ppm;
	o->gap_min = in->gmin;
	o->gap_max = in->gmax;
	o->max_len = 0;
	o->max_nodes = 0;
	o->max_patterns = 0;
	/* Iterative deepening must reach the same exact answer. */
	o->deepen = tu_rand_range(seed, 0, 3) == 0;
}

/* The miner's answer is want[0..nwant), exactly and unbounded; else both go to stderr. */
static bool same_answer(const struct inst *in, unsigned long long iseed, const struct bpat *want, uint32_t nwant,
			const struct miner_result *r)
{
	struct bpat *got = calloc(r->npatterns + 1, sizeof(*got));
	bool same;

	cr_assert(got);
	for (uint32_t i = 0; i < r->npatterns; i++) {
		got[i].len = r->patterns[i].len;
		got[i].pos = r->patterns[i].pos_count;
		got[i].neg = r->patterns[i].neg_count;
		memcpy(got[i].s, r->patterns[i].sym, got[i].len * sizeof(uint32_t));
	}
	same = nwant == r->npatterns && r->bounds == 0;
	for (uint32_t i = 0; same && i < nwant; i++)
		same = !cmp_bpat(&want[i], &got[i]) && want[i].pos == got[i].pos && want[i].neg == got[i].neg;
	if (!same) {
		print_inst(in, iseed);
		print_pats("brute force", want, nwant);
		print_pats("miner      ", got, r->npatterns);
		fprintf(stderr, "  bounds %#x max_neg %u\n", r->bounds, r->max_neg);
	}
	free(got);
	return same;
}

static void compare_many(unsigned long long seed0, int count, bool with_gmin, bool full_only)
{
	unsigned long long seed = seed0;
	int ran = 0, nonempty = 0, long3 = 0, many = 0;

	for (int it = 0; ran < count; it++) {
		unsigned long long iseed = seed;
		struct inst in;
		struct bpat *want;
		struct miner_opts o;
		struct miner_result *r;
		uint32_t nwant;
		bool full;

		random_inst(&in, &seed, with_gmin);
		tu_rand(&seed);
		full = enumerable(&in);
		if (full_only && !full)
			continue;
		ran++;
		nwant = brute_force(&in, full, UINT32_MAX, &want);
		exact_opts(&in, &seed, &o);
		cr_assert_eq(miner_mine(in.seq[0], in.n[0], in.seq[1], in.n[1], &o, &r), 0);
		cr_assert(same_answer(&in, iseed, want, nwant, r),
			  "miner differs from brute force on instance %d (seed %#llx, base seed %#llx), see stderr",
			  it, iseed, seed0);
		check_any(&in, &o, nwant, iseed);
		nonempty += nwant > 0;
		many += nwant >= 3;
		for (uint32_t i = 0; i < nwant; i++)
			if (want[i].len >= 3) {
				long3++;
				break;
			}
		free(want);
		miner_result__free(r);
	}
	/* The instances must exercise the search, not only return nothing. */
	fprintf(stderr, "%d instances: %d with patterns, %d with >= 3, %d with length >= 3\n",
		count, nonempty, many, long3);
	cr_assert_gt(nonempty, count / 3);
	cr_assert_gt(many, count / 20);
	cr_assert_gt(long3, count / 20);
}

Test(miner_brute, random_pruned_enumeration, .timeout = 300)
{
	compare_many(0x1234abcdULL, 4000, false, false);
}

Test(miner_brute, random_full_enumeration, .timeout = 300)
{
	compare_many(0xfeedbeefULL, 1500, false, true);
}

Test(miner_brute, random_with_gap_min, .timeout = 300)
{
	compare_many(0xc0ffee11ULL, 2000, true, false);
}

/*
 * With the windows' lengths (chance.h): the minimal emerging patterns by
 * enumeration at the chance max_neg, less those whose second chance count,
 * from chance.h directly, is above alpha |D_pos|. The miner stops extending
 * patterns at alpha 0 that can only be chance; the answer must not change.
 */
static void compare_chance(unsigned long long seed0, int count)
{
	unsigned long long seed = seed0;
	int cut = 0, nonempty = 0;

	for (int it = 0; it < count; it++) {
		unsigned long long iseed = seed;
		int64_t len[2][5];
		struct inst in;
		struct chance cc;
		struct miner_data *d;
		struct miner_opts o;
		struct miner_result *r;
		struct bpat *want;
		uint32_t nwant, nkeep = 0, max_neg;
		bool longer_dropped = false;

		random_inst(&in, &seed, false);
		if (tu_rand_range(&seed, 0, 1))
			in.alpha_ppm = 0;
		/* kept windows about one length; breaks' as long or up to 200 times */
		for (int s = 0; s < 2; s++)
			for (uint32_t i = 0; i < in.n[s]; i++)
				len[s][i] = s || tu_rand_range(&seed, 0, 1) ? (int64_t)tu_rand_range(&seed, 500, 1500) :
									(int64_t)tu_rand_range(&seed, 2000, 200000);
		exact_opts(&in, &seed, &o);
		cr_assert_eq(miner_data__new(in.seq[0], in.n[0], in.seq[1], in.n[1], &o, &d), 0);
		cr_assert_eq(miner_data__set_lengths(d, len[0], len[1]), 0);
		cr_assert_eq(miner_data__mine(d, &o, &r), 0);
		max_neg = miner_data__max_neg(d, in.alpha_ppm);
		cr_assert_eq(r->max_neg, max_neg);
		nwant = brute_force(&in, enumerable(&in), max_neg, &want);
		cr_assert_eq(chance__init(&cc, len[0], in.n[0], len[1], in.n[1]), 0);
		for (uint32_t i = 0; i < nwant; i++) {
			double rates[8], bound = (double)in.alpha_ppm / PPM_ONE * in.n[0] * (1 + 1e-9);
			bool longer = false;

			for (uint32_t k = 0; k < want[i].len; k++) {
				uint32_t x = want[i].s[k];

				rates[k] = chance__rate(&cc, naive_count(&in, 1, &x, 1));
				longer |= chance__longer_than_kept(&cc, rates[k]);
			}
			if (want[i].len >= 2 && chance__items(&cc, rates, want[i].len, want[i].neg, INFINITY) > bound) {
				longer_dropped |= longer && !in.alpha_ppm;
				continue;
			}
			want[nkeep++] = want[i];
		}
		chance__free(&cc);
		cr_assert(same_answer(&in, iseed, want, nkeep, r),
			  "miner differs from brute force on instance %d (seed %#llx), see stderr", it, iseed);
		cut += longer_dropped;
		nonempty += nkeep > 0;
		free(want);
		miner_result__free(r);
		miner_data__free(d);
	}
	fprintf(stderr, "%d instances: %d with patterns, %d where alpha 0 left out one holding a longer event\n",
		count, nonempty, cut);
	cr_assert_gt(nonempty, count / 4);
	cr_assert_gt(cut, count / 50);
}

Test(miner_brute, random_with_window_lengths, .timeout = 300)
{
	compare_chance(0x5eed1e57ULL, 3000);
}

/* ------------------------------------------------------- determinism */

/* Relabelling the symbols and shuffling the sequences changes nothing but the
 * labels: the search order follows symbol ids, the answer must not. */
Test(miner_determinism, relabel_and_shuffle)
{
	unsigned long long seed = 0xabad1dea;

	for (int it = 0; it < 500; it++) {
		struct inst in, sh;
		struct miner_opts o;
		struct miner_result *r1, *r2;
		static const uint32_t label[5] = { 900000, 17, 3000000000u, 5, 40 };
		struct bpat *a, *b;

		random_inst(&in, &seed, false);
		sh = in;
		for (int s = 0; s < 2; s++) {
			for (uint32_t i = 0; i < in.n[s]; i++) {
				uint32_t from = (i + (uint32_t)it) % in.n[s];

				sh.len[s][i] = in.len[s][from];
				for (uint32_t j = 0; j < in.len[s][from]; j++)
					sh.s[s][i][j] = label[in.s[s][from][j]];
				sh.seq[s][i].sym = sh.s[s][i];
				sh.seq[s][i].len = sh.len[s][i];
			}
		}
		miner_opts_default(&o);
		o.delta_ppm = in.delta_ppm;
		o.alpha_ppm = in.alpha_ppm;
		o.gap_max = in.gmax;
		o.max_len = 0;
		cr_assert_eq(miner_mine(in.seq[0], in.n[0], in.seq[1], in.n[1], &o, &r1), 0);
		cr_assert_eq(miner_mine(sh.seq[0], sh.n[0], sh.seq[1], sh.n[1], &o, &r2), 0);
		cr_assert_eq(r1->npatterns, r2->npatterns, "iteration %d", it);
		a = calloc(r1->npatterns + 1, sizeof(*a));
		b = calloc(r1->npatterns + 1, sizeof(*b));
		for (uint32_t i = 0; i < r1->npatterns; i++) {
			a[i].len = r1->patterns[i].len;
			b[i].len = r2->patterns[i].len;
			a[i].pos = r1->patterns[i].pos_count;
			b[i].pos = r2->patterns[i].pos_count;
			a[i].neg = r1->patterns[i].neg_count;
			b[i].neg = r2->patterns[i].neg_count;
			for (uint32_t k = 0; k < a[i].len; k++)
				a[i].s[k] = label[r1->patterns[i].sym[k]];
			memcpy(b[i].s, r2->patterns[i].sym, b[i].len * sizeof(uint32_t));
		}
		qsort(a, r1->npatterns, sizeof(*a), cmp_bpat);
		/* r2 is already sorted by (length, ids). */
		for (uint32_t i = 0; i < r1->npatterns; i++) {
			cr_assert_eq(cmp_bpat(&a[i], &b[i]), 0, "iteration %d pattern %u", it, i);
			cr_assert_eq(a[i].pos, b[i].pos);
			cr_assert_eq(a[i].neg, b[i].neg);
		}
		free(a);
		free(b);
		miner_result__free(r1);
		miner_result__free(r2);
	}
}

/* Two runs over the same data give byte-identical results, even truncated. */
Test(miner_determinism, repeat_truncated)
{
	static uint32_t buf[300];
	struct miner_seq pos, neg;
	struct miner_opts o;
	struct miner_result *r1, *r2;

	pathological(&pos, &neg, buf, 300);
	buf[150] = 7;	/* one symbol only pos has: a few emerging patterns */
	miner_opts_default(&o);
	o.gap_max = 3;
	o.max_nodes = 5000;
	neg.len = 140;
	cr_assert_eq(miner_mine(&pos, 1, &neg, 1, &o, &r1), 0);
	cr_assert_eq(miner_mine(&pos, 1, &neg, 1, &o, &r2), 0);
	cr_assert_eq(r1->npatterns, r2->npatterns);
	cr_assert_gt(r1->npatterns, 0);
	cr_assert_eq(r1->nodes, r2->nodes);
	cr_assert_eq(r1->work, r2->work);
	cr_assert_eq(r1->bounds, r2->bounds);
	for (uint32_t i = 0; i < r1->npatterns; i++) {
		cr_assert_eq(r1->patterns[i].len, r2->patterns[i].len);
		cr_assert_eq(memcmp(r1->patterns[i].sym, r2->patterns[i].sym,
				    r1->patterns[i].len * sizeof(uint32_t)), 0);
	}
	miner_result__free(r1);
	miner_result__free(r2);
}
