// SPDX-License-Identifier: MIT
/* Word-parallel bitset operations for the gap-constrained containment test. */
#include <string.h>

#include "bitset.h"

void bitset_zero(uint64_t *b, size_t nwords)
{
	if (nwords)
		memset(b, 0, nwords * sizeof(*b));
}

bool bitset_any(const uint64_t *b, size_t nwords)
{
	for (size_t w = 0; w < nwords; w++)
		if (b[w])
			return true;
	return false;
}

size_t bitset_count(const uint64_t *b, size_t nwords)
{
	size_t n = 0;

	for (size_t w = 0; w < nwords; w++)
		n += (size_t)__builtin_popcountll(b[w]);
	return n;
}

void bitset_shl(uint64_t *dst, const uint64_t *src, size_t nwords, size_t shift)
{
	size_t ws = shift / 64, bs = shift % 64;

	if (ws >= nwords) {
		bitset_zero(dst, nwords);
		return;
	}
	/* Walk downwards so that dst == src works. */
	for (size_t w = nwords; w-- > ws;) {
		uint64_t v = src[w - ws] << bs;

		if (bs && w - ws > 0)
			v |= src[w - ws - 1] >> (64 - bs);
		dst[w] = v;
	}
	bitset_zero(dst, ws);
}

void bitset_gap_mask(uint64_t *dst, const uint64_t *src, uint64_t *tmp, size_t nwords,
		     uint32_t gmin, uint32_t gmax)
{
	uint64_t width = (uint64_t)gmax - gmin + 1;
	uint64_t covered = 1;
	size_t limit = nwords * 64;

	/* Shifts of nwords*64 bits or more empty the set: clamp to stay in size_t. */
	bitset_shl(dst, src, nwords, (uint64_t)gmin + 1 > limit ? limit : (size_t)gmin + 1);
	if (width > limit)
		width = limit;
	/* dst holds the OR of shifts gmin+1 .. gmin+covered; double the run. */
	while (covered < width) {
		uint64_t step = covered < width - covered ? covered : width - covered;

		bitset_shl(tmp, dst, nwords, (size_t)step);
		for (size_t w = 0; w < nwords; w++)
			dst[w] |= tmp[w];
		covered += step;
	}
}

bool bitset_and(uint64_t *dst, const uint64_t *src, size_t nwords)
{
	uint64_t any = 0;

	for (size_t w = 0; w < nwords; w++) {
		dst[w] &= src[w];
		any |= dst[w];
	}
	return any != 0;
}
