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

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WORKQ_LINE 64		/* bytes of a cache line */
#define WORKQ_MAX_JOBS 8	/* threads of one workq_parts() */

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

/*
 * The CPUs the analysis keeps busy, counted across its stages. Its stages
 * run side by side on threads of their own, and a stage that splits its
 * work in shares (workq_parts) gains only from a CPU no other stage is
 * using: on a CPU already busy, the shares' threads take turns with the
 * other stage's and the memory they all stream through, and the whole
 * report ran 5 % slower. Every thread running a stage counts itself busy
 * (workq_busy), a thread waiting for another not; a split asks for spare
 * CPUs when it starts (workq_spare) and gives them back when done.
 * Without workq_cpus_set(), or after workq_cpus_set(0), nothing is
 * counted and every split gets what it asks for.
 */
void workq_cpus_set(int ncpu);
void workq_busy(int delta);
int workq_spare(int want);	/* 0..want CPUs, now counted busy */

/*
 * The CPUs this process may run on: its affinity set, which `taskset` or a
 * cgroup's cpuset narrows, or the CPUs online where the set cannot be read.
 * The most threads that run at once; a second thread on a set of one CPU
 * only takes turns with the first.
 */
int workq_cpus_usable(void);

/* Where share i of n items in jobs equal shares starts; share i ends where i + 1 starts. */
static inline uint32_t workq_share(uint32_t n, int i, int jobs)
{
	return (uint32_t)((uint64_t)n * (uint32_t)i / (uint32_t)jobs);
}

/*
 * fn on each of jobs parts (an array of them, size bytes apart), each on a
 * thread of its own: the caller runs the last, and any part whose thread
 * cannot start. For work split in fixed shares up front, where every part
 * writes only what is its own. jobs is at most WORKQ_MAX_JOBS.
 */
static inline void workq_parts(int jobs, void *(*fn)(void *), void *parts, size_t size)
{
	pthread_t th[WORKQ_MAX_JOBS];
	bool started[WORKQ_MAX_JOBS] = { false };
	char *p = parts;

	for (int i = 0; i < jobs - 1; i++)
		started[i] = !pthread_create(&th[i], NULL, fn, p + i * size);
	for (int i = 0; i < jobs; i++)
		if (!started[i])
			fn(p + i * size);
	for (int i = 0; i < jobs - 1; i++)
		if (started[i])
			pthread_join(th[i], NULL);
}

#endif
