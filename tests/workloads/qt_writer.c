// SPDX-License-Identifier: MIT
/*
 * A recorder's file writer, for the end-to-end tests: the case where the
 * kernel holds a period's work in a system call.
 *
 *   writer   released every 10 ms by an absolute timer (clock_nanosleep
 *            TIMER_ABSTIME), write()s a 1 MiB frame to FILE; every
 *            frame of bursts[] it asks the burster for a burst, writes
 *            no frame while the burst is being written (the burst holds
 *            the file's lock), and in the first period after it is
 *            written it fdatasync()s the file, which blocks
 *            (uninterruptible) until the disk has what was written. Periods due meanwhile are
 *            dropped, as a live recorder drops frames: the next one
 *            waited for is the first due after the work.
 *   burster  writes BURST frames to FILE when asked, so that the call has
 *            data to sync whatever else on the machine syncs. A thread of
 *            its own: written by the writer, the 32 MiB took 80 ms of its
 *            period under other programs' writeback, and the report
 *            rightly said the critical path ran through the writer
 *            itself.
 * Measured under stress-ng --io (sync() in a loop), recorded: the frames
 * of the last 40 periods alone were already on the disk, and 5 of 7 calls
 * took under 1 ms; with a burst written 5 periods ahead of the call,
 * sync() had flushed most of it meanwhile, and 3 runs of 6 had 3 or fewer
 * calls of 5 ms or more. A call in the period after the burst ends took
 * 4 ms or more in 6 to 7 of its 10 calls in 5 runs of 6, and in 2 of 10
 * in the sixth (sync() had been quicker): the test's premise is 2. A
 * burst into a file of its own left the calls after the fourth with
 * nothing to sync (0.1 ms) in 6 runs of 6. While the burster wrote, the
 * writer's frames waited for the file's lock, woken by the burster each
 * period: its invocations came out periodic (10 ms, 96 of them), and the
 * report rightly named it the first to break; the writer now writes no
 * frame while a burst is being written.
 *
 * Usage: qt_writer FILE LOGFILE. Log lines (CLOCK_MONOTONIC ns):
 *   writer tid=T
 *   loop t0=NS                              the first period is due
 *   sync iteration=K before=NS after=NS     around each fdatasync()
 *   drop iteration=K                        a period that was due while it worked
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS 10000000ll
#define ITERATIONS 330
/*
 * The frames that ask for a burst: 20 to 40 periods apart, irregularly, as
 * an index is written at the end of each group of pictures, so that the
 * burster's own invocations never look periodic.
 */
static const int bursts[] = { 20, 56, 80, 120, 142, 180, 206, 240, 261, 298 };
#define FRAME (1 << 20)
#define BURST 32

static int fd;
static char *burst;
static sem_t go;
static atomic_int bursting, burst_written;

/* The burster: BURST frames each time the writer says. */
static void *burster(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "burster");
	while (!sem_wait(&go)) {
		for (int j = 0; j < BURST; j++)
			if (write(fd, burst, FRAME) != FRAME) {
				perror("write");
				exit(1);
			}
		atomic_store(&burst_written, 1);
		atomic_store(&bursting, 0);
	}
	return NULL;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void sleep_until(int64_t at)
{
	struct timespec ts = { .tv_sec = at / 1000000000ll, .tv_nsec = at % 1000000000ll };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

int main(int argc, char **argv)
{
	char *frame;
	FILE *wlog;
	int64_t t0;
	pthread_t th;
	size_t nb = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: qt_writer FILE LOGFILE\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	wlog = fopen(argv[2], "w");
	frame = malloc(FRAME);
	burst = malloc(FRAME);
	if (fd < 0 || !wlog || !frame || !burst || sem_init(&go, 0, 0) || pthread_create(&th, NULL, burster, NULL)) {
		perror("qt_writer");
		return 1;
	}
	memset(frame, 0x5a, FRAME);
	memset(burst, 0xa5, FRAME);
	prctl(PR_SET_NAME, "writer");
	fprintf(wlog, "writer tid=%ld\n", (long)syscall(SYS_gettid));
	fflush(wlog);
	t0 = now_ns() + 50000000ll;
	fprintf(wlog, "loop t0=%lld\n", (long long)t0);
	for (int k = 0; k < ITERATIONS; k++) {
		sleep_until(t0 + k * PERIOD_NS);
		/* the frame differs each time, as video does; none while the burst holds the file */
		frame[k % FRAME] ^= 1;
		if (!atomic_load(&bursting) && write(fd, frame, FRAME) != FRAME) {
			perror("write");
			return 1;
		}
		if (nb < sizeof(bursts) / sizeof(bursts[0]) && k >= bursts[nb] && !atomic_load(&bursting)) {
			nb++;
			atomic_store(&bursting, 1);
			sem_post(&go);
		}
		if (atomic_exchange(&burst_written, 0)) {
			int64_t b = now_ns(), a;

			if (fdatasync(fd)) {
				perror("fdatasync");
				return 1;
			}
			a = now_ns();
			fprintf(wlog, "sync iteration=%d before=%lld after=%lld\n", k, (long long)b, (long long)a);
		}
		while (k + 1 < ITERATIONS && t0 + (k + 1) * PERIOD_NS < now_ns())
			fprintf(wlog, "drop iteration=%d\n", ++k);
	}
	/* the file is scratch: its blocks need not reach the disk again */
	ftruncate(fd, 0);
	close(fd);
	fclose(wlog);
	return 0;
}
