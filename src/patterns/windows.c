// SPDX-License-Identifier: MIT
/*
 * The windows of one actor and the searches over them (patterns.h): which
 * windows a search mines (missing data left out, an even sample beyond
 * max_subtraces), their symbols, computed once for all the searches from a
 * stream of their events only, and their lengths for the chance control
 * (chance.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Evenly spaced choice of m of the n indices in idx (in place, order kept). */
static size_t sample(size_t *idx, size_t n, size_t m)
{
	if (!m || n <= m)
		return n;
	for (size_t j = 0; j < m; j++)
		idx[j] = idx[j * n / m];
	return m;
}

void windows__free(struct windows *p)
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

int windows__init(struct windows *p, const struct timeline *tl, const struct period_window *w, size_t n,
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

static int symbolise_window(struct windows *p, const struct tl_event *ev, size_t nev, size_t i)
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
static int symbolise_windows(struct windows *p, size_t *const idx[2], const size_t nidx[2])
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
				err = symbolise_window(p, ev, nev, idx[side][j]);
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

int windows__mine(struct windows *p, const bool *pos_sel, struct patterns_result **out)
{
	const struct patterns_opts *o = &p->o;
	struct patterns_result *r;
	struct miner_seq *ms = NULL;
	struct miner_data *d = NULL;
	struct miner_opts mo;
	size_t *idx[2] = { NULL, NULL }, nidx[2] = { 0, 0 };
	int64_t t0 = patterns_now_ns();
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
	err = symbolise_windows(p, idx, nidx);
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
	err = thresholds_mine(r, d, o, p->v);
	if (err)
		goto fail;
	if (!r->found)
		r->status = "no pattern separates breaks from kept periods";
done:
	r->levels[0] = (struct patterns_level){ r->npos, -1, 0, r->found, r->delta, r->alpha, r->runs,
						r->bounds, r->mine_ns, ratio };
	r->nlevels = 1;
	r->elapsed_ns = patterns_now_ns() - t0;
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
