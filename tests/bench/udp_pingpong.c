// SPDX-License-Identifier: MIT
/*
 * A UDP ping-pong on loopback between two processes, for the recording
 * cost of softirq raises (scripts/bench-softirq-raise.sh): each sendto()
 * raises NET_RX, which delivers the datagram and wakes the peer; what
 * `perf bench sched pipe` is for context switches, this is for the
 * softirqs a thread raises. Both processes on the CPU given, as the pipe
 * benchmark is run.
 *
 * Usage: udp_pingpong ROUNDS CPU. Prints "<round trips/s> ops/sec".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int bound_socket(struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a->sin_port = 0;
	if (fd < 0 || bind(fd, (struct sockaddr *)a, sizeof(*a)) || getsockname(fd, (struct sockaddr *)a, &len))
		return -1;
	return fd;
}

/* n times: send to peer, wait for its datagram (first: wait, then send). */
static int play(int fd, const struct sockaddr_in *peer, long n, int first)
{
	char b = 0;

	for (long i = 0; i < n; i++) {
		if (!first && recv(fd, &b, 1, 0) != 1)
			return 1;
		if (sendto(fd, &b, 1, 0, (const struct sockaddr *)peer, sizeof(*peer)) != 1)
			return 1;
		if (first && recv(fd, &b, 1, 0) != 1)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a, b;
	struct timespec t0, t1;
	cpu_set_t set;
	long n;
	int fa, fb, st;
	pid_t pid;

	if (argc != 3 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: udp_pingpong ROUNDS CPU\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[2]), &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("udp_pingpong: affinity");
		return 1;
	}
	fa = bound_socket(&a);
	fb = bound_socket(&b);
	if (fa < 0 || fb < 0) {
		perror("udp_pingpong: sockets");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0)
		_exit(play(fb, &a, n, 0));
	if (pid < 0 || play(fa, &b, n, 1) || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "udp_pingpong: the ping-pong failed\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.0f ops/sec\n", n / ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9));
	return 0;
}
