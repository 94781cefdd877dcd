/* SPDX-License-Identifier: MIT */
/*
 * Precedence-graph reconstruction from start/end times (Hendriks &
 * Vaandrager, Algorithms 2-4; docs/ALGORITHMS.md §5): t -> t' when t' starts
 * exactly when t ends, or within (0, eps] after it. The control task the
 * paper inserts for a gap is stored as a lag on the edge, and an initial
 * control task as an edge from PREC_ROOT (docs/ALGORITHMS.md §5.4.4,
 * §5.4.8).
 *
 * Pure functions over arrays: no kernel, no global state.
 */
#ifndef QT_PRECEDENCE_H
#define QT_PRECEDENCE_H

#include <stddef.h>
#include <stdint.h>

/* One task of a Gantt chart or trace; its id is its index in the array. */
struct prec_task {
	int64_t start_ns;
	int64_t end_ns;		/* >= start_ns; taken from the trace, not recomputed */
};

/* Source of an initial-control edge (the "time 0" of the origin). */
#define PREC_ROOT UINT32_MAX

enum prec_edge_kind {
	PREC_EDGE_EXACT = 0,	/* e(t) == s(t'), lag 0 */
	PREC_EDGE_GAP = 1,	/* 0 < s(t') - e(t) <= eps: control task as lag */
	PREC_EDGE_INIT = 2,	/* PREC_ROOT -> t', lag = s(t') - t0 in (0, eps] */
	PREC_EDGE_GIVEN = 3,	/* from prec_graph__from_edges() */
};

/*
 * Per-edge hook: called once for every candidate edge (from, to, gap) that
 * the tie rule keeps, in a deterministic order. from is PREC_ROOT for an
 * initial control task (gap = s(to) - t0). *cat is 0 on entry; whatever the
 * hook leaves there is stored on the edge (a category the caller defines).
 * Return 1 to keep the edge, 0 to drop it, a negative errno to stop the
 * build, which then returns that value.
 */
typedef int (*prec_edge_fn)(void *ctx, uint32_t from, uint32_t to,
			    int64_t gap_ns, enum prec_edge_kind kind,
			    uint8_t *cat);

/* All-zero is the default for every field. */
struct prec_opts {
	int64_t eps_ns;		/* >= 0; 0 is Algorithm 2 (exact adjacency) */
	/*
	 * The "time 0" of the paper. has_origin = 0: the earliest start
	 * (docs/ALGORITHMS.md §5.4.5). Every task must start at or after the
	 * origin (-EINVAL otherwise: clamp run intervals that began before
	 * the recording).
	 */
	int has_origin;
	int64_t origin_ns;
	/*
	 * Bound on candidate edges (pairs within eps, before the hook runs),
	 * checked in O(n log n) before edge memory is allocated: above it the
	 * build fails with -E2BIG and allocates nothing for edges. 0 means
	 * PREC_DEFAULT_MAX_EDGES(n). Never more than PREC_MAX_EDGES. Use
	 * prec_count_candidates() to see how many an eps needs.
	 */
	uint64_t max_edges;
	prec_edge_fn edge_fn;	/* NULL: keep every edge, category 0 */
	void *edge_ctx;
	/*
	 * Threads for the scans; 0 or 1: the caller's only, at most
	 * PREC_MAX_JOBS. With more, each thread finds the edges of its own
	 * share of the targets, and edge_fn is called from all of them at
	 * once, by thread i with edge_ctxs[i] (edge_ctx when edge_ctxs is
	 * NULL). It may then write only what belongs to its call's target,
	 * and read only what no other call writes. Each thread calls it in a
	 * deterministic order; the edges are the same for any jobs.
	 */
	int jobs;
	void **edge_ctxs;
	/*
	 * 1: no duration and lag arrays (8 bytes per task and 8 per edge
	 * less): prec_dur() and prec_lag() read them off the tasks, which
	 * must then outlive the graph unchanged. Every edge's lag is then
	 * start(to) - end(from), or start(to) - t0 from PREC_ROOT, as the
	 * build makes them; prec_graph__add_edges() refuses any other.
	 */
	int lean;
};

#define PREC_MAX_JOBS 8
#define PREC_DEFAULT_MAX_EDGES(n) (32 * (uint64_t)(n) + (1u << 20))
#define PREC_MAX_EDGES ((uint64_t)UINT32_MAX - 1)
#define PREC_MAX_TASKS ((uint64_t)UINT32_MAX - 1)

/*
 * A task graph in CSR form, owned by the library (read-only for callers).
 * The predecessors of task t are the edges [pred_off[t], pred_off[t + 1]):
 * pred[e] (a task id or PREC_ROOT), prec_lag(g, t, e) >= 0 (the duration of
 * the control task on the edge), kind[e] and cat[e]. Edge indices are stable and are what
 * cpa.h hands back.
 */
