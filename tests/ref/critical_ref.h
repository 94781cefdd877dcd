/* SPDX-License-Identifier: MIT */
/*
 * The references the critical-path stage's shortcuts are tested against
 * (tests/unit/critical/test_critical.c): the stage over a recording with
 * any of its steps replaced by the plain way of doing it. Each gives the
 * same result as the stage, in more time or memory.
 */
#ifndef QT_CRITICAL_REF_H
#define QT_CRITICAL_REF_H

#include "critical/critical.h"

enum critical_ref {
	/*
	 * With wakeups, judge every pair proposed within eps one by one
	 * instead of counting them: the same graph and statistics, in time
	 * proportional to the proposals (~40 per task in a storm).
	 */
	CRITICAL_REF_EPS_EACH = 1 << 0,
	/*
	 * Run Algorithm 1 in full (cpa__run) instead of reading the earliest
	 * starts off the observed ones (cpa__observed): the same results, 20
	 * bytes more per task; -EPROTO if an earliest start is not the
	 * observed one.
	 */
	CRITICAL_REF_FULL_CPA = 1 << 1,
	/*
	 * Walk an invocation's path, its reference window (for the breaks'
	 * culprits) and a break's path one after the other instead of in one
	 * walk: the same results, twice the steps (a 15 s storm: 32 M instead
	 * of 15 M).
	 */
	CRITICAL_REF_SEPARATE_WALKS = 1 << 2,
};

/* critical__analyse with the steps refs (enum critical_ref, or'ed) replaced by their references. */
int critical_ref_analyse(const struct timeline *tl, const struct actors_result *ar, const struct critical_opts *o,
			 unsigned refs, struct critical_result **out);

#endif
