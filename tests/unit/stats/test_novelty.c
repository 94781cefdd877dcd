#include <errno.h>
#include <math.h>

#include "ref/novelty_naive.h"
#include "stats/novelty.h"
#include "testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* SATM Fig. 5: 11 occurrences, invocations at 152, 177, 202. */
static const int64_t fig5[] = { 152, 155, 160, 163, 177, 183, 187, 202, 207, 210, 213 };

static void expect_nu(const int64_t *t, size_t n, double k, unsigned int l,
		      double sigma, const double *want, double tol)
{
	struct novelty_params p = { .k = k, .l = l, .sigma = sigma };
	double fast[64], naive[64];

	cr_assert(n <= 64);
	cr_assert_eq(novelty_compute(t, n, &p, fast), 0);
	cr_assert_eq(novelty_naive(t, n, &p, naive), 0);
	for (size_t i = 0; i < n; i++) {
		cr_expect_float_eq(fast[i], want[i], tol, "K %g L %u: nu(%zu) = %.9f, want %.9f",
				   k, l, i + 1, fast[i], want[i]);
		cr_expect_float_eq(naive[i], want[i], tol, "naive nu(%zu) = %.9f, want %.9f",
				   i + 1, naive[i], want[i]);
	}
}

Test(novelty, taper_values)
{
	cr_expect_float_eq(novelty_taper(-2, 1.0), 0.324652467358, 1e-12);
	cr_expect_float_eq(novelty_taper(1, 1.0), 0.324652467358, 1e-12);
	cr_expect_float_eq(novelty_taper(-1, 1.0), 0.882496902585, 1e-12);
	cr_expect_float_eq(novelty_taper(0, 1.0), 0.882496902585, 1e-12);
}

/* TV-1.1: the SATM default K = mean gap = 6.1, L = 2, sigma = 1. */
Test(novelty, tv1_1)
{
	const double want[] = { 1.234608355, 0.808564933, 1.439480950, 0.930669778,
				2.114406428, 1.404140155, 1.083038629, 2.133927779,
				1.300741455, 1.015359171, 0.846617853 };

	expect_nu(fig5, N(fig5), 6.1, 2, 1.0, want, 1e-6);
	/* sigma 0 means L/2 = 1. */
	expect_nu(fig5, N(fig5), 6.1, 2, 0.0, want, 1e-6);
}

/* TV-1.2: K = 10. */
Test(novelty, tv1_2)
{
	const double want[] = { 1.308696, 0.599179, 1.087550, 0.717844, 1.919908, 1.131502,
				0.852832, 1.970124, 1.019866, 0.744431, 0.619123 };

	expect_nu(fig5, N(fig5), 10, 2, 1.0, want, 1e-6);
}

/* TV-1.3: L = 1, sigma = 0.5, and its closed form 2 w0^2 (1 - exp(-gap/K)). */
Test(novelty, tv1_3_and_closed_form)
{
	const double want[] = { 0.367879, 0.285826, 0.411601, 0.285826, 0.661629, 0.460615,
				0.353857, 0.672837, 0.411601, 0.285826, 0.285826 };
	double closed[N(fig5)];

	expect_nu(fig5, N(fig5), 6.1, 1, 0.5, want, 1e-6);
	expect_nu(fig5, N(fig5), 6.1, 1, 0.0, want, 1e-6);

	double w0 = exp(-1.0 / (8 * 0.25)), w0sq = w0 * w0;	/* = e^-1 */

	closed[0] = w0sq;
	for (size_t i = 1; i < N(fig5); i++)
		closed[i] = 2 * w0sq * (1 - exp(-(double)(fig5[i] - fig5[i - 1]) / 6.1));
	expect_nu(fig5, N(fig5), 6.1, 1, 0.5, closed, 1e-12);
}

/* TV-1.4: L = 3, sigma = 1.5. */
Test(novelty, tv1_4)
{
	const double want[] = { 2.286988, 1.556055, 2.504742, 2.122209, 3.949001, 2.649294,
				2.140235, 3.981039, 2.735405, 1.869479, 1.580552 };

	expect_nu(fig5, N(fig5), 6.1, 3, 1.5, want, 1e-6);
}

/* TV-1.6: evenly spaced, the edge artefact of zero padding. */
Test(novelty, tv1_6_even)
{
	int64_t t[11];
	double want[11];

	for (size_t i = 0; i < 11; i++) {
		t[i] = 10 * (int64_t)i;
		want[i] = 1.451395;
	}
	want[0] = 1.094998;
	want[1] = want[10] = 1.223241;
	expect_nu(t, 11, 10, 2, 1.0, want, 1e-6);
}

/* TV-1.7: two points. */
Test(novelty, tv1_7_two_points)
{
	const int64_t t1[] = { 0, 1 }, t5[] = { 0, 5 }, t20[] = { 0, 20 };
	const double w1[] = { 1.402681, 0.148225 };
	const double w5[] = { 1.231748, 0.612868 };
	const double w20[] = { 0.961748, 1.346803 };

	expect_nu(t1, 2, 10, 2, 1.0, w1, 1e-6);
	expect_nu(t5, 2, 10, 2, 1.0, w5, 1e-6);
	expect_nu(t20, 2, 10, 2, 1.0, w20, 1e-6);
}

