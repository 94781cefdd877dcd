// SPDX-License-Identifier: MIT
/*
 * The miner's search (docs/ALGORITHMS.md §4.3): depth-first prefix growth,
 * one node at a time.
 *
 * Representation. The state of a search node P on one sequence T is the set
 * E_P[T] of positions where a g-valid occurrence of P ends. The specification
 * keeps it as a dense bitset and computes every child P·x as
 * gapmask(E_P[T]) & B_x[T]. We keep the same sets sparsely, as sorted
 * position lists, and compute all children at once: the positions of
 * gapmask(E_P[T]) are enumerated (merged windows [i+gmin+1, i+g+1] after
 * each end i) and each masked position j goes to the child T[j]. That is the
 * AND with every B_x simultaneously, because the B_x partition T's
 * positions. A node then costs O(sum over T of min(|T|, (g+1)|E_P[T]|))
 * instead of O(|alphabet| * |T|/64) per sequence, and deep nodes, whose end
 * sets are tiny, cost next to nothing. The per-node item filtering of its
 * step 6 falls out for free: only items inside a window are ever counted.
 * The root's children are the per-item per-sequence position lists, i.e.
 * the non-empty B_x[T].
 *
 * Per node, in this order (docs/ALGORITHMS.md §4.3): count pos support of
 * every allowed child in one pass, stopping early once no child can reach
 * min_pos; drop children that contain an already recorded pattern
 * (non-minimality); count neg support of the survivors, stopping once every
 * one exceeds max_neg (miner_neg.c); record the emerging ones and ban their
 * last item in the sibling subtrees; materialise the pos states of the
 * others.
 */
#include <string.h>

#include "internal.h"

