/* SPDX-License-Identifier: MIT */
/*
 * What the workloads that keep a schedule share: CLOCK_MONOTONIC in ns,
 * a busy wait, and a sleep to an absolute time (immune to how late the
 * previous period ran).
 */
#ifndef QT_WL_CLOCK_H
#define QT_WL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Works (spins) for ns of wall time. */
static inline void spin(int64_t ns)
{
	int64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}

/* Sleeps until CLOCK_MONOTONIC reads at, through signals. */
static inline void sleep_until(int64_t at)
{
	struct timespec ts = { .tv_sec = at / 1000000000ll, .tv_nsec = at % 1000000000ll };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

#endif
