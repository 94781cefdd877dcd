// SPDX-License-Identifier: MIT
/* Automatic thresholds for the miner: a strict-to-relaxed grid walk (see miner_auto.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "miner_auto.h"

static const uint32_t delta_grid_pct[] = {
	100, 98, 96, 94, 92, 90, 85, 80, 75, 70, 65, 60, 55, 50, 45, 40, 30, 20, 10,
};
static const uint32_t alpha_grid_pct[] = {
	0, 1, 2, 3, 4, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50,
};
#define NDELTA (sizeof(delta_grid_pct) / sizeof(delta_grid_pct[0]))
#define NALPHA (sizeof(alpha_grid_pct) / sizeof(alpha_grid_pct[0]))

struct entry {
	uint32_t off, len, pos, neg, run, nruns;
	double score;		/* (supp_pos - supp_neg) * |D_pos| * max(|D_neg|, 1), supp_neg the chance's */
	double chance;		/* miner_data__chance() */
};

struct acc {
	struct entry *e;
	size_t n, cap;
	uint32_t *sym;
	size_t nsym, symcap;
	const struct miner_auto_run *runs;
	const struct miner_data *d;
};

void miner_auto_opts_default(struct miner_auto_opts *o)
{
	memset(o, 0, sizeof(*o));
	miner_opts_default(&o->base);
	o->delta_floor_ppm = PPM_PCT(50);
	o->alpha_ceil_ppm = PPM_PCT(25);
	o->total_time_budget_ns = 60LL * 1000 * 1000 * 1000;
}

/* The grid values within the limit, plus the limit itself when it falls
 * between grid values, so that the floor/ceiling is always tried. */
static uint32_t make_grid(uint32_t *out, const uint32_t *pct, size_t n, uint32_t limit,
			  bool descending)
{
	uint32_t k = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t v = PPM_PCT(pct[i]);

		if (descending ? v < limit : v > limit)
			break;
		out[k++] = v;
	}
	if (!k || out[k - 1] != limit)
		out[k++] = limit;
	return k;
}

static int add_patterns(struct acc *a, const struct miner_result *r, uint32_t run)
{
	int64_t nneg1 = r->nneg ? r->nneg : 1;

	for (uint32_t i = 0; i < r->npatterns; i++) {
		const struct miner_pattern *p = &r->patterns[i];
		struct entry *e;

		if (patterns_grow(&a->e, &a->cap, a->n + 1, sizeof(*a->e)) ||
		    patterns_grow(&a->sym, &a->symcap, a->nsym + p->len, sizeof(*a->sym)))
			return -ENOMEM;
		e = &a->e[a->n++];
		e->off = (uint32_t)a->nsym;
		e->len = p->len;
		e->pos = p->pos_count;
		e->neg = p->neg_count;
		e->run = run;
		e->nruns = 1;
		e->chance = miner_data__chance(a->d, p->sym, p->len, p->neg_count);
		/* Both supports over the common denominator |D_pos| * |D_neg|: exact in integers
		 * where the chance support is the plain one. */
		e->score = miner_data__beyond_plain(a->d, p->neg_count, e->chance) ?
				   ((double)p->pos_count - e->chance) * nneg1 :
				   (double)((int64_t)p->pos_count * nneg1 - (int64_t)p->neg_count * r->npos);
		memcpy(a->sym + a->nsym, p->sym, p->len * sizeof(*a->sym));
		a->nsym += p->len;
	}
	return 0;
}

static int cmp_syms(const struct entry *x, const struct entry *y, const uint32_t *s)
{
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	for (uint32_t i = 0; i < x->len; i++)
		if (s[x->off + i] != s[y->off + i])
			return s[x->off + i] < s[y->off + i] ? -1 : 1;
	return 0;
}

static int cmp_same(const void *a, const void *b, void *arg)
{
	const struct entry *x = a, *y = b;
	int c = cmp_syms(x, y, arg);

	if (c)
		return c;
	return (x->run > y->run) - (x->run < y->run);
}

static int cmp_rank(const void *a, const void *b, void *arg)
{
	const struct entry *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if (x->pos != y->pos)
		return x->pos > y->pos ? -1 : 1;
	if (x->neg != y->neg)
		return x->neg < y->neg ? -1 : 1;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return cmp_syms(x, y, arg);
}

