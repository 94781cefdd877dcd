// SPDX-License-Identifier: MIT
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "otsu.h"

#define SMALL_RANGE 16
/* Two between-class variances closer than this (relatively) are a tie. */
#define TIE_RTOL 1e-12

static inline void swapd(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

static void insertion_sort(double *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		double v = a[i];
		size_t j = i;

		while (j > 0 && a[j - 1] > v) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
}

static void sift_down(double *a, size_t root, size_t n)
{
	for (;;) {
		size_t c = 2 * root + 1;

		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (a[root] >= a[c])
			return;
		swapd(&a[root], &a[c]);
		root = c;
	}
}

static void heap_sort(double *a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(a, i, n);
	for (size_t end = n; end-- > 1;) {
		swapd(&a[0], &a[end]);
		sift_down(a, 0, end);
	}
}

static double median3(double a, double b, double c)
{
	if (a > b)
		swapd(&a, &b);
	if (b > c)
		b = c;
	return a > b ? a : b;
}

/*
 * Introsort with a 3-way partition: no comparator call per element (qsort's
 * cost dominates otherwise), no allocation, O(n log n) worst case. Values
 * are finite (checked by the caller), so < and > are a total order.
 */
static void sort_doubles(double *a, size_t n, unsigned int depth)
{
	while (n > SMALL_RANGE) {
		if (depth-- == 0) {
			heap_sort(a, n);
			return;
		}
		double p = median3(a[0], a[n / 2], a[n - 1]);
		size_t lt = 0, i = 0, gt = n;

		while (i < gt) {
			if (a[i] < p)
				swapd(&a[lt++], &a[i++]);
			else if (a[i] > p)
				swapd(&a[i], &a[--gt]);
			else
				i++;
		}
		/* Recurse into the smaller side, loop on the larger: O(log n) stack. */
		if (lt < n - gt) {
			sort_doubles(a, lt, depth);
			a += gt;
			n -= gt;
		} else {
			sort_doubles(a + gt, n - gt, depth);
			n = lt;
		}
	}
	insertion_sort(a, n);
}

int otsu_threshold(const double *x, size_t n, double *scratch,
		   struct otsu_result *res)
{
	double *v = scratch;
	double mean = 0.0, total_var = 0.0, best = -1.0, cum = 0.0;
	size_t best_n0 = 0;
	unsigned int depth = 8;

	if (!res || (n > 0 && !x))
		return -EINVAL;
	res->valid = false;
	res->threshold = 0.0;
	res->eta = 0.0;
	res->n_low = n;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return -EINVAL;
		mean += x[i];
	}
	if (n < 2)
		return 0;
	mean /= (double)n;

	if (!v) {
		v = malloc(n * sizeof(*v));
		if (!v)
			return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		v[i] = x[i];
		total_var += (x[i] - mean) * (x[i] - mean);
	}
	total_var /= (double)n;
	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	sort_doubles(v, n, depth);

	double sum = 0.0;

	/*
	 * Running sums of centred values: the class means are differences of
	 * these sums, and centring keeps them small. The threshold itself is an
	 * original value, so "x > T" reproduces the partition exactly.
	 */
	for (size_t i = 0; i < n; i++)
		sum += v[i] - mean;

	for (size_t i = 0; i < n; i++) {
		cum += v[i] - mean;
		if (i + 1 == n || v[i + 1] == v[i])
			continue;
		/* v[i] is a distinct value v_k, not the largest one. */
		double n0 = (double)(i + 1), n1 = (double)(n - i - 1);
		double w0 = n0 / (double)n;
		double d = cum / n0 - (sum - cum) / n1;
		double sb = w0 * (1.0 - w0) * d * d;

		if (sb > best * (1.0 + TIE_RTOL) || best < 0.0) {
			best = sb;
			best_n0 = i + 1;
		}
	}

	if (best >= 0.0) {
		res->valid = true;
		res->threshold = v[best_n0 - 1];
		res->n_low = best_n0;
		res->eta = total_var > 0.0 ? best / total_var : 0.0;
		if (res->eta > 1.0)
			res->eta = 1.0;
	}
	if (v != scratch)
		free(v);
	return 0;
}
