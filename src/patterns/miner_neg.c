// SPDX-License-Identifier: MIT
/*
 * The neg states of the miner's search nodes (miner_search.c), and the neg
 * counts that decide which children emerge.
 *
 * Neg states are built lazily, in chunks of sequences (struct miner_nbatch):
 * the neg count of a candidate only has to exceed max_neg, which usually
 * takes a few dozen sequences, and most nodes are leaves that never need
 * their children's neg states at all. Building them whole instead made 70 %
 * of the work; lazily, the total work on the benchmark (1,000 x 2,000
 * events, δ 94 %, α 2 %) fell from 175 M to 64 M positions visited.
 */
#include "internal.h"

#define NEG_CHUNK0 32

static int neg_extend(struct miner_ctx *c, uint32_t depth);

/*
 * The next entry of the neg state of the node at @depth after *cur, into *e
 * (MINER_NONE at the end): for the root a global sequence index, otherwise an entry
 * of lv[depth - 1].nb. Builds chunks of the parent's batch as needed.
 */
static int neg_next(struct miner_ctx *c, uint32_t depth, struct miner_ncursor *cur, uint32_t *e)
{
	struct miner_level *P;
	struct miner_nbatch *B;
	uint32_t i;
	int err;

	if (depth == 0) {
		*e = cur->k < c->d->nseq[1] ? c->d->first[1] + cur->k++ : MINER_NONE;
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
			const struct miner_nmeta *m = &B->meta[(size_t)cur->chunk * B->nchild + i];

			if (cur->k < m->n) {
				*e = m->e0 + cur->k++;
				return 0;
			}
			cur->chunk++;
			cur->k = 0;
		}
		if (B->complete) {
			*e = MINER_NONE;
			return 0;
		}
		err = neg_extend(c, depth - 1);
		if (err)
			return err;
	}
}

/* Window of neg entry @e of the node at @depth (see neg_next()). */
static uint32_t neg_window(struct miner_ctx *c, uint32_t depth, uint32_t e, uint32_t *tseq)
{
	const struct miner_batch *b;

	if (depth == 0) {
		*tseq = e;
		return miner_window(c, e, NULL, 0);
	}
	b = &c->lv[depth - 1].nb.b;
	*tseq = b->seq[e];
	return miner_window(c, *tseq, b->pos + b->off[e], b->off[e + 1] - b->off[e]);
}

/* Build the next chunk of lv[depth].nb from the neg state of the node at @depth. */
static int neg_extend(struct miner_ctx *c, uint32_t depth)
{
	struct miner_level *L = &c->lv[depth];
	struct miner_nbatch *B = &L->nb;
	struct miner_scratch *s = &c->sc[2];
	const uint32_t *sym = c->d->sym;
	uint32_t want = B->nsrc > NEG_CHUNK0 ? B->nsrc : NEG_CHUNK0;
	uint32_t ng = 0, e0 = B->nentries, p0 = B->npos;
	struct miner_nmeta *meta;
	size_t nseq = 0, npos = 0;
	int err = 0;

	if (patterns_grow(&B->gather, &B->gather_cap, want, sizeof(*B->gather)) ||
	    patterns_grow(&B->meta, &B->meta_cap, ((size_t)B->nchunks + 1) * B->nchild, sizeof(*B->meta)))
		return -ENOMEM;
	/* Gather first: reading the parent may build its chunks, which uses
	 * this scratch too. */
	while (ng < want) {
		uint32_t e;

		err = neg_next(c, depth, &B->src, &e);
		if (err)
			return err;
		if (e == MINER_NONE) {
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

			if (s->slot[y] == MINER_NONE)
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
		struct miner_child *ch = &L->ch[B->from + i];

		meta[i].e0 = e0 + (uint32_t)nseq;
		meta[i].n = s->nseq[ch->item];
		ch->wseq = e0 + (uint32_t)nseq;
		ch->wpos = p0 + (uint32_t)npos;
		nseq += s->nseq[ch->item];
		npos += s->cnt[ch->item];
		s->nseq[ch->item] = 0;
		s->cnt[ch->item] = 0;
	}
	if (patterns_grow(&B->b.seq, &B->b.seq_cap, e0 + nseq + 1, sizeof(*B->b.seq)) ||
	    patterns_grow(&B->b.off, &B->b.off_cap, e0 + nseq + 1, sizeof(*B->b.off)) ||
	    patterns_grow(&B->b.pos, &B->b.pos_cap, p0 + npos + 1, sizeof(*B->b.pos))) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t g = 0; g < ng; g++) {
		uint32_t t, n = neg_window(c, depth, B->gather[g], &t);
		const uint32_t *ts = sym + c->d->off[t];
		uint64_t st = ++c->stampctr;

		for (uint32_t q = 0; q < n; q++) {
			uint32_t j = c->jbuf[q], y = ts[j], i = s->slot[y];
			struct miner_child *ch;

			if (i == MINER_NONE)
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
		s->slot[L->ch[B->from + i].item] = MINER_NONE;
	return err;
}

/*
 * Neg counts of the candidates lv[depth].ch[0..nch) (children of the node at
 * @depth), reading its neg state only until every candidate exceeds max_neg:
 * the counts are exact for the candidates that end up <= max_neg.
 */
int miner_neg_decide(struct miner_ctx *c, uint32_t depth)
{
	struct miner_level *L = &c->lv[depth];
	struct miner_scratch *s = &c->sc[1];
	const uint32_t *sym = c->d->sym;
	struct miner_ncursor cur = { 0, 0 };
	uint32_t undecided = L->nch;
	int err = 0;

	for (uint32_t i = 0; i < L->nch; i++)
		c->mark[L->ch[i].item] = 1;
	while (undecided) {
		uint32_t e, t, n;
		const uint32_t *ts;
		uint64_t st;

		err = neg_next(c, depth, &cur, &e);
		if (err || e == MINER_NONE)
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
	miner_scratch_reset(s);
	return err;
}
