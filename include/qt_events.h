/* SPDX-License-Identifier: MIT */
/*
 * Records that the BPF programs put into the ring buffer. Shared by bpf/ and
 * src/, so fixed-width types only. Every record starts with struct qt_rec_hdr;
 * the type tag says which layout follows. All timestamps are
 * bpf_ktime_get_ns(), i.e. CLOCK_MONOTONIC nanoseconds.
 *
 * The layouts are the kernel -> user contract only; the trace file stores
 * them re-encoded (src/file/codec.c), so fields may be added here as long as
 * codec.c learns them and the file format version is bumped.
 */
#ifndef QT_EVENTS_H
#define QT_EVENTS_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define QT_COMM_LEN 16
#define QT_IRQ_NAME_LEN 32

enum qt_rec_type {
	QT_REC_NONE = 0,
	QT_REC_SWITCH = 1,	/* sched_switch */
	QT_REC_WAKEUP = 2,	/* sched_waking, in the waker's context */
	QT_REC_WAKEUP_NEW = 3,	/* sched_wakeup_new: first wakeup of a forked task */
	QT_REC_SYSCALL = 4,	/* one completed system call of a target */
	QT_REC_IRQ = 5,		/* one completed hard IRQ handler */
	QT_REC_SOFTIRQ = 6,	/* one completed softirq vector run */
	QT_REC_FORK = 7,	/* new thread or process */
	QT_REC_EXEC = 8,	/* exec: new comm */
	QT_REC_RENAME = 9,	/* prctl(PR_SET_NAME) and friends */
	QT_REC_EXIT = 10,	/* thread exit */
	QT_REC_IRQ_NAME = 11,	/* first sight of an IRQ number: its handler name */
	QT_REC_LOST = 12,	/* records this CPU could not reserve in [first_ts, last_ts] */
	QT_REC_STATS = 13,	/* written by the recorder, not the kernel: cumulative counters */
	QT_REC_SOFTIRQ_RAISE = 14,	/* a softirq raised: its cause (file format 2) */
	QT_REC_DATA = 15,	/* a data system call and its objects (file format 3) */
	QT_REC_MAX
};

/* prev_state of a switch: what the thread does when it leaves the CPU. */
enum qt_run_end {
	QT_END_PREEMPTED = 0,	/* still runnable: same invocation continues */
	QT_END_SLEEP = 1,	/* TASK_INTERRUPTIBLE: waits for an event */
	QT_END_BLOCKED = 2,	/* TASK_UNINTERRUPTIBLE: I/O, lock */
	QT_END_OTHER = 3,	/* stopped, traced, parked, ... */
	QT_END_EXITED = 4,	/* dead or zombie */
	QT_END_TRUNCATED = 5,	/* (reader only) still running when the recording stopped */
	QT_END_UNKNOWN = 6,	/* (reader only) the end was lost with dropped records */
};

struct qt_rec_hdr {
	__u64 ts;
	__u8 type;
	__u8 flags;
	__u16 cpu;
};

#define QT_SWITCH_PREEMPT 0x01	/* the kernel switched prev out involuntarily */

struct qt_switch {
	struct qt_rec_hdr h;
	__u32 prev_tid, prev_tgid;
	__u32 next_tid, next_tgid;
	__u32 prev_state;	/* raw task state (TASK_* bits) */
	__u8 prev_prio, next_prio;
	__u8 pad[2];
	/*
	 * prev's CPU time as the kernel accounts it (se.sum_exec_runtime,
	 * what /proc/<pid>/task/<tid>/schedstat shows), updated just before
	 * the switch: the difference between two switch-outs of a thread is
	 * exactly the CPU time it got in between.
	 */
	__u64 prev_runtime;
};

/* Wakeup flags (hdr.flags): in which context the waker ran. */
#define QT_WAKE_HARDIRQ 0x01	/* an interrupt woke the task; waker_* is whoever it interrupted */
#define QT_WAKE_SOFTIRQ 0x02	/* a softirq did (waker_irq: the vector) */
#define QT_WAKE_CPU_PREV 0x08	/* target_cpu is the CPU the wakee last ran on (the target
				 * is chosen after sched_waking); the reader uses the CPU
				 * of its next run */

