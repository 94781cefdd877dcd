// SPDX-License-Identifier: MIT
/*
 * workq: two threads taking from one queue get every item exactly once, in
 * no fixed split; after a failure nothing more is handed out.
 */
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
