/*
 * The critical-path stage (DESIGN.md §6, seed 000, ALGORITHMS.md §5): from
 * start and end times, reconstruct an over-approximation of the precedence
 * graph (Algorithm 4 with the sorted scan, precedence.h), run Algorithm 1
 * (cpa.h), and say what lies on the critical paths: of the whole input,
 * into every invocation of every actor (aggregated), and into the late
 * invocation of every period break.
 *
 * TWO INPUTS
 *
 * A Gantt chart (report FILE.csv) is the paper's setting and is analysed as
 * the paper says: tasks are the lines, Algorithm 4 with the given eps
 * (default 0, i.e. Algorithm 2: a model's output is non-delay), initial
 * control tasks per the pseudo-code, origin = earliest start. Reported:
 * makespan, critical tasks, the critical paths (or, when there are more
 * than CRIT_MAX_PATHS, the sub-path common to all of them: certainly on a
 * real critical path, seed §II-B), floats, and the paper's check of eps (the
 * tasks whose recomputed start differs from the observed one).
 *
 * A kernel recording is analysed with the same two algorithms over a task
 * model that makes the graph causal where the trace allows it:
 *
 * Tasks are run intervals, split where the thread wakes another thread
 * (at the waker's waking time): a waker usually runs on after waking, and
 * Algorithm 1 needs a predecessor to END before its successor starts, so
 * the fragment up to the waking point is what the wakee waited for. The
 * idle task is never a task (the timeline has no idle runs). Runs begun
 * before the recording are clamped to its start (the origin).
 * Without wakeups (timing-only) the tasks are the whole run intervals.
 *
 * Edges. Algorithm 4 proposes every pair (t, t') with 0 <= s(t') - e(t) <=
 * eps; a hook classifies each proposal:
 *  - same thread, next fragment: program order. After a split the edge is
 *    exact (CONT); after a preemption its lag is the time the thread waited
 *    for a CPU (PREEMPT); after a sleep, the time it was blocked (BLOCKED).
 *    Later fragments of the same thread are implied by these and dropped.
 *  - other thread, exact, same CPU: prev left the CPU when next took it, a
 *    resource precedence (RESOURCE, like D -> E in the paper's Fig. 2).
 *  - other thread otherwise: with wakeups, kept only when a recorded wakeup
 *    confirms it (the fragment that ends at the waking point, into the
 *    wakee's first run after the wakeup: WAKEUP, lag = wakeup latency);
 *    every other proposal has no causal support and is dropped as spurious
 *    (seed §IV). Without wakeups it is kept as the paper's control task
 *    (GAP, lag = the gap).
 * With wakeups, what the trace proves is then added even where it lies
 * beyond eps (prec_graph__add_edges): the wakeup edges with a larger gap and
 * the program order after a long preemption. Without wakeups nothing is
 * added: timing alone, as in the paper.
 * (Implementation: with wakeups the graph is built with eps = 0 through the
 * hook, and the proposals in (0, eps] are judged by the same rules in a scan
 * that allocates nothing per proposal; the result is the graph the hook
 * would give at eps, without the 14 bytes per proposal the build reserves
 * before judging: on a busy trace most proposals are spurious, 5.8 per task
 * in the benchmark.)
 *
 * Releases. A run started by an interrupt (a timer, an IRQ, a softirq) has
 * no thread predecessor: the trace says when it was released, and a root
 * lag (an initial control task reaching back to the origin) pins its
 * earliest start to its observed start. A task left without any predecessor
 * gets the same root lag, marked "no recorded cause" (timing-only: "no
 * predecessor within eps"). So every lag equals an observed gap and, by
 * induction over the order, the non-delay interpretation reproduces every
 * observed start exactly: est(t) = s(t) - origin. On a kernel trace the
 * paper's eps check is therefore replaced by the count of starts the
 * reconstruction cannot explain (the tasks given a "no recorded cause" root).
 * The paper's INIT edges are not used on kernel traces: they are releases.
 * Nor is Algorithm 1's forward pass run on them: it would only give back the
 * observed starts; what remains of it is which tasks are critical
 * (cpa__observed; critical_opts.full_cpa runs it in full as the reference).
 *
 * Which critical path. Since every start is reproduced, every predecessor
 * that ends just in time is tight and many paths tie; all are critical in
 * the paper's sense. The one reported into a task follows, at each step, the
 * tight edge of the highest rank: CONT, PREEMPT > WAKEUP > interrupt release
 * > GAP > BLOCKED > RESOURCE > unexplained release; then the smaller lag,
 * then the lower predecessor id. So the path stays on the causal chain
 * (what woke whom), and the time a thread waited for a CPU is a lag, which
 * the accounting below splits by who held that CPU. The binding edges form
 * a forest (one per task), so the path into any task is walked in
 * O(its length).
 *
 * Accounting a path into a task, from a horizon up to where the task
 * completes: each task's time goes to its thread (Gantt: its actor). A lag
 * during which the task was runnable (a wakeup latency: on the CPU it was
 * woken on; a preemption: on the CPU it was preempted on) is split into the
 * time other threads ran on that CPU (they "held the CPU": counted for
 * them, as held_ns) and the rest, which goes to the edge's category (wakeup
 * latency, CPU wait); other lags go to theirs whole (blocked, control
 * overhead). A release splits into the time before the interrupt (timer,
 * irq N name, softirq NAME: what released the chain) and the latency after
 * it. Everything between horizon and completion is accounted, exactly once.
 *
 * Per actor (DESIGN.md §10): the path into invocation k completes where k
 * completes (the end of its last run interval, or the end of its system
 * call for a syscall actor) and reaches back to the completion of k - 1
 * (invocation 0: to the origin). The shares of all invocations are summed:
 * they partition the time from the origin to the last completion, and say
 * how much of the time leading to its invocations each thread and category
 * accounts for. A thread that wakes on one input and then waits for a
 * second one completes after the second: its last run's wakeup is the one
 * from the second input, so its earlier runs are not on that path. A
 * release inside the invocation (a timeout it set, an interrupt it waited
 * for) does not end the path there: until the release the time goes to the
 * invocation's own waits (OWN_WAIT), and the path goes on into its earlier
 * task, back to its first, whose cause is what its start waited for (a
 * live source kept off its CPU catches up in one invocation with short
 * clock waits: the last of them did not make it late).
 * Per break: the path into the late invocation, from the start of the
 * invocation before it (the whole late interval) to the late one's
 * completion. What delayed it is the row whose time there exceeds its mean
 * over the same windows of every invocation (start of the one before to
 * completion) the most, so that what every period holds cancels out.
 * Releases are kept apart: a chain released late means its input came
 * late, which the upstream actor's breaks explain. The path into an
 * invocation, its window and, for a late one, the break's path follow the
 * same binding edges back from the same completion: one walk accounts all
 * three, each from its own horizon.
 *
 * eps. Explicit --epsilon is used as given. auto with wakeups: the largest
 * invisible gap of a wakeup-backed precedence (from the waking time to the
 * wakee's start, minus the time other threads held the CPU it was woken
 * on; windows with missing data left out): Theorem 2 wants eps >= every
 * chain of invisible tasks, and a wait behind a visible task is not
 * invisible. Capped at epsilon_cap_ns (default 1 ms); halved while the
 * candidate pairs exceed the edge budget (timing-only). It can be 0 on a
 * saturated machine, where every latency is spent behind someone. With
 * wakeups the graph does not depend on eps beyond the BLOCKED edges: eps
 * decides which timing-only proposals are checked, and the counts of
 * confirmed and spurious ones say how far timing alone would have been
 * right at that eps. Timing-only still takes its auto eps from the wakeups
 * when the trace has them. auto without wakeups: 100 us on a trace
 * (CRIT_DEFAULT_EPS_TRACE), 0 on a Gantt chart (Algorithm 2).
 *
 * COST. Model O(n + wakeups) plus one sort of the tasks by start (the
 * CPU-holder index), the reconstruction O(n log n + candidates), Algorithm
 * 1 and the ranking O(n + edges); per actor O(n) at worst: the windows of
 * one actor are disjoint (the reference windows of its breaks overlap
 * once more), and a path visits only tasks inside its window. Memory:
 * linear, about 100 bytes per task at the peak on the benchmark's 8-CPU
 * timelines (model 33, CPU index 4, graph 16 + 14 per edge, Algorithm 1
 * one bit on a recording, 20 on a Gantt chart, ranking 4, and the build's
 * sort for a while); scripts/bench-critical.sh measures it.
 */
