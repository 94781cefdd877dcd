// SPDX-License-Identifier: MIT
/*
 * The severity levels of the stage (patterns.h, Severity levels): which
 * breaks are the worst, by Otsu's threshold on their lateness, and the
 * patterns of all the levels' searches merged into one ranking.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "stats/otsu.h"

static int same_events(const struct pattern *x, const struct pattern *y)
{
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	for (uint32_t k = 0; k < x->len; k++) {
		int c = strcmp(x->events[k], y->events[k]);

		if (c)
			return c;
	}
	return 0;
}

struct ref {
	const struct pattern *p;
	uint32_t level;
	size_t rank;		/* in its level */
};

/* Orders by events, then best instance first (higher score, then level). */
static int cmp_dedup(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	int c = same_events(x->p, y->p);

	if (c)
		return c;
	if (x->p->score != y->p->score)
		return x->p->score > y->p->score ? -1 : 1;
	return (x->level > y->level) - (x->level < y->level);
}

/* The ranking of miner_auto.h over several levels: supports, not counts. */
static int cmp_merged(const void *a, const void *b)
{
	const struct ref *rx = a, *ry = b;
	const struct pattern *x = rx->p, *y = ry->p;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if (x->support_pos != y->support_pos)
		return x->support_pos > y->support_pos ? -1 : 1;
	if (x->support_neg != y->support_neg)
		return x->support_neg < y->support_neg ? -1 : 1;
	if (rx->level != ry->level)
		return rx->level < ry->level ? -1 : 1;
	return (rx->rank > ry->rank) - (rx->rank < ry->rank);
}

/*
 * Replaces dst's patterns by those of all levels (dst is lv[0]), one per
 * distinct event sequence, ranked together; keeps the first @keep.
 */
int levels_merge(struct patterns_result **lv, uint32_t nlv, uint32_t keep)
{
	struct patterns_result *dst = lv[0];
	struct ref *all;
	struct pattern *v;
	struct patterns_store *st;
	size_t n = 0, u = 0, nev = 0, nchar = 0, e = 0, c = 0;

	for (uint32_t i = 0; i < nlv; i++)
		n += lv[i]->n;
	all = malloc((n ? n : 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (uint32_t i = 0, k = 0; i < nlv; i++)
		for (size_t j = 0; j < lv[i]->n; j++, k++) {
			lv[i]->v[j].level = i;
			all[k] = (struct ref){ &lv[i]->v[j], i, j };
		}
	qsort(all, n, sizeof(*all), cmp_dedup);
	for (size_t i = 0; i < n; i++)
		if (!u || same_events(all[u - 1].p, all[i].p))
			all[u++] = all[i];
	qsort(all, u, sizeof(*all), cmp_merged);
	dst->total = u;
	if (keep && u > keep)
		u = keep;
	for (size_t i = 0; i < u; i++) {
		nev += all[i].p->len;
		for (uint32_t k = 0; k < all[i].p->len; k++)
			nchar += strlen(all[i].p->events[k]) + 1;
	}
	v = calloc(u ? u : 1, sizeof(*v));
	st = patterns_store_new(nev, nchar);
	if (!v || !st) {
		patterns_store_free(st);
		free(v);
		free(all);
		return -ENOMEM;
	}
	for (size_t i = 0; i < u; i++) {
		const struct pattern *q = all[i].p;

		v[i] = *q;
		v[i].events = st->names + e;
		v[i].kinds = st->kinds + e;
		for (uint32_t k = 0; k < q->len; k++, e++) {
			size_t l = strlen(q->events[k]) + 1;

			memcpy(st->text + c, q->events[k], l);
			st->names[e] = st->text + c;
			st->kinds[e] = q->kinds[k];
			c += l;
		}
	}
	free(all);
	/* swap in the merged patterns */
	patterns_store_free(dst->store);
	free(dst->v);
	dst->store = st;
	dst->v = v;
	dst->n = u;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The late class of the breaks: Otsu's threshold on the logarithm of their
 * lateness (it spans orders of magnitude: 2 ms of contention, 25 ms of a
 * disturbance, one 200 ms hang). When the late class is too small to mine
 * (a few extreme breaks), it is set aside and the rest split again; the
 * class mined is then everything above the new threshold, extreme breaks
 * included. Breaks all late within a factor of 2 of each other are not
 * split: one severity (the disturber's 25 ms breaks, give or take 1 ms).
 * x (log lateness) is sorted in place. *severe = 0: no split.
 */
int levels_split(double *x, size_t n, int64_t *above, size_t *severe)
{
	size_t m = n;

	*severe = 0;
	qsort(x, n, sizeof(*x), cmp_double);
	/* Breaks within a factor of 2 of each other are one severity. */
	if (!n || x[n - 1] - x[0] < log(2.0))
		return 0;
	while (m >= 2) {
		struct otsu_result ot;
		int err = otsu_threshold(x, m, NULL, &ot);

		if (err)
			return err;
		if (!ot.valid)
			return 0;
		if (n - ot.n_low >= PATTERNS_MIN_SEVERE) {
			*severe = n - ot.n_low;
			/* back to ns: the largest lateness of the low class */
			*above = (int64_t)llround(exp(x[ot.n_low - 1]));
			return 0;
		}
		m = ot.n_low;
	}
	return 0;
}
