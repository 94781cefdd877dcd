// SPDX-License-Identifier: MIT
/*
 * workq: two threads taking from one queue get every item exactly once, in
 * no fixed split; after a failure nothing more is handed out. Fixed shares
 * each run once, every one but the caller's on a thread of its own. Spare
 * CPUs are never handed out twice.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include "testutil.h"
#include "lib/workq.h"

enum { NITEMS = 200000 };

struct taker {
	struct workq *q;
	uint8_t *seen;		/* [NITEMS], shared: each item is written by one taker only */
	size_t taken;
	size_t fail_after;	/* fail once this many are taken; 0: never */
};

static void *take_all(void *arg)
{
	struct taker *t = arg;
	size_t i;

	while (workq_take(t->q, &i)) {
		t->seen[i]++;
		if (++t->taken == t->fail_after) {
			workq_fail(t->q);
			break;
		}
	}
	return NULL;
}

Test(workq, two_threads_each_item_once)
{
	struct workq q = { .n = NITEMS };
	uint8_t *seen = calloc(NITEMS, 1);
	struct taker t[2] = { { &q, seen, 0, 0 }, { &q, seen, 0, 0 } };
	pthread_t th;

	cr_assert(seen);
	cr_assert_eq(pthread_create(&th, NULL, take_all, &t[1]), 0);
	take_all(&t[0]);
	pthread_join(th, NULL);
	cr_expect_eq(t[0].taken + t[1].taken, NITEMS);
	for (size_t i = 0; i < NITEMS; i++)
		cr_assert_eq(seen[i], 1, "item %zu taken %u times", i, seen[i]);
	free(seen);
}

Test(workq, empty_and_after_the_end)
{
	struct workq q = { .n = 0 };
	size_t i;

	cr_expect_not(workq_take(&q, &i));
	q = (struct workq){ .n = 2 };
	cr_expect(workq_take(&q, &i) && i == 0);
	cr_expect(workq_take(&q, &i) && i == 1);
	cr_expect_not(workq_take(&q, &i));
	cr_expect_not(workq_take(&q, &i), "still nothing");
}

Test(workq, a_failure_stops_every_taker)
{
	struct workq q = { .n = NITEMS };
	uint8_t *seen = calloc(NITEMS, 1);
	struct taker t = { &q, seen, 0, 5 };
	size_t i;

	cr_assert(seen);
	take_all(&t);
	cr_expect_eq(t.taken, 5);
	cr_expect_not(workq_take(&q, &i), "an item handed out after a failure");
	free(seen);
}

struct each_ctx {
	struct workq *q;
	uint8_t *seen;		/* [NITEMS], shared as above */
	size_t fail_at;		/* the item whose call fails; NITEMS: none */
	int err;
};

static int each_fn(void *ctx, size_t i)
{
	struct each_ctx *c = ctx;

	c->seen[i]++;
	return i == c->fail_at ? -EIO : 0;
}

static void *each_thread(void *arg)
{
	struct each_ctx *c = arg;

	c->err = workq_each(c->q, each_fn, c);
	return NULL;
}

/* workq_each: every item once on two threads; a failure is returned by its worker and stops both. */
Test(workq, each_item_once_and_failure_stops)
{
	for (size_t fail_at = 0; fail_at <= NITEMS; fail_at += NITEMS / 2) {
		struct workq q = { .n = NITEMS };
		uint8_t *seen = calloc(NITEMS, 1);
		struct each_ctx c[2] = { { &q, seen, fail_at, 0 }, { &q, seen, fail_at, 0 } };
		size_t called = 0, i;
		pthread_t th;

		cr_assert(seen);
		cr_assert_eq(pthread_create(&th, NULL, each_thread, &c[1]), 0);
		each_thread(&c[0]);
		pthread_join(th, NULL);
		for (i = 0; i < NITEMS; i++) {
			cr_assert_leq(seen[i], 1, "item %zu called %u times", i, seen[i]);
			called += seen[i];
		}
		if (fail_at == NITEMS) {
			cr_expect_eq(called, NITEMS);
			cr_expect(c[0].err == 0 && c[1].err == 0);
		} else {
			cr_expect_eq(seen[fail_at], 1);
			cr_expect((c[0].err == -EIO) + (c[1].err == -EIO) == 1, "errors %d %d", c[0].err, c[1].err);
		}
		free(seen);
	}
}

/* On one worker: the calls stop at the failing item, and the queue hands out nothing more. */
Test(workq, each_stops_at_the_failure)
{
	struct workq q = { .n = NITEMS };
	uint8_t *seen = calloc(NITEMS, 1);
	struct each_ctx c = { &q, seen, 5, 0 };
	size_t i;

	cr_assert(seen);
	cr_expect_eq(workq_each(&q, each_fn, &c), -EIO);
	for (i = 0; i < NITEMS; i++)
		cr_assert_eq(seen[i], i <= 5, "item %zu called %u times", i, seen[i]);
	cr_expect_not(workq_take(&q, &i), "an item handed out after a failure");
	free(seen);
}

/*
 * Two workers' arrays never share a cache line: each starts on a line and
 * owns whole lines (the SAN build checks the writes up to the line's end),
 * and comes zeroed even where the allocator hands back dirty memory.
 */