static struct miner_view pos_view(const struct miner_ctx *c, uint32_t depth)
{
	struct miner_view v = { 0 };
	const struct miner_level *p;
	const struct miner_child *ch;

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

/* Window of entry @k of pos view @v; *tseq is the global sequence index. */
static uint32_t pos_window(struct miner_ctx *c, const struct miner_view *v, uint32_t k, uint32_t *tseq)
{
	uint32_t e;

	if (v->root) {
		*tseq = k;
		return miner_window(c, k, NULL, 0);
	}
	e = v->e0 + k;
	*tseq = v->seq[e];
	return miner_window(c, *tseq, v->pos + v->off[e], v->off[e + 1] - v->off[e]);
}

static int cmp_child(const void *a, const void *b)
{
	const struct miner_child *x = a, *y = b;

	return (x->item > y->item) - (x->item < y->item);
}

/*
 * Pos pass: count, for every child item not banned on the path, the pos
 * sequences and end positions. Stops early once no item can still reach
 * min_pos (items missed in more than nseq - min_pos entries are dead).
 * Leaves the candidates, sorted by item, in lv->ch.
 */
static int pos_pass(struct miner_ctx *c, uint32_t depth)
{
	struct miner_view v = pos_view(c, depth);
	struct miner_scratch *s = &c->sc[0];
	struct miner_level *L = &c->lv[depth];
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
	if (patterns_grow32(&L->ch, &L->ch_cap, s->nlive, sizeof(*L->ch))) {
		miner_scratch_reset(s);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < s->nlive; i++) {
		uint32_t y = s->live[i];
		struct miner_child *ch;

		if (s->nseq[y] < c->min_pos)
			continue;
		ch = &L->ch[nc++];
		memset(ch, 0, sizeof(*ch));
		ch->item = y;
		ch->pos_nseq = s->nseq[y];
		ch->pos_npos = s->cnt[y];
	}
	miner_scratch_reset(s);
	if (nc > 1)
		qsort(L->ch, nc, sizeof(*L->ch), cmp_child);
	L->nch = nc;
	L->cur = 0;
	return 0;
}

/*
 * Non-minimality pruning. No recorded pattern is a subsequence of the node P
 * itself (it was checked when created, and everything recorded since is longer
 * than P or a sibling of P's length), so a recorded Q is a subsequence of P·y
 * iff Q ends with y and Q without its last item is a subsequence of P.
 */
static void prune_nonminimal(struct miner_ctx *c, uint32_t depth)
{
	struct miner_level *L = &c->lv[depth];
	uint32_t keep = 0;

	for (uint32_t i = 0; i < L->nch; i++) {
		bool drop = false;

		for (uint32_t r = c->bucket[L->ch[i].item]; r != MINER_NONE && !drop; r = c->rs.rec[r].next) {
			const struct miner_record *q = &c->rs.rec[r];

			drop = miner_is_subseq(c->rs.rsym + q->off, q->len - 1, c->path, depth);
		}
		if (!drop)
			L->ch[keep++] = L->ch[i];
	}
	L->nch = keep;
}

/* Lay out and fill the pos states of the children of level @depth. */
static int pos_fill(struct miner_ctx *c, uint32_t depth)
{
	struct miner_level *L = &c->lv[depth];
	struct miner_batch *b = &L->b;
	struct miner_scratch *s = &c->sc[0];
	struct miner_view v = pos_view(c, depth);
	const uint32_t *sym = c->d->sym;
	size_t nseq = 0, npos = 0;

	for (uint32_t i = 0; i < L->nch; i++) {
		struct miner_child *ch = &L->ch[i];

		ch->e0 = (uint32_t)nseq;
		ch->wseq = (uint32_t)nseq;
		ch->wpos = (uint32_t)npos;
		nseq += ch->pos_nseq;
		npos += ch->pos_npos;
	}
	if (patterns_grow(&b->seq, &b->seq_cap, nseq + 1, sizeof(*b->seq)) ||
	    patterns_grow(&b->off, &b->off_cap, nseq + 1, sizeof(*b->off)) ||
	    patterns_grow(&b->pos, &b->pos_cap, npos + 1, sizeof(*b->pos)))
		return -ENOMEM;
	for (uint32_t i = 0; i < L->nch; i++)
		s->slot[L->ch[i].item] = i;
	for (uint32_t k = 0; k < v.n; k++) {
		uint32_t t, n = pos_window(c, &v, k, &t);
		const uint32_t *ts = sym + c->d->off[t];
		uint64_t st = ++c->stampctr;

		for (uint32_t q = 0; q < n; q++) {
			uint32_t j = c->jbuf[q], y = ts[j], i = s->slot[y];
			struct miner_child *ch;

			if (i == MINER_NONE)
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
		s->slot[L->ch[i].item] = MINER_NONE;
	return 0;
}

static int record(struct miner_ctx *c, uint32_t depth, uint32_t item, uint32_t pos, uint32_t neg)
{
	struct miner_record *r;
	uint32_t len = depth + 1;

	if (c->o.max_patterns && c->rs.nrec >= c->o.max_patterns) {
		c->bounds |= MINER_BOUND_PATTERNS;
		c->stop = true;
		return 0;
	}
	if (patterns_grow32(&c->rs.rec, &c->rs.rec_cap, (size_t)c->rs.nrec + 1, sizeof(*c->rs.rec)) ||
	    patterns_grow(&c->rs.rsym, &c->rs.rsym_cap, c->rs.nrsym + len, sizeof(*c->rs.rsym)) ||
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

static int ban_item(struct miner_ctx *c, struct miner_level *L, uint32_t y)
{
	if (patterns_grow32(&L->ban, &L->ban_cap, (size_t)L->nban + 1, sizeof(*L->ban)))
		return -ENOMEM;
	L->ban[L->nban++] = y;
	c->ban[y]++;
	return 0;
}

static void unban(struct miner_ctx *c, struct miner_level *L)
{
	for (uint32_t i = 0; i < L->nban; i++)
		c->ban[L->ban[i]]--;
	L->nban = 0;
}

static bool out_of_budget(struct miner_ctx *c)
{
	if (c->o.max_nodes && c->nodes - c->node_base >= c->o.max_nodes) {
		c->bounds |= MINER_BOUND_NODES;
		return true;
	}
	if (c->o.time_budget_ns > 0 && patterns_now_ns() - c->t0 >= c->o.time_budget_ns) {
		c->bounds |= MINER_BOUND_TIME;
		return true;
	}
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
static bool chance_only(const struct miner_ctx *c, uint32_t depth, uint32_t item)
{
	return c->chance_prune && (c->d->longer[item] || miner_chance_holds_longer(c->d, c->path, depth));
}

/* Drops the children of lv[depth] whose extensions are all chance. */
static void drop_chance_only(struct miner_ctx *c, uint32_t depth)
{
	struct miner_level *L = &c->lv[depth];
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
static int expand(struct miner_ctx *c, uint32_t depth)
{
	struct miner_level *L = &c->lv[depth];
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

	err = miner_neg_decide(c, depth);
	if (err)
		return err;
	for (uint32_t i = 0; i < L->nch; i++) {
		struct miner_child ch = L->ch[i];
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

int miner_search(struct miner_ctx *c)
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
		struct miner_level *L = &c->lv[depth];

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
