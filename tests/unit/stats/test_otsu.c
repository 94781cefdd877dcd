#include <errno.h>
#include <math.h>

#include "testutil.h"
#include "stats/otsu.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void check(const double *x, size_t n, bool valid, double t, double eta)
{
	struct otsu_result r;

	cr_assert_eq(otsu_threshold(x, n, NULL, &r), 0);
	cr_expect_eq(r.valid, valid);
	if (valid)
		cr_expect_float_eq(r.threshold, t, 1e-6, "T %g, want %g", r.threshold, t);
	cr_expect_float_eq(r.eta, eta, 1e-6, "eta %.9f, want %g", r.eta, eta);
}

/* TV-2. */
Test(otsu, tv2_table)
{
	const double a[] = { 1, 1, 1, 5, 5, 5 };
	const double b[] = { 0, 0.1, 0.2, 0.9, 1.0 };
	const double c[] = { 1, 2 };
	const double d[] = { 1, 2, 3, 4, 100 };
	const double e[] = { 5, 1, 1, 1, 1, 1, 1, 1, 9, 9 };
	const double f[] = { 3, 3, 3 };
	const double g[] = { 7 };

	check(a, N(a), true, 1, 1.0);
	check(b, N(b), true, 0.2, 0.971973);
	check(c, N(c), true, 1, 1.0);
	check(d, N(d), true, 4, 0.999343);
	check(e, N(e), true, 1, 0.897436);
	check(f, N(f), false, 0, 0);
	check(g, N(g), false, 0, 0);
	check(NULL, 0, false, 0, 0);
}

/* The threshold is a data value: "x > T" reproduces the partition exactly. */
Test(otsu, threshold_is_a_data_value)
{
	const double x[] = { 0.1 + 0.2, 0.7, 0.30000000000000004, 1e-300, 0.9 };
	struct otsu_result r;
	size_t low = 0;

	cr_assert_eq(otsu_threshold(x, N(x), NULL, &r), 0);
	cr_assert(r.valid);
	for (size_t i = 0; i < N(x); i++)
		low += x[i] <= r.threshold;
	cr_expect_eq(low, r.n_low);
	bool found = false;

	for (size_t i = 0; i < N(x); i++)
		found |= x[i] == r.threshold;
	cr_expect(found);
}

/*
 * {0,0,5,10,10} is symmetric: T = 0 and T = 5 give the same between-class
 * variance (50/3); the smaller threshold wins, whatever the rounding.
 * Mirrored and shifted copies keep the tie.
 */
Test(otsu, ties_take_smallest_k)
{
	const double x[] = { 10, 0, 5, 0, 10 };
	const double y[] = { 1e6 + 0.75, 1e6 + 0.25, 1e6 + 0.5, 1e6 + 0.25, 1e6 + 0.75 };
	const double u[] = { 0, 1, 2, 3 };
	struct otsu_result r;

	cr_assert_eq(otsu_threshold(x, N(x), NULL, &r), 0);
	cr_expect_eq(r.threshold, 0.0);
	cr_expect_eq(r.n_low, 2);
	cr_assert_eq(otsu_threshold(y, N(y), NULL, &r), 0);
	cr_expect_eq(r.threshold, 1e6 + 0.25);
	/* No tie: 0 | 1 2 3 gives 0.75, 0 1 | 2 3 gives 1. */
	cr_assert_eq(otsu_threshold(u, N(u), NULL, &r), 0);
	cr_expect_eq(r.threshold, 1.0);
}

Test(otsu, input_not_modified_and_scratch)
{
	const double orig[] = { 4, 1, 3, 9, 8, 2 };
	double x[N(orig)], scratch[N(orig)];
	struct otsu_result r;

	memcpy(x, orig, sizeof(x));
	cr_assert_eq(otsu_threshold(x, N(x), scratch, &r), 0);
	cr_expect_arr_eq(x, orig, sizeof(x));
	cr_expect_float_eq(r.threshold, 4.0, 0);
}

