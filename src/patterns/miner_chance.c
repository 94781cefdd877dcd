// SPDX-License-Identifier: MIT
/*
 * The windows' lengths on the miner's index (miner_data__set_lengths): the
 * chance counts of chance.h per symbol and per pattern, the max_neg they
 * give, and the score the patterns are ranked by.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

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

double miner_chance_items(const struct miner_data *d, const uint32_t *sym, uint32_t len, bool dense,
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
	items = miner_chance_items(d, sym, len, false, neg_count, INFINITY);
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

bool miner_chance_holds_longer(const struct miner_data *d, const uint32_t *sym, uint32_t len)
{
	for (uint32_t k = 0; k < len; k++)
		if (d->longer[sym[k]])
			return true;
	return false;
}
