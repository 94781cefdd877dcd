/* SPDX-License-Identifier: MIT */
/*
 * Thresholds as integers in parts per million, and the exact counts they
 * allow. Percent and per-mille values, the only ones people type, are
 * represented exactly, so a share of n sequences is an integer computed
 * without a float (0.7 * 10 is 7.000000000000001 in doubles).
 *
 * Both the miner (its min_pos and max_neg, miner.h) and the chance control
 * (chance.h, whose max_neg never exceeds the plain floor below) count this
 * way; this header is what they share, so that the miner uses the chance
 * control and not the other way round.
 */
#ifndef QT_PPM_H
#define QT_PPM_H

#include <stdint.h>

#define PPM_ONE			1000000u
#define PPM_PCT(p)		((uint32_t)(p) * 10000u)	/* integer percent */
#define PPM_PERMILLE(p)		((uint32_t)(p) * 1000u)

/* floor(ppm * n / 10^6): the most of n that make a share of at most ppm. */
static inline uint32_t ppm_floor(uint32_t ppm, uint32_t n)
{
	return (uint32_t)((uint64_t)ppm * n / PPM_ONE);
}

#endif
