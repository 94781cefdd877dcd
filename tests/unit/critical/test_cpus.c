// SPDX-License-Identifier: MIT
/*
 * Who held a CPU when (src/critical/cpus.c): the time other threads held a
 * CPU over a window against a brute-force sum over every task of that CPU,
 * whatever the search hint, on recordings whose clock ticks coarsely (a
 * guest without a high-resolution clock: 4 ms steps), where runs of zero
 * duration share their start with longer ones and the CPU's ends are out
 * of order.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "critical/internal.h"
#include "synth_trace.h"
#include "testutil.h"
#include "timeline/timeline.h"

#define MS 1000000ll
#define TICK (4 * MS)

/*
 * Back-to-back runs on each CPU, 0 to 2 ticks long, of threads 100..104
 * (a thread on one CPU only), with wakeups sent from inside a run on the
 * tick (they split the waker's run there, into fragments that may last
 * zero).
 */
static struct trace *tick_schedule(unsigned long long *rs, int ncpu)
{
	struct synth *s = synth_new(0, 200 * TICK, ncpu);

	for (int t = 0; t < 5; t++) {
		char name[16];

		snprintf(name, sizeof(name), "t%d", t);
		synth_thread(s, 100 + t, 100 + t, name);
	}
	for (int c = 0; c < ncpu; c++) {
		int64_t now = TICK;
		uint32_t cur = 0;

		while (now < 180 * TICK) {
			uint32_t tid = 100 + (uint32_t)tu_rand_range(rs, 0, 4);
			int64_t len = tu_rand_range(rs, 0, 2) * TICK;

			if (tid % (uint32_t)ncpu != (uint32_t)c || tid == cur)
				continue;
			synth_switch(s, now, c, cur, cur, SYN_SLEEP, tid, tid);
			if (len && tu_rand(rs) % 2) {
				uint32_t to = 100 + (uint32_t)tu_rand_range(rs, 0, 4);

				if (to != tid)
					synth_wakeup(s, now + tu_rand_range(rs, 0, len / TICK) * TICK, tid, tid, to, to,
						     (int)(to % (uint32_t)ncpu));
			}
			cur = tid;
			now += len;
			if (tu_rand(rs) % 4 == 0) {
				synth_switch(s, now, c, cur, cur, SYN_SLEEP, 0, 0);
				cur = 0;
				now += TICK;
			}
		}
		if (cur)
			synth_switch(s, now, c, cur, cur, SYN_SLEEP, 0, 0);
	}
	return synth_finish(s);
}

/* What [a, b) held by threads other than th on cpu sums to, task by task. */
static int64_t held_brute(const struct model *m, uint32_t cpu, uint32_t th, int64_t a, int64_t b)
{
	int64_t total = 0;

	for (size_t v = 0; v < m->n; v++) {
		int64_t s = m->tasks[v].start_ns, e = m->tasks[v].end_ns;

		if (model_run(m, (uint32_t)v)->cpu != cpu || model_owner(m, (uint32_t)v) == th)
			continue;
		s = s > a ? s : a;
		e = e < b ? e : b;
		total += e > s ? e - s : 0;
	}
	return total;
}

struct held_sum {
	int64_t ns;
	size_t calls;
};

static void held_add(void *ctx, uint32_t thread, int64_t ns)
{
	struct held_sum *h = ctx;

	(void)thread;
	cr_assert_gt(ns, 0);
	h->ns += ns;
	h->calls++;
}

/* Does some CPU list a task that ends before the one listed before it? */
static bool ends_out_of_order(const struct model *m)
{
	for (uint32_t c = 0; c < m->ncpu; c++)
		for (uint32_t i = m->cpu_off[c] + 1; i < m->cpu_off[c + 1]; i++)
			if (m->tasks[m->cpu_idx[i]].end_ns < m->tasks[m->cpu_idx[i - 1]].end_ns)
				return true;
	return false;
}

/*
 * Every window on and around the ticks, every thread and every hint the
 * search may start from (a position on that CPU, or none yet): the total
 * and the stretches handed to fn are the brute-force sum. With the search
 * on the ends themselves, a window starting inside a run of the same
 * start as a zero one listed after it lost that run, or not, by the hint:
 * the armhf build's report changed from run to run with the accounting
 * thread that searched.
 */
Test(cpus, held_is_the_brute_force_sum_whatever_the_hint)
{
	size_t out_of_order = 0, checked = 0, held = 0;

	for (unsigned long long seed = 1; seed <= 30; seed++) {
		unsigned long long rs = seed * 7919;
		int ncpu = (int)(seed % 2) + 1;
		struct trace *t = tick_schedule(&rs, ncpu);
		struct crit_edge_stats st = { 0 };
		struct timeline *tl;
		struct model m = { 0 };

		cr_assert_eq(timeline__build(t, NULL, &tl), 0);
		m.tl = tl;
		m.t0 = (int64_t)tl->start;
		m.split = tl->nwk > 0;
		m.st = &st;
		cr_assert_eq(model_build(&m), 0, "seed %llu", seed);
		out_of_order += ends_out_of_order(&m);
		for (uint32_t c = 0; c < m.ncpu; c++) {
			uint32_t *hint = calloc(m.ncpu, sizeof(*hint));

			for (int64_t a = TICK - 1; a < 182 * TICK; a += TICK / 2) {
				int64_t b = a + tu_rand_range(&rs, 1, 4) * (TICK / 2) + tu_rand_range(&rs, -1, 1);
				uint32_t th = (uint32_t)tu_rand_range(&rs, 0, (long long)tl->nthreads);
				int64_t want = held_brute(&m, c, th, a, b);

				held += want > 0;
				for (uint32_t p = m.cpu_off[c]; p <= m.cpu_off[c + 1] + 1; p++) {
					struct held_sum h = { 0 };

					hint[c] = p;
					cr_assert_eq(cpus_held(&m, hint, c, th, a, b, held_add, &h), want,
						     "seed %llu cpu %u [%lld, %lld) thread %u hint %u", seed, c,
						     (long long)a, (long long)b, th, p);
					cr_assert_eq(h.ns, want, "seed %llu: the stretches handed out", seed);
					checked++;
				}
			}
			free(hint);
		}
		model_free(&m);
		timeline__free(tl);
		trace__free(t);
	}
	cr_assert_gt(out_of_order, 5, "only %zu schedules put a CPU's ends out of order", out_of_order);
	cr_assert_gt(held, 1000, "only %zu windows were held by anyone", held);
	cr_log_info("%zu searches, %zu of 30 schedules with ends out of order", checked, out_of_order);
}
