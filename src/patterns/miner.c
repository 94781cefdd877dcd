// SPDX-License-Identifier: MIT
/*
 * ConSGapMiner: minimal gap-constrained emerging sequential patterns
 * (ALGORITHMS.md §4.3), depth-first prefix growth.
 *
 * Representation. The state of a search node P on one sequence T is the set
 * E_P[T] of positions where a g-valid occurrence of P ends. §4.3 keeps it as a
 * dense bitset and computes every child P·x as gapmask(E_P[T]) & B_x[T]. We keep
 * the same sets sparsely, as sorted position lists, and compute all children
 * at once: the positions of gapmask(E_P[T]) are enumerated (merged windows
 * [i+gmin+1, i+g+1] after each end i) and each masked position j goes to the
 * child T[j]. That is the AND with every B_x simultaneously, because the B_x
 * partition T's positions. A node then costs O(sum over T of min(|T|,
 * (g+1)|E_P[T]|)) instead of O(|alphabet| * |T|/64) per sequence, and deep
 * nodes, whose end sets are tiny, cost next to nothing. The per-node item
 * filtering of §4.3 step 6 falls out for free: only items inside a window are
 * ever counted. The root's children are the per-item per-sequence position
 * lists, i.e. the non-empty B_x[T].
 *
 * Per node, in this order (§4.3): count pos support of every allowed child in
 * one pass, stopping early once no child can reach min_pos; drop children
 * that contain an already recorded pattern (non-minimality); count neg support
 * of the survivors, stopping once every one exceeds max_neg; record the
 * emerging ones and ban their last item in the sibling subtrees; materialise
 * the pos states of the others.
 *
 * Neg states are built lazily, in chunks of sequences (struct nbatch): the
 * neg count of a candidate only has to exceed max_neg, which usually takes a
 * few dozen sequences, and most nodes are leaves that never need their
 * children's neg states at all. Building them whole instead made 70 % of the
 * work; lazily, the total work on the benchmark (1,000 x 2,000 events, δ 94 %,
 * α 2 %) fell from 175 M to 64 M positions visited.
 *
 * Budgets: see mine() for the iterative deepening that follows a cut search.
 *
 * miner_contains() is the dense bitset recurrence itself, kept independent of
 * the miner so that each checks the other in the tests.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/bitset.h"
#include "chance.h"
#include "miner.h"

#define NONE UINT32_MAX

struct miner_data {
	uint32_t nseq[2];	/* [0] pos, [1] neg */
	uint32_t first[2];	/* global index of the first sequence of each side */
	uint32_t nsym;
	uint32_t *ids;		/* dense id -> caller id, ascending */
	uint32_t *sym;		/* all events as dense ids, pos sequences first */
	size_t *off;		/* nseq[0]+nseq[1]+1 offsets into sym */
	uint32_t maxlen[2];	/* longest sequence of each side */
	uint32_t nseq_truncated;
	uint32_t max_seq_len;
	bool lengths;		/* chance set: the windows' lengths control emergence */
	struct chance chance;
	double *symrate;	/* with lengths: per dense id, chance__rate() of its D_neg count */
	bool *longer;		/* with lengths: per dense id, chance__longer_than_kept() of its rate */
};

/* Children states of one node on one side: entry k is sequence seq[k] with end
 * positions pos[off[k] .. off[k+1]). Children are laid out one after another. */
struct batch {
	uint32_t *seq, *off, *pos;
	size_t seq_cap, off_cap, pos_cap;
};

struct child {
	uint32_t item;
	uint32_t pos_nseq;	/* pos sequences containing the child */
	uint32_t pos_npos;	/* its end positions in them */
	uint32_t e0;		/* its first entry in the level's pos batch */
	uint32_t wseq, wpos;	/* fill cursors */
};

/* A position in the neg state of one node: chunk, then entry in the chunk
 * (for the root: k is the next neg sequence). */
struct ncursor {
	uint32_t chunk, k;
};

struct nmeta {
	uint32_t e0, n;		/* a child's entries in one chunk */
};

/*
 * Neg states of the children [from, from + nchild) of one node, built lazily
 * in chunks: each chunk processes the next parent entries (in sequence order,
 * as many as all chunks before, at least NEG_CHUNK0) for all those children
 * at once. Readers stop as soon as their question is answered (every
 * candidate exceeds max_neg), so usually only a prefix is ever built.
 */
struct nbatch {
	bool active, complete;
	uint32_t from, nchild;
	struct batch b;		/* append-only; chunk after chunk */
	uint32_t nentries, npos;
	struct nmeta *meta;	/* nchunks * nchild */
	size_t meta_cap;
	uint32_t nchunks;
	struct ncursor src;	/* how far the parent's neg state was read */
	uint32_t nsrc;
	uint32_t *gather;	/* parent entries of the chunk being built */
	size_t gather_cap;
};

struct level {
	struct child *ch;	/* children of this node: candidates, then the
				 * non-emerging ones still to explore */
	uint32_t nch, ch_cap, cur;
	struct batch b;		/* pos states of the children */
	struct nbatch nb;	/* neg states of the children */
	uint32_t *ban;		/* items this node banned (its emerging children) */
	uint32_t nban, ban_cap;
};

#define NEG_CHUNK0 32

/* A node's pos state; root = every position of every pos sequence. */
struct view {
	bool root;
	uint32_t n;		/* entries */
	const uint32_t *seq, *off, *pos;
	uint32_t e0;
};

struct scratch {
	uint32_t *cnt, *nseq, *slot;
	uint64_t *stamp;
	uint32_t *touched, ntouched;
	uint32_t *live, nlive;
};

struct record {
	uint32_t off, len, pos, neg, next;
};

struct recset {
	struct record *rec;
	uint32_t nrec, rec_cap;
	uint32_t *rsym;		/* their items (dense ids) */
	size_t nrsym, rsym_cap;
};

struct ctx {
	const struct miner_data *d;
	struct miner_opts o;
	uint32_t min_pos, max_neg;
	double chance_bound;	/* with lengths: most D_pos windows a pattern may be in by chance */
	bool chance_prune;	/* lengths at alpha 0: see chance_only() */
	uint32_t max_depth;	/* longest pattern ever explored */
	uint32_t depth_limit;	/* longest pattern explored by this pass */
	bool limit_binds;	/* depth_limit is below the longest pos sequence */
	struct level *lv;	/* max_depth + 1 levels */
	uint32_t *path;
	struct scratch sc[3];	/* pos passes, neg decisions, neg chunk builds */
	uint32_t *ban;		/* per item: > 0 when banned on the current path */
	uint8_t *mark;		/* per item: candidate of the neg decision pass */
	uint32_t *negcnt;	/* per candidate: neg sequences seen (decision pass) */
	uint32_t *jbuf;		/* masked positions of one sequence */
	uint64_t stampctr;
	struct recset rs;	/* emerging patterns recorded by the current pass */
	struct recset saved;	/* those of the last complete deepening pass */
	uint32_t *bucket;	/* per item: first record ending with it */
	uint32_t nfreq_root;
	unsigned bounds;	/* of this pass */
	bool stop;
	uint64_t nodes, work;
	uint64_t node_base;	/* nodes before this phase: budgets are per phase */
	int64_t t0;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void miner_opts_default(struct miner_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->delta_ppm = MINER_PPM_ONE;
	o->alpha_ppm = 0;
	o->gap_max = 2;
	o->gap_min = 0;
	o->max_len = 8;
	o->max_nodes = 100000;
	o->time_budget_ns = 0;
	o->max_patterns = 1000;
	o->max_seq_len = 0;
}

uint32_t miner_min_pos(uint32_t delta_ppm, uint32_t npos)
{
	uint64_t v = ((uint64_t)delta_ppm * npos + MINER_PPM_ONE - 1) / MINER_PPM_ONE;

	return v ? (uint32_t)v : 1;
}

uint32_t miner_max_neg(uint32_t alpha_ppm, uint32_t nneg)
{
	return (uint32_t)((uint64_t)alpha_ppm * nneg / MINER_PPM_ONE);
}

/* Grow *p (elements of @size bytes) to hold at least @need. */
static int grow(void *p, size_t *cap, size_t need, size_t size)
{
	void **pp = p;
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*pp, n * size);
	if (!q)
		return -ENOMEM;
	*pp = q;
	*cap = n;
	return 0;
}

