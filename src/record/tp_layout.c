// SPDX-License-Identifier: MIT
/* The tracefs path's record layouts; see src/record/tp_layout.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tp_layout.h"
#include "tracefs.h"

enum need_kind {
	NEED_INT,	/* an integer the program reads */
	NEED_OPT,	/* the same, where some kernels lack it */
	NEED_FIRST,	/* the first element of an integer array */
	NEED_STR,	/* a string: a char array or a __data_loc */
};

struct need_field {
	const char *name;
	size_t off;		/* of its struct qt_tp_field in struct qt_tp_layout */
	enum need_kind kind;
};

struct need_event {
	const char *event;
	size_t len_off;		/* of its __u16 length in struct qt_tp_layout */
	struct need_field f[5];
};

#define L(m) offsetof(struct qt_tp_layout, m)

static const struct need_event needs[] = {
	{ "sched/sched_switch", L(sw_len), { { "prev_pid", L(sw_prev_pid), NEED_INT },
		{ "prev_prio", L(sw_prev_prio), NEED_INT }, { "prev_state", L(sw_prev_state), NEED_INT },
		{ "next_pid", L(sw_next_pid), NEED_INT }, { "next_prio", L(sw_next_prio), NEED_INT } } },
	{ "sched/sched_waking", L(wk_len), { { "pid", L(wk_pid), NEED_INT },
		{ "prio", L(wk_prio), NEED_INT }, { "target_cpu", L(wk_target_cpu), NEED_INT } } },
	{ "sched/sched_wakeup_new", L(wn_len), { { "pid", L(wn_pid), NEED_INT },
		{ "prio", L(wn_prio), NEED_INT }, { "target_cpu", L(wn_target_cpu), NEED_INT } } },
	{ "raw_syscalls/sys_enter", L(se_len), { { "id", L(se_id), NEED_INT },
		{ "args", L(se_arg0), NEED_FIRST } } },
	{ "raw_syscalls/sys_exit", L(sx_len), { { "ret", L(sx_ret), NEED_INT } } },
	{ "irq/irq_handler_entry", L(ie_len), { { "irq", L(ie_irq), NEED_INT },
		{ "name", L(ie_name), NEED_STR } } },
	{ "irq/irq_handler_exit", L(ix_len), { { "irq", L(ix_irq), NEED_INT },
		{ "ret", L(ix_ret), NEED_INT } } },
	/* one program layout for the three: the kernel defines them with one class */
	{ "irq/softirq_entry", L(si_len), { { "vec", L(si_vec), NEED_INT } } },
	{ "irq/softirq_exit", L(si_len), { { "vec", L(si_vec), NEED_INT } } },
	{ "irq/softirq_raise", L(si_len), { { "vec", L(si_vec), NEED_INT } } },
	{ "sched/sched_process_fork", L(fk_len), { { "child_pid", L(fk_child_pid), NEED_INT },
		{ "child_comm", L(fk_child_comm), NEED_STR } } },
	{ "sched/sched_process_exec", L(ex_len), { { "pid", L(ex_pid), NEED_INT },
		{ "old_pid", L(ex_old_pid), NEED_INT } } },
	/* group_dead: Linux 6.x; without it a dead target stays a target */
	{ "sched/sched_process_exit", L(xt_len), { { "group_dead", L(xt_group_dead), NEED_OPT } } },
	{ "task/task_rename", L(rn_len), { { "pid", L(rn_pid), NEED_INT },
		{ "newcomm", L(rn_newcomm), NEED_STR } } },
	{ "task/task_newtask", L(nt_len), { { "pid", L(nt_pid), NEED_INT },
		{ "clone_flags", L(nt_clone_flags), NEED_INT } } },
	/* the CPU time of each thread (bpf/qostrace_tracefs.bpf.c); vruntime is not read */
	{ "sched/sched_stat_runtime", L(sr_len), { { "pid", L(sr_pid), NEED_INT },
		{ "runtime", L(sr_runtime), NEED_INT } } },
};

/* An event a kernel may lack: it then records less, and says so (length 0). */
static bool optional(const struct need_event *ne)
{
	return ne->len_off == L(sr_len);
}

__u32 tp_layout_task_state(char letter)
{
	switch (letter) {
	case 'S': return 0x0001;	/* TASK_INTERRUPTIBLE */
	case 'D': return 0x0002;	/* TASK_UNINTERRUPTIBLE */
	case 'T': return 0x0004;	/* __TASK_STOPPED */
	case 't': return 0x0008;	/* __TASK_TRACED */
	case 'X': return 0x0010;	/* EXIT_DEAD */
	case 'Z': return 0x0020;	/* EXIT_ZOMBIE */
	case 'P': return 0x0040;	/* TASK_PARKED */
	case 'x': return 0x0080;	/* TASK_DEAD */
	case 'K': return 0x0100;	/* TASK_WAKEKILL */
	case 'W': return 0x0200;	/* TASK_WAKING */
	case 'N': return 0x0400;	/* TASK_NOLOAD */
	case 'n': return 0x0800;	/* TASK_NEW */
	case 'I': return 0x0402;	/* TASK_IDLE: uninterruptible, not counted as load */
	}
	/* A letter this table does not know: not asleep, not runnable ("other"). */
	return 0x8000;
}

