/* SPDX-License-Identifier: MIT */
/*
 * What the files of src/critical/ share, and no one else may use (tests and
 * their references in tests/ref/ excepted): the precedence graph's build
 * context, the task model of a recording, the accumulators and the walk of
 * a path, and the steps the stage's references replace.
 *
 *   precedence.c  prec_sort.c                 the graph from start and end times
 *   prec_from_edges.c                         the graph from a list of edges
 *   model.c  cpus.c                           the task model of a recording
 *   graph.c  eps.c                            its graph, eps and what eps proposes
 *   bind.c                                    the binding edge of every task
 *   walk.c                                    a path walked and accounted
 *   per_actor.c                               into every invocation, every break
 *   gantt.c                                   the stage over a Gantt chart
 *   critical.c                                the stage over a recording
 *   names.c  explain.c                        what the results are called, and say
 */
#ifndef QT_CRITICAL_INTERNAL_H
#define QT_CRITICAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cpa.h"
#include "critical.h"
#include "file/gantt_csv.h"
#include "precedence.h"
#include "timeline/timeline.h"

struct actor;
struct actors_result;

/* ---- the precedence graph's build (precedence.c, prec_sort.c, prec_from_edges.c) ---- */

struct build_ctx {
	const struct prec_task *tasks;
	uint32_t n;
	int64_t t0;
	int64_t eps;
	uint64_t max_edges;
	bool lean;
	int jobs;		/* threads for the sorts and scans; 1 below PREC_PARALLEL_MIN tasks */
};

/* Checks the tasks and options of a build and fills bc: 0, -EINVAL or -E2BIG (precedence.h). */
int prec_validate(const struct prec_task *tasks, size_t n, const struct prec_opts *opts, struct build_ctx *bc);
/* Both orders: order by (start, end, id), byend by (end, id). 0 or -ENOMEM. */
int prec_sort_both(const struct build_ctx *bc, uint32_t *order, uint32_t *byend);

static inline int64_t prec_rel_start(const struct build_ctx *bc, uint32_t i)
{
	return bc->tasks[i].start_ns - bc->t0;
}

static inline int64_t prec_rel_end(const struct build_ctx *bc, uint32_t i)
{
	return bc->tasks[i].end_ns - bc->t0;
}

/* Does a task starting at rs (relative) get an initial control task? */
static inline bool prec_has_init(const struct build_ctx *bc, int64_t rs)
{
	return rs > 0 && rs <= bc->eps;
}

/*
 * The one place where the hook and the tie rule decide. Returns 1 keep,
 * 0 drop, < 0 error. The tie rule (docs/ALGORITHMS.md §5.4.3): between
 * two zero-duration tasks at the same instant only the edge from the lower
 * id survives; e(t) = s(t') then implies both have the same (start, end),
 * so that is the lower (start, end, id) key.
 */
static inline int prec_decide(const struct build_ctx *bc, const struct prec_opts *opts, void *ctx, uint32_t from,
			      uint32_t to, int64_t gap, enum prec_edge_kind kind, uint8_t *cat)
{
	*cat = 0;
	if (kind == PREC_EDGE_EXACT && from > to &&
	    bc->tasks[from].start_ns == bc->tasks[from].end_ns &&
	    bc->tasks[to].start_ns == bc->tasks[to].end_ns)
		return 0;
	if (opts && opts->edge_fn) {
		int r = opts->edge_fn(ctx, from, to, gap, kind, cat);

		return r < 0 ? r : r > 0;
	}
	return 1;
}

/* An empty graph for the tasks of bc (no edges, no order yet); NULL without memory. */
struct prec_graph *prec_graph_new(const struct build_ctx *bc);
/* The edge arrays for m edges (lean: no lags). 0 or -ENOMEM. */
int prec_graph__alloc_edges(struct prec_graph *g, uint64_t m);
/* The durations of a graph that is not lean. 0 or -ENOMEM. */
int prec_graph__fill_dur(struct prec_graph *g, const struct prec_task *tasks);
/* n_exact, n_gap and n_init from the edges' kinds. */
void prec_graph__count_kinds(struct prec_graph *g);
/*
 * CSR by target from an edge list (stable per target), and Kahn's
 * topological order (FIFO, ids in increasing order first). -EINVAL on a
 * cycle, -ENOMEM.
 */
int prec_graph__from_list(struct prec_graph *g, const struct prec_edge *el, uint64_t m);

