// SPDX-License-Identifier: MIT
/*
 * One periodic thread, for the end-to-end tests that put it somewhere
 * (a cgroup with a CPU quota): released every PERIOD_US by an absolute
 * timer, it burns SPIN_US of its own CPU time, N times; every EVERY-th
 * time (from the EVERY/2-th) HEAVY_US instead, as a video encoder does on
 * key frames. Periods due while it still works are dropped, as a live
 * source drops frames.
 *
 * Usage: qt_periodic PERIOD_US SPIN_US N LOGFILE [EVERY HEAVY_US]. Log lines
 * (CLOCK_MONOTONIC ns):
 *   periodic tid=T
 *   start iteration=K at=NS slept=B    every period's work began at NS; B 0 when
 *                                      it was due before the thread asked to sleep
 *                                      (no wakeup then: it ran on)
 *   heavy iteration=K start=NS end=NS  a heavy period's work
 *   late iteration=K start=NS          a period whose work began 1 ms or more after it was due
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* CPU time, not wall time: a throttled or preempted thread still does all its work. */
static void burn(int64_t ns)
{
	int64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

int main(int argc, char **argv)
{
	int64_t period, spin, heavy = 0, t0;
	int n, every = 0;
	FILE *wlog;

	if (argc != 5 && argc != 7) {
		fprintf(stderr, "usage: qt_periodic PERIOD_US SPIN_US N LOGFILE [EVERY HEAVY_US]\n");
		return 2;
	}
	period = atoll(argv[1]) * 1000;
	spin = atoll(argv[2]) * 1000;
	n = atoi(argv[3]);
	wlog = fopen(argv[4], "w");
	if (argc == 7) {
		every = atoi(argv[5]);
		heavy = atoll(argv[6]) * 1000;
	}
	if (period <= 0 || spin < 0 || n <= 0 || every < 0 || heavy < 0 || !wlog) {
		fprintf(stderr, "qt_periodic: bad arguments\n");
		return 2;
	}
	prctl(PR_SET_NAME, "periodic");
	fprintf(wlog, "periodic tid=%ld\n", (long)syscall(SYS_gettid));
	t0 = clock_ns(CLOCK_MONOTONIC) + 50000000ll;
	for (int k = 0; k < n; k++) {
		struct timespec ts = { .tv_sec = (t0 + k * period) / 1000000000ll,
				       .tv_nsec = (t0 + k * period) % 1000000000ll };
		int64_t s, asked = clock_ns(CLOCK_MONOTONIC);

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		s = clock_ns(CLOCK_MONOTONIC);
		/* the truth a trace of it is checked against (scripts/vm/check.py) */
		fprintf(wlog, "start iteration=%d at=%lld slept=%d\n", k, (long long)s, asked < t0 + k * period);
		if (s - (t0 + k * period) >= 1000000)
			fprintf(wlog, "late iteration=%d start=%lld\n", k, (long long)s);
		if (every && k % every == every / 2) {
			burn(heavy);
			fprintf(wlog, "heavy iteration=%d start=%lld end=%lld\n", k, (long long)s,
				(long long)clock_ns(CLOCK_MONOTONIC));
		} else {
			burn(spin);
		}
		while (k + 1 < n && t0 + (k + 1) * period < clock_ns(CLOCK_MONOTONIC))
			k++;
	}
	fclose(wlog);
	return 0;
}
