/* SPDX-License-Identifier: MIT */
/*
 * The critical-path stage (docs/DESIGN.md §6, docs/ALGORITHMS.md §5;
 * Hendriks & Vaandrager, "Reconstructing critical paths from execution
 * traces"): from start and end times, reconstruct an over-approximation of
 * the precedence graph (Algorithm 4 with the sorted scan, precedence.h),
 * run Algorithm 1 (cpa.h), and say what lies on the critical paths: of the
 * whole input, into every invocation of every actor (aggregated), and into
 * the late invocation of every period break.
 *
 * Two inputs. A Gantt chart (report FILE.csv) is the paper's setting and is
 * analysed as the paper says (gantt.c). A kernel recording is analysed with
 * the same two algorithms over a task model that makes the graph causal
 * where the trace allows it: run intervals split where a thread wakes
 * another (model.c), edges confirmed by the wakeups or dropped as spurious
 * (graph.c), eps from the wakeups (eps.c), releases as root lags so that
 * every observed start is reproduced, one binding edge per task by rank
 * (bind.c), and every path accounted by thread and category, the time a
 * task waited for a CPU split by who held it (walk.c, per_actor.c).
 *
 * The results are plain data: times are absolute ns (CLOCK_MONOTONIC; a
 * chart's own time), durations ns; the renderers live in src/report/.
 */
#ifndef QT_CRITICAL_H
#define QT_CRITICAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct actors_result;
struct gantt;
struct holdup;
struct timeline;
struct trace;

#define CRIT_NONE UINT32_MAX
#define CRIT_MAX_PATHS 4		/* critical paths listed before the common sub-path takes over */
#define CRIT_MAX_SEGS 64		/* segments kept for a break's path */
#define CRIT_DEFAULT_EPS_CAP 1000000	/* ns: auto never goes above */
#define CRIT_DEFAULT_EPS_TRACE 100000	/* ns: auto on a trace without wakeups */

struct critical_opts {
	int64_t epsilon_ns;		/* < 0: auto */
	bool timing_only;		/* ignore the wakeups: start and end times alone */
	int64_t epsilon_cap_ns;		/* auto at most this; 0: CRIT_DEFAULT_EPS_CAP */
	uint64_t max_edges;		/* candidate budget, 0: PREC_DEFAULT_MAX_EDGES(n) */
	int jobs;			/* threads accounting the actors' paths (<= 1: this one) */
	/*
	 * Keep the stretches (crit_path.seg) of the paths of the N worst
	 * breaks only (0: of all). Every break is accounted alike; the rest
	 * have nseg 0 and nseg_total as counted.
	 */
	size_t seg_breaks;
};

/* Categories of edges (stored in prec_graph.cat) and of the time on a path. */
enum crit_cat {
	CRIT_CAT_NONE = 0,		/* Gantt: exact adjacency */
	CRIT_CAT_GAP,			/* control overhead: an unconfirmed eps-edge */
	CRIT_CAT_INIT,			/* Gantt: initial control task */
	CRIT_CAT_CONT,			/* same thread, run split where it woke someone */
	CRIT_CAT_PREEMPT,		/* same thread, preempted: waited for a CPU */
	CRIT_CAT_BLOCKED,		/* same thread, slept: blocked */
	CRIT_CAT_RESOURCE,		/* other thread, same CPU, exact hand-over */
	CRIT_CAT_WAKEUP,		/* confirmed wakeup: wakeup latency (sub: 1 + the softirq
					 * vector the waker raised to wake, "via NET_RX"; 0 direct) */
	CRIT_CAT_OWN_WAIT,		/* an invocation's own wait for a release inside it (no edge) */
	CRIT_CAT_REL_HARDIRQ,		/* released by an interrupt (sub: QT_IRQ_* or IRQ number) */
	CRIT_CAT_REL_SOFTIRQ,		/* released by a softirq (sub: vector) */
	CRIT_CAT_REL_KERNEL,		/* woken by no thread (idle, kernel) */
	CRIT_CAT_REL_WAKER,		/* woken by a thread whose run at that time is not recorded */
	CRIT_CAT_REL_NONE,		/* no recorded cause (timing-only: no predecessor within eps) */
	CRIT_CAT_REL_START,		/* a thread's first run, its cause before the recording */
	CRIT_CAT_MAX
};