Test(otsu, errors)
{
	const double nanv[] = { 1, NAN, 2 };
	const double infv[] = { 1, INFINITY, 2 };
	struct otsu_result r;

	cr_expect_eq(otsu_threshold(nanv, 3, NULL, &r), -EINVAL);
	cr_expect_eq(otsu_threshold(infv, 3, NULL, &r), -EINVAL);
	cr_expect_eq(otsu_threshold(NULL, 3, NULL, &r), -EINVAL);
	cr_expect_eq(otsu_threshold(nanv, 1, NULL, NULL), -EINVAL);
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Reference: for every distinct value but the largest, in ascending order,
 * the between-class variance from scratch (O(n) each); a later value must
 * beat the best so far by more than the tolerance.
 */
static void ref_otsu(const double *x, size_t n, bool *valid, double *t)
{
	double *v = malloc(n * sizeof(*v));
	double best = -1;

	cr_assert(v);
	memcpy(v, x, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmpd);
	*valid = false;
	for (size_t c = 0; c < n; c++) {
		if (c > 0 && v[c] == v[c - 1])
			continue;
		double s0 = 0, s1 = 0, n0 = 0, n1 = 0;

		for (size_t i = 0; i < n; i++) {
			if (x[i] <= v[c]) {
				s0 += x[i];
				n0++;
			} else {
				s1 += x[i];
				n1++;
			}
		}
		if (n1 == 0)
			break;
		double d = s0 / n0 - s1 / n1;
		double sb = n0 / n * n1 / n * d * d;

		if (!*valid || sb > best * (1 + 1e-9)) {
			best = sb;
			*t = v[c];
			*valid = true;
		}
	}
	free(v);
}

Test(otsu, random_vs_bruteforce)
{
	for (unsigned long long seed = 1; seed <= 500; seed++) {
		unsigned long long s = seed * 0x9e3779b97f4a7c15ULL;
		size_t n = (size_t)tu_rand_range(&s, 1, 200);
		long long levels = seed % 2 ? 5 : 1000000;
		double *x = malloc(n * sizeof(*x));
		struct otsu_result r;
		bool valid;
		double t = 0;

		cr_assert(x);
		for (size_t i = 0; i < n; i++)
			x[i] = (double)tu_rand_range(&s, 0, levels) / (double)levels *
			       (seed % 3 ? 1.0 : 1e9);
		/* negative scores, both zeros and subnormals sort by value too */
		for (size_t i = 0; seed % 5 == 0 && i < n; i++) {
			x[i] -= seed % 3 ? 0.5 : 5e8;
			if (tu_rand_range(&s, 0, 9) == 0)
				x[i] = tu_rand_range(&s, 0, 1) ? -0.0 : 0.0;
			else if (tu_rand_range(&s, 0, 9) == 0)
				x[i] = (tu_rand_range(&s, 0, 1) ? -1 : 1) * 4.9e-324 * (double)tu_rand_range(&s, 1, 3);
		}
		ref_otsu(x, n, &valid, &t);
		cr_assert_eq(otsu_threshold(x, n, NULL, &r), 0);
		cr_assert_eq(r.valid, valid, "seed %llu", seed);
		if (valid)
			cr_assert_eq(r.threshold, t, "seed %llu n %zu: T %.17g want %.17g",
				     seed, n, r.threshold, t);
		cr_assert(r.eta >= 0 && r.eta <= 1, "seed %llu eta %g", seed, r.eta);
		free(x);
	}
}

/* Large input with few distinct values and an already sorted one. */
Test(otsu, large_sorted_and_duplicates, .timeout = 10)
{
	size_t n = 1 << 20;
	double *x = malloc(n * sizeof(*x));
	struct otsu_result r;

	cr_assert(x);
	for (size_t i = 0; i < n; i++)
		x[i] = i < n / 4 ? 1.0 : 3.0;
	cr_assert_eq(otsu_threshold(x, n, NULL, &r), 0);
	cr_expect_float_eq(r.threshold, 1.0, 0);
	cr_expect_float_eq(r.eta, 1.0, 1e-12);
	for (size_t i = 0; i < n; i++)
		x[i] = (double)i;
	cr_assert_eq(otsu_threshold(x, n, NULL, &r), 0);
	/* Uniform: the midpoint split. */
	cr_expect_float_eq(r.threshold, (double)(n / 2 - 1), 0);
	free(x);
}
