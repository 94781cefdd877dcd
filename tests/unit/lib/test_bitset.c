// SPDX-License-Identifier: MIT
/* bitset: shifts and the ConSGapMiner gap mask against bit-by-bit references. */
#include <stdbool.h>
#include <stdint.h>

#include "lib/bitset.h"
#include "testutil.h"

#define NW 5

static void random_set(uint64_t *b, unsigned long long *seed)
{
	for (size_t w = 0; w < NW; w++)
		b[w] = tu_rand(seed) & tu_rand(seed);	/* ~1/4 density */
}

Test(bitset, basics)
{
	uint64_t b[NW] = { 0 };

	cr_assert_eq(bitset_words(0), 0);
	cr_assert_eq(bitset_words(1), 1);
	cr_assert_eq(bitset_words(64), 1);
	cr_assert_eq(bitset_words(65), 2);
	cr_assert(!bitset_any(b, NW));
	bitset_set(b, 0);
	bitset_set(b, 63);
	bitset_set(b, 64);
	bitset_set(b, 319);
	cr_assert(bitset_test(b, 63));
	cr_assert(!bitset_test(b, 62));
	cr_assert_eq(bitset_count(b, NW), 4);
	cr_assert_eq(b[0], 0x8000000000000001ull);
	cr_assert_eq(b[1], 1);
	cr_assert_eq(b[4], 0x8000000000000000ull);
}

Test(bitset, shl_matches_bitwise)
{
	unsigned long long seed = 7;

	for (size_t shift = 0; shift <= NW * 64 + 3; shift++) {
		uint64_t src[NW], dst[NW], same[NW];

		random_set(src, &seed);
		memcpy(same, src, sizeof(src));
		bitset_shl(dst, src, NW, shift);
		bitset_shl(same, same, NW, shift);	/* in place */
		for (size_t j = 0; j < NW * 64; j++) {
			bool want = j >= shift && bitset_test(src, j - shift);

			cr_assert_eq(bitset_test(dst, j), want, "shift %zu bit %zu", shift, j);
			cr_assert_eq(bitset_test(same, j), want, "in place: shift %zu bit %zu", shift, j);
		}
	}
}

Test(bitset, gap_mask_matches_definition)
{
	unsigned long long seed = 11;

	for (int it = 0; it < 400; it++) {
		uint64_t src[NW], dst[NW], tmp[NW];
		uint32_t gmin = (uint32_t)tu_rand_range(&seed, 0, 70);
		uint32_t gmax = gmin + (uint32_t)tu_rand_range(&seed, 0, it < 200 ? 5 : 200);

		random_set(src, &seed);
		if (it % 3 == 0) {	/* sparse: single bits make off-by-ones visible */
			bitset_zero(src, NW);
			bitset_set(src, (size_t)tu_rand_range(&seed, 0, NW * 64 - 1));
		}
		bitset_gap_mask(dst, src, tmp, NW, gmin, gmax);
		for (size_t j = 0; j < NW * 64; j++) {
			bool want = false;

			/* Some i with gmin <= j - i - 1 <= gmax. */
			for (size_t i = 0; i < j && !want; i++)
				want = bitset_test(src, i) && j - i - 1 >= gmin && j - i - 1 <= gmax;
			cr_assert_eq(bitset_test(dst, j), want, "it %d g [%u,%u] bit %zu", it, gmin,
				     gmax, j);
		}
	}
}

Test(bitset, gap_mask_huge_gaps)
{
	uint64_t src[2] = { 1, 0 }, dst[2], tmp[2];

	bitset_gap_mask(dst, src, tmp, 2, 0, UINT32_MAX);
	cr_assert_eq(dst[0], ~1ull);
	cr_assert_eq(dst[1], ~0ull);
	bitset_gap_mask(dst, src, tmp, 2, UINT32_MAX - 1, UINT32_MAX);
	cr_assert(!bitset_any(dst, 2));
}

Test(bitset, and_reports_empty)
{
	uint64_t a[2] = { 6, 0 }, b[2] = { 1, 1 }, c[2] = { 2, 0 };

	cr_assert(!bitset_and(a, b, 2));
	cr_assert(!bitset_any(a, 2));
	a[0] = 6;
	cr_assert(bitset_and(a, c, 2));
	cr_assert_eq(a[0], 2);
}