/* The qt_tp_field for field fd as need nf reads it; msg says why not. */
static int field_knob(const struct tracefs_field *fd, const struct need_field *nf,
		      struct qt_tp_field *k, char *msg, size_t len)
{
	unsigned int size = fd->size;

	memset(k, 0, sizeof(*k));
	k->off = fd->offset;
	if (nf->kind == NEED_STR) {
		if (fd->kind == TRACEFS_SCALAR && fd->count > 1 && fd->size == fd->count) {
			k->size = 1;	/* read from the record itself, where it is */
			return 0;
		}
		if (fd->kind == TRACEFS_SCALAR || fd->size != 4) {
			snprintf(msg, len, "is neither a char array nor a __data_loc string");
			return -EPROTO;
		}
		size = 4;
		k->flags = fd->kind == TRACEFS_DATA_LOC ? QT_TPF_DATA_LOC : QT_TPF_REL_LOC;
	} else if (fd->kind != TRACEFS_SCALAR || (nf->kind != NEED_FIRST && fd->count != 1)) {
		snprintf(msg, len, "is not an integer");
		return -EPROTO;
	} else if (nf->kind == NEED_FIRST) {
		size = fd->size / fd->count;
	}
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		snprintf(msg, len, "has %u bytes", size);
		return -EPROTO;
	}
	/* The programs copy the record's head to their stack, where loads must be aligned. */
	if (fd->offset % size) {
		snprintf(msg, len, "is not aligned (offset %u, %u bytes)", fd->offset, size);
		return -EPROTO;
	}
	if (fd->offset + size > QT_TP_MAX_LEN) {
		snprintf(msg, len, "ends beyond the first %d bytes of the record", QT_TP_MAX_LEN);
		return -EPROTO;
	}
	k->size = size;
	if (fd->is_signed && nf->kind != NEED_STR)
		k->flags |= QT_TPF_SIGNED;
	return 0;
}

static int read_event(const char *root, const struct need_event *ne, struct qt_tp_layout *l,
		      struct tracefs_format *fmt, char *msg, size_t len)
{
	__u16 *evlen = (__u16 *)((char *)l + ne->len_off);
	char why[128];
	int err;

	err = tracefs_format_read(root, ne->event, fmt);
	if (err == -ENOENT && optional(ne))
		return 0;
	if (err) {
		snprintf(msg, len, "cannot read %s/events/%s/format: %s", root, ne->event,
			 err == -EBADMSG ? "not a format file this qostrace can read" : strerror(-err));
		return err;
	}
	for (size_t i = 0; i < sizeof(ne->f) / sizeof(ne->f[0]) && ne->f[i].name; i++) {
		const struct need_field *nf = &ne->f[i];
		const struct tracefs_field *fd = tracefs_field(fmt, nf->name);
		struct qt_tp_field *k = (struct qt_tp_field *)((char *)l + nf->off), v;

		if (!fd && nf->kind == NEED_OPT)
			continue;
		if (!fd) {
			snprintf(msg, len, "tracepoint %s has no field %s (%s/events/%s/format)", ne->event,
				 nf->name, root, ne->event);
			return -EPROTO;
		}
		err = field_knob(fd, nf, &v, why, sizeof(why));
		if (!err && k->size && memcmp(k, &v, sizeof(v))) {
			snprintf(why, sizeof(why), "is not where the other events of its class have it");
			err = -EPROTO;
		}
		if (err) {
			snprintf(msg, len, "tracepoint %s: field %s %s", ne->event, nf->name, why);
			return err;
		}
		*k = v;
		if (!(nf->kind == NEED_STR && !(v.flags & (QT_TPF_DATA_LOC | QT_TPF_REL_LOC))) &&
		    v.off + v.size > *evlen)
			*evlen = v.off + v.size;
	}
	return 0;
}

static int read_states(const struct tracefs_format *sw, struct qt_tp_layout *l, char *msg, size_t len)
{
	struct tracefs_states s;

	if (tracefs_switch_states(sw->print_fmt, &s)) {
		snprintf(msg, len, "cannot tell how sched_switch's prev_state says preempted or asleep: "
			 "its print fmt is not the way kernels 4.x-6.x write it");
		return -EPROTO;
	}
	if (s.n > QT_STATE_BITS) {
		snprintf(msg, len, "sched_switch's prev_state has %zu letters, more than %d", s.n,
			 QT_STATE_BITS);
		return -EPROTO;
	}
	l->state_preempt = s.preempt;
	for (size_t i = 0; i < s.n; i++) {
		l->state_in[i] = s.letter[i].bit;
		l->state_out[i] = tp_layout_task_state(s.letter[i].letter);
	}
	return 0;
}

int tp_layout_read(const char *root, struct qt_tp_layout *l, char *msg, size_t len)
{
	int err = 0;

	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]) && !err; i++) {
		struct tracefs_format fmt = { 0 };

		err = read_event(root, &needs[i], l, &fmt, msg, len);
		if (!err && !strcmp(needs[i].event, "sched/sched_switch"))
			err = read_states(&fmt, l, msg, len);
		tracefs_format_free(&fmt);
	}
	return err;
}
