/* SPDX-License-Identifier: MIT */
/*
 * miner_auto: choose ConSGapMiner's thresholds automatically.
 *
 * SATM asks the user to start at delta = 100 %, alpha = 0 % and relax by hand
 * until relevant sequences appear (SATM §6.1.2). This does the relaxing: it runs
 * the miner on a grid of (delta, alpha) points, walking the grid by rounds of
 * equal total relaxation, and stops after the first round in which some run
 * reports a pattern (or when the grid reaches the floor delta >= 50 %, the
 * ceiling alpha <= 25 %, or the total time budget).
 *
 *   delta grid: 100 98 96 94 92 90 85 80 75 70 65 60 55 50 45 40 30 20 10 %
 *   alpha grid:   0  1  2  3  4  6  8 10 12 15 20 25 30 40 50 %
 *   round r = {(delta[i], alpha[j]) : i + j = r}, run in order of i.
 *
 * The grid is fine near the strict corner, where SATM's examples find their
 * targets (94 %/3 % industrial, 82-92 %/2-12 % GStreamer), and coarse further
 * out. Rounds treat a step of delta and a step of alpha alike, so neither
 * threshold is relaxed far while the other stays strict. Points whose counts
 * (min_pos, max_neg) equal an earlier run's give the same answer and are not
 * run again. When round 0 finds nothing, the loosest point (the corner) is
 * asked next whether any pattern emerges there (miner_opts.any): whether
 * anything emerges is monotone over the grid, so an exact no ends the walk
 * (that run is listed, with the corner's round); a yes is dropped and the
 * walk goes on as if it had not been asked.
 *
 * Patterns of the final round are merged (a pattern reported by several runs
 * is listed once, with the first run that reported it) and ranked by
 *   score = supp_pos - supp_neg         (higher first)
 * where, once the data has the windows' lengths (miner_data__set_lengths),
 * supp_neg is the chance support of chance.h when that is larger: the
 * proportion of breaks' windows the pattern would be in by their length
 * alone. The grid's max_neg is miner_data__max_neg() alike.
 * then shorter, then higher pos count, then lower neg count, then earlier
 * run, then symbol ids. supp_pos - supp_neg is the rule "pattern present ->
 * period broken"'s true-positive rate minus false-positive rate (Youden's J):
 * 1 is perfect separation, 0 is no information. Unlike the growth rate
 * supp_pos / supp_neg it does not go to infinity for every pattern absent
 * from D_neg however few broken subtraces it explains, and unlike counts it
 * does not depend on |D_pos| : |D_neg| (breaks are rare, so D_neg dominates).
 * Shorter first follows SATM's own reason for minimal patterns: concise is
 * easier to analyse.
 */
#ifndef QT_MINER_AUTO_H
#define QT_MINER_AUTO_H

#include <stdbool.h>
#include <stdint.h>

#include "miner.h"

struct miner_auto_opts {
	struct miner_opts base;	/* gaps and per-run bounds; delta/alpha only if fixed */
	bool fix_delta;		/* search alpha only, at base.delta_ppm */
	bool fix_alpha;		/* search delta only, at base.alpha_ppm */
	uint32_t delta_floor_ppm;	/* lowest delta tried; default 50 % */
	uint32_t alpha_ceil_ppm;	/* highest alpha tried; default 25 % */
	int64_t total_time_budget_ns;	/* all runs together; default 60 s, 0 = none.
					 * Per run, base.max_nodes is the bound. */
};

/* Fills @o with the defaults above (base: miner_opts_default()). */
void miner_auto_opts_default(struct miner_auto_opts *o);

struct miner_auto_pattern {
	uint32_t len;
	const uint32_t *sym;	/* caller's symbol ids, owned by the result */
	uint32_t pos_count, neg_count;
	uint32_t delta_ppm, alpha_ppm;	/* the first grid point that reported it */
	uint32_t run;		/* index of that run in miner_auto_result.runs */
	uint32_t nruns;		/* runs of the final round that reported it */
	double chance;		/* miner_data__chance() */
	double score;		/* miner_data__score() */
};

struct miner_auto_run {
	uint32_t delta_ppm, alpha_ppm;
	uint32_t min_pos, max_neg;
	uint32_t round;
	uint32_t npatterns;	/* minimal emerging patterns reported */
	unsigned bounds;	/* enum miner_bound bits that cut this run */
	uint32_t complete_len;	/* see miner_result.complete_len */
	uint64_t nodes;
	int64_t elapsed_ns;
};

struct miner_auto_result {
	struct miner_auto_pattern *patterns;	/* ranked, best first */
	uint32_t npatterns;
	struct miner_auto_run *runs;		/* in the order they ran */
	uint32_t nruns;
	uint32_t npos, nneg;
	bool found;		/* some run reported a pattern */
	uint32_t round;		/* the last round run */
	unsigned bounds;	/* union of the runs' bounds, and MINER_BOUND_TIME
				 * if the total budget stopped the search */
	int64_t elapsed_ns;
	struct miner_auto_opts opts;	/* the options used */
};

/*
 * Walks the grid on @d (opts NULL: defaults), only reading @d. Returns 0 and
 * *out (miner_auto_result__free()), -EINVAL (thresholds above 100 %, a
 * negative budget, gap_min > gap_max) or -ENOMEM.
 */
int miner_auto_run(const struct miner_data *d, const struct miner_auto_opts *opts,
		   struct miner_auto_result **out);
/* Frees a result and its patterns' symbols; NULL is fine. */
void miner_auto_result__free(struct miner_auto_result *r);

#endif
