/* SPDX-License-Identifier: MIT */
/*
 * The reference the precedence graph's sorted scan (src/critical/
 * precedence.c) is tested against: Algorithm 4 literally, over every pair
 * of tasks.
 */
#ifndef QT_PRECEDENCE_REF_H
#define QT_PRECEDENCE_REF_H

#include <stddef.h>

#include "critical/precedence.h"

/*
 * Algorithm 4 literally, O(n^2). Same graph (as a set of edges with lags,
 * kinds and categories) and the same errors as prec_graph__build(); the
 * hook is called in another order and the topological order is Kahn's.
 */
int precedence_ref_build(const struct prec_task *tasks, size_t n, const struct prec_opts *opts,
			 struct prec_graph **out);

#endif
