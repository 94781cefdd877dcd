/* Helpers shared by the Criterion test files. */
#ifndef QT_TESTUTIL_H
#define QT_TESTUTIL_H

#include <criterion/criterion.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A private temporary directory per test process, removed by the caller. */
static inline char *tu_tmpdir(void)
{
	char *d = strdup("/tmp/qostrace-test-XXXXXX");

	cr_assert(d && mkdtemp(d), "mkdtemp failed");
	return d;
}

static inline void tu_rmdir(const char *d)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", d);
}

/* How many times needle occurs in hay (overlapping ones too). */
static inline size_t tu_count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/*
 * The calling process restricted to the first CPU of its affinity set, as
 * `taskset -c N` would start it; *old gets the set to restore. false when
 * the set cannot be read or changed.
 */
static inline bool tu_pin_one_cpu(cpu_set_t *old)
{
	cpu_set_t one;

	if (sched_getaffinity(0, sizeof(*old), old))
		return false;
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, old)) {
			CPU_SET(c, &one);
			break;
		}
	}
	return !sched_setaffinity(0, sizeof(one), &one);
}

/* Deterministic PRNG (xorshift64*) for property tests: failures reproduce. */
static inline unsigned long long tu_rand(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static inline long long tu_rand_range(unsigned long long *s, long long lo, long long hi)
{
	return lo + (long long)(tu_rand(s) % (unsigned long long)(hi - lo + 1));
}

#endif
