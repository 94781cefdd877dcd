// SPDX-License-Identifier: MIT
/*
 * A workload of known behaviour for the end-to-end tests. It logs its own
 * ground truth, which the tests compare with what qostrace recorded:
 *
 *   spin1, spin2  spin a known CPU time, then sleep (nanosleep: a timer wakes them)
 *   producer      every period, waits until the consumer sleeps in read(),
 *                 then write()s 8 bytes to a pipe: exactly one wakeup per write
 *   consumer      read()s the pipe, spins a little, reads again
 *   a child process (fork) that write()s to /dev/null and exits
 *   every thread renames itself (prctl PR_SET_NAME)
 *   close(-1) once per producer iteration: a failing call, -EBADF
 *
 * When all loops are done the threads park on a barrier; the main thread
 * then reads /proc/self/task/<tid>/schedstat for each (exact while they
 * sleep: the kernel updates a thread's runtime when it leaves the CPU), logs
 * it, and releases them.
 *
 * Log lines (all times CLOCK_MONOTONIC ns):
 *   thread tid=T name=N run_ns=R at=NS
 *   write tid=T fd=F ret=R before=NS after=NS
 *   badclose tid=T ret=R before=NS after=NS
 *   child pid=P writes=N
 *   consumer tid=T producer tid=T
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int iterations = 20;
static long period_us = 10000;
static long spin1_us = 2000, spin2_us = 3000, consumer_spin_us = 500;
static FILE *wlog;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t done_barrier;
static int release_pipe[2];
static int pipefd[2];
static volatile pid_t consumer_tid;
/* Worker tids by role, set by each worker: spin1, spin2, producer, consumer. */
static volatile pid_t worker_tid[4];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Burns CPU time of this thread, not wall time: a preempted stage still does
 * all its work. Reading the thread's CPU clock is a system call, so the loop
 * runs long stretches between readings, sized from a calibration (once, in
 * main, before the threads).
 */
static double loops_per_ns;

static void burn(uint64_t loops)
{
	volatile uint64_t x = 0;

	for (uint64_t i = 0; i < loops; i++)
		x += i;
}

/*
 * Loops per ns of this machine. The thread's CPU clock may tick coarsely:
 * in make vm-test's 6.1 tinyconfig guest (one CPU, under TCG) it read the
 * same before and after a million loops, so 1 ns, and one burn() lasted
 * for hours. So the stretch doubles until the
 * clock has advanced 2 ms: too few loops per ns then only means more
 * readings, too many (a coarse tick) at most twice the rest of a spin.
 */
static void calibrate(void)
{
	for (uint64_t loops = 100000;; loops *= 2) {
		uint64_t t = thread_cpu_ns(), d;

		burn(loops);
		d = thread_cpu_ns() - t;
		if (d >= 2000000) {
			loops_per_ns = (double)loops / (double)d;
			return;
		}
	}
}

