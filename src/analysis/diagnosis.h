/* SPDX-License-Identifier: MIT */
/*
 * The Diagnosis (docs/DESIGN.md §10): the three answers the reports open
 * with, computed once from the stages' results, as data. Which actor breaks its
 * period first and where its delay goes downstream; what delayed its worst
 * breaks (a call or the kernel that held it, the thread or kind of wait
 * its critical paths blame, or a late release); what activity shows up
 * when it breaks (the patterns). Renderers print the fields and decide
 * nothing: report/text_diagnosis.c, json_diagnosis.c and html_diagnosis.js
 * say the same.
 *
 * Breaks are the major ones (src/actors/actor.h: late by the cut,
 * --min-late, or more); jitter is counted apart and never makes an answer.
 * When no periodic actor has a major break, the pipeline keeps its rhythm
 * (the verdict), and the Diagnosis says so with each periodic actor's
 * worst lateness as a share of its period (rhythm[]).
 *
 * Everything is an index into the stages' results (actors_result.v,
 * critical_result.breaks, patterns_result.v, timeline threads), a
 * duration in ns, a count or an enum; names are looked up by the
 * renderers.
 */
#ifndef QT_DIAGNOSIS_H
#define QT_DIAGNOSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actors/actor.h"
#include "actors/holdup.h"

struct analysis;

#define DIAG_WORST 5		/* the upstream actor's worst breaks the second answer weighs */
#define DIAG_PATTERNS 2		/* the patterns the third answer quotes */
/*
 * The first answer follows the delay downstream only over this many
 * actors (and its breadth-first walk keeps 64 in its queue): beyond, the
 * propagation is not looked at (downstream_checked false).
 */
#define DIAG_MAX_FOLLOWED 256
#define DIAG_RHYTHM_SHOWN 6	/* the periodic actors a kept rhythm names, latest first */

/* Whether the first answer names an actor, and why not. */
enum diag_answer {
	DIAG_NO_ACTOR,		/* no thread did enough to judge a period */
	DIAG_NONE_PERIODIC,	/* actors, none of them periodic */
	DIAG_NONE_BREAKS,	/* periodic actors, none has a major break: the rhythm is kept */
	DIAG_UPSTREAM,		/* the most upstream breaking actor: three answers */
};

/* Does the pipeline keep its rhythm? */
enum diag_verdict {
	DIAG_VERDICT_NONE,	/* no periodic actor: nothing to judge (NO_ACTOR, NONE_PERIODIC) */
	DIAG_KEEPS_RHYTHM,	/* no periodic actor has a trusted major break (NONE_BREAKS) */
	DIAG_BREAKS,		/* one has (UPSTREAM) */
};

/* One periodic actor's lateness against its period, for a kept rhythm. */
struct diag_rhythm {
	size_t actor;			/* index into actors_result.v */
	int64_t worst_ns;		/* its latest trusted break (jitter, or major), 0 if none */
	double share;			/* worst_ns over its period */
	size_t jitter;			/* its trusted breaks of jitter */
	size_t major;			/* its trusted major breaks (0 when the rhythm is kept) */
};

/*
 * One breaking actor (periodic, at least one trusted major break), in the
 * order of actors_result.v. The upstream actor has its row (downstream
 * false).
 */
struct diag_actor {
	size_t actor;			/* index into actors_result.v */
	size_t breaks;			/* trusted major breaks (data_missing left out) */
	size_t jitter;			/* trusted breaks of jitter, counted apart */
	int64_t worst_jitter_ns;	/* the latest of those, 0 if none */
	/* Downstream of the upstream actor (reached over kept wakeup edges). */
	bool downstream;
	size_t after;			/* its major breaks that follow one of the upstream actor's */
	size_t own;			/* the others: it broke on its own */
	size_t own_major;		/* the same as own (every break counted is major) */
	int64_t own_worst_ns;		/* the latest of those, 0 if none */
	/*
	 * It breaks on its own too, by a major break worse than the upstream
	 * actor's worst: news the first answer gives.
	 */
	bool on_its_own;
};

/* What the second answer names. */
enum diag_cause_kind {
	DIAG_CAUSE_NOT_ANALYSED,	/* no critical-path result */
	DIAG_CAUSE_NONE,		/* no trusted break on its list, or nothing took longer */
	DIAG_CAUSE_HELD,		/* a holdup: a call, the kernel, an idle CPU (holdup.h) */
	DIAG_CAUSE_CULPRIT,		/* the culprit of the critical paths that cost the most */
	DIAG_CAUSE_RELEASE,		/* no culprit: the worst late invocation was released late */
};

