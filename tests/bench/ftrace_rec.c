// SPDX-License-Identifier: MIT
/*
 * The recording path of trace-cmd record, for the benchmarks where
 * trace-cmd itself cannot run (a sandbox that refuses writes to
 * /proc/sys/kernel/ftrace_enabled and set_ftrace_filter, which trace-cmd
 * makes at every start even for events only): enable the given events in
 * the kernel's ftrace ring buffer and, one thread per CPU, move the pages of
 * per_cpu/cpuN/trace_pipe_raw to a file with splice, polling every
 * millisecond as trace-cmd does by default.
 *
 *   ftrace_rec OUTDIR SYSTEM:EVENT...      (stop with SIGINT or SIGTERM)
 *
 * On stop it prints the kernel's own count of the events recorded and
 * overwritten (lost) per the per_cpu/cpuN/stats files:
 *   events N lost M
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRACEFS "/sys/kernel/tracing"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int put(const char *file, const char *val)
{
	char path[512];
	int fd, ok;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0) {
		fprintf(stderr, "ftrace_rec: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	if (!ok)
		fprintf(stderr, "ftrace_rec: writing %s: %s\n", path, strerror(errno));
	close(fd);
	return ok ? 0 : -1;
}

struct cpu_rec {
	pthread_t th;
	int cpu;
	const char *dir;
	int err;
};

static ssize_t drain(int in, int p[2], int out)
{
	ssize_t total = 0, n;

	while ((n = splice(in, NULL, p[1], NULL, 1 << 16, SPLICE_F_MOVE | SPLICE_F_NONBLOCK)) > 0) {
		for (ssize_t left = n; left > 0;) {
			ssize_t m = splice(p[0], NULL, out, NULL, left, SPLICE_F_MOVE);

			if (m <= 0)
				return -1;
			left -= m;
		}
		total += n;
	}
	return n < 0 && errno != EAGAIN ? -1 : total;
}

static void *record_cpu(void *arg)
{
	struct cpu_rec *c = arg;
	char path[512];
	int in, out, p[2];

	snprintf(path, sizeof(path), TRACEFS "/per_cpu/cpu%d/trace_pipe_raw", c->cpu);
	in = open(path, O_RDONLY | O_NONBLOCK);
	snprintf(path, sizeof(path), "%s/cpu%d.raw", c->dir, c->cpu);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0 || pipe(p)) {
		c->err = errno;
		return NULL;
	}
	while (!stop) {
		if (drain(in, p, out) < 0) {
			c->err = errno;
			break;
		}
		usleep(1000);
	}
	drain(in, p, out);
	close(in);
	close(out);
	close(p[0]);
	close(p[1]);
	return NULL;
}

/* Sums "name: N" over the CPUs' stats files. */
static unsigned long long stat_sum(int ncpu, const char *name)
{
	unsigned long long sum = 0, v;
	char path[512], line[256];
	size_t len = strlen(name);

	for (int c = 0; c < ncpu; c++) {
		FILE *f;

		snprintf(path, sizeof(path), TRACEFS "/per_cpu/cpu%d/stats", c);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, name, len) && line[len] == ':' && sscanf(line + len + 1, "%llu", &v) == 1)
				sum += v;
		fclose(f);
	}
	return sum;
}

int main(int argc, char **argv)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF), rc = 0;
	struct cpu_rec *cpus;
	char file[512];

	if (argc < 3) {
		fprintf(stderr, "usage: ftrace_rec OUTDIR SYSTEM:EVENT...\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (put("tracing_on", "0") || put("trace", "") || put("set_event", ""))
		return 1;
	for (int i = 2; i < argc; i++) {
		char *ev = strdup(argv[i]), *colon = strchr(ev, ':');

		if (!colon) {
			fprintf(stderr, "ftrace_rec: %s: expected SYSTEM:EVENT\n", argv[i]);
			return 2;
		}
		*colon = '/';
		snprintf(file, sizeof(file), "events/%s/enable", ev);
		free(ev);
		if (put(file, "1"))
			return 1;
	}
	cpus = calloc(ncpu, sizeof(*cpus));
	for (int c = 0; c < ncpu; c++) {
		cpus[c] = (struct cpu_rec){ .cpu = c, .dir = argv[1] };
		pthread_create(&cpus[c].th, NULL, record_cpu, &cpus[c]);
	}
	put("tracing_on", "1");
	while (!stop)
		pause();
	put("tracing_on", "0");
	for (int c = 0; c < ncpu; c++) {
		pthread_join(cpus[c].th, NULL);
		if (cpus[c].err) {
			fprintf(stderr, "ftrace_rec: cpu %d: %s\n", c, strerror(cpus[c].err));
			rc = 1;
		}
	}
	/* recorded = taken by the readers + left unread; lost = overwritten + refused */
	printf("events %llu lost %llu\n", stat_sum(ncpu, "read events") + stat_sum(ncpu, "entries"),
	       stat_sum(ncpu, "overrun") + stat_sum(ncpu, "dropped events"));
	put("set_event", "");
	free(cpus);
	return rc;
}
