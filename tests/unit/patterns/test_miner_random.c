// SPDX-License-Identifier: MIT
/*
 * miner on random instances: its answer against a brute-force enumeration
 * (with and without gap_min, with the windows' lengths of chance.h), and
 * its determinism under relabelling and shuffling.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "patterns/chance.h"
#include "patterns/miner.h"
#include "ref/miner_contains.h"
#include "testutil.h"

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
