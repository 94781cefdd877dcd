// SPDX-License-Identifier: MIT
#include <errno.h>
#include <math.h>

#include "novelty.h"

/* Ring of consecutive factors: a power of two >= 2 * NOVELTY_MAX_L. */
#define RING 128

double novelty_taper(int l, double sigma)
{
	double c = (double)l + 0.5;

	return exp(-c * c / (2.0 * sigma * sigma));
}

/* Checks the arguments and fills a[0..2L) with a_l for l = -L..L-1. */
static int kernel_setup(const int64_t *t, size_t n,
			const struct novelty_params *p, double *nu, double *a)
{
	if (!p || (n > 0 && (!t || !nu)))
		return -EINVAL;
	if (!(p->k > 0.0) || !isfinite(p->k) || p->l < 1 ||
	    p->l > NOVELTY_MAX_L || isnan(p->sigma) || isinf(p->sigma))
		return -EINVAL;
	for (size_t i = 1; i < n; i++)
		if (t[i] < t[i - 1])
			return -EINVAL;

	int L = (int)p->l;
	double sigma = p->sigma > 0.0 ? p->sigma : (double)L / 2.0;

	for (int l = -L; l < L; l++)
		a[l + L] = (l < 0 ? -1.0 : 1.0) * novelty_taper(l, sigma);
	return 0;
}

static inline double gap_factor(const int64_t *t, size_t j, double k)
{
	/* The difference in int64 first: ns stamps lose precision as doubles. */
	return exp(-(double)(t[j + 1] - t[j]) / k);
}

int novelty_compute(const int64_t *t, size_t n, const struct novelty_params *p,
		    double *nu)
{
	double a[2 * NOVELTY_MAX_L];
	double ring[RING];
	int err = kernel_setup(t, n, p, nu, a);

	if (err)
		return err;

	const ptrdiff_t L = (ptrdiff_t)p->l;
	const ptrdiff_t N = (ptrdiff_t)n;
	ptrdiff_t next_e = 0;	/* next consecutive factor to compute */

	for (ptrdiff_t i = 0; i < N; i++) {
		ptrdiff_t lo = i - L < 0 ? -i : -L;
		ptrdiff_t hi = i + L - 1 > N - 1 ? N - 1 - i : L - 1;
		ptrdiff_t need = i + hi - 1;	/* last factor this window reads */
		double P = 0.0, s = 0.0;

		/* The window reads factors i+lo .. i+hi-1: 2L-1 of them at most. */
		for (; next_e <= need; next_e++)
			ring[next_e & (RING - 1)] = gap_factor(t, (size_t)next_e, p->k);

		for (ptrdiff_t m = lo; m <= hi; m++) {
			double am = a[m + L];

			/* P = sum_{l<m} a_l S(i+l, i+m), carried by one factor per step. */
			s += am * (am + 2.0 * P);
			if (m < hi)
				P = (P + am) * ring[(i + m) & (RING - 1)];
		}
		nu[i] = s;
	}
	return 0;
}
