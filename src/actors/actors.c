// SPDX-License-Identifier: MIT
/*
 * The actors' stage: the candidates chosen, each studied, then the upstream
 * order over the actors found. The rules are in src/actors/actors.h and
 * actor.h; internal.h says which file does what.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

int actors_grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if (n > SIZE_MAX / size)
		return -ENOMEM;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

int actors_skip(struct ctx *c, uint32_t thread, const char *reason, size_t count)
{
	struct actors_result *r = c->r;
	int err = actors_grow((void **)&r->skipped, &c->cap_skip, r->nskipped + 1, sizeof(*r->skipped));

	if (err)
		return err;
	r->skipped[r->nskipped++] = (struct actor_skip){ .thread = thread, .reason = reason, .count = count };
	return 0;
}

int actors__analyse(const struct timeline *tl, const struct actors_opts *o, struct actors_result **out)
{
	static const struct actors_opts defaults;
	struct ctx c = { .tl = tl };
	struct cand *cands = NULL;
	size_t ncands = 0;
	int err;

	if (!tl || !out)
		return -EINVAL;
	if (!o)
		o = &defaults;
	*out = NULL;
	c.jobs = o->jobs > 1 ? o->jobs : 1;
	c.r = calloc(1, sizeof(*c.r));
	if (!c.r) {
		err = -ENOMEM;
		goto out;
	}
	c.r->upstream = -1;
	c.inv_opts.max_gap_frac = o->max_gap_frac == 0 ? ACTORS_MAX_GAP_FRAC :
				  o->max_gap_frac < 0 ? 0 : o->max_gap_frac;
	c.r->inv_opts = c.inv_opts;
	c.popts.qcod_threshold = o->qcod_threshold > 0 ? o->qcod_threshold : PERIOD_DEFAULT_QCOD_THRESHOLD;
	c.min_runs = ACTORS_MIN_RUNS;
	c.min_inv = o->min_invocations ? o->min_invocations : ACTORS_MIN_INVOCATIONS;

	breaks_measure_gaps(&c);
	gather_find_futex(&c);
	err = choose_candidates(&c, o, &cands, &ncands);
	if (!err)
		err = study_all(&c, cands, ncands);
	if (!err)
		err = upstream_edges(&c);
	if (!err)
		err = upstream_find(&c);
out:
	free(cands);
	if (err) {
		actors__free(c.r);
		return err;
	}
	*out = c.r;
	return 0;
}

void actors__free(struct actors_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		actor_release(&r->v[i]);
	free(r->v);
	free(r->skipped);
	free(r->edges);
	free(r);
}
