// SPDX-License-Identifier: MIT
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "invocations.h"
#include "stats/novelty.h"
#include "stats/otsu.h"
#include "stats/quartiles.h"

#define DEFAULT_L 2

struct invocations_ws {
	size_t cap;		/* items each buffer holds */
	size_t nseg;		/* segments of the last invocations_build */
	int64_t *t;		/* segment start times (invocations_build) */
	double *nu;		/* novelty scores */
	void *scratch;		/* 8-byte slots: Otsu's sorted copy, then intervals */
};

/* The clustering outcome: which items start an invocation. */
struct decision {
	enum invocations_rule rule;
	double threshold;	/* INVOC_RULE_OTSU: nu > threshold starts one, */
	double gap_limit;	/* ... and so does a gap > gap_limit (if > 0) */
};

struct invocations_ws *invocations_ws__new(void)
{
	return calloc(1, sizeof(struct invocations_ws));
}

static void ws_release(struct invocations_ws *ws)
{
	free(ws->t);
	free(ws->nu);
	free(ws->scratch);
	memset(ws, 0, sizeof(*ws));
}

void invocations_ws__free(struct invocations_ws *ws)
{
	if (!ws)
		return;
	ws_release(ws);
	free(ws);
}

static int ws_reserve(struct invocations_ws *ws, size_t n)
{
	size_t cap = ws->cap;

	if (n <= cap)
		return 0;
	if (n > SIZE_MAX / 2 / sizeof(int64_t))
		return -ENOMEM;
	/* Geometric growth: a sweep over many actors reallocates O(log n) times. */
	cap = cap ? cap : 64;
	while (cap < n)
		cap *= 2;

	/*
	 * Nothing in them outlives a call: fresh blocks, not realloc, whose
	 * copy would touch pages the next call may not use.
	 */
	ws_release(ws);
	ws->t = malloc(cap * sizeof(int64_t));
	ws->nu = malloc(cap * sizeof(double));
	ws->scratch = malloc(cap * 8);
	if (!ws->t || !ws->nu || !ws->scratch) {
		ws_release(ws);
		return -ENOMEM;
	}
	ws->cap = cap;
	return 0;
}

static bool is_start(const struct decision *d, const int64_t *t,
		     const double *nu, size_t i)
{
	switch (d->rule) {
	case INVOC_RULE_SAME_TIME:
		return i == 0;
	case INVOC_RULE_OTSU:
		return i == 0 || nu[i] > d->threshold ||
		       (d->gap_limit > 0 && (double)(t[i] - t[i - 1]) > d->gap_limit);
	default:
		return true;
	}
}

/* QCoD of the intervals between the starts the decision selects. */
static double candidate_qcod(const int64_t *t, size_t n, const double *nu,
			     const struct decision *d, int64_t *iv)
{
	struct quartiles q;
	size_t m = 0, prev = 0;

	for (size_t i = 1; i < n; i++) {
		if (!is_start(d, t, nu, i))
			continue;
		iv[m++] = t[i] - t[prev];
		prev = i;
	}
	/* Fewer than 2 intervals say nothing about regularity. */
	if (m < 2 || quartiles_compute_inplace(iv, m, &q))
		return INFINITY;
	return quartiles_qcod(q.q1, q.q3);
}

/* Median of the gaps in front of the starts (but the first) the decision selects; 0 if none. */
static double boundary_gap_median(const int64_t *t, size_t n, const double *nu,
				  const struct decision *d, int64_t *gaps)
{
	struct quartiles q;
	size_t m = 0;

	for (size_t i = 1; i < n; i++)
		if (is_start(d, t, nu, i))
			gaps[m++] = t[i] - t[i - 1];
	if (m < 1 || quartiles_compute_inplace(gaps, m, &q))
		return 0.0;
	return q.median;
}

static int cluster_core(const int64_t *t, size_t n,
			const struct invocations_opts *opts,
			struct invocations_ws *ws, struct decision *d,
			struct invocations_info *info)
{
	static const struct invocations_opts defaults;
	struct otsu_result otsu;
	struct novelty_params np;
	int err;

	if (!opts)
		opts = &defaults;
	if (isnan(opts->k_ns) || opts->k_ns < 0 || isinf(opts->k_ns) ||
	    isnan(opts->sigma) || opts->sigma < 0 || isinf(opts->sigma) ||
	    isnan(opts->max_gap_frac) || opts->max_gap_frac < 0 ||
	    isinf(opts->max_gap_frac) || opts->l > NOVELTY_MAX_L)
		return -EINVAL;
	for (size_t i = 1; i < n; i++)
		if (t[i] < t[i - 1])
			return -EINVAL;

	memset(info, 0, sizeof(*info));
	info->n_items = n;
	info->qcod_otsu = info->qcod_all = INFINITY;
	d->threshold = 0.0;
	d->gap_limit = 0.0;

