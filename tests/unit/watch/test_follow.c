// SPDX-License-Identifier: MIT
/*
 * The online detector (src/watch/follow.h), a sieve: on a regular actor it
 * flags nothing; a late start, a late release inside a wrongly grouped
 * invocation, an invocation held off its CPU, a late call of a system-call
 * actor, each is flagged at its time; and it misses none of the report's
 * major breaks on the simulated machines of the judge's test.
 */
#include "actors/actors.h"
#include "synth_watch.h"
#include "testutil.h"
#include "timeline/timeline.h"
#include "watch/follow.h"
#include "watch/trigger.h"

#define MS 1000000ull

static union qt_record in(uint64_t ts, uint32_t tid)
{
	union qt_record r;

	memset(&r, 0, sizeof(r));
	r.sw.h.type = QT_REC_SWITCH;
	r.sw.h.ts = ts;
	r.sw.next_tid = tid;
	return r;
}

static union qt_record out(uint64_t ts, uint32_t tid, bool preempted)
{
	union qt_record r;

	memset(&r, 0, sizeof(r));
	r.sw.h.type = QT_REC_SWITCH;
	r.sw.h.ts = ts;
	r.sw.h.flags = preempted ? QT_SWITCH_PREEMPT : 0;
	r.sw.prev_tid = tid;
	r.sw.prev_state = preempted ? 0 : 1;
	return r;
}

static const struct follow_rule rule10 = {
	.kind = ACTOR_THREAD, .period_ns = 10 * MS, .release_ns = 5 * MS, .held_ns = 0, .cut_ns = MS,
};

/* One invocation at t: runs work ns, preempted for held ns in the middle. */
static uint64_t invocation(struct follow *f, uint64_t t, uint64_t work, uint64_t held)
{
	union qt_record r[4] = { in(t, 7), out(t + work / 2, 7, held > 0), in(t + work / 2 + held, 7),
				 out(t + work + held, 7, false) };
	uint64_t flag = 0;

	for (int i = 0; i < 4; i++) {
		uint64_t x = follow__feed(f, &r[i]);

		flag = flag ? flag : x;
	}
	return flag;
}

Test(follow, regular_flags_nothing_late_and_held_are_flagged)
{
	struct follow f;
	uint64_t t = 1000 * MS;

	follow_init(&f, 7, &rule10);
	for (int i = 0; i < 100; i++, t += 10 * MS)
		cr_assert_eq(invocation(&f, t, 2 * MS, i % 3 ? 0 : 100000), 0, "invocation %d", i);
	/* 0.6 ms late: below half the cut, not flagged; 0.6 ms more: flagged at its start */
	cr_assert_eq(invocation(&f, t + 400000, 2 * MS, 0), 0);
	t += 10 * MS;
	cr_assert_eq(invocation(&f, t + 1000000, 2 * MS, 0), t + 1000000, "1.6 ms after the one before");
	t += 10 * MS;
	/* held 3 ms off the CPU: a quarter period is 2.5 ms, the cut 1 ms: half of 1 ms */
	cr_assert_eq(invocation(&f, t, 2 * MS, 3 * MS), t);
	cr_assert_eq(invocation(&f, t + 10 * MS, 2 * MS, 400000), 0, "held a little");
}

/* A late release the grouping puts inside the invocation before is still flagged. */
Test(follow, a_release_late_whatever_the_grouping)
{
	struct follow_rule r = rule10;
	struct follow f;
	uint64_t t = 1000 * MS;

	r.release_ns = 30 * MS;		/* a rule that groups everything: the release check still sees it */
	r.held_ns = 100 * MS;		/* (and no held check: the grouping makes it flag anything) */
	follow_init(&f, 7, &r);
	cr_assert_eq(invocation(&f, t, 2 * MS, 0), 0);
	cr_assert_eq(invocation(&f, t + 10 * MS, 2 * MS, 0), 0);
	cr_assert_eq(invocation(&f, t + 35 * MS, 2 * MS, 0), t + 35 * MS);
}