#ifndef QT_CRITICAL_H
#define QT_CRITICAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "lib/json_writer.h"
#include "timeline/timeline.h"

struct actors_result;
struct gantt;
struct report_style;

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
	 * With wakeups, judge every pair proposed within eps one by one instead
	 * of counting them: the same graph and statistics, in time proportional
	 * to the proposals (~40 per task in a storm). The reference the
	 * counting is tested against.
	 */
	bool enumerate_eps;
	/*
	 * Recordings: run Algorithm 1 in full (cpa__run) instead of reading
	 * the earliest starts off the observed ones (cpa__observed): the same
	 * results, 20 bytes more per task. The reference the shortcut is
	 * tested against; -EPROTO if an earliest start is not the observed one.
	 */
	bool full_cpa;
	/*
	 * Walk an invocation's path, its reference window (for the breaks'
	 * culprits) and a break's path one after the other instead of in one
	 * walk: the same results, twice the steps (a 15 s storm: 32 M
	 * instead of 15 M). The reference the shared walk is tested against.
	 */
	bool separate_walks;
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
	CRIT_CAT_WAKEUP,		/* confirmed wakeup: wakeup latency */
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
	uint16_t sub;			/* IRQ or softirq vector of a release */
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
	uint16_t sub;
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

void critical_opts_default(struct critical_opts *o);

