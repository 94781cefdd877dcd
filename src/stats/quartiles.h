/* SPDX-License-Identifier: MIT */
/*
 * Median, nearest-rank quartiles, quartile coefficient of dispersion and the
 * upper inter-quartile outlier test, on int64 data (docs/ALGORITHMS.md §3).
 *
 * Quartiles are Hyndman-Fan type 1 ("nearest rank"): Q_p = x_(ceil(n*p)),
 * 1-based over the ascending order, so every quartile is a data value. This is
 * the convention that reproduces SATM's worked example (Q1 = 30, Q3 = 31);
 * the R/NumPy default (type 7) does not.
 */
#ifndef QT_QUARTILES_H
#define QT_QUARTILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct quartiles {
	size_t n;		/* number of values */
	int64_t q1;		/* x_(ceil(n/4)) */
	int64_t q3;		/* x_(ceil(3n/4)) */
	int64_t median_lo;	/* lower middle value (== median_hi for odd n) */
	int64_t median_hi;	/* upper middle value */
	double median;		/* (median_lo + median_hi) / 2 */
};

/*
 * Quartiles of x[0..n). x is not modified: the values are copied into
 * scratch (n elements, must not overlap x) and rearranged there. scratch may
 * be NULL, then a buffer is allocated and freed inside.
 * Expected O(n) (3-way quickselect), O(n log n) worst case.
 * Returns 0, -EINVAL (n == 0, x or q NULL) or -ENOMEM.
 */
int quartiles_compute(const int64_t *x, size_t n, int64_t *scratch,
		      struct quartiles *q);

/* Same, but rearranges x itself (its order is unspecified afterwards). */
int quartiles_compute_inplace(int64_t *x, size_t n, struct quartiles *q);

/*
 * QCoD = (q3 - q1) / (q3 + q1), meant for non-negative data. When
 * q3 + q1 == 0: 0 if q3 == q1, +INFINITY otherwise.
 */
double quartiles_qcod(int64_t q1, int64_t q3);

/* Q3 + 1.5 (Q3 - Q1), for reports; decisions use quartiles_is_outlier(). */
double quartiles_upper_fence(int64_t q1, int64_t q3);

/*
 * x > Q3 + 1.5 (Q3 - Q1), strictly, evaluated exactly in integers as
 * 2x > 2 Q3 + 3 (Q3 - Q1). Only the upper fence is used (SATM: late
 * invocations). Requires q1 <= q3.
 */
bool quartiles_is_outlier(int64_t x, int64_t q1, int64_t q3);

#endif