/* How the critical paths of the worst breaks met their culprit. */
enum diag_culprit_how {
	DIAG_CPU_BEHIND,	/* a thread held the CPU the path waited for (held_ns > run_ns) */
	DIAG_RAN_THROUGH,	/* the path ran through a thread */
	DIAG_WAITED_ON,		/* a kind of wait (crit_cat), no thread */
};

struct diag_cause {
	enum diag_cause_kind kind;
	size_t nworst;			/* the upstream actor's worst trusted major breaks weighed (<= DIAG_WORST) */
	size_t worst[DIAG_WORST];	/* them: indices into critical_result.breaks, worst first */
	/* HELD, CULPRIT, RELEASE: how many of the nworst it explains, what it cost them */
	size_t count;
	int64_t total_ns;		/* the sum: told times (HELD), excesses (CULPRIT), the release's excess */
	int64_t min_ns, max_ns;		/* their range over the count breaks */
	/* HELD */
	enum holdup_why why;		/* HOLDUP_IN_CALL, HOLDUP_KERNEL or HOLDUP_CPU_IDLE */
	uint32_t call_nr;		/* HOLDUP_NO_CALL outside a recorded call */
	const char *state;		/* holdup__state(): "blocked", "asleep", "throttled" */
	/* CULPRIT */
	enum diag_culprit_how how;
	uint32_t thread;		/* timeline thread, CRIT_NONE for a kind of wait */
	int64_t named_at_ns;		/* when its name (timeline__comm_at) is the one that recurs */
	size_t threads;			/* distinct threads of that name among the count breaks */
	/* CULPRIT without a thread: the kind of wait; RELEASE: the release */
	uint8_t cat;			/* enum crit_cat */
	uint16_t sub;
};

/* What the third answer quotes. */
enum diag_patterns_kind {
	DIAG_PATTERNS_NOT_ANALYSED,	/* no pattern result */
	DIAG_PATTERNS_NONE,		/* nothing sets the breaks apart */
	DIAG_PATTERNS_SKIPPED,		/* not searched: patterns_cannot_pay() */
	DIAG_PATTERNS_FOUND,
};

struct diag_patterns {
	enum diag_patterns_kind kind;
	bool searched;			/* the search ran (patterns_result.status NULL) */
	size_t shown[DIAG_PATTERNS];	/* indices into patterns_result.v, best first */
	size_t nshown;
	uint32_t periods;		/* the periods that held, mined (patterns_result.nneg) */
};

struct diagnosis {
	enum diag_answer answer;
	enum diag_verdict verdict;
	size_t nactors, nperiodic;
	double qcod_threshold;		/* the one periodicity was judged by */
	struct actors_cut min_late;	/* the cut between major breaks and jitter (actor.h) */
	/* Every periodic actor, the latest (worst_ns over its period) first. */
	struct diag_rhythm *rhythm;
	size_t nrhythm;

	/* DIAG_UPSTREAM */
	size_t upstream;		/* index into actors_result.v */
	size_t breaks;			/* its trusted major breaks */
	int64_t worst_ns;		/* the latest of them */
	size_t jitter;			/* its trusted breaks of jitter */
	int64_t worst_jitter_ns;	/* the latest of those, 0 if none */
	bool downstream_checked;	/* <= DIAG_MAX_FOLLOWED actors: rows' downstream fields are set */
	struct diag_actor *rows;	/* the breaking actors, upstream included */
	size_t nrows;
	long own_worst;			/* the row on_its_own with the latest break, or -1 */
	struct diag_cause cause;
	struct diag_patterns patterns;
};

/*
 * The diagnosis of a's results (a->actors, a->critical, a->patterns over
 * a->tl; a->opts.qcod_threshold). a->actors may be NULL (DIAG_NO_ACTOR),
 * as may the others (their answer is NOT_ANALYSED). The result borrows
 * nothing it does not index. 0 or -ENOMEM; *out is freed with
 * diagnosis__free().
 */
int diagnosis__compute(const struct analysis *a, struct diagnosis **out);
void diagnosis__free(struct diagnosis *d);

#endif