/* One row of an accounting: a thread (or Gantt actor), or a category. */
struct crit_share {
	uint32_t thread;		/* timeline thread / Gantt actor index; CRIT_NONE for a category */
	uint8_t cat;			/* enum crit_cat, for a category row */
	uint16_t sub;			/* IRQ or softirq vector of a release; a wakeup's via */
	int64_t ns;			/* run_ns + held_ns for a thread */
	int64_t run_ns;			/* its tasks on the path */
	int64_t held_ns;		/* it held the CPU a task on the path waited for */
};

/* A stretch of a path. */
enum crit_seg_kind { CRIT_SEG_RUN, CRIT_SEG_WAIT, CRIT_SEG_RELEASE };

struct crit_seg {
	int64_t start_ns, end_ns;	/* absolute (CLOCK_MONOTONIC; Gantt: the chart's time) */
	uint32_t thread;		/* RUN: who ran; WAIT: who waited */
	uint32_t holder;		/* WAIT: who held the CPU longest meanwhile, or CRIT_NONE */
	int64_t holder_ns;
	int64_t held_ns;		/* WAIT: the time any other thread held that CPU */
	uint16_t cpu;			/* WAIT: the CPU waited for, UINT16_MAX if none (blocked, overhead) */
	uint8_t kind;			/* enum crit_seg_kind */
	uint8_t cat;			/* WAIT, RELEASE: enum crit_cat */
	uint16_t sub;			/* as crit_share.sub */
};

/* The path into one task, accounted from a horizon to its completion. */
struct crit_path {
	int64_t start_ns, end_ns;	/* the window: horizon .. completion */
	struct crit_share *share;	/* most time first; they sum to end - start */
	size_t nshare;
	struct crit_seg *seg;		/* first first; consecutive stretches of one kind merged */
	size_t nseg;
	size_t nseg_total;		/* before truncation to the last CRIT_MAX_SEGS (breaks) */
	size_t ntasks;			/* tasks on the path inside the window */
};

/* The aggregated paths into every invocation of an actor. */
struct crit_actor {
	size_t actor;			/* index into actors_result.v (Gantt: actor index) */
	uint32_t thread;		/* timeline thread (Gantt: actor index) */
	size_t ninv;			/* invocations accounted */
	int64_t total_ns;		/* origin .. last completion */
	struct crit_share *share;	/* most time first */
	size_t nshare;
};

/* What delayed the late invocation of a period break. */
struct crit_break {
	size_t actor, brk;		/* actors_result.v[actor].breaks[brk] */
	int64_t lateness_ns;
	struct crit_path path;
	struct crit_share culprit;	/* the row (not a release) with the largest excess over its mean */
	int64_t excess_ns;		/* culprit.ns - its mean per invocation, > 0 (culprit.ns == 0: none) */
	int64_t release_excess_ns;	/* how much more than usual the chain waited for its release */
	struct crit_share release;	/* that release row (release_excess_ns > 0) */
};

struct crit_edge_stats {
	uint64_t candidates;		/* pairs proposed by Algorithm 4 (within eps, plus initial) */
	uint64_t exact;			/* kept edges with gap 0 (hand-overs, splits, exact adjacency) */
	uint64_t same_thread;		/* program order kept (CONT, PREEMPT, BLOCKED) */
	uint64_t resource;		/* exact same-CPU hand-overs kept */
	uint64_t cross;			/* cross-thread proposals (eps-edges, incl. exact on another CPU) */
	uint64_t confirmed;		/* of those, confirmed by a wakeup */
	uint64_t rejected;		/* of those, no causal support: dropped as spurious */
	uint64_t unchecked;		/* of those, kept without a check (timing-only, Gantt) */
	uint64_t missing_data;		/* proposals dropped because data is missing in between */
	uint64_t redundant;		/* same-thread pairs implied by program order, dropped */
	uint64_t wakeups_beyond;	/* wakeup edges added beyond eps */
	uint64_t preempt_beyond;	/* program-order edges added after long preemptions */
	uint64_t releases[CRIT_CAT_MAX];	/* root lags by category */
	uint64_t wakeups_unmatched;	/* thread wakeups that released no recorded run */
};

enum crit_input { CRIT_INPUT_TRACE, CRIT_INPUT_GANTT };

