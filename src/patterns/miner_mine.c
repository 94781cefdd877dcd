// SPDX-License-Identifier: MIT
/*
 * ConSGapMiner: minimal gap-constrained emerging sequential patterns
 * (docs/ALGORITHMS.md §4.3); see miner.h. This file runs one search: its
 * passes within the budgets (mine(): the iterative deepening that follows a
 * cut search), then the minimality pass and the result. The index is
 * miner_data.c, the node expansion miner_search.c and miner_neg.c, the
 * options and the thresholds as counts miner_opts.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int cmp_rec(const void *a, const void *b, void *arg)
{
	const struct miner_record *x = a, *y = b;
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
static bool by_chance(const struct miner_ctx *c, const uint32_t *sym, uint32_t len, uint32_t neg)
{
	if (!c->d->lengths || len < 2 || c->o.any)
		return false;
	/* What chance_only() predicts, decided the same way here, so that the
	 * search's cut and this test agree to the last bit. */
	if (c->chance_prune && miner_chance_holds_longer(c->d, sym, len)) {
		bool rated = true;

		for (uint32_t k = 0; k < len; k++)
			rated &= c->d->symrate[sym[k]] > 0;
		if (rated)
			return true;
	}
	return miner_chance_items(c->d, sym, len, true, neg, c->chance_bound) > c->chance_bound;
}

/*
 * Minimality pass (docs/ALGORITHMS.md §4.3, post-processing) over @rs and conversion to caller
 * ids, shortest first, at most max_patterns of them.
 */
static int build_result(struct miner_ctx *c, struct miner_recset *rs, struct miner_result *r)
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
		const struct miner_record *p = &rs->rec[i];
		bool minimal = true;

		for (uint32_t k = 0; k < nmin && minimal; k++) {
			const struct miner_record *q = &rs->rec[mins[k]];

			if (q->len < p->len &&
			    miner_is_subseq(rs->rsym + q->off, q->len, rs->rsym + p->off, p->len))
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
		const struct miner_record *p = &rs->rec[keep[k]];
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
static int recset_append(struct miner_recset *dst, const struct miner_recset *src, uint32_t len)
{
	for (uint32_t i = 0; i < src->nrec; i++) {
		const struct miner_record *q = &src->rec[i];
		struct miner_record *r;

		if (q->len != len)
			continue;
		if (patterns_grow32(&dst->rec, &dst->rec_cap, (size_t)dst->nrec + 1, sizeof(*dst->rec)) ||
		    patterns_grow(&dst->rsym, &dst->rsym_cap, dst->nrsym + q->len, sizeof(*dst->rsym)))
			return -ENOMEM;
		r = &dst->rec[dst->nrec++];
		*r = *q;
		r->off = (uint32_t)dst->nrsym;
		memcpy(dst->rsym + dst->nrsym, src->rsym + q->off, q->len * sizeof(*dst->rsym));
		dst->nrsym += q->len;
	}
	return 0;
}

static void recset_free(struct miner_recset *rs)
{
	free(rs->rec);
	free(rs->rsym);
}

static void ctx_free(struct miner_ctx *c)
{
	if (c->lv) {
		for (uint32_t i = 0; i <= c->max_depth; i++) {
			struct miner_level *L = &c->lv[i];

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

static int ctx_init(struct miner_ctx *c)
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
		struct miner_scratch *x = &c->sc[s];

		x->cnt = calloc(ns, sizeof(*x->cnt));
		x->nseq = calloc(ns, sizeof(*x->nseq));
		x->slot = malloc(ns * sizeof(*x->slot));
		x->stamp = calloc(ns, sizeof(*x->stamp));
		x->touched = malloc(ns * sizeof(*x->touched));
		x->live = malloc(ns * sizeof(*x->live));
		if (!x->cnt || !x->nseq || !x->slot || !x->stamp || !x->touched || !x->live)
			return -ENOMEM;
		for (size_t i = 0; i < ns; i++)
			x->slot[i] = MINER_NONE;
	}
	return 0;
}

/* One depth-first search with patterns up to @limit long, from scratch. */
static int run_pass(struct miner_ctx *c, uint32_t limit)
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
		c->bucket[i] = MINER_NONE;
	return miner_search(c);
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
static int mine(struct miner_ctx *c, unsigned *bounds, uint32_t *complete_len, struct miner_recset **out)
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
		struct miner_recset tmp;

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
	struct miner_ctx c = { 0 };
	struct miner_result *r;
	struct miner_recset *rs = NULL;
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
	if (c.o.delta_ppm > PPM_ONE || c.o.alpha_ppm > PPM_ONE ||
	    c.o.gap_min > c.o.gap_max || c.o.time_budget_ns < 0)
		return -EINVAL;
	c.o.max_seq_len = d->max_seq_len;	/* applied when the data was built */
	c.t0 = patterns_now_ns();
	c.min_pos = miner_min_pos(c.o.delta_ppm, d->nseq[0]);
	c.max_neg = miner_data__max_neg(d, c.o.alpha_ppm);
	c.chance_bound = (double)c.o.alpha_ppm / PPM_ONE * d->nseq[0] * (1 + 1e-9);
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
	r->elapsed_ns = patterns_now_ns() - c.t0;
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
