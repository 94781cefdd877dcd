// SPDX-License-Identifier: MIT
/*
 * The emerging-patterns stage (SATM §5); see src/patterns/patterns.h. Windows ->
 * symbols (vocab.c) -> miner (miner.c, miner_auto.c) -> ranked, named
 * patterns, and their JSON and text renderings.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "actors/actors.h"
#include "miner.h"
#include "miner_auto.h"
#include "stats/otsu.h"
#include "lib/parse.h"
#include "patterns.h"
#include "report/report.h"

/* What the result owns behind its public pointers. */
struct store {
	const char **names;	/* all patterns' events, one after another */
	unsigned *kinds;
	char *text;		/* the names' characters */
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void patterns_opts_default(struct patterns_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->delta = -1;
	o->alpha = -1;
	o->gap = -1;
	vocab_opts_default(&o->vocab);
	o->max_subtraces = PATTERNS_DEFAULT_MAX_SUBTRACES;
	o->time_budget_ns = PATTERNS_DEFAULT_TIME_BUDGET_NS;
	o->max_nodes = PATTERNS_DEFAULT_MAX_NODES;
	o->max_len = 8;
	o->keep = PATTERNS_DEFAULT_KEEP;
	o->min_lateness = PATTERNS_DEFAULT_MIN_LATENESS;
}

void patterns_opts_from_analysis(struct patterns_opts *o, const struct analysis_opts *a)
{
	patterns_opts_default(o);
	if (!a)
		return;
	o->delta = a->delta;
	o->alpha = a->alpha;
	o->gap = a->gap;
}

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
	struct store *st;
	size_t nev = 0, nchar = 0, e = 0, c = 0;

	r->total = nf;
	r->n = keep && nf > keep ? keep : nf;
	for (size_t i = 0; i < r->n; i++) {
		nev += f[i].len;
		for (uint32_t k = 0; k < f[i].len; k++)
			nchar += strlen(vocab__name(v, f[i].sym[k])) + 1;
	}
	st = calloc(1, sizeof(*st));
	r->store = st;
	if (!st)
		return -ENOMEM;
	r->v = calloc(r->n ? r->n : 1, sizeof(*r->v));
	st->names = malloc((nev ? nev : 1) * sizeof(*st->names));
	st->kinds = malloc((nev ? nev : 1) * sizeof(*st->kinds));
	st->text = malloc(nchar ? nchar : 1);
	if (!r->v || !st->names || !st->kinds || !st->text)
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

/* Runs the miner with fixed or searched thresholds and fills r. */
static int mine(struct patterns_result *r, const struct miner_data *d, const struct patterns_opts *o,
		const struct vocab *v)
{
	struct miner_auto_opts ao;
	struct found *f = NULL;
	size_t nf = 0;
	int64_t t0 = now_ns();
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
			int64_t left = o->time_budget_ns ? o->time_budget_ns - (now_ns() - t0) : 0;
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
	r->mine_ns = now_ns() - t0;
	return err;
}

/* Evenly spaced choice of m of the n indices in idx (in place, order kept). */
static size_t sample(size_t *idx, size_t n, size_t m)
{
	if (!m || n <= m)
		return n;
	for (size_t j = 0; j < m; j++)
		idx[j] = idx[j * n / m];
	return m;
}

/*
 * What all the searches over one actor's windows share: the event stream,
 * the vocabulary, whether each window overlaps missing data, and each
 * window's symbols, computed the first time a search mines the window.
 */
struct prep {
	const struct timeline *tl;
	const struct period_window *w;
	size_t n;
	struct patterns_opts o;		/* vocab.drop_thread set */
	struct vocab *v;
	struct vocab_seq seq;		/* the symbolised windows, one after another */
	size_t *off;			/* per window: into seq.sym, SIZE_MAX until symbolised */
	uint32_t *len;
	uint64_t *events;		/* stream events read for the window */
	bool *cut;			/* cut to vocab.max_len */
	bool *missing;
};

static void prep_free(struct prep *p)
{
	vocab__free(p->v);
	vocab_seq__free(&p->seq);
	free(p->off);
	free(p->len);
	free(p->events);
	free(p->cut);
	free(p->missing);
}

/* A window's stretch of the timeline (its times are signed, the timeline's not). */
static struct tl_span window_span(const struct period_window *x)
{
	return (struct tl_span){ x->start_ns < 0 ? 0 : (uint64_t)x->start_ns,
				 x->end_ns < 0 ? 0 : (uint64_t)x->end_ns };
}

static int prep_init(struct prep *p, const struct timeline *tl, const struct period_window *w, size_t n,
		     uint32_t actor_thread, const struct patterns_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->tl = tl;
	p->w = w;
	p->n = n;
	p->o = *o;
	p->o.vocab.drop_thread = o->keep_actor ? TL_NONE : actor_thread;
	p->off = malloc((n ? n : 1) * sizeof(*p->off));
	p->len = calloc(n ? n : 1, sizeof(*p->len));
	p->events = calloc(n ? n : 1, sizeof(*p->events));
	p->cut = calloc(n ? n : 1, sizeof(*p->cut));
	p->missing = malloc((n ? n : 1) * sizeof(*p->missing));
	if (!p->off || !p->len || !p->events || !p->cut || !p->missing)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct tl_span sp = window_span(&w[i]);

		if (w[i].end_ns < w[i].start_ns)
			return -EINVAL;
		p->off[i] = SIZE_MAX;
		/* No conclusion inside missing data: on either side, a window
		 * that lost events would count as a sequence without them. */
		p->missing[i] = timeline__missing(tl, -1, sp.start, sp.end);
	}
	return 0;
}