static void spin_cpu(long us)
{
	uint64_t ns = us * 1000ull;
	uint64_t end = thread_cpu_ns() + ns, now;

	while ((now = thread_cpu_ns()) < end)
		burn((uint64_t)((end - now) * loops_per_ns * 0.9) + 100);
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void logline(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logline(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&log_lock);
	va_start(ap, fmt);
	vfprintf(wlog, fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&log_lock);
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Sleeps in read() until the main thread has read every worker's schedstat. */
static void park(void)
{
	char c;

	pthread_barrier_wait(&done_barrier);
	if (read(release_pipe[0], &c, 1) != 1)
		perror("park");
}


static void *spinner(void *arg)
{
	long us = (long)arg;

	prctl(PR_SET_NAME, us == spin1_us ? "spin1" : "spin2");
	worker_tid[us == spin1_us ? 0 : 1] = gettid_();
	for (int i = 0; i < iterations; i++) {
		spin_cpu(us);
		sleep_us(period_us - us);
	}
	park();
	return NULL;
}

/* The consumer's state letter from /proc: 'S' while it sleeps in read(). */
static char state_of(pid_t tid)
{
	char path[64], buf[256], *p;
	int fd, n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : '?';
}

/*
 * True once tid sleeps in read() (syscall 0 on x86_64, 63 on arm64). The
 * kernel says "running" for a thread on a CPU, which atoi() read as 0,
 * read on x86_64: a thread still on its way into the call passed as
 * parked, and its schedstat went on growing after it was read (8.6 us in
 * one CI run). It must also be asleep.
 */
static int parked(pid_t tid)
{
	char path[64], buf[64];
	FILE *f;
	int nr = -1;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	f = fopen(path, "r");
	if (f && fgets(buf, sizeof(buf), f) && isdigit((unsigned char)buf[0]))
		nr = atoi(buf);
	if (f)
		fclose(f);
	return nr == SYS_read && state_of(tid) == 'S';
}

static void *producer(void *arg)
{
	uint64_t v = 42;

	prctl(PR_SET_NAME, "producer");
	worker_tid[2] = gettid_();
	while (!consumer_tid)
		sleep_us(100);
	logline("consumer tid=%d producer tid=%d\n", consumer_tid, gettid_());
	for (int i = 0; i < iterations; i++) {
		uint64_t before, after;
		long ret;

		sleep_us(period_us);
		while (state_of(consumer_tid) != 'S')
			sleep_us(50);
		before = now_ns();
		ret = write(pipefd[1], &v, sizeof(v));
		after = now_ns();
		logline("write tid=%d fd=%d ret=%ld before=%llu after=%llu\n", gettid_(), pipefd[1], ret,
			(unsigned long long)before, (unsigned long long)after);
		before = now_ns();
		ret = syscall(SYS_close, (long)-1);
		ret = ret < 0 ? -errno : ret;
		after = now_ns();
		logline("badclose tid=%d ret=%ld before=%llu after=%llu\n", gettid_(), ret,
			(unsigned long long)before, (unsigned long long)after);
	}
	park();
	return NULL;
}

static void *consumer(void *arg)
{
	uint64_t v;

	prctl(PR_SET_NAME, "consumer");
	consumer_tid = gettid_();
	worker_tid[3] = consumer_tid;
	for (int i = 0; i < iterations; i++) {
		if (read(pipefd[0], &v, sizeof(v)) != sizeof(v))
			break;
		spin_cpu(consumer_spin_us);
	}
	park();
	return NULL;
}

static int run_child(void)
{
	int fd = open("/dev/null", O_WRONLY);
	char c = 'x';
	int n = 0;

	prctl(PR_SET_NAME, "wl-child");
	for (int i = 0; i < 5; i++)
		n += write(fd, &c, 1) == 1;
	close(fd);
	return n == 5 ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *logpath = NULL;
	pthread_t th[4];
	const char *names[4] = { "spin1", "spin2", "producer", "consumer" };
	pid_t child;
	int opt, status;

	while ((opt = getopt(argc, argv, "l:n:p:")) != -1) {
		switch (opt) {
		case 'l': logpath = optarg; break;
		case 'n': iterations = atoi(optarg); break;
		case 'p': period_us = atol(optarg); break;
		default:
			fprintf(stderr, "usage: qt_workload [-l LOG] [-n ITERATIONS] [-p PERIOD_US]\n");
			return 2;
		}
	}
	wlog = logpath ? fopen(logpath, "w") : stdout;
	if (!wlog) {
		perror(logpath);
		return 1;
	}
	prctl(PR_SET_NAME, "wl-main");
	if (pipe(pipefd) || pipe(release_pipe))
		return 1;
	calibrate();
	pthread_barrier_init(&done_barrier, NULL, 5);
	pthread_create(&th[0], NULL, spinner, (void *)spin1_us);
	pthread_create(&th[1], NULL, spinner, (void *)spin2_us);
	pthread_create(&th[2], NULL, producer, NULL);
	pthread_create(&th[3], NULL, consumer, NULL);

	child = fork();
	if (child == 0)
		_exit(run_child());
	waitpid(child, &status, 0);
	logline("child pid=%d writes=%d\n", child, WIFEXITED(status) && !WEXITSTATUS(status) ? 5 : -1);

	pthread_barrier_wait(&done_barrier);
	for (int i = 0; i < 4; i++)
		while (!parked(worker_tid[i]))
			sleep_us(200);
	/* Every worker sleeps now: their schedstat is exact. */
	for (int i = 0; i < 4; i++) {
		unsigned long long run = 0;
		uint64_t at = now_ns();
		char path[64], buf[128];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", worker_tid[i]);
		f = fopen(path, "r");
		if (f && fgets(buf, sizeof(buf), f))
			sscanf(buf, "%llu", &run);
		if (f)
			fclose(f);
		logline("thread tid=%d name=%s run_ns=%llu at=%llu\n", worker_tid[i], names[i], run,
			(unsigned long long)at);
	}
	if (write(release_pipe[1], "xxxx", 4) != 4)
		perror("release");
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	fclose(wlog);
	return 0;
}