static double max_diff(const int64_t *t, size_t n, double k, unsigned int l,
		       double sigma, double *a, double *b)
{
	struct novelty_params p = { .k = k, .l = l, .sigma = sigma };
	double d = 0;

	cr_assert_eq(novelty_compute(t, n, &p, a), 0);
	cr_assert_eq(novelty_naive(t, n, &p, b), 0);
	for (size_t i = 0; i < n; i++)
		d = fmax(d, fabs(a[i] - b[i]));
	return d;
}

/* TV-1.8: fast == naive on every vector above and the (K, L) grid. */
Test(novelty, tv1_8_fast_equals_naive)
{
	static const double ks[] = { 1, 5, 10, 30 };
	static const unsigned int ls[] = { 1, 2, 3, 4, 6 };
	int64_t even[11];
	double a[16], b[16];

	for (size_t i = 0; i < 11; i++)
		even[i] = 10 * (int64_t)i;
	for (size_t ki = 0; ki < N(ks); ki++) {
		for (size_t li = 0; li < N(ls); li++) {
			double d1 = max_diff(fig5, N(fig5), ks[ki], ls[li], 0, a, b);
			double d2 = max_diff(even, 11, ks[ki], ls[li], 0, a, b);

			cr_expect_lt(d1, 1e-9, "fig5 K %g L %u: %g", ks[ki], ls[li], d1);
			cr_expect_lt(d2, 1e-9, "even K %g L %u: %g", ks[ki], ls[li], d2);
		}
	}
	cr_expect_lt(max_diff(fig5, N(fig5), 6.1, 2, 1, a, b), 1e-9);
	cr_expect_lt(max_diff(fig5, N(fig5), 6.1, 1, 0.5, a, b), 1e-9);
	cr_expect_lt(max_diff(fig5, N(fig5), 6.1, 3, 1.5, a, b), 1e-9);
	cr_expect_lt(max_diff(fig5, N(fig5), 10, 2, 1, a, b), 1e-9);
}

/* Property: random clustered ns timestamps, ties included, n up to 3000. */
Test(novelty, random_fast_equals_naive, .timeout = 60)
{
	size_t cap = 3000;
	int64_t *t = malloc(cap * sizeof(*t));
	double *a = malloc(cap * sizeof(*a)), *b = malloc(cap * sizeof(*b));

	cr_assert(t && a && b);
	for (unsigned long long seed = 1; seed <= 300; seed++) {
		unsigned long long s = seed * 0x9e3779b97f4a7c15ULL;
		size_t n = (size_t)tu_rand_range(&s, 1, seed % 20 == 0 ? (long long)cap : 200);
		unsigned int l = (unsigned int)tu_rand_range(&s, 1, seed % 5 == 0 ? 12 : 4);
		double sigma = seed % 3 == 0 ? (double)tu_rand_range(&s, 1, 40) / 10.0 : 0.0;
		int64_t cur = tu_rand_range(&s, 0, 1000000000000LL);

		for (size_t i = 0; i < n; i++) {
			/* Bursts of short gaps (and ties) separated by long ones. */
			long long r = tu_rand_range(&s, 0, 9);

			cur += r == 0 ? 0 : r < 7 ? tu_rand_range(&s, 1, 500000) :
			       tu_rand_range(&s, 5000000, 15000000);
			t[i] = cur;
		}
		double mean_gap = n > 1 ? (double)(t[n - 1] - t[0]) / (double)(n - 1) : 1.0;
		double k = fmax(1.0, mean_gap * (double)tu_rand_range(&s, 1, 40) / 10.0);
		double d = max_diff(t, n, k, l, sigma, a, b);

		cr_assert_lt(d, 1e-9, "seed %llu n %zu K %g L %u sigma %g: diff %g",
			     seed, n, k, l, sigma, d);
	}
	free(t);
	free(a);
	free(b);
}

Test(novelty, equal_timestamps_and_single_point)
{
	const int64_t t[] = { 5, 5, 5, 5 };
	double a[4], b[4];

	cr_expect_lt(max_diff(t, 4, 3, 2, 0, a, b), 1e-12);
	cr_expect_lt(max_diff(t, 1, 3, 2, 0, a, b), 1e-12);
	/* One point: only the diagonal term a_0^2 = w(0)^2. */
	cr_expect_float_eq(a[0], pow(novelty_taper(0, 1.0), 2), 1e-15);
}

Test(novelty, errors)
{
	const int64_t t[] = { 1, 3, 2 };
	struct novelty_params p = { .k = 1, .l = 2 };
	double nu[3];

	cr_expect_eq(novelty_compute(t, 3, &p, nu), -EINVAL);	/* unsorted */
	cr_expect_eq(novelty_naive(t, 3, &p, nu), -EINVAL);
	p.k = 0;
	cr_expect_eq(novelty_compute(t, 2, &p, nu), -EINVAL);
	p.k = NAN;
	cr_expect_eq(novelty_compute(t, 2, &p, nu), -EINVAL);
	p.k = 1;
	p.l = 0;
	cr_expect_eq(novelty_compute(t, 2, &p, nu), -EINVAL);
	p.l = NOVELTY_MAX_L + 1;
	cr_expect_eq(novelty_compute(t, 2, &p, nu), -EINVAL);
	p.l = NOVELTY_MAX_L;
	cr_expect_eq(novelty_compute(t, 2, &p, nu), 0);
	cr_expect_eq(novelty_compute(t, 2, NULL, nu), -EINVAL);
	cr_expect_eq(novelty_compute(NULL, 0, &p, NULL), 0);
}
