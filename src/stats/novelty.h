/* SPDX-License-Identifier: MIT */
/*
 * Cooper et al. temporal novelty along the diagonal of the similarity
 * matrix S(p, q) = exp(-|t_p - t_q| / K) (docs/ALGORITHMS.md §1.2-1.3):
 *
 *   nu(i) = sum_{l,m = -L..L-1} a_l a_m S(i+l, i+m)    (in-range indices only)
 *   a_l   = s(l) w(l),  s(l) = -1 for l < 0 and +1 for l >= 0,
 *   w(l)  = exp(-(l + 1/2)^2 / (2 sigma^2)).
 *
 * A high nu(i) means "a new cluster starts at item i". Out-of-range items
 * contribute nothing (zero padding). Timestamps must be sorted
 * (non-decreasing); nu[] is 0-based like t[].
 */
#ifndef QT_NOVELTY_H
#define QT_NOVELTY_H

#include <stddef.h>
#include <stdint.h>

/* Largest kernel half-width L accepted; SATM uses 1 or 2. */
#define NOVELTY_MAX_L 64

struct novelty_params {
	double k;		/* similarity time constant, same unit as t; > 0 */
	unsigned int l;		/* kernel half-width in items, 1..NOVELTY_MAX_L */
	double sigma;		/* taper width in items; <= 0 means l / 2 */
};

/* The taper w(l) for offset l (l in -L..L-1). */
double novelty_taper(int l, double sigma);

/*
 * O(n L) time, O(L) memory, no allocation: S is semiseparable on sorted
 * times (a product of the consecutive factors exp(-(t_{k+1} - t_k) / K)),
 * so each nu(i) is one pass over the 2L kernel offsets.
 * Returns 0 or -EINVAL (NULL pointers with n > 0, bad parameters, unsorted t).
 */
int novelty_compute(const int64_t *t, size_t n, const struct novelty_params *p,
		    double *nu);

#endif