static int prep_window(struct prep *p, const struct tl_event *ev, size_t nev, size_t i)
{
	struct tl_span sp = window_span(&p->w[i]);
	size_t base = p->seq.n, cut = p->seq.truncated;
	uint64_t ev0 = p->seq.events;
	int err;

	err = vocab__window(p->v, ev, nev, sp.start, sp.end, p->w[i].end_closed, &p->o.vocab, &p->seq,
			    &p->len[i]);
	if (err)
		return err;
	p->off[i] = base;
	p->events[i] = p->seq.events - ev0;
	p->cut[i] = p->seq.truncated != cut;
	return 0;
}

/*
 * Symbolises the windows idx[side][0..nidx[side]) not done yet, in that
 * order (symbol ids go by first use), from a stream of their events only.
 */
static int prep_windows(struct prep *p, size_t *const idx[2], const size_t nidx[2])
{
	struct tl_span *sp = malloc((nidx[0] + nidx[1] + 1) * sizeof(*sp));
	struct tl_event *ev = NULL;
	size_t nsp = 0, nev = 0;
	int err = 0;

	if (!sp)
		return -ENOMEM;
	for (int side = 0; side < 2; side++)
		for (size_t j = 0; j < nidx[side]; j++)
			if (p->off[idx[side][j]] == SIZE_MAX)
				sp[nsp++] = window_span(&p->w[idx[side][j]]);
	if (!nsp)
		goto out;
	if (!p->v)
		err = vocab__new(p->tl, &p->v);
	if (!err)
		err = timeline__stream(p->tl, sp, nsp, &ev, &nev);
	for (int side = 0; !err && side < 2; side++)
		for (size_t j = 0; !err && j < nidx[side]; j++)
			if (p->off[idx[side][j]] == SIZE_MAX)
				err = prep_window(p, ev, nev, idx[side][j]);
	free(ev);
out:
	free(sp);
	return err;
}

/*
 * The windows' lengths, so that a pattern emerges only where the breaks'
 * windows hold it more often than their length explains (chance.h). A
 * window cut to vocab.max_len symbols counts whole: a pattern is less
 * likely in it than that, so the control errs on the strict side.
 */
static int set_lengths(struct miner_data *d, const struct period_window *w, size_t *const idx[2],
		       const size_t nidx[2], double *ratio)
{
	int64_t *ns = malloc((nidx[0] + nidx[1] + 1) * sizeof(*ns));
	double sum[2] = { 0, 0 };
	int err;

	if (!ns)
		return -ENOMEM;
	for (int side = 0, k = 0; side < 2; side++)
		for (size_t j = 0; j < nidx[side]; j++, k++) {
			struct tl_span sp = window_span(&w[idx[side][j]]);

			ns[k] = (int64_t)(sp.end - sp.start);
			sum[side] += (double)ns[k];
		}
	*ratio = nidx[0] && nidx[1] && sum[1] > 0 ? (sum[0] / nidx[0]) / (sum[1] / nidx[1]) : 0;
	err = miner_data__set_lengths(d, ns, ns + nidx[0]);
	free(ns);
	return err;
}

