// SPDX-License-Identifier: MIT
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "period.h"
#include "stats/quartiles.h"

int period_analyse(const int64_t *t, size_t n, const struct period_opts *opts,
		   struct period_stats *st, struct period_break *breaks,
		   int64_t *scratch)
{
	double thr = PERIOD_DEFAULT_QCOD_THRESHOLD;
	struct quartiles q;
	int64_t *iv = scratch;
	size_t m;
	int err;

	if (!st || (n > 0 && !t))
		return -EINVAL;
	if (opts && isnan(opts->qcod_threshold))
		return -EINVAL;
	if (opts && opts->qcod_threshold > 0)
		thr = opts->qcod_threshold;
	for (size_t i = 1; i < n; i++)
		if (t[i] < t[i - 1])
			return -EINVAL;

	memset(st, 0, sizeof(*st));
	st->n_invocations = n;
	if (n < 2)
		return 0;

	m = n - 1;
	if (!iv) {
		iv = malloc(m * sizeof(*iv));
		if (!iv)
			return -ENOMEM;
	}
	for (size_t k = 0; k < m; k++)
		iv[k] = t[k + 1] - t[k];
	err = quartiles_compute_inplace(iv, m, &q);
	if (iv != scratch)
		free(iv);
	if (err)
		return err;

	st->n_intervals = m;
	st->has_intervals = true;
	st->period_ns = q.median;
	st->q1_ns = q.q1;
	st->q3_ns = q.q3;
	st->qcod = quartiles_qcod(q.q1, q.q3);
	st->fence_ns = quartiles_upper_fence(q.q1, q.q3);
	st->periodic = st->qcod < thr;

	/* The intervals again from t: the scratch copy was reordered. */
	for (size_t k = 0; k < m; k++) {
		int64_t o = t[k + 1] - t[k];

		if (!quartiles_is_outlier(o, q.q1, q.q3))
			continue;
		if (breaks) {
			struct period_break *b = &breaks[st->n_breaks];

			b->before = k;
			b->late = k + 1;
			b->interval_ns = o;
			b->lateness_ns = (double)o - q.median;
		}
		st->n_breaks++;
	}
	return 0;
}

int period_split(const int64_t *t, size_t n, const struct period_stats *st,
		 int64_t trace_start, int64_t trace_end,
		 struct period_window *out, size_t *n_out)
{
	if (!st || !n_out || (n > 0 && (!t || !out)))
		return -EINVAL;
	*n_out = 0;
	if (n == 0)
		return 0;
	if (st->n_invocations != n || trace_start > t[0] || trace_end < t[n - 1])
		return -EINVAL;
	for (size_t i = 1; i < n; i++)
		if (t[i] < t[i - 1])
			return -EINVAL;

	out[0] = (struct period_window){
		.start_ns = trace_start, .end_ns = t[0], .before = SIZE_MAX,
	};
	for (size_t k = 0; k + 1 < n; k++) {
		out[k + 1] = (struct period_window){
			.start_ns = t[k],
			.end_ns = t[k + 1],
			.positive = st->has_intervals &&
				    quartiles_is_outlier(t[k + 1] - t[k],
							 st->q1_ns, st->q3_ns),
			.before = k,
		};
	}
	out[n] = (struct period_window){
		.start_ns = t[n - 1], .end_ns = trace_end, .end_closed = true,
		.before = n - 1,
	};
	*n_out = n + 1;
	return 0;
}
