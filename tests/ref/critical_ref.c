// SPDX-License-Identifier: MIT
/* The critical-path stage with its references (critical_ref.h). */
#include <errno.h>
#include <stdlib.h>

#include "critical/internal.h"
#include "ref/critical_ref.h"

static int scan_each(struct model *m, const struct prec_graph *g, int64_t eps, int jobs)
{
	(void)jobs;
	return eps_scan_each(m, g, eps);
}

/* Algorithm 1 in full, checked against the observed starts, and the binding edges by rank among the tight ones. */
static int bind_full(const struct model *m, const struct prec_graph *g, struct cpa_observed *ob, uint32_t **bind)
{
	struct cpa *c;
	int err;

	*bind = NULL;
	err = cpa__run(g, &c);
	if (err)
		return err;
	*ob = (struct cpa_observed){ .makespan = c->makespan, .last = c->last };
	for (uint32_t v = 0; v < m->n; v++) {
		if (c->est[v] != m->tasks[v].start_ns - m->t0) {
			cpa__free(c);
			return -EPROTO;
		}
		ob->ncritical += cpa__critical(c, v);
	}
	bind_rank(g, c->est, c->bind);
	*bind = c->bind;
	c->bind = NULL;
	cpa__free(c);
	return 0;
}

/* The invocation's path and its reference window, each walked on its own; the breaks' paths come after. */
static int walk_separately(const struct inv_walk *iw)
{
	if (iw->inv)
		walk_path(iw->w, iw->v, iw->end, iw->horizon,
			  &(struct sink){ .acc = iw->ac->inv, .own_lo = iw->own_lo, .own_hi = iw->own_hi });
	if (iw->win)
		walk_path(iw->w, iw->v, iw->end, iw->h,
			  &(struct sink){ .acc = &iw->ac->ref, .own_lo = iw->own_lo, .own_hi = iw->own_hi });
	return 0;
}

int critical_ref_analyse(const struct timeline *tl, const struct actors_result *ar, const struct critical_opts *o,
			 unsigned refs, struct critical_result **out)
{
	struct critical_steps steps = critical_steps_default;
	struct critical_prep *p;
	int err;

	*out = NULL;
	if (refs & CRITICAL_REF_EPS_EACH)
		steps.scan_eps = scan_each;
	if (refs & CRITICAL_REF_FULL_CPA)
		steps.bind = bind_full;
	if (refs & CRITICAL_REF_SEPARATE_WALKS)
		steps.walk_invocation = walk_separately;
	err = critical_prepare_steps(tl, o, &steps, &p);
	return err ? err : critical__finish(p, ar, out);
}
