// SPDX-License-Identifier: MIT
/*
 * The miner runs of one search of the stage (patterns.h, Thresholds): one
 * run at given thresholds, or the walk of miner_auto.h and one run a tenth
 * of the breaks looser; their patterns ranked as miner_auto.h ranks them and
 * named, and the text of what cut them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "miner_auto.h"

static uint32_t to_ppm(double f)
{
	double v = round(f * PPM_ONE);

	return v <= 0 ? 0 : v >= PPM_ONE ? PPM_ONE : (uint32_t)v;
}

/* A pattern found by either search, before naming. */
struct found {
	const uint32_t *sym;
	uint32_t len, pos, neg;
	uint32_t delta_ppm, alpha_ppm;
	double score;
	double chance;		/* miner_data__chance() */
};

/* A pattern of a miner run, scored as miner_auto.h ranks them. */
static struct found found_of(const struct miner_data *d, const struct miner_pattern *p, uint32_t dp, uint32_t ap)
{
	double c = miner_data__chance(d, p->sym, p->len, p->neg_count);

	return (struct found){ p->sym, p->len, p->pos_count, p->neg_count, dp, ap,
			       miner_data__score(d, p->pos_count, p->neg_count, c), c };
}

static int cmp_found(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	/* The ranking of miner_auto.h, so that fixed and searched thresholds
	 * list patterns alike. */
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if (x->pos != y->pos)
		return x->pos > y->pos ? -1 : 1;
	if (x->neg != y->neg)
		return x->neg < y->neg ? -1 : 1;
	for (uint32_t i = 0; i < x->len; i++)
		if (x->sym[i] != y->sym[i])
			return x->sym[i] < y->sym[i] ? -1 : 1;
	return 0;
}

/* Copies the first r->n of f (ranked) into r with their names. */
static int name_patterns(struct patterns_result *r, const struct found *f, size_t nf,
			 const struct vocab *v, uint32_t keep)
{
	struct patterns_store *st;
	size_t nev = 0, nchar = 0, e = 0, c = 0;

	r->total = nf;
	r->n = keep && nf > keep ? keep : nf;
	for (size_t i = 0; i < r->n; i++) {
		nev += f[i].len;
		for (uint32_t k = 0; k < f[i].len; k++)
			nchar += strlen(vocab__name(v, f[i].sym[k])) + 1;
	}
	st = patterns_store_new(nev, nchar);
	r->store = st;
	if (!st)
		return -ENOMEM;
	r->v = calloc(r->n ? r->n : 1, sizeof(*r->v));
	if (!r->v)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		struct pattern *p = &r->v[i];

		p->len = f[i].len;
		p->events = st->names + e;
		p->kinds = st->kinds + e;
		for (uint32_t k = 0; k < f[i].len; k++, e++) {
			const char *s = vocab__name(v, f[i].sym[k]);
			size_t l = strlen(s) + 1;

			memcpy(st->text + c, s, l);
			st->names[e] = st->text + c;
			st->kinds[e] = vocab__kind(v, f[i].sym[k]);
			c += l;
		}
		p->count_pos = f[i].pos;
		p->count_neg = f[i].neg;
		p->support_pos = r->npos ? (double)f[i].pos / r->npos : 0;
		p->support_neg = r->nneg ? (double)f[i].neg / r->nneg : 0;
		p->delta = f[i].delta_ppm / (double)PPM_ONE;
		p->alpha = f[i].alpha_ppm / (double)PPM_ONE;
		p->chance_pos = f[i].chance;
		p->score = f[i].score;
		p->level = 0;
		p->breaks = r->npos;
	}
	return 0;
}

static void describe_bounds(struct patterns_result *r, unsigned bounds, const struct miner_opts *mo,
			    uint32_t complete_len)
{
	size_t n;

	r->bounds = bounds;
	n = (size_t)miner_bounds_describe(bounds, mo, r->bounds_text, sizeof(r->bounds_text));
	if (n >= sizeof(r->bounds_text))
		return;
	if (bounds == MINER_BOUND_MAX_LEN) {
		snprintf(r->bounds_text + n, sizeof(r->bounds_text) - n,
			 "; exact for patterns up to length %u", mo->max_len);
		return;
	}
	if (!(bounds & (MINER_BOUND_NODES | MINER_BOUND_PATTERNS | MINER_BOUND_TIME)))
		return;
	if (complete_len)
		snprintf(r->bounds_text + n, sizeof(r->bounds_text) - n,
			 "; complete for patterns up to length %u", complete_len);
	else
		snprintf(r->bounds_text + n, sizeof(r->bounds_text) - n,
			 "; the patterns shown emerge, but others may have been missed");
}

#define DELTA_FLOOR 0.50	/* miner_auto's default floor */

/* Appends the patterns of @mr not already in f (by symbols). */
static int add_extra(struct found **f, size_t *nf, const struct miner_result *mr,
		     const struct miner_data *d, uint32_t dp, uint32_t ap)
{
	struct found *g = realloc(*f, (*nf + mr->npatterns + 1) * sizeof(*g));
	size_t n0 = *nf;

	if (!g)
		return -ENOMEM;
	*f = g;
	for (uint32_t i = 0; i < mr->npatterns; i++) {
		const struct miner_pattern *p = &mr->patterns[i];
		bool seen = false;

		for (size_t k = 0; k < n0 && !seen; k++)
			seen = g[k].len == p->len && !memcmp(g[k].sym, p->sym, p->len * sizeof(*p->sym));
		if (!seen)
			g[(*nf)++] = found_of(d, p, dp, ap);
	}
	return 0;
}

