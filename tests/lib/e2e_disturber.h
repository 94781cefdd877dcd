/* SPDX-License-Identifier: MIT */
/*
 * A disturber of the end-to-end tests' own: a process named "disturber"
 * pinned to one CPU at a SCHED_FIFO priority, busy for a given time at a
 * given interval until killed, that logs when (CLOCK_MONOTONIC ns). Its
 * log is the ground truth of when a pipeline on that CPU was disturbed.
 *
 *   tid=T
 *   disturb start=NS end=NS      one line after each busy stretch
 *   nofifo errno=E               it could not have its priority (and stopped)
 */
#ifndef QT_E2E_DISTURBER_H
#define QT_E2E_DISTURBER_H

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define E2E_MAX_DISTURBANCES 32

struct e2e_disturbance {
	int64_t start, end;
};

struct e2e_disturber_log {
	int tid;
	struct e2e_disturbance d[E2E_MAX_DISTURBANCES];
	size_t n;
};

static inline int64_t e2e_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * In a child just forked: names it comm, pins it to cpu at SCHED_FIFO
 * prio and returns its log (line-buffered); where it cannot have them it
 * logs "nofifo errno=E" (the reader fails the test) and exits.
 */
static inline FILE *e2e_rt_child(const char *log, const char *comm, int cpu, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	FILE *f = fopen(log, "w");
	cpu_set_t set;

	if (!f)
		_exit(1);
	setvbuf(f, NULL, _IOLBF, 0);
	prctl(PR_SET_NAME, comm);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) || sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(f, "nofifo errno=%d\n", errno);
		_exit(1);
	}
	return f;
}

/*
 * Forks the disturber: on cpu at SCHED_FIFO prio, busy length_ns every
 * every_ns, logging to log. Returns its pid; kill it (SIGKILL) and wait.
 */
static inline pid_t e2e_disturber_start(const char *log, int cpu, int prio, int64_t every_ns, int64_t length_ns)
{
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0) {
		FILE *f = e2e_rt_child(log, "disturber", cpu, prio);
		int64_t t0;

		fprintf(f, "tid=%d\n", (int)getpid());
		t0 = e2e_now_ns();
		for (int64_t k = 1;; k++) {
			int64_t at = t0 + k * every_ns, s;
			struct timespec ts = { .tv_sec = at / 1000000000LL, .tv_nsec = at % 1000000000LL };

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			s = e2e_now_ns();
			while (e2e_now_ns() < s + length_ns)
				;
			fprintf(f, "disturb start=%lld end=%lld\n", (long long)s, (long long)e2e_now_ns());
		}
	}
	return pid;
}

/* The disturber's log into *lg; the test fails if it could not run at its priority. */
static inline void e2e_disturber_read(const char *log, struct e2e_disturber_log *lg)
{
	FILE *f = fopen(log, "r");
	char line[128];

	cr_assert(f, "disturber log %s missing", log);
	memset(lg, 0, sizeof(*lg));
	while (fgets(line, sizeof(line), f)) {
		long long s, e;

		cr_assert(strncmp(line, "nofifo", 6), "the disturber could not run at SCHED_FIFO: %s", line);
		if (sscanf(line, "tid=%d", &lg->tid) == 1)
			continue;
		if (sscanf(line, "disturb start=%lld end=%lld", &s, &e) == 2 && lg->n < E2E_MAX_DISTURBANCES)
			lg->d[lg->n++] = (struct e2e_disturbance){ s, e };
	}
	fclose(f);
	cr_assert(lg->tid, "no tid in the disturber's log");
}

#endif
