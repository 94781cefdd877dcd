// SPDX-License-Identifier: MIT
/*
 * The actors' stage: the candidates chosen, each studied, then the upstream
 * order over the actors found. The rules are in src/actors/actors.h and
 * actor.h; internal.h says which file does what.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

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
	c.r->min_late = o->min_late;
	if (!c.r->min_late.frac && c.r->min_late.ns <= 0)
		c.r->min_late.frac = ACTORS_DEFAULT_MIN_LATE;
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
