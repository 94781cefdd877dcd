// SPDX-License-Identifier: MIT
/*
 * Nearest-rank quartiles by nested selection: select the Q3 rank over the
 * whole array, then the median ranks and the Q1 rank inside the prefix that
 * the previous selection left at or below it. Each selection is a 3-way
 * quickselect (intervals of a periodic actor contain long runs of equal
 * values, which a 2-way partition handles badly) with a depth limit that
 * falls back to heapsort, so the worst case stays O(n log n).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quartiles.h"

#define SMALL_RANGE 16

static inline void swap64(int64_t *a, int64_t *b)
{
	int64_t t = *a;

	*a = *b;
	*b = t;
}

static void insertion_sort(int64_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		int64_t v = a[i];
		size_t j = i;

		while (j > 0 && a[j - 1] > v) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
}

static void sift_down(int64_t *a, size_t root, size_t n)
{
	for (;;) {
		size_t c = 2 * root + 1;

		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (a[root] >= a[c])
			return;
		swap64(&a[root], &a[c]);
		root = c;
	}
}

static void heap_sort(int64_t *a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(a, i, n);
	for (size_t end = n; end-- > 1;) {
		swap64(&a[0], &a[end]);
		sift_down(a, 0, end);
	}
}

static int64_t median3(int64_t a, int64_t b, int64_t c)
{
	if (a > b)
		swap64(&a, &b);
	if (b > c)
		b = c;
	return a > b ? a : b;
}

/* Puts into a[k] the value of rank k (0-based) of a[lo..hi). */
static void select_rank(int64_t *a, size_t lo, size_t hi, size_t k)
{
	unsigned int depth = 8;

	for (size_t m = hi - lo; m > 1; m >>= 1)
		depth += 2;

	while (hi - lo > SMALL_RANGE) {
		if (depth-- == 0) {
			heap_sort(a + lo, hi - lo);
			return;
		}
		int64_t p = median3(a[lo], a[lo + (hi - lo) / 2], a[hi - 1]);
		size_t lt = lo, i = lo, gt = hi;

		while (i < gt) {
			if (a[i] < p)
				swap64(&a[lt++], &a[i++]);
			else if (a[i] > p)
				swap64(&a[i], &a[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
	insertion_sort(a + lo, hi - lo);
}

int quartiles_compute_inplace(int64_t *x, size_t n, struct quartiles *q)
{
	if (!x || !q || n == 0)
		return -EINVAL;

	/* 0-based ranks; ceil(n/4) and ceil(3n/4) without floating point. */
	size_t k1 = (n + 3) / 4 - 1;
	size_t k3 = (3 * n + 3) / 4 - 1;
	size_t mlo = (n - 1) / 2, mhi = n / 2;

	/*
	 * k1 <= mlo <= mhi <= k3 for every n >= 1. Each selection leaves the
	 * prefix before its rank at or below it, so the next (smaller) rank is
	 * selected in that prefix only; read each value before the next
	 * selection, which may move it.
	 */
	select_rank(x, 0, n, k3);
	q->q3 = x[k3];
	select_rank(x, 0, k3 + 1, mhi);
	q->median_hi = x[mhi];
	select_rank(x, 0, mhi + 1, mlo);
	q->median_lo = x[mlo];
	select_rank(x, 0, mlo + 1, k1);
	q->q1 = x[k1];
	q->n = n;
	/* Halve the difference, not the sum: the sum of two ns stamps can overflow. */
	q->median = (double)q->median_lo +
		    (double)(q->median_hi - q->median_lo) / 2.0;
	return 0;
}

int quartiles_compute(const int64_t *x, size_t n, int64_t *scratch,
		      struct quartiles *q)
{
	int64_t *buf = scratch;
	int err;

	if (!x || !q || n == 0)
		return -EINVAL;
	if (!buf) {
		buf = malloc(n * sizeof(*buf));
		if (!buf)
			return -ENOMEM;
	}
	memcpy(buf, x, n * sizeof(*buf));
	err = quartiles_compute_inplace(buf, n, q);
	if (buf != scratch)
		free(buf);
	return err;
}

/*
 * 32-bit targets (the armhf recorder) have no __int128: there, exact in 64
 * bits while nothing overflows, which holds for any duration under 58
 * years; past that, in doubles.
 */
#ifdef __SIZEOF_INT128__
double quartiles_qcod(int64_t q1, int64_t q3)
{
	__int128 num = (__int128)q3 - q1;
	__int128 den = (__int128)q3 + q1;

	if (den == 0)
		return num == 0 ? 0.0 : INFINITY;
	return (double)num / (double)den;
}
#else
double quartiles_qcod(int64_t q1, int64_t q3)
{
	int64_t num, den;

	if (__builtin_sub_overflow(q3, q1, &num) || __builtin_add_overflow(q3, q1, &den))
		return ((double)q3 - (double)q1) / ((double)q3 + (double)q1);
	if (den == 0)
		return num == 0 ? 0.0 : INFINITY;
	return (double)num / (double)den;
}
#endif

double quartiles_upper_fence(int64_t q1, int64_t q3)
{
	return (double)q3 + 1.5 * ((double)q3 - (double)q1);
}

#ifdef __SIZEOF_INT128__
bool quartiles_is_outlier(int64_t x, int64_t q1, int64_t q3)
{
	/* 128-bit so that the doubled ns values cannot overflow. */
	__int128 lhs = (__int128)x * 2;
	__int128 rhs = (__int128)q3 * 2 + ((__int128)q3 - q1) * 3;

	return lhs > rhs;
}
#else
bool quartiles_is_outlier(int64_t x, int64_t q1, int64_t q3)
{
	int64_t lhs, q3x5, q1x3, rhs;

	if (__builtin_mul_overflow(x, 2, &lhs) || __builtin_mul_overflow(q3, 5, &q3x5) ||
	    __builtin_mul_overflow(q1, 3, &q1x3) || __builtin_sub_overflow(q3x5, q1x3, &rhs))
		return 2.0 * (double)x > 5.0 * (double)q3 - 3.0 * (double)q1;
	return lhs > rhs;
}
#endif
