// SPDX-License-Identifier: MIT
/*
 * Two processes, one feeding the other every 10 ms through a path where
 * the kernel does the waking, for tests/bench/wake_chains (what the
 * recording says woke the reader, scripts/bench-softirq-raise.sh):
 *
 *   uring  a datagram on loopback; the reader waits for it with io_uring
 *          (IORING_OP_RECV: armed as a poll, completed by task work that
 *          the NET_RX softirq queues)
 *   pty    a line written to a pseudo-terminal's master; the reader blocks
 *          in read() on the slave (the tty layer hands the bytes over in a
 *          kworker)
 *
 * Usage: wake_paths uring|pty COUNT. Exits 0 when the reader got them all.
 */
#include <arpa/inet.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <pty.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static void tick(void)
{
	struct timespec ts = { 0, 10000000 };

	nanosleep(&ts, NULL);
}

/* A one-entry io_uring, raw (no liburing here): receives n datagrams on fd. */
static int uring_reader(int fd, int n)
{
	struct io_uring_params p;
	struct io_uring_sqe *sqes;
	unsigned *sq_tail, *sq_array, *cq_head, *cq_tail, *sq_mask, *cq_mask;
	struct io_uring_cqe *cqes;
	char *sq, *cq, buf[64];
	int ring;

	memset(&p, 0, sizeof(p));
	ring = (int)syscall(SYS_io_uring_setup, 1, &p);
	if (ring < 0) {
		perror("wake_paths: io_uring_setup");
		return 3;
	}
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE, MAP_SHARED,
		  ring, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe), PROT_READ | PROT_WRITE,
		  MAP_SHARED, ring, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE, MAP_SHARED, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
		perror("wake_paths: io_uring mmap");
		return 1;
	}
	sq_tail = (unsigned *)(sq + p.sq_off.tail);
	sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	sq_array = (unsigned *)(sq + p.sq_off.array);
	cq_head = (unsigned *)(cq + p.cq_off.head);
	cq_tail = (unsigned *)(cq + p.cq_off.tail);
	cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	for (int i = 0; i < n; i++) {
		unsigned t = *sq_tail, h;

		memset(&sqes[0], 0, sizeof(sqes[0]));
		sqes[0].opcode = IORING_OP_RECV;
		sqes[0].fd = fd;
		sqes[0].addr = (uintptr_t)buf;
		sqes[0].len = sizeof(buf);
		sq_array[t & *sq_mask] = 0;
		__atomic_store_n(sq_tail, t + 1, __ATOMIC_RELEASE);
		if (syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) {
			perror("wake_paths: io_uring_enter");
			return 1;
		}
		h = *cq_head;
		if (h == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) || cqes[h & *cq_mask].res <= 0)
			return 1;
		__atomic_store_n(cq_head, h + 1, __ATOMIC_RELEASE);
	}
	return 0;
}

static int uring(int n)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int rfd = socket(AF_INET, SOCK_DGRAM, 0), sfd = socket(AF_INET, SOCK_DGRAM, 0), st;
	pid_t pid;

	if (rfd < 0 || sfd < 0 || bind(rfd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(rfd, (struct sockaddr *)&a, &len)) {
		perror("wake_paths: sockets");
		return 1;
	}
	pid = fork();
	if (pid == 0)
		_exit(uring_reader(rfd, n));
	for (int i = 0; i < n; i++) {
		tick();
		sendto(sfd, "x", 1, 0, (struct sockaddr *)&a, sizeof(a));
	}
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static int pty(int n)
{
	int master, slave, st;
	struct termios tio;
	pid_t pid;

	if (openpty(&master, &slave, NULL, NULL, NULL)) {
		perror("wake_paths: openpty");
		return 1;
	}
	tcgetattr(slave, &tio);
	cfmakeraw(&tio);
	tcsetattr(slave, TCSANOW, &tio);
	pid = fork();
	if (pid == 0) {
		char c;

		for (int i = 0; i < n; i++)
			if (read(slave, &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (int i = 0; i < n; i++) {
		tick();
		if (write(master, "x", 1) != 1)
			return 1;
	}
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv)
{
	int n = argc == 3 ? atoi(argv[2]) : 0;

	if (n > 0 && !strcmp(argv[1], "uring"))
		return uring(n);
	if (n > 0 && !strcmp(argv[1], "pty"))
		return pty(n);
	fprintf(stderr, "usage: wake_paths uring|pty COUNT\n");
	return 2;
}
