/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * What every attach path shares: the knobs, the maps, the output buffer
 * (ring buffer, or perf buffer where there is none), loss accounting, the
 * per-CPU interrupt context, and the bodies that fill each record from
 * plain values. The entry programs of a path (tp_btf.bpf.h, raw_tp.bpf.h,
 * qostrace_tracefs.bpf.c) only fetch those values their own way.
 *
 * Include after vmlinux.h and the libbpf headers.
 */
#ifndef QT_COMMON_BPF_H
#define QT_COMMON_BPF_H

#include "qt_events.h"
#include "qt_knobs.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Set by the loader before load; the verifier prunes what they disable. */
const volatile struct qt_knobs knobs = {
	.want_syscalls = 1,
	.want_irqs = 1,
};

/*
 * The output. A ring buffer (Linux 5.8+); before that the loader turns it
 * into a perf event array (one buffer per CPU), and records are built in
 * `heap` and copied out by bpf_perf_event_output().
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 32 << 20);		/* resized by the loader */
} events SEC(".maps");

/*
 * A record is built in place: an interrupt arriving meanwhile builds its
 * own one slot further (task, softirq, hardirq, and one to spare).
 */
#define HEAP_SLOTS 4
#define HEAP_SLOT_SIZE 128	/* struct qt_data: 96 bytes */

struct heap {
	__u32 depth;
	__u32 pad;
	__u8 slot[HEAP_SLOTS][HEAP_SLOT_SIZE];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct heap);
} heap SEC(".maps");

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

/*
 * The per-thread context where there is no task storage (before 5.11, or
 * without the kernel's own BTF): keyed by tid, deleted at the thread's
 * exit. Sized by the loader.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct task_ctx);
} task_ctx_by_tid SEC(".maps");

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

/* A record this CPU could not output: counted, and its time kept for the window. */
static __always_inline void count_lost(struct qt_cpu_stats *st, __u8 type, __u64 ts)
{
	__sync_fetch_and_add(&st->lost, 1);
	if (type < QT_REC_MAX)
		__sync_fetch_and_add(&st->lost_by_type[type], 1);
	if (!st->lost_pending)
		st->lost_first_ts = ts;
	st->lost_pending++;
	st->lost_last_ts = ts;
}

/*
 * Where a program's records go: o.ctx is its context, which
 * bpf_perf_event_output() needs. OUT(ctx) for paths that may have a perf
 * buffer; RING_ONLY for one that writes to the ring buffer only (tp_btf:
 * every kernel that runs it has one), whose programs then carry no trace
 * of the perf buffer, not even the test of the knob. (A test of ctx itself
 * would not do: the verifier does not know a context is never NULL.)
 */
struct out {
	void *ctx;
	bool perf;	/* a constant for the compiler */
};

#define OUT(ctx) ((struct out){ (ctx), true })
#define RING_ONLY ((struct out){ NULL, false })

static __always_inline bool use_perfbuf(struct out o)
{
	return o.perf && knobs.perfbuf;
}

static __always_inline void *buf_reserve(struct out o, __u32 size)
{
	struct heap *h;
	__u32 zero = 0, d;

	if (!use_perfbuf(o))
		return bpf_ringbuf_reserve(&events, size, 0);
	h = bpf_map_lookup_elem(&heap, &zero);
	if (!h)
		return NULL;
	d = h->depth;
	if (d >= HEAP_SLOTS)
		return NULL;
	h->depth = d + 1;
	return h->slot[d];
}

/* A record built in the heap out to the perf buffer, its slot freed: 0 or -ENOSPC (full). */
static __always_inline long perf_output(void *ctx, void *rec, __u32 size)
{
	struct heap *h;
	__u32 zero = 0;
	long err;

	err = bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, rec, size);
	h = bpf_map_lookup_elem(&heap, &zero);
	if (h && h->depth)
		h->depth--;
	return err;
}

/*
 * Losses are located in time: the first record this CPU manages to output
 * after a failure is preceded by a QT_REC_LOST record giving the window.
 */
