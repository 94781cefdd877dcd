// SPDX-License-Identifier: MIT
/*
 * When windows are written (src/watch/trigger.h): a break asks for
 * [T - before, T + after]; breaks inside a window not yet due join it, the
 * earliest leads; beyond the window, or beyond max_len, the next opens; a
 * window is due when decided up to its end; the cut is actors_cut_ns() or
 * --late.
 */
#include "testutil.h"
#include "watch/trigger.h"

#define S 1000000000ll

static struct trig_break mkbrk(uint32_t tid, int64_t at, int64_t late)
{
	struct trig_break b = { .tid = tid, .at_ns = at, .lateness_ns = late, .period_ns = 10e6, .online = true };

	snprintf(b.actor, sizeof(b.actor), "a/%u", tid);
	return b;
}

Test(trigger, the_cut_is_one_notion)
{
	cr_assert(watch_major(1000000, 10e6, 0), "a tenth of the period");
	cr_assert_not(watch_major(999999, 10e6, 0));
	cr_assert_eq(watch_cut_ns(9187500, 0), actors_cut_ns((struct actors_cut){ ACTORS_DEFAULT_MIN_LATE, 0 }, 9187500),
		     "the report's");
	cr_assert(watch_major(5000000, 10e6, 5000000), "--late");
	cr_assert_not(watch_major(4999999, 10e6, 5000000), "--late replaces the tenth");
	cr_assert_not(watch_major(1000000, 0, 0), "no period, no major break");
	cr_assert_eq(watch_cut_ns(10e6, 0), 1000000);
	cr_assert_eq(watch_cut_ns(10.5e6, 0), 1050000);
	cr_assert_eq(watch_cut_ns(10e6, 7), 7);
}

Test(trigger, close_breaks_share_a_window_far_ones_do_not)
{
	struct trigger *t = trigger__new(10 * S, 2 * S, 22 * S);
	struct trig_window w;
	struct trig_break b;

	trigger__break(t, (b = mkbrk(1, 100 * S, 25e6), &b));
	/* another actor, judged later, 30 ms earlier: same window, and it leads */
	trigger__break(t, (b = mkbrk(2, 100 * S - 30e6, 30e6), &b));
	/* 1.5 s later: inside [90, 102] */
	trigger__break(t, (b = mkbrk(1, 101 * S + S / 2, 5e6), &b));
	/* 5 s after: beyond 103.5, its own window */
	trigger__break(t, (b = mkbrk(1, 107 * S, 40e6), &b));
	cr_assert_eq(trigger__next_end(t), 103 * S + S / 2);
	cr_assert_eq(trigger__keep_from(t), 90 * S - 30e6);
	cr_assert_not(trigger__due(t, 103 * S, false, &w), "not decided up to its end");
	cr_assert(trigger__due(t, 103 * S + S / 2, false, &w));
	cr_assert_eq(w.from, 90 * S - 30e6);
	cr_assert_eq(w.to, 103 * S + S / 2);
	cr_assert_eq(w.nbreaks, 3);
	cr_assert_eq(w.first.tid, 2, "the earliest break leads");
	cr_assert_eq(w.worst_ns, 30e6);
	cr_assert_not(trigger__due(t, 103 * S + S / 2, false, &w));
	cr_assert(trigger__due(t, 0, true, &w), "flushed at the end");
	cr_assert_eq(w.from, 97 * S);
	cr_assert_eq(w.to, 109 * S);
	trigger__free(t);
}

Test(trigger, a_window_grows_no_longer_than_max_len)
{
	struct trigger *t = trigger__new(10 * S, 2 * S, 15 * S);
	struct trig_window w;
	struct trig_break b;
	int windows = 0;

	/* a break every second for 30 s */
	for (int i = 0; i < 30; i++)
		trigger__break(t, (b = mkbrk(1, (100 + i) * S, 2e6), &b));
	while (trigger__due(t, 0, true, &w)) {
		cr_assert_leq(w.to - w.from, 15 * S);
		windows++;
	}
	cr_assert_geq(windows, 8, "%d windows", windows);
	trigger__free(t);
}

Test(trigger, demand_log_and_forget)
{
	struct trigger *t = trigger__new(10 * S, 2 * S, 22 * S);
	struct trig_window w;
	struct trig_break b, *v;
	size_t n;

	trigger__manual(t, 50 * S);
	/* a break inside a manual window does not join it */
	trigger__break(t, (b = mkbrk(3, 45 * S, 9e6), &b));
	cr_assert(trigger__due(t, 50 * S, false, &w));
	cr_assert_not(w.manual, "the window that ends first comes first");
	cr_assert_eq(w.to, 47 * S);
	cr_assert(trigger__due(t, 50 * S, false, &w));
	cr_assert(w.manual);
	cr_assert_eq(w.from, 40 * S);
	cr_assert_eq(w.to, 50 * S);
	cr_assert_not(trigger__due(t, 50 * S, false, &w));
	trigger__break(t, (b = mkbrk(4, 46 * S, 8e6), &b));
	trigger__break(t, (b = mkbrk(5, 80 * S, 8e6), &b));
	cr_assert_eq(trigger__breaks_in(t, 45 * S, 60 * S, &v, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(v[0].tid, 3);
	cr_assert_eq(v[1].tid, 4);
	free(v);
	trigger__forget(t, 46 * S);
	trigger__breaks_in(t, 0, 100 * S, &v, &n);
	cr_assert_eq(n, 2, "the break at 45 s is forgotten");
	free(v);
	trigger__free(t);
}
