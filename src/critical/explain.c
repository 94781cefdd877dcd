// SPDX-License-Identifier: MIT
/* What tells the story of a break: its path, or the holdup its actor stored (critical.h). */
#include "actors/actors.h"
#include "actors/holdup.h"
#include "critical.h"

bool critical__break_holdup(const struct actors_result *ar, const struct crit_break *b, struct holdup *h)
{
	const struct actor *ac;
	const struct crit_share *c = &b->culprit;

	if (!ar || b->actor >= ar->n)
		return false;
	ac = &ar->v[b->actor];
	*h = ac->breaks[b->brk].held;
	if (h->why == HOLDUP_NONE)
		return false;
	/* Another thread the path blames stays the answer: a lock holder, a hog. */
	if (b->release_excess_ns <= b->excess_ns && c->ns && c->thread != CRIT_NONE && c->thread != ac->thread)
		return false;
	return true;
}