/*
 * The stage over a recording. ar may be NULL (no per-actor results).
 * 0, -ENOMEM, -E2BIG (even the smallest eps exceeds the edge budget).
 */
int critical__analyse(const struct timeline *tl, const struct actors_result *ar,
		      const struct critical_opts *o, struct critical_result **out);
/*
 * The same in two steps, for running it beside the actors' stage: the
 * graph, its critical path and the path into the recording's end need
 * only the timeline; finish accounts the actors' paths (ar may be NULL)
 * and always consumes p. critical__prep_free drops an unfinished p.
 */
struct critical_prep;
int critical__prepare(const struct timeline *tl, const struct critical_opts *o, struct critical_prep **out);
int critical__finish(struct critical_prep *p, const struct actors_result *ar, struct critical_result **out);
void critical__prep_free(struct critical_prep *p);
/* The stage over a Gantt chart. */
int critical__analyse_gantt(const struct gantt *g, const struct critical_opts *o,
			    struct critical_result **out);
void critical__free(struct critical_result *r);

/* Name of a category row ("wakeup latency", "timer", "irq 24 xhci_hcd", ...). */
const char *critical_cat_name(enum crit_cat cat, uint16_t sub, const struct trace *t,
			      char *buf, size_t len);

/*
 * "critical": {...} of DESIGN.md §10 (the caller writes the name). Times
 * are absolute ns (CLOCK_MONOTONIC; a chart's own time), durations ns.
 *   input "trace" | "gantt", epsilon_ns, epsilon_source "given" | "auto" |
 *   "default", epsilon_evidence_ns (Theorem 2's value from the wakeups, or
 *   null), epsilon_capped, wakeups_used, tasks,
 *   edges { total, candidates, exact, same_thread, cpu_handover, epsilon
 *     (cross-thread proposals), confirmed, rejected, unchecked,
 *     missing_data, redundant, wakeups_beyond_epsilon,
 *     preemptions_beyond_epsilon, wakeups_unmatched, releases { category: n } },
 *   epsilon_check { kind "recomputed_starts" (gantt: mismatches, tasks[
 *     {task, line, start_ns, recomputed_ns}] up to 100) | "unexplained_starts"
 *     (trace), reproduced, mismatches },
 *   whole { length_ns, start_ns, end_ns, critical_task_count, last_task,
 *     share[], critical_tasks [names] | null, critical_lines, path_count
 *     (null: more than 2^64), paths [{tasks, lines}], common {tasks, lines,
 *     joined}, segments[] (trace), segments_total },
 *   actors [ { tid, comm, actor, invocations, total_ns, share[] } ],
 *   breaks [ { tid, comm, actor, late_invocation, kind ("start" |
 *     "completion"), target_invocation (the one the path goes into),
 *     late_start_ns, lateness_ns, start_ns, end_ns (the window), data_missing,
 *     release_excess_ns, release, delayed_by { row, excess_ns } | null,
 *     share[], segments[], segments_total } ] (worst first; the first
 *     --break-paths of them, default 1000),
 *   breaks_total (every break analysed), breaks_left_out (not listed),
 *   tasks [ { task, actor, line, start_ns, end_ns, est_ns, lst_ns, float_ns,
 *     critical } ] (gantt),
 *   timing { build_ns, cpa_ns, account_ns }
 * A share row: { tid, comm, kind "thread" | "actor", ns, run_ns, held_ns }
 * or { tid 0, comm (a name: "wakeup latency", "timer", "irq 24 xhci_hcd"),
 * kind "overhead" | "release", category (an id: wakeup_latency, cpu_wait,
 * blocked, control_overhead, initial_control, irq, softirq, kernel,
 * waker_not_recorded, no_recorded_cause, before_recording), irq, ns }.
 * A segment: { start_ns, end_ns, kind "run" | "wait" | "release", tid,
 * comm, category, category_name, cpu, cpu_held_ns, cpu_held_by {tid, comm,
 * ns} }.
 */
void critical__json(const struct critical_result *r, const struct analysis *a, json_writer_t *w);
/* The breaks whose paths JSON and HTML list: the first (worst) --break-paths of them. */
size_t critical__breaks_listed(const struct critical_result *r, const struct analysis *a);

struct holdup;

/*
 * The holdup (holdup.h) that tells why break b's target overran better
 * than its path does: the target was asleep or blocked in the kernel for
 * most of its overrun, and the path blames no other thread (it names a
 * release, a wait within the invocation, or the actor itself).
 * *desc (descl bytes, may be NULL) gets "165 ms blocked in writev()".
 */
bool critical__break_holdup(const struct analysis *a, const struct crit_break *b, struct holdup *h,
			    char *desc, size_t descl);
/* The report's critical-path section. */
void critical__print(const struct critical_result *r, const struct analysis *a, FILE *f,
		     const struct report_style *st);

#endif
