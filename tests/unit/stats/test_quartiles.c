#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "testutil.h"
#include "stats/quartiles.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void check(const int64_t *x, size_t n, double median, int64_t q1, int64_t q3)
{
	struct quartiles q;
	int64_t scratch[64];

	cr_assert_eq(quartiles_compute(x, n, scratch, &q), 0);
	cr_expect_eq(q.n, n);
	cr_expect_float_eq(q.median, median, 1e-9, "median %g, want %g", q.median, median);
	cr_expect_eq(q.q1, q1, "q1 %lld, want %lld", (long long)q.q1, (long long)q1);
	cr_expect_eq(q.q3, q3, "q3 %lld, want %lld", (long long)q.q3, (long long)q3);
}

/* TV-3, the recommended (type 1 / nearest rank) column. */
Test(quartiles, tv3_paper)
{
	const int64_t x[] = { 30, 29, 30, 30, 188, 30, 31, 30, 95, 30 };

	check(x, N(x), 30, 30, 31);
}

Test(quartiles, tv3_small_sets)
{
	const int64_t a8[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const int64_t a7[] = { 7, 6, 5, 4, 3, 2, 1 };
	const int64_t a5[] = { 3, 1, 5, 2, 4 };
	const int64_t a1[] = { 42 };
	const int64_t a2[] = { 20, 10 };
	const int64_t a3[] = { 30, 10, 20 };

	check(a8, N(a8), 4.5, 2, 6);
	check(a7, N(a7), 4, 2, 6);
	check(a5, N(a5), 3, 2, 4);
	check(a1, N(a1), 42, 42, 42);
	check(a2, N(a2), 15, 10, 20);
	check(a3, N(a3), 20, 10, 30);
}

/* TV-4: QCoD = 1/61, fence 32.5, outliers exactly 188 and 95. */
Test(quartiles, tv4_qcod_and_outliers)
{
	const int64_t x[] = { 30, 29, 30, 30, 188, 30, 31, 30, 95, 30 };
	struct quartiles q;

	cr_assert_eq(quartiles_compute(x, N(x), NULL, &q), 0);
	cr_expect_float_eq(quartiles_qcod(q.q1, q.q3), 1.0 / 61.0, 1e-12);
	cr_expect_float_eq(quartiles_qcod(q.q1, q.q3), 0.016393, 1e-6);
	cr_expect_float_eq(quartiles_upper_fence(q.q1, q.q3), 32.5, 1e-12);
	for (size_t i = 0; i < N(x); i++)
		cr_expect_eq(quartiles_is_outlier(x[i], q.q1, q.q3), i == 4 || i == 8,
			     "interval #%zu (%lld)", i + 1, (long long)x[i]);
}

Test(quartiles, input_not_modified)
{
	const int64_t orig[] = { 9, 3, 7, 1, 8, 2, 2, 6 };
	int64_t x[N(orig)];
	struct quartiles q;

	memcpy(x, orig, sizeof(x));
	cr_assert_eq(quartiles_compute(x, N(x), NULL, &q), 0);
	cr_expect_arr_eq(x, orig, sizeof(x));
}

Test(quartiles, qcod_edge_cases)
{
	cr_expect_eq(quartiles_qcod(0, 0), 0.0);
	cr_expect(isinf(quartiles_qcod(-5, 5)));
	cr_expect_float_eq(quartiles_qcod(5, 5), 0.0, 0);
	cr_expect_float_eq(quartiles_qcod(1, 3), 0.5, 1e-15);
	/* Extreme ns values: no overflow in Q3 + Q1. */
	cr_expect_float_eq(quartiles_qcod(INT64_MAX, INT64_MAX), 0.0, 0);
	cr_expect_float_eq(quartiles_qcod(INT64_MAX - 1, INT64_MAX), 0.0, 1e-15);
}

Test(quartiles, outlier_boundary_is_strict_and_exact)
{
	/* Q1 = 30, Q3 = 31: fence 32.5. */
	cr_expect_not(quartiles_is_outlier(32, 30, 31));
	cr_expect(quartiles_is_outlier(33, 30, 31));
	/* Fence exactly on an integer: 10 + 1.5 * 2 = 13 is not above it. */
	cr_expect_not(quartiles_is_outlier(13, 8, 10));
	cr_expect(quartiles_is_outlier(14, 8, 10));
	/* IQR 0: anything above Q3 is an outlier, Q3 itself is not. */
	cr_expect_not(quartiles_is_outlier(10000000, 10000000, 10000000));
	cr_expect(quartiles_is_outlier(10000001, 10000000, 10000000));
	/* Values where 2x overflows int64. */
	cr_expect(quartiles_is_outlier(INT64_MAX, 0, 1));
	cr_expect_not(quartiles_is_outlier(INT64_MAX - 1, INT64_MAX - 1, INT64_MAX - 1));
	cr_expect_not(quartiles_is_outlier(INT64_MAX, INT64_MAX / 2, INT64_MAX));
}

Test(quartiles, errors)
{
	struct quartiles q;
	int64_t x = 1;

	cr_expect_eq(quartiles_compute(&x, 0, NULL, &q), -EINVAL);
	cr_expect_eq(quartiles_compute(NULL, 1, NULL, &q), -EINVAL);
	cr_expect_eq(quartiles_compute(&x, 1, NULL, NULL), -EINVAL);
	cr_expect_eq(quartiles_compute_inplace(NULL, 3, &q), -EINVAL);
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Reference: full sort, then the ranks of the definition. */
static void ref_quartiles(const int64_t *x, size_t n, struct quartiles *q)
{
	int64_t *s = malloc(n * sizeof(*s));

	cr_assert(s);
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp64);
	q->q1 = s[(size_t)ceil(n / 4.0) - 1];
	q->q3 = s[(size_t)ceil(3.0 * n / 4.0) - 1];
	q->median_lo = s[(n - 1) / 2];
	q->median_hi = s[n / 2];
	free(s);
}

Test(quartiles, random_vs_sort_reference)
{
	for (unsigned long long seed = 1; seed <= 400; seed++) {
		unsigned long long s = seed * 0x9e3779b97f4a7c15ULL;
		size_t n = (size_t)tu_rand_range(&s, 1, seed % 10 == 0 ? 5000 : 60);
		/* Narrow ranges give many ties, wide ones none. */
		long long span = seed % 3 == 0 ? 3 : seed % 3 == 1 ? 1000 : 10000000000LL;
		int shape = (int)(seed % 4);
		int64_t *x = malloc(n * sizeof(*x));
		struct quartiles got, want;

		cr_assert(x);
		for (size_t i = 0; i < n; i++) {
			if (shape == 0)
				x[i] = (int64_t)i;		/* sorted */
			else if (shape == 1)
				x[i] = (int64_t)(n - i);	/* reversed */
			else
				x[i] = tu_rand_range(&s, -span, span);
		}
		ref_quartiles(x, n, &want);
		cr_assert_eq(quartiles_compute(x, n, NULL, &got), 0);
		cr_assert(got.q1 == want.q1 && got.q3 == want.q3 &&
			  got.median_lo == want.median_lo && got.median_hi == want.median_hi,
			  "seed %llu n %zu: got %lld %lld %lld %lld want %lld %lld %lld %lld",
			  seed, n, (long long)got.q1, (long long)got.median_lo,
			  (long long)got.median_hi, (long long)got.q3, (long long)want.q1,
			  (long long)want.median_lo, (long long)want.median_hi,
			  (long long)want.q3);
		free(x);
	}
}

/* Median-of-3 killer style input: the depth limit must keep it fast. */
Test(quartiles, adversarial_organ_pipe, .timeout = 10)
{
	size_t n = 1 << 20;
	int64_t *x = malloc(n * sizeof(*x));
	struct quartiles q;

	cr_assert(x);
	for (size_t i = 0; i < n; i++)
		x[i] = (int64_t)(i < n / 2 ? i : n - i);
	cr_assert_eq(quartiles_compute_inplace(x, n, &q), 0);
	cr_expect_eq(q.q1, (int64_t)(n / 8));
	cr_expect_eq(q.q3, (int64_t)(3 * n / 8));
	free(x);
}
