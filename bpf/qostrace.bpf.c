// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * qostrace kernel side: scheduling, wakeups, IRQs and process lifecycle
 * system-wide; system calls of the targets. One ring buffer carries every
 * record (include/qt_events.h); the consumer is never woken per event.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "qt_events.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Knobs set by the loader before load; the verifier prunes what they disable. */
const volatile __u32 self_tgid = 0;		/* the recorder: never a target */
const volatile bool all_targets = false;	/* -a: syscalls of every thread */
const volatile bool want_syscalls = true;
const volatile bool want_irqs = true;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 32 << 20);		/* resized by the loader */
} events SEC(".maps");

/* tgids whose system calls are recorded; children are added at fork. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

struct task_ctx {
	__u64 sys_ts;		/* entry of the system call in progress, 0 if none */
	__u64 sys_arg0;
	__u32 sys_nr;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_ctx);
} task_ctx SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct qt_cpu_stats);
} cpu_stats SEC(".maps");

#define IRQ_SEEN_MAX 16384
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IRQ_SEEN_MAX);
	__type(key, __u32);
	__type(value, __u8);
} irq_seen SEC(".maps");

static __always_inline struct qt_cpu_stats *stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpu_stats, &zero);
}

/*
 * Losses are located in time: the first record this CPU manages to reserve
 * after a failure is preceded by a QT_REC_LOST record giving the window.
 */
static __always_inline void flush_lost(struct qt_cpu_stats *st, __u64 ts)
{
	struct qt_lost *l;

	l = bpf_ringbuf_reserve(&events, sizeof(*l), 0);
	if (!l)
		return;
	l->h.ts = ts;
	l->h.type = QT_REC_LOST;
	l->h.flags = 0;
	l->h.cpu = bpf_get_smp_processor_id();
	l->first_ts = st->lost_first_ts;
	l->last_ts = st->lost_last_ts;
	l->count = st->lost_pending;
	st->lost_pending = 0;
	st->lost_first_ts = 0;
	bpf_ringbuf_submit(l, BPF_RB_NO_WAKEUP);
}

static __always_inline void *reserve(__u32 size, __u8 type, __u64 ts)
{
	struct qt_cpu_stats *st = stats();
	struct qt_rec_hdr *h;

	if (!st)
		return NULL;
	if (st->lost_pending)
		flush_lost(st, ts);
	h = bpf_ringbuf_reserve(&events, size, 0);
	if (!h) {
		__sync_fetch_and_add(&st->lost, 1);
		if (type < QT_REC_MAX)
			__sync_fetch_and_add(&st->lost_by_type[type], 1);
		if (!st->lost_pending)
			st->lost_first_ts = ts;
		st->lost_pending++;
		st->lost_last_ts = ts;
		return NULL;
	}
	h->ts = ts;
	h->type = type;
	h->flags = 0;
	h->cpu = bpf_get_smp_processor_id();
	return h;
}

/* The consumer drains on a timer (src/record/recorder.c): never woken per event. */
static __always_inline void submit(void *rec)
{
	bpf_ringbuf_submit(rec, BPF_RB_NO_WAKEUP);
}

static __always_inline bool is_target(__u32 tgid)
{
	if (tgid == self_tgid)
		return false;
	if (all_targets)
		return true;
	return bpf_map_lookup_elem(&targets, &tgid) != NULL;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct qt_switch *r;

	r = reserve(sizeof(*r), QT_REC_SWITCH, bpf_ktime_get_ns());
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
	submit(r);
	return 0;
}

/*
 * Who is waking: a thread, or an interrupt that happens to run on top of
 * one. Interrupt context is tracked per CPU by the entry/exit programs
 * below (preempt_count is not reachable from BPF on kernels built without
 * CONFIG_KALLSYMS_ALL). *irq gets the IRQ number or a QT_IRQ_* source.
 */
/* No interrupt handler runs this long: an older entry lost its exit. */
#define STALE_CTX_NS 10000000ull

static __always_inline __u8 irq_context(struct qt_cpu_stats *st, __u16 *irq, __u64 now)
{
	*irq = QT_IRQ_UNKNOWN;
	if (st->hardirq_ts && now - st->hardirq_ts > STALE_CTX_NS)
		st->hardirq_ts = 0;
	if (st->hard_depth && now - st->hard_ts > STALE_CTX_NS)
		st->hard_depth = 0;
	if (st->softirq_ts && now - st->softirq_ts > STALE_CTX_NS)
		st->softirq_ts = 0;
	if (st->hardirq_ts) {
		*irq = st->hardirq_nr;
		return QT_WAKE_HARDIRQ;
	}
	if (st->hard_depth) {
		*irq = st->hard_src;
		return QT_WAKE_HARDIRQ;
	}
	if (st->softirq_ts) {
		*irq = st->softirq_vec;
		return QT_WAKE_SOFTIRQ;
	}
	return 0;
}