Test(workq, calloc_gives_whole_zeroed_lines)
{
	for (size_t size = 1; size <= 200; size += 7) {
		size_t bytes = (size + WORKQ_LINE - 1) / WORKQ_LINE * WORKQ_LINE;
		unsigned char *a = workq_calloc(size, 1), *b;

		cr_assert(a);
		cr_expect_eq((uintptr_t)a % WORKQ_LINE, 0, "%zu bytes not on a line", size);
		memset(a, 0xaa, bytes);
		free(a);
		a = workq_calloc(1, size);
		b = workq_calloc(size, 1);
		cr_assert(a && b);
		for (size_t i = 0; i < bytes; i++)
			cr_assert_eq(a[i] | b[i], 0, "byte %zu of %zu not zero", i, size);
		cr_expect((uintptr_t)a / WORKQ_LINE != (uintptr_t)b / WORKQ_LINE);
		memset(a, 1, bytes);
		memset(b, 2, bytes);
		cr_expect_eq(a[bytes - 1], 1, "a line shared with the other worker's array");
		free(a);
		free(b);
	}
}

Test(workq, calloc_refuses_an_overflowing_size)
{
	cr_expect_null(workq_calloc(SIZE_MAX / 8, 16));
	cr_expect_null(workq_calloc(SIZE_MAX, 1));
	free(workq_calloc(0, 8));
}

struct part {
	int runs;
	pthread_t by;
};

static void *run_part(void *arg)
{
	struct part *p = arg;

	p->runs++;
	p->by = pthread_self();
	return NULL;
}

Test(workq, parts_each_once_on_threads_of_their_own)
{
	for (int jobs = 1; jobs <= WORKQ_MAX_JOBS; jobs++) {
		struct part p[WORKQ_MAX_JOBS] = { 0 };

		workq_parts(jobs, run_part, p, sizeof(p[0]));
		for (int i = 0; i < jobs; i++)
			cr_assert_eq(p[i].runs, 1, "jobs %d: part %d ran %d times", jobs, i, p[i].runs);
		for (int i = jobs; i < WORKQ_MAX_JOBS; i++)
			cr_assert_eq(p[i].runs, 0, "jobs %d: part %d is not one of them", jobs, i);
		/* The caller runs the last part; every other had a thread. */
		cr_assert(pthread_equal(p[jobs - 1].by, pthread_self()));
		for (int i = 0; i < jobs - 1; i++) {
			cr_assert(!pthread_equal(p[i].by, pthread_self()), "jobs %d: part %d", jobs, i);
			for (int j = i + 1; j < jobs - 1; j++)
				cr_assert(!pthread_equal(p[i].by, p[j].by), "jobs %d: parts %d and %d", jobs, i, j);
		}
	}
}

Test(workq, spare_cpus_are_those_no_stage_holds)
{
	cr_assert_eq(workq_spare(3), 3, "not counting: every split gets what it asks");
	workq_cpus_set(2);
	cr_assert_eq(workq_spare(0), 0);
	cr_assert_eq(workq_spare(1), 1, "the caller holds one of two");
	cr_assert_eq(workq_spare(1), 0, "both are busy");
	workq_busy(-1);
	workq_busy(1);		/* a stage thread starts */
	cr_assert_eq(workq_spare(1), 0);
	workq_busy(-1);		/* and ends */
	cr_assert_eq(workq_spare(4), 1);
	workq_busy(-1);
	workq_cpus_set(4);
	cr_assert_eq(workq_spare(8), 3);
	workq_busy(-3);
	workq_cpus_set(0);
	cr_assert_eq(workq_spare(2), 2);
}

struct claimer {
	int rounds, over, got_any;
	int *held;		/* shared: what all claimers hold now */
};

static void *claim_and_give(void *arg)
{
	struct claimer *c = arg;

	for (int i = 0; i < c->rounds; i++) {
		int got = workq_spare(2);

		/* Of 3 CPUs the thread that set the count holds one: 2 to share. */
		if (__atomic_add_fetch(c->held, got, __ATOMIC_SEQ_CST) > 2)
			c->over++;
		c->got_any |= got > 0;
		__atomic_sub_fetch(c->held, got, __ATOMIC_SEQ_CST);
		workq_busy(-got);
	}
	return NULL;
}

/* Taken and given back from four threads at once, the count ends where it began. */
Test(workq, spare_cpus_under_contention)
{
	struct claimer c[4];
	pthread_t th[4];
	int held = 0, got_any = 0;

	workq_cpus_set(3);
	for (int i = 0; i < 4; i++) {
		c[i] = (struct claimer){ .rounds = 100000, .held = &held };
		cr_assert_eq(pthread_create(&th[i], NULL, claim_and_give, &c[i]), 0);
	}
	/*
	 * Spare CPUs go to whoever asks first, with no turn taking: one
	 * claimer can miss out on every round while the others hold both
	 * (it happened under the sanitizers), so only the claimers together
	 * are sure to have got some.
	 */
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		cr_assert_eq(c[i].over, 0, "claimer %d held more than there was", i);
		got_any |= c[i].got_any;
	}
	cr_assert(got_any, "no claimer ever got a CPU");
	cr_assert_eq(workq_spare(5), 2, "the caller's one busy, two spare");
	workq_busy(-2);
	workq_cpus_set(0);
}

Test(workq, usable_cpus_are_the_affinity_set)
{
	cpu_set_t old;
	int all;

	cr_assert_eq(sched_getaffinity(0, sizeof(old), &old), 0);
	all = CPU_COUNT(&old);
	cr_assert_eq(workq_cpus_usable(), all);
	cr_assert(tu_pin_one_cpu(&old), "cannot restrict this process to one CPU");
	cr_assert_eq(workq_cpus_usable(), 1, "pinned to one CPU, %d usable", workq_cpus_usable());
	cr_assert_eq(sched_setaffinity(0, sizeof(old), &old), 0);
	cr_assert_eq(workq_cpus_usable(), all);
}
