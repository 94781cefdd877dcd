/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Path 1, the best: BTF-enabled raw tracepoints (tp_btf, Linux 5.5+) read
 * the tracepoints' arguments as trusted pointers, with plain loads; the
 * per-thread context lives in task storage (5.11+), and sched_switch
 * passes prev_state (5.18+). Such a kernel has the ring buffer (5.8+):
 * these programs write to it only (RING_ONLY). Programs on_* and ctx_*
 * (optional).
 */
#ifndef QT_TP_BTF_BPF_H
#define QT_TP_BTF_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_ctx);
} task_ctx SEC(".maps");

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct qt_switch *r;

	r = reserve(RING_ONLY, sizeof(*r), QT_REC_SWITCH, bpf_ktime_get_ns());
	if (!r)
		return 0;
	r->h.flags = preempt ? QT_SWITCH_PREEMPT : 0;
	r->prev_tid = prev->pid;
	r->prev_tgid = prev->tgid;
	r->next_tid = next->pid;
	r->next_tgid = next->tgid;
	r->prev_state = prev_state;
	r->prev_prio = prev->prio;
	r->next_prio = next->prio;
	r->prev_runtime = prev->se.sum_exec_runtime;
	r->pad[0] = r->pad[1] = 0;
	submit(RING_ONLY, r, sizeof(*r));
	return 0;
}

static __always_inline int btf_wakeup(struct task_struct *p, __u8 type)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct qt_wakeup *r;

	r = wakeup_begin(RING_ONLY, type, cur->tgid, p->tgid);
	if (!r)
		return 0;
	r->waker_tid = cur->pid;
	r->waker_tgid = cur->tgid;
	r->wakee_tid = p->pid;
	r->wakee_tgid = p->tgid;
	r->wakee_prio = p->prio;
	/* A plain load: p is a trusted pointer in tp_btf programs. */
	r->target_cpu = p->wake_cpu;
	submit(RING_ONLY, r, sizeof(*r));
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	return btf_wakeup(p, QT_REC_WAKEUP);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(on_wakeup_new, struct task_struct *p)
{
	return btf_wakeup(p, QT_REC_WAKEUP_NEW);
}

/* A plain load from the trusted pt_regs, not a probe-read helper call. */
static __always_inline __u64 syscall_arg0(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return regs->di;
#elif defined(__TARGET_ARCH_arm64)
	return regs->regs[0];
#else
	return PT_REGS_PARM1_CORE(regs);
#endif
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long id)
{
	struct task_ctx *c;

	if (!records_syscalls(bpf_get_current_pid_tgid() >> 32))
		return 0;
	c = bpf_task_storage_get(&task_ctx, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!c)
		return 0;
	sys_enter(c, id, syscall_arg0(regs));
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *cur;
	struct task_ctx *c;

	if (!records_syscalls(bpf_get_current_pid_tgid() >> 32))
		return 0;
	cur = bpf_get_current_task_btf();
	c = bpf_task_storage_get(&task_ctx, cur, 0, 0);
	if (!c || !c->sys_ts)
		return 0;	/* entered before the recording started */
	emit_syscall(RING_ONLY, cur->pid, cur->tgid, c, syscall_ret(ret), 0);
	data_exit(RING_ONLY, true, c, cur->pid, cur->tgid, syscall_ret(ret), regs);
	c->sys_ts = 0;
	return 0;
}

BTF_IRQ_PROGRAMS(on_, "tp_btf/", RING_ONLY)

SEC("tp_btf/softirq_raise")
int BPF_PROG(on_softirq_raise, unsigned int vec)
{
	struct qt_softirq_raise *r = softirq_raise_begin(RING_ONLY, vec);
	struct task_ctx *c;

	if (!r)
		return 0;
	if (!r->h.flags) {
		c = bpf_task_storage_get(&task_ctx, bpf_get_current_task_btf(), 0, 0);
		if (c && c->sys_ts)
			r->h.flags = QT_RAISE_SYSCALL;
	}
	submit(RING_ONLY, r, sizeof(*r));
	return 0;
}
HARD_CTX_PROGRAMS(ctx_, "tp_btf/", "tp_btf/")

static __always_inline void btf_task(__u8 type, struct task_struct *t, struct task_struct *parent,
				     const char *comm)
{
	struct qt_task *r;

	r = task_begin(RING_ONLY, type, t->pid, t->tgid, parent ? parent->pid : 0,
		       parent ? parent->tgid : 0);
	if (!r)
		return;
	bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), comm);
	submit(RING_ONLY, r, sizeof(*r));
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;

	if (ctgid == knobs.self_tgid)
		return 0;
	inherit_target(ptgid, ctgid);
	btf_task(QT_REC_FORK, child, parent, child->comm);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	if (p->tgid == knobs.self_tgid)
		return 0;
	btf_task(QT_REC_EXEC, p, NULL, p->comm);
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(on_rename, struct task_struct *task, const char *comm)
{
	if (task->tgid == knobs.self_tgid)
		return 0;
	btf_task(QT_REC_RENAME, task, NULL, comm);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid;
	struct task_ctx *c;

	if (tgid == knobs.self_tgid)
		return 0;
	/*
	 * exit() and exit_group() never return: close the call here. Its
	 * entry was recorded (sys_ts), so it is closed even when the process
	 * is no target any more: the thread that made the group dead may
	 * reach this point before one that exited earlier (seen in an emulated
	 * arm64 guest: a worker's exit() lost after the leader's exit_group()).
	 */
	c = bpf_task_storage_get(&task_ctx, p, 0, 0);
	if (c && c->sys_ts) {
		emit_syscall(RING_ONLY, p->pid, p->tgid, c, 0, QT_SYS_NORETURN);
		c->sys_ts = 0;
	}
	btf_task(QT_REC_EXIT, p, NULL, p->comm);
	/* Forget a dead target so that a reused pid is not traced. */
	if (!knobs.all_targets && BPF_CORE_READ(p, signal, live.counter) == 0)
		bpf_map_delete_elem(&targets, &tgid);
	return 0;
}

#endif /* QT_TP_BTF_BPF_H */
