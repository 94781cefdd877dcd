// SPDX-License-Identifier: MIT
/*
 * Two threads of known segment times for the progress graph's end-to-end
 * test (tests/e2e/test_e2e_progress.c), each pinned to a CPU of its own at
 * a real-time priority, so that a busy machine does not change their
 * rhythm:
 *
 *   pc        pg_prod (CPU 0) is released every PERIOD_MS by an absolute
 *             timer, computes A_MS and writes a byte into a pipe; pg_cons
 *             (CPU 1) reads it (blocking until the write), computes B_MS
 *             and reads again. Every SLOW_EVERY-th iteration (from
 *             SLOW_FIRST) the producer computes SLOW_MS more: the
 *             consumer waits that much longer, once.
 *   pingpong  pg_ping computes A_MS, writes into pipe 1 and reads pipe 2;
 *             pg_pong reads pipe 1, computes B_MS and writes into pipe 2:
 *             each waits while the other computes.
 *
 * Usage: qt_progress pc|pingpong LOGFILE [ITERATIONS]. The times are
 * taken in memory and written at the end, CLOCK_MONOTONIC ns:
 *   rt=1|0                       the real-time priority was granted
 *   NAME tid=T rfd=R wfd=W       each thread, its pipe ends
 *   read NAME i=K t=NS           NAME enters read() for iteration K
 *   write NAME i=K t=NS          NAME enters write() for iteration K
 *   wrote NAME i=K t=NS          NAME's write() of iteration K returned:
 *                                the reader was woken in between
 *   slow i=K                     the producer's iteration K was slowed
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "wl_clock.h"

#define PERIOD_MS 5
#define A_MS 3
#define B_MS 2
#define SLOW_MS 8
#define SLOW_FIRST 60
#define SLOW_EVERY 80
#define MAX_ITER 4000

struct side {
	const char *name;
	int cpu, rfd, wfd;
	long tid;
	int64_t *rd, *wr, *wrote;	/* per iteration: entering read(), write(); write() returned */
};

static int iterations = 400;
static int64_t t0;
static int rt_ok = 1;

/* Its name, its CPU, a real-time priority: other work on the machine does not get in between. */
static void start(struct side *s)
{
	/* above the demo pipeline's real-time threads (20), which other tests run at the same time */
	struct sched_param sp = { .sched_priority = 50 };
	cpu_set_t set;

	prctl(PR_SET_NAME, s->name);
	s->tid = syscall(SYS_gettid);
	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		__atomic_store_n(&rt_ok, 0, __ATOMIC_RELAXED);
}

static int one_byte(int fd, int writing)
{
	char c = 'x';

	return (writing ? write(fd, &c, 1) : read(fd, &c, 1)) == 1 ? 0 : -1;
}

static void *producer(void *arg)
{
	struct side *s = arg;

	start(s);
	for (int k = 0; k < iterations; k++) {
		sleep_until(t0 + (int64_t)k * PERIOD_MS * 1000000);
		spin((A_MS + (k >= SLOW_FIRST && (k - SLOW_FIRST) % SLOW_EVERY == 0 ? SLOW_MS : 0)) * 1000000ll);
		s->wr[k] = now_ns();
		if (one_byte(s->wfd, 1))
			break;
		s->wrote[k] = now_ns();
	}
	return NULL;
}

/*
 * The consumer (pc) and the pong (pingpong): read, compute B_MS, and in
 * pingpong write back (wfd >= 0); the ping's side is the other.
 */
static void *follower(void *arg)
{
	struct side *s = arg;

	start(s);
	for (int k = 0; k < iterations; k++) {
		s->rd[k] = now_ns();
		if (one_byte(s->rfd, 0))
			break;
		spin(B_MS * 1000000ll);
		if (s->wfd < 0)
			continue;
		s->wr[k] = now_ns();
		if (one_byte(s->wfd, 1))
			break;
		s->wrote[k] = now_ns();
	}
	return NULL;
}

static void *ping(void *arg)
{
	struct side *s = arg;

	start(s);
	sleep_until(t0);
	for (int k = 0; k < iterations; k++) {
		spin(A_MS * 1000000ll);
		s->wr[k] = now_ns();
		s->rd[k] = 0;
		if (one_byte(s->wfd, 1))
			break;
		s->wrote[k] = now_ns();
		s->rd[k] = now_ns();
		if (one_byte(s->rfd, 0))
			break;
	}
	return NULL;
}

static void dump(FILE *f, const struct side *s)
{
	for (int k = 0; k < iterations; k++) {
		if (s->rd[k])
			fprintf(f, "read %s i=%d t=%lld\n", s->name, k, (long long)s->rd[k]);
		if (s->wr[k])
			fprintf(f, "write %s i=%d t=%lld\n", s->name, k, (long long)s->wr[k]);
		if (s->wrote[k])
			fprintf(f, "wrote %s i=%d t=%lld\n", s->name, k, (long long)s->wrote[k]);
	}
}

int main(int argc, char **argv)
{
	struct side s[2] = { { .cpu = 0 }, { .cpu = 1 } };
	int p1[2], p2[2], pingpong;
	pthread_t th[2];
	FILE *f;

	if (argc < 3 || argc > 4 || (strcmp(argv[1], "pc") && strcmp(argv[1], "pingpong"))) {
		fprintf(stderr, "usage: qt_progress pc|pingpong LOGFILE [ITERATIONS]\n");
		return 2;
	}
	pingpong = !strcmp(argv[1], "pingpong");
	if (argc == 4)
		iterations = atoi(argv[3]);
	if (iterations < 1 || iterations > MAX_ITER) {
		fprintf(stderr, "qt_progress: 1 to %d iterations\n", MAX_ITER);
		return 2;
	}
	f = fopen(argv[2], "w");
	if (!f || pipe(p1) || pipe(p2)) {
		perror(argv[2]);
		return 1;
	}
	s[0].name = pingpong ? "pg_ping" : "pg_prod";
	s[1].name = pingpong ? "pg_pong" : "pg_cons";
	s[0].wfd = p1[1];
	s[1].rfd = p1[0];
	s[0].rfd = pingpong ? p2[0] : -1;
	s[1].wfd = pingpong ? p2[1] : -1;
	for (int i = 0; i < 2; i++) {
		s[i].rd = calloc(iterations, sizeof(int64_t));
		s[i].wr = calloc(iterations, sizeof(int64_t));
		s[i].wrote = calloc(iterations, sizeof(int64_t));
		if (!s[i].rd || !s[i].wr || !s[i].wrote)
			return 1;
	}
	/* the first period 100 ms on: both threads have started and pinned themselves */
	t0 = now_ns() + 100000000ll;
	if (pthread_create(&th[0], NULL, pingpong ? ping : producer, &s[0]) ||
	    pthread_create(&th[1], NULL, follower, &s[1])) {
		perror("pthread_create");
		return 1;
	}
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	fprintf(f, "rt=%d\n", rt_ok);
	for (int i = 0; i < 2; i++)
		fprintf(f, "%s tid=%ld rfd=%d wfd=%d\n", s[i].name, s[i].tid, s[i].rfd, s[i].wfd);
	for (int k = SLOW_FIRST; !pingpong && k < iterations; k += SLOW_EVERY)
		fprintf(f, "slow i=%d\n", k);
	dump(f, &s[0]);
	dump(f, &s[1]);
	return fclose(f) ? 1 : 0;
}
