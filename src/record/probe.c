// SPDX-License-Identifier: MIT
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "probe.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

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

/* The argument count of a tracepoint's BTF prototype, or -1 if unknown. */
static int tp_args(struct btf *btf, const char *tp)
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

int probe_recording(char *msg, size_t len)
{
	struct utsname u;
	struct btf *btf;
	int err, n;

	err = probe_privileges(msg, len);
	if (err)
		return err;
	uname(&u);
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(msg, len,
			 "kernel %s has no BTF (/sys/kernel/btf/vmlinux is missing): qostrace attaches with "
			 "tp_btf, which needs CONFIG_DEBUG_INFO_BTF=y (Linux 5.5+)", u.release);
		return -EOPNOTSUPP;
	}
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) <= 0) {
		snprintf(msg, len, "kernel %s has no BPF ring buffer (Linux 5.8+, commit 457f44363a88)",
			 u.release);
		return -EOPNOTSUPP;
	}
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) <= 0) {
		snprintf(msg, len, "kernel %s has no BPF task storage (Linux 5.11+, commit 4cf1bc1f1045)",
			 u.release);
		return -EOPNOTSUPP;
	}
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		snprintf(msg, len, "cannot load the kernel's BTF: %s", strerror(errno));
		return -EOPNOTSUPP;
	}
	n = tp_args(btf, "sched_switch");
	btf__free(btf);
	if (n < 4) {
		snprintf(msg, len,
			 "kernel %s: sched_switch does not pass prev_state (Linux 5.18+, commit fa2c3254d7cf); "
			 "qostrace needs it to tell preemption from sleep", u.release);
		return -EOPNOTSUPP;
	}
	return 0;
}
