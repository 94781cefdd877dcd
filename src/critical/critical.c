// SPDX-License-Identifier: MIT
/*
 * The critical-path stage over a recording (critical.h), in its steps: the
 * task model (model.c), eps (eps.c) and the graph (graph.c), Algorithm 1
 * and the binding edges (bind.c), the path into the recording's end
 * (walk.c), then the actors' and breaks' paths (per_actor.c).
 *
 * Cost: model O(n + wakeups) plus one sort of the tasks by start (the
 * CPU-holder index), the reconstruction O(n log n + candidates), Algorithm
 * 1 and the ranking O(n + edges); per actor O(n) at worst. Memory: linear,
 * about 100 bytes per task at the peak on the benchmark's 8-CPU timelines
 * (model 33, CPU index 4, graph 16 + 14 per edge, Algorithm 1 one bit on a
 * recording, 20 on a Gantt chart, ranking 4, and the build's sort for a
 * while); scripts/bench-critical.sh measures it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void critical_opts_default(struct critical_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->epsilon_ns = -1;
}

const struct critical_steps critical_steps_default = {
	.scan_eps = eps_scan,
	.bind = bind_observed,
	.walk_invocation = per_actor_walk_invocation,
};

void critical__free(struct critical_result *r)
{
	if (!r)
		return;
	path_free(&r->whole);
	for (size_t i = 0; i < r->nactors; i++)
		free(r->actors[i].share);
	free(r->actors);
	for (size_t i = 0; i < r->nbreaks; i++)
		path_free(&r->breaks[i].path);
	free(r->breaks);
	free(r->est);
	free(r->lst);
	free(r->critical);
	for (size_t i = 0; i < r->npaths_listed; i++)
		free(r->paths[i]);
	free(r->paths);
	free(r->path_len);
	free(r->common);
	free(r->common_joined);
	free(r->mismatch);
	free(r);
}

/* A recording's graph, its critical path and the path into its end: all but the actors' accounting. */
struct critical_prep {
	struct critical_opts o;
	struct critical_result *res;
	struct model m;
	struct prec_graph *g;
	uint32_t *bind;
	struct acc acc;
	struct walker w;
	uint64_t whole_ns;		/* the path into the end (accounting time) */
};

void critical__prep_free(struct critical_prep *p)
{
	if (!p)
		return;
	acc_free(&p->acc);
	free(p->bind);
	prec_graph__free(p->g);
	model_free(&p->m);
	critical__free(p->res);
	free(p);
}

int critical_prepare_steps(const struct timeline *tl, const struct critical_opts *o,
			   const struct critical_steps *steps, struct critical_prep **out)
{
	struct critical_prep *p;
	struct critical_result *res;
	struct model *m;
	struct cpa_observed ob;
	int64_t eps, cap;
	uint64_t t_start, t_graph, t_cpa;
	int err;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (o)
		p->o = *o;
	else
		critical_opts_default(&p->o);
	o = &p->o;
	m = &p->m;
	res = p->res = calloc(1, sizeof(*res));
	if (!res) {
		free(p);
		return -ENOMEM;
	}
	m->tl = tl;
	res->input = CRIT_INPUT_TRACE;
	res->whole_last = CRIT_NONE;
	res->epsilon_evidence_ns = -1;
	m->st = &res->edges;
	m->t0 = (int64_t)tl->start;
	m->split = !o->timing_only && tl->nwk > 0;
	res->wakeups = m->split;
	res->origin_ns = m->t0;
	t_start = critical_now_ns();
	err = model_build(m);
	if (err)
		goto out;
	res->ntasks = m->n;

	cap = o->epsilon_cap_ns > 0 ? o->epsilon_cap_ns : CRIT_DEFAULT_EPS_CAP;
	/* What the wakeups say, also next to a given eps. */
	if (tl->nwk > 0)
		res->epsilon_evidence_ns = eps_evidence(m);
	if (o->epsilon_ns >= 0) {
		eps = o->epsilon_ns;
		res->epsilon_source = "given";
	} else if (res->epsilon_evidence_ns >= 0) {
		eps = res->epsilon_evidence_ns;
		res->epsilon_source = "auto";
		if (eps > cap) {
			eps = cap;
			res->epsilon_capped = true;
		}
	} else {
		eps = CRIT_DEFAULT_EPS_TRACE;
		res->epsilon_source = "default";
	}
	/* Halve an automatic eps until the proposals fit the edge budget. */
	for (;;) {
		err = graph_build(m, eps, o->max_edges, o->jobs, steps->scan_eps, &p->g);
		if (err != -E2BIG || o->epsilon_ns >= 0 || eps == 0)
			break;
		eps /= 2;
		res->epsilon_capped = true;
	}
	if (err)
		goto out;
	res->epsilon_ns = eps;
	model_drop_build(m);
	res->nedges = p->g->n_edges;
	t_graph = critical_now_ns();
	err = steps->bind(m, p->g, &ob, &p->bind);
	if (err)
		goto out;
	res->makespan_ns = ob.makespan;
	res->ncritical = ob.ncritical;
	t_cpa = critical_now_ns();
	res->unexplained = res->edges.releases[CRIT_CAT_REL_NONE];
	res->edges.exact = p->g->n_exact;
	res->build_ns = t_graph - t_start;
	res->cpa_ns = t_cpa - t_graph;

	p->w = (struct walker){ .m = m, .g = p->g, .bind = p->bind, .hint = m->cpu_hint,
				.walk_invocation = steps->walk_invocation };
	err = acc_init(&p->acc, tl->nthreads);
	if (err)
		goto out;
	if (ob.last != CPA_NONE) {
		res->whole_last = ob.last;
		err = path_into(&p->w, ob.last, ob.makespan, 0, &p->acc, 4 * CRIT_MAX_SEGS, &res->whole);
	}
	p->whole_ns = critical_now_ns() - t_cpa;
out:
	if (err) {
		critical__prep_free(p);
		return err;
	}
	*out = p;
	return 0;
}

int critical__prepare(const struct timeline *tl, const struct critical_opts *o, struct critical_prep **out)
{
	return critical_prepare_steps(tl, o, &critical_steps_default, out);
}

int critical__finish(struct critical_prep *p, const struct actors_result *ar, struct critical_result **out)
{
	uint64_t t0 = critical_now_ns();
	int err = 0;

	*out = NULL;
	if (ar)
		err = per_actor_account(p->res, &p->w, ar, &p->acc, p->o.jobs, p->m.tl->nthreads, p->o.seg_breaks);
	p->res->account_ns = p->whole_ns + (critical_now_ns() - t0);
	if (!err) {
		*out = p->res;
		p->res = NULL;
	}
	critical__prep_free(p);
	return err;
}

int critical__analyse(const struct timeline *tl, const struct actors_result *ar,
		      const struct critical_opts *o, struct critical_result **out)
{
	struct critical_prep *p;
	int err = critical__prepare(tl, o, &p);

	*out = NULL;
	return err ? err : critical__finish(p, ar, out);
}

size_t critical__breaks_listed(const struct critical_result *r, size_t max)
{
	return max && max < r->nbreaks ? max : r->nbreaks;
}
