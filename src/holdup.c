// SPDX-License-Identifier: MIT
/*
 * The holdup of an invocation: its off-CPU gaps by kind, and the recorded
 * call that held the most of them. The rules are in include/holdup.h.
 */
#include <stdio.h>
#include <string.h>

#include "holdup.h"
#include "parse.h"
#include "qt_events.h"
#include "syscall_names.h"

/* The first of the thread's calls [lo, hi) that ends after ts. */
static size_t first_call_after(const struct tl_syscall *sc, size_t lo, size_t hi, uint64_t ts)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sc[mid].end <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Adds a gap of `ns` that ended a run with `state` to the four sums. */
static void add_gap(int64_t *runnable, int64_t *sleep, int64_t *blocked, uint8_t state, int64_t ns)
{
	if (state == QT_END_PREEMPTED)
		*runnable += ns;
	else if (state == QT_END_BLOCKED)
		*blocked += ns;
	else
		*sleep += ns;
}

void holdup__of_runs(const struct timeline *tl, size_t first, size_t last, struct holdup *h)
{
	const struct tl_thread *th;
	size_t c0, c1, j;
	/* The call being summed, and its sums. */
	size_t cur = SIZE_MAX;
	int64_t cur_run = 0, cur_sleep = 0, cur_blocked = 0;

	memset(h, 0, sizeof(*h));
	h->call_nr = HOLDUP_NO_CALL;
	if (first >= last || last >= tl->nruns)
		return;
	th = &tl->threads[tl->runs[first].thread];
	c0 = th->sc0;
	c1 = th->sc0 + th->nsc;
	j = first_call_after(tl->sc, c0, c1, tl->runs[first].end);
	for (size_t i = first; i < last; i++) {
		const struct tl_run *r = &tl->runs[i];
		uint64_t g0 = r->end, g1 = tl->runs[i + 1].start;
		int64_t ns = g1 > g0 ? (int64_t)(g1 - g0) : 0;

		if (!ns)
			continue;
		add_gap(&h->runnable_ns, &h->sleep_ns, &h->blocked_ns, r->end_state, ns);
		while (j < c1 && tl->sc[j].end <= g0)
			j++;
		if (j >= c1 || tl->sc[j].start > g0)
			continue;
		if (j != cur) {
			cur = j;
			cur_run = cur_sleep = cur_blocked = 0;
		}
		/* A call never outlasts the next run's start by much; clip to it all the same. */
		if (tl->sc[j].end < g1)
			ns = (int64_t)(tl->sc[j].end - g0);
		add_gap(&cur_run, &cur_sleep, &cur_blocked, r->end_state, ns);
		if (cur_run + cur_sleep + cur_blocked > h->call_off_ns) {
			h->call_nr = tl->sc[j].nr;
			h->call_arg0 = tl->sc[j].arg0;
			h->call_start_ns = (int64_t)tl->sc[j].start;
			h->call_end_ns = (int64_t)tl->sc[j].end;
			h->call_off_ns = cur_run + cur_sleep + cur_blocked;
			h->call_sleep_ns = cur_sleep;
			h->call_blocked_ns = cur_blocked;
		}
	}
	h->off_ns = h->runnable_ns + h->sleep_ns + h->blocked_ns;
}

bool holdup__explains(const struct timeline *tl, const struct actor *ac, const struct actor_break *b,
		      struct holdup *h)
{
	const struct actor_invocation *inv;
	int64_t half = b->overrun_ns / 2;

	memset(h, 0, sizeof(*h));
	h->call_nr = HOLDUP_NO_CALL;
	if (!tl || ac->kind != ACTOR_THREAD || b->overrun_ns <= 0)
		return false;
	inv = &ac->inv[actor_break_target(b)];
	holdup__of_runs(tl, inv->first, inv->last, h);
	if (h->call_nr != HOLDUP_NO_CALL && h->call_sleep_ns + h->call_blocked_ns >= half)
		return true;
	h->call_nr = HOLDUP_NO_CALL;
	return h->blocked_ns >= half;
}

const char *holdup__state(const struct holdup *h)
{
	if (h->call_nr == HOLDUP_NO_CALL)
		return "blocked";
	return h->call_blocked_ns >= h->call_sleep_ns ? "blocked" : "asleep";
}

void holdup__describe(const struct holdup *h, const char *arch, char *buf, size_t len)
{
	char b1[32], nr[16];
	const char *name;

	if (h->call_nr == HOLDUP_NO_CALL) {
		snprintf(buf, len, "%s blocked in the kernel", fmt_duration(b1, sizeof(b1), h->blocked_ns));
		return;
	}
	name = syscall_name(arch, h->call_nr);
	if (!name) {
		snprintf(nr, sizeof(nr), "syscall %u", h->call_nr);
		name = nr;
	}
	snprintf(buf, len, "%s %s in %s()",
		 fmt_duration(b1, sizeof(b1), h->call_sleep_ns + h->call_blocked_ns), holdup__state(h), name);
}