static __always_inline void flush_lost(struct out o, struct qt_cpu_stats *st, __u64 ts)
{
	struct qt_lost *l;

	l = buf_reserve(o, sizeof(*l));
	if (!l)
		return;
	l->h.ts = ts;
	l->h.type = QT_REC_LOST;
	l->h.flags = 0;
	l->h.cpu = bpf_get_smp_processor_id();
	l->first_ts = st->lost_first_ts;
	l->last_ts = st->lost_last_ts;
	l->count = st->lost_pending;
	if (!use_perfbuf(o)) {
		bpf_ringbuf_submit(l, BPF_RB_NO_WAKEUP);
	} else if (perf_output(o.ctx, l, sizeof(*l))) {
		st->lost_records_refused++;
		return;
	}
	st->lost_pending = 0;
	st->lost_first_ts = 0;
}

static __always_inline void *reserve(struct out o, __u32 size, __u8 type, __u64 ts)
{
	struct qt_cpu_stats *st = stats();
	struct qt_rec_hdr *h;

	if (!st)
		return NULL;
	if (st->lost_pending)
		flush_lost(o, st, ts);
	h = buf_reserve(o, size);
	if (!h) {
		count_lost(st, type, ts);
		return NULL;
	}
	h->ts = ts;
	h->type = type;
	h->flags = 0;
	h->cpu = bpf_get_smp_processor_id();
	return h;
}

/*
 * The consumer drains on a timer (src/record/recorder.c): never woken per
 * event. The perf buffers are opened with a wake-up watermark for the same
 * reason (src/record/evbuf.c).
 */
static __always_inline void submit(struct out o, void *rec, __u32 size)
{
	struct qt_rec_hdr *h = rec;
	struct qt_cpu_stats *st;
	__u64 ts;
	__u8 type;

	if (!use_perfbuf(o)) {
		bpf_ringbuf_submit(rec, BPF_RB_NO_WAKEUP);
		return;
	}
	ts = h->ts;
	type = h->type;
	if (!perf_output(o.ctx, rec, size))
		return;
	st = stats();
	if (st)
		count_lost(st, type, ts);
}

static __always_inline bool is_target(__u32 tgid)
{
	if (tgid == knobs.self_tgid)
		return false;
	if (knobs.all_targets)
		return true;
	return bpf_map_lookup_elem(&targets, &tgid) != NULL;
}

/* Are this process's system calls recorded? */
static __always_inline bool records_syscalls(__u32 tgid)
{
	return knobs.want_syscalls && is_target(tgid);
}

/*
 * Who is waking: a thread, or an interrupt that happens to run on top of
 * one. Interrupt context is tracked per CPU by the entry/exit programs
 * (preempt_count is not reachable from BPF on kernels built without
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

/*
 * One record per wakeup, in the waker's context: sched_waking runs there
 * (sched_wakeup may run later on the target CPU, from an IPI), so current
 * is the waker and the time is the causal moment. The CPU the wakee will
 * be enqueued on is not chosen yet: target_cpu is the CPU it last ran on
 * (QT_WAKE_CPU_PREV) and the reader takes the CPU of its next run. One
 * program per wakeup instead of two halves the cost of wakeups.
 *
 * The record with the waker's context filled in, or NULL; the caller
 * fills in who wakes whom and submits it.
 */
static __always_inline struct qt_wakeup *wakeup_begin(struct out o, __u8 type, __u32 waker_tgid,
						      __u32 wakee_tgid)
{
	struct qt_cpu_stats *st;
	struct qt_wakeup *r;
	__u16 irq = QT_IRQ_UNKNOWN;
	__u64 ts;
	__u8 flags;

	if (wakee_tgid == knobs.self_tgid && waker_tgid == knobs.self_tgid)
		return NULL;	/* the recorder waking itself */
	st = stats();
	if (!st)
		return NULL;
	ts = bpf_ktime_get_ns();
	flags = irq_context(st, &irq, ts);
	r = reserve(o, sizeof(*r), type, ts);
	if (!r)
		return NULL;
	r->h.flags = flags | (type == QT_REC_WAKEUP ? QT_WAKE_CPU_PREV : 0);
	r->waking_ts = r->h.ts;
	r->waker_cpu = r->h.cpu;
	r->waker_irq = irq;
	r->pad = 0;
	return r;
}

