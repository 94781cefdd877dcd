// SPDX-License-Identifier: MIT
/*
 * workq: two threads taking from one queue get every item exactly once, in
 * no fixed split; after a failure nothing more is handed out.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include "testutil.h"
#include "workq.h"

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
