// SPDX-License-Identifier: MIT
/*
 * The BPF object of the path without BTF (bpf/qostrace_tracefs.bpf.c):
 * classic tracepoints, their record layouts read from tracefs, each
 * opened as a perf event of the tracefs mount that was probed (libbpf
 * would look for tracefs by its own rules).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/log.h"
#include "internal.h"
#include "tp_layout.h"
#include "qostrace_tracefs.skel.h"

static void destroy(void *skel)
{
	qostrace_tracefs_bpf__destroy(skel);
}

/* The id of a tracepoint (section "tracepoint/<sys>/<name>"), or -errno. */
static long event_id(const char *root, const char *sec)
{
	char path[512], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/events/%s/id", root, sec + strlen("tracepoint/"));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

/*
 * One perf event per classic tracepoint runs the program on every CPU; a
 * raw tracepoint needs no tracefs.
 */
static struct bpf_link *attach(struct backend *b, struct bpf_program *prog)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr) };
	const char *sec = bpf_program__section_name(prog);
	struct bpf_link *link;
	long id;
	int pfd, err;

	if (!strncmp(sec, "raw_tp/", 7))
		return bpf_program__attach(prog);
	id = event_id(b->tracefs_root, sec);
	if (id < 0) {
		errno = -id;
		return NULL;
	}
	attr.config = id;
	pfd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return NULL;
	link = bpf_program__attach_perf_event(prog, pfd);
	if (!link) {
		err = errno;
		close(pfd);
		errno = err;
	}
	return link;
}

int backend_tracefs_open(struct backend *b, const struct backend_opts *o)
{
	struct qostrace_tracefs_bpf *skel;
	char msg[512];
	int err;

	skel = qostrace_tracefs_bpf__open();
	if (!skel) {
		err = -errno;
		log_err("cannot open the BPF object: %s", strerror(-err));
		return err;
	}
	b->skel = skel;
	b->obj = skel->obj;
	b->skel_destroy = destroy;
	b->attach = attach;
	snprintf(b->tracefs_root, sizeof(b->tracefs_root), "%s", o->choice->tracefs_root);
	skel->rodata->knobs = o->knobs;
	err = tp_layout_read(b->tracefs_root, &skel->rodata->layout, msg, sizeof(msg));
	if (err)
		log_err("%s", msg);
	return err;
}
