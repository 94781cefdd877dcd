/* SPDX-License-Identifier: MIT */
/*
 * The progress graph the plain way (tests/unit/progress/test_progress.c
 * compares src/progress/ with it): every instant of a pair whose times
 * are whole ticks classified on its own by the definitions of
 * docs/ALGORITHMS.md §8.2, the rays grouped from the instants, Q3 counted
 * instant by instant, and the steady cycle (§8.5) by trying every start.
 * Quadratic; for small inputs.
 */
#ifndef QT_PROGRESS_REF_H
#define QT_PROGRESS_REF_H

#include "progress/progress.h"

/*
 * *out as progress_compute() would make it (rays, blocks, complete,
 * q3_trailing, d_ns, dead_at, deadlock, anomalies, cycle; not the
 * departures or the per-thread statistics), for an input whose every time
 * is a multiple of tick. Free with progress_release(). 0 or -ENOMEM.
 */
int progress_ref_compute(const struct pg_input *in, int64_t tick, struct progress *out);

#endif