static inline void prec_graph__put_edge(struct prec_graph *g, uint32_t e, uint32_t from, int64_t lag, uint8_t kind,
					uint8_t cat)
{
	g->pred[e] = from;
	if (g->lag)
		g->lag[e] = lag;
	g->kind[e] = kind;
	g->cat[e] = cat;
}

/* ---- the task model of a recording (model.c, cpus.c) ---- */

/* Task flags (model.fl). */
#define TF_FIRST 0x01		/* first fragment of its run */
#define TF_LAST 0x02		/* last fragment of its run */
#define TF_UNSURE 0x04		/* the run's start was not reported by the kernel */
#define TF_CUT 0x08		/* the run began before the recording */
#define TF_WAKER_RAN 0x80	/* the waker of its wakeup was running at the waking time */

/* What the graph's build kept into a task (model.kept). */
#define KEPT_WK 0x01		/* the wakeup edge */
#define KEPT_PO 0x02		/* the program-order edge */
#define KEPT_ANY 0x04		/* some edge */

struct span {
	int64_t a, b;
};

struct model {
	const struct timeline *tl;	/* trace input */
	const struct gantt *gt;		/* Gantt input */
	bool split;			/* runs split at waking points, wakeups confirm edges */
	int64_t t0;
	size_t n;
	struct prec_task *tasks;	/* [n] absolute, clamped to t0 */
	uint32_t *src;			/* [n] trace: run index */
	uint8_t *fl;			/* [n] TF_* */
	uint32_t *cause;		/* [n] the wakeup that released a FIRST fragment, or CRIT_NONE */
	uint32_t *wfrom;		/* [n] the waker's task of that wakeup, or CRIT_NONE */
	uint32_t *wk_task;		/* [nwk] the task a wakeup released, or CRIT_NONE */
	uint32_t *thr_first;		/* [nthreads + 1] fragments of thread i */
	uint32_t *run_first;		/* [nruns] first fragment of run r, or CRIT_NONE */
	uint32_t *cpu_idx;		/* [n] tasks by (CPU, start) */
	uint32_t *cpu_off;		/* [ncpu + 1] */
	uint32_t *cpu_hint;		/* [ncpu] where the last search on that CPU ended (model building) */
	/*
	 * [n] by cpu_idx position: the latest end of the CPU's tasks up to
	 * there. NULL where every CPU's ends are in order already (a task of
	 * zero duration sorted after a longer one of the same start is not).
	 */
	int64_t *cpu_reach;
	uint32_t ncpu;
	struct span *miss;		/* merged windows of missing data (any CPU) */
	size_t nmiss;
	/*
	 * [2n] the edges the trace adds into each task, at most two: [2v] the
	 * category of one from v - 1, the thread's fragment before (program
	 * order, a preemption); [2v + 1] of one from wfrom[v] (CRIT_CAT_WAKEUP)
	 * or from the root (a release). 0: none.
	 */
	uint8_t *xcat;
	/*
	 * [n] KEPT_*, apart from fl: the build's threads each set the bits of
	 * their own targets while reading fl of any task.
	 */
	uint8_t *kept;
	struct crit_edge_stats *st;
};

static inline const struct tl_run *model_run(const struct model *m, uint32_t v)
{
	return &m->tl->runs[m->src[v]];
}

/* The thread (Gantt: actor) task v belongs to. */
static inline uint32_t model_owner(const struct model *m, uint32_t v)
{
	return m->tl ? m->tl->runs[m->src[v]].thread : m->gt->actor[v];
}

/* The first of tasks [lo, hi) (one thread's, so their ends are in order) to end at or after t. */
static inline uint32_t model_first_end_from(const struct model *m, uint32_t lo, uint32_t hi, int64_t t)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->tasks[mid].end_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Does [a, b] meet missing data? */
static inline bool model_missing(const struct model *m, int64_t a, int64_t b)
{
	size_t lo = 0, hi = m->nmiss;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->miss[mid].b <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nmiss && m->miss[lo].a <= b;
}

/*
 * The task model of m->tl (tl, t0 and split set by the caller): its
 * fragments, their causes and wakers, the CPU index and the windows of
 * missing data. 0, -ENOMEM, -E2BIG (more than PREC_MAX_TASKS fragments).
 * model_free frees what it made, also after a failure.
 */
int model_build(struct model *m);
void model_free(struct model *m);
/* What only the graph's build reads: gone before the CPA and the walks. */
void model_drop_build(struct model *m);
/*
 * The task of thread th that contains the waking time w, in (start, end]:
 * with split runs, the fragment that ends at w. CRIT_NONE if th was not
 * running then as far as the trace knows.
 */
