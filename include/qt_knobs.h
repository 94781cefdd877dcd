/* SPDX-License-Identifier: MIT */
/*
 * What the loader hands to the BPF programs before load, as read-only
 * globals (`const volatile`, Linux 5.2+): the verifier sees them as
 * constants and prunes the branches they disable, so a knob costs nothing
 * at run time. Shared by bpf/ and src/record/, fixed-width types only.
 */
#ifndef QT_KNOBS_H
#define QT_KNOBS_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* Every path. */
struct qt_knobs {
	__u32 self_tgid;	/* the recorder: never a target */
	__u8 all_targets;	/* -a: system calls of every thread */
	__u8 want_syscalls;
	__u8 want_irqs;
	__u8 perfbuf;		/* output through the perf buffer (no ring buffer before 5.8) */
	__u8 switch_state_arg;	/* raw_tp: sched_switch passes prev_state (5.18+) */
	__u8 want_data;		/* paths with BTF: QT_REC_DATA at the targets' data calls */
	__u8 pad[2];
};

/*
 * One field of a classic tracepoint's record, as its tracefs format file
 * gives it (src/record/tracefs.h). size 0: the kernel's record lacks it.
 */
#define QT_TPF_SIGNED 0x1	/* sign-extend */
#define QT_TPF_DATA_LOC 0x2	/* __data_loc: u32 (length << 16 | offset) of a string */
#define QT_TPF_REL_LOC 0x4	/* __rel_loc: the same, offset from the end of the field */

struct qt_tp_field {
	__u16 off;
	__u8 size;		/* bytes; of one element for arrays (args[6]) */
	__u8 flags;
};

/* The programs copy at most this many bytes from the head of a record. */
#define QT_TP_MAX_LEN 128

/* prev_state as sched_switch's format prints it: at most this many letters. */
#define QT_STATE_BITS 16

/*
 * The tracefs path: where the fields it reads are in each tracepoint's
 * record, and how many bytes from the start of the record cover them
 * (the programs copy that much at once). Filled from
 * /sys/kernel/tracing/events/<sys>/<name>/format by the loader.
 */
struct qt_tp_layout {
	__u16 sw_len, wk_len, wn_len, se_len, sx_len, ie_len, ix_len, si_len;
	__u16 fk_len, ex_len, xt_len, rn_len, nt_len, sr_len, pad16[2];
	/* sched/sched_switch */
	struct qt_tp_field sw_prev_pid, sw_prev_prio, sw_prev_state, sw_next_pid, sw_next_prio;
	/* sched/sched_waking and sched/sched_wakeup_new */
	struct qt_tp_field wk_pid, wk_prio, wk_target_cpu;
	struct qt_tp_field wn_pid, wn_prio, wn_target_cpu;
	/* raw_syscalls/sys_enter, sys_exit */
	struct qt_tp_field se_id, se_arg0, sx_ret;
	/* irq/irq_handler_entry, irq_handler_exit, softirq_entry (and _exit, _raise: the same class) */
	struct qt_tp_field ie_irq, ie_name, ix_irq, ix_ret, si_vec;
	/* sched/sched_process_fork, _exec, _exit; task/task_rename, task_newtask */
	struct qt_tp_field fk_child_pid, fk_child_comm;
	struct qt_tp_field ex_pid, ex_old_pid;
	struct qt_tp_field xt_group_dead;
	struct qt_tp_field rn_pid, rn_newcomm;
	struct qt_tp_field nt_pid, nt_clone_flags;
	/*
	 * sched/sched_stat_runtime: the CPU time update_curr() charges a
	 * thread, summed per thread into qt_switch.prev_runtime. sr_len 0:
	 * this kernel has no such event, and the file says runtime is missing.
	 */
	struct qt_tp_field sr_pid, sr_runtime;
	/*
	 * prev_state: the bit that says "preempted" and, per letter of the
	 * format's table, its bit there and the TASK_* bits of include/
	 * qt_events.h's qt_switch.prev_state (the report encoding of 4.14+
	 * differs from the task's raw state).
	 */
	__u64 state_preempt;
	__u32 state_in[QT_STATE_BITS];
	__u32 state_out[QT_STATE_BITS];
};

#endif /* QT_KNOBS_H */