struct prec_graph {
	uint32_t n;		/* tasks */
	uint32_t n_edges;
	int64_t t0;		/* origin: relative time 0 */
	int64_t eps_ns;
	int64_t *dur;		/* [n] end - start; NULL when lean: use prec_dur() */
	uint32_t *order;	/* [n] a topological order (ids) */
	uint32_t *pred_off;	/* [n + 1] */
	uint32_t *pred;		/* [n_edges] */
	int64_t *lag;		/* [n_edges]; NULL when lean: use prec_lag() */
	uint8_t *kind;		/* [n_edges] enum prec_edge_kind */
	uint8_t *cat;		/* [n_edges] hook category, 0 without a hook */
	const struct prec_task *tasks;	/* lean: the caller's tasks; else NULL */
	/* What the build saw. */
	uint64_t n_candidates;	/* pairs within eps + initial candidates */
	uint32_t n_exact, n_gap, n_init;
	uint64_t n_dropped;	/* candidates removed by the tie rule or the hook */
};

static inline int64_t prec_dur(const struct prec_graph *g, uint32_t v)
{
	return g->dur ? g->dur[v] : g->tasks[v].end_ns - g->tasks[v].start_ns;
}

/*
 * The gap from task `from` (or from t0 for PREC_ROOT) to the start of task
 * v: the lag of every edge a build makes, and of a lean graph's edges.
 */
static inline int64_t prec_gap(const struct prec_task *tasks, int64_t t0, uint32_t from, uint32_t v)
{
	return tasks[v].start_ns - (from == PREC_ROOT ? t0 : tasks[from].end_ns);
}

/* A lean graph's lag of an edge from `from` into v. */
static inline int64_t prec_lean_lag(const struct prec_graph *g, uint32_t v, uint32_t from)
{
	return prec_gap(g->tasks, g->t0, from, v);
}

/* The lag of edge e, one of task v's predecessor edges. */
static inline int64_t prec_lag(const struct prec_graph *g, uint32_t v, uint32_t e)
{
	return g->lag ? g->lag[e] : prec_lean_lag(g, v, g->pred[e]);
}

/*
 * Sorted-scan reconstruction (Algorithm 4 with the scan of
 * docs/ALGORITHMS.md §5.4.1), in O(n log n + edges) time. The topological
 * order is (start, end, id); every edge goes forward in it, so the graph is
 * acyclic even with zero-duration tasks (docs/ALGORITHMS.md §5.4.3).
 * Memory: 16 bytes per task + 14 per edge when done (8 + 6 when lean),
 * plus 16-32 bytes per task while sorting.
 * Returns 0, -EINVAL (end < start, start < origin, eps < 0, times too large),
 * -E2BIG (n or the edge budget), -ENOMEM, or the hook's error.
 */
int prec_graph__build(const struct prec_task *tasks, size_t n,
		      const struct prec_opts *opts, struct prec_graph **out);

/* Upper bound on the edges a build with these opts can make (no hook). */
int prec_count_candidates(const struct prec_task *tasks, size_t n,
			  const struct prec_opts *opts, uint64_t *count);

/* An explicit task graph, e.g. a model's, for cpa.h. */
struct prec_edge {
	uint32_t from;		/* task id, or PREC_ROOT for a root lag */
	uint32_t to;
	int64_t lag;		/* >= 0 */
	uint8_t kind;		/* stored as given */
	uint8_t cat;
};

/*
 * Builds a graph from n durations (>= 0) and edges; t0 and eps are 0.
 * -EINVAL on a bad id, a negative duration or lag, a self-loop or a cycle.
 */
int prec_graph__from_edges(size_t n, const int64_t *dur,
			   const struct prec_edge *edges, size_t n_edges,
			   struct prec_graph **out);

/* The most edges a prec_edge_gen gives one target. */
#define PREC_GEN_MAX 4

/*
 * Writes into out the edges to add into task `to` (their .to is not read)
 * and returns how many, at most PREC_GEN_MAX. Called twice per target, to
 * count and to place: it must give the same edges both times.
 */
typedef size_t (*prec_edge_gen)(void *ctx, uint32_t to, struct prec_edge *out);

/*
 * Adds edges to a built graph: precedences known from elsewhere, e.g. the
 * wakeups of a kernel trace whose gap exceeds eps, or release times as
 * root lags. They come from gen, target by target, so no list of them is
 * ever held. Every edge must go forward in g->order (from PREC_ROOT or from
 * a task placed before its target), so the order stays topological and
 * nothing is re-sorted. Kind and category are stored as given; n_exact,
 * n_gap and n_init are recounted. A target's new edges follow its old ones,
 * in gen's order; edge indices shift (those of earlier targets stay the
 * same). O(n + edges); 4 bytes per task while it runs. -EINVAL (no gen, more
 * than PREC_GEN_MAX edges for a target, a bad id, a negative lag, a
 * self-loop, an edge backward in the order), -E2BIG, -ENOMEM; the graph is
 * unchanged on error.
 */
int prec_graph__add_edges(struct prec_graph *g, prec_edge_gen gen, void *ctx);

void prec_graph__free(struct prec_graph *g);

#endif