static int finish(struct acc *a, struct miner_auto_result *res)
{
	size_t n = 0;
	uint32_t *syms;

	if (!a->n)
		return 0;
	/* Merge the reports of one pattern, keeping the first run's. */
	qsort_r(a->e, a->n, sizeof(*a->e), cmp_same, a->sym);
	for (size_t i = 0; i < a->n; i++) {
		if (n && !cmp_syms(&a->e[n - 1], &a->e[i], a->sym))
			a->e[n - 1].nruns++;
		else
			a->e[n++] = a->e[i];
	}
	qsort_r(a->e, n, sizeof(*a->e), cmp_rank, a->sym);
	res->patterns = calloc(n, sizeof(*res->patterns));
	syms = malloc(a->nsym * sizeof(*syms));
	if (!res->patterns || !syms) {
		free(res->patterns);
		res->patterns = NULL;
		free(syms);
		return -ENOMEM;
	}
	a->nsym = 0;
	for (size_t i = 0; i < n; i++) {
		const struct entry *e = &a->e[i];
		struct miner_auto_pattern *p = &res->patterns[i];

		p->len = e->len;
		p->sym = syms + a->nsym;
		memcpy(syms + a->nsym, a->sym + e->off, e->len * sizeof(*syms));
		a->nsym += e->len;
		p->pos_count = e->pos;
		p->neg_count = e->neg;
		p->run = e->run;
		p->nruns = e->nruns;
		p->delta_ppm = res->runs[e->run].delta_ppm;
		p->alpha_ppm = res->runs[e->run].alpha_ppm;
		p->chance = e->chance;
		p->score = miner_data__score(a->d, e->pos, e->neg, e->chance);
	}
	res->npatterns = (uint32_t)n;
	return 0;
}

/*
 * One grid point's run into *out (any: only whether a pattern emerges);
 * -ETIME (res->bounds noting it) when the total budget is spent before it
 * starts.
 */
static int mine_point(const struct miner_data *d, const struct miner_auto_opts *o, uint32_t delta_ppm,
		      uint32_t alpha_ppm, bool deepen, bool any, int64_t t0, struct miner_result **out,
		      struct miner_auto_result *res)
{
	struct miner_opts ro = o->base;

	if (o->total_time_budget_ns) {
		int64_t left = o->total_time_budget_ns - (patterns_now_ns() - t0);

		if (left <= 0) {
			res->bounds |= MINER_BOUND_TIME;
			return -ETIME;
		}
		if (!ro.time_budget_ns || ro.time_budget_ns > left)
			ro.time_budget_ns = left;
	}
	ro.delta_ppm = delta_ppm;
	ro.alpha_ppm = alpha_ppm;
	/* Later runs have the same or a lower min_pos, so about as large a
	 * search: once one has overrun the node budget, skip their plain
	 * DFS, which would be cut too. */
	ro.deepen |= deepen;
	ro.any = any;
	return miner_data__mine(d, &ro, out);
}

/* A run of round r into the result's runs, its patterns into a. */
static int add_run(struct acc *a, struct miner_auto_result *res, size_t *runcap, const struct miner_result *mr,
		   uint32_t delta_ppm, uint32_t alpha_ppm, uint32_t mp, uint32_t mn, uint32_t r)
{
	struct miner_auto_run *run;

	if (patterns_grow(&res->runs, runcap, (size_t)res->nruns + 1, sizeof(*res->runs)))
		return -ENOMEM;
	run = &res->runs[res->nruns];
	run->delta_ppm = delta_ppm;
	run->alpha_ppm = alpha_ppm;
	run->min_pos = mp;
	run->max_neg = mn;
	run->round = r;
	run->npatterns = mr->npatterns;
	run->bounds = mr->bounds;
	run->complete_len = mr->complete_len;
	run->nodes = mr->nodes;
	run->elapsed_ns = mr->elapsed_ns;
	res->bounds |= mr->bounds;
	res->round = r;
	if (mr->npatterns)
		res->found = true;
	res->nruns++;
	return add_patterns(a, mr, res->nruns - 1);
}

int miner_auto_run(const struct miner_data *d, const struct miner_auto_opts *opts,
		   struct miner_auto_result **out)
{
	uint32_t dg[NDELTA + 1], ag[NALPHA + 1], nd, na;
	struct miner_auto_opts o;
	struct miner_auto_result *res;
	struct acc a = { .d = d };
	size_t runcap = 0;
	int64_t t0 = patterns_now_ns();
	bool deepen = false;
	int err = 0;

