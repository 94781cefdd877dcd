// SPDX-License-Identifier: MIT
/*
 * A pipeline of four processes whose data-flow critical path is known by
 * construction, for the end-to-end test of report --data-path
 * (docs/ALGORITHMS.md §9):
 *
 *   df_prod1 --pipe 1--> df_trans --> DIR/x1 --\
 *   df_prod2 --pipe 2--> df_trans --> DIR/x2 ---> df_cons --> DIR/out
 *
 * Each producer writes one 4 KiB message (atomic in a pipe) into its
 * pipe; the transformer, as each pipe becomes readable, reads its message
 * and writes it to its file (x1 for pipe 1, x2 for pipe 2); the consumer
 * (the first process) waits for the three, reads x1 and x2, and writes
 * both into out: a merge. SLOW (1 or 2) names the producer that writes
 * last: it waits, on a futex (no data call), until the transformer has
 * written the other producer's file. The order of the data is then fixed
 * whatever the machine's load: the slow producer's message arrives last,
 * its file is written last, and the critical input of out is that file
 * (the MERGE rule: the input that arrived last).
 *
 * Usage: qt_dataflow DIR LOGFILE SLOW. The outputs are opened (O_TRUNC)
 * before any message is written, as a pipeline opens its outputs first.
 * The log is written into a shared mapping of LOGFILE (made its size by
 * ftruncate, not 0): writes through memory are no data calls, so the log
 * is no output of the pipeline. Lines, CLOCK_MONOTONIC ns around each call:
 *   proc NAME pid=P
 *   obj NAME ID            pipe1, pipe2: pipe:[INO]; x1, x2, out: MAJ:MIN:INO
 *   write NAME pid=P obj=NAME before=NS after=NS
 *   read NAME pid=P obj=NAME before=NS after=NS
 *   slow prodN
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl_clock.h"

#define MSG 4096
#define LOG_BYTES (64 << 10)

struct shared {
	atomic_uint fast_done;	/* the transformer wrote the fast producer's file */
	atomic_size_t len;	/* of the log */
};

static struct shared *sh;
static char *logbuf;

static void logf_(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	size_t n, at;

	va_start(ap, fmt);
	n = (size_t)vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	at = atomic_fetch_add(&sh->len, n);
	if (at + n < LOG_BYTES)
		memcpy(logbuf + at, line, n);
}

static void die(const char *what)
{
	perror(what);
	_exit(1);
}

static void obj_of(int fd, const char *name)
{
	struct stat st;

	if (fstat(fd, &st))
		die("fstat");
	if (S_ISFIFO(st.st_mode))
		logf_("obj %s pipe:[%llu]\n", name, (unsigned long long)st.st_ino);
	else
		logf_("obj %s %u:%u:%llu\n", name, major(st.st_dev), minor(st.st_dev),
		      (unsigned long long)st.st_ino);
}

/* write() of n bytes with the log line around it. */
static void logged_write(const char *who, int fd, const char *obj, const char *buf, size_t n)
{
	int64_t before = now_ns(), after;

	if (write(fd, buf, n) != (ssize_t)n)
		die("write");
	after = now_ns();
	logf_("write %s pid=%d obj=%s before=%lld after=%lld\n", who, getpid(), obj, (long long)before,
	      (long long)after);
}

/* Reads exactly n bytes (a message, or a whole file) with one log line around the reads. */
static void logged_read(const char *who, int fd, const char *obj, char *buf, size_t n)
{
	int64_t before = now_ns();
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, buf + got, n - got);

		if (k <= 0)
			die("read");
		got += k;
	}
	logf_("read %s pid=%d obj=%s before=%lld after=%lld\n", who, getpid(), obj, (long long)before,
	      (long long)now_ns());
}

static void wait_fast_done(void)
{
	while (!atomic_load(&sh->fast_done))
		syscall(SYS_futex, &sh->fast_done, FUTEX_WAIT, 0, NULL, NULL, 0);
}

static void producer(int k, int wfd, bool slow)
{
	char name[16], obj[8], msg[MSG];

	snprintf(name, sizeof(name), "df_prod%d", k);
	snprintf(obj, sizeof(obj), "pipe%d", k);
	prctl(PR_SET_NAME, name);
	logf_("proc %s pid=%d\n", name, getpid());
	memset(msg, '0' + k, sizeof(msg));
	if (slow)
		wait_fast_done();
	logged_write(name, wfd, obj, msg, sizeof(msg));
	_exit(0);
}

static void transformer(int rfd[2], int xfd[2], int slow)
{
	static const char *const pipes[] = { "pipe1", "pipe2" }, *const files[] = { "x1", "x2" };
	bool done[2] = { false, false };
	char msg[MSG];

	prctl(PR_SET_NAME, "df_trans");
	logf_("proc df_trans pid=%d\n", getpid());
	while (!done[0] || !done[1]) {
		struct pollfd p[2] = { { rfd[0], POLLIN, 0 }, { rfd[1], POLLIN, 0 } };

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			die("poll");
		for (int k = 0; k < 2; k++) {
			if (done[k] || !(p[k].revents & POLLIN))
				continue;
			logged_read("df_trans", rfd[k], pipes[k], msg, sizeof(msg));
			logged_write("df_trans", xfd[k], files[k], msg, sizeof(msg));
			done[k] = true;
			if (k + 1 != slow) {
				atomic_store(&sh->fast_done, 1);
				syscall(SYS_futex, &sh->fast_done, FUTEX_WAKE, 1, NULL, NULL, 0);
			}
		}
	}
	_exit(0);
}

static int open_out(const char *dir, const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die(path);
	obj_of(fd, name);
	return fd;
}

int main(int argc, char **argv)
{
	int p1[2], p2[2], xfd[2], out, lfd, slow, status;
	pid_t kids[3];
	char buf[2 * MSG];

	if (argc != 4 || (slow = atoi(argv[3])) < 1 || slow > 2) {
		fprintf(stderr, "usage: qt_dataflow DIR LOGFILE SLOW(1|2)\n");
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	lfd = open(argv[2], O_RDWR | O_CREAT, 0600);
	if (sh == MAP_FAILED || lfd < 0 || ftruncate(lfd, LOG_BYTES))
		die("log");
	logbuf = mmap(NULL, LOG_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, lfd, 0);
	if (logbuf == MAP_FAILED)
		die("mmap");
	prctl(PR_SET_NAME, "df_cons");
	logf_("proc df_cons pid=%d\nslow prod%d\n", getpid(), slow);
	if (pipe(p1) || pipe(p2))
		die("pipe");
	obj_of(p1[0], "pipe1");
	obj_of(p2[0], "pipe2");
	xfd[0] = open_out(argv[1], "x1");
	xfd[1] = open_out(argv[1], "x2");
	out = open_out(argv[1], "out");
	if ((kids[0] = fork()) == 0)
		producer(1, p1[1], slow == 1);
	if ((kids[1] = fork()) == 0)
		producer(2, p2[1], slow == 2);
	if ((kids[2] = fork()) == 0)
		transformer((int[2]){ p1[0], p2[0] }, xfd, slow);
	for (int k = 0; k < 3; k++)
		if (kids[k] < 0 || waitpid(kids[k], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			die("child");
	if (lseek(xfd[0], 0, SEEK_SET) || lseek(xfd[1], 0, SEEK_SET))
		die("lseek");
	logged_read("df_cons", xfd[0], "x1", buf, MSG);
	logged_read("df_cons", xfd[1], "x2", buf + MSG, MSG);
	logged_write("df_cons", out, "out", buf, sizeof(buf));
	return 0;
}
