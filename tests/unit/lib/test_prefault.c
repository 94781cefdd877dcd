// SPDX-License-Identifier: MIT
/*
 * The helper faults in what it is asked to and nothing further (mincore
 * tells which pages are present), never changes what the writer wrote
 * beside it, goes through several ranges one after the other, stops
 * promptly, and declines where it cannot help.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lib/prefault.h"
#include "testutil.h"
#include "lib/workq.h"

#define MB (1u << 20)

/* 4 KB pages only, so that what is present is exactly what was faulted in. */
static char *map(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert(p != MAP_FAILED);
	madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

static size_t present(const char *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (len + page - 1) / page, k = 0;
	unsigned char *v = malloc(n);

	cr_assert(v);
	cr_assert_eq(mincore((void *)p, len, v), 0);
	for (size_t i = 0; i < n; i++)
		k += v[i] & 1;
	free(v);
	return k * page;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Waits until the helper has done at least want bytes (10 s at most). */
static size_t wait_done(struct prefault *pf, size_t want)
{
	double t0 = now();

	while (prefault__done(pf) < want && now() - t0 < 10)
		usleep(1000);
	return prefault__done(pf);
}

/* NULL from prefault__start where this machine cannot have a helper: say so. */
static bool can_help(void)
{
	char *p = map(4096);
	int r = madvise(p, 4096, MADV_POPULATE_WRITE);

	munmap(p, 4096);
	if (workq_cpus_usable() < 2) {
		fprintf(stderr, "SKIPPED: one CPU usable: prefault starts no helper\n");
		return false;
	}
	if (r) {
		fprintf(stderr, "SKIPPED: the kernel has no MADV_POPULATE_WRITE (Linux 5.14)\n");
		return false;
	}
	return true;
}

Test(prefault, the_whole_range_is_faulted_in_and_left_zero)
{
	size_t len = 32 * MB;
	char *p = map(len);
	struct prefault *pf;

	if (!can_help())
		return;
	cr_assert_eq(present(p, len), 0);
	pf = prefault__start(p, len, PREFAULT_ALL);
	cr_assert(pf);
	cr_assert_eq(wait_done(pf, len), len);
	prefault__stop(pf);
	cr_assert_eq(present(p, len), len);
	for (size_t i = 0; i < len; i += 4096)
		cr_assert_eq(p[i], 0);
	munmap(p, len);
}

Test(prefault, the_helper_stays_within_ahead_of_the_writer)
{
	size_t len = 64 * MB;
	char *p = map(len);
	struct prefault *pf;

	if (!can_help())
		return;
	pf = prefault__start(p, len, 8 * MB);
	cr_assert(pf);
	cr_assert_eq(wait_done(pf, 8 * MB), 8 * MB);
	usleep(50 * 1000);	/* time to go further, were it allowed to */
	cr_assert_eq(prefault__done(pf), 8 * MB);
	cr_assert_eq(present(p, len), 8 * MB);

	/* Less than a step further: not worth waking the helper. */
	prefault__reach(pf, 1 * MB);
	usleep(50 * 1000);
	cr_assert_eq(present(p, len), 8 * MB);

	prefault__reach(pf, 16 * MB);
	cr_assert_eq(wait_done(pf, 24 * MB), 24 * MB);
	usleep(50 * 1000);
	cr_assert_eq(present(p, len), 24 * MB);

	/* The end is always worth it, and never passed. */
	prefault__reach(pf, len - 1 * MB);
	cr_assert_eq(wait_done(pf, len), len);
	prefault__stop(pf);
	cr_assert_eq(present(p, len), len);
	munmap(p, len);
}

Test(prefault, what_the_writer_writes_beside_the_helper_stays)
{
	size_t len = 64 * MB, n = len / sizeof(uint64_t);
	uint64_t *p = (uint64_t *)map(len);
	struct prefault *pf;

	if (!can_help())
		return;
	pf = prefault__start(p, len, 4 * MB);
	cr_assert(pf);
	for (size_t i = 0; i < n; i++) {
		p[i] = i * 0x9e3779b97f4a7c15ull + 1;
		if (i % 4096 == 0)
			prefault__reach(pf, i * sizeof(*p));
	}
	prefault__reach(pf, len);
	wait_done(pf, len);
	prefault__stop(pf);
	for (size_t i = 0; i < n; i++)
		if (p[i] != i * 0x9e3779b97f4a7c15ull + 1)
			cr_assert_fail("word %zu changed", i);
	munmap(p, len);
}

Test(prefault, several_ranges_are_faulted_in_one_after_the_other)
{
	char *a = map(8 * MB), *b = map(3 * MB), *c = map(5 * MB);
	/* Unaligned ends: only the whole pages inside are the helper's. */
	void *p[] = { a, NULL, b + 100, c };
	size_t len[] = { 8 * MB, 1 * MB, 3 * MB - 100, 5 * MB };
	struct prefault *pf;

	if (!can_help())
		return;
	pf = prefault__start_all(p, len, 4);
	cr_assert(pf);
	cr_assert_eq(wait_done(pf, 16 * MB - 4096), 16 * MB - 4096);
	prefault__stop(pf);
	cr_assert_eq(present(a, 8 * MB), 8 * MB);
	cr_assert_eq(present(b, 3 * MB), 3 * MB - 4096);
	cr_assert_eq(present(c, 5 * MB), 5 * MB);
	munmap(a, 8 * MB);
	munmap(b, 3 * MB);
	munmap(c, 5 * MB);
}

Test(prefault, a_stop_midway_does_not_wait_for_the_rest)
{
	size_t len = 512 * MB;
	char *p = map(len);
	struct prefault *pf;
	double t0;

	if (!can_help())
		return;
	pf = prefault__start(p, len, PREFAULT_ALL);
	cr_assert(pf);
	wait_done(pf, 4 * MB);
	t0 = now();
	prefault__stop(pf);
	cr_assert_lt(now() - t0, 1.0, "stop took %.3f s", now() - t0);
	cr_assert_lt(present(p, len), len, "the helper went on to the end");
	munmap(p, len);
}

Test(prefault, no_helper_for_little_memory_and_every_call_takes_null)
{
	char *p = map(PREFAULT_MIN);
	size_t one = PREFAULT_MIN / 2;
	void *two[] = { p, p + one };
	size_t lens[] = { one / 2, one / 2 };

	cr_assert_null(prefault__start(p, PREFAULT_MIN - 1, PREFAULT_ALL));
	cr_assert_null(prefault__start(NULL, 64 * MB, PREFAULT_ALL));
	cr_assert_null(prefault__start_all(two, lens, 2));
	cr_assert_null(prefault__start_all(two, lens, 0));
	cr_assert_null(prefault__start_all(two, lens, PREFAULT_MAX_RANGES + 1));
	prefault__reach(NULL, 1);
	prefault__stop(NULL);
	cr_assert_eq(prefault__done(NULL), 0);
	cr_assert_eq(present(p, PREFAULT_MIN), 0);
	munmap(p, PREFAULT_MIN);
}

/* Under `taskset` to one CPU a helper would only take turns with its writer. */
Test(prefault, no_helper_on_one_cpu)
{
	size_t len = 64 * MB;
	char *p = map(len);
	struct prefault *pf;
	cpu_set_t old;

	if (!can_help())
		return;
	cr_assert(tu_pin_one_cpu(&old), "cannot restrict this process to one CPU");
	pf = prefault__start(p, len, PREFAULT_ALL);
	cr_assert_eq(sched_setaffinity(0, sizeof(old), &old), 0);
	cr_assert_null(pf, "a helper started on one CPU");
	pf = prefault__start(p, len, PREFAULT_ALL);
	cr_assert_not_null(pf, "no helper once the CPUs are back");
	prefault__stop(pf);
	munmap(p, len);
}