	if (!d || !out)
		return -EINVAL;
	*out = NULL;
	if (opts)
		o = *opts;
	else
		miner_auto_opts_default(&o);
	if (o.delta_floor_ppm > PPM_ONE || o.alpha_ceil_ppm > PPM_ONE ||
	    o.base.delta_ppm > PPM_ONE || o.base.alpha_ppm > PPM_ONE ||
	    o.total_time_budget_ns < 0 || o.base.time_budget_ns < 0 ||
	    o.base.gap_min > o.base.gap_max)
		return -EINVAL;
	if (o.fix_delta) {
		dg[0] = o.base.delta_ppm;
		nd = 1;
	} else {
		nd = make_grid(dg, delta_grid_pct, NDELTA, o.delta_floor_ppm, true);
	}
	if (o.fix_alpha) {
		ag[0] = o.base.alpha_ppm;
		na = 1;
	} else {
		na = make_grid(ag, alpha_grid_pct, NALPHA, o.alpha_ceil_ppm, false);
	}
	res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	res->npos = miner_data__npos(d);
	res->nneg = miner_data__nneg(d);
	res->opts = o;

	for (uint32_t r = 0; r + 1 < nd + na && !res->found && !err; r++) {
		for (uint32_t i = 0; i < nd && i <= r && !err; i++) {
			uint32_t j = r - i, mp, mn;
			struct miner_result *mr;
			bool seen = false;

			if (j >= na)
				continue;
			mp = miner_min_pos(dg[i], res->npos);
			mn = miner_data__max_neg(d, ag[j]);
			for (uint32_t k = 0; k < res->nruns && !seen; k++)
				seen = res->runs[k].min_pos == mp && res->runs[k].max_neg == mn;
			if (seen)
				continue;
			err = mine_point(d, &o, dg[i], ag[j], deepen, false, t0, &mr, res);
			if (err == -ETIME) {
				err = 0;
				goto done;
			}
			if (err)
				break;
			deepen |= !!(mr->bounds & (MINER_BOUND_NODES | MINER_BOUND_PATTERNS));
			err = add_run(&a, res, &runcap, mr, dg[i], ag[j], mp, mn, r);
			miner_result__free(mr);
		}
		/*
		 * Whether anything emerges is monotone over the grid: a pattern
		 * emerging at one point emerges at every looser one, and so
		 * does a minimal one inside it. So once the strictest round has
		 * found nothing, one run at the loosest point (the corner),
		 * asked only whether any pattern emerges, says whether any
		 * round can: an exact no ends the walk there instead of running
		 * every point (168 by default: two such searches were 0.97 s of
		 * a 15 s storm's 1.12 s of mining). A yes is dropped (it lists
		 * one pattern, not the corner's all) and the walk goes on.
		 */
		if (r == 0 && !res->found && !err && nd + na > 2) {
			uint32_t mp = miner_min_pos(dg[nd - 1], res->npos), mn = miner_data__max_neg(d, ag[na - 1]);
			struct miner_result *probe;

			if (mp == res->runs[0].min_pos && mn == res->runs[0].max_neg)
				break;	/* every point is the one that ran */
			err = mine_point(d, &o, dg[nd - 1], ag[na - 1], deepen, true, t0, &probe, res);
			if (err == -ETIME) {
				err = 0;
				goto done;
			}
			if (err)
				break;
			if (!probe->npatterns &&
			    !(probe->bounds & (MINER_BOUND_NODES | MINER_BOUND_PATTERNS | MINER_BOUND_TIME))) {
				err = add_run(&a, res, &runcap, probe, dg[nd - 1], ag[na - 1], mp, mn, nd + na - 2);
				miner_result__free(probe);
				break;
			}
			miner_result__free(probe);
		}
	}
done:
	if (!err)
		err = finish(&a, res);
	free(a.e);
	free(a.sym);
	if (err) {
		miner_auto_result__free(res);
		return err;
	}
	res->elapsed_ns = patterns_now_ns() - t0;
	*out = res;
	return 0;
}

void miner_auto_result__free(struct miner_auto_result *r)
{
	if (!r)
		return;
	if (r->patterns && r->npatterns)
		free((void *)r->patterns[0].sym);
	free(r->patterns);
	free(r->runs);
	free(r);
}