/* A plain load: p is a trusted pointer in tp_btf programs. */
static __always_inline __u16 task_cpu(struct task_struct *p)
{
	return p->wake_cpu;
}

/*
 * One record per wakeup, in the waker's context: sched_waking runs there
 * (sched_wakeup may run later on the target CPU, from an IPI), so current
 * is the waker and the time is the causal moment. The CPU the wakee will
 * be enqueued on is not chosen yet: target_cpu is the CPU it last ran on
 * (QT_WAKE_CPU_PREV) and the reader takes the CPU of its next run. One
 * program per wakeup instead of two halves the cost of wakeups.
 */
static __always_inline int emit_wakeup(struct task_struct *p, __u8 type)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct qt_cpu_stats *st;
	struct qt_wakeup *r;
	__u16 irq = QT_IRQ_UNKNOWN;
	__u64 ts;
	__u8 flags;

	if (p->tgid == self_tgid && cur->tgid == self_tgid)
		return 0;	/* the recorder waking itself */
	st = stats();
	if (!st)
		return 0;
	ts = bpf_ktime_get_ns();
	flags = irq_context(st, &irq, ts);
	r = reserve(sizeof(*r), type, ts);
	if (!r)
		return 0;
	r->h.flags = flags | (type == QT_REC_WAKEUP ? QT_WAKE_CPU_PREV : 0);
	r->waking_ts = r->h.ts;
	r->waker_tid = cur->pid;
	r->waker_tgid = cur->tgid;
	r->waker_cpu = r->h.cpu;
	r->waker_irq = irq;
	r->wakee_tid = p->pid;
	r->wakee_tgid = p->tgid;
	r->wakee_prio = p->prio;
	r->target_cpu = task_cpu(p);
	r->pad = 0;
	submit(r);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	return emit_wakeup(p, QT_REC_WAKEUP);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(on_wakeup_new, struct task_struct *p)
{
	return emit_wakeup(p, QT_REC_WAKEUP_NEW);
}

/* ---- system calls: one record per completed call ---- */

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
	__u32 tgid;

	if (!want_syscalls)
		return 0;
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (!is_target(tgid))
		return 0;
	c = bpf_task_storage_get(&task_ctx, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!c)
		return 0;
	c->sys_ts = bpf_ktime_get_ns();
	c->sys_nr = id;
	c->sys_arg0 = syscall_arg0(regs);
	return 0;
}

static __always_inline void emit_syscall(struct task_struct *cur, struct task_ctx *c,
					 __s64 ret, __u8 flags)
{
	struct qt_syscall *r;
	__u64 ts = bpf_ktime_get_ns();

	r = reserve(sizeof(*r), QT_REC_SYSCALL, c->sys_ts);
	if (!r)
		return;
	r->h.flags = flags;
	r->end_ts = ts;
	r->arg0 = c->sys_arg0;
	r->ret = ret;
	r->tid = cur->pid;
	r->tgid = cur->tgid;
	r->nr = c->sys_nr;
	r->pad = 0;
	submit(r);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *cur;
	struct task_ctx *c;
	__u32 tgid;

	if (!want_syscalls)
		return 0;
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (!is_target(tgid))
		return 0;
	cur = bpf_get_current_task_btf();
	c = bpf_task_storage_get(&task_ctx, cur, 0, 0);
	if (!c || !c->sys_ts)
		return 0;	/* entered before the recording started */
	emit_syscall(cur, c, ret, 0);
	c->sys_ts = 0;
	return 0;
}

