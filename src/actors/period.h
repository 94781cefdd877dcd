/* SPDX-License-Identifier: MIT */
/*
 * Period, dispersion and period breaks of one actor from its invocation
 * times (SATM §4.2, docs/ALGORITHMS.md §3.2-3.3), and the split of the trace into
 * windows that respect the period (D_neg) and breaks (D_pos).
 *
 * Intervals o_k = t[k+1] - t[k]. Period = median interval; QCoD with
 * nearest-rank quartiles; periodic when QCoD < threshold; a break is an
 * interval strictly above Q3 + 1.5 (Q3 - Q1), tested exactly in integers.
 */
#ifndef QT_PERIOD_H
#define QT_PERIOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERIOD_DEFAULT_QCOD_THRESHOLD 0.10

/* Zero-initialised (or a NULL pointer) means the defaults. */
struct period_opts {
	double qcod_threshold;	/* periodic iff QCoD < this; <= 0: 0.10 */
};

struct period_stats {
	size_t n_invocations;
	size_t n_intervals;	/* n_invocations - 1, or 0 */
	bool has_intervals;	/* n_intervals >= 1; the fields below are 0 otherwise */
	double period_ns;	/* median interval (mean of the middle pair, even n) */
	int64_t q1_ns;		/* nearest-rank quartiles of the intervals */
	int64_t q3_ns;
	double qcod;		/* (Q3 - Q1) / (Q3 + Q1) */
	double fence_ns;	/* Q3 + 1.5 (Q3 - Q1), for display */
	bool periodic;		/* has_intervals && qcod < threshold */
	size_t n_breaks;	/* intervals above the fence */
};

struct period_break {
	size_t before;		/* invocation index before the break (0-based) */
	size_t late;		/* the late invocation: before + 1 */
	int64_t interval_ns;	/* t[late] - t[before] */
	double lateness_ns;	/* interval - period */
};

/*
 * Analyses invocation times t[0..n) (non-decreasing). Breaks are found
 * whether or not the actor is periodic (SATM only looks for them when it
 * is: check st->periodic). breaks[] may be NULL (only counted) or hold
 * n - 1 entries; they come in time order. scratch (n - 1 int64, not
 * overlapping t) may be NULL (then allocated inside).
 * N <= 1: no intervals, not periodic. N == 2: one interval, QCoD 0, periodic,
 * never a break (the fence equals Q3).
 * Returns 0, -EINVAL or -ENOMEM.
 */
int period_analyse(const int64_t *t, size_t n, const struct period_opts *opts,
		   struct period_stats *st, struct period_break *breaks,
		   int64_t *scratch);

/* One subtrace window of the split, in time order. */
struct period_window {
	int64_t start_ns;
	int64_t end_ns;
	bool end_closed;	/* [start, end] (the last one), else [start, end) */
	bool positive;		/* D_pos: the interval is a break */
	size_t before;		/* invocation at start_ns; SIZE_MAX for the first window */
};

/*
 * Splits [trace_start, trace_end] at the invocations: [trace_start, t[0]),
 * [t[k], t[k+1]) for each interval (positive when it is a break by the
 * quartiles in st), and [t[n-1], trace_end]. Half-open windows put every
 * event in exactly one window, the invocation event opening its window.
 * Writes n + 1 windows (none when n == 0) to out[] (room for n + 1) and
 * their number to *n_out. st must come from period_analyse() on the same t.
 * Returns 0 or -EINVAL (trace_start > t[0], trace_end < t[n-1], ...).
 */
int period_split(const int64_t *t, size_t n, const struct period_stats *st,
		 int64_t trace_start, int64_t trace_end,
		 struct period_window *out, size_t *n_out);

#endif
