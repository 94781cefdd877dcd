/* SPDX-License-Identifier: MIT */
/*
 * The actors' stage (SATM §4, docs/DESIGN.md §4-5): which actors, their
 * invocations, periods and breaks (actor.h), and the most upstream actor
 * that breaks its period, over a timeline.
 *
 * Which actors. Without --actor: every thread of the targets (every thread
 * with --all) but qostrace's own, once it has enough activity to judge
 * (ACTORS_MIN_RUNS runs, then ACTORS_MIN_INVOCATIONS invocations; the others
 * are listed in `skipped` with the reason). --actor SPEC replaces that set
 * by the named actors, which are never skipped ("auto" brings the default
 * set back):
 *
 *   SPEC    := auto | THREAD | CALL@THREAD
 *   THREAD  := NAME        threads whose name (comm) matches, a shell glob: dec, "dec*"
 *            | TID         a number: that thread
 *            | tid:TID | pid:PID (every thread of the process) | comm:NAME
 *   CALL    := SYSCALL | SYSCALL(ARG0)   by name in the recording's ABI, e.g.
 *              write, or write(1): only the calls whose first argument is 1
 *
 * Upstream order, learnt from the wakeups. A wakes B when a wakeup sent by
 * A's thread (during one of A's invocations, for a syscall actor) is one
 * that B's thread received for one of its invocations: between the end of
 * the run before the invocation's first occurrence and the invocation's
 * end (what made it runnable, and what woke it inside the invocation).
 * Interrupts and the idle task wake for nobody; sched_wakeup_new is not
 * data flow. The edge A -> B counts B's invocations A woke; it is kept when
 * it counts >= ACTORS_EDGE_MIN invocations and >= 10 % of B's, and is not
 * dominated by the reverse edge (B -> A more than twice as strong: a
 * consumer that wakes a producer blocked on a full queue is back-pressure,
 * not data flow). Equal strengths both ways (ping-pong) make a cycle.
 * A breaking actor is one that is periodic with at least one trusted
 * major break (actor.h: late by the cut, a tenth of its period by
 * default, or more; the smaller ones are jitter). X is fed by Y when Y
 * reaches X over kept edges (through any actors) and X does not reach Y
 * back. The most upstream breaking actor is one that no other breaking
 * actor feeds. Unrelated actors (separate components: a pipeline and a
 * periodic housekeeping thread) and cycles leave several such; then the
 * one whose delay reaches the most other breaking actors wins (it
 * explains the most), then the one with the worst break relative to its
 * period, then the earliest first trusted major break, then the lower
 * index. Jitter makes no actor breaking: a camera source 1 ms late on a
 * 40 ms period is not the answer when the file writer after it stalls
 * 160 ms, and a pipeline whose actors only jitter keeps its rhythm (no
 * upstream actor).
 */
#ifndef QT_ACTORS_H
#define QT_ACTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actor.h"
#include "invocations.h"
#include "timeline/timeline.h"

/* A kept "A wakes B" relation (see the upstream rule above). */
struct actor_edge {
	size_t from, to;		/* indices into actors_result.v */
	size_t invocations;		/* of `to`'s invocations that `from` woke */
};

struct actor_skip {
	uint32_t thread;
	const char *reason;		/* static string: "too few runs", ... */
	size_t count;			/* the runs or invocations it had */
};

struct actors_result {
	struct actor *v;
	size_t n;
	struct actor_skip *skipped;	/* threads not studied, and why */
	size_t nskipped;
	/*
	 * The most upstream actor that breaks its period (SATM §3): index into
	 * v, or -1 when no periodic actor has a major break. Upstream order is
	 * learnt from the recording (which actor's invocations wake or precede
	 * which).
	 */
	long upstream;
	struct actors_cut min_late;	/* the cut between major breaks and jitter, as used */

	struct actor_edge *edges;	/* kept edges, sorted by (from, to) */
	size_t nedges;
	struct invocations_opts inv_opts;	/* the clustering used */
};

#define ACTORS_MIN_RUNS 8		/* default actors: fewer runs, skipped */
/*
 * Default actors: fewer invocations, skipped. A period judged on a few
 * intervals is chance: of threads whose intervals are random (exponential,
 * uniform, lognormal sigma 0.5), 1.4-7.9 % pass QCoD < 10 % on 4 intervals
 * and 0.00-0.23 % on 11 (nearest-rank quartiles, 200 000 draws each); a
 * compiler reading its headers was the "first to break its period" so.
 */
#define ACTORS_MIN_INVOCATIONS 12
#define ACTORS_EDGE_MIN 3		/* wakeup edges weaker than this are noise */

/* The stage's options. Zero-initialised (or NULL) means the defaults. */
struct actors_opts {
	const char *const *actor_specs;	/* --actor SPEC, as given: none, the default set */
	size_t n_actor_specs;
	double qcod_threshold;		/* periodic below it (--qcod); <= 0: PERIOD_DEFAULT_QCOD_THRESHOLD */
	/* major breaks and jitter (--min-late); { 0, 0 }: ACTORS_DEFAULT_MIN_LATE of the period */
	struct actors_cut min_late;
	int jobs;			/* > 1: two candidates studied side by side; the result is the same */
	/*
	 * The tests' knobs, which the analysis leaves at 0: the gap and split
	 * rules' fraction (0: ACTORS_MAX_GAP_FRAC; < 0: both rules off, the
	 * clustering of docs/ALGORITHMS.md §1.4 exactly), and the invocations
	 * a default actor needs (0: ACTORS_MIN_INVOCATIONS).
	 */
	double max_gap_frac;
	size_t min_invocations;
};

/*
 * Runs the stage over tl with the options o (NULL: the defaults). An actor
 * spec that does not parse or matches nothing is an error: a message
 * (log_err) and -EINVAL. Otherwise 0 or -ENOMEM (-EINVAL for a NULL tl or
 * out). On success *out is the caller's, freed with actors__free(); it
 * points into tl (thread indices, occurrence indices), which must outlive
 * it. On failure *out is NULL.
 */
int actors__analyse(const struct timeline *tl, const struct actors_opts *o, struct actors_result **out);

/* Frees a result of actors__analyse(); NULL is fine. */
void actors__free(struct actors_result *r);

/*
 * Checks the syntax of one --actor SPEC, without a recording: 0, or
 * -EINVAL with a message ("--actor 'x': why") in msg[len] (msg may be
 * NULL). Whether it matches a thread is known only to actors__analyse().
 */
int actors__check_spec(const char *spec, char *msg, size_t len);

/*
 * Does spec name a thread that ran in tl ("auto" always does)? Checked
 * without a message: watch waits for the threads it is told to watch
 * before it studies them. A spec that does not parse names none.
 */
bool actors__spec_names(const char *spec, const struct timeline *tl);

#endif
