/* SPDX-License-Identifier: MIT */
/*
 * miner: minimal gap-constrained emerging sequential patterns (ConSGapMiner as
 * used by SATM §5; docs/ALGORITHMS.md §4 is the specification).
 *
 * Input: two sets of sequences of integer symbol ids, D_pos (subtraces where
 * the period broke) and D_neg (subtraces where it held). Output: every pattern
 * P with count_pos(P, g) >= min_pos and count_neg(P, g) <= max_neg that has no
 * proper (ordinary) subsequence with the same property.
 *
 * P is contained in T with gap g (P ⊑_g T) when P's symbols occur in T at
 * increasing positions with at most g events skipped between consecutive ones
 * (g = 0: contiguous); with gap_min, at least gap_min events are skipped.
 *
 * Thresholds are integers in parts per million (ppm.h: PPM_PCT(94) = 94 %), so
 * the counts are exact: min_pos = max(1, ceil(delta_ppm * |D_pos| / 1e6)),
 * max_neg = floor(alpha_ppm * |D_neg| / 1e6). Percent and per-mille values,
 * the only ones people type, are represented exactly; no float is involved.
 * min_pos is at least 1: a pattern that occurs in no broken subtrace explains
 * nothing.
 *
 * The search is bounded (see struct miner_opts). Every bound that actually cut
 * the search is reported in miner_result.bounds (never silently); a result
 * with bounds == 0 is the exact answer. What a cut result still guarantees is
 * complete_len: every minimal emerging pattern of length <= complete_len is
 * in the result.
 *  - MAX_LEN: pos-frequent, non-emerging patterns of length max_len had
 *    extensions that were not examined. The result is exactly the minimal
 *    emerging patterns of length <= max_len (complete_len = max_len).
 *  - NODES or PATTERNS: a depth-first search cut by a budget has explored the
 *    subtrees of the smallest symbol ids only, an arbitrary bias. So the miner
 *    then searches again by iterative deepening (pattern length 1, 2, ...)
 *    with a fresh node budget (up to 2 * max_nodes in all) and returns the
 *    last length it completed plus the patterns one longer it found before the
 *    budget ran out: every reported pattern is a minimal emerging pattern,
 *    short ones first. If the deepening completes, the answer is exact and
 *    the bit is not reported. At most max_patterns are returned, shortest
 *    first.
 *  - TIME: the partial result of the search that ran out of time. Patterns
 *    are emerging; complete_len is 0 and, if the first search was cut, a
 *    pattern may be non-minimal (its minimal subpattern lay in the cut part).
 *  - SEQ_LEN: the answer (and the other bits) are about the cut sequences.
 *
 * Everything is deterministic for a given input, unless the time budget cuts:
 * the output does not depend on the order of symbol ids' first appearance or
 * of the sequences, and patterns come sorted by length, then by symbol ids.
 */
#ifndef QT_MINER_H
#define QT_MINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ppm.h"

/* One sequence: @len symbol ids, any uint32_t values. */
struct miner_seq {
	const uint32_t *sym;
	uint32_t len;
};

enum miner_bound {
	MINER_BOUND_MAX_LEN	= 1u << 0,	/* longer pos-frequent extensions were not examined */
	MINER_BOUND_NODES	= 1u << 1,	/* node budget spent */
	MINER_BOUND_TIME	= 1u << 2,	/* time budget spent */
	MINER_BOUND_PATTERNS	= 1u << 3,	/* more emerging patterns than max_patterns */
	MINER_BOUND_SEQ_LEN	= 1u << 4,	/* some sequences were cut to max_seq_len */
};