/* waker_irq for interrupt sources that have no IRQ number */
#define QT_IRQ_UNKNOWN 0xffff
#define QT_IRQ_TIMER 0xfffe	/* timer interrupt / hrtimer expiry */
#define QT_IRQ_WORK 0xfffd	/* irq_work */
#define QT_IRQ_IPI 0xfffc	/* function-call IPI */

struct qt_wakeup {
	struct qt_rec_hdr h;	/* ts, cpu: the waker's side (sched_waking / sched_wakeup_new) */
	__u64 waking_ts;	/* = ts (format 1 kept a separate enqueue time) */
	__u32 waker_tid, waker_tgid;
	__u32 wakee_tid, wakee_tgid;
	__u16 target_cpu;
	__u16 waker_cpu;
	__u16 waker_irq;	/* IRQ number, softirq vector, or a QT_IRQ_* source */
	__u8 wakee_prio;
	__u8 pad;
};

#define QT_SYS_NORETURN 0x01	/* exit()/exit_group(): end_ts is the thread's exit */

struct qt_syscall {
	struct qt_rec_hdr h;	/* ts: entry */
	__u64 end_ts;
	__u64 arg0;
	__s64 ret;
	__u32 tid, tgid;
	__u32 nr;
	__u32 pad;
};

struct qt_irq {
	struct qt_rec_hdr h;	/* ts: entry */
	__u64 end_ts;
	__u32 irq;		/* IRQ number, or softirq vector */
	__s32 ret;		/* irqreturn_t for hard IRQs */
	__u32 tid;		/* the thread it interrupted (0: idle) */
	__u32 pad;
};

/*
 * The vectors whose raises are recorded: those that wake threads on behalf
 * of whoever raised them (HI and TASKLET: tasklets; NET_TX, NET_RX; BLOCK,
 * IRQ_POLL: I/O completions). TIMER, HRTIMER, SCHED and RCU are raised by
 * the tick and timers, whose wakeups are the timer's: recording their
 * raises would cost one record per tick and CPU and tell nothing.
 */
#define QT_RAISE_VECS 0x7d	/* HI, NET_TX, NET_RX, BLOCK, IRQ_POLL, TASKLET */
#define QT_SOFTIRQ_VECS 16	/* vectors beyond these are not recorded */

/*
 * Raise flags (hdr.flags): the context that raised it. QT_WAKE_HARDIRQ or
 * QT_WAKE_SOFTIRQ as for a wakeup (irq: the IRQ number, QT_IRQ_* source or
 * vector); neither: the thread tid itself, and QT_RAISE_SYSCALL when it
 * was inside a system call that is being recorded.
 */
#define QT_RAISE_SYSCALL 0x10

/*
 * Only the first raise of a vector on a CPU since the vector last ran
 * there: the kernel runs a pending vector once for all its raises, and
 * the first is the one that made it run. The vector runs on this CPU
 * (in an interrupt's exit, at the end of a bh-disabled section, or in
 * ksoftirqd).
 */
struct qt_softirq_raise {
	struct qt_rec_hdr h;	/* ts, cpu: where it was raised, and will run */
	__u32 tid, tgid;	/* the thread raising it, or the one the interrupt interrupted */
	__u16 vec;
	__u16 irq;		/* with QT_WAKE_HARDIRQ/SOFTIRQ: the IRQ, QT_IRQ_* source, or vector */
	__u32 pad;
};

/*
 * The object behind a descriptor (docs/ALGORITHMS.md §9.2): the inode's
 * device, number and S_IFMT; for a socket also its type and family, and
 * for a connected AF_UNIX socket the peer's inode, so that the reader
 * can key each direction of a socket pair as one object.
 */
#define QT_DATA_MODE_FMT 0xf000		/* mode: S_IFMT bits of i_mode */
#define QT_DATA_MODE_SOCK_TYPE(m) (((m) >> 16) & 0xff)	/* SOCK_STREAM, SOCK_DGRAM, ... */
#define QT_DATA_MODE_FAMILY(m) ((m) >> 24)		/* AF_UNIX, AF_INET, ... */

struct qt_data_obj {
	__u64 ino;
	__u64 peer;		/* AF_UNIX: the peer socket's inode; 0: none or unknown */
	__u32 dev;		/* the kernel's dev_t (MAJOR << 20 | MINOR) */
	__u32 mode;		/* S_IFMT | sock type << 16 | family << 24 */
};

