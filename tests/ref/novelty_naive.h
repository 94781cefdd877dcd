/* SPDX-License-Identifier: MIT */
/*
 * The reference for stats/novelty.c: Cooper's novelty as the double sum
 * of its definition (docs/ALGORITHMS.md §1.2), O(n L^2) exp() calls. The
 * tests compare novelty_compute() with it.
 */
#ifndef QT_REF_NOVELTY_NAIVE_H
#define QT_REF_NOVELTY_NAIVE_H

#include <stddef.h>
#include <stdint.h>

#include "stats/novelty.h"

/*
 * nu[0..n) of the sorted times t[0..n) with the parameters p, as
 * novelty_compute(). Returns 0 or -EINVAL (NULL pointers with n > 0, bad
 * parameters, unsorted t).
 */
int novelty_naive(const int64_t *t, size_t n, const struct novelty_params *p, double *nu);

#endif