/*
 * One search: the windows of p, positive ones only where @pos_sel (NULL:
 * all) says so; the others are not part of this search at all.
 */
static int mine_level(struct prep *p, const bool *pos_sel, struct patterns_result **out)
{
	const struct patterns_opts *o = &p->o;
	struct patterns_result *r;
	struct miner_seq *ms = NULL;
	struct miner_data *d = NULL;
	struct miner_opts mo;
	size_t *idx[2] = { NULL, NULL }, nidx[2] = { 0, 0 };
	int64_t t0 = now_ns();
	double ratio = 0;
	int err = -ENOMEM;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->actor = -1;
	r->gap = o->gap < 0 ? PATTERNS_DEFAULT_GAP : (uint32_t)o->gap;
	r->auto_delta = o->delta < 0;
	r->auto_alpha = o->alpha < 0;
	r->delta = r->auto_delta ? 1.0 : o->delta;
	r->alpha = r->auto_alpha ? 0.0 : o->alpha;
	r->actor_dropped = o->vocab.drop_thread != TL_NONE;
	r->max_subtrace_len = o->vocab.max_len;

	idx[0] = malloc((p->n ? p->n : 1) * sizeof(size_t));
	idx[1] = malloc((p->n ? p->n : 1) * sizeof(size_t));
	if (!idx[0] || !idx[1])
		goto fail;
	for (size_t i = 0; i < p->n; i++) {
		int side = p->w[i].positive ? 0 : 1;

		if (side == 0 && pos_sel && !pos_sel[i])
			continue;
		if (side == 0)
			r->windows_pos++;
		else
			r->windows_neg++;
		if (p->missing[i]) {
			if (side == 0)
				r->excluded_pos++;
			else
				r->excluded_neg++;
			continue;
		}
		idx[side][nidx[side]++] = i;
	}
	{
		size_t kp = sample(idx[0], nidx[0], o->max_subtraces);
		size_t kn = sample(idx[1], nidx[1], o->max_subtraces);

		r->unsampled_pos = nidx[0] - kp;
		r->unsampled_neg = nidx[1] - kn;
		nidx[0] = kp;
		nidx[1] = kn;
	}
	if (nidx[0] > UINT32_MAX / 2 || nidx[1] > UINT32_MAX / 2) {
		err = -E2BIG;
		goto fail;
	}
	r->npos = (uint32_t)nidx[0];
	r->nneg = (uint32_t)nidx[1];
	if (!r->npos) {
		r->status = !r->windows_pos ? "the period never breaks" :
			    "every break overlaps missing data";
		goto done;
	}
	ms = malloc(((size_t)r->npos + r->nneg) * sizeof(*ms));
	if (!ms)
		goto fail;
	err = prep_windows(p, idx, nidx);
	if (err)
		goto fail;
	/* Pointers only now: symbolising may have moved seq.sym. */
	for (int side = 0, k = 0; side < 2; side++)
		for (size_t j = 0; j < nidx[side]; j++, k++) {
			size_t i = idx[side][j];

			ms[k].sym = p->seq.sym + p->off[i];
			ms[k].len = p->len[i];
			r->stream_events += p->events[i];
			r->symbols += p->len[i];
			r->truncated += p->cut[i];
			if (p->len[i] > r->longest)
				r->longest = p->len[i];
		}
	miner_opts_default(&mo);
	err = miner_data__new(ms, r->npos, ms + r->npos, r->nneg, &mo, &d);
	if (!err)
		err = set_lengths(d, p->w, idx, nidx, &ratio);
	if (err)
		goto fail;
	r->vocabulary = miner_data__nsymbols(d);
	err = mine(r, d, o, p->v);
	if (err)
		goto fail;
	if (!r->found)
		r->status = "no pattern separates breaks from kept periods";
done:
	r->levels[0] = (struct patterns_level){ r->npos, -1, 0, r->found, r->delta, r->alpha, r->runs,
						r->bounds, r->mine_ns, ratio };
	r->nlevels = 1;
	r->elapsed_ns = now_ns() - t0;
	miner_data__free(d);
	free(ms);
	free(idx[0]);
	free(idx[1]);
	*out = r;
	return 0;
fail:
	miner_data__free(d);
	free(ms);
	free(idx[0]);
	free(idx[1]);
	patterns__free(r);
	return err;
}

