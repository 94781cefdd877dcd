// SPDX-License-Identifier: MIT
/*
 * Gap-constrained containment, the dense bitset recurrence itself, kept
 * independent of the miner so that each checks the other in the tests; see
 * tests/ref/miner_contains.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lib/bitset.h"
#include "ref/miner_contains.h"

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

int miner_contains_count(const struct miner_seq *pos, uint32_t npos, const struct miner_seq *neg,
			 uint32_t nneg, const uint32_t *pat, uint32_t len, uint32_t gap_min,
			 uint32_t gap_max, uint32_t *pos_count, uint32_t *neg_count)
{
	const struct miner_seq *side[2] = { pos, neg };
	uint32_t nseq[2] = { npos, nneg }, cnt[2] = { 0, 0 };

	if (!len || !pat || gap_min > gap_max)
		return -EINVAL;
	for (int s = 0; s < 2; s++) {
		for (uint32_t i = 0; i < nseq[s]; i++) {
			int r = miner_contains(pat, len, side[s][i].sym, side[s][i].len, gap_min, gap_max);

			if (r < 0)
				return r;
			cnt[s] += (uint32_t)r;
		}
	}
	if (pos_count)
		*pos_count = cnt[0];
	if (neg_count)
		*neg_count = cnt[1];
	return 0;
}
