// SPDX-License-Identifier: MIT
/*
 * The emerging-patterns stage (SATM §5); see src/patterns/patterns.h. The
 * windows of the most upstream breaking actor (jitter left out) are
 * mined in all the breaks, then in the worst ones (levels.c); each search
 * symbolises its windows (windows.c, vocab.c) and runs the miner
 * (thresholds.c, miner_mine.c, miner_auto.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "internal.h"

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
}

/* The options a call runs with: *opts, or the defaults (NULL); -EINVAL when out of range. */
static int take_opts(const struct patterns_opts *opts, struct patterns_opts *o)
{
	if (opts)
		*o = *opts;
	else
		patterns_opts_default(o);
	if (o->delta > 1 || o->delta == 0 || o->alpha > 1 || o->gap > 64 || o->time_budget_ns < 0)
		return -EINVAL;
	return 0;
}

int patterns__mine_windows(const struct timeline *tl, const struct period_window *w, size_t n,
			   uint32_t actor_thread, const struct patterns_opts *opts,
			   struct patterns_result **out)
{
	struct patterns_opts o;
	struct windows p;
	int64_t t0 = patterns_now_ns();
	int err;

	if (!tl || !out || (n && !w))
		return -EINVAL;
	*out = NULL;
	err = take_opts(opts, &o);
	if (err)
		return err;
	err = windows__init(&p, tl, w, n, actor_thread, &o);
	if (!err)
		err = windows__mine(&p, NULL, out);
	windows__free(&p);
	if (!err)
		(*out)->elapsed_ns = patterns_now_ns() - t0;
	return err;
}

const char *patterns_cannot_pay(double period_ns, size_t major_breaks)
{
	if (period_ns <= 0 || period_ns >= PATTERNS_MEDIA_PERIOD_NS || major_breaks < PATTERNS_STORM_BREAKS)
		return NULL;
	return "not searched: a period under 100 us broken 1000 times or more is the scheduler's rhythm, "
	       "not a media period (report --search-patterns searches anyway)";
}

/* The cut of a (cut: the actors' stage's) as the result reports it. */
static void report_cut(struct patterns_result *r, const struct actor *a, struct actors_cut cut)
{
	if (cut.ns <= 0 && cut.frac < 0)
		return;
	r->min_lateness_ns = a->min_late_ns;
	r->min_lateness_fixed = cut.ns > 0;
	r->min_lateness = cut.ns > 0 ? (a->st.period_ns > 0 ? a->min_late_ns / a->st.period_ns : 0) : cut.frac;
}

/*
 * The windows of one actor: jitter left out; all the breaks, then the
 * worst ones (severity levels, see patterns.h).
 */
static int analyse_actor(const struct timeline *tl, const struct actor *a, struct actors_cut cut,
			 const struct patterns_opts *opts, struct patterns_result **out)
{
	struct patterns_opts o = *opts;
	struct patterns_result *lv[PATTERNS_MAX_LEVELS] = { NULL }, *r;
	struct period_window *w = NULL;
	struct windows p = { 0 };
	bool *sel = NULL;
	int64_t *late = NULL, t0 = patterns_now_ns(), above = -1;
	double *x = NULL;
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
			bool major = true;

			while (b < a->nbreaks && actor_break_window(&a->breaks[b]) < y.before)
				b++;
			if (b < a->nbreaks && actor_break_window(&a->breaks[b]) == y.before) {
				l = a->breaks[b].lateness_ns;
				major = actor_break_major(a, &a->breaks[b]);
			}
			if (!major) {
				minor++;
				continue;
			}
			nbreaks++;
		}
		late[n] = l;
		w[n++] = y;
	}
	/* Decided before anything is symbolised: the search would cost its
	 * whole budget and find nothing (patterns.h, When a search cannot pay). */
	if (!o.search_always && patterns_cannot_pay(a->st.period_ns, nbreaks)) {
		err = patterns__mine_windows(tl, NULL, 0, TL_NONE, &o, &r);
		if (err)
			goto out;
		r->status = patterns_cannot_pay(a->st.period_ns, nbreaks);
		r->skipped = true;
		r->period_ns = a->st.period_ns;
		r->windows_neg = n - nbreaks;
		r->nlevels = 0;		/* no search ran */
		goto done;
	}
	err = windows__init(&p, tl, w, n, a->thread, &o);
	if (err)
		goto out;
	/* All breaks get half the time budget, so that an expensive first
	 * search (many mixed breaks) leaves time for the worst ones. */
	if (!o.no_severity && opts->time_budget_ns)
		p.o.time_budget_ns = opts->time_budget_ns / 2;
	err = windows__mine(&p, NULL, &lv[nlv++]);
	if (err)
		goto out;
	cur = nbreaks;
	while (!o.no_severity && nlv < PATTERNS_MAX_LEVELS && lv[0]->npos) {
		size_t nx = 0, severe;
		int64_t left = opts->time_budget_ns ? opts->time_budget_ns - (patterns_now_ns() - t0) : 0;

		if (opts->time_budget_ns && left <= 0)
			break;
		for (size_t i = 0; i < n; i++)
			if (w[i].positive && late[i] > above)
				x[nx++] = log((double)(late[i] > 1 ? late[i] : 1));
		err = levels_split(x, nx, &above, &severe);
		if (err)
			goto out;
		if (severe < PATTERNS_MIN_SEVERE || severe >= cur)
			break;
		cur = severe;
		for (size_t i = 0; i < n; i++)
			sel[i] = late[i] > above;
		p.o.time_budget_ns = left;
		err = windows__mine(&p, sel, &lv[nlv]);
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
	err = levels_merge(lv, nlv, o.keep);
	if (err)
		goto out;
	if (r->found)
		r->status = NULL;
done:
	r->minor_breaks = minor;
	report_cut(r, a, cut);
	r->windows_pos = nbreaks + minor;
	r->elapsed_ns = patterns_now_ns() - t0;
	if (!nbreaks && minor)
		r->status = "every break is jitter (late by less than --min-late)";
	*out = r;
	lv[0] = NULL;
	err = 0;
out:
	for (uint32_t i = 0; i < PATTERNS_MAX_LEVELS; i++)
		patterns__free(lv[i]);
	windows__free(&p);
	free(w);
	free(sel);
	free(late);
	free(x);
	return err;
}

int patterns__analyse(const struct timeline *tl, const struct actors_result *ar,
		      const struct patterns_opts *opts, struct patterns_result **out)
{
	struct patterns_opts o;
	const struct actor *a;
	struct patterns_result *r;
	int err;

	if (!tl || !out)
		return -EINVAL;
	*out = NULL;
	err = take_opts(opts, &o);
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
	err = analyse_actor(tl, a, ar->min_late, &o, &r);
	if (err)
		return err;
	r->actor = ar->upstream;
	snprintf(r->actor_name, sizeof(r->actor_name), "%s", a->name);
	*out = r;
	return 0;
}
