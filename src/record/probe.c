// SPDX-License-Identifier: MIT
/* Kernel features and the choice of an attach path; see src/record/probe.h. */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "file/missing.h"
#include "probe.h"
#include "tracefs.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

#define KERNEL_BTF "/sys/kernel/btf/vmlinux"

static int has_cap(int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { 0 };

	if (syscall(SYS_capget, &hdr, data))
		return 0;
	return !!(data[cap / 32].effective & (1u << (cap % 32)));
}

int probe_privileges(char *msg, size_t len)
{
	if (geteuid() == 0 || has_cap(CAP_SYS_ADMIN) || (has_cap(CAP_BPF) && has_cap(CAP_PERFMON)))
		return 0;
	snprintf(msg, len,
		 "recording needs root, or the capabilities CAP_BPF and CAP_PERFMON (Linux 5.8+).\n"
		 "  Run it with sudo, or once: sudo setcap cap_bpf,cap_perfmon=ep <path to qostrace>.\n"
		 "  Reading existing traces (info, dump, report) needs no privileges.");
	return -EPERM;
}

/* ---- names ---- */

static const char *const backend_names[] = {
	[REC_BACKEND_AUTO] = "auto", [REC_BACKEND_BTF] = "btf",
	[REC_BACKEND_CORE] = "core", [REC_BACKEND_TRACEFS] = "tracefs",
};
static const char *const buffer_names[] = {
	[REC_BUFFER_AUTO] = "auto", [REC_BUFFER_RING] = "ringbuf", [REC_BUFFER_PERF] = "perfbuf",
};

const char *probe_backend_name(enum rec_backend b)
{
	return (unsigned int)b <= REC_BACKEND_TRACEFS ? backend_names[b] : "?";
}

const char *probe_buffer_name(enum rec_buffer b)
{
	return (unsigned int)b <= REC_BUFFER_PERF ? buffer_names[b] : "?";
}

const char *probe_runtime_missing(const char *release)
{
	unsigned int major = 0, minor = 0;

	if (sscanf(release, "%u.%u", &major, &minor) != 2 || major < 5 || (major == 5 && minor < 16))
		return MISSING_RUNTIME_RT "," MISSING_RUNTIME_DL "," MISSING_RUNTIME_STOP;
	if (major < 6 || (major == 6 && minor < 8))
		return MISSING_RUNTIME_STOP;
	return "";
}

int probe_parse_backend(const char *arg, enum rec_backend *backend, enum rec_buffer *buffer)
{
	bool have_backend = false, have_buffer = false;
	const char *p = arg;

	do {
		size_t n = strcspn(p, ",");
		bool found = false;

		for (int i = REC_BACKEND_BTF; i <= REC_BACKEND_TRACEFS && !found; i++) {
			if (n == strlen(backend_names[i]) && !strncmp(p, backend_names[i], n)) {
				if (have_backend)
					return -EINVAL;
				*backend = i;
				have_backend = found = true;
			}
		}
		for (int i = REC_BUFFER_RING; i <= REC_BUFFER_PERF && !found; i++) {
			if (n == strlen(buffer_names[i]) && !strncmp(p, buffer_names[i], n)) {
				if (have_buffer)
					return -EINVAL;
				*buffer = i;
				have_buffer = found = true;
			}
		}
		if (!found)
			return -EINVAL;
		p += n;
	} while (*p++ == ',');
	return 0;
}

/* ---- what the kernel offers ---- */

/* The argument count of a tracepoint's BTF prototype, or -1 if unknown. */
static int tp_args(const struct btf *btf, const char *tp)
{
	char name[128];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);	/* pointer */
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -1;
	return btf_vlen(t) - 1;	/* minus the void *__data of every tracepoint */
}

/*
 * Read-only maps that programs read as constants (BPF_F_RDONLY_PROG) came
 * with global data, Linux 5.2 (commits 591fe9888d78, d8eca5bbb2be).
 */
static bool has_global_data(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_RDONLY_PROG);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 8, 1, &o);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

