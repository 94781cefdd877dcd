/* SPDX-License-Identifier: MIT */
/*
 * How many of the breaks' windows a pattern would be in by their length
 * alone: the control that keeps background activity from "emerging".
 *
 * A break's window lasts its period plus its lateness, so it holds more of
 * everything by chance. Measured on a periodic thread throttled by a cgroup
 * quota (10 ms period, windows of breaks up to 70 ms): a sandbox process's
 * 50 ms timer was in 28 of 29 breaks against 66 of 485 kept periods, and the
 * miner named it as what shows up when the period breaks. It was there only
 * because the windows were seven times as long.
 *
 * The model: activity unrelated to the breaks lands in a window of length L
 * with probability min(1, r L). That is exact for a periodic timer at a
 * random phase (a timer of period T is in a window of length L with
 * probability min(1, L/T)); for bursty or random activity it errs high, so
 * the control can only make the miner stricter. The rate r of an activity
 * found in neg_count windows of D_neg is the one under which D_neg would
 * hold it that often: sum_j min(1, r l_j) = neg_count (a window far longer
 * than the activity's period, such as the stretch before the actor's first
 * invocation, counts once, as it is counted). The chance count in D_pos is
 *   chance(neg_count) = max( neg_count * |D_pos| / |D_neg|,  sum_i min(1, r L_i) )
 * (the first term: never less than the plain proportion, so breaks' windows
 * shorter than the kept ones loosen nothing). With windows of one length
 * it is the plain proportion, and the thresholds below are exactly
 * ConSGapMiner's.
 *
 * A pattern of several events has a second chance count. The gap
 * constraint counts events, not time, so in a quiet window (a thread
 * throttled, its CPU idle) two unrelated timers 20 ms apart come out
 * adjacent; on the same throttled thread, "fstat by memfd:sealed-91 ->
 * softirq SCHED -> timer wakes periodic" (a second, unrelated timer) was
 * then in 18 of 29 breaks against 2 of 485 kept periods: its own count in
 * the kept periods says little about a window seven times as long. So a
 * window of D_pos longer than the kept ones (their median length l~)
 * holds the pattern by chance with probability
 *   min(1, neg_count / |D_neg| + max(0, prod_k min(1, r_k L_i) - prod_k min(1, r_k l~)))
 * where r_k is the rate of the pattern's k-th event alone: its share of
 * kept windows, plus what the longer window adds to the chance of holding
 * all its events at once (independently, as if order and gaps came free).
 * The sum over D_pos is chance__items(); with windows of one length it is
 * the plain proportion again. A pattern is taken to emerge only when
 * neither chance count explains its count in the breaks (miner.h).
 */
#ifndef QT_CHANCE_H
#define QT_CHANCE_H

#include <stdbool.h>
#include <stdint.h>

struct chance {
	uint32_t npos, nneg;
	bool timed;		/* D_neg has some length: else the plain proportions */
	double *pos;		/* D_pos windows' lengths, ascending */
	double *neg;		/* D_neg windows' lengths, ascending */
	double *neg_head;	/* neg_head[k] = sum of neg[0..k) */
};

/*
 * From the windows' lengths (ns, >= 0): npos >= 1 windows of D_pos and nneg
 * of D_neg. Returns 0, -EINVAL (a negative length, npos 0) or -ENOMEM. With
 * nneg 0, every chance count is 0; with D_neg of no length, the plain
 * proportion (nothing is known of rates).
 */
int chance__init(struct chance *c, const int64_t *pos_ns, uint32_t npos, const int64_t *neg_ns, uint32_t nneg);
/* Frees what chance__init() allocated (after a failed init too); @c can then be initialised again. */
void chance__free(struct chance *c);

/* The rate (per ns) of an activity found in neg_count of D_neg (above); INFINITY when in all. */
double chance__rate(const struct chance *c, uint32_t neg_count);

/* The count of D_pos windows a pattern in neg_count of D_neg is expected in by chance. */
double chance__expected(const struct chance *c, uint32_t neg_count);

/*
 * The largest neg_count whose chance support in D_pos, chance / |D_pos|, is at
 * most alpha (parts per million): ConSGapMiner's max_neg = floor(alpha |D_neg|)
 * with the windows' lengths taken into account, never above it.
 */
uint32_t chance__max_neg(const struct chance *c, uint32_t alpha_ppm);

/*
 * The second chance count above of a pattern of len events (their rates,
 * chance__rate() each) found in neg_count of D_neg. Windows are summed
 * longest first, stopping once the sum exceeds stop_above (that partial
 * sum is returned; pass INFINITY for all).
 */
double chance__items(const struct chance *c, const double *rates, uint32_t len, uint32_t neg_count,
		     double stop_above);

/*
 * Whether an activity of this rate (> 0) is more likely in the longest
 * window of D_pos than in the kept windows' median one: min(1, r L_max) >
 * min(1, r l~). Then every pattern holding it among events of rates > 0
 * has a chance__items() above 0, whatever its other events: in the longest
 * window each event's factor is at least as large as in the median one, and
 * this one's strictly. At alpha 0 such a pattern is chance, so the miner
 * does not extend one (miner.h). False for an activity common enough to be
 * in the median window for certain.
 */
bool chance__longer_than_kept(const struct chance *c, double rate);

#endif
