// SPDX-License-Identifier: MIT
/* Functions on one actor (src/actors/actor.h). */
#include <stdlib.h>

#include "internal.h"

/*
 * period_split() over the invocations, with the breaks for its positive
 * windows: they are the intervals it would mark, and only a periodic
 * actor has them.
 */
void actor_windows(const struct actor *a, const struct timeline *tl, struct period_window *out)
{
	const struct actor_invocation *inv = a->inv;
	size_t n = a->ninv, b = 0;

	if (!n)
		return;
	out[0] = (struct period_window){
		.start_ns = (int64_t)tl->start < inv[0].start_ns ? (int64_t)tl->start : inv[0].start_ns,
		.end_ns = inv[0].start_ns,
		.before = SIZE_MAX,
	};
	for (size_t k = 0; k + 1 < n; k++) {
		while (b < a->nbreaks && actor_break_window(&a->breaks[b]) < k)
			b++;
		out[k + 1] = (struct period_window){
			.start_ns = inv[k].start_ns,
			.end_ns = inv[k + 1].start_ns,
			.positive = b < a->nbreaks && actor_break_window(&a->breaks[b]) == k,
			.before = k,
		};
	}
	out[n] = (struct period_window){
		.start_ns = inv[n - 1].start_ns,
		.end_ns = (int64_t)tl->end > inv[n - 1].start_ns ? (int64_t)tl->end : inv[n - 1].start_ns,
		.end_closed = true,
		.before = n - 1,
	};
}

void actor_release(struct actor *a)
{
	free(a->inv);
	free(a->breaks);
	a->inv = NULL;
	a->breaks = NULL;
}
