/* SPDX-License-Identifier: MIT */
/*
 * Items 0..n-1 handed out one at a time to the threads that ask: the
 * stages that run on two workers (the actors' studies, the accounting of
 * their paths) take their next item here, and every worker stops taking
 * once one has failed. Who did which does not matter: each item's result
 * goes to a slot of its own.
 */
#ifndef QT_WORKQ_H
#define QT_WORKQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WORKQ_LINE 64		/* bytes of a cache line */

struct workq {
	size_t n;
	size_t next;		/* atomic */
	int failed;		/* atomic */
};

/* The next item into *i; false when none is left or a worker failed. */
static inline bool workq_take(struct workq *q, size_t *i)
{
	*i = __atomic_fetch_add(&q->next, 1, __ATOMIC_RELAXED);
	return *i < q->n && !__atomic_load_n(&q->failed, __ATOMIC_RELAXED);
}

/* A worker failed: the others take nothing more. */
static inline void workq_fail(struct workq *q)
{
	__atomic_store_n(&q->failed, 1, __ATOMIC_RELAXED);
}

/*
 * A worker's loop: fn(ctx, i) for every item it takes, until none is left
 * or fn fails, which stops every worker. Returns fn's error, or 0.
 */
static inline int workq_each(struct workq *q, int (*fn)(void *ctx, size_t i), void *ctx)
{
	size_t i;
	int err;

	while (workq_take(q, &i)) {
		err = fn(ctx, i);
		if (err) {
			workq_fail(q);
			return err;
		}
	}
	return 0;
}

/*
 * Zeroed memory for n items of size bytes that one worker writes and no
 * other, in whole cache lines of its own: two workers' small arrays from
 * one allocator slab can share a line, and then every write takes the
 * line from the other core. The accounting's CPU search hints, its
 * per-thread sums and its actors' counts did so, and ran no faster on two
 * workers than on one. NULL when out of memory; free() releases it.
 */
static inline void *workq_calloc(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (size && n > (SIZE_MAX - WORKQ_LINE) / size)
		return NULL;
	bytes = (n * size + WORKQ_LINE - 1) / WORKQ_LINE * WORKQ_LINE;
	p = aligned_alloc(WORKQ_LINE, bytes ? bytes : WORKQ_LINE);
	if (p)
		memset(p, 0, bytes);
	return p;
}

#endif
