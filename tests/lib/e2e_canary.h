/* SPDX-License-Identifier: MIT */
/*
 * An independent witness of the machine's own stalls for the end-to-end
 * tests: a process of the test's (named "canary"), pinned to one CPU at a
 * SCHED_FIFO priority above every workload and disturber of the tests,
 * wakes every millisecond on an absolute timer and logs each wakeup late
 * by E2E_CANARY_LATE_NS or more (CLOCK_MONOTONIC ns):
 *
 *   stall due=NS woke=NS
 *
 * Nothing on the machine can delay it but the kernel and the host: a
 * virtual machine whose host does not run a virtual CPU for a while
 * delays every thread of that CPU alike. Measured on the development VM,
 * idle but for other VMs on its host: 58 wakeups late by 0.3 to 16 ms in
 * 10 s, at priority 45. A break of a real-time pipeline on that CPU that
 * lies on such a stall is the machine's, and the report explains it
 * there (its invocation released late, or running long); one on no stall
 * is the pipeline's.
 */
#ifndef QT_E2E_CANARY_H
#define QT_E2E_CANARY_H

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "e2e_disturber.h"
#include "e2eutil.h"
#include "testutil.h"

#define E2E_CANARY_PRIO 60		/* above the tests' workloads (5 to 40) and disturbers (10 to 50) */
#define E2E_CANARY_LATE_NS 250000LL
#define E2E_CANARY_MAX 4096
#define E2E_CANARY_CPUS 8		/* canaries on the first CPUs of the machine, at most */

struct e2e_stalls {
	struct e2e_disturbance v[E2E_CANARY_MAX];	/* [due, woke] */
	int cpu[E2E_CANARY_MAX];
	size_t n;
	int64_t worst_ns;
};

/* Forks the canary on cpu, logging to log; kill it (SIGKILL) and wait. */
static inline pid_t e2e_canary_start(const char *log, int cpu)
{
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0) {
		FILE *f = e2e_rt_child(log, "canary", cpu, E2E_CANARY_PRIO);
		int64_t at;

		for (at = e2e_now_ns();; ) {
			struct timespec ts;
			int64_t woke;

			at += 1000000;
			ts = (struct timespec){ .tv_sec = at / 1000000000LL, .tv_nsec = at % 1000000000LL };
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			woke = e2e_now_ns();
			if (woke - at >= E2E_CANARY_LATE_NS)
				fprintf(f, "stall due=%lld woke=%lld\n", (long long)at, (long long)woke);
			if (woke > at + 1000000)	/* missed ticks: on from now */
				at = woke - woke % 1000000;
		}
	}
	return pid;
}

/*
 * The log of the canary of cpu, added to *s (start from { 0 }); the test
 * fails if the canary could not have its priority.
 */
static inline void e2e_canary_read(const char *log, int cpu, struct e2e_stalls *s)
{
	FILE *f = fopen(log, "r");
	char line[128];

	cr_assert(f, "canary log %s missing", log);
	while (fgets(line, sizeof(line), f)) {
		long long due, woke;

		cr_assert(strncmp(line, "nofifo", 6), "the canary could not run at SCHED_FIFO: %s", line);
		if (sscanf(line, "stall due=%lld woke=%lld", &due, &woke) != 2 || s->n == E2E_CANARY_MAX)
			continue;
		s->cpu[s->n] = cpu;
		s->v[s->n++] = (struct e2e_disturbance){ due, woke };
		s->worst_ns = woke - due > s->worst_ns ? woke - due : s->worst_ns;
	}
	fclose(f);
}

/* Did the canary of cpu (-1: of any) see a stall in [start, end]? */
static inline bool e2e_stalled(const struct e2e_stalls *s, int cpu, int64_t start, int64_t end)
{
	for (size_t i = 0; i < s->n; i++)
		if ((cpu < 0 || s->cpu[i] == cpu) && s->v[i].start <= end && s->v[i].end >= start)
			return true;
	return false;
}

/* The log of the canary of cpu for the recording name, in dir. */
static inline void e2e_canary_log(char *buf, size_t len, const char *dir, const char *name, int cpu)
{
	snprintf(buf, len, "%s/%s-canary%d.log", dir, name, cpu);
}

/* The CPUs that get a canary: the first E2E_CANARY_CPUS of the machine. */
static inline int e2e_canary_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > E2E_CANARY_CPUS ? E2E_CANARY_CPUS : (int)n;
}

/* A canary on each CPU, logging into dir for the recording name; pid[E2E_CANARY_CPUS]. */
static inline void e2e_canaries_start(const char *dir, const char *name, pid_t *pid)
{
	char log[512];

	for (int c = 0; c < e2e_canary_cpus(); c++) {
		e2e_canary_log(log, sizeof(log), dir, name, c);
		pid[c] = e2e_canary_start(log, c);
	}
}

/*
 * Stops the canaries of e2e_canaries_start() (pid NULL: none ran now, a
 * kept recording's) and reads their logs into *s.
 */
static inline void e2e_canaries_stop(const char *dir, const char *name, const pid_t *pid, struct e2e_stalls *s)
{
	char log[512];

	memset(s, 0, sizeof(*s));
	for (int c = 0; c < e2e_canary_cpus(); c++) {
		if (pid) {
			kill(pid[c], SIGKILL);
			waitpid(pid[c], NULL, 0);
		}
		e2e_canary_log(log, sizeof(log), dir, name, c);
		e2e_canary_read(log, c, s);
	}
}

/*
 * e2e_record_once() with a canary on each CPU while it records, their
 * stalls into *s; a kept recording's are read from the logs it left.
 */
static inline void e2e_record_witnessed(const struct e2e_scratch *sc, char *const argv[], const char *name,
					int timeout_ms, struct e2e_stalls *s)
{
	pid_t pid[E2E_CANARY_CPUS];
	char done[300], mark[512];
	bool again;

	snprintf(done, sizeof(done), "%s.done", name);
	snprintf(mark, sizeof(mark), "%s/%s", sc->dir, done);
	again = !sc->keep || access(mark, F_OK);
	if (again)
		e2e_canaries_start(sc->dir, name, pid);
	e2e_record_once(sc, argv, done, timeout_ms);
	e2e_canaries_stop(sc->dir, name, again ? pid : NULL, s);
}

#endif