uint32_t model_task_at(const struct model *m, uint32_t th, int64_t w);

/*
 * Tasks by (CPU, start) into m->cpu_idx, cpu_off, cpu_hint and cpu_reach:
 * who held a CPU when. 0 or -ENOMEM.
 */
int cpus_index(struct model *m);
/*
 * m->cpu_reach from cpu_idx and cpu_off (cpus_index calls it): what the
 * searches of cpus_held go by, so that where a CPU's ends are out of order
 * they find every task that overlaps the window whatever the hint.
 * 0 or -ENOMEM.
 */
int cpus_reach(struct model *m);

typedef void (*held_fn)(void *ctx, uint32_t thread, int64_t ns);

/*
 * Calls fn (if any) for each stretch of [a, b) (absolute) in which a
 * thread other than th ran on cpu. Returns the total. hint[cpu]: where the
 * caller's last search on that CPU ended (one array per thread); it makes
 * the search shorter, never the answer different.
 */
int64_t cpus_held(const struct model *m, uint32_t *hint, uint32_t cpu, uint32_t th, int64_t a, int64_t b, held_fn fn,
		  void *ctx);
/*
 * All tasks by end (malloc'd into *out): a merge of the CPUs' lists, each
 * already in end order. *sorted (if asked): whether the merge came out in
 * end order, as it does unless a CPU's tasks overlap. 0 or -ENOMEM.
 */
int cpus_by_end(const struct model *m, uint32_t **out, bool *sorted);

/* ---- the graph and eps (graph.c, eps.c) ---- */

/* The wakeup that released v was sent from task u. */
static inline bool model_confirmed(const struct model *m, uint32_t u, uint32_t v)
{
	return m->wfrom[v] == u;
}

/*
 * Judges what Algorithm 4 proposes within (0, eps] with wakeups, into the
 * model's xcat, kept and st (graph.c's graph_build calls it).
 */
typedef int (*eps_scan_fn)(struct model *m, const struct prec_graph *g, int64_t eps, int jobs);

/* The scan the stage runs: counting where every thread's ends are in order, else one by one. */
int eps_scan(struct model *m, const struct prec_graph *g, int64_t eps, int jobs);
/* Every proposal judged one by one (the fallback, and the reference eps_scan_count is tested against). */
int eps_scan_each(struct model *m, const struct prec_graph *g, int64_t eps);
/* Theorem 2's evidence: the largest wakeup gap no visible task fills, -1 if none. */
int64_t eps_evidence(const struct model *m);

/*
 * The graph of m at eps (graph.c), with scan judging the proposals within
 * eps where wakeups split the runs. Statistics into *m->st (their sum,
 * graph_stats_add). 0, -E2BIG (over max_edges), -ENOMEM.
 */
int graph_build(struct model *m, int64_t eps, uint64_t max_edges, int jobs, eps_scan_fn scan,
		struct prec_graph **out);
void graph_stats_add(struct crit_edge_stats *d, const struct crit_edge_stats *s);

/* ---- the binding edges (bind.c) ---- */

/*
 * The binding edge of every task among its tight edges, by rank (bind.c),
 * into bind[g->n]. est NULL: a recording's graph, where every edge is
 * tight (cpa__observed).
 */
void bind_rank(const struct prec_graph *g, const int64_t *est, uint32_t *bind);

/*
 * Algorithm 1 on a recording's graph and the binding edge of every task
 * (*bind, malloc'd, [m->n]): the stage's bind_observed, or a reference.
 */
typedef int (*bind_fn)(const struct model *m, const struct prec_graph *g, struct cpa_observed *ob,
		       uint32_t **bind);

int bind_observed(const struct model *m, const struct prec_graph *g, struct cpa_observed *ob, uint32_t **bind);

/* ---- a path walked and accounted (walk.c) ---- */

struct acc {
	int64_t *run, *held;		/* [nowners] */
	uint8_t *mark;
	uint32_t *touched;
	size_t ntouched;
	struct crit_share *cats;
	size_t ncats, capcats;
	int err;
};

int acc_init(struct acc *a, size_t nowners);
void acc_free(struct acc *a);
/* dst += src (src unchanged). */
void acc_add(struct acc *dst, const struct acc *src);
/* The rows so far, most time first (rows of zero time left out); resets. */
int acc_take(struct acc *a, struct crit_share **out, size_t *nout);

struct segbuf {
	struct crit_seg *v;
	size_t n, cap, limit, total;
	struct crit_seg cur;		/* the latest, still growing by merges */
	bool has_cur;
	int err;
};

