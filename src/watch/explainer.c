// SPDX-License-Identifier: MIT
/* The windows' analyses in low-priority children; see src/watch/explainer.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "explainer.h"

/* A child that takes longer is stopped: its window is told without a cause. */
#define EXPLAIN_TIMEOUT_NS (600ull * 1000000000ull)

struct job {
	char path[PATH_MAX];
	uint32_t tid;
	int64_t at_ns;
	unsigned long tag;
};

struct explainer {
	char *self;
	struct job q[EXPLAINER_QUEUE];
	size_t nq;
	/* the running child */
	pid_t pid;
	int fd;
	struct job cur;
	char out[512];
	size_t nout;
	uint64_t started;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

struct explainer *explainer__new(const char *self)
{
	struct explainer *e = calloc(1, sizeof(*e));

	if (!e || !(e->self = strdup(self))) {
		free(e);
		return NULL;
	}
	e->pid = -1;
	e->fd = -1;
	return e;
}

static void reap(struct explainer *e, bool kill_it)
{
	if (e->pid > 0) {
		if (kill_it)
			kill(e->pid, SIGKILL);
		waitpid(e->pid, NULL, 0);
	}
	if (e->fd >= 0)
		close(e->fd);
	e->pid = -1;
	e->fd = -1;
}

void explainer__free(struct explainer *e)
{
	if (!e)
		return;
	reap(e, true);
	free(e->self);
	free(e);
}

/* In the child: the lowest priority, output into the pipe, then the analysis. */
static void child(const struct explainer *e, const struct job *j, int wfd)
{
	struct sched_param sp = { 0 };
	char at[64];
	int null = open("/dev/null", O_RDWR);

	/*
	 * Its own process group: the Ctrl-C that ends the watcher is not for
	 * the analysis of its last window. SCHED_IDLE runs only on CPU time no
	 * other thread wants; nice 19 where that is refused.
	 */
	setpgid(0, 0);
	sched_setscheduler(0, SCHED_IDLE, &sp);
	setpriority(PRIO_PROCESS, 0, 19);
	dup2(wfd, STDOUT_FILENO);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDERR_FILENO);
	}
	snprintf(at, sizeof(at), "%u:%lld", j->tid, (long long)j->at_ns);
	execl(e->self, e->self, "watch", "--explain", j->path, "--explain-break", at, (char *)NULL);
	_exit(127);
}

static void start_next(struct explainer *e)
{
	int p[2];
	pid_t pid;

	if (e->pid > 0 || !e->nq)
		return;
	e->cur = e->q[0];
	memmove(e->q, e->q + 1, (e->nq - 1) * sizeof(*e->q));
	e->nq--;
	e->nout = 0;
	if (pipe2(p, O_CLOEXEC))
		return;
	pid = fork();
	if (pid == 0)
		child(e, &e->cur, p[1]);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return;
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	e->pid = pid;
	e->fd = p[0];
	e->started = mono_ns();
}

int explainer__queue(struct explainer *e, const char *path, uint32_t tid, int64_t at_ns, unsigned long tag)
{
	struct job *j;

	if (e->nq == EXPLAINER_QUEUE)
		return -EBUSY;
	j = &e->q[e->nq++];
	snprintf(j->path, sizeof(j->path), "%s", path);
	j->tid = tid;
	j->at_ns = at_ns;
	j->tag = tag;
	start_next(e);
	return 0;
}

/* Reads what the child wrote; true at its end of file. */
static bool drain(struct explainer *e)
{
	for (;;) {
		char buf[256];
		ssize_t n = read(e->fd, buf, sizeof(buf));

		if (n > 0) {
			size_t room = sizeof(e->out) - 1 - e->nout, k = (size_t)n < room ? (size_t)n : room;

			memcpy(e->out + e->nout, buf, k);
			e->nout += k;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n == 0;
	}
}

int explainer__poll(struct explainer *e, int timeout_ms, unsigned long *tag, char *line, size_t len)
{
	struct pollfd p;
	bool eof, late;
	int status = 0;
	char *nl;

	start_next(e);
	if (e->pid <= 0)
		return 0;
	p = (struct pollfd){ .fd = e->fd, .events = POLLIN };
	if (timeout_ms > 0)
		poll(&p, 1, timeout_ms);
	eof = drain(e);
	late = mono_ns() - e->started > EXPLAIN_TIMEOUT_NS;
	if (!eof && !late)
		return 0;
	if (late)
		kill(e->pid, SIGKILL);
	waitpid(e->pid, &status, 0);
	e->pid = -1;
	close(e->fd);
	e->fd = -1;
	e->out[e->nout] = 0;
	nl = strchr(e->out, '\n');
	if (nl)
		*nl = 0;
	*tag = e->cur.tag;
	if (late)
		snprintf(line, len, "(its analysis took too long and was stopped)");
	else if (!e->nout || !WIFEXITED(status) || WEXITSTATUS(status))
		snprintf(line, len, "(its analysis failed: qostrace report %s says why)", e->cur.path);
	else
		snprintf(line, len, "%s", e->out);
	start_next(e);
	return 1;
}

size_t explainer__pending(const struct explainer *e)
{
	return e->nq + (e->pid > 0);
}