/* ---- system calls: one record per completed call ---- */

/*
 * A system call's return value as a raw tracepoint passes it: a long,
 * zero-extended to 64 bits, which on a 32-bit kernel hides its sign.
 */
#if defined(__TARGET_ARCH_arm)
#define syscall_ret(ret) ((__s64)(__s32)(ret))
#else
#define syscall_ret(ret) ((__s64)(ret))
#endif

/* The entry of a call: the context gets its time, number and first argument. */
static __always_inline void sys_enter(struct task_ctx *c, __u32 nr, __u64 arg0)
{
	c->sys_ts = bpf_ktime_get_ns();
	c->sys_nr = nr;
	c->sys_arg0 = arg0;
}

static __always_inline void emit_syscall(struct out o, __u32 tid, __u32 tgid, struct task_ctx *c,
					 __s64 ret, __u8 flags)
{
	struct qt_syscall *r;
	__u64 ts = bpf_ktime_get_ns();

	r = reserve(o, sizeof(*r), QT_REC_SYSCALL, c->sys_ts);
	if (!r)
		return;
	r->h.flags = flags;
	r->end_ts = ts;
	r->arg0 = c->sys_arg0;
	r->ret = ret;
	r->tid = tid;
	r->tgid = tgid;
	r->nr = c->sys_nr;
	r->pad = 0;
	submit(o, r, sizeof(*r));
}

/*
 * The context of the current thread by tid, created at its first system
 * call. A full map loses that call: counted like a full buffer.
 */
static __always_inline struct task_ctx *tid_ctx_create(__u32 tid)
{
	struct task_ctx *c = bpf_map_lookup_elem(&task_ctx_by_tid, &tid);
	struct task_ctx zero = {};
	struct qt_cpu_stats *st;

	if (c)
		return c;
	if (bpf_map_update_elem(&task_ctx_by_tid, &tid, &zero, BPF_NOEXIST) == 0)
		return bpf_map_lookup_elem(&task_ctx_by_tid, &tid);
	st = stats();
	if (st)
		count_lost(st, QT_REC_SYSCALL, bpf_ktime_get_ns());
	return NULL;
}

/* sys_enter where contexts are keyed by tid: the current thread's, if its calls are recorded. */
static __always_inline struct task_ctx *tid_sys_enter_ctx(void)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	if (!records_syscalls(pid_tgid >> 32))
		return NULL;
	return tid_ctx_create(pid_tgid);
}

/*
 * sys_exit where the context is keyed by tid: the context of the call
 * that ends, if it is recorded, after its record went out; the caller
 * clears its sys_ts.
 */
static __always_inline struct task_ctx *tid_sys_exit_ctx(struct out o, __s64 ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = id, tgid = id >> 32;
	struct task_ctx *c;

	if (!records_syscalls(tgid))
		return NULL;
	c = bpf_map_lookup_elem(&task_ctx_by_tid, &tid);
	if (!c || !c->sys_ts)
		return NULL;	/* entered before the recording started */
	emit_syscall(o, tid, tgid, c, ret, 0);
	return c;
}

static __always_inline void tid_sys_exit(struct out o, __s64 ret)
{
	struct task_ctx *c = tid_sys_exit_ctx(o, ret);

	if (c)
		c->sys_ts = 0;
}

/*
 * A thread exits where contexts are keyed by tid: a call in progress never
 * returns. Its entry was recorded, so it is closed even when the process
 * is no target any more (see on_exit in tp_btf.bpf.h).
 */
static __always_inline void tid_ctx_exit(struct out o, __u32 tid, __u32 tgid)
{
	struct task_ctx *c = bpf_map_lookup_elem(&task_ctx_by_tid, &tid);

	if (!c)
		return;
	if (c->sys_ts)
		emit_syscall(o, tid, tgid, c, 0, QT_SYS_NORETURN);
	bpf_map_delete_elem(&task_ctx_by_tid, &tid);
}

