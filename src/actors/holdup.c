// SPDX-License-Identifier: MIT
/*
 * The holdup of an invocation: its off-CPU gaps by kind, and the recorded
 * call that held the most of them. The rules are in src/actors/holdup.h.
 */
#include <stdio.h>
#include <string.h>

#include "actor.h"
#include "file/syscall_names.h"
#include "holdup.h"
#include "lib/parse.h"
#include "qt_events.h"
#include "timeline/timeline.h"

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

/*
 * The time CPU cpu ran no thread inside [g0, g1): by the runs of that CPU
 * (tl->runs_by_cpu, in time order; runs on one CPU do not overlap).
 */
static int64_t idle_ns(const struct timeline *tl, uint16_t cpu, uint64_t g0, uint64_t g1)
{
	size_t lo, hi;
	uint64_t busy = 0;

	if (!tl->runs_by_cpu || cpu >= tl->ncpus)
		return 0;
	lo = tl->cpu_run0[cpu];
	hi = tl->cpu_run0[cpu + 1];
	/* the first run of the CPU that ends after g0 */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl->runs[tl->runs_by_cpu[mid]].end <= g0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < tl->cpu_run0[cpu + 1]; i++) {
		const struct tl_run *r = &tl->runs[tl->runs_by_cpu[i]];
		uint64_t a = r->start > g0 ? r->start : g0, b = r->end < g1 ? r->end : g1;

		if (r->start >= g1)
			break;
		busy += b > a ? b - a : 0;
	}
	return busy < g1 - g0 ? (int64_t)(g1 - g0 - busy) : 0;
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
		/* preempted, it waits on a run queue: the CPU it runs on next */
		if (r->end_state == QT_END_PREEMPTED)
			h->runnable_idle_ns += idle_ns(tl, tl->runs[i + 1].cpu, g0, g1);
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
	if (h->call_nr != HOLDUP_NO_CALL && h->call_sleep_ns + h->call_blocked_ns >= half) {
		h->why = HOLDUP_IN_CALL;
		h->told_ns = h->call_sleep_ns + h->call_blocked_ns;
	} else if (h->blocked_ns >= half) {
		h->why = HOLDUP_KERNEL;
		h->told_ns = h->blocked_ns;
	} else if (h->runnable_idle_ns >= half) {
		h->why = HOLDUP_CPU_IDLE;
		h->told_ns = h->runnable_idle_ns;
	}
	if (h->why != HOLDUP_IN_CALL)
		h->call_nr = HOLDUP_NO_CALL;
	return h->why != HOLDUP_NONE;
}

const char *holdup__state(const struct holdup *h)
{
	if (h->why == HOLDUP_CPU_IDLE)
		return "throttled";
	if (h->call_nr == HOLDUP_NO_CALL)
		return "blocked";
	return h->call_blocked_ns >= h->call_sleep_ns ? "blocked" : "asleep";
}

void holdup__describe(const struct holdup *h, const char *arch, char *buf, size_t len)
{
	char b1[32], nr[24];

	if (h->why == HOLDUP_CPU_IDLE) {
		snprintf(buf, len, "%s runnable on an idle CPU (CPU quota throttling?)",
			 fmt_duration(b1, sizeof(b1), h->runnable_idle_ns));
		return;
	}
	if (h->call_nr == HOLDUP_NO_CALL) {
		snprintf(buf, len, "%s blocked in the kernel", fmt_duration(b1, sizeof(b1), h->blocked_ns));
		return;
	}
	snprintf(buf, len, "%s %s in %s()",
		 fmt_duration(b1, sizeof(b1), h->call_sleep_ns + h->call_blocked_ns), holdup__state(h),
		 syscall_label(arch, h->call_nr, nr, sizeof(nr)));
}