void probe_features(const char *btf_path, struct probe_features *f)
{
	struct utsname u;
	struct btf *btf;

	memset(f, 0, sizeof(*f));
	uname(&u);
	snprintf(f->release, sizeof(f->release), "%s", u.release);
	f->global_data = has_global_data();
	/* Linux 5.8, commit 457f44363a88 */
	f->ringbuf = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) > 0;
	/* Linux 4.3, commit ea317b267e9d */
	f->perfbuf = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_PERF_EVENT_ARRAY, NULL) > 0;
	/* Linux 4.17, commit c4f6699dfcb8 */
	f->raw_tp = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL) > 0;
	/* Linux 4.7, commit 98b5c2c65c29 */
	f->tracepoint = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACEPOINT, NULL) > 0;
	/* Linux 5.11, commit 4cf1bc1f1045 */
	f->task_storage = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) > 0;
	/* Linux 5.4, commit 341dfcf8d78e */
	f->kernel_btf = !access(KERNEL_BTF, R_OK);
	f->kernel_switch_args = -1;
	if (f->kernel_btf && (btf = btf__load_vmlinux_btf())) {
		f->kernel_switch_args = tp_args(btf, "sched_switch");
		f->kernel_ptr_size = btf__pointer_size(btf);
		btf__free(btf);
	}
	f->file_switch_args = -1;
	if (btf_path) {
		btf = btf__parse(btf_path, NULL);
		if (!btf)
			f->btf_file_err = -errno;
		else if (btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT) < 0)
			f->btf_file_err = -ENOMSG;
		else
			f->file_switch_args = tp_args(btf, "sched_switch");
		btf__free(btf);
	}
	f->tracefs = !tracefs_find(f->tracefs_root, sizeof(f->tracefs_root));
}

/* ---- the choice ---- */

/* Why path b cannot record here into buffer buf (msg), or 0. */
static int path_fails(const struct probe_features *f, enum rec_backend b, enum rec_buffer buf,
		      const char *btf_path, char *msg, size_t len)
{
	switch (b) {
	case REC_BACKEND_BTF:
		if (btf_path) {
			snprintf(msg, len, "tp_btf attaches through the kernel's own BTF; --btf %s is for "
				 "--backend core", btf_path);
			return -EINVAL;
		}
		if (!f->kernel_btf) {
			snprintf(msg, len, "kernel %s has no BTF (%s is missing): tp_btf needs "
				 "CONFIG_DEBUG_INFO_BTF=y (Linux 5.5+)", f->release, KERNEL_BTF);
			return -EOPNOTSUPP;
		}
		if (!f->task_storage) {
			snprintf(msg, len, "kernel %s has no BPF task storage (Linux 5.11+, commit "
				 "4cf1bc1f1045)", f->release);
			return -EOPNOTSUPP;
		}
		if (f->kernel_switch_args < 4) {
			snprintf(msg, len, "kernel %s: sched_switch does not pass prev_state (Linux 5.18+, "
				 "commit fa2c3254d7cf)", f->release);
			return -EOPNOTSUPP;
		}
		/*
		 * No 32-bit JIT compiles the loads of tp_btf programs: the kernel's
		 * BPF interpreter runs them, and calls its probe read with the
		 * wrong prototype there (fixed upstream in 2023, "bpf: fix
		 * bpf_probe_read_kernel prototype mismatch"): the programs load,
		 * and read zeros and garbage.
		 */
		if (f->kernel_ptr_size == 4) {
			snprintf(msg, len, "kernel %s is 32-bit: its BPF interpreter reads wrong values for "
				 "tp_btf programs on kernels up to at least 6.1; --backend core records the "
				 "same through helper reads", f->release);
			return -EOPNOTSUPP;
		}
		/* Its programs carry no perf buffer code: path 1 costs what it did before. */
		if (buf == REC_BUFFER_PERF) {
			snprintf(msg, len, "tp_btf programs write to the ring buffer only, which every "
				 "kernel they run on has; a perf buffer goes with core or tracefs");
			return -EINVAL;
		}
		return 0;
	case REC_BACKEND_CORE:
		if (!f->raw_tp) {
			snprintf(msg, len, "kernel %s has no raw tracepoint programs (Linux 4.17+, commit "
				 "c4f6699dfcb8)", f->release);
			return -EOPNOTSUPP;
		}
		if (btf_path && f->btf_file_err) {
			snprintf(msg, len, "--btf %s: %s", btf_path,
				 f->btf_file_err == -ENOENT ? "no such file" :
				 f->btf_file_err == -ENOMSG ? "not a kernel's BTF (it has no task_struct)" :
				 "not a BTF file, or a damaged one");
			return -EINVAL;
		}
		if (!btf_path && !f->kernel_btf) {
			snprintf(msg, len, "kernel %s has no BTF (%s is missing, CONFIG_DEBUG_INFO_BTF, "
				 "Linux 5.4+): give this kernel's BTF with --btf FILE (distributions and "
				 "BTFHub ship them)", f->release, KERNEL_BTF);
			return -EOPNOTSUPP;
		}
		return 0;
	case REC_BACKEND_TRACEFS:
		if (btf_path) {
			snprintf(msg, len, "the tracefs path reads no BTF; --btf %s is for --backend core",
				 btf_path);
			return -EINVAL;
		}
		if (!f->tracepoint) {
			snprintf(msg, len, "kernel %s has no BPF tracepoint programs (Linux 4.7+, commit "
				 "98b5c2c65c29)", f->release);
			return -EOPNOTSUPP;
		}
		if (!f->tracefs) {
			snprintf(msg, len, "tracefs is not mounted (no /sys/kernel/tracing/events): mount it "
				 "with: %s", TRACEFS_MOUNT_HINT);
			return -EOPNOTSUPP;
		}
		return 0;
	case REC_BACKEND_AUTO:
		break;
	}
	return -EINVAL;
}

