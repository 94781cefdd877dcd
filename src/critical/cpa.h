/* SPDX-License-Identifier: MIT */
/*
 * Critical path analysis of a task graph with edge lags (Hendriks &
 * Vaandrager Algorithm 1, docs/ALGORITHMS.md §5.1 and §5.4.8), on a
 * struct prec_graph from precedence.h. Integer time, so "critical" is
 * float == 0 exactly. All times are relative to the graph's origin g->t0.
 *
 * A control task on an edge (lag > 0) and an initial control task (an edge
 * from PREC_ROOT) are critical when cpa__edge_float() is 0.
 */
#ifndef QT_CPA_H
#define QT_CPA_H

#include <stddef.h>
#include <stdint.h>

#include "precedence.h"

#define CPA_NONE UINT32_MAX

/* Results, owned by the library (read-only for callers). */
struct cpa {
	uint32_t n;
	int64_t makespan;	/* max over t of est + dur: the artificial sink */
	int64_t *est;		/* [n] s-: earliest start */
	int64_t *lst;		/* [n] s+: latest start */
	/*
	 * [n] the binding predecessor edge (an edge index of the graph) of
	 * each task: one that gives est. CPA_NONE when est is the empty max 0.
	 * Ties go to the smaller lag, then the smaller predecessor id, then the
	 * lower edge index, so the choice does not depend on edge order.
	 */
	uint32_t *bind;
	uint32_t last;		/* a task ending at makespan (lowest id); CPA_NONE if n == 0 */
};

/*
 * Forward and backward passes in g->order. O(n + edges) time, 20 bytes per
 * task. -EOVERFLOW if a path sum leaves int64 (only possible for graphs
 * from prec_graph__from_edges), -ENOMEM.
 */
int cpa__run(const struct prec_graph *g, struct cpa **out);
void cpa__free(struct cpa *c);

static inline int64_t cpa__float(const struct cpa *c, uint32_t t)
{
	return c->lst[t] - c->est[t];
}

static inline int cpa__critical(const struct cpa *c, uint32_t t)
{
	return c->lst[t] == c->est[t];
}

/*
 * Algorithm 1 on a graph of observed times, a recording's (graph.c): a
 * lean graph in which every task has a predecessor or starts at t0. Every
 * lag is then an observed gap, so by induction over the order the forward pass gives every
 * task its observed start, est(t) = s(t) - t0, from every predecessor
 * alike: every edge is tight. What is left is which tasks are critical:
 * float(u) = min(makespan - e(u), the float of each successor), so u is
 * critical iff it ends at the makespan or a successor is critical. One
 * backward sweep with a bit per task, where cpa__run() keeps 20 bytes per
 * task. The same makespan, last and critical tasks as cpa__run() (tests
 * compare them). -EINVAL if the graph is not lean or a task after t0 has
 * no predecessor, -ENOMEM.
 */
struct cpa_observed {
	int64_t makespan;	/* relative to g->t0 */
	uint32_t last;		/* the lowest id ending at makespan; CPA_NONE if n == 0 */
	uint32_t ncritical;
};

int cpa__observed(const struct prec_graph *g, struct cpa_observed *out);

/*
 * Float of edge e (in the predecessor list of task `to`), i.e. of the
 * control task it stands for; 0 iff the edge lies on a critical path.
 */
int64_t cpa__edge_float(const struct cpa *c, const struct prec_graph *g,
			uint32_t to, uint32_t e);

/* One step of a path: a task and the edge by which the path entered it. */
struct cpa_hop {
	uint32_t task;
	/*
	 * Edge index into g (pred[edge] is the previous hop's task, or
	 * PREC_ROOT for an initial control task), or CPA_NONE at a path's
	 * first task when it starts at time 0 without a control task.
	 */
	uint32_t edge;
	int64_t est;
};

/*
 * The longest chain ending with `task` (Lemma 1), first task first: what
 * decided when `task` could finish (est[task] + dur[task]). Writes at most
 * cap hops into buf and returns the number of hops of the whole path (call
 * again with a larger buffer if that is more than cap), or -EINVAL.
 * Cost O(path length). The whole graph's critical path is the path into
 * c->last.
 */
long cpa__path_into(const struct cpa *c, const struct prec_graph *g,
		    uint32_t task, struct cpa_hop *buf, size_t cap);

/*
 * What lies on every critical path of the whole graph (Hendriks & Vaandrager §II-B): the
 * part that is certainly on a real critical path even when the
 * reconstruction added spurious ones. *out gets the tasks in topological
 * order (malloc'd, caller frees); hop.edge is the edge into the task when
 * that edge (or its control task) is also on every critical path, else
 * CPA_NONE. hop.est is the task's est. A critical path is a path of
 * duration makespan, counting control tasks (Def. 2), that cannot be
 * extended by a zero-duration task; without zero-duration tasks that is
 * every critical path of Def. 2. (Otherwise a zero-duration task at either
 * end could be left out of every path, and would never count as common.)
 * Exact, O(n + edges) time, 9 bytes per task + 16 per critical task.
 */
int cpa__common(const struct cpa *c, const struct prec_graph *g,
		struct cpa_hop **out, size_t *n_out);

/*
 * The paper's check of eps (its §III): the tasks whose recomputed start
 * est + g->t0 differs from the observed start, in id order (malloc'd).
 * An empty list means the non-delay interpretation of the reconstruction
 * reproduces the trace; a long list suggests eps is too small.
 */
int cpa__start_mismatches(const struct cpa *c, const struct prec_graph *g,
			  const struct prec_task *tasks, size_t n,
			  uint32_t **out, size_t *n_out);

#endif