/*
 * An exec by a thread other than the leader takes over the leader's tid:
 * its context (the execve in progress) moves with it.
 */
static __always_inline void tid_ctx_move(__u32 old, __u32 tid)
{
	struct task_ctx *c = bpf_map_lookup_elem(&task_ctx_by_tid, &old);

	if (c)
		bpf_map_update_elem(&task_ctx_by_tid, &tid, c, BPF_ANY);
	bpf_map_delete_elem(&task_ctx_by_tid, &old);
}

/* ---- interrupts ---- */

/* An interrupt starts on this CPU: hard (irq_handler_entry) or soft (softirq_entry). */
static __always_inline void irq_enter(bool soft, __u32 nr)
{
	struct qt_cpu_stats *st;

	st = stats();
	if (!st)
		return;
	if (soft) {
		st->softirq_ts = bpf_ktime_get_ns();
		st->softirq_vec = nr;
		/* it runs: the next raise of it is a new cause */
		if (nr < QT_SOFTIRQ_VECS)
			st->raised &= ~(1u << nr);
	} else {
		st->hardirq_ts = bpf_ktime_get_ns();
		st->hardirq_nr = nr;
	}
}

/*
 * At an interrupt's exit: this CPU's context if its entry was seen and
 * IRQs are recorded, else NULL (and the entry is forgotten).
 */
static __always_inline struct qt_cpu_stats *irq_exit_ctx(bool soft)
{
	struct qt_cpu_stats *st = stats();
	__u64 *entry;

	if (!st)
		return NULL;
	entry = soft ? &st->softirq_ts : &st->hardirq_ts;
	if (!*entry)
		return NULL;
	if (!knobs.want_irqs) {
		*entry = 0;
		return NULL;
	}
	return st;
}

/*
 * The first time an IRQ number is seen, a QT_REC_IRQ_NAME record (to be
 * filled by the caller with the handler's name and submitted), else NULL.
 */
static __always_inline struct qt_irq_name *irq_name_begin(struct out o, __u32 irq, __u64 ts)
{
	struct qt_irq_name *n;
	__u32 key = irq;
	__u8 *seen;

	seen = bpf_map_lookup_elem(&irq_seen, &key);
	if (seen && *seen)
		return NULL;
	n = reserve(o, sizeof(*n), QT_REC_IRQ_NAME, ts);
	if (!n)
		return NULL;
	n->irq = irq;
	n->pad = 0;
	if (seen)
		*seen = 1;
	return n;
}

/* A completed interrupt (QT_REC_IRQ or _SOFTIRQ) from *entry on; *entry is cleared. */
static __always_inline void emit_irq(struct out o, __u8 type, __u64 *entry, __u32 irq, __s32 ret)
{
	struct qt_irq *r;

	r = reserve(o, sizeof(*r), type, *entry);
	*entry = 0;
	if (!r)
		return;
	r->end_ts = bpf_ktime_get_ns();
	r->irq = irq;
	r->ret = ret;
	r->tid = bpf_get_current_pid_tgid();
	r->pad = 0;
	submit(o, r, sizeof(*r));
}

static __always_inline void softirq_exit(struct out o, __u32 vec)
{
	struct qt_cpu_stats *st = irq_exit_ctx(true);

	if (st)
		emit_irq(o, QT_REC_SOFTIRQ, &st->softirq_ts, vec, 0);
}

/*
 * softirq_raise: the first raise of a vector of QT_RAISE_VECS on this CPU
 * since it last ran here (include/qt_events.h), with the context raising
 * it, or NULL. Most raises are the tick's (TIMER, SCHED, RCU): they cost
 * the test of the mask only. The caller adds QT_RAISE_SYSCALL where a
 * thread raised it and submits the record.
 */
