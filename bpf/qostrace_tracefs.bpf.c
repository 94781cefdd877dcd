// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * Path 3, for kernels without any BTF: classic tracepoints (Linux 4.7+),
 * whose records the programs read at the offsets the loader found in the
 * tracefs format files (src/record/tracefs.c), handed over as knobs
 * (struct qt_tp_layout). No CO-RE relocation may appear in this object:
 * libbpf would then require the kernel's BTF to load it (vmlinux.h is
 * included for its types only; nothing here touches a kernel structure).
 *
 * What the tracepoints do not carry is found another way: the thread
 * leaving the CPU at sched_switch is current; the process (tgid) of any
 * other thread comes from a map filled from /proc at the start and kept by
 * task_newtask; se.sum_exec_runtime, which sched_switch does not carry,
 * is summed from sched_stat_runtime (runtime_of below).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "common.bpf.h"

const volatile struct qt_tp_layout layout;

#define CLONE_THREAD 0x00010000

/* tid -> tgid of every thread, filled by the loader from /proc, then here. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, __u32);
} tgid_of SEC(".maps");

/*
 * The CPU time the kernel charged each thread since the recording started
 * (or since the thread was born): the sum of sched_stat_runtime's deltas,
 * which update_curr() emits as it adds them to se.sum_exec_runtime, before
 * the switch that ends a run. A switch-out records the sum as qt_switch's
 * prev_runtime; the analysis only takes differences between two of a
 * thread's switch-outs, or the whole for a thread born while recording
 * (src/timeline/runs.c), so a sum that starts at the recording's start
 * serves. Kernels before 6.8 emit it for some scheduling classes only
 * (probe_runtime_missing()): those threads keep a sum of 0, the analysis
 * uses their switch-to-switch intervals, and the file says so. Keyed by
 * tid; an entry goes with its thread's last switch-out, and a new thread
 * starts from none (task_newtask), so a reused tid starts from 0.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, __u64);
} runtime_of SEC(".maps");

/* The exit states (qt_switch.prev_state): the thread's last switch-out. */
#define QT_EXIT_STATES (0x10 | 0x20)	/* EXIT_DEAD, EXIT_ZOMBIE */

/*
 * The head of a tracepoint's record, copied in one helper call: a tracing
 * program may only load from its context at offsets fixed when it is
 * compiled, and these are known at load time.
 */
#define TP_WORDS (QT_TP_MAX_LEN / 8)

static __always_inline __u64 tp_val(const __u64 *buf, const volatile struct qt_tp_field *f)
{
	const __u8 *p = (const __u8 *)buf + f->off;
	bool sign = f->flags & QT_TPF_SIGNED;

	switch (f->size) {
	case 1:
		return sign ? (__u64)(__s64)*(const __s8 *)p : *p;
	case 2:
		return sign ? (__u64)(__s64)*(const __s16 *)p : *(const __u16 *)p;
	case 4:
		return sign ? (__u64)(__s64)*(const __s32 *)p : *(const __u32 *)p;
	case 8:
		return *(const __u64 *)p;
	}
	return 0;
}

/* A string field: an array in the record, or a __data_loc pointing past its head. */
static __always_inline void tp_str(void *ctx, const __u64 *buf, const volatile struct qt_tp_field *f,
				   char *dst, __u32 size)
{
	__u32 off = f->off;

	if (f->flags & QT_TPF_DATA_LOC)
		off = tp_val(buf, f) & 0xffff;
	else if (f->flags & QT_TPF_REL_LOC)
		off = f->off + 4 + (tp_val(buf, f) & 0xffff);
	bpf_probe_read_kernel_str(dst, size, (const char *)ctx + off);
}

static __always_inline __u32 tgid_lookup(__u32 tid)
{
	__u32 *v;

	if (!tid)
		return 0;
	v = bpf_map_lookup_elem(&tgid_of, &tid);
	return v ? *v : tid;	/* unknown: taken for a process's main thread */
}

