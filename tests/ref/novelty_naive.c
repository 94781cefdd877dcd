// SPDX-License-Identifier: MIT
#include <errno.h>
#include <math.h>

#include "novelty_naive.h"

int novelty_naive(const int64_t *t, size_t n, const struct novelty_params *p, double *nu)
{
	double a[2 * NOVELTY_MAX_L], sigma;
	ptrdiff_t L, N = (ptrdiff_t)n;

	if (!p || (n && (!t || !nu)) || !(p->k > 0.0) || !isfinite(p->k) || !isfinite(p->sigma) ||
	    p->l < 1 || p->l > NOVELTY_MAX_L)
		return -EINVAL;
	for (size_t i = 1; i < n; i++)
		if (t[i] < t[i - 1])
			return -EINVAL;
	L = (ptrdiff_t)p->l;
	sigma = p->sigma > 0.0 ? p->sigma : (double)L / 2.0;
	/* a_l = s(l) w(l) for l = -L..L-1 */
	for (ptrdiff_t l = -L; l < L; l++)
		a[l + L] = (l < 0 ? -1.0 : 1.0) * novelty_taper((int)l, sigma);
	for (ptrdiff_t i = 0; i < N; i++) {
		double s = 0.0;

		for (ptrdiff_t l = -L; l < L; l++) {
			if (i + l < 0 || i + l >= N)
				continue;
			for (ptrdiff_t m = -L; m < L; m++) {
				if (i + m < 0 || i + m >= N)
					continue;
				int64_t d = t[i + l] - t[i + m];

				if (d < 0)
					d = -d;
				s += a[l + L] * a[m + L] * exp(-(double)d / p->k);
			}
		}
		nu[i] = s;
	}
	return 0;
}
