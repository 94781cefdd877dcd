// SPDX-License-Identifier: MIT
/* The demo pipeline; see src/demo/pipeline.h. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lib/parse.h"
#include "pipeline.h"

const char *const pipeline_stage_names[PL_NSTAGES] = { "src", "dec", "fx", "scale", "sink" };

struct pl {
	const struct pipeline_opts *o;
	int pipes[6][2];	/* src>dec, dec>fx, dec>scale, fx>sink, scale>sink, spare */
	uint64_t t0;
	FILE *log;		/* the --log file, written at the end */
	/*
	 * The lines, in memory until then: a stage that logs while another
	 * writes a full stdio buffer to disk would wait for that write on the
	 * lock, and finish its frame late for the log's own sake.
	 */
	FILE *mem;
	char *membuf;
	size_t memlen;
	pthread_mutex_t log_lock;
	volatile int stop;
	int devnull;
	pthread_barrier_t ready;	/* every stage set up: the first frame is one period away */
};

enum { P_SRC_DEC, P_DEC_FX, P_DEC_SCALE, P_FX_SINK, P_SCALE_SINK };

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

/* CPU time, not wall time: a preempted stage still does all its work. */
/*
 * Burns CPU time of this thread, not wall time: a preempted stage still does
 * all its work. Reading the thread's CPU clock is a system call, so the loop
 * runs long stretches between readings, sized from a calibration.
 */
static double loops_per_ns;

/*
 * Not inlined: the calibration and the work must run the same loop. Inlined
 * into its two calls, the compiler laid the loop out twice, and how fast
 * each copy runs depends on where it lands: in one build the calibration's
 * copy ran twice as fast as the work's, every stage burned twice its time
 * and the pipeline fell behind without any disturbance.
 */
static __attribute__((noinline)) void burn(uint64_t loops)
{
	volatile uint64_t x = 0;

	for (uint64_t i = 0; i < loops; i++)
		x += i;
}

