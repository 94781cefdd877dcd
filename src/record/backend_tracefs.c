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
#include <sys/utsname.h>
#include <unistd.h>

#include "file/missing.h"
#include "lib/log.h"
#include "internal.h"
#include "probe.h"
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

/*
 * The tracefs object has some programs twice: tp_X on a classic
 * tracepoint, tpr_X on the raw one, which holds no other program off
 * (bpf/qostrace_tracefs.bpf.c).
 */
bool backend_tracefs_wants(struct backend *b, const struct bpf_program *prog, bool raw_tp)
{
	const struct qostrace_tracefs_bpf *skel = b->skel;
	const char *name = bpf_program__name(prog);
	char raw[128];

	if (prog == skel->progs.tp_stat_runtime)
		return skel->rodata->layout.sr_len != 0;
	if (!strncmp(name, "tpr_", 4))
		return raw_tp;
	if (!raw_tp || strncmp(name, "tp_", 3))
		return true;
	snprintf(raw, sizeof(raw), "tpr_%s", name + 3);
	return bpf_object__find_program_by_name(b->obj, raw) == NULL;
}

/* What this kernel's events leave out (backend__missing()). */
static void what_is_missing(struct backend *b, const struct qt_tp_layout *l)
{
	struct utsname u;

	if (!l->sr_len) {
		snprintf(b->missing, sizeof(b->missing), "%s", MISSING_RUNTIME);
		log_info("this kernel has no sched/sched_stat_runtime event: CPU times will be "
			 "switch-to-switch intervals");
		return;
	}
	uname(&u);
	snprintf(b->missing, sizeof(b->missing), "%s", probe_runtime_missing(u.release));
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
	if (err) {
		log_err("%s", msg);
		return err;
	}
	what_is_missing(b, &skel->rodata->layout);
	/* The classic tracepoints cannot walk a descriptor table (bpf/data.bpf.h). */
	if (o->knobs.want_data) {
		size_t n = strlen(b->missing);

		snprintf(b->missing + n, sizeof(b->missing) - n, "%s%s", n ? "," : "", MISSING_DATA);
		log_info("the tracefs path cannot record the objects of reads and writes: "
			 "no report --data-path for this recording");
	}
	return 0;
}