static __always_inline struct qt_softirq_raise *softirq_raise_begin(struct out o, __u32 vec)
{
	struct qt_softirq_raise *r;
	struct qt_cpu_stats *st;
	__u64 id, ts;
	__u16 irq;
	__u8 flags;

	if (vec >= QT_SOFTIRQ_VECS || !(QT_RAISE_VECS & (1u << vec)))
		return NULL;
	st = stats();
	if (!st || (st->raised & (1u << vec)))
		return NULL;
	/* Set even if the record is lost: the raises after it did not cause the run. */
	st->raised |= 1u << vec;
	ts = bpf_ktime_get_ns();
	flags = irq_context(st, &irq, ts);
	r = reserve(o, sizeof(*r), QT_REC_SOFTIRQ_RAISE, ts);
	if (!r)
		return NULL;
	id = bpf_get_current_pid_tgid();
	r->h.flags = flags;
	r->tid = id;
	r->tgid = id >> 32;
	r->vec = vec;
	r->irq = flags ? irq : 0;
	r->pad = 0;
	return r;
}

/* Where contexts are keyed by tid: is this thread inside a recorded system call? */
static __always_inline bool tid_in_syscall(__u32 tid)
{
	struct task_ctx *c = bpf_map_lookup_elem(&task_ctx_by_tid, &tid);

	return c && c->sys_ts;
}

/* softirq_raise where contexts are keyed by tid. */
static __always_inline void tid_softirq_raise(struct out o, __u32 vec)
{
	struct qt_softirq_raise *r = softirq_raise_begin(o, vec);

	if (!r)
		return;
	if (!r->h.flags && tid_in_syscall(r->tid))
		r->h.flags = QT_RAISE_SYSCALL;
	submit(o, r, sizeof(*r));
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

/*
 * The optional programs of a path (ctx_* in their names: a kernel may lack
 * the tracepoint), with the section prefixes of the timer events and of
 * the x86 irq_vectors events.
 */
#define HARD_CTX_PAIR(pfx, sec, name, src)						\
	SEC(sec "_entry") int pfx##name##_entry(void *ctx) { hard_enter(src); return 0; }	\
	SEC(sec "_exit") int pfx##name##_exit(void *ctx) { hard_exit(); return 0; }

#define HARD_CTX_PROGRAMS(pfx, timer_sec, vectors_sec)					\
	HARD_CTX_PAIR(pfx, timer_sec "hrtimer_expire", hrtimer, QT_IRQ_TIMER)		\
	HARD_CTX_PAIR(pfx, vectors_sec "local_timer", timer, QT_IRQ_TIMER)		\
	HARD_CTX_PAIR(pfx, vectors_sec "irq_work", irq_work, QT_IRQ_WORK)		\
	HARD_CTX_PAIR(pfx, vectors_sec "call_function", call_function, QT_IRQ_IPI)	\
	HARD_CTX_PAIR(pfx, vectors_sec "call_function_single", call_function_single, QT_IRQ_IPI)

/* ---- lifecycle: every tid has a name and a pid at every moment ---- */

/* A FORK/EXEC/RENAME/EXIT record; the caller fills comm and submits it. */
static __always_inline struct qt_task *task_begin(struct out o, __u8 type, __u32 tid, __u32 tgid,
						  __u32 parent_tid, __u32 parent_tgid)
{
	struct qt_task *r;

	r = reserve(o, sizeof(*r), type, bpf_ktime_get_ns());
	if (!r)
		return NULL;
	r->tid = tid;
	r->tgid = tgid;
	r->parent_tid = parent_tid;
	r->parent_tgid = parent_tgid;
	return r;
}

/* A new process of a target is a target. */
static __always_inline void inherit_target(__u32 ptgid, __u32 ctgid)
{
	__u8 one = 1;

	if (!knobs.all_targets && ctgid != ptgid && ptgid != knobs.self_tgid &&
	    bpf_map_lookup_elem(&targets, &ptgid))
		bpf_map_update_elem(&targets, &ctgid, &one, BPF_ANY);
}

#endif /* QT_COMMON_BPF_H */
