/* SPDX-License-Identifier: MIT */
/*
 * Fixed-size bitsets over 64-bit words, bit j of the set is bit (j % 64) of
 * word (j / 64). Only the operations the gap-constrained containment test
 * needs (docs/ALGORITHMS.md §4.3): the caller owns the memory.
 */
#ifndef QT_BITSET_H
#define QT_BITSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline size_t bitset_words(size_t nbits)
{
	return (nbits + 63) / 64;
}

static inline void bitset_set(uint64_t *b, size_t j)
{
	b[j / 64] |= (uint64_t)1 << (j % 64);
}

static inline bool bitset_test(const uint64_t *b, size_t j)
{
	return (b[j / 64] >> (j % 64)) & 1;
}

void bitset_zero(uint64_t *b, size_t nwords);
bool bitset_any(const uint64_t *b, size_t nwords);
size_t bitset_count(const uint64_t *b, size_t nwords);

/* dst = src shifted by @shift bits towards higher indices (bit j -> j+shift);
 * bits pushed past the last word are lost. dst may equal src. */
void bitset_shl(uint64_t *dst, const uint64_t *src, size_t nwords, size_t shift);

/*
 * The gap mask of ConSGapMiner: dst = OR of (src << s) for s = gmin+1 .. gmax+1,
 * i.e. bit j is set iff some bit i of src has gmin <= j - i - 1 <= gmax.
 * Built by doubling, O(nwords * log(gmax - gmin + 1)). @tmp is scratch of
 * @nwords words; dst, src and tmp must not overlap. Requires gmin <= gmax.
 */
void bitset_gap_mask(uint64_t *dst, const uint64_t *src, uint64_t *tmp, size_t nwords,
		     uint32_t gmin, uint32_t gmax);

/* dst &= src; returns whether dst is non-empty afterwards. */
bool bitset_and(uint64_t *dst, const uint64_t *src, size_t nwords);

#endif
