/* SPDX-License-Identifier: MIT */
/*
 * Occurrences -> invocations (SATM §4.1, docs/ALGORITHMS.md §1.4).
 *
 * Input: one actor's run fragments in time order. Two steps:
 *  1. exact: a fragment that continues (ended PREEMPTED, still runnable, or
 *     in a wait the caller knows is not a release) continues into the next
 *     fragment; the resulting runs of fragments are "segments";
 *  2. the start times of the segments are clustered by SATM's procedure:
 *     Cooper novelty (K = mean gap, L = 2, sigma = 1), Otsu's threshold on
 *     all n scores, segment 1 always starts an invocation, and a guard that
 *     keeps "every segment is an invocation" unless the Otsu clustering has a
 *     strictly smaller QCoD of its inter-invocation intervals.
 *
 * Cost per actor: O(n L) for the novelty plus O(n log n) for Otsu's sort;
 * memory linear in n, held in a reusable workspace.
 */
#ifndef QT_INVOCATIONS_H
#define QT_INVOCATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct invoc_fragment {
	int64_t start_ns;
	int64_t end_ns;
	/*
	 * The next fragment continues this invocation (exact, never a
	 * boundary): it left the CPU still runnable, or, for the actors
	 * stage, in a wait that is not how the actor is released (actor.h).
	 */
	bool continues;
};

struct invocation {
	size_t first;		/* index of its first fragment */
	size_t last;		/* index of its last fragment (inclusive) */
	int64_t start_ns;	/* first fragment's start: the invocation time */
	int64_t end_ns;		/* last fragment's end: the completion */
};

/* Zero-initialised (or a NULL pointer) means SATM's defaults. */
struct invocations_opts {
	double k_ns;		/* similarity constant; 0: mean gap (t_n - t_1)/(n - 1) */
	unsigned int l;		/* kernel half-width; 0: 2 */
	double sigma;		/* taper; 0: l / 2 */
	bool no_guard;		/* true: plain Otsu, as in the paper */
	/*
	 * Not in SATM nor docs/ALGORITHMS.md; 0 (off) keeps its §1.4 exact. When > 0,
	 * an item that the Otsu candidate merges into the previous invocation
	 * starts one after all if its gap to the previous item exceeds
	 * max_gap_frac x the median gap in front of the candidate's
	 * invocation starts: a pause inside an invocation must be clearly
	 * shorter than the pauses between invocations. Applied before the
	 * guard. 0.5 repairs two failures of the guard on jittered actors
	 * with one run per period (tests/unit/actors/test_invocations.c): the zero-padding
	 * edge merges of items 2 and n (about half of the actors), and the
	 * collapse into "one invocation per break" when breaks recur
	 * regularly. Cost: more splits when voluntary sleeps inside an
	 * invocation approach half the gap between invocations.
	 */
	double max_gap_frac;
};

/* How the clustering decided, for diagnostics and tests. */
enum invocations_rule {
	INVOC_RULE_FEW = 0,	/* n <= 2: every item separate */
	INVOC_RULE_SAME_TIME,	/* all timestamps equal: one invocation */
	INVOC_RULE_OTSU,	/* the Otsu candidate was kept */
	INVOC_RULE_ALL,		/* every item separate (guard, or equal scores) */
};

struct invocations_info {
	size_t n_items;		/* items clustered (segments, for _build) */
	enum invocations_rule rule;
	double k_ns;		/* K actually used (0 for FEW / SAME_TIME) */
	bool otsu_valid;	/* scores had >= 2 distinct values */
	double otsu_threshold;
	double otsu_eta;
	double qcod_otsu;	/* QCoD of the Otsu candidate (+inf: < 2 intervals) */
	double qcod_all;	/* QCoD of "all separate" */
	double gap_limit_ns;	/* max_gap_frac x median boundary gap, 0 if unused */
};

/* Reusable scratch memory: grows to the largest actor, freed by __free(). */
struct invocations_ws;

/* An empty workspace (it grows on use), or NULL when out of memory. */
struct invocations_ws *invocations_ws__new(void);
/* Frees ws and its arrays; NULL is fine. */
void invocations_ws__free(struct invocations_ws *ws);

/*
 * Clusters sorted (non-decreasing) timestamps t[0..n): writes the 0-based
 * indices of the cluster starts, ascending, to starts[] (room for n) and
 * their number to *n_starts. starts[0] == 0 when n > 0.
 * ws may be NULL (a temporary one is used); info may be NULL.
 * Returns 0, -EINVAL (NULL pointers, unsorted t, bad opts) or -ENOMEM.
 */
int invocations_cluster(const int64_t *t, size_t n,
			const struct invocations_opts *opts,
			struct invocations_ws *ws, size_t *starts,
			size_t *n_starts, struct invocations_info *info);

/*
 * Groups one actor's fragments f[0..n) (start_ns non-decreasing, end_ns >=
 * start_ns) into invocations: out[] needs room for n entries; *n_out gets
 * their number. ws and info as above (info describes the segment clustering).
 * Returns 0, -EINVAL or -ENOMEM.
 */
int invocations_build(const struct invoc_fragment *f, size_t n,
		      const struct invocations_opts *opts,
		      struct invocations_ws *ws, struct invocation *out,
		      size_t *n_out, struct invocations_info *info);

/*
 * Lends a workspace's arrays to the caller until its next call, so that a
 * caller studying an actor needs no copies of its own (8 bytes per
 * fragment each): after invocations_build(ws) on n fragments, seg[0..*nseg)
 * are the segments' start times as clustered, and seg and spare each have
 * room for n int64. Both may be written.
 */
void invocations_ws__lend(struct invocations_ws *ws, int64_t **seg, size_t *nseg, int64_t **spare);

#endif
