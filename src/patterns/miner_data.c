// SPDX-License-Identifier: MIT
/*
 * The miner's index of D_pos and D_neg (miner.h): every event as a dense
 * symbol id, the sequences one after another, built once and read by every
 * search on it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct idmap {
	uint64_t *slots;	/* key + 1, so that 0 marks an empty slot */
	uint32_t *val;
	size_t cap, n;
};

static size_t hash32(uint32_t k, size_t mask)
{
	return (size_t)(((uint64_t)k * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* Returns the tentative dense id of @k (first-appearance order), or MINER_NONE on
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
			return MINER_NONE;
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

				if (t == MINER_NONE)
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
