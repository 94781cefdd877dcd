// SPDX-License-Identifier: MIT
/*
 * Two processes joined by UDP on loopback, and a third that disturbs the
 * first, for the end-to-end tests of wakeups that cross the kernel: the
 * sender's own sendto() raises the NET_RX softirq that delivers the packet
 * and wakes the receiver.
 *
 *   sender    on CPU 0, SCHED_FIFO 10: released every 10 ms by an
 *             absolute timer, works 300 us (spins), sends one datagram
 *             holding its iteration number
 *   receiver  on CPU 1, SCHED_FIFO 10: blocks in recv(), works 300 us per
 *             datagram
 *   hog       on CPU 0, SCHED_FIFO 20: from 1 ms before the sender's
 *             period FIRST + EVERY j is due, spins HOG_MS ms: the sender
 *             starts late, its datagram leaves late, the receiver is late
 *
 * Priorities and affinity keep the rest of a busy machine out of the way
 * (it runs under SCHED_OTHER). Where real-time scheduling is not allowed,
 * the workload says so and exits 3.
 *
 * Usage: qt_udp LOGFILE. Log lines (CLOCK_MONOTONIC ns):
 *   sender tid=T | receiver tid=T | hog tid=T
 *   hog start=NS end=NS                  the hog spun
 *   late iteration=K start=NS            the sender's work began 1 ms or more late
 *   recv iteration=K at=NS               the receiver got datagram K
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wl_clock.h"

#define PERIOD_NS 10000000ll
#define ITERATIONS 300
#define FIRST 15
#define EVERY 20
#define HOG_MS 5
#define WORK_NS 300000ll

static FILE *wlog;

/* This process on cpu, SCHED_FIFO at prio, named name; logged with its tid. */
static int place(const char *name, int cpu, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	prctl(PR_SET_NAME, name);
	if (sched_setaffinity(0, sizeof(set), &set) || sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("qt_udp: SCHED_FIFO on a fixed CPU");
		return -1;
	}
	fprintf(wlog, "%s tid=%ld\n", name, (long)syscall(SYS_gettid));
	fflush(wlog);
	return 0;
}

static int sender(int fd, const struct sockaddr_in *to, int64_t t0)
{
	if (place("sender", 0, 10))
		return 3;
	for (int k = 0; k < ITERATIONS; k++) {
		int64_t due = t0 + k * PERIOD_NS, s;
		int32_t msg = k;

		sleep_until(due);
		s = now_ns();
		if (s - due >= 1000000)
			fprintf(wlog, "late iteration=%d start=%lld\n", k, (long long)s);
		spin(WORK_NS);
		if (sendto(fd, &msg, sizeof(msg), 0, (const struct sockaddr *)to, sizeof(*to)) != sizeof(msg)) {
			perror("qt_udp: sendto");
			return 1;
		}
	}
	/* the end: the receiver stops at a negative iteration */
	{
		int32_t end = -1;

		sendto(fd, &end, sizeof(end), 0, (const struct sockaddr *)to, sizeof(*to));
	}
	fflush(wlog);
	return 0;
}

static int receiver(int fd)
{
	int32_t msg;

	if (place("receiver", 1, 10))
		return 3;
	for (;;) {
		if (recv(fd, &msg, sizeof(msg), 0) != sizeof(msg)) {
			perror("qt_udp: recv");
			return 1;
		}
		if (msg < 0)
			break;
		fprintf(wlog, "recv iteration=%d at=%lld\n", msg, (long long)now_ns());
		spin(WORK_NS);
	}
	fflush(wlog);
	return 0;
}

static int hog(int64_t t0)
{
	if (place("hog", 0, 20))
		return 3;
	for (int k = FIRST; k < ITERATIONS - 2; k += EVERY) {
		int64_t s;

		sleep_until(t0 + k * PERIOD_NS - 1000000);
		s = now_ns();
		spin(HOG_MS * 1000000ll);
		fprintf(wlog, "hog start=%lld end=%lld\n", (long long)s, (long long)now_ns());
	}
	fflush(wlog);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(addr);
	int rfd, sfd, status, rc = 0;
	pid_t pid[3];
	int64_t t0;

	if (argc != 2 || !(wlog = fopen(argv[1], "w"))) {
		fprintf(stderr, "usage: qt_udp LOGFILE\n");
		return 2;
	}
	/*
	 * The log stays in memory until each process ends: written a line at
	 * a time, the receiver's write() blocked under other programs' disk
	 * load (stress-ng --io), a kworker woke it, and the path into its
	 * invocation rightly ran through that kworker instead of the sender.
	 */
	setvbuf(wlog, NULL, _IOFBF, 1 << 20);
	rfd = socket(AF_INET, SOCK_DGRAM, 0);
	sfd = socket(AF_INET, SOCK_DGRAM, 0);
	if (rfd < 0 || sfd < 0 || bind(rfd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(rfd, (struct sockaddr *)&addr, &len)) {
		perror("qt_udp: a UDP socket on loopback");
		return 1;
	}
	t0 = now_ns() + 100000000ll;
	for (int i = 0; i < 3; i++) {
		pid[i] = fork();
		if (pid[i] < 0) {
			perror("qt_udp: fork");
			return 1;
		}
		if (pid[i] == 0) {
			close(i == 1 ? sfd : rfd);
			_exit(i == 0 ? sender(sfd, &addr, t0) : i == 1 ? receiver(rfd) : hog(t0));
		}
	}
	close(rfd);
	close(sfd);
	for (int i = 0; i < 3; i++) {
		if (waitpid(pid[i], &status, 0) != pid[i] || !WIFEXITED(status) || WEXITSTATUS(status)) {
			int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;

			rc = rc ? rc : code ? code : 1;
			/* one that could not start: the others would wait for it forever */
			for (int j = 0; j < 3; j++)
				if (j != i)
					kill(pid[j], SIGKILL);
		}
	}
	return rc;
}