struct miner_opts {
	uint32_t delta_ppm;	/* min support in D_pos; default 100 % */
	uint32_t alpha_ppm;	/* max support in D_neg; default 0 % */
	uint32_t gap_max;	/* g: max skipped events; default 2 (SATM's industrial case) */
	uint32_t gap_min;	/* g_min: min skipped events; default 0 */
	uint32_t max_len;	/* longest pattern searched; default 8; 0 = no limit */
	uint64_t max_nodes;	/* node expansions per search phase; default 100,000;
				 * 0 = no limit. A node costs O(occurrences of its
				 * pattern * (g+1)): ~10-80 us on 1000 x 2000 events */
	int64_t time_budget_ns;	/* default 0 = no limit (the node budget is the
				 * deterministic bound; this is a safety net) */
	uint32_t max_patterns;	/* patterns recorded and reported; default 1000; 0 = no limit */
	uint32_t max_seq_len;	/* keep only the first N events of longer sequences;
				 * default 0 = keep all. Used when the data is built. */
	bool deepen;		/* default false: search by iterative deepening from
				 * the start (see above); for inputs known to exceed
				 * the node budget, saves the first, cut, search */
	bool any;		/* default false: only whether some pattern emerges.
				 * The search stops at the first one it records:
				 * npatterns is 1 (some emerge, not all are listed)
				 * or 0 (none, exactly so unless bounds has NODES,
				 * TIME or PATTERNS) */
};

/* Fill @o with the defaults above. Always start from these: 0 is a meaningful
 * value for several fields (alpha, gaps, limits). */
void miner_opts_default(struct miner_opts *o);

struct miner_pattern {
	uint32_t len;
	uint32_t pos_count;	/* sequences of D_pos that contain it (gap-constrained) */
	uint32_t neg_count;	/* same in D_neg */
	const uint32_t *sym;	/* @len symbol ids (the caller's), owned by the result */
};

struct miner_result {
	struct miner_pattern *patterns;	/* sorted by length, then symbol ids */
	uint32_t npatterns;
	uint32_t npos, nneg;		/* |D_pos|, |D_neg| */
	uint32_t min_pos, max_neg;	/* the thresholds as counts */
	uint32_t nsymbols;		/* distinct symbols in D_pos and D_neg */
	uint32_t nsymbols_frequent;	/* symbols with pos count >= min_pos */
	unsigned bounds;		/* enum miner_bound bits that cut the search */
	uint32_t complete_len;		/* every minimal emerging pattern up to this
					 * length is in patterns (see above) */
	uint32_t nseq_truncated;	/* sequences cut to max_seq_len */
	uint64_t nodes;			/* node expansions (patterns whose children
					 * were counted), all search phases */
	uint64_t nrecorded;		/* emerging patterns recorded before the minimality pass */
	uint32_t nchance;		/* minimal ones left out as chance (miner_data__set_lengths);
					 * at alpha 0, of those the search met */
	uint64_t work;			/* sequence positions visited: the cost measure */
	int64_t elapsed_ns;
	struct miner_opts opts;		/* the options used */
};

struct miner_data;

/*
 * Index D_pos and D_neg once (dense symbol ids); several searches can then run
 * on it, concurrently too (searches only read it). Uses opts->max_seq_len
 * (NULL: defaults). |D_pos| >= 1 (-EINVAL otherwise); |D_neg| may be 0. The
 * caller's arrays are copied: they need not outlive the call.
 * Returns 0 and *out (miner_data__free()), -EINVAL, -E2BIG (2^32 events or
 * more per side) or -ENOMEM.
 */
int miner_data__new(const struct miner_seq *pos, uint32_t npos,
		    const struct miner_seq *neg, uint32_t nneg,
		    const struct miner_opts *opts, struct miner_data **out);
/* Frees the index; NULL is fine. No search may still be running on it. */
void miner_data__free(struct miner_data *d);
/* Distinct symbols in D_pos and D_neg. */
uint32_t miner_data__nsymbols(const struct miner_data *d);
/* |D_pos| and |D_neg|. */
uint32_t miner_data__npos(const struct miner_data *d);
uint32_t miner_data__nneg(const struct miner_data *d);
/* Sequences cut to opts->max_seq_len when the index was built. */
uint32_t miner_data__nseq_truncated(const struct miner_data *d);

