/* SPDX-License-Identifier: MIT */
/*
 * Reference for the miner's tests: gap-constrained containment as the dense
 * bitset recurrence of docs/ALGORITHMS.md §4.3, independent of the miner's
 * sparse search (src/patterns/miner_search.c), so that each checks the
 * other.
 */
#ifndef QT_REF_MINER_CONTAINS_H
#define QT_REF_MINER_CONTAINS_H

#include <stddef.h>
#include <stdint.h>

#include "patterns/miner.h"

/*
 * P ⊑_g T: is @pat (m >= 1 symbols) contained in @seq (n symbols) with
 * gap_min <= skipped events <= gap_max between consecutive pattern symbols?
 * Bitset recurrence E_1 = B_p1, E_k+1 = gapmask(E_k) & B_pk+1, O(m * n).
 * Returns 1 or 0, -EINVAL (m == 0 or gap_min > gap_max) or -ENOMEM.
 */
int miner_contains(const uint32_t *pat, size_t m, const uint32_t *seq, size_t n,
		   uint32_t gap_min, uint32_t gap_max);

/*
 * Gap-constrained counts of one pattern (len >= 1 symbols) in the sequences
 * pos[0..npos) and neg[0..nneg): how many of each contain it. Either count
 * pointer may be NULL. Returns 0, -EINVAL (no pattern, gap_min > gap_max)
 * or -ENOMEM.
 */
int miner_contains_count(const struct miner_seq *pos, uint32_t npos, const struct miner_seq *neg,
			 uint32_t nneg, const uint32_t *pat, uint32_t len, uint32_t gap_min,
			 uint32_t gap_max, uint32_t *pos_count, uint32_t *neg_count);

#endif
