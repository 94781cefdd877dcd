/*
 * What the kernel and the process must provide before qostrace can record,
 * and which attach path and buffer it records with. All checks live here,
 * each naming the kernel release (and commit) that brought the feature, so
 * that a missing one gives one clear message instead of a verifier log.
 *
 * The paths, best first (docs/DESIGN.md §2a):
 *   btf      tp_btf on the kernel's own BTF, task storage, sched_switch's
 *            prev_state argument: Linux 5.18+ with CONFIG_DEBUG_INFO_BTF;
 *            the ring buffer only
 *   core     raw tracepoints, CO-RE reads against the kernel's BTF or a
 *            BTF file (record --btf): Linux 4.17+
 *   tracefs  classic tracepoints, field offsets from tracefs format files,
 *            no BTF at all: Linux 4.7+; the CPU time at switches summed
 *            from sched_stat_runtime, whose classes depend on the release
 * and the buffers: a ring buffer (5.8+), else a perf buffer per CPU. Every
 * path hands its programs read-only values (global data, Linux 5.2+).
 */
#ifndef QT_PROBE_H
#define QT_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "recorder.h"

/* What this kernel offers, as probe_features() finds it. */
struct probe_features {
	char release[65];		/* uname -r */
	bool global_data;		/* read-only maps for the knobs: 5.2 */
	bool ringbuf;			/* 5.8 */
	bool perfbuf;			/* 4.3 */
	bool raw_tp;			/* 4.17 */
	bool tracepoint;		/* 4.7 */
	bool task_storage;		/* 5.11 */
	bool kernel_btf;		/* /sys/kernel/btf/vmlinux: 5.4, CONFIG_DEBUG_INFO_BTF */
	int kernel_ptr_size;		/* bytes of a pointer in the kernel's BTF: 4 on a 32-bit kernel; 0 unknown */
	int kernel_switch_args;		/* sched_switch's arguments in the kernel's BTF; -1 unknown */
	int btf_file_err;		/* --btf FILE: 0, or why it is not a kernel's BTF (-errno) */
	int file_switch_args;		/* the same in FILE */
	bool tracefs;			/* a tracefs mount with events/ */
	char tracefs_root[128];
};

struct probe_choice {
	enum rec_backend backend;
	enum rec_buffer buffer;
	bool switch_state_arg;		/* sched_switch passes prev_state (5.18+) */
	bool raw_tp;			/* raw tracepoints (4.17+): tracefs runs some programs so */
	char tracefs_root[128];		/* tracefs: where the format files are */
	char why[1024];			/* what was chosen and why (record -v) */
};

/*
 * Checks privileges, then finds what this kernel offers and chooses: the
 * best path and buffer that work, or those asked for (REC_*_AUTO: any).
 * btf_path: --btf FILE or NULL. Returns 0, or a negative errno with msg
 * saying what is missing and what to do.
 */
int probe_choose(enum rec_backend backend, enum rec_buffer buffer, const char *btf_path,
		 struct probe_choice *c, char *msg, size_t len);

/* probe_choose() with no wish: can this machine record at all? */
int probe_recording(char *msg, size_t len);

/* Only the privilege part (root, or CAP_BPF + CAP_PERFMON). */
int probe_privileges(char *msg, size_t len);

/* What this kernel offers (btf_path: --btf FILE or NULL). */
void probe_features(const char *btf_path, struct probe_features *f);

/*
 * The choice, from the features alone (probe_choose() without probing):
 * 0, or -EOPNOTSUPP / -EINVAL with msg saying why.
 */
int probe_decide(const struct probe_features *f, enum rec_backend backend, enum rec_buffer buffer,
		 const char *btf_path, struct probe_choice *c, char *msg, size_t len);

/*
 * --backend's argument: a path, a buffer, or both joined by a comma
 * ("tracefs,perfbuf"). Sets only what it names. 0 or -EINVAL.
 */
int probe_parse_backend(const char *arg, enum rec_backend *backend, enum rec_buffer *buffer);

/* "btf", "core", "tracefs" ("auto"); "ringbuf", "perfbuf" ("auto"). */
const char *probe_backend_name(enum rec_backend b);
const char *probe_buffer_name(enum rec_buffer b);

/*
 * The scheduling classes whose CPU time kernel release (uname -r) does not
 * report through sched_stat_runtime, as the trace file's META key
 * "missing" lists them (src/file/missing.h; "" for none): the tracefs
 * path's CPU time at switches comes from that event. Fair threads: every
 * release; real-time and deadline ones: 5.16+ (the series "sched: support
 * schedstats for RT sched class"); the stop class: 6.8+ ("sched: Unify
 * more update_curr*()"). A release it cannot read: all three.
 */
const char *probe_runtime_missing(const char *release);

#endif