static int grow32(void *p, uint32_t *cap, size_t need, size_t size)
{
	size_t c = *cap;
	int err;

	if (need > UINT32_MAX)
		return -ENOMEM;
	err = grow(p, &c, need, size);
	if (!err)
		*cap = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
	return err;
}

/* ------------------------------------------------------------------ data */

struct idmap {
	uint64_t *slots;	/* key + 1, so that 0 marks an empty slot */
	uint32_t *val;
	size_t cap, n;
};

static size_t hash32(uint32_t k, size_t mask)
{
	return (size_t)(((uint64_t)k * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* Returns the tentative dense id of @k (first-appearance order), or NONE on
 * allocation failure. Slots hold key + 1 so that 0 marks an empty slot. */
static uint32_t idmap_get(struct idmap *m, uint32_t k)
{
	size_t mask, i;

	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 1024;
		uint64_t *ns = calloc(ncap, sizeof(*ns));
		uint32_t *nv = malloc(ncap * sizeof(*nv));

		if (!ns || !nv) {
			free(ns);
			free(nv);
			return NONE;
		}
		for (size_t j = 0; j < m->cap; j++) {
			if (!m->slots[j])
				continue;
			i = hash32((uint32_t)(m->slots[j] - 1), ncap - 1);
			while (ns[i])
				i = (i + 1) & (ncap - 1);
			ns[i] = m->slots[j];
			nv[i] = m->val[j];
		}
		free(m->slots);
		free(m->val);
		m->slots = ns;
		m->val = nv;
		m->cap = ncap;
	}
	mask = m->cap - 1;
	i = hash32(k, mask);
	while (m->slots[i]) {
		if (m->slots[i] == (uint64_t)k + 1)
			return m->val[i];
		i = (i + 1) & mask;
	}
	m->slots[i] = (uint64_t)k + 1;
	m->val[i] = (uint32_t)m->n;
	return (uint32_t)m->n++;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int miner_data__new(const struct miner_seq *pos, uint32_t npos,
		    const struct miner_seq *neg, uint32_t nneg,
		    const struct miner_opts *opts, struct miner_data **out)
{
	struct miner_opts def;
	const struct miner_seq *side[2] = { pos, neg };
	struct idmap m = { 0 };
	struct miner_data *d;
	uint32_t *rank = NULL, *keys = NULL;
	size_t total = 0, k;
	uint32_t nall;
	int err = -ENOMEM;

	if (!out || !npos || !pos || (nneg && !neg))
		return -EINVAL;
	*out = NULL;
	if (!opts) {
		miner_opts_default(&def);
		opts = &def;
	}
	if ((uint64_t)npos + nneg > UINT32_MAX - 1)
		return -E2BIG;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->nseq[0] = npos;
	d->nseq[1] = nneg;
	d->first[0] = 0;
	d->first[1] = npos;
	d->max_seq_len = opts->max_seq_len;
	nall = npos + nneg;
	d->off = malloc(((size_t)nall + 1) * sizeof(*d->off));
	if (!d->off)
		goto fail;
	k = 0;
	for (int s = 0; s < 2; s++) {
		uint64_t side_total = 0;

		for (uint32_t i = 0; i < d->nseq[s]; i++) {
			uint32_t len = side[s][i].len;

			if (len && !side[s][i].sym) {
				err = -EINVAL;
				goto fail;
			}
			if (opts->max_seq_len && len > opts->max_seq_len) {
				len = opts->max_seq_len;
				d->nseq_truncated++;
			}
			d->off[k++] = total;
			total += len;
			side_total += len;
			if (len > d->maxlen[s])
				d->maxlen[s] = len;
		}
		/* Batch offsets are uint32_t and bounded by the side's events. */
		if (side_total >= UINT32_MAX) {
			err = -E2BIG;
			goto fail;
		}
	}
	d->off[k] = total;
	d->sym = malloc((total ? total : 1) * sizeof(*d->sym));
	if (!d->sym)
		goto fail;
	k = 0;
	for (int s = 0; s < 2; s++) {
		for (uint32_t i = 0; i < d->nseq[s]; i++) {
			size_t b = d->off[d->first[s] + i], e = d->off[d->first[s] + i + 1];

			for (size_t j = b; j < e; j++) {
				uint32_t t = idmap_get(&m, side[s][i].sym[j - b]);

				if (t == NONE)
					goto fail;
				d->sym[j] = t;
			}
		}
	}
	/* Dense ids in ascending caller-id order: the search order, and so the
	 * output, must not depend on which symbol happened to come first. */
	d->nsym = (uint32_t)m.n;
	keys = malloc((m.n ? m.n : 1) * sizeof(*keys));
	rank = malloc((m.n ? m.n : 1) * sizeof(*rank));
	d->ids = malloc((m.n ? m.n : 1) * sizeof(*d->ids));
	if (!keys || !rank || !d->ids)
		goto fail;
	for (size_t j = 0; j < m.cap; j++)
		if (m.slots[j])
			keys[m.val[j]] = (uint32_t)(m.slots[j] - 1);
	memcpy(d->ids, keys, m.n * sizeof(*keys));
	qsort(d->ids, m.n, sizeof(*d->ids), cmp_u32);
	for (size_t t = 0; t < m.n; t++) {
		uint32_t *p = bsearch(&keys[t], d->ids, m.n, sizeof(*d->ids), cmp_u32);

		rank[t] = (uint32_t)(p - d->ids);
	}
	for (size_t j = 0; j < total; j++)
		d->sym[j] = rank[d->sym[j]];
	free(keys);
	free(rank);
	free(m.slots);
	free(m.val);
	*out = d;
	return 0;
fail:
	free(keys);
	free(rank);
	free(m.slots);
	free(m.val);
	miner_data__free(d);
	return err;
}

void miner_data__free(struct miner_data *d)
{
	if (!d)
		return;
	free(d->ids);
	free(d->sym);
	free(d->off);
	chance__free(&d->chance);
	free(d->symrate);
	free(d->longer);
	free(d);
}

int miner_data__set_lengths(struct miner_data *d, const int64_t *pos_ns, const int64_t *neg_ns)
{
	uint32_t nsym = d->nsym ? d->nsym : 1, *n, *seen;
	double *rate;
	bool *longer;
	struct chance c;
	int err = chance__init(&c, pos_ns, d->nseq[0], neg_ns, d->nseq[1]);

	if (err)
		return err;
	n = calloc(nsym, sizeof(*n));
	seen = malloc(nsym * sizeof(*seen));
	rate = malloc(nsym * sizeof(*rate));
	longer = malloc(nsym * sizeof(*longer));
	if (!n || !seen || !rate || !longer) {
		free(n);
		free(seen);
		free(rate);
		free(longer);
		chance__free(&c);
		return -ENOMEM;
	}
	memset(seen, 0xff, nsym * sizeof(*seen));
	for (uint32_t q = d->first[1]; q < d->first[1] + d->nseq[1]; q++)
		for (size_t k = d->off[q]; k < d->off[q + 1]; k++)
			if (seen[d->sym[k]] != q) {
				seen[d->sym[k]] = q;
				n[d->sym[k]]++;
			}
	for (uint32_t x = 0; x < d->nsym; x++) {
		rate[x] = chance__rate(&c, n[x]);
		longer[x] = chance__longer_than_kept(&c, rate[x]);
	}
	free(seen);
	free(n);
	chance__free(&d->chance);
	free(d->symrate);
	free(d->longer);
	d->chance = c;
	d->symrate = rate;
	d->longer = longer;
	d->lengths = true;
	return 0;
}

uint32_t miner_data__max_neg(const struct miner_data *d, uint32_t alpha_ppm)
{
	return d->lengths ? chance__max_neg(&d->chance, alpha_ppm) : miner_max_neg(alpha_ppm, d->nseq[1]);
}

/* The dense id of a caller's symbol id, or UINT32_MAX when the data has none. */
static uint32_t dense_of(const struct miner_data *d, uint32_t id)
{
	uint32_t lo = 0, hi = d->nsym;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nsym && d->ids[lo] == id ? lo : UINT32_MAX;
}

/*
 * chance__items() of the pattern sym[0..len) (dense ids, or the caller's),
 * with lengths set; |D_pos|, the strict answer, without the memory for it.
 */
static double items_chance(const struct miner_data *d, const uint32_t *sym, uint32_t len, bool dense,
			   uint32_t neg_count, double stop_above)
{
	double rates[16] = { 0 }, *r = len <= 16 ? rates : malloc(len * sizeof(*r)), v;

	if (!r)
		return d->nseq[0];
	for (uint32_t k = 0; k < len; k++) {
		uint32_t x = dense ? sym[k] : dense_of(d, sym[k]);

		r[k] = x == UINT32_MAX ? 0 : d->symrate[x];
	}
	v = chance__items(&d->chance, r, len, neg_count, stop_above);
	if (r != rates)
		free(r);
	return v;
}

/* The plain proportion: a pattern's D_pos count by chance as ConSGapMiner's thresholds have it. */
static double plain_chance(const struct miner_data *d, uint32_t neg_count)
{
	return d->nseq[1] ? (double)neg_count * d->nseq[0] / d->nseq[1] : 0;
}

double miner_data__chance(const struct miner_data *d, const uint32_t *sym, uint32_t len, uint32_t neg_count)
{
	double own, items;

	if (!d->lengths)
		return plain_chance(d, neg_count);
	own = chance__expected(&d->chance, neg_count);
	if (len < 2)
		return own;
	items = items_chance(d, sym, len, false, neg_count, INFINITY);
	return items > own ? items : own;
}

bool miner_data__beyond_plain(const struct miner_data *d, uint32_t neg_count, double chance)
{
	return chance > plain_chance(d, neg_count);
}

double miner_data__score(const struct miner_data *d, uint32_t pos_count, uint32_t neg_count, double chance)
{
	uint32_t npos = d->nseq[0], nneg = d->nseq[1];

	if (miner_data__beyond_plain(d, neg_count, chance))
		return (double)pos_count / npos - chance / npos;
	return (double)pos_count / npos - (nneg ? (double)neg_count / nneg : 0.0);
}

uint32_t miner_data__nsymbols(const struct miner_data *d)
{
	return d->nsym;
}

uint32_t miner_data__npos(const struct miner_data *d)
{
	return d->nseq[0];
}

uint32_t miner_data__nneg(const struct miner_data *d)
{
	return d->nseq[1];
}

uint32_t miner_data__nseq_truncated(const struct miner_data *d)
{
	return d->nseq_truncated;
}

/* ----------------------------------------------------------- containment */

/* The bitset recurrence on one sequence; @w is 3 * bitset_words(n) words. */
static bool contains_bits(const uint32_t *pat, size_t m, const uint32_t *seq, size_t n,
			  uint32_t gmin, uint32_t gmax, uint64_t *w)
{
	size_t nw = bitset_words(n);
	uint64_t *e = w, *mask = w + nw, *tmp = w + 2 * nw;

	if (!n)
		return false;
	bitset_zero(e, nw);
	for (size_t j = 0; j < n; j++)
		if (seq[j] == pat[0])
			bitset_set(e, j);
	for (size_t k = 1; k < m; k++) {
		if (!bitset_any(e, nw))
			return false;
		bitset_gap_mask(mask, e, tmp, nw, gmin, gmax);
		bitset_zero(e, nw);
		for (size_t j = 0; j < n; j++)
			if (seq[j] == pat[k])
				bitset_set(e, j);
		bitset_and(e, mask, nw);
	}
	return bitset_any(e, nw);
}

int miner_contains(const uint32_t *pat, size_t m, const uint32_t *seq, size_t n,
		   uint32_t gap_min, uint32_t gap_max)
{
	uint64_t stackw[3 * 4];
	uint64_t *w = stackw;
	bool r;

	if (!m || !pat || (n && !seq) || gap_min > gap_max)
		return -EINVAL;
	if (m > n)
		return 0;
	if (bitset_words(n) > 4) {
		w = malloc(3 * bitset_words(n) * sizeof(*w));
		if (!w)
			return -ENOMEM;
	}
	r = contains_bits(pat, m, seq, n, gap_min, gap_max, w);
	if (w != stackw)
		free(w);
	return r;
}

int miner_data__count(const struct miner_data *d, const uint32_t *pat, uint32_t len,
		      uint32_t gap_min, uint32_t gap_max,
		      uint32_t *pos_count, uint32_t *neg_count)
{
	uint32_t *dp, cnt[2] = { 0, 0 };
	uint64_t *w;
	size_t longest;

	if (!d || !len || !pat || gap_min > gap_max)
		return -EINVAL;
	dp = malloc(len * sizeof(*dp));
	longest = d->maxlen[0] > d->maxlen[1] ? d->maxlen[0] : d->maxlen[1];
	w = malloc((3 * bitset_words(longest) + 1) * sizeof(*w));
	if (!dp || !w) {
		free(dp);
		free(w);
		return -ENOMEM;
	}
	for (uint32_t k = 0; k < len; k++) {
		uint32_t *p = bsearch(&pat[k], d->ids, d->nsym, sizeof(*d->ids), cmp_u32);

		if (!p)
			goto out;	/* a symbol that never occurs: count 0 */
		dp[k] = (uint32_t)(p - d->ids);
	}
	for (int s = 0; s < 2; s++) {
		for (uint32_t i = 0; i < d->nseq[s]; i++) {
			size_t b = d->off[d->first[s] + i], e = d->off[d->first[s] + i + 1];

			if (e - b >= len &&
			    contains_bits(dp, len, d->sym + b, e - b, gap_min, gap_max, w))
				cnt[s]++;
		}
	}
out:
	if (pos_count)
		*pos_count = cnt[0];
	if (neg_count)
		*neg_count = cnt[1];
	free(dp);
	free(w);
	return 0;
}

/* ---------------------------------------------------------------- search */

static struct view pos_view(const struct ctx *c, uint32_t depth)
{
	struct view v = { 0 };
	const struct level *p;
	const struct child *ch;

	if (depth == 0) {
		v.root = true;
		v.n = c->d->nseq[0];
		return v;
	}
	p = &c->lv[depth - 1];
	ch = &p->ch[p->cur - 1];
	v.n = ch->pos_nseq;
	v.seq = p->b.seq;
	v.off = p->b.off;
	v.pos = p->b.pos;
	v.e0 = ch->e0;
	return v;
}

/*
 * Masked positions of sequence @t after the ends @ends[0..nends), increasing,
 * into c->jbuf: the positions j where P·T[j] has a g-valid occurrence ending
 * at j. @ends == NULL: every position (the root). Returns their number.
 */
static uint32_t window(struct ctx *c, uint32_t t, const uint32_t *ends, uint32_t nends)
{
	uint32_t len = (uint32_t)(c->d->off[t + 1] - c->d->off[t]), n = 0;
	uint64_t next = 0;	/* first position not emitted yet */

	if (!ends) {
		for (uint32_t j = 0; j < len; j++)
			c->jbuf[j] = j;
		c->work += len;
		return len;
	}
	/* The windows [i+gmin+1, i+g+1] of increasing ends i have increasing
	 * bounds, so merging them only needs the first position not yet emitted. */
	for (uint32_t q = 0; q < nends; q++) {
		uint64_t i = ends[q];
		uint64_t lo = i + c->o.gap_min + 1, hi = i + (uint64_t)c->o.gap_max + 1;

		if (lo >= len)
			break;
		if (hi >= len)
			hi = len - 1;
		if (lo < next)
			lo = next;
		for (uint64_t j = lo; j <= hi; j++)
			c->jbuf[n++] = (uint32_t)j;
		if (hi + 1 > next)
			next = hi + 1;
	}
	c->work += n + nends;
	return n;
}

/* Window of entry @k of pos view @v; *tseq is the global sequence index. */
static uint32_t pos_window(struct ctx *c, const struct view *v, uint32_t k, uint32_t *tseq)
{
	uint32_t e;

	if (v->root) {
		*tseq = k;
		return window(c, k, NULL, 0);
	}
	e = v->e0 + k;
	*tseq = v->seq[e];
	return window(c, *tseq, v->pos + v->off[e], v->off[e + 1] - v->off[e]);
}

static void scratch_reset(struct scratch *s)
{
	for (uint32_t i = 0; i < s->ntouched; i++) {
		uint32_t y = s->touched[i];

		s->cnt[y] = 0;
		s->nseq[y] = 0;
	}
	s->ntouched = 0;
	s->nlive = 0;
}

static int cmp_child(const void *a, const void *b)
{
	const struct child *x = a, *y = b;

	return (x->item > y->item) - (x->item < y->item);
}

/*
 * Pos pass: count, for every child item not banned on the path, the pos
 * sequences and end positions. Stops early once no item can still reach
 * min_pos (items missed in more than nseq - min_pos entries are dead).
 * Leaves the candidates, sorted by item, in lv->ch.
 */
static int pos_pass(struct ctx *c, uint32_t depth)
{
	struct view v = pos_view(c, depth);
	struct scratch *s = &c->sc[0];
	struct level *L = &c->lv[depth];
	const uint32_t *sym = c->d->sym;
	uint32_t slack = v.n - c->min_pos;	/* v.n >= min_pos: P is frequent */
	uint64_t since_sweep = 0;
	uint32_t nc = 0;

	for (uint32_t k = 0; k < v.n; k++) {
		uint32_t t, n = pos_window(c, &v, k, &t);
		const uint32_t *ts = sym + c->d->off[t];
		uint64_t st = ++c->stampctr;

		for (uint32_t q = 0; q < n; q++) {
			uint32_t y = ts[c->jbuf[q]];

			if (c->ban[y])
				continue;
			s->cnt[y]++;
			if (s->stamp[y] == st)
				continue;
			s->stamp[y] = st;
			if (!s->nseq[y]) {
				s->touched[s->ntouched++] = y;
				/* missed in the k entries before: alive iff k <= slack */
				if (k <= slack)
					s->live[s->nlive++] = y;
			}
			s->nseq[y]++;
		}
		since_sweep += n + 1;
		/* Entries processed: k + 1. Nobody can be dead before slack is
		 * exceeded; sweep no more often than the pass does work. */
		if (k + 1 > slack && (since_sweep >= s->nlive || k + 1 == v.n)) {
			uint32_t keep = 0;

			for (uint32_t i = 0; i < s->nlive; i++) {
				uint32_t y = s->live[i];

				if (k + 1 - s->nseq[y] <= slack)
					s->live[keep++] = y;
			}
			s->nlive = keep;
			since_sweep = 0;
			if (!keep)
				break;	/* early stop: no child can reach min_pos */
		}
	}
	/* After a full pass the live items are exactly those with nseq >= min_pos. */
	if (grow32(&L->ch, &L->ch_cap, s->nlive, sizeof(*L->ch))) {
		scratch_reset(s);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < s->nlive; i++) {
		uint32_t y = s->live[i];
		struct child *ch;

		if (s->nseq[y] < c->min_pos)
			continue;
		ch = &L->ch[nc++];
		memset(ch, 0, sizeof(*ch));
		ch->item = y;
		ch->pos_nseq = s->nseq[y];
		ch->pos_npos = s->cnt[y];
	}
	scratch_reset(s);
	if (nc > 1)
		qsort(L->ch, nc, sizeof(*L->ch), cmp_child);
	L->nch = nc;
	L->cur = 0;
	return 0;
}

/* Is a[0..na) an ordinary subsequence of b[0..nb)? */
static bool is_subseq(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
	uint32_t i = 0;

	for (uint32_t j = 0; j < nb && i < na; j++)
		if (a[i] == b[j])
			i++;
	return i == na;
}

/*
 * Non-minimality pruning. No recorded pattern is a subsequence of the node P
 * itself (it was checked when created, and everything recorded since is longer
 * than P or a sibling of P's length), so a recorded Q is a subsequence of P·y
 * iff Q ends with y and Q without its last item is a subsequence of P.
 */
static void prune_nonminimal(struct ctx *c, uint32_t depth)
{
	struct level *L = &c->lv[depth];
	uint32_t keep = 0;

	for (uint32_t i = 0; i < L->nch; i++) {
		bool drop = false;

		for (uint32_t r = c->bucket[L->ch[i].item]; r != NONE && !drop; r = c->rs.rec[r].next) {
			const struct record *q = &c->rs.rec[r];

			drop = is_subseq(c->rs.rsym + q->off, q->len - 1, c->path, depth);
		}
		if (!drop)
			L->ch[keep++] = L->ch[i];
	}
	L->nch = keep;
}

/* Lay out and fill the pos states of the children of level @depth. */
static int pos_fill(struct ctx *c, uint32_t depth)
{
	struct level *L = &c->lv[depth];
	struct batch *b = &L->b;
	struct scratch *s = &c->sc[0];
	struct view v = pos_view(c, depth);
	const uint32_t *sym = c->d->sym;
	size_t nseq = 0, npos = 0;

	for (uint32_t i = 0; i < L->nch; i++) {
		struct child *ch = &L->ch[i];

		ch->e0 = (uint32_t)nseq;
		ch->wseq = (uint32_t)nseq;
		ch->wpos = (uint32_t)npos;
		nseq += ch->pos_nseq;
		npos += ch->pos_npos;
	}
	if (grow(&b->seq, &b->seq_cap, nseq + 1, sizeof(*b->seq)) ||
	    grow(&b->off, &b->off_cap, nseq + 1, sizeof(*b->off)) ||
	    grow(&b->pos, &b->pos_cap, npos + 1, sizeof(*b->pos)))
		return -ENOMEM;
	for (uint32_t i = 0; i < L->nch; i++)
		s->slot[L->ch[i].item] = i;
	for (uint32_t k = 0; k < v.n; k++) {
		uint32_t t, n = pos_window(c, &v, k, &t);
		const uint32_t *ts = sym + c->d->off[t];
		uint64_t st = ++c->stampctr;

		for (uint32_t q = 0; q < n; q++) {
			uint32_t j = c->jbuf[q], y = ts[j], i = s->slot[y];
			struct child *ch;

			if (i == NONE)
				continue;
			ch = &L->ch[i];
			if (s->stamp[y] != st) {
				s->stamp[y] = st;
				b->seq[ch->wseq] = t;
				b->off[ch->wseq] = ch->wpos;
				ch->wseq++;
			}
			b->pos[ch->wpos++] = j;
		}
	}
	b->off[nseq] = (uint32_t)npos;
	for (uint32_t i = 0; i < L->nch; i++)
		s->slot[L->ch[i].item] = NONE;
	return 0;
}

static int neg_extend(struct ctx *c, uint32_t depth);

/*
 * The next entry of the neg state of the node at @depth after *cur, into *e
 * (NONE at the end): for the root a global sequence index, otherwise an entry
 * of lv[depth - 1].nb. Builds chunks of the parent's batch as needed.
 */
static int neg_next(struct ctx *c, uint32_t depth, struct ncursor *cur, uint32_t *e)
{
	struct level *P;
	struct nbatch *B;
	uint32_t i;
	int err;

	if (depth == 0) {
		*e = cur->k < c->d->nseq[1] ? c->d->first[1] + cur->k++ : NONE;
		return 0;
	}
	P = &c->lv[depth - 1];
	B = &P->nb;
	if (!B->active) {
		/* Siblings explored before this one were leaves: skip them. */
		B->active = true;
		B->from = P->cur - 1;
		B->nchild = P->nch - B->from;
	}
	i = P->cur - 1 - B->from;
	for (;;) {
		while (cur->chunk < B->nchunks) {
			const struct nmeta *m = &B->meta[(size_t)cur->chunk * B->nchild + i];

			if (cur->k < m->n) {
				*e = m->e0 + cur->k++;
				return 0;
			}
			cur->chunk++;
			cur->k = 0;
		}
		if (B->complete) {
			*e = NONE;
			return 0;
		}
		err = neg_extend(c, depth - 1);
		if (err)
			return err;
	}
}

/* Window of neg entry @e of the node at @depth (see neg_next()). */
static uint32_t neg_window(struct ctx *c, uint32_t depth, uint32_t e, uint32_t *tseq)
{
	const struct batch *b;

	if (depth == 0) {
		*tseq = e;
		return window(c, e, NULL, 0);
	}
	b = &c->lv[depth - 1].nb.b;
	*tseq = b->seq[e];
	return window(c, *tseq, b->pos + b->off[e], b->off[e + 1] - b->off[e]);
}

/* Build the next chunk of lv[depth].nb from the neg state of the node at @depth. */
static int neg_extend(struct ctx *c, uint32_t depth)
{
	struct level *L = &c->lv[depth];
	struct nbatch *B = &L->nb;
	struct scratch *s = &c->sc[2];
	const uint32_t *sym = c->d->sym;
	uint32_t want = B->nsrc > NEG_CHUNK0 ? B->nsrc : NEG_CHUNK0;
	uint32_t ng = 0, e0 = B->nentries, p0 = B->npos;
	struct nmeta *meta;
	size_t nseq = 0, npos = 0;
	int err = 0;

	if (grow(&B->gather, &B->gather_cap, want, sizeof(*B->gather)) ||
	    grow(&B->meta, &B->meta_cap, ((size_t)B->nchunks + 1) * B->nchild, sizeof(*B->meta)))
		return -ENOMEM;
	/* Gather first: reading the parent may build its chunks, which uses
	 * this scratch too. */
	while (ng < want) {
		uint32_t e;

		err = neg_next(c, depth, &B->src, &e);
		if (err)
			return err;
		if (e == NONE) {
			B->complete = true;
			break;
		}
		B->gather[ng++] = e;
	}
	B->nsrc += ng;
	for (uint32_t i = 0; i < B->nchild; i++)
		s->slot[L->ch[B->from + i].item] = i;
	for (uint32_t g = 0; g < ng; g++) {
		uint32_t t, n = neg_window(c, depth, B->gather[g], &t);
		const uint32_t *ts = sym + c->d->off[t];
		uint64_t st = ++c->stampctr;

		for (uint32_t q = 0; q < n; q++) {
			uint32_t y = ts[c->jbuf[q]];

			if (s->slot[y] == NONE)
				continue;
			s->cnt[y]++;
			if (s->stamp[y] != st) {
				s->stamp[y] = st;
				s->nseq[y]++;
			}
		}
	}
	meta = B->meta + (size_t)B->nchunks * B->nchild;
	for (uint32_t i = 0; i < B->nchild; i++) {
		struct child *ch = &L->ch[B->from + i];

		meta[i].e0 = e0 + (uint32_t)nseq;
		meta[i].n = s->nseq[ch->item];
		ch->wseq = e0 + (uint32_t)nseq;
		ch->wpos = p0 + (uint32_t)npos;
		nseq += s->nseq[ch->item];
		npos += s->cnt[ch->item];
		s->nseq[ch->item] = 0;
		s->cnt[ch->item] = 0;
	}
	if (grow(&B->b.seq, &B->b.seq_cap, e0 + nseq + 1, sizeof(*B->b.seq)) ||
	    grow(&B->b.off, &B->b.off_cap, e0 + nseq + 1, sizeof(*B->b.off)) ||
	    grow(&B->b.pos, &B->b.pos_cap, p0 + npos + 1, sizeof(*B->b.pos))) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t g = 0; g < ng; g++) {
		uint32_t t, n = neg_window(c, depth, B->gather[g], &t);
		const uint32_t *ts = sym + c->d->off[t];
		uint64_t st = ++c->stampctr;

		for (uint32_t q = 0; q < n; q++) {
			uint32_t j = c->jbuf[q], y = ts[j], i = s->slot[y];
			struct child *ch;

			if (i == NONE)
				continue;
			ch = &L->ch[B->from + i];
			if (s->stamp[y] != st) {
				s->stamp[y] = st;
				B->b.seq[ch->wseq] = t;
				B->b.off[ch->wseq] = ch->wpos;
				ch->wseq++;
			}
			B->b.pos[ch->wpos++] = j;
		}
	}
	B->nentries = e0 + (uint32_t)nseq;
	B->npos = p0 + (uint32_t)npos;
	B->b.off[B->nentries] = B->npos;
	B->nchunks++;
out:
	for (uint32_t i = 0; i < B->nchild; i++)
		s->slot[L->ch[B->from + i].item] = NONE;
	return err;
}

/*
 * Neg counts of the candidates lv[depth].ch[0..nch) (children of the node at
 * @depth), reading its neg state only until every candidate exceeds max_neg:
 * the counts are exact for the candidates that end up <= max_neg.
 */
static int neg_decide(struct ctx *c, uint32_t depth)
{
	struct level *L = &c->lv[depth];
	struct scratch *s = &c->sc[1];
	const uint32_t *sym = c->d->sym;
	struct ncursor cur = { 0, 0 };
	uint32_t undecided = L->nch;
	int err = 0;

	for (uint32_t i = 0; i < L->nch; i++)
		c->mark[L->ch[i].item] = 1;
	while (undecided) {
		uint32_t e, t, n;
		const uint32_t *ts;
		uint64_t st;

		err = neg_next(c, depth, &cur, &e);
		if (err || e == NONE)
			break;
		n = neg_window(c, depth, e, &t);
		ts = sym + c->d->off[t];
		st = ++c->stampctr;
		for (uint32_t q = 0; q < n; q++) {
			uint32_t y = ts[c->jbuf[q]];

			if (!c->mark[y] || s->stamp[y] == st)
				continue;
			s->stamp[y] = st;
			if (!s->nseq[y])
				s->touched[s->ntouched++] = y;
			if (++s->nseq[y] == c->max_neg + 1)
				undecided--;
		}
	}
	for (uint32_t i = 0; i < L->nch; i++) {
		c->mark[L->ch[i].item] = 0;
		c->negcnt[i] = s->nseq[L->ch[i].item];
	}
	scratch_reset(s);
	return err;
}

static int record(struct ctx *c, uint32_t depth, uint32_t item, uint32_t pos, uint32_t neg)
{
	struct record *r;
	uint32_t len = depth + 1;

	if (c->o.max_patterns && c->rs.nrec >= c->o.max_patterns) {
		c->bounds |= MINER_BOUND_PATTERNS;
		c->stop = true;
		return 0;
	}
	if (grow32(&c->rs.rec, &c->rs.rec_cap, (size_t)c->rs.nrec + 1, sizeof(*c->rs.rec)) ||
	    grow(&c->rs.rsym, &c->rs.rsym_cap, c->rs.nrsym + len, sizeof(*c->rs.rsym)) ||
	    c->rs.nrsym + len > UINT32_MAX)
		return -ENOMEM;
	r = &c->rs.rec[c->rs.nrec];
	r->off = (uint32_t)c->rs.nrsym;
	r->len = len;
	r->pos = pos;
	r->neg = neg;
	memcpy(c->rs.rsym + c->rs.nrsym, c->path, depth * sizeof(*c->path));
	c->rs.rsym[c->rs.nrsym + depth] = item;
	c->rs.nrsym += len;
	r->next = c->bucket[item];
	c->bucket[item] = c->rs.nrec++;
	if (c->o.any)
		c->stop = true;	/* the question is answered; not a cut */
	return 0;
}

static int ban_item(struct ctx *c, struct level *L, uint32_t y)
{
	if (grow32(&L->ban, &L->ban_cap, (size_t)L->nban + 1, sizeof(*L->ban)))
		return -ENOMEM;
	L->ban[L->nban++] = y;
	c->ban[y]++;
	return 0;
}

static void unban(struct ctx *c, struct level *L)
{
	for (uint32_t i = 0; i < L->nban; i++)
		c->ban[L->ban[i]]--;
	L->nban = 0;
}

static bool out_of_budget(struct ctx *c)
{
	if (c->o.max_nodes && c->nodes - c->node_base >= c->o.max_nodes) {
		c->bounds |= MINER_BOUND_NODES;
		return true;
	}
	if (c->o.time_budget_ns > 0 && now_ns() - c->t0 >= c->o.time_budget_ns) {
		c->bounds |= MINER_BOUND_TIME;
		return true;
	}
	return false;
}

/* Whether sym[0..len) (dense ids) holds an event chance__longer_than_kept() flags. */
static bool holds_longer(const struct miner_data *d, const uint32_t *sym, uint32_t len)
{
	for (uint32_t k = 0; k < len; k++)
		if (d->longer[sym[k]])
			return true;
	return false;
}

/*
 * Whether every extension of P·item (P = c->path[0..depth)) would be left
 * out as chance: with lengths at alpha 0, one of its events is more likely
 * in the breaks' longest window than in a kept one (chance.h,
 * chance__longer_than_kept()), and so is every pattern holding it among
 * events of rates > 0. Extensions are of such events only: an event found
 * in no kept window (rate 0) emerges on its own wherever it is frequent,
 * and is then banned from the whole search. Such a pattern cannot make a
 * reportable one non-minimal either (it holds an event that one has not),
 * so not extending it leaves the answer as it was. On a context-switch
 * storm the breaks' windows are 50-100 times as long as the kept ones and
 * all but one or two events are common: this is what keeps the search at
 * alpha 0 from running through every sequence of them to max_len (2.2 s
 * of a 15 s storm's 4.6 s of mining).
 */
static bool chance_only(const struct ctx *c, uint32_t depth, uint32_t item)
{
	return c->chance_prune && (c->d->longer[item] || holds_longer(c->d, c->path, depth));
}

/* Drops the children of lv[depth] whose extensions are all chance. */
static void drop_chance_only(struct ctx *c, uint32_t depth)
{
	struct level *L = &c->lv[depth];
	uint32_t keep = 0;

	for (uint32_t i = 0; i < L->nch; i++)
		if (!chance_only(c, depth, L->ch[i].item))
			L->ch[keep++] = L->ch[i];
	L->nch = keep;
}

/*
 * Expand the node at @depth (pattern c->path[0..depth)): decide its children
 * and leave the non-emerging ones in lv[depth].ch to be explored.
 */
static int expand(struct ctx *c, uint32_t depth)
{
	struct level *L = &c->lv[depth];
	uint32_t keep = 0;
	int err;

	L->nch = 0;
	L->cur = 0;
	memset(&L->nb.src, 0, sizeof(L->nb.src));
	L->nb.active = L->nb.complete = false;
	L->nb.nentries = L->nb.npos = L->nb.nchunks = L->nb.nsrc = 0;
	if (depth == c->depth_limit) {
		/* Only to tell the caller whether the limit cut anything. */
		if (!c->limit_binds || (c->bounds & MINER_BOUND_MAX_LEN))
			return 0;
		if (out_of_budget(c)) {
			c->stop = true;
			return 0;
		}
		c->nodes++;
		err = pos_pass(c, depth);
		if (err)
			return err;
		prune_nonminimal(c, depth);
		drop_chance_only(c, depth);
		if (L->nch)
			c->bounds |= MINER_BOUND_MAX_LEN;
		L->nch = 0;
		return 0;
	}
	if (out_of_budget(c)) {
		c->stop = true;
		return 0;
	}
	c->nodes++;
	err = pos_pass(c, depth);
	if (err)
		return err;
	if (depth == 0)
		c->nfreq_root = L->nch;
	prune_nonminimal(c, depth);
	if (!L->nch)
		return 0;

	err = neg_decide(c, depth);
	if (err)
		return err;
	for (uint32_t i = 0; i < L->nch; i++) {
		struct child ch = L->ch[i];
		uint32_t neg = c->negcnt[i];

		if (neg <= c->max_neg) {
			if (!c->stop) {
				err = record(c, depth, ch.item, ch.pos_nseq, neg);
				if (err)
					return err;
			}
			/* Sibling pruning: any descendant of a sibling that
			 * contains ch.item contains P·item. */
			err = ban_item(c, L, ch.item);
			if (err)
				return err;
		} else {
			L->ch[keep++] = ch;
		}
	}
	L->nch = keep;
	drop_chance_only(c, depth);
	if (c->stop) {
		L->nch = 0;
		return 0;
	}
	return pos_fill(c, depth);
}

static int search(struct ctx *c)
{
	uint32_t depth = 0;
	int err;

	err = expand(c, 0);
	if (err)
		return err;
	if (!c->lv[0].nch) {
		unban(c, &c->lv[0]);
		return 0;
	}
	while (!c->stop) {
		struct level *L = &c->lv[depth];

		if (L->cur < L->nch) {
			uint32_t item = L->ch[L->cur++].item;

			c->path[depth] = item;
			err = expand(c, depth + 1);
			if (err)
				return err;
			if (c->lv[depth + 1].nch)
				depth++;
			else
				unban(c, &c->lv[depth + 1]);
			continue;
		}
		unban(c, L);
		if (!depth)
			break;
		depth--;
	}
	return 0;
}

static int cmp_rec(const void *a, const void *b, void *arg)
{
	const struct record *x = a, *y = b;
	const uint32_t *rs = arg;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	for (uint32_t i = 0; i < x->len; i++) {
		uint32_t p = rs[x->off + i], q = rs[y->off + i];

		if (p != q)
			return p < q ? -1 : 1;
	}
	return 0;
}

/*
 * Whether a minimal emerging pattern (dense ids) is in no more breaks'
 * windows than their surplus length gives all its events at once
 * (chance__items; a single event's chance is its own count's, which
 * max_neg already bounds). Judged after the search, not in it: the
 * search then stops at such a pattern as at any emerging one, rather
 * than go on through the subtrees of common events (3x the mining time
 * on a context-switch storm).
 */
static bool by_chance(const struct ctx *c, const uint32_t *sym, uint32_t len, uint32_t neg)
{
	if (!c->d->lengths || len < 2 || c->o.any)
		return false;
	/* What chance_only() predicts, decided the same way here, so that the
	 * search's cut and this test agree to the last bit. */
	if (c->chance_prune && holds_longer(c->d, sym, len)) {
		bool rated = true;

		for (uint32_t k = 0; k < len; k++)
			rated &= c->d->symrate[sym[k]] > 0;
		if (rated)
			return true;
	}
	return items_chance(c->d, sym, len, true, neg, c->chance_bound) > c->chance_bound;
}

/*
 * Minimality pass (§4.3 post-processing) over @rs and conversion to caller
 * ids, shortest first, at most max_patterns of them.
 */
static int build_result(struct ctx *c, struct recset *rs, struct miner_result *r)
{
	uint32_t *keep, *mins, nk = 0, nmin = 0;
	size_t nsym = 0;
	uint32_t *syms;

	if (rs->nrec > 1)
		qsort_r(rs->rec, rs->nrec, sizeof(*rs->rec), cmp_rec, rs->rsym);
	keep = malloc((rs->nrec ? rs->nrec : 1) * sizeof(*keep));
	mins = malloc((rs->nrec ? rs->nrec : 1) * sizeof(*mins));
	if (!keep || !mins) {
		free(keep);
		free(mins);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < rs->nrec; i++) {
		const struct record *p = &rs->rec[i];
		bool minimal = true;

		for (uint32_t k = 0; k < nmin && minimal; k++) {
			const struct record *q = &rs->rec[mins[k]];

			if (q->len < p->len &&
			    is_subseq(rs->rsym + q->off, q->len, rs->rsym + p->off, p->len))
				minimal = false;
		}
		if (!minimal)
			continue;
		mins[nmin++] = i;
		if (by_chance(c, rs->rsym + p->off, p->len, p->neg)) {
			r->nchance++;
			continue;
		}
		if (c->o.max_patterns && nk == c->o.max_patterns) {
			c->bounds |= MINER_BOUND_PATTERNS;
			if (r->complete_len >= p->len)
				r->complete_len = p->len - 1;
			break;
		}
		keep[nk++] = i;
		nsym += p->len;
	}
	if (!nk) {
		free(keep);
		free(mins);
		return 0;
	}
	/* One buffer for all symbols; patterns[0].sym is its start. */
	r->patterns = calloc(nk, sizeof(*r->patterns));
	syms = malloc(nsym * sizeof(*syms));
	if (!r->patterns || !syms) {
		free(r->patterns);
		r->patterns = NULL;
		free(syms);
		free(keep);
		free(mins);
		return -ENOMEM;
	}
	nsym = 0;
	for (uint32_t k = 0; k < nk; k++) {
		const struct record *p = &rs->rec[keep[k]];
		struct miner_pattern *mp = &r->patterns[k];

		mp->len = p->len;
		mp->pos_count = p->pos;
		mp->neg_count = p->neg;
		mp->sym = syms + nsym;
		for (uint32_t i = 0; i < p->len; i++)
			syms[nsym++] = c->d->ids[rs->rsym[p->off + i]];
	}
	r->npatterns = nk;
	free(keep);
	free(mins);
	return 0;
}

/* Append to @dst the records of @src of length @len. */
static int recset_append(struct recset *dst, const struct recset *src, uint32_t len)
{
	for (uint32_t i = 0; i < src->nrec; i++) {
		const struct record *q = &src->rec[i];
		struct record *r;

		if (q->len != len)
			continue;
		if (grow32(&dst->rec, &dst->rec_cap, (size_t)dst->nrec + 1, sizeof(*dst->rec)) ||
		    grow(&dst->rsym, &dst->rsym_cap, dst->nrsym + q->len, sizeof(*dst->rsym)))
			return -ENOMEM;
		r = &dst->rec[dst->nrec++];
		*r = *q;
		r->off = (uint32_t)dst->nrsym;
		memcpy(dst->rsym + dst->nrsym, src->rsym + q->off, q->len * sizeof(*dst->rsym));
		dst->nrsym += q->len;
	}
	return 0;
}

static void recset_free(struct recset *rs)
{
	free(rs->rec);
	free(rs->rsym);
}

static void ctx_free(struct ctx *c)
{
	if (c->lv) {
		for (uint32_t i = 0; i <= c->max_depth; i++) {
			struct level *L = &c->lv[i];

			free(L->ch);
			free(L->ban);
			free(L->b.seq);
			free(L->b.off);
			free(L->b.pos);
			free(L->nb.b.seq);
			free(L->nb.b.off);
			free(L->nb.b.pos);
			free(L->nb.meta);
			free(L->nb.gather);
		}
	}
	free(c->lv);
	free(c->path);
	free(c->negcnt);
	for (int s = 0; s < 3; s++) {
		free(c->sc[s].cnt);
		free(c->sc[s].nseq);
		free(c->sc[s].slot);
		free(c->sc[s].stamp);
		free(c->sc[s].touched);
		free(c->sc[s].live);
	}
	free(c->ban);
	free(c->mark);
	free(c->jbuf);
	recset_free(&c->rs);
	recset_free(&c->saved);
	free(c->bucket);
}

static int ctx_init(struct ctx *c)
{
	const struct miner_data *d = c->d;
	size_t ns = d->nsym ? d->nsym : 1;
	uint32_t longest = d->maxlen[0] > d->maxlen[1] ? d->maxlen[0] : d->maxlen[1];

	/* No pattern is longer than the longest pos sequence. */
	c->max_depth = d->maxlen[0];
	if (c->o.max_len && c->o.max_len < c->max_depth)
		c->max_depth = c->o.max_len;
	c->lv = calloc((size_t)c->max_depth + 1, sizeof(*c->lv));
	c->path = calloc((size_t)c->max_depth + 1, sizeof(*c->path));
	c->ban = calloc(ns, sizeof(*c->ban));
	c->mark = calloc(ns, sizeof(*c->mark));
	c->negcnt = calloc(ns, sizeof(*c->negcnt));
	c->bucket = malloc(ns * sizeof(*c->bucket));
	c->jbuf = malloc(((size_t)longest + 1) * sizeof(*c->jbuf));
	if (!c->lv || !c->path || !c->ban || !c->mark || !c->negcnt || !c->bucket || !c->jbuf)
		return -ENOMEM;
	for (int s = 0; s < 3; s++) {
		struct scratch *x = &c->sc[s];

		x->cnt = calloc(ns, sizeof(*x->cnt));
		x->nseq = calloc(ns, sizeof(*x->nseq));
		x->slot = malloc(ns * sizeof(*x->slot));
		x->stamp = calloc(ns, sizeof(*x->stamp));
		x->touched = malloc(ns * sizeof(*x->touched));
		x->live = malloc(ns * sizeof(*x->live));
		if (!x->cnt || !x->nseq || !x->slot || !x->stamp || !x->touched || !x->live)
			return -ENOMEM;
		for (size_t i = 0; i < ns; i++)
			x->slot[i] = NONE;
	}
	return 0;
}

/* One depth-first search with patterns up to @limit long, from scratch. */
static int run_pass(struct ctx *c, uint32_t limit)
{
	size_t ns = c->d->nsym ? c->d->nsym : 1;

	c->depth_limit = limit;
	c->limit_binds = limit < c->d->maxlen[0];
	c->stop = false;
	c->bounds = 0;
	c->rs.nrec = 0;
	c->rs.nrsym = 0;
	/* A cut pass leaves bans on its path: forget them with the counts. */
	memset(c->ban, 0, ns * sizeof(*c->ban));
	for (uint32_t i = 0; i <= c->max_depth; i++)
		c->lv[i].nban = 0;
	for (size_t i = 0; i < ns; i++)
		c->bucket[i] = NONE;
	return search(c);
}

#define CUT (MINER_BOUND_NODES | MINER_BOUND_TIME | MINER_BOUND_PATTERNS)

/*
 * The search proper. One pass to max_len; if the node budget or the pattern
 * cap cut it, a plain DFS leaves whole subtrees of the largest symbol ids
 * unexplored, an arbitrary bias. Then search again by iterative deepening
 * (limits 1, 2, ...) with a fresh node budget, and keep the last complete
 * pass plus the next pass's patterns one longer: every minimal pattern up to
 * *complete_len is then found, and short patterns, the readable ones, first.
 * With opts.deepen, only the second phase runs.
 */
static int mine(struct ctx *c, unsigned *bounds, uint32_t *complete_len, struct recset **out)
{
	int err = 0;

	*bounds = 0;
	*complete_len = 0;
	*out = &c->saved;
	if (!c->o.deepen) {
		err = run_pass(c, c->max_depth);
		*bounds = c->bounds;
		*complete_len = c->bounds & CUT ? 0 : c->max_depth;
		*out = &c->rs;
		if (err || !(c->bounds & CUT) || (c->bounds & MINER_BOUND_TIME))
			return err;
	}
	c->node_base = c->nodes;
	for (uint32_t k = 1; k <= c->max_depth; k++) {
		struct recset tmp;

		err = run_pass(c, k);
		if (err)
			return err;
		if (c->bounds & CUT) {
			/* Patterns of length k of the cut pass are minimal: all
			 * shorter minimal ones are in the last complete pass. */
			*bounds |= c->bounds & CUT;
			err = recset_append(&c->saved, &c->rs, k);
			*out = &c->saved;
			return err;
		}
		tmp = c->saved;
		c->saved = c->rs;
		c->rs = tmp;
		*complete_len = k;
		*out = &c->saved;
		if (c->o.any && c->saved.nrec)
			break;
		/* A pass's own limit below max_len is not the caller's bound. */
		if (k == c->max_depth || !(c->bounds & MINER_BOUND_MAX_LEN)) {
			/* Complete: the answer is exact, whatever cut the first
			 * search. */
			*bounds = c->bounds;
			*complete_len = c->max_depth;
			break;
		}
	}
	return 0;
}


int miner_data__mine(const struct miner_data *d, const struct miner_opts *opts,
		     struct miner_result **out)
{
	struct ctx c = { 0 };
	struct miner_result *r;
	struct recset *rs = NULL;
	unsigned bounds = 0;
	int err;

	if (!d || !out)
		return -EINVAL;
	*out = NULL;
	c.d = d;
	if (opts)
		c.o = *opts;
	else
		miner_opts_default(&c.o);
	if (c.o.delta_ppm > MINER_PPM_ONE || c.o.alpha_ppm > MINER_PPM_ONE ||
	    c.o.gap_min > c.o.gap_max || c.o.time_budget_ns < 0)
		return -EINVAL;
	c.o.max_seq_len = d->max_seq_len;	/* applied when the data was built */
	c.t0 = now_ns();
	c.min_pos = miner_min_pos(c.o.delta_ppm, d->nseq[0]);
	c.max_neg = miner_data__max_neg(d, c.o.alpha_ppm);
	c.chance_bound = (double)c.o.alpha_ppm / MINER_PPM_ONE * d->nseq[0] * (1 + 1e-9);
	c.chance_prune = d->lengths && !c.o.any && c.o.alpha_ppm == 0;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	err = ctx_init(&c);
	/* min_pos <= |D_pos| always (delta <= 100 %), so the root is frequent. */
	if (!err)
		err = mine(&c, &bounds, &r->complete_len, &rs);
	if (!err) {
		c.bounds = 0;
		err = build_result(&c, rs, r);
		bounds |= c.bounds;
	}
	if (err) {
		ctx_free(&c);
		free(r);
		return err;
	}
	r->npos = d->nseq[0];
	r->nneg = d->nseq[1];
	r->min_pos = c.min_pos;
	r->max_neg = c.max_neg;
	r->nsymbols = d->nsym;
	r->nsymbols_frequent = c.nfreq_root;
	r->nseq_truncated = d->nseq_truncated;
	r->bounds = bounds | (d->nseq_truncated ? MINER_BOUND_SEQ_LEN : 0);
	r->nodes = c.nodes;
	r->nrecorded = rs->nrec;
	r->work = c.work;
	r->opts = c.o;
	ctx_free(&c);
	r->elapsed_ns = now_ns() - c.t0;
	*out = r;
	return 0;
}

int miner_mine(const struct miner_seq *pos, uint32_t npos,
	       const struct miner_seq *neg, uint32_t nneg,
	       const struct miner_opts *opts, struct miner_result **out)
{
	struct miner_data *d;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	err = miner_data__new(pos, npos, neg, nneg, opts, &d);
	if (err)
		return err;
	err = miner_data__mine(d, opts, out);
	miner_data__free(d);
	return err;
}

void miner_result__free(struct miner_result *r)
{
	if (!r)
		return;
	if (r->patterns && r->npatterns)
		free((void *)r->patterns[0].sym);
	free(r->patterns);
	free(r);
}

static void put(char *buf, size_t size, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	if (*n < size)
		w = vsnprintf(buf + *n, size - *n, fmt, ap);
	else
		w = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (w > 0)
		*n += (size_t)w;
}

int miner_bounds_describe(unsigned bounds, const struct miner_opts *o, char *buf, size_t size)
{
	struct miner_opts def;
	const char *sep = "search truncated at ";
	size_t n = 0;

	if (!o) {
		miner_opts_default(&def);
		o = &def;
	}
	if (size)
		buf[0] = '\0';
	if (bounds & MINER_BOUND_MAX_LEN) {
		put(buf, size, &n, "%smax pattern length %u", sep, o->max_len);
		sep = ", ";
	}
	if (bounds & MINER_BOUND_NODES) {
		put(buf, size, &n, "%snode budget %llu", sep, (unsigned long long)o->max_nodes);
		sep = ", ";
	}
	if (bounds & MINER_BOUND_TIME) {
		put(buf, size, &n, "%stime budget %.3f s", sep, (double)o->time_budget_ns / 1e9);
		sep = ", ";
	}
	if (bounds & MINER_BOUND_PATTERNS) {
		put(buf, size, &n, "%s%u patterns", sep, o->max_patterns);
		sep = ", ";
	}
	if (bounds & MINER_BOUND_SEQ_LEN)
		put(buf, size, &n, "%ssequence length %u (longer subtraces cut)", sep,
		    o->max_seq_len);
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

int miner_result__describe_bounds(const struct miner_result *r, char *buf, size_t size)
{
	size_t n;

	n = (size_t)miner_bounds_describe(r->bounds, &r->opts, buf, size);
	if (r->bounds & (MINER_BOUND_NODES | MINER_BOUND_TIME | MINER_BOUND_PATTERNS))
		put(buf, size, &n, "; complete for patterns up to length %u", r->complete_len);
	return n > INT32_MAX ? INT32_MAX : (int)n;
}