/*
 * Where a walk's time goes: acc gets all of it from the walk's horizon on;
 * acc2, if any, also gets what lies at or after h2 (>= the horizon). So one
 * walk accounts both the path into an invocation and its reference window,
 * which reaches further back along the same path. The segments (sb) are
 * acc's.
 */
struct sink {
	struct acc *acc, *acc2;
	int64_t h2;
	struct segbuf *sb;
	/*
	 * Tasks own_lo < v <= own_hi are the walked invocation's own, after
	 * its first: a release into one of them is a wait inside the
	 * invocation (own_hi 0: none).
	 */
	uint32_t own_lo, own_hi;
};

struct inv_walk;

/* The walks into one completion of an actor's invocation (per_actor.c). */
typedef int (*inv_walk_fn)(const struct inv_walk *iw);

struct walker {
	const struct model *m;
	const struct prec_graph *g;
	const int64_t *est;		/* NULL: the observed starts (a recording) */
	const uint32_t *bind;
	uint32_t *hint;			/* [m->ncpu] this walker's CPU search hints */
	inv_walk_fn walk_invocation;	/* per_actor_walk_invocation, or a reference */
};

static inline int64_t walker_est(const struct walker *w, uint32_t v)
{
	return w->est ? w->est[v] : w->m->tasks[v].start_ns - w->m->t0;
}

/*
 * The path into task v, completing at `end` (relative, within v), back to
 * `horizon` (relative), into k. Returns the tasks visited inside the window.
 */
size_t walk_path(const struct walker *w, uint32_t v, int64_t end, int64_t horizon, const struct sink *k);
/* The path walked into acc and sb, from horizon to end, into p; takes acc. 0 or -ENOMEM. */
int path_take(const struct walker *w, struct segbuf *sb, size_t ntasks, int64_t end, int64_t horizon,
	      struct acc *acc, struct crit_path *p);
/* The path into v walked and taken, keeping its last seg_limit stretches. 0 or -ENOMEM. */
int path_into(const struct walker *w, uint32_t v, int64_t end, int64_t horizon, struct acc *acc,
	      size_t seg_limit, struct crit_path *p);
void path_free(struct crit_path *p);

/* ---- per actor and per break (per_actor.c) ---- */

/* The accumulators of one accounting thread. */
struct accs {
	struct acc *inv;		/* the actor's invocations (the caller's) */
	struct acc ref;			/* its reference windows */
	struct acc brk;			/* one break's path */
};

/*
 * One invocation's walks: into completion v of invocation k of actor a
 * (res->actors[ai], its breaks from res->breaks[slot]), at end; the
 * invocation's path from horizon if inv, its reference window from h if
 * win; brk: the break whose target it is, or SIZE_MAX.
 */
struct inv_walk {
	struct critical_result *res;
	const struct walker *w;
	const struct actor *a;
	size_t ai, slot;
	const uint8_t *keep;		/* mark_kept's: the break slots that keep their segments; NULL: all */
	struct accs *ac;
	uint32_t v;
	int64_t end, horizon, h;
	bool inv, win;
	size_t brk;
	uint32_t own_lo, own_hi;	/* sink.own_lo, own_hi */
};

/* The stage's walks of one invocation: the invocation, its window and a break's path in one. */
int per_actor_walk_invocation(const struct inv_walk *iw);

/*
 * The paths into every invocation of every actor of ar and into every
 * break, on up to jobs threads, into res->actors and res->breaks (worst
 * first). acc: the caller's accumulator for nowners owners. Only the
 * seg_breaks worst breaks keep their stretches (0: all). 0 or -ENOMEM.
 */
int per_actor_account(struct critical_result *res, const struct walker *w, const struct actors_result *ar,
		      struct acc *acc, int jobs, size_t nowners, size_t seg_breaks);

/* ---- the stage over a recording, in steps (critical.c) ---- */

/* The wall clock of the phases (critical_result.build_ns, ...). */
static inline uint64_t critical_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The steps of the stage that tests replace by their references
 * (tests/ref/critical_ref.c); the stage runs critical_steps_default.
 */
struct critical_steps {
	eps_scan_fn scan_eps;
	bind_fn bind;
	inv_walk_fn walk_invocation;
};

extern const struct critical_steps critical_steps_default;

/* critical__prepare with the given steps. */
int critical_prepare_steps(const struct timeline *tl, const struct critical_opts *o,
			   const struct critical_steps *steps, struct critical_prep **out);

#endif