/* ---- interrupts ---- */

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(on_irq_entry, int irq, struct irqaction *action)
{
	struct qt_cpu_stats *st;

	st = stats();
	if (!st)
		return 0;
	st->hardirq_ts = bpf_ktime_get_ns();
	st->hardirq_nr = irq;
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(on_irq_exit, int irq, struct irqaction *action, int ret)
{
	struct qt_cpu_stats *st;
	struct qt_irq_name *n;
	struct qt_irq *r;
	__u32 key = irq;
	__u8 *seen;

	st = stats();
	if (!st || !st->hardirq_ts)
		return 0;
	if (!want_irqs) {
		st->hardirq_ts = 0;
		return 0;
	}
	seen = bpf_map_lookup_elem(&irq_seen, &key);
	if (!seen || !*seen) {
		n = reserve(sizeof(*n), QT_REC_IRQ_NAME, st->hardirq_ts);
		if (n) {
			n->irq = irq;
			n->pad = 0;
			bpf_probe_read_kernel_str(n->name, sizeof(n->name), BPF_CORE_READ(action, name));
			submit(n);
			if (seen)
				*seen = 1;
		}
	}
	r = reserve(sizeof(*r), QT_REC_IRQ, st->hardirq_ts);
	st->hardirq_ts = 0;
	if (!r)
		return 0;
	r->end_ts = bpf_ktime_get_ns();
	r->irq = irq;
	r->ret = ret;
	r->tid = bpf_get_current_pid_tgid();
	r->pad = 0;
	submit(r);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(on_softirq_entry, unsigned int vec)
{
	struct qt_cpu_stats *st;

	st = stats();
	if (!st)
		return 0;
	st->softirq_ts = bpf_ktime_get_ns();
	st->softirq_vec = vec;
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(on_softirq_exit, unsigned int vec)
{
	struct qt_cpu_stats *st;
	struct qt_irq *r;

	st = stats();
	if (!st || !st->softirq_ts)
		return 0;
	if (!want_irqs) {
		st->softirq_ts = 0;
		return 0;
	}
	r = reserve(sizeof(*r), QT_REC_SOFTIRQ, st->softirq_ts);
	st->softirq_ts = 0;
	if (!r)
		return 0;
	r->end_ts = bpf_ktime_get_ns();
	r->irq = vec;
	r->ret = 0;
	r->tid = bpf_get_current_pid_tgid();
	r->pad = 0;
	submit(r);
	return 0;
}

/*
 * Interrupt contexts that wake threads without passing through
 * irq_handler_entry: timers, irq_work, IPIs. They only track context; the
 * x86 vectors are optional (the loader skips those this kernel lacks).
 */
static __always_inline void hard_enter(__u16 src)
{
	struct qt_cpu_stats *st = stats();

	if (st) {
		st->hard_depth++;
		st->hard_src = src;
		st->hard_ts = bpf_ktime_get_ns();
	}
}

static __always_inline void hard_exit(void)
{
	struct qt_cpu_stats *st = stats();

	if (st && st->hard_depth)
		st->hard_depth--;
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(ctx_hrtimer_entry) { hard_enter(QT_IRQ_TIMER); return 0; }
SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(ctx_hrtimer_exit) { hard_exit(); return 0; }
SEC("tp_btf/local_timer_entry")
int BPF_PROG(ctx_timer_entry) { hard_enter(QT_IRQ_TIMER); return 0; }
SEC("tp_btf/local_timer_exit")
int BPF_PROG(ctx_timer_exit) { hard_exit(); return 0; }
SEC("tp_btf/irq_work_entry")
int BPF_PROG(ctx_irq_work_entry) { hard_enter(QT_IRQ_WORK); return 0; }
SEC("tp_btf/irq_work_exit")
int BPF_PROG(ctx_irq_work_exit) { hard_exit(); return 0; }
SEC("tp_btf/call_function_entry")
int BPF_PROG(ctx_call_function_entry) { hard_enter(QT_IRQ_IPI); return 0; }
SEC("tp_btf/call_function_exit")
int BPF_PROG(ctx_call_function_exit) { hard_exit(); return 0; }
SEC("tp_btf/call_function_single_entry")
int BPF_PROG(ctx_call_function_single_entry) { hard_enter(QT_IRQ_IPI); return 0; }
SEC("tp_btf/call_function_single_exit")
int BPF_PROG(ctx_call_function_single_exit) { hard_exit(); return 0; }

/* ---- lifecycle: every tid has a name and a pid at every moment ---- */

static __always_inline void emit_task(__u8 type, struct task_struct *t, struct task_struct *parent,
				      const char *comm)
{
	struct qt_task *r;

	r = reserve(sizeof(*r), type, bpf_ktime_get_ns());
	if (!r)
		return;
	r->tid = t->pid;
	r->tgid = t->tgid;
	r->parent_tid = parent ? parent->pid : 0;
	r->parent_tgid = parent ? parent->tgid : 0;
	bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), comm);
	submit(r);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 one = 1;

	if (ctgid == self_tgid)
		return 0;
	/* A new process of a target is a target. */
	if (!all_targets && ctgid != ptgid && ptgid != self_tgid &&
	    bpf_map_lookup_elem(&targets, &ptgid))
		bpf_map_update_elem(&targets, &ctgid, &one, BPF_ANY);
	emit_task(QT_REC_FORK, child, parent, child->comm);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	if (p->tgid == self_tgid)
		return 0;
	emit_task(QT_REC_EXEC, p, NULL, p->comm);
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(on_rename, struct task_struct *task, const char *comm)
{
	if (task->tgid == self_tgid)
		return 0;
	emit_task(QT_REC_RENAME, task, NULL, comm);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid;
	struct task_ctx *c;

	if (tgid == self_tgid)
		return 0;
	/* exit() and exit_group() never return: close the call here. */
	c = bpf_task_storage_get(&task_ctx, p, 0, 0);
	if (want_syscalls && c && c->sys_ts && is_target(tgid)) {
		emit_syscall(p, c, 0, QT_SYS_NORETURN);
		c->sys_ts = 0;
	}
	emit_task(QT_REC_EXIT, p, NULL, p->comm);
	/* Forget a dead target so that a reused pid is not traced. */
	if (!all_targets && BPF_CORE_READ(p, signal, live.counter) == 0)
		bpf_map_delete_elem(&targets, &tgid);
	return 0;
}