int thresholds_mine(struct patterns_result *r, const struct miner_data *d, const struct patterns_opts *o,
		    const struct vocab *v)
{
	struct miner_auto_opts ao;
	struct found *f = NULL;
	size_t nf = 0;
	int64_t t0 = patterns_now_ns();
	int err;

	miner_auto_opts_default(&ao);
	ao.base.gap_max = r->gap;
	ao.base.max_len = o->max_len;
	ao.base.max_nodes = o->max_nodes;
	ao.total_time_budget_ns = o->time_budget_ns;
	ao.fix_delta = !r->auto_delta;
	ao.fix_alpha = !r->auto_alpha;
	ao.base.delta_ppm = r->auto_delta ? PPM_ONE : to_ppm(o->delta);
	ao.base.alpha_ppm = r->auto_alpha ? 0 : to_ppm(o->alpha);

	if (!r->auto_delta && !r->auto_alpha) {
		struct miner_result *mr;

		ao.base.time_budget_ns = o->time_budget_ns;
		err = miner_data__mine(d, &ao.base, &mr);
		if (err)
			return err;
		f = calloc(mr->npatterns ? mr->npatterns : 1, sizeof(*f));
		if (!f) {
			miner_result__free(mr);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < mr->npatterns; i++) {
			const struct miner_pattern *p = &mr->patterns[i];

			f[nf++] = found_of(d, p, ao.base.delta_ppm, ao.base.alpha_ppm);
		}
		qsort(f, nf, sizeof(*f), cmp_found);
		r->runs = 1;
		r->found = mr->npatterns > 0;
		r->delta = ao.base.delta_ppm / (double)PPM_ONE;
		r->alpha = ao.base.alpha_ppm / (double)PPM_ONE;
		describe_bounds(r, mr->bounds, &mr->opts, mr->complete_len);
		err = name_patterns(r, f, nf, v, o->keep);
		free(f);
		miner_result__free(mr);
	} else {
		struct miner_auto_result *ar;
		struct miner_result *extra = NULL;
		struct miner_opts desc;
		uint32_t complete = UINT32_MAX;
		unsigned bounds;

		err = miner_auto_run(d, &ao, &ar);
		if (err)
			return err;
		f = calloc(ar->npatterns ? ar->npatterns : 1, sizeof(*f));
		if (!f) {
			miner_auto_result__free(ar);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < ar->npatterns; i++) {
			const struct miner_auto_pattern *p = &ar->patterns[i];

			f[nf++] = (struct found){ p->sym, p->len, p->pos_count, p->neg_count,
						  p->delta_ppm, p->alpha_ppm, p->score, p->chance };
		}
		r->runs = ar->nruns;
		r->found = ar->found;
		/* Where the first patterns emerged, else where the search stopped. */
		for (uint32_t i = 0; i < ar->nruns; i++) {
			const struct miner_auto_run *run = &ar->runs[i];

			r->delta = run->delta_ppm / (double)PPM_ONE;
			r->alpha = run->alpha_ppm / (double)PPM_ONE;
			if (run->npatterns)
				break;
		}
		for (uint32_t i = 0; i < ar->nruns; i++)
			if (ar->runs[i].bounds && ar->runs[i].complete_len < complete)
				complete = ar->runs[i].complete_len;
		bounds = ar->bounds;
		/*
		 * The search stops at the first thresholds where anything
		 * emerges. With few breaks that is often one perfect pattern
		 * (the disturber switched in, 9/9 breaks) while what it did
		 * (its syscall, 8/9: one break was the start-up) is one break
		 * short. So one more run at the same alpha, with min_pos lowered
		 * by a tenth of the breaks, at least one (not below delta 50 %),
		 * adds the patterns that miss that many; at the same alpha none
		 * of them contains one found before, so the list stays minimal.
		 */
		if (ar->found && r->auto_delta && !(ar->bounds & MINER_BOUND_TIME)) {
			int64_t left = o->time_budget_ns ? o->time_budget_ns - (patterns_now_ns() - t0) : 0;
			uint32_t mp = miner_min_pos(to_ppm(r->delta), r->npos);
			uint32_t less = (uint32_t)(PATTERNS_DELTA_TOLERANCE * r->npos);
			uint64_t dp;

			less = less ? less : 1;
			mp = mp > less ? mp - less : 0;
			/* the largest delta whose min_pos is mp: ceil(dp * npos / 1e6) */
			dp = (uint64_t)mp * PPM_ONE / r->npos;
			if (mp && dp >= to_ppm(DELTA_FLOOR) && (!o->time_budget_ns || left > 0)) {
				struct miner_opts xo = ao.base;

				xo.delta_ppm = (uint32_t)dp;
				xo.alpha_ppm = to_ppm(r->alpha);
				xo.time_budget_ns = left;
				err = miner_data__mine(d, &xo, &extra);
				if (err) {
					free(f);
					miner_auto_result__free(ar);
					return err;
				}
				r->runs++;
				bounds |= extra->bounds;
				if (extra->bounds && extra->complete_len < complete)
					complete = extra->complete_len;
				err = add_extra(&f, &nf, extra, d, xo.delta_ppm, xo.alpha_ppm);
			}
		}
		qsort(f, nf, sizeof(*f), cmp_found);
		/* The time bound that matters here is the whole search's. */
		desc = ao.base;
		desc.time_budget_ns = o->time_budget_ns;
		describe_bounds(r, bounds, &desc, complete == UINT32_MAX ? 0 : complete);
		if (!err)
			err = name_patterns(r, f, nf, v, o->keep);
		free(f);
		miner_result__free(extra);
		miner_auto_result__free(ar);
	}
	r->mine_ns = patterns_now_ns() - t0;
	return err;
}