	if (n <= 2) {
		/* Two points: K = their gap makes nu(2) < nu(1) always (docs/ALGORITHMS.md §2.3). */
		d->rule = INVOC_RULE_FEW;
		goto out;
	}
	if (t[n - 1] == t[0]) {
		d->rule = INVOC_RULE_SAME_TIME;
		goto out;
	}

	np.k = opts->k_ns > 0 ? opts->k_ns :
		(double)(t[n - 1] - t[0]) / (double)(n - 1);
	np.l = opts->l ? opts->l : DEFAULT_L;
	np.sigma = opts->sigma;
	info->k_ns = np.k;

	err = novelty_compute(t, n, &np, ws->nu);
	if (err)
		return err;
	err = otsu_threshold(ws->nu, n, ws->scratch, &otsu);
	if (err)
		return err;
	info->otsu_valid = otsu.valid;
	info->otsu_threshold = otsu.threshold;
	info->otsu_eta = otsu.eta;
	if (!otsu.valid) {
		/* All scores equal: no boundary stands out, keep every item. */
		d->rule = INVOC_RULE_ALL;
		goto out;
	}
	d->rule = INVOC_RULE_OTSU;
	d->threshold = otsu.threshold;
	if (opts->max_gap_frac > 0)
		d->gap_limit = opts->max_gap_frac *
			       boundary_gap_median(t, n, ws->nu, d, ws->scratch);
	info->gap_limit_ns = d->gap_limit;
	if (opts->no_guard)
		goto out;

	/*
	 * Otsu always splits, even a unimodal score set; keep its clustering
	 * only if it makes the invocation intervals strictly more regular
	 * than "every item is an invocation" (docs/ALGORITHMS.md §1.5).
	 */
	struct decision all = { .rule = INVOC_RULE_ALL };

	info->qcod_otsu = candidate_qcod(t, n, ws->nu, d, ws->scratch);
	info->qcod_all = candidate_qcod(t, n, ws->nu, &all, ws->scratch);
	if (!(info->qcod_otsu < info->qcod_all))
		*d = all;
out:
	info->rule = d->rule;
	return 0;
}

int invocations_cluster(const int64_t *t, size_t n,
			const struct invocations_opts *opts,
			struct invocations_ws *ws, size_t *starts,
			size_t *n_starts, struct invocations_info *info)
{
	struct invocations_ws tmp = { 0 };
	struct invocations_info local_info;
	struct decision d;
	size_t m = 0;
	int err;

	if (!n_starts || (n > 0 && (!t || !starts)))
		return -EINVAL;
	if (!ws)
		ws = &tmp;
	if (!info)
		info = &local_info;

	err = ws_reserve(ws, n);
	if (!err)
		err = cluster_core(t, n, opts, ws, &d, info);
	if (!err) {
		for (size_t i = 0; i < n; i++)
			if (is_start(&d, t, ws->nu, i))
				starts[m++] = i;
		*n_starts = m;
	}
	ws_release(&tmp);
	return err;
}

int invocations_build(const struct invoc_fragment *f, size_t n,
		      const struct invocations_opts *opts,
		      struct invocations_ws *ws, struct invocation *out,
		      size_t *n_out, struct invocations_info *info)
{
	struct invocations_ws tmp = { 0 };
	struct invocations_info local_info;
	struct decision d;
	size_t nseg = 0, m = 0;
	int err;

	if (!n_out || (n > 0 && (!f || !out)))
		return -EINVAL;
	for (size_t j = 0; j < n; j++) {
		if (f[j].end_ns < f[j].start_ns ||
		    (j > 0 && f[j].start_ns < f[j - 1].start_ns))
			return -EINVAL;
	}
	if (!ws)
		ws = &tmp;
	if (!info)
		info = &local_info;

	err = ws_reserve(ws, n);
	if (err)
		goto out;

	/* Step 1, exact: a continuing fragment (preempted, ...) goes on in the next one. */
	for (size_t j = 0; j < n; j++)
		if (j == 0 || !f[j - 1].continues)
			ws->t[nseg++] = f[j].start_ns;

	ws->nseg = nseg;
	/* Step 2: cluster the segments' start times. */
	err = cluster_core(ws->t, nseg, opts, ws, &d, info);
	if (err)
		goto out;

	/* Walk fragments and segments together; no index map needed. */
	for (size_t j = 0, s = 0; j < n; j++) {
		if (j > 0 && f[j - 1].continues)
			continue;
		if (is_start(&d, ws->t, ws->nu, s)) {
			if (m > 0) {
				out[m - 1].last = j - 1;
				out[m - 1].end_ns = f[j - 1].end_ns;
			}
			out[m].first = j;
			out[m].start_ns = f[j].start_ns;
			m++;
		}
		s++;
	}
	if (m > 0) {
		out[m - 1].last = n - 1;
		out[m - 1].end_ns = f[n - 1].end_ns;
	}
	*n_out = m;
out:
	ws_release(&tmp);
	return err;
}

void invocations_ws__lend(struct invocations_ws *ws, int64_t **seg, size_t *nseg, int64_t **spare)
{
	*seg = ws->t;
	*nseg = ws->nseg;
	*spare = ws->scratch;
}