/*
 * One data system call of a target that moved bytes (return > 0), or
 * that truncated a file (an open with O_TRUNC, ftruncate to 0), or an
 * open of a regular file (for its name): read, write and their vector,
 * positional and socket forms (obj[0]); splice, tee, sendfile,
 * copy_file_range (obj[0] the input, obj[1] the output); open, openat,
 * creat (obj[0]: the new descriptor's). An object whose descriptor could
 * not be resolved has ino 0. Recorded on the paths with BTF only (the
 * classic tracepoints cannot walk the descriptor table).
 */
#define QT_DATA_TRUNC 0x01	/* hdr.flags: an open or ftruncate that truncated obj[0] */
#define QT_DATA_NAMED 0x02	/* hdr.flags: name holds obj[0]'s file name (an open) */
#define QT_DATA_NAME_LEN 32

struct qt_data {
	struct qt_rec_hdr h;	/* ts: the call's entry */
	__u64 end_ts;
	__s64 bytes;		/* the return value: bytes moved (0 for an open or a truncation) */
	__u32 tid, tgid;
	__u32 nr;
	__u32 pad;
	struct qt_data_obj obj[2];
	char name[QT_DATA_NAME_LEN];	/* the last component of its path, with QT_DATA_NAMED */
};

/*
 * What the loader tells the programs of each system call number (a
 * table indexed by nr, from the recording's architecture): which
 * descriptors to resolve at its exit.
 */
enum qt_data_call {
	QT_DC_NONE = 0,
	QT_DC_FD0,		/* read, write, ...: arg0, return > 0 */
	QT_DC_IN0_OUT2,		/* splice, copy_file_range */
	QT_DC_OUT0_IN1,		/* sendfile */
	QT_DC_IN0_OUT1,		/* tee */
	QT_DC_OPEN_FLAGS1,	/* open(path, flags): the returned descriptor, a regular file or O_TRUNC */
	QT_DC_OPEN_FLAGS2,	/* openat(dir, path, flags) */
	QT_DC_CREAT,		/* creat(): O_TRUNC always */
	QT_DC_FTRUNCATE,	/* ftruncate(fd, 0) */
};
#define QT_DATA_NRS 512		/* the table's size: every data call's number is below */

struct qt_task {		/* FORK, EXEC, RENAME, EXIT */
	struct qt_rec_hdr h;
	__u32 tid, tgid;
	__u32 parent_tid, parent_tgid;	/* FORK only */
	char comm[QT_COMM_LEN];
};

struct qt_irq_name {
	struct qt_rec_hdr h;
	__u32 irq;
	__u32 pad;
	char name[QT_IRQ_NAME_LEN];
};

struct qt_lost {
	struct qt_rec_hdr h;	/* ts: when the loss window closed */
	__u64 first_ts, last_ts;
	__u64 count;
};

/* Kernel-side counters, one slot per CPU (BPF_MAP_TYPE_PERCPU_ARRAY, key 0). */
struct qt_cpu_stats {
	__u64 emitted;
	__u64 lost;		/* total failed reservations */
	__u64 lost_by_type[QT_REC_MAX];
	__u64 lost_pending;	/* not yet reported by a QT_REC_LOST record */
	__u64 lost_first_ts, lost_last_ts;
	__u64 hardirq_ts;	/* entry of the hard IRQ running on this CPU */
	__u64 softirq_ts;
	__u32 hardirq_nr, softirq_vec;
	__u64 hard_ts;		/* entry of the innermost timer/IPI/irq_work context */
	__u32 hard_depth;	/* nesting of those contexts */
	__u16 hard_src;		/* QT_IRQ_* of the innermost one */
	__u16 raised;		/* QT_RAISE_VECS raised here since they last ran (one record each) */
	/*
	 * QT_REC_LOST records a full perf buffer refused: it counts them
	 * among its own lost samples, which are compared with `lost`.
	 */
	__u64 lost_records_refused;
};

/*
 * Written by the recorder into the stream from time to time, so that a file
 * cut short still says how much was lost until then.
 */
struct qt_stats {
	struct qt_rec_hdr h;
	__u64 emitted;		/* all CPUs, cumulative */
	__u64 lost;		/* all CPUs, cumulative */
	__u64 consumed;		/* records read from the ring */
	__u64 user_dropped;	/* records the recorder itself failed to store */
};

#endif /* QT_EVENTS_H */