static const char *const path_words[] = {
	[REC_BACKEND_BTF] = "tp_btf programs on the kernel's BTF",
	[REC_BACKEND_CORE] = "raw tracepoints with CO-RE reads against",
	[REC_BACKEND_TRACEFS] = "classic tracepoints, field offsets from the format files in",
};

int probe_decide(const struct probe_features *f, enum rec_backend backend, enum rec_buffer buffer,
		 const char *btf_path, struct probe_choice *c, char *msg, size_t len)
{
	char skipped[768] = "", why[256];
	const char *where;
	size_t off = 0;
	int err = -EOPNOTSUPP;

	memset(c, 0, sizeof(*c));
	if (!f->global_data) {
		snprintf(msg, len, "kernel %s cannot hand read-only values to BPF programs (global "
			 "data, Linux 5.2+, commit d8eca5bbb2be)", f->release);
		return -EOPNOTSUPP;
	}
	if (buffer == REC_BUFFER_RING && !f->ringbuf) {
		snprintf(msg, len, "kernel %s has no BPF ring buffer (Linux 5.8+, commit 457f44363a88): "
			 "--backend perfbuf records without it", f->release);
		return -EOPNOTSUPP;
	}
	if (buffer == REC_BUFFER_PERF && !f->perfbuf) {
		snprintf(msg, len, "kernel %s has no BPF perf event array (Linux 4.3+, commit "
			 "ea317b267e9d)", f->release);
		return -EOPNOTSUPP;
	}
	if (buffer == REC_BUFFER_AUTO && !f->ringbuf && !f->perfbuf) {
		snprintf(msg, len, "kernel %s has neither a BPF ring buffer (5.8+) nor a perf event "
			 "array (4.3+)", f->release);
		return -EOPNOTSUPP;
	}
	c->buffer = buffer != REC_BUFFER_AUTO ? buffer : f->ringbuf ? REC_BUFFER_RING : REC_BUFFER_PERF;
	for (int b = REC_BACKEND_BTF; b <= REC_BACKEND_TRACEFS; b++) {
		if (backend != REC_BACKEND_AUTO && backend != (enum rec_backend)b)
			continue;
		err = path_fails(f, b, c->buffer, btf_path, why, sizeof(why));
		if (!err) {
			c->backend = b;
			break;
		}
		if (backend != REC_BACKEND_AUTO) {
			snprintf(msg, len, "--backend %s: %s", backend_names[b], why);
			return err;
		}
		off += snprintf(skipped + off, sizeof(skipped) - off, "; not %s: %s", backend_names[b],
				why);
		if (off >= sizeof(skipped))
			off = sizeof(skipped) - 1;
	}
	if (err) {
		snprintf(msg, len, "no way to record on kernel %s%s", f->release, skipped);
		return err;
	}
	c->switch_state_arg = (btf_path ? f->file_switch_args : f->kernel_switch_args) >= 4;
	c->raw_tp = f->raw_tp;
	snprintf(c->tracefs_root, sizeof(c->tracefs_root), "%s", f->tracefs_root);
	where = c->backend == REC_BACKEND_CORE ? (btf_path ? btf_path : KERNEL_BTF) :
		c->backend == REC_BACKEND_TRACEFS ? c->tracefs_root : NULL;
	snprintf(c->why, sizeof(c->why), "attach path %s (%s%s%s), %s: %s%s", backend_names[c->backend],
		 path_words[c->backend], where ? " " : "", where ? where : "",
		 c->buffer == REC_BUFFER_RING ? "ring buffer" : "a perf buffer per CPU",
		 backend == REC_BACKEND_AUTO && buffer == REC_BUFFER_AUTO ? "the best this kernel allows" :
		 "as --backend asked", skipped);
	return 0;
}

int probe_choose(enum rec_backend backend, enum rec_buffer buffer, const char *btf_path,
		 struct probe_choice *c, char *msg, size_t len)
{
	struct probe_features f;
	int err;

	err = probe_privileges(msg, len);
	if (err)
		return err;
	probe_features(btf_path, &f);
	return probe_decide(&f, backend, buffer, btf_path, c, msg, len);
}

int probe_recording(char *msg, size_t len)
{
	struct probe_choice c;

	return probe_choose(REC_BACKEND_AUTO, REC_BUFFER_AUTO, NULL, &c, msg, len);
}