static int check_opts(const struct patterns_opts *o)
{
	if (o->delta > 1 || o->delta == 0 || o->alpha > 1 || o->gap > 64 || o->time_budget_ns < 0)
		return -EINVAL;
	return 0;
}

int patterns__mine_windows(const struct timeline *tl, const struct period_window *w, size_t n,
			   uint32_t actor_thread, const struct patterns_opts *opts,
			   struct patterns_result **out)
{
	struct patterns_opts o;
	struct prep p;
	int64_t t0 = now_ns();
	int err;

	if (!tl || !out || (n && !w))
		return -EINVAL;
	*out = NULL;
	if (opts)
		o = *opts;
	else
		patterns_opts_default(&o);
	err = check_opts(&o);
	if (err)
		return err;
	err = prep_init(&p, tl, w, n, actor_thread, &o);
	if (!err)
		err = mine_level(&p, NULL, out);
	prep_free(&p);
	if (!err)
		(*out)->elapsed_ns = now_ns() - t0;
	return err;
}

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
static int merge_levels(struct patterns_result **lv, uint32_t nlv, uint32_t keep)
{
	struct patterns_result *dst = lv[0];
	struct ref *all;
	struct pattern *v;
	struct store *st;
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
	st = calloc(1, sizeof(*st));
	if (st) {
		st->names = malloc((nev ? nev : 1) * sizeof(*st->names));
		st->kinds = malloc((nev ? nev : 1) * sizeof(*st->kinds));
		st->text = malloc(nchar ? nchar : 1);
	}
	if (!v || !st || !st->names || !st->kinds || !st->text) {
		if (st) {
			free(st->names);
			free(st->kinds);
			free(st->text);
		}
		free(st);
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
	{
		struct store *old = dst->store;

		if (old) {
			free(old->names);
			free(old->kinds);
			free(old->text);
			free(old);
		}
		free(dst->v);
		dst->store = st;
		dst->v = v;
		dst->n = u;
	}
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
static int severe_split(double *x, size_t n, int64_t *above, size_t *severe)
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

/*
 * The windows of one actor: minor breaks left out; all the breaks, then
 * the worst ones (severity levels, see patterns.h).
 */
static int analyse_actor(const struct timeline *tl, const struct actor *a, const struct patterns_opts *opts,
			 struct patterns_result **out)
{
	struct patterns_opts o = *opts;
	struct patterns_result *lv[PATTERNS_MAX_LEVELS] = { NULL }, *r;
	struct period_window *w = NULL;
	struct prep p = { 0 };
	bool *sel = NULL;
	int64_t *late = NULL, t0 = now_ns(), above = -1;
	double *x = NULL;
	int64_t floor_ns = (int64_t)(o.min_lateness * a->st.period_ns);
	size_t n = 0, minor = 0, b = 0, nbreaks = 0, cur;
	uint32_t nlv = 0;
	int err = -ENOMEM;

	w = malloc((a->nwindows ? a->nwindows : 1) * sizeof(*w));
	sel = malloc((a->nwindows ? a->nwindows : 1) * sizeof(*sel));
	late = malloc((a->nwindows ? a->nwindows : 1) * sizeof(*late));
	x = malloc((a->nwindows ? a->nwindows : 1) * sizeof(*x));
	if (!w || !sel || !late || !x)
		goto out;
	actor_windows(a, tl, w);
	/*
	 * Windows and breaks are both in time order: a positive window is
	 * the break that starts at the same invocation. The kept windows move
	 * to the front, in place.
	 */
	for (size_t i = 0; i < a->nwindows; i++) {
		const struct period_window y = w[i];
		int64_t l = 0;

		if (y.positive) {
			while (b < a->nbreaks && actor_break_window(&a->breaks[b]) < y.before)
				b++;
			if (b < a->nbreaks && actor_break_window(&a->breaks[b]) == y.before)
				l = a->breaks[b].lateness_ns;
			if (floor_ns > 0 && l < floor_ns) {
				minor++;
				continue;
			}
			nbreaks++;
		}
		late[n] = l;
		w[n++] = y;
	}
	err = prep_init(&p, tl, w, n, a->thread, &o);
	if (err)
		goto out;
	/* All breaks get half the time budget, so that an expensive first
	 * search (many mixed breaks) leaves time for the worst ones. */
	if (!o.no_severity && opts->time_budget_ns)
		p.o.time_budget_ns = opts->time_budget_ns / 2;
	err = mine_level(&p, NULL, &lv[nlv++]);
	if (err)
		goto out;
	cur = nbreaks;
	while (!o.no_severity && nlv < PATTERNS_MAX_LEVELS && lv[0]->npos) {
		size_t nx = 0, severe;
		int64_t left = opts->time_budget_ns ? opts->time_budget_ns - (now_ns() - t0) : 0;

		if (opts->time_budget_ns && left <= 0)
			break;
		for (size_t i = 0; i < n; i++)
			if (w[i].positive && late[i] > above)
				x[nx++] = log((double)(late[i] > 1 ? late[i] : 1));
		err = severe_split(x, nx, &above, &severe);
		if (err)
			goto out;
		if (severe < PATTERNS_MIN_SEVERE || severe >= cur)
			break;
		cur = severe;
		for (size_t i = 0; i < n; i++)
			sel[i] = late[i] > above;
		p.o.time_budget_ns = left;
		err = mine_level(&p, sel, &lv[nlv]);
		if (err)
			goto out;
		lv[nlv]->levels[0].late_above_ns = above;
		lv[nlv]->levels[0].left_out = nbreaks - severe;
		nlv++;
	}
	r = lv[0];
	for (uint32_t i = 1; i < nlv; i++) {
		r->levels[i] = lv[i]->levels[0];
		r->found |= lv[i]->found;
		r->runs += lv[i]->runs;
		r->mine_ns += lv[i]->mine_ns;
		/* The text of the level cut the most, if one was cut more. */
		if ((lv[i]->bounds & ~MINER_BOUND_MAX_LEN) && !(r->bounds & ~MINER_BOUND_MAX_LEN))
			memcpy(r->bounds_text, lv[i]->bounds_text, sizeof(r->bounds_text));
		r->bounds |= lv[i]->bounds;
	}
	r->nlevels = nlv;
	err = merge_levels(lv, nlv, o.keep);
	if (err)
		goto out;
	if (r->found)
		r->status = NULL;
	r->minor_breaks = minor;
	r->min_lateness_ns = floor_ns;
	r->min_lateness = o.min_lateness;
	r->windows_pos = nbreaks + minor;
	r->elapsed_ns = now_ns() - t0;
	if (!nbreaks && minor)
		r->status = "every break is minor (late by less than min_lateness)";
	*out = r;
	lv[0] = NULL;
	err = 0;
out:
	for (uint32_t i = 0; i < PATTERNS_MAX_LEVELS; i++)
		patterns__free(lv[i]);
	prep_free(&p);
	free(w);
	free(sel);
	free(late);
	free(x);
	return err;
}

int patterns__analyse(const struct timeline *tl, const struct actors_result *ar,
		      const struct analysis_opts *ao, struct patterns_result **out)
{
	struct patterns_opts o;

	patterns_opts_from_analysis(&o, ao);
	return patterns__analyse_opts(tl, ar, &o, out);
}

int patterns__analyse_opts(const struct timeline *tl, const struct actors_result *ar,
			   const struct patterns_opts *opts, struct patterns_result **out)
{
	struct patterns_opts o;
	const struct actor *a;
	struct patterns_result *r;
	int err;

	if (!tl || !out)
		return -EINVAL;
	*out = NULL;
	if (opts)
		o = *opts;
	else
		patterns_opts_default(&o);
	err = check_opts(&o);
	if (err)
		return err;
	if (!ar || ar->upstream < 0 || (size_t)ar->upstream >= ar->n) {
		err = patterns__mine_windows(tl, NULL, 0, TL_NONE, &o, &r);
		if (err)
			return err;
		r->status = !ar || !ar->n ? "no actor was studied" : "no periodic actor breaks its period";
		*out = r;
		return 0;
	}
	a = &ar->v[ar->upstream];
	err = analyse_actor(tl, a, &o, &r);
	if (err)
		return err;
	r->actor = ar->upstream;
	snprintf(r->actor_name, sizeof(r->actor_name), "%s", a->name);
	*out = r;
	return 0;
}

void patterns__free(struct patterns_result *r)
{
	struct store *st;

	if (!r)
		return;
	st = r->store;
	if (st) {
		free(st->names);
		free(st->kinds);
		free(st->text);
		free(st);
	}
	free(r->v);
	free(r);
}

/* ---- renderings ---- */

static void json_bounds(json_writer_t *w, unsigned b)
{
	static const struct { unsigned bit; const char *name; } names[] = {
		{ MINER_BOUND_MAX_LEN, "max_len" },
		{ MINER_BOUND_NODES, "nodes" },
		{ MINER_BOUND_TIME, "time" },
		{ MINER_BOUND_PATTERNS, "patterns" },
		{ MINER_BOUND_SEQ_LEN, "seq_len" },
	};

	jsonw_name(w, "bounds");
	jsonw_start_array(w);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (b & names[i].bit)
			jsonw_string(w, names[i].name);
	jsonw_end_array(w);
}

void patterns__json(const struct patterns_result *r, json_writer_t *w)
{
	jsonw_name(w, "patterns");
	jsonw_start_array(w);
	for (size_t i = 0; r && i < r->n; i++) {
		const struct pattern *p = &r->v[i];

		jsonw_start_object(w);
		jsonw_name(w, "events");
		jsonw_start_array(w);
		for (uint32_t k = 0; k < p->len; k++)
			jsonw_string(w, p->events[k]);
		jsonw_end_array(w);
		jsonw_name(w, "kinds");
		jsonw_start_array(w);
		for (uint32_t k = 0; k < p->len; k++)
			jsonw_string(w, vocab_kind_name(p->kinds[k]));
		jsonw_end_array(w);
		jsonw_float_field(w, "support_pos", p->support_pos);
		jsonw_float_field(w, "support_neg", p->support_neg);
		jsonw_u64_field(w, "count_pos", p->count_pos);
		jsonw_u64_field(w, "count_neg", p->count_neg);
		jsonw_float_field(w, "delta", p->delta);
		jsonw_float_field(w, "alpha", p->alpha);
		jsonw_float_field(w, "chance_pos", p->chance_pos);
		jsonw_float_field(w, "score", p->score);
		jsonw_u64_field(w, "level", p->level);
		jsonw_u64_field(w, "breaks", p->breaks);
		jsonw_u64_field(w, "rank", i + 1);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);

	jsonw_name(w, "patterns_search");
	if (!r) {
		jsonw_null(w);
		return;
	}
	jsonw_start_object(w);
	if (r->status)
		jsonw_string_field(w, "status", r->status);
	else
		jsonw_null_field(w, "status");
	if (r->actor >= 0)
		jsonw_string_field(w, "actor", r->actor_name);
	else
		jsonw_null_field(w, "actor");
	jsonw_u64_field(w, "windows_pos", r->windows_pos);
	jsonw_u64_field(w, "windows_neg", r->windows_neg);
	jsonw_u64_field(w, "minor_breaks", r->minor_breaks);
	jsonw_i64_field(w, "min_lateness_ns", r->min_lateness_ns);
	jsonw_float_field(w, "min_lateness", r->min_lateness);
	jsonw_name(w, "levels");
	jsonw_start_array(w);
	for (uint32_t i = 0; i < r->nlevels; i++) {
		const struct patterns_level *l = &r->levels[i];

		jsonw_start_object(w);
		jsonw_u64_field(w, "breaks", l->breaks);
		if (l->late_above_ns >= 0)
			jsonw_i64_field(w, "late_above_ns", l->late_above_ns);
		else
			jsonw_null_field(w, "late_above_ns");
		jsonw_u64_field(w, "breaks_left_out", l->left_out);
		jsonw_bool_field(w, "found", l->found);
		jsonw_float_field(w, "delta", l->delta);
		jsonw_float_field(w, "alpha", l->alpha);
		jsonw_u64_field(w, "runs", l->runs);
		json_bounds(w, l->bounds);
		jsonw_i64_field(w, "mine_ns", l->mine_ns);
		jsonw_float_field(w, "window_ratio", l->window_ratio);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_u64_field(w, "excluded_pos", r->excluded_pos);
	jsonw_u64_field(w, "excluded_neg", r->excluded_neg);
	jsonw_u64_field(w, "unsampled_pos", r->unsampled_pos);
	jsonw_u64_field(w, "unsampled_neg", r->unsampled_neg);
	jsonw_u64_field(w, "subtraces_pos", r->npos);
	jsonw_u64_field(w, "subtraces_neg", r->nneg);
	jsonw_u64_field(w, "events", r->stream_events);
	jsonw_u64_field(w, "symbols", r->symbols);
	jsonw_u64_field(w, "vocabulary", r->vocabulary);
	jsonw_u64_field(w, "longest_subtrace", r->longest);
	jsonw_u64_field(w, "max_subtrace_len", r->max_subtrace_len);
	jsonw_u64_field(w, "truncated_subtraces", r->truncated);
	jsonw_bool_field(w, "actor_activity_dropped", r->actor_dropped);
	jsonw_u64_field(w, "gap", r->gap);
	jsonw_bool_field(w, "delta_searched", r->auto_delta);
	jsonw_bool_field(w, "alpha_searched", r->auto_alpha);
	jsonw_float_field(w, "delta", r->delta);
	jsonw_float_field(w, "alpha", r->alpha);
	jsonw_bool_field(w, "found", r->found);
	jsonw_u64_field(w, "runs", r->runs);
	jsonw_u64_field(w, "patterns_found", r->total);
	json_bounds(w, r->bounds);
	jsonw_string_field(w, "bounds_text", r->bounds_text);
	jsonw_i64_field(w, "mine_ns", r->mine_ns);
	jsonw_i64_field(w, "elapsed_ns", r->elapsed_ns);
	jsonw_end_object(w);
}

static void pct(char *buf, size_t len, double f)
{
	double p = f * 100;

	snprintf(buf, len, p == floor(p) ? "%.0f %%" : "%.1f %%", p);
}

/*
 * Whether the breaks' windows' length makes a visible difference to a
 * pattern's chance count (a twentieth over the plain proportion).
 */
static bool by_length(const struct pattern *p, uint32_t nneg)
{
	double plain = nneg ? (double)p->count_neg * p->breaks / nneg : 0;

	return p->chance_pos > 1.05 * plain + 0.005;
}

static void print_search(FILE *f, const char *what, bool searched, const struct patterns_level *l)
{
	char b1[16], b2[16];

	pct(b1, sizeof(b1), l->delta);
	pct(b2, sizeof(b2), l->alpha);
	if (!searched)
		fprintf(f, "%s: patterns in >= %s of the breaks, <= %s of the periods", what, b1, b2);
	else if (l->found)
		fprintf(f, "%s: first patterns at >= %s of the breaks, <= %s of the periods", what, b1, b2);
	else
		fprintf(f, "%s: none down to >= %s of the breaks, <= %s of the periods", what, b1, b2);
	/* The periods' share is then scaled to the longer windows (chance.h); 0 % stays 0 %. */
	if (l->alpha > 0 && l->window_ratio >= PATTERNS_LONGER_WINDOWS)
		fprintf(f, " (scaled: the breaks' windows are %.1fx as long)", l->window_ratio);
}

void patterns__print(const struct patterns_result *r, FILE *f, const struct report_style *st)
{
	size_t top;
	char title[128], b1[16], b2[16], b3[32];

	if (!r)
		return;
	if (r->actor_name[0])
		snprintf(title, sizeof(title), "What happens when %s breaks its period", r->actor_name);
	else
		snprintf(title, sizeof(title), "What happens when the period breaks");
	rs_section(f, st, title);
	if (!r->npos) {
		fprintf(f, "%s: no emerging patterns to look for\n", r->status ? r->status : "nothing to mine");
		if (r->excluded_pos)
			fprintf(f, "%zu breaks overlap missing data and were left out\n", r->excluded_pos);
		return;
	}
	fprintf(f, "%u breaks", r->npos);
	if (r->minor_breaks) {
		pct(b1, sizeof(b1), r->min_lateness);
		fprintf(f, " (late by %s of the period or more)", b1);
	}
	fprintf(f, " against %u kept periods", r->nneg);
	if (r->minor_breaks || r->excluded_pos + r->excluded_neg) {
		fprintf(f, "; left out:");
		if (r->minor_breaks)
			fprintf(f, " %zu minor breaks%s", r->minor_breaks,
				r->excluded_pos + r->excluded_neg ? "," : "");
		if (r->excluded_pos + r->excluded_neg)
			fprintf(f, " %zu windows with missing data", r->excluded_pos + r->excluded_neg);
	}
	if (r->unsampled_pos + r->unsampled_neg)
		fprintf(f, "; sampled, %zu windows not mined", r->unsampled_pos + r->unsampled_neg);
	fprintf(f, "\n%u kinds of event, gap %u%s%s%s\n", r->vocabulary, r->gap,
		r->actor_dropped ? ", the activity of " : "",
		r->actor_dropped ? (r->actor_name[0] ? r->actor_name : "the actor") : "",
		r->actor_dropped ? " itself left out" : "");
	{
		bool searched = r->auto_delta || r->auto_alpha;
		char what[96];

		if (searched)
			fprintf(f, "thresholds searched from 100 %% / 0 %%\n");
		snprintf(what, sizeof(what), "%s breaks", r->nlevels > 1 ? "all" : "the");
		print_search(f, what, searched, &r->levels[0]);
		fprintf(f, "\n");
		for (uint32_t i = 1; i < r->nlevels; i++) {
			const struct patterns_level *l = &r->levels[i];

			snprintf(what, sizeof(what), "the %u worst, late by more than %s (Otsu)", l->breaks,
				 fmt_duration(b3, sizeof(b3), l->late_above_ns));
			print_search(f, what, searched, l);
			fprintf(f, "\n");
		}
		fprintf(f, "%s%u miner runs, %s%s\n", rs_dim(st), r->runs, fmt_duration(b3, sizeof(b3), r->mine_ns),
			rs_reset(st));
	}
	if (r->truncated)
		fprintf(f, "%s%zu subtraces longer than %u events were cut to their beginning%s\n", rs_dim(st),
			r->truncated, r->max_subtrace_len, rs_reset(st));
	if (r->bounds & ~MINER_BOUND_MAX_LEN)
		fprintf(f, "%s%s%s\n", rs_yellow(st), r->bounds_text, rs_reset(st));
	else if (r->bounds)
		fprintf(f, "%s%s%s\n", rs_dim(st), r->bounds_text, rs_reset(st));
	if (!r->n) {
		fprintf(f, "%s\n", r->status ? r->status : "no patterns");
		return;
	}
	top = st->verbose ? r->n : (r->n < 5 ? r->n : 5);
	for (size_t i = 0; i < top; i++) {
		const struct pattern *p = &r->v[i];

		fprintf(f, "%3zu. ", i + 1);
		for (uint32_t k = 0; k < p->len; k++)
			fprintf(f, "%s%s", k ? " -> " : "", p->events[k]);
		pct(b1, sizeof(b1), p->delta);
		pct(b2, sizeof(b2), p->alpha);
		fprintf(f, "  %s(in %u/%u%s breaks", rs_dim(st), p->count_pos, p->breaks, p->level ? " worst" : "");
		if (by_length(p, r->nneg))
			fprintf(f, ", %.*f expected by chance;", p->chance_pos < 1 ? 2 : 1, p->chance_pos);
		else
			fprintf(f, ",");
		fprintf(f, " %u/%u periods; at %s / %s)%s\n", p->count_neg, r->nneg, b1, b2, rs_reset(st));
	}
	if (r->total > top)
		fprintf(f, "%s... %zu more patterns (-v, --json)%s\n", rs_dim(st), r->total - top, rs_reset(st));
}
