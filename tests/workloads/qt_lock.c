// SPDX-License-Identifier: MIT
/*
 * A player and a logger sharing a lock, for the end-to-end tests: the case
 * where a period's work starts on time and ends late.
 *
 *   player   on CPU 0: released every 10 ms by an absolute timer
 *            (clock_nanosleep TIMER_ABSTIME), takes the lock, works 1 ms
 *            (spins), lets it go
 *   logger   on CPU 1: takes the lock 1 ms before the player's period
 *            12 + 25 j is due and holds it HOLD_MS ms (6, and 12 every
 *            third time: past the next period's due time, whose work then
 *            runs late right after, in the same run), working meanwhile
 *
 * Usage: qt_lock LOGFILE. Log lines (CLOCK_MONOTONIC ns):
 *   player tid=T | logger tid=T
 *   hold start=NS end=NS                 the logger held the lock
 *   wait iteration=K start=NS locked=NS  the player waited >= 1 ms for it
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "wl_time.h"

#define PERIOD_NS 10000000ll
#define ITERATIONS 400
#define FIRST 12
#define EVERY 25

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static FILE *wlog;
static int64_t t0;

static void start(const char *name, int cpu)
{
	cpu_set_t set;

	prctl(PR_SET_NAME, name);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* one CPU may be all there is: then both share it, which is still the case */
	sched_setaffinity(0, sizeof(set), &set);
	pthread_mutex_lock(&log_mu);
	fprintf(wlog, "%s tid=%ld\n", name, (long)syscall(SYS_gettid));
	pthread_mutex_unlock(&log_mu);
}

static void *player(void *arg)
{
	(void)arg;
	start("player", 0);
	for (int k = 0; k < ITERATIONS; k++) {
		int64_t s, l;

		sleep_until(t0 + k * PERIOD_NS);
		s = now_ns();
		pthread_mutex_lock(&mu);
		l = now_ns();
		spin(PERIOD_NS / 10);
		pthread_mutex_unlock(&mu);
		if (l - s >= 1000000) {
			pthread_mutex_lock(&log_mu);
			fprintf(wlog, "wait iteration=%d start=%lld locked=%lld\n", k, (long long)s, (long long)l);
			pthread_mutex_unlock(&log_mu);
		}
	}
	return NULL;
}

static void *logger(void *arg)
{
	(void)arg;
	start("logger", 1);
	for (int j = 0; FIRST + j * EVERY < ITERATIONS - 2; j++) {
		int64_t hold = (j % 3 == 2 ? 12 : 6) * 1000000ll, s, e;

		sleep_until(t0 + (FIRST + j * EVERY) * PERIOD_NS - 1000000);
		pthread_mutex_lock(&mu);
		s = now_ns();
		spin(hold);
		e = now_ns();
		pthread_mutex_unlock(&mu);
		pthread_mutex_lock(&log_mu);
		fprintf(wlog, "hold start=%lld end=%lld\n", (long long)s, (long long)e);
		pthread_mutex_unlock(&log_mu);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t p, l;

	if (argc != 2) {
		fprintf(stderr, "usage: qt_lock LOGFILE\n");
		return 2;
	}
	wlog = fopen(argv[1], "w");
	if (!wlog) {
		perror(argv[1]);
		return 1;
	}
	setvbuf(wlog, NULL, _IOLBF, 0);
	/* the first period 100 ms on: both threads have started and pinned themselves */
	t0 = now_ns() + 100000000ll;
	if (pthread_create(&p, NULL, player, NULL) || pthread_create(&l, NULL, logger, NULL)) {
		perror("pthread_create");
		return 1;
	}
	pthread_join(p, NULL);
	pthread_join(l, NULL);
	fclose(wlog);
	return 0;
}