struct critical_result {
	enum crit_input input;
	bool wakeups;			/* wakeups were used (confirmation, splits, releases) */
	int64_t epsilon_ns;
	const char *epsilon_source;	/* "given", "auto", "default" */
	int64_t epsilon_evidence_ns;	/* auto: the largest invisible gap seen (before cap), else -1 */
	bool epsilon_capped;
	int64_t origin_ns;
	size_t ntasks;
	uint64_t nedges;
	struct crit_edge_stats edges;
	int64_t makespan_ns;
	size_t ncritical;		/* tasks with float 0 */
	size_t unexplained;		/* trace: starts with no recorded cause */
	uint64_t build_ns, cpa_ns, account_ns;	/* wall time of the phases */

	struct crit_path whole;		/* into the task ending last, from the origin */
	uint32_t whole_last;		/* that task */

	struct crit_actor *actors;
	size_t nactors;
	struct crit_break *breaks;	/* every break of every actor, worst (latest) first */
	size_t nbreaks;

	/* Gantt input only (NULL / 0 otherwise): indices are lines of the chart. */
	int64_t *est, *lst;		/* [ntasks] relative to origin */
	uint32_t *critical;		/* [ncritical] critical tasks, in order of est */
	uint64_t npaths;		/* critical paths (saturates at UINT64_MAX) */
	uint32_t **paths;		/* up to CRIT_MAX_PATHS, each a task list */
	size_t *path_len;
	size_t npaths_listed;
	uint32_t *common;		/* tasks on every critical path, in order */
	uint8_t *common_joined;		/* [i]: the edge from common[i - 1] is on every one too */
	size_t ncommon;
	uint32_t *mismatch;		/* eps check: tasks whose recomputed start differs */
	size_t nmismatch;
};

/* All-zero options but epsilon_ns = -1 (auto). */
void critical_opts_default(struct critical_opts *o);

/*
 * The stage over a recording: tl must outlive the call, ar (may be NULL:
 * no per-actor results) too; o NULL: the defaults. *out (NULL on error) is
 * the caller's, freed with critical__free. 0, -ENOMEM, -E2BIG (even the
 * smallest eps exceeds the edge budget).
 */
int critical__analyse(const struct timeline *tl, const struct actors_result *ar,
		      const struct critical_opts *o, struct critical_result **out);
/*
 * The same in two steps, for running it beside the actors' stage: the
 * graph, its critical path and the path into the recording's end need
 * only the timeline (which must outlive p); finish accounts the actors'
 * paths (ar may be NULL) and always consumes p. critical__prep_free drops
 * an unfinished p (NULL is fine). Errors as critical__analyse.
 */
struct critical_prep;
int critical__prepare(const struct timeline *tl, const struct critical_opts *o, struct critical_prep **out);
int critical__finish(struct critical_prep *p, const struct actors_result *ar, struct critical_result **out);
void critical__prep_free(struct critical_prep *p);
/*
 * The stage over a Gantt chart (file/gantt_csv.h), which the result's
 * task indices refer to. o NULL: the defaults. 0, -ENOMEM, -E2BIG (the
 * candidate edges exceed the budget), -EINVAL (times too large).
 */
int critical__analyse_gantt(const struct gantt *g, const struct critical_opts *o,
			    struct critical_result **out);
/* NULL is fine. */
void critical__free(struct critical_result *r);

/*
 * How many of r's breaks (the first, worst ones) have their paths listed
 * when at most max are (0: all): with critical_opts.seg_breaks = max,
 * those are the ones that kept their stretches.
 */
size_t critical__breaks_listed(const struct critical_result *r, size_t max);

/*
 * Name of a category row ("wakeup latency", "timer", "irq 24 xhci_hcd",
 * ...): a constant, or buf (len bytes) filled. t (may be NULL) names the
 * IRQs of a recording.
 */
const char *critical_cat_name(enum crit_cat cat, uint16_t sub, const struct trace *t, char *buf, size_t len);

/* A release row: what started a chain (an interrupt, a wakeup, an initial control task), not a delay on it. */
static inline bool critical_cat_is_release(uint8_t cat)
{
	return cat >= CRIT_CAT_REL_HARDIRQ || cat == CRIT_CAT_INIT;
}

/*
 * Whether break b's stored holdup (actor_break.held, actors/holdup.h)
 * tells why its target overran better than its path does: the target was
 * asleep or blocked in the kernel for most of its overrun, and the path
 * blames no other thread (it names a release, a wait within the
 * invocation, or the actor itself). ar: the actors b refers to (NULL, as
 * for a Gantt chart: false). *h gets the holdup when true; describe it
 * with holdup__describe.
 */
bool critical__break_holdup(const struct actors_result *ar, const struct crit_break *b, struct holdup *h);

#endif