/*
 * The length of each window the sequences were cut from (ns, >= 0, in the
 * order given to miner_data__new, each side's own array, copied): from then on max_neg
 * takes them into account (chance.h: a pattern emerges only if the breaks'
 * windows hold it more often than their length alone explains), for every
 * search of d. Without it, the counts above. At alpha 0 a search then does
 * not extend a pattern whose every extension would be left out as chance
 * (chance__longer_than_kept()): the answer is the same, MAX_LEN is set only
 * where a pattern that could be reported was cut, and the node count is of
 * the rest. Returns 0, -EINVAL or -ENOMEM.
 */
int miner_data__set_lengths(struct miner_data *d, const int64_t *pos_ns, const int64_t *neg_ns);
/* max_neg of a search at alpha_ppm: the header's formula, or chance__max_neg(). */
uint32_t miner_data__max_neg(const struct miner_data *d, uint32_t alpha_ppm);
/*
 * The D_pos count the pattern sym[0..len) (caller's ids), found in neg_count
 * of D_neg, has by chance: neg_count |D_pos| / |D_neg|; once lengths are
 * set, the larger of chance__expected(neg_count) and, for two events or
 * more, chance__items() of its events. With lengths, a search's max_neg
 * bounds the first by alpha |D_pos|, and of its minimal emerging patterns
 * it reports only those whose second is within that bound too (the others
 * are counted in nchance); opts.any answers without the second test.
 */
double miner_data__chance(const struct miner_data *d, const uint32_t *sym, uint32_t len, uint32_t neg_count);
/* Whether a chance count is above the plain proportion neg_count |D_pos| / |D_neg|. */
bool miner_data__beyond_plain(const struct miner_data *d, uint32_t neg_count, double chance);
/*
 * A pattern's score, supp_pos - supp_neg (miner_auto.h), supp_neg its
 * chance support chance / |D_pos| where miner_data__beyond_plain(), else
 * exactly neg_count / |D_neg|.
 */
double miner_data__score(const struct miner_data *d, uint32_t pos_count, uint32_t neg_count, double chance);

/*
 * Run the miner on @d (opts NULL: defaults; opts->max_seq_len is ignored
 * here). Only reads @d. Returns 0 and *out (miner_result__free()), -EINVAL
 * (delta or alpha above 100 %, gap_min > gap_max, a negative time budget)
 * or -ENOMEM.
 */
int miner_data__mine(const struct miner_data *d, const struct miner_opts *opts,
		     struct miner_result **out);

/* miner_data__new() + miner_data__mine() + miner_data__free(): their errors, *out as the second's. */
int miner_mine(const struct miner_seq *pos, uint32_t npos,
	       const struct miner_seq *neg, uint32_t nneg,
	       const struct miner_opts *opts, struct miner_result **out);

/* Frees a result and its patterns' symbols; NULL is fine. */
void miner_result__free(struct miner_result *r);

/*
 * "search truncated at max pattern length 8, node budget 100000" for the bits
 * of @bounds, using the limits in @opts (NULL: the defaults); "" when
 * bounds == 0. Writes at most @size bytes, NUL included; returns the
 * snprintf-style length.
 */
int miner_bounds_describe(unsigned bounds, const struct miner_opts *opts, char *buf, size_t size);

/* Same for a result, adding what is still complete: "search truncated at node
 * budget 100000; complete for patterns up to length 3". */
int miner_result__describe_bounds(const struct miner_result *r, char *buf, size_t size);

/*
 * The thresholds as counts, exactly as the miner computes them (above):
 * min_pos = max(1, ceil(delta |D_pos|)), max_neg = floor(alpha |D_neg|),
 * for delta and alpha of at most PPM_ONE.
 */
uint32_t miner_min_pos(uint32_t delta_ppm, uint32_t npos);
uint32_t miner_max_neg(uint32_t alpha_ppm, uint32_t nneg);

#endif