static void spin(uint64_t ns)
{
	uint64_t end = thread_cpu_ns() + ns, now;

	if (!loops_per_ns) {
		uint64_t t = thread_cpu_ns();

		burn(1000000);
		loops_per_ns = 1e6 / (double)(thread_cpu_ns() - t + 1);
	}
	while ((now = thread_cpu_ns()) < end)
		burn((uint64_t)((end - now) * loops_per_ns * 0.9) + 100);
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { t / 1000000000ull, t % 1000000000ull };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void logf_(struct pl *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(struct pl *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->mem)
		return;
	pthread_mutex_lock(&p->log_lock);
	va_start(ap, fmt);
	vfprintf(p->mem, fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&p->log_lock);
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Real-time like a media pipeline; without the privilege, normal scheduling. */
static void set_rt(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (prio > 0)
		sched_setscheduler(0, SCHED_FIFO, &sp);
}

/*
 * Set-up runs (naming, priority, CPU pinning) happen one period before the
 * first frame, so that they do not look like a late invocation.
 */
static void start_stage(struct pl *p, enum pipeline_stage s)
{
	prctl(PR_SET_NAME, pipeline_stage_names[s]);
	set_rt(p->o->rt_priority);
	if (s == PL_SRC)
		pin(p->o->cpu);
	logf_(p, "stage name=%s tid=%ld\n", pipeline_stage_names[s], (long)syscall(SYS_gettid));
	if (pthread_barrier_wait(&p->ready) == PTHREAD_BARRIER_SERIAL_THREAD)
		p->t0 = now_ns() + p->o->period_ns;
	pthread_barrier_wait(&p->ready);
}

static int get(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

static void put(int fd)
{
	if (write(fd, "f", 1) != 1)
		perror("pipeline: write");
}

static void frame_done(struct pl *p, enum pipeline_stage s, unsigned int k, uint64_t start)
{
	logf_(p, "frame stage=%s k=%u start=%llu end=%llu\n", pipeline_stage_names[s], k,
	      (unsigned long long)start, (unsigned long long)now_ns());
}

static void *src_thread(void *arg)
{
	struct pl *p = arg;

	start_stage(p, PL_SRC);
	for (unsigned int k = 0; k < p->o->frames; k++) {
		uint64_t start;

		sleep_until(p->t0 + k * p->o->period_ns);
		start = now_ns();
		spin(p->o->work_ns[PL_SRC]);
		frame_done(p, PL_SRC, k, start);
		put(p->pipes[P_SRC_DEC][1]);
	}
	close(p->pipes[P_SRC_DEC][1]);
	return NULL;
}

static void *dec_thread(void *arg)
{
	struct pl *p = arg;

	start_stage(p, PL_DEC);
	for (unsigned int k = 0; get(p->pipes[P_SRC_DEC][0]) == 0; k++) {
		uint64_t start = now_ns();

		spin(p->o->work_ns[PL_DEC]);
		frame_done(p, PL_DEC, k, start);
		put(p->pipes[P_DEC_FX][1]);
		put(p->pipes[P_DEC_SCALE][1]);
	}
	close(p->pipes[P_DEC_FX][1]);
	close(p->pipes[P_DEC_SCALE][1]);
	return NULL;
}

static void *branch_thread(struct pl *p, enum pipeline_stage s, int in, int out)
{
	start_stage(p, s);
	for (unsigned int k = 0; get(p->pipes[in][0]) == 0; k++) {
		uint64_t start = now_ns();

		spin(p->o->work_ns[s]);
		frame_done(p, s, k, start);
		put(p->pipes[out][1]);
	}
	close(p->pipes[out][1]);
	return NULL;
}

static void *fx_thread(void *arg)
{
	return branch_thread(arg, PL_FX, P_DEC_FX, P_FX_SINK);
}

static void *scale_thread(void *arg)
{
	return branch_thread(arg, PL_SCALE, P_DEC_SCALE, P_SCALE_SINK);
}

static void *sink_thread(void *arg)
{
	struct pl *p = arg;

	start_stage(p, PL_SINK);
	/* A frame is ready when both branches delivered it. */
	for (unsigned int k = 0; get(p->pipes[P_FX_SINK][0]) == 0 && get(p->pipes[P_SCALE_SINK][0]) == 0; k++) {
		uint64_t start = now_ns();

		spin(p->o->work_ns[PL_SINK]);
		if (write(p->devnull, "frame", 5) != 5)
			perror("pipeline: sink");
		frame_done(p, PL_SINK, k, start);
	}
	return NULL;
}

static void *disturber_thread(void *arg)
{
	struct pl *p = arg;
	struct sched_param sp = { .sched_priority = p->o->rt_priority + 5 };
	uint64_t end_all = p->t0 + p->o->frames * p->o->period_ns;

	prctl(PR_SET_NAME, p->o->disturber_name);
	logf_(p, "stage name=%s tid=%ld\n", p->o->disturber_name, (long)syscall(SYS_gettid));
	pin(p->o->cpu);
	/* Real-time so that it takes the CPU from src; nice -20 without privileges. */
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		setpriority(PRIO_PROCESS, 0, -20);
	if (pthread_barrier_wait(&p->ready) == PTHREAD_BARRIER_SERIAL_THREAD)
		p->t0 = now_ns() + p->o->period_ns;
	pthread_barrier_wait(&p->ready);
	end_all = p->t0 + p->o->frames * p->o->period_ns;
	for (uint64_t t = p->t0 + 550000000ull; t + p->o->disturb_ns < end_all; t += p->o->disturb_every_ns) {
		uint64_t start, end;
		struct utsname u;

		sleep_until(t);
		start = now_ns();
		if (p->o->disturb == PL_DISTURB_THREAD) {
			spin(p->o->disturb_ns);
		} else {
			while (now_ns() - start < p->o->disturb_ns)
				uname(&u);
		}
		end = now_ns();
		logf_(p, "disturb start=%llu end=%llu kind=%s\n", (unsigned long long)start,
		      (unsigned long long)end, p->o->disturb == PL_DISTURB_THREAD ? "thread" : "syscalls");
	}
	return NULL;
}

void pipeline_opts_default(struct pipeline_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->frames = 300;
	o->period_ns = 10000000ull;
	o->work_ns[PL_SRC] = 1000000ull;
	o->work_ns[PL_DEC] = 2000000ull;
	o->work_ns[PL_FX] = 3000000ull;
	o->work_ns[PL_SCALE] = 1000000ull;
	o->work_ns[PL_SINK] = 1000000ull;
	o->disturb = PL_DISTURB_THREAD;
	o->disturber_name = "disturber";
	o->disturb_every_ns = 1000000000ull;
	o->disturb_ns = 25000000ull;
	o->cpu = 0;
	o->rt_priority = 5;
}

int pipeline_run(const struct pipeline_opts *o)
{
	void *(*fn[PL_NSTAGES])(void *) = { src_thread, dec_thread, fx_thread, scale_thread, sink_thread };
	pthread_t th[PL_NSTAGES], dist;
	struct pl p = { .o = o };
	int err = 0;

	pthread_mutex_init(&p.log_lock, NULL);
	if (o->log && !(p.log = fopen(o->log, "w")))
		return -errno;
	if (p.log && !(p.mem = open_memstream(&p.membuf, &p.memlen))) {
		err = -errno;
		fclose(p.log);
		return err;
	}
	p.devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	for (int i = 0; i < 5; i++)
		if (pipe2(p.pipes[i], O_CLOEXEC))
			err = -errno;
	if (err || p.devnull < 0)
		return err ? err : -errno;
	prctl(PR_SET_NAME, "pipeline");
	pthread_barrier_init(&p.ready, NULL, PL_NSTAGES + (o->disturb != PL_DISTURB_NONE));
	for (int s = 0; s < PL_NSTAGES; s++)
		pthread_create(&th[s], NULL, fn[s], &p);
	if (o->disturb != PL_DISTURB_NONE)
		pthread_create(&dist, NULL, disturber_thread, &p);
	for (int s = 0; s < PL_NSTAGES; s++)
		pthread_join(th[s], NULL);
	pthread_barrier_destroy(&p.ready);
	if (o->disturb != PL_DISTURB_NONE)
		pthread_join(dist, NULL);
	for (int i = 0; i < 5; i++) {
		close(p.pipes[i][0]);
		close(p.pipes[i][1]);
	}
	close(p.devnull);
	if (p.log) {
		fclose(p.mem);
		if (fwrite(p.membuf, 1, p.memlen, p.log) != p.memlen)
			err = -EIO;
		if (fclose(p.log) && !err)
			err = -errno;
		free(p.membuf);
	}
	return err;
}

int cmd_pipeline(int argc, char **argv, char *const *whole)
{
	static const struct option longopts[] = {
		{ "frames", required_argument, NULL, 'n' },
		{ "period", required_argument, NULL, 'p' },
		{ "disturb", required_argument, NULL, 'd' },
		{ "name", required_argument, NULL, 'N' },
		{ "every", required_argument, NULL, 'e' },
		{ "length", required_argument, NULL, 'l' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "log", required_argument, NULL, 'L' },
		{ "priority", required_argument, NULL, 'P' },
		{ 0 },
	};
	struct pipeline_opts o;
	uint64_t v;
	int c, err;

	pipeline_opts_default(&o);
	while ((c = getopt_long(argc, argv, "n:p:d:N:e:l:c:L:P:", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_u64(optarg, 1, 1000000, &v))
				goto usage;
			o.frames = v;
			break;
		case 'p':
			if (parse_duration(optarg, 0, &o.period_ns) || !o.period_ns)
				goto usage;
			break;
		case 'd':
			if (!strcmp(optarg, "none"))
				o.disturb = PL_DISTURB_NONE;
			else if (!strcmp(optarg, "thread"))
				o.disturb = PL_DISTURB_THREAD;
			else if (!strcmp(optarg, "syscalls"))
				o.disturb = PL_DISTURB_SYSCALLS;
			else
				goto usage;
			break;
		case 'N':
			o.disturber_name = optarg;
			break;
		case 'e':
			if (parse_duration(optarg, 0, &o.disturb_every_ns) || !o.disturb_every_ns)
				goto usage;
			break;
		case 'l':
			if (parse_duration(optarg, 0, &o.disturb_ns))
				goto usage;
			break;
		case 'c':
			if (parse_u64(optarg, 0, 4095, &v))
				goto usage;
			o.cpu = v;
			break;
		case 'L':
			o.log = optarg;
			break;
		case 'P':
			if (parse_u64(optarg, 0, 89, &v))
				goto usage;
			o.rt_priority = v;
			break;
		default:
			goto usage;
		}
	}
	err = pipeline_run(&o);
	if (err)
		fprintf(stderr, "qostrace __pipeline: %s\n", strerror(-err));
	return err ? 1 : 0;
usage:
	fprintf(stderr, "usage: qostrace __pipeline [--frames N] [--period 10ms] [--disturb none|thread|syscalls]\n"
			"       [--name THREAD] [--every 1s] [--length 25ms] [--cpu N] [--log FILE]\n"
			"       [--priority RTPRIO (0: normal scheduling)]\n");
	return 2;
}