Test(follow, a_system_call_actor)
{
	struct follow_rule r = { .kind = ACTOR_SYSCALL, .nr = 1, .has_arg0 = true, .arg0 = 3, .period_ns = 20 * MS,
				 .release_ns = 10 * MS, .cut_ns = 2 * MS };
	struct follow f;
	union qt_record x;

	follow_init(&f, 9, &r);
	memset(&x, 0, sizeof(x));
	x.sc.h.type = QT_REC_SYSCALL;
	x.sc.tid = 9;
	x.sc.nr = 1;
	x.sc.arg0 = 3;
	for (int i = 0; i < 10; i++) {
		x.sc.h.ts = 1000 * MS + i * 20 * MS;
		cr_assert_eq(follow__feed(&f, &x), 0);
	}
	x.sc.arg0 = 4;	/* another descriptor: not the actor */
	x.sc.h.ts += 30 * MS;
	cr_assert_eq(follow__feed(&f, &x), 0);
	x.sc.arg0 = 3;
	cr_assert_eq(follow__feed(&f, &x), x.sc.h.ts, "30 ms after the last call");
}

/*
 * On simulated machines: every major break the report finds has a flag of
 * the follower at or before its late start, within a period (the sieve
 * leaves nothing to the sweeps it could have flagged).
 */
Test(follow, flags_every_major_break_of_the_report, .timeout = 60)
{
	int breaks = 0;

	for (unsigned long long seed = 1; seed <= 20; seed++) {
		struct sw_cfg c = sw_default(seed);
		struct actors_result *ar;
		struct timeline *tl;
		struct trace *t;

		c.len = 6000000000ull;
		c.ndisturb = 4;
		c.disturb_ns = 3 * MS + seed * MS;
		for (int i = 0; i < 4; i++)
			c.disturb_at[i] = c.start + (1 + i) * 1100 * MS + seed * 7 * MS;
		c.a[1].prio = 1;
		t = sw_run(&c);
		cr_assert_eq(timeline__build(t, NULL, &tl), 0);
		cr_assert_eq(actors__analyse(tl, NULL, &ar), 0);
		for (size_t i = 0; i < ar->n; i++) {
			const struct actor *a = &ar->v[i];
			uint32_t tid = tl->threads[a->thread].tid;
			struct follow_rule r;
			struct follow f;
			uint64_t flags[4096];
			size_t nf = 0;

			if (!a->st.periodic || follow_rule_learn(a, tl, watch_cut_ns(a->st.period_ns, 0), &r))
				continue;
			follow_init(&f, tid, &r);
			for (size_t k = 0; k < t->nsw && nf < 4096; k++) {
				union qt_record x;
				uint64_t fl;

				memset(&x, 0, sizeof(x));
				x.sw = t->sw[k];
				if (x.sw.prev_tid != tid && x.sw.next_tid != tid)
					continue;
				if ((fl = follow__feed(&f, &x)))
					flags[nf++] = fl;
			}
			for (size_t k = 0; k < a->nbreaks; k++) {
				const struct actor_break *b = &a->breaks[k];
				int64_t at = b->kind == BREAK_COMPLETION ? b->start_ns : b->end_ns;
				bool seen = false;

				if (b->data_missing || !watch_major(b->lateness_ns, a->st.period_ns, 0))
					continue;
				for (size_t j = 0; j < nf && !seen; j++)
					seen = (int64_t)flags[j] <= at && (int64_t)flags[j] >= at - 2 * (int64_t)a->st.period_ns - b->lateness_ns;
				cr_assert(seen, "seed %llu: %s's break at %lld (%lld ns late) was not flagged", seed, a->name,
					  (long long)at, (long long)b->lateness_ns);
				breaks++;
			}
		}
		actors__free(ar);
		timeline__free(tl);
		trace__free(t);
	}
	cr_assert_gt(breaks, 20, "%d breaks", breaks);
}
