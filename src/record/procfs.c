// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

#define PF_KTHREAD 0x00200000

static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return (int)n;
}

/* Parses "pid (comm) state ppid pgrp session tty tpgid flags ...". */
static int parse_stat(const char *buf, struct tf_thread *t)
{
	const char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	unsigned long ppid, flags;
	size_t cl;

	if (!open || !close || close < open)
		return -EBADMSG;
	cl = close - open - 1;
	if (cl >= sizeof(t->comm))
		cl = sizeof(t->comm) - 1;
	memset(t->comm, 0, sizeof(t->comm));
	memcpy(t->comm, open + 1, cl);
	if (sscanf(close + 2, "%*c %lu %*d %*d %*d %*d %lu", &ppid, &flags) != 2)
		return -EBADMSG;
	t->ppid = ppid;
	t->flags = (flags & PF_KTHREAD) ? TF_THREAD_KTHREAD : 0;
	return 0;
}

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

int procfs_threads(struct tf_thread **out, size_t *n)
{
	struct tf_thread *v = NULL;
	size_t cnt = 0, cap = 0;
	struct dirent *pe, *te;
	DIR *proc, *task;
	char path[600], buf[1024];

	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while ((pe = readdir(proc))) {
		if (!is_number(pe->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", pe->d_name);
		task = opendir(path);
		if (!task)
			continue;	/* exited meanwhile */
		while ((te = readdir(task))) {
			struct tf_thread t = { 0 };

			if (!is_number(te->d_name))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/stat", pe->d_name, te->d_name);
			if (read_small(path, buf, sizeof(buf)) <= 0 || parse_stat(buf, &t))
				continue;
			t.tid = strtoul(te->d_name, NULL, 10);
			t.tgid = strtoul(pe->d_name, NULL, 10);
			if (cnt == cap) {
				size_t nc = cap ? cap * 2 : 1024;
				struct tf_thread *nv = realloc(v, nc * sizeof(*nv));

				if (!nv) {
					closedir(task);
					closedir(proc);
					free(v);
					return -ENOMEM;
				}
				v = nv;
				cap = nc;
			}
			v[cnt++] = t;
		}
		closedir(task);
	}
	closedir(proc);
	*out = v;
	*n = cnt;
	return 0;
}

int procfs_tgid_of(uint32_t id, uint32_t *tgid)
{
	char path[64], buf[4096], *p;
	int err;

	snprintf(path, sizeof(path), "/proc/%u/status", id);
	err = read_small(path, buf, sizeof(buf));
	if (err < 0)
		return err == -ENOENT ? -ESRCH : err;
	p = strstr(buf, "\nTgid:");
	if (!p)
		return -EBADMSG;
	*tgid = strtoul(p + 6, NULL, 10);
	return 0;
}

int procfs_schedstat(uint32_t pid, uint32_t tid, uint64_t *run_ns, uint64_t *wait_ns,
		     uint64_t *slices)
{
	unsigned long long r, w, s;
	char path[96], buf[128];
	int err;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/schedstat", pid, tid);
	err = read_small(path, buf, sizeof(buf));
	if (err < 0)
		return err;
	if (sscanf(buf, "%llu %llu %llu", &r, &w, &s) != 3)
		return -EBADMSG;
	*run_ns = r;
	*wait_ns = w;
	*slices = s;
	return 0;
}

uint32_t procfs_nr_threads(void)
{
	unsigned int running, total;
	char buf[128];

	/* "0.10 0.05 0.01 2/345 6789": 345 threads */
	if (read_small("/proc/loadavg", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%*s %*s %*s %u/%u", &running, &total) != 2)
		return 0;
	return total;
}
