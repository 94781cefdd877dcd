// SPDX-License-Identifier: MIT
/*
 * miner: TV-5 of docs/ALGORITHMS.md §6, the containment spot checks, the
 * thresholds, the API's edge cases and the bounds. The miner against a
 * brute-force enumeration on random instances is test_miner_random.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

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

/* ------------------------------------------------------- determinism */

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