/*
 * prev_state as the format prints it, back to the task's TASK_* bits: one
 * test per letter of the format's table, each a constant for the verifier.
 */
static __always_inline __u32 state_raw(__u64 s)
{
	__u32 out = 0;

#pragma unroll
	for (int i = 0; i < QT_STATE_BITS; i++)
		if (s & layout.state_in[i])
			out |= layout.state_out[i];
	return out;
}

/* tid's CPU time so far (0: none charged yet), forgotten at its last switch-out. */
static __always_inline __u64 runtime_sum(__u32 tid, bool last)
{
	__u64 *sum, v;

	if (!tid)
		return 0;	/* the idle task: not a thread of interest */
	sum = bpf_map_lookup_elem(&runtime_of, &tid);
	v = sum ? *sum : 0;
	if (sum && last)
		bpf_map_delete_elem(&runtime_of, &tid);
	return v;
}

/*
 * update_curr() runs under the runqueue lock of the thread it charges
 * (here or, reading /proc, on another CPU), as does the switch that reads
 * the sum: one thread's updates never race, a plain add does.
 */
SEC("tracepoint/sched/sched_stat_runtime")
int tp_stat_runtime(void *ctx)
{
	__u64 buf[TP_WORDS], delta, *sum;
	__u32 tid;

	if (bpf_probe_read_kernel(buf, layout.sr_len, ctx))
		return 0;
	tid = tp_val(buf, &layout.sr_pid);
	delta = tp_val(buf, &layout.sr_runtime);
	if (!tid)
		return 0;
	sum = bpf_map_lookup_elem(&runtime_of, &tid);
	if (sum)
		*sum += delta;
	else
		bpf_map_update_elem(&runtime_of, &tid, &delta, BPF_NOEXIST);
	return 0;
}

SEC("tracepoint/sched/sched_switch")
int tp_switch(void *ctx)
{
	__u64 buf[TP_WORDS], state, id;
	struct qt_switch *r;
	__u32 next_tid;

	if (bpf_probe_read_kernel(buf, layout.sw_len, ctx))
		return 0;
	r = reserve(OUT(ctx), sizeof(*r), QT_REC_SWITCH, bpf_ktime_get_ns());
	if (!r)
		return 0;
	/* prev is still current here */
	id = bpf_get_current_pid_tgid();
	state = tp_val(buf, &layout.sw_prev_state);
	next_tid = tp_val(buf, &layout.sw_next_pid);
	r->h.flags = state & layout.state_preempt ? QT_SWITCH_PREEMPT : 0;
	r->prev_tid = tp_val(buf, &layout.sw_prev_pid);
	r->prev_tgid = id >> 32;
	r->next_tid = next_tid;
	r->next_tgid = tgid_lookup(next_tid);
	r->prev_state = state_raw(state & ~layout.state_preempt);
	r->prev_prio = tp_val(buf, &layout.sw_prev_prio);
	r->next_prio = tp_val(buf, &layout.sw_next_prio);
	r->prev_runtime = layout.sr_len ? runtime_sum(r->prev_tid, r->prev_state & QT_EXIT_STATES) : 0;
	r->pad[0] = r->pad[1] = 0;
	submit(OUT(ctx), r, sizeof(*r));
	return 0;
}

static __always_inline int tp_wakeup(void *ctx, __u8 type, __u32 len,
				     const volatile struct qt_tp_field *pid,
				     const volatile struct qt_tp_field *prio,
				     const volatile struct qt_tp_field *cpu)
{
	__u64 buf[TP_WORDS], id = bpf_get_current_pid_tgid();
	struct qt_wakeup *r;
	__u32 tid, tgid;

	if (bpf_probe_read_kernel(buf, len, ctx))
		return 0;
	tid = tp_val(buf, pid);
	tgid = tgid_lookup(tid);
	r = wakeup_begin(OUT(ctx), type, id >> 32, tgid);
	if (!r)
		return 0;
	r->waker_tid = id;
	r->waker_tgid = id >> 32;
	r->wakee_tid = tid;
	r->wakee_tgid = tgid;
	r->wakee_prio = tp_val(buf, prio);
	r->target_cpu = tp_val(buf, cpu);
	submit(OUT(ctx), r, sizeof(*r));
	return 0;
}

