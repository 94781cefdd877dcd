// SPDX-License-Identifier: MIT
/* Chance counts of patterns in the breaks' windows by their length; see src/patterns/chance.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chance.h"
#include "ppm.h"

/* Comparisons of counts computed two ways (a product, a sum) must not flip on rounding. */
#define CHANCE_TOL 1e-9

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* n lengths into a sorted array of doubles; -EINVAL on a negative one. */
static int lengths(double **out, const int64_t *ns, uint32_t n)
{
	double *v = malloc((n ? n : 1) * sizeof(*v));

	*out = v;
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		if (ns[i] < 0)
			return -EINVAL;
		v[i] = (double)ns[i];
	}
	qsort(v, n, sizeof(*v), cmp_double);
	return 0;
}

int chance__init(struct chance *c, const int64_t *pos_ns, uint32_t npos, const int64_t *neg_ns, uint32_t nneg)
{
	int err;

	memset(c, 0, sizeof(*c));
	if (!npos || !pos_ns || (nneg && !neg_ns))
		return -EINVAL;
	c->npos = npos;
	err = lengths(&c->pos, pos_ns, npos);
	if (!err)
		err = lengths(&c->neg, neg_ns, nneg);
	if (!err) {
		c->neg_head = malloc(((size_t)nneg + 1) * sizeof(*c->neg_head));
		err = c->neg_head ? 0 : -ENOMEM;
	}
	if (err) {
		chance__free(c);
		return err;
	}
	c->neg_head[0] = 0;
	for (uint32_t j = 0; j < nneg; j++)
		c->neg_head[j + 1] = c->neg_head[j] + c->neg[j];
	c->nneg = nneg;
	c->timed = c->neg_head[nneg] > 0;
	return 0;
}

void chance__free(struct chance *c)
{
	free(c->pos);
	free(c->neg);
	free(c->neg_head);
	c->pos = c->neg = c->neg_head = NULL;
}

double chance__rate(const struct chance *c, uint32_t neg_count)
{
	uint32_t n = c->nneg;

	if (!n || !neg_count || !c->timed)
		return 0;
	if (neg_count >= n)
		return INFINITY;
	/*
	 * sum_j min(1, r l_j) is m + r * (the n - m shortest lengths) when the
	 * m longest windows are the saturated ones: the first m that fits.
	 */
	for (uint32_t m = 0; m < neg_count; m++) {
		double rest = c->neg_head[n - m], r;

		if (rest <= 0)
			break;
		r = (neg_count - m) / rest;
		if (r * c->neg[n - m - 1] <= 1)
			return r;
	}
	return INFINITY;	/* unreachable with neg_count < n windows of some length */
}

/* sum_i min(1, r L_i) over D_pos. */
static double pos_sum(const struct chance *c, double r)
{
	double sum = 0;

	for (uint32_t i = c->npos; i-- > 0;) {
		double q;

		if (!(c->pos[i] > 0) || !(r > 0))
			break;	/* the shorter ones give nothing either */
		q = r * c->pos[i];
		sum += q < 1 ? q : 1;
	}
	return sum;
}

double chance__expected(const struct chance *c, uint32_t neg_count)
{
	double plain, sum;

	if (!c->nneg || !neg_count)
		return 0;
	plain = (double)neg_count * c->npos / c->nneg;
	if (!c->timed)
		return plain;
	sum = pos_sum(c, chance__rate(c, neg_count));
	return sum > plain ? sum : plain;
}

uint32_t chance__max_neg(const struct chance *c, uint32_t alpha_ppm)
{
	uint32_t lo = 0, hi = ppm_floor(alpha_ppm, c->nneg);
	double bound = (double)alpha_ppm / PPM_ONE * c->npos * (1 + CHANCE_TOL);

	/* chance() grows with neg_count: the largest count within the bound. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;

		if (chance__expected(c, mid) <= bound)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* prod_k min(1, rate_k L) */
static double all_in(const double *rates, uint32_t len, double l)
{
	double p = 1;

	for (uint32_t k = 0; k < len && p > 0; k++) {
		double q = rates[k] > 0 && l > 0 ? rates[k] * l : 0;

		p *= q < 1 ? q : 1;
	}
	return p;
}

/* The kept windows' median length (nneg >= 1). */
static double kept_len(const struct chance *c)
{
	return c->neg[(c->nneg - 1) / 2] / 2 + c->neg[c->nneg / 2] / 2;
}

bool chance__longer_than_kept(const struct chance *c, double rate)
{
	if (!c->nneg || !(rate > 0))
		return false;
	return all_in(&rate, 1, c->pos[c->npos - 1]) > all_in(&rate, 1, kept_len(c));
}

double chance__items(const struct chance *c, const double *rates, uint32_t len, uint32_t neg_count,
		     double stop_above)
{
	double sum = 0, kept, share;

	if (!c->nneg)
		return 0;
	share = (double)neg_count / c->nneg;
	if (share > 1)
		share = 1;
	kept = all_in(rates, len, kept_len(c));
	for (uint32_t i = c->npos; i-- > 0;) {
		double extra = all_in(rates, len, c->pos[i]) - kept;

		if (sum > stop_above)
			return sum;
		if (extra <= 0) {
			sum += (i + 1) * share;	/* this window and the shorter ones: the share alone */
			break;
		}
		sum += share + extra < 1 ? share + extra : 1;
	}
	return sum;
}
