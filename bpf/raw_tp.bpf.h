/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Path 2: raw tracepoints (Linux 4.17+). The arguments are the same as
 * tp_btf's, but pointers are untrusted: every field goes through a CO-RE
 * read, relocated against the kernel's BTF or an external BTF file
 * (record --btf). The per-thread context is keyed by tid, as task storage
 * needs the kernel's own BTF. Programs rt_* and rt_ctx_* (optional).
 */
#ifndef QT_RAW_TP_BPF_H
#define QT_RAW_TP_BPF_H

/* task_struct->state before it became __state (Linux 5.14, commit 2f064a59a11f). */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline __u32 core_task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

/*
 * Before Linux 5.18 (commit fa2c3254d7cf) sched_switch has no prev_state
 * argument; the kernel's own tracepoint then read prev->state at this very
 * point, and so do we.
 */
SEC("raw_tp/sched_switch")
int BPF_PROG(rt_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct qt_switch *r;

	r = reserve(OUT(ctx), sizeof(*r), QT_REC_SWITCH, bpf_ktime_get_ns());
	if (!r)
		return 0;
	r->h.flags = preempt ? QT_SWITCH_PREEMPT : 0;
	r->prev_tid = BPF_CORE_READ(prev, pid);
	r->prev_tgid = BPF_CORE_READ(prev, tgid);
	r->next_tid = BPF_CORE_READ(next, pid);
	r->next_tgid = BPF_CORE_READ(next, tgid);
	r->prev_state = knobs.switch_state_arg ? (__u32)ctx[3] : core_task_state(prev);
	r->prev_prio = BPF_CORE_READ(prev, prio);
	r->next_prio = BPF_CORE_READ(next, prio);
	r->prev_runtime = BPF_CORE_READ(prev, se.sum_exec_runtime);
	r->pad[0] = r->pad[1] = 0;
	submit(OUT(ctx), r, sizeof(*r));
	return 0;
}

static __always_inline int rt_wakeup(void *ctx, struct task_struct *p, __u8 type)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = BPF_CORE_READ(p, tgid);
	struct qt_wakeup *r;

	r = wakeup_begin(OUT(ctx), type, id >> 32, tgid);
	if (!r)
		return 0;
	r->waker_tid = id;
	r->waker_tgid = id >> 32;
	r->wakee_tid = BPF_CORE_READ(p, pid);
	r->wakee_tgid = tgid;
	r->wakee_prio = BPF_CORE_READ(p, prio);
	r->target_cpu = bpf_core_field_exists(p->wake_cpu) ? BPF_CORE_READ(p, wake_cpu) : 0;
	submit(OUT(ctx), r, sizeof(*r));
	return 0;
}

SEC("raw_tp/sched_waking")
int BPF_PROG(rt_waking, struct task_struct *p)
{
	return rt_wakeup(ctx, p, QT_REC_WAKEUP);
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(rt_wakeup_new, struct task_struct *p)
{
	return rt_wakeup(ctx, p, QT_REC_WAKEUP_NEW);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(rt_sys_enter, struct pt_regs *regs, long id)
{
	struct task_ctx *c = tid_sys_enter_ctx();

	if (c)
		sys_enter(c, id, PT_REGS_PARM1_CORE(regs));
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(rt_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_ctx *c = tid_sys_exit_ctx(OUT(ctx), syscall_ret(ret));
	__u64 id;

	if (!c)
		return 0;
	id = bpf_get_current_pid_tgid();
	data_exit(OUT(ctx), false, c, id, id >> 32, syscall_ret(ret), regs);
	c->sys_ts = 0;
	return 0;
}

BTF_IRQ_PROGRAMS(rt_, "raw_tp/", OUT(ctx))

SEC("raw_tp/softirq_raise")
int BPF_PROG(rt_softirq_raise, unsigned int vec)
{
	tid_softirq_raise(OUT(ctx), vec);
	return 0;
}
HARD_CTX_PROGRAMS(rt_ctx_, "raw_tp/", "raw_tp/")

/* comm: a kernel pointer (task->comm, or task_rename's new name). */
static __always_inline void rt_task(void *ctx, __u8 type, struct task_struct *t,
				    struct task_struct *parent, const char *comm)
{
	struct qt_task *r;

	r = task_begin(OUT(ctx), type, BPF_CORE_READ(t, pid), BPF_CORE_READ(t, tgid),
		       parent ? BPF_CORE_READ(parent, pid) : 0,
		       parent ? BPF_CORE_READ(parent, tgid) : 0);
	if (!r)
		return;
	bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), comm);
	submit(OUT(ctx), r, sizeof(*r));
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(rt_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);

	if (ctgid == knobs.self_tgid)
		return 0;
	inherit_target(ptgid, ctgid);
	rt_task(ctx, QT_REC_FORK, child, parent, child->comm);
	return 0;
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(rt_exec, struct task_struct *p, pid_t old_pid)
{
	__u32 tid = BPF_CORE_READ(p, pid);

	if (BPF_CORE_READ(p, tgid) == knobs.self_tgid)
		return 0;
	if ((__u32)old_pid != tid)
		tid_ctx_move(old_pid, tid);
	rt_task(ctx, QT_REC_EXEC, p, NULL, p->comm);
	return 0;
}

SEC("raw_tp/task_rename")
int BPF_PROG(rt_rename, struct task_struct *task, const char *comm)
{
	if (BPF_CORE_READ(task, tgid) == knobs.self_tgid)
		return 0;
	rt_task(ctx, QT_REC_RENAME, task, NULL, comm);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(rt_exit, struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid), tgid = BPF_CORE_READ(p, tgid);

	if (tgid == knobs.self_tgid)
		return 0;
	tid_ctx_exit(OUT(ctx), tid, tgid);
	rt_task(ctx, QT_REC_EXIT, p, NULL, p->comm);
	/* Forget a dead target so that a reused pid is not traced. */
	if (!knobs.all_targets && BPF_CORE_READ(p, signal, live.counter) == 0)
		bpf_map_delete_elem(&targets, &tgid);
	return 0;
}

#endif /* QT_RAW_TP_BPF_H */