SEC("tracepoint/sched/sched_waking")
int tp_waking(void *ctx)
{
	return tp_wakeup(ctx, QT_REC_WAKEUP, layout.wk_len, &layout.wk_pid, &layout.wk_prio,
			 &layout.wk_target_cpu);
}

SEC("tracepoint/sched/sched_wakeup_new")
int tp_wakeup_new(void *ctx)
{
	return tp_wakeup(ctx, QT_REC_WAKEUP_NEW, layout.wn_len, &layout.wn_pid, &layout.wn_prio,
			 &layout.wn_target_cpu);
}

SEC("tracepoint/raw_syscalls/sys_enter")
int tp_sys_enter(void *ctx)
{
	struct task_ctx *c = tid_sys_enter_ctx();
	__u64 buf[TP_WORDS];

	if (c && !bpf_probe_read_kernel(buf, layout.se_len, ctx))
		sys_enter(c, tp_val(buf, &layout.se_id), tp_val(buf, &layout.se_arg0));
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int tp_sys_exit(void *ctx)
{
	__u64 buf[TP_WORDS];

	if (!knobs.want_syscalls)
		return 0;
	if (bpf_probe_read_kernel(buf, layout.sx_len, ctx))
		return 0;
	tid_sys_exit(OUT(ctx), tp_val(buf, &layout.sx_ret));
	return 0;
}

/* The handler's name is only in the entry's record: its first sight is noted here. */
SEC("tracepoint/irq/irq_handler_entry")
int tp_irq_entry(void *ctx)
{
	__u64 buf[TP_WORDS];
	struct qt_irq_name *n;
	__u32 irq;

	if (bpf_probe_read_kernel(buf, layout.ie_len, ctx))
		return 0;
	irq = tp_val(buf, &layout.ie_irq);
	irq_enter(false, irq);
	if (!knobs.want_irqs)
		return 0;
	n = irq_name_begin(OUT(ctx), irq, bpf_ktime_get_ns());
	if (n) {
		tp_str(ctx, buf, &layout.ie_name, n->name, sizeof(n->name));
		submit(OUT(ctx), n, sizeof(*n));
	}
	return 0;
}

SEC("tracepoint/irq/irq_handler_exit")
int tp_irq_exit(void *ctx)
{
	struct qt_cpu_stats *st = irq_exit_ctx(false);
	__u64 buf[TP_WORDS];

	if (!st)
		return 0;
	if (bpf_probe_read_kernel(buf, layout.ix_len, ctx)) {
		st->hardirq_ts = 0;
		return 0;
	}
	emit_irq(OUT(ctx), QT_REC_IRQ, &st->hardirq_ts, tp_val(buf, &layout.ix_irq), tp_val(buf, &layout.ix_ret));
	return 0;
}

/* The vector of softirq_entry, _exit and _raise (one class, one layout). */
static __always_inline int softirq_vec(void *ctx, __u32 *vec)
{
	__u64 buf[TP_WORDS];

	if (bpf_probe_read_kernel(buf, layout.si_len, ctx))
		return -1;
	*vec = tp_val(buf, &layout.si_vec);
	return 0;
}

/* The three softirq events of a class: the program of each calls `call` with vec. */
#define TP_SOFTIRQ_PROGRAM(event, call)					\
	SEC("tracepoint/irq/softirq_" #event)				\
	int tp_softirq_##event(void *ctx)				\
	{								\
		__u32 vec;						\
									\
		if (!softirq_vec(ctx, &vec))				\
			call;						\
		return 0;						\
	}

TP_SOFTIRQ_PROGRAM(entry, irq_enter(true, vec))
TP_SOFTIRQ_PROGRAM(exit, softirq_exit(OUT(ctx), vec))
TP_SOFTIRQ_PROGRAM(raise, tid_softirq_raise(OUT(ctx), vec))

HARD_CTX_PROGRAMS(tp_ctx_, "tracepoint/timer/", "tracepoint/irq_vectors/")

/*
 * The same programs as raw tracepoints (tpr_* for tp_*), for kernels that
 * have them (4.17+), where the arguments are plain integers and so need no
 * BTF. The kernel runs no classic tracepoint's program on a CPU where
 * another one is running (bpf_prog_active): an interrupt that arrives
 * during a system call's program would go unrecorded, wakeups and all. A
 * raw tracepoint's program does not hold the others off.
 */

/* The first argument of a system call in its pt_regs (the uapi layout of each architecture). */
#if defined(__TARGET_ARCH_x86)
#define ARG0_OFF 112		/* di */
#define ARG0_SIZE 8
#elif defined(__TARGET_ARCH_arm64)
#define ARG0_OFF 0		/* regs[0] */
#define ARG0_SIZE 8
#elif defined(__TARGET_ARCH_arm)
#define ARG0_OFF 0		/* uregs[0] */
#define ARG0_SIZE 4
#endif

#ifdef ARG0_OFF
SEC("raw_tp/sys_enter")
int BPF_PROG(tpr_sys_enter, void *regs, long id)
{
	struct task_ctx *c = tid_sys_enter_ctx();
	__u64 arg0 = 0;

	if (!c)
		return 0;
	bpf_probe_read_kernel(&arg0, ARG0_SIZE, regs + ARG0_OFF);
	sys_enter(c, id, arg0);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(tpr_sys_exit, void *regs, long ret)
{
	tid_sys_exit(OUT(ctx), syscall_ret(ret));
	return 0;
}
#endif

/* The same as raw tracepoints, where vec is the argument. */
#define TPR_SOFTIRQ_PROGRAM(event, call)				\
	SEC("raw_tp/softirq_" #event)					\
	int BPF_PROG(tpr_softirq_##event, unsigned int vec)		\
	{								\
		call;							\
		return 0;						\
	}

TPR_SOFTIRQ_PROGRAM(entry, irq_enter(true, vec))
TPR_SOFTIRQ_PROGRAM(exit, softirq_exit(OUT(ctx), vec))
TPR_SOFTIRQ_PROGRAM(raise, tid_softirq_raise(OUT(ctx), vec))

HARD_CTX_PROGRAMS(tpr_ctx_, "raw_tp/", "raw_tp/")

/* ---- lifecycle ---- */

/* In the parent, before the child runs: the one place that says thread or process. */
SEC("tracepoint/task/task_newtask")
int tp_newtask(void *ctx)
{
	__u64 buf[TP_WORDS];
	__u32 tid, tgid;

	if (bpf_probe_read_kernel(buf, layout.nt_len, ctx))
		return 0;
	tid = tp_val(buf, &layout.nt_pid);
	tgid = tp_val(buf, &layout.nt_clone_flags) & CLONE_THREAD ?
	       bpf_get_current_pid_tgid() >> 32 : tid;
	bpf_map_update_elem(&tgid_of, &tid, &tgid, BPF_ANY);
	bpf_map_delete_elem(&runtime_of, &tid);	/* a reused tid's: the child has not run yet */
	return 0;
}

/* A lifecycle record named by a field of the tracepoint's record (comm), or after current (NULL). */
static __always_inline void tp_task(void *ctx, const __u64 *buf, __u8 type, __u32 tid, __u32 tgid,
				    __u32 ptid, __u32 ptgid, const volatile struct qt_tp_field *comm)
{
	struct qt_task *r = task_begin(OUT(ctx), type, tid, tgid, ptid, ptgid);

	if (!r)
		return;
	if (comm)
		tp_str(ctx, buf, comm, r->comm, sizeof(r->comm));
	else
		bpf_get_current_comm(r->comm, sizeof(r->comm));
	submit(OUT(ctx), r, sizeof(*r));
}

SEC("tracepoint/sched/sched_process_fork")
int tp_fork(void *ctx)
{
	__u64 buf[TP_WORDS], id = bpf_get_current_pid_tgid();
	__u32 ptgid = id >> 32, ctid, ctgid;

	if (bpf_probe_read_kernel(buf, layout.fk_len, ctx))
		return 0;
	ctid = tp_val(buf, &layout.fk_child_pid);
	ctgid = tgid_lookup(ctid);
	if (ctgid == knobs.self_tgid)
		return 0;
	inherit_target(ptgid, ctgid);
	tp_task(ctx, buf, QT_REC_FORK, ctid, ctgid, id, ptgid, &layout.fk_child_comm);
	return 0;
}

/* old_pid: the tid the thread had before an exec took over the leader's (tid_ctx_move) */
SEC("tracepoint/sched/sched_process_exec")
int tp_exec(void *ctx)
{
	__u64 buf[TP_WORDS];
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, tid, old;

	if (tgid == knobs.self_tgid || bpf_probe_read_kernel(buf, layout.ex_len, ctx))
		return 0;
	tid = tp_val(buf, &layout.ex_pid);
	old = tp_val(buf, &layout.ex_old_pid);
	if (old != tid) {
		__u64 *sum = bpf_map_lookup_elem(&runtime_of, &old);

		tid_ctx_move(old, tid);
		bpf_map_delete_elem(&tgid_of, &old);
		/* the same thread, its CPU time under the leader's tid from now on */
		if (sum)
			bpf_map_update_elem(&runtime_of, &tid, sum, BPF_ANY);
		bpf_map_delete_elem(&runtime_of, &old);
	}
	tp_task(ctx, buf, QT_REC_EXEC, tid, tgid, 0, 0, NULL);
	return 0;
}

/* prctl(PR_SET_NAME) renames current; a new kernel thread is named by its creator. */
SEC("tracepoint/task/task_rename")
int tp_rename(void *ctx)
{
	__u64 buf[TP_WORDS], id = bpf_get_current_pid_tgid();
	__u32 tid, tgid;

	if (bpf_probe_read_kernel(buf, layout.rn_len, ctx))
		return 0;
	tid = tp_val(buf, &layout.rn_pid);
	tgid = tid == (__u32)id ? id >> 32 : tgid_lookup(tid);
	if (tgid == knobs.self_tgid)
		return 0;
	tp_task(ctx, buf, QT_REC_RENAME, tid, tgid, 0, 0, &layout.rn_newcomm);
	return 0;
}

SEC("tracepoint/sched/sched_process_exit")
int tp_exit(void *ctx)
{
	__u64 buf[TP_WORDS], id = bpf_get_current_pid_tgid();
	__u32 tid = id, tgid = id >> 32;

	if (tgid == knobs.self_tgid)
		return 0;
	tid_ctx_exit(OUT(ctx), tid, tgid);
	bpf_map_delete_elem(&tgid_of, &tid);
	tp_task(ctx, buf, QT_REC_EXIT, tid, tgid, 0, 0, NULL);
	/*
	 * Forget a dead target so that a reused pid is not traced. Kernels
	 * whose record has no group_dead keep it: a reused pid then has its
	 * calls recorded, which is better than missing those of a live one.
	 */
	if (!knobs.all_targets && layout.xt_group_dead.size &&
	    !bpf_probe_read_kernel(buf, layout.xt_len, ctx) && tp_val(buf, &layout.xt_group_dead))
		bpf_map_delete_elem(&targets, &tgid);
	return 0;
}
