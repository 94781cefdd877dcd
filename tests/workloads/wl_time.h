/* SPDX-License-Identifier: MIT */
/*
 * The clock of the workloads that log their own truth (tests/workloads/):
 * CLOCK_MONOTONIC, the recorder's clock, so that a log's times compare
 * with a recording's directly.
 */
#ifndef QT_WL_TIME_H
#define QT_WL_TIME_H

#include <stdint.h>
#include <time.h>

/* Now, in ns. */
static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Computes for ns of wall time: on the CPU throughout, unlike a sleep. */
static inline void spin(int64_t ns)
{
	int64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}

/* Sleeps until the absolute time at (ns), whatever signals come. */
static inline void sleep_until(int64_t at)
{
	struct timespec ts = { .tv_sec = at / 1000000000ll, .tv_nsec = at % 1000000000ll };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

#endif
