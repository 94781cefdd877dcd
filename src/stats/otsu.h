/* SPDX-License-Identifier: MIT */
/*
 * Otsu's threshold on a 1-D set of scores, exact sorted-values variant
 * (docs/ALGORITHMS.md §2.1): every distinct value v_k but the largest is a
 * candidate threshold, the low class is {x <= v_k}, and the k maximising the
 * between-class variance w0 w1 (mu0 - mu1)^2 wins; ties (relative tolerance
 * 1e-12) go to the smallest k.
 */
#ifndef QT_OTSU_H
#define QT_OTSU_H

#include <stdbool.h>
#include <stddef.h>

struct otsu_result {
	bool valid;		/* false: < 2 distinct values, no threshold */
	double threshold;	/* T = v_k; "x > T" is the high class */
	double eta;		/* sigma_B^2 / sigma_T^2 in [0, 1]; 0 if !valid */
	size_t n_low;		/* values <= T (n if !valid) */
};

/*
 * Threshold of x[0..n). x is not modified; scratch (n doubles, not
 * overlapping x) receives a sorted copy, or is allocated inside when NULL.
 * n == 0 or a single distinct value gives valid = false (not an error).
 * O(n), 8 more bytes per score while it sorts. Returns 0, -EINVAL (NULL
 * res, NULL x with n > 0, a NaN or infinite score), -E2BIG (more than
 * UINT32_MAX scores) or -ENOMEM.
 */
int otsu_threshold(const double *x, size_t n, double *scratch,
		   struct otsu_result *res);

#endif
