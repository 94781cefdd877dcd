// SPDX-License-Identifier: MIT
/*
 * The tracefs path's knowledge of the kernel's records: format files
 * parsed (scalars, arrays, __data_loc, signedness), sched_switch's
 * prev_state encodings (the report letters of 4.14+ and the raw state of
 * 4.9), and the layouts qostrace's programs get, on a 6.x x86_64 kernel
 * (as this machine's tracefs prints them) and on a 4.9 armhf one (4-byte
 * longs, char arrays where 6.x has __data_loc, no group_dead, an extra
 * field in sched_waking). Errors name the event and field.
 */
#include <errno.h>
#include <sys/stat.h>

#include "testutil.h"
#include "record/tp_layout.h"
#include "record/tracefs.h"

static const char common[] =
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";

/* 6.18, as /sys/kernel/tracing/events/sched/sched_switch/format prints it. */
static const char switch_fmt_6[] =
	"\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d "
	"next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & "
	"((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 "
	"| 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 "
	"| 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - "
	"1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, "
	"\"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, "
	"\"I\" }) : \"R\", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | "
	"0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, "
	"REC->next_pid, REC->next_prio";

/* 4.9: the task's raw state, TASK_STATE_MAX for a preemption. */
static const char switch_fmt_49[] =
	"\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d "
	"next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, REC->prev_state & (4096-1) ? "
	"__print_flags(REC->prev_state & (4096-1), \"|\", { 1, \"S\"} , { 2, \"D\" }, { 4, \"T\" }, "
	"{ 8, \"t\" }, { 16, \"Z\" }, { 32, \"X\" }, { 64, \"x\" }, { 128, \"K\" }, { 256, \"W\" }, "
	"{ 512, \"P\" }, { 1024, \"N\" }) : \"R\", REC->prev_state & 4096 ? \"+\" : \"\", "
	"REC->next_comm, REC->next_pid, REC->next_prio";

struct event {
	const char *name;	/* sys/name */
	const char *fields;	/* "type name;off;size;signed\n" per field */
	const char *print_fmt;
};

static const struct event kernel_6_x86[] = {
	{ "sched/sched_switch", "char prev_comm[16];8;16;0\npid_t prev_pid;24;4;1\nint prev_prio;28;4;1\n"
	  "long prev_state;32;8;1\nchar next_comm[16];40;16;0\npid_t next_pid;56;4;1\n"
	  "int next_prio;60;4;1\n", switch_fmt_6 },
	{ "sched/sched_waking", "char comm[16];8;16;0\npid_t pid;24;4;1\nint prio;28;4;1\n"
	  "int target_cpu;32;4;1\n", "\"\"" },
	{ "sched/sched_wakeup_new", "char comm[16];8;16;0\npid_t pid;24;4;1\nint prio;28;4;1\n"
	  "int target_cpu;32;4;1\n", "\"\"" },
	{ "raw_syscalls/sys_enter", "long id;8;8;1\nunsigned long args[6];16;48;0\n", "\"\"" },
	{ "raw_syscalls/sys_exit", "long id;8;8;1\nlong ret;16;8;1\n", "\"\"" },
	{ "irq/irq_handler_entry", "int irq;8;4;1\n__data_loc char[] name;12;4;0\n", "\"\"" },
	{ "irq/irq_handler_exit", "int irq;8;4;1\nint ret;12;4;1\n", "\"\"" },
	{ "irq/softirq_entry", "unsigned int vec;8;4;0\n", "\"\"" },
	{ "irq/softirq_exit", "unsigned int vec;8;4;0\n", "\"\"" },
	{ "irq/softirq_raise", "unsigned int vec;8;4;0\n", "\"\"" },
	{ "sched/sched_process_fork", "__data_loc char[] parent_comm;8;4;0\npid_t parent_pid;12;4;1\n"
	  "__data_loc char[] child_comm;16;4;0\npid_t child_pid;20;4;1\n", "\"\"" },
	{ "sched/sched_process_exec", "__data_loc char[] filename;8;4;0\npid_t pid;12;4;1\n"
	  "pid_t old_pid;16;4;1\n", "\"\"" },
	{ "sched/sched_process_exit", "char comm[16];8;16;0\npid_t pid;24;4;1\nint prio;28;4;1\n"
	  "bool group_dead;32;1;0\n", "\"\"" },
	{ "task/task_rename", "pid_t pid;8;4;1\nchar oldcomm[16];12;16;0\nchar newcomm[16];28;16;0\n"
	  "short oom_score_adj;44;2;1\n", "\"\"" },
	{ "task/task_newtask", "pid_t pid;8;4;1\nchar comm[16];12;16;0\nu64 clone_flags;32;8;0\n"
	  "short oom_score_adj;40;2;1\n", "\"\"" },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define NEVENTS N(kernel_6_x86)

/* What differs on 4.9 armhf: 4-byte longs, char arrays, sched_waking's success, no group_dead. */
static const struct event changes_49_arm[] = {
	{ "sched/sched_switch", "char prev_comm[16];8;16;0\npid_t prev_pid;24;4;1\nint prev_prio;28;4;1\n"
	  "long prev_state;32;4;1\nchar next_comm[16];36;16;0\npid_t next_pid;52;4;1\n"
	  "int next_prio;56;4;1\n", switch_fmt_49 },
	{ "sched/sched_waking", "pid_t pid;24;4;1\nint prio;28;4;1\nint success;32;4;1\n"
	  "int target_cpu;36;4;1\n", "\"\"" },
	{ "sched/sched_wakeup_new", "pid_t pid;24;4;1\nint prio;28;4;1\nint success;32;4;1\n"
	  "int target_cpu;36;4;1\n", "\"\"" },
	{ "raw_syscalls/sys_enter", "long id;8;4;1\nunsigned long args[6];12;24;0\n", "\"\"" },
	{ "raw_syscalls/sys_exit", "long id;8;4;1\nlong ret;12;4;1\n", "\"\"" },
	{ "sched/sched_process_fork", "char parent_comm[16];8;16;0\npid_t parent_pid;24;4;1\n"
	  "char child_comm[16];28;16;0\npid_t child_pid;44;4;1\n", "\"\"" },
	{ "sched/sched_process_exit", "pid_t pid;24;4;1\nint prio;28;4;1\n", "\"\"" },
	{ "task/task_newtask", "pid_t pid;8;4;1\nunsigned long clone_flags;28;4;0\n", "\"\"" },
};

/* The 4.9 armhf kernel's events: 6.x's with those changes. */
static void kernel_49_arm(struct event *ev)
{
	memcpy(ev, kernel_6_x86, sizeof(kernel_6_x86));
	for (size_t i = 0; i < NEVENTS; i++)
		for (size_t k = 0; k < N(changes_49_arm); k++)
			if (!strcmp(ev[i].name, changes_49_arm[k].name))
				ev[i] = changes_49_arm[k];
}

/* The text of a format file, as the kernel writes it. */
static char *format_text(const struct event *e)
{
	size_t cap = 8192, len;
	char *t = malloc(cap);
	const char *p = e->fields;

	cr_assert(t);
	len = snprintf(t, cap, "name: %s\nID: 42\nformat:\n%s", strchr(e->name, '/') + 1, common);
	while (*p) {
		char decl[64];
		unsigned int off, size, sign;

		cr_assert_eq(sscanf(p, "%63[^;];%u;%u;%u", decl, &off, &size, &sign), 4, "fixture %s", p);
		len += snprintf(t + len, cap - len, "\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%u;\n", decl,
				off, size, sign);
		p = strchr(p, '\n') + 1;
	}
	snprintf(t + len, cap - len, "\nprint fmt: %s\n", e->print_fmt);
	return t;
}

/* A tracefs tree with these events' format files. */
static char *fake_tracefs(const struct event *ev, size_t n)
{
	char *root = tu_tmpdir();

	for (size_t i = 0; i < n; i++) {
		char path[512], *text = format_text(&ev[i]);
		FILE *f;

		snprintf(path, sizeof(path), "mkdir -p '%s/events/%s'", root, ev[i].name);
		cr_assert_eq(system(path), 0);
		snprintf(path, sizeof(path), "%s/events/%s/format", root, ev[i].name);
		f = fopen(path, "w");
		cr_assert(f);
		fputs(text, f);
		fclose(f);
		free(text);
	}
	return root;
}

Test(tracefs, parses_scalars_arrays_and_data_loc)
{
	char *text = format_text(&kernel_6_x86[3]);	/* sys_enter */
	struct tracefs_format f;
	const struct tracefs_field *args, *id;

	cr_assert_eq(tracefs_format_parse(text, &f), 0);
	cr_assert_eq(f.nfields, 2, "common_* fields are left out");
	id = tracefs_field(&f, "id");
	args = tracefs_field(&f, "args");
	cr_assert(id && args);
	cr_expect_eq(id->offset, 8);
	cr_expect_eq(id->size, 8);
	cr_expect(id->is_signed);
	cr_expect_eq(id->count, 1);
	cr_expect_eq(args->offset, 16);
	cr_expect_eq(args->size, 48);
	cr_expect_eq(args->count, 6);
	cr_expect(!args->is_signed);
	cr_expect_eq(args->kind, TRACEFS_SCALAR);
	cr_expect_str_eq(f.print_fmt, "\"\"");
	cr_expect_null(tracefs_field(&f, "common_pid"));
	tracefs_format_free(&f);
	free(text);

	text = format_text(&kernel_6_x86[10]);	/* fork */
	cr_assert_eq(tracefs_format_parse(text, &f), 0);
	cr_assert_eq(f.nfields, 4);
	cr_expect_str_eq(f.fields[2].name, "child_comm");
	cr_expect_eq(f.fields[2].kind, TRACEFS_DATA_LOC);
	cr_expect_eq(f.fields[2].offset, 16);
	cr_expect_eq(f.fields[2].count, 1);
	tracefs_format_free(&f);
	free(text);
}

Test(tracefs, rejects_a_damaged_field_line)
{
	struct tracefs_format f;

	cr_expect_eq(tracefs_format_parse("format:\n\tfield:int x;\toffset:abc;\tsize:4;\tsigned:1;\n", &f),
		     -EBADMSG);
	cr_expect_eq(tracefs_format_parse("format:\n\tfield:int x\toffset:8;\tsize:4;\n", &f), -EBADMSG);
	cr_expect_eq(tracefs_format_parse("format:\n\tfield:int ;\toffset:8;\tsize:4;\n", &f), -EBADMSG);
	cr_expect_eq(tracefs_format_parse("format:\n\tfield:char c[0];\toffset:8;\tsize:0;\n", &f), -EBADMSG);
}

/* The states fmt gives: the preemption bit, then one letter per bit from 1 up. */
static void expect_states(const char *fmt, uint64_t preempt, const char *letters)
{
	struct tracefs_states s;

	cr_assert_eq(tracefs_switch_states(fmt, &s), 0);
	cr_expect_eq(s.preempt, preempt);
	cr_assert_eq(s.n, strlen(letters));
	for (size_t i = 0; i < s.n; i++) {
		cr_expect_eq(s.letter[i].bit, 1u << i);
		cr_expect_eq(s.letter[i].letter, letters[i]);
	}
}

Test(tracefs, switch_states_of_the_report_encoding)
{
	expect_states(switch_fmt_6, 0x100, "SDTtXZPI");
}

Test(tracefs, switch_states_of_the_raw_encoding)
{
	expect_states(switch_fmt_49, 4096, "SDTtZXxKWPN");
}

Test(tracefs, switch_states_refused_when_unreadable)
{
	struct tracefs_states s;

	cr_expect_eq(tracefs_switch_states(NULL, &s), -EBADMSG);
	cr_expect_eq(tracefs_switch_states("\"%s\", REC->prev_state", &s), -EBADMSG);
	/* no preemption mark */
	cr_expect_eq(tracefs_switch_states("__print_flags(REC->prev_state, \"|\", { 1, \"S\" }) : \"R\"",
					   &s), -EBADMSG);
	/* an expression it cannot evaluate */
	cr_expect_eq(tracefs_switch_states("__print_flags(x, \"|\", { 1, \"S\" }) : \"R\", "
					   "REC->prev_state & TASK_REPORT_MAX ? \"+\" : \"\"", &s), -EBADMSG);
}

Test(tracefs, task_state_letters)
{
	cr_expect_eq(tp_layout_task_state('S'), 0x1);
	cr_expect_eq(tp_layout_task_state('D'), 0x2);
	cr_expect_eq(tp_layout_task_state('Z'), 0x20);
	cr_expect_eq(tp_layout_task_state('x'), 0x80);
	cr_expect_eq(tp_layout_task_state('I'), 0x402, "idle: uninterruptible and no load");
	cr_expect_eq(tp_layout_task_state('?'), 0x8000, "unknown: neither asleep nor runnable");
}

static void expect_field(const struct qt_tp_field *f, unsigned off, unsigned size, unsigned flags,
			 const char *what)
{
	cr_expect_eq(f->off, off, "%s: offset %u", what, f->off);
	cr_expect_eq(f->size, size, "%s: size %u", what, f->size);
	cr_expect_eq(f->flags, flags, "%s: flags %#x", what, f->flags);
}

Test(tp_layout, kernel_6_x86_64)
{
	char *root = fake_tracefs(kernel_6_x86, NEVENTS), msg[512] = "";
	struct qt_tp_layout l;

	cr_assert_eq(tp_layout_read(root, &l, msg, sizeof(msg)), 0, "%s", msg);
	expect_field(&l.sw_prev_pid, 24, 4, QT_TPF_SIGNED, "prev_pid");
	expect_field(&l.sw_prev_state, 32, 8, QT_TPF_SIGNED, "prev_state");
	expect_field(&l.sw_next_pid, 56, 4, QT_TPF_SIGNED, "next_pid");
	cr_expect_eq(l.sw_len, 64);
	expect_field(&l.wk_target_cpu, 32, 4, QT_TPF_SIGNED, "waking target_cpu");
	cr_expect_eq(l.wk_len, 36);
	expect_field(&l.se_id, 8, 8, QT_TPF_SIGNED, "id");
	expect_field(&l.se_arg0, 16, 8, 0, "args[0]");
	cr_expect_eq(l.se_len, 24);
	expect_field(&l.sx_ret, 16, 8, QT_TPF_SIGNED, "ret");
	expect_field(&l.ie_name, 12, 4, QT_TPF_DATA_LOC, "irq name");
	cr_expect_eq(l.ie_len, 16);
	expect_field(&l.si_vec, 8, 4, 0, "vec");
	expect_field(&l.fk_child_comm, 16, 4, QT_TPF_DATA_LOC, "child_comm");
	cr_expect_eq(l.fk_len, 24);
	expect_field(&l.xt_group_dead, 32, 1, 0, "group_dead");
	cr_expect_eq(l.xt_len, 33);
	expect_field(&l.rn_newcomm, 28, 1, 0, "newcomm: read where it is");
	cr_expect_eq(l.rn_len, 12, "the copied head stops before the name arrays");
	expect_field(&l.nt_clone_flags, 32, 8, 0, "clone_flags");
	cr_expect_eq(l.state_preempt, 0x100);
	cr_expect_eq(l.state_in[7], 0x80);
	cr_expect_eq(l.state_out[7], 0x402, "I: idle");
	cr_expect_eq(l.state_in[8], 0);
	tu_rmdir(root);
	free(root);
}

Test(tp_layout, kernel_4_9_armhf)
{
	struct event ev[NEVENTS];
	char *root, msg[512] = "";
	struct qt_tp_layout l;

	kernel_49_arm(ev);
	root = fake_tracefs(ev, NEVENTS);

	cr_assert_eq(tp_layout_read(root, &l, msg, sizeof(msg)), 0, "%s", msg);
	expect_field(&l.sw_prev_state, 32, 4, QT_TPF_SIGNED, "prev_state: a 4-byte long");
	expect_field(&l.sw_next_pid, 52, 4, QT_TPF_SIGNED, "next_pid");
	expect_field(&l.sw_next_prio, 56, 4, QT_TPF_SIGNED, "next_prio");
	cr_expect_eq(l.sw_len, 60);
	expect_field(&l.wk_target_cpu, 36, 4, QT_TPF_SIGNED, "target_cpu after success");
	expect_field(&l.se_id, 8, 4, QT_TPF_SIGNED, "id");
	expect_field(&l.se_arg0, 12, 4, 0, "args[0]: 4 bytes");
	expect_field(&l.sx_ret, 12, 4, QT_TPF_SIGNED, "ret: sign-extended");
	expect_field(&l.fk_child_comm, 28, 1, 0, "child_comm: a char array");
	expect_field(&l.fk_child_pid, 44, 4, QT_TPF_SIGNED, "child_pid");
	cr_expect_eq(l.fk_len, 48);
	cr_expect_eq(l.xt_group_dead.size, 0, "no group_dead before 6.x");
	cr_expect_eq(l.xt_len, 0);
	expect_field(&l.nt_clone_flags, 28, 4, 0, "clone_flags: an unsigned long");
	cr_expect_eq(l.state_preempt, 4096);
	cr_expect_eq(l.state_in[4], 16);
	cr_expect_eq(l.state_out[4], 0x20, "Z is 16 in 4.9's raw state, EXIT_ZOMBIE 0x20 in ours");
	cr_expect_eq(l.state_in[6], 64);
	cr_expect_eq(l.state_out[6], 0x80, "x: TASK_DEAD");
	tu_rmdir(root);
	free(root);
}

/* tp_layout_read() on these events fails with err, and its message holds want. */
static void layout_refused(const struct event *ev, size_t n, int err, const char *want)
{
	char *root = fake_tracefs(ev, n), msg[512] = "";
	struct qt_tp_layout l;

	cr_expect_eq(tp_layout_read(root, &l, msg, sizeof(msg)), err, "%s", msg);
	cr_expect(strstr(msg, want), "'%s' not in: %s", want, msg);
	tu_rmdir(root);
	free(root);
}

/*
 * sched_stat_runtime, from which the tracefs path sums each thread's CPU
 * time: read where the kernel has it (6.1's layout), left at length 0
 * where it has not (every layout above lacks it), which the recording
 * then names as missing.
 */
Test(tp_layout, stat_runtime_optional)
{
	struct event ev[NEVENTS + 1];
	char *root, msg[512] = "";
	struct qt_tp_layout l;

	memcpy(ev, kernel_6_x86, sizeof(kernel_6_x86));
	ev[NEVENTS] = (struct event){ "sched/sched_stat_runtime", "char comm[16];8;16;0\npid_t pid;24;4;1\n"
				      "u64 runtime;32;8;0\nu64 vruntime;40;8;0\n", "\"\"" };
	root = fake_tracefs(ev, NEVENTS + 1);
	cr_assert_eq(tp_layout_read(root, &l, msg, sizeof(msg)), 0, "%s", msg);
	expect_field(&l.sr_pid, 24, 4, QT_TPF_SIGNED, "pid");
	expect_field(&l.sr_runtime, 32, 8, 0, "runtime");
	cr_expect_eq(l.sr_len, 40, "the copied head stops before vruntime, which is not read");
	tu_rmdir(root);
	free(root);

	root = fake_tracefs(ev, NEVENTS);
	memset(&l, 0xff, sizeof(l));
	cr_assert_eq(tp_layout_read(root, &l, msg, sizeof(msg)), 0, "a kernel without it records: %s", msg);
	cr_expect_eq(l.sr_len, 0);
	tu_rmdir(root);
	free(root);

	/* present but unreadable is an error, not an absence */
	ev[NEVENTS].fields = "char comm[16];8;16;0\npid_t pid;24;4;1\n";
	layout_refused(ev, NEVENTS + 1, -EPROTO, "sched/sched_stat_runtime has no field runtime");
}

Test(tp_layout, names_what_is_missing)
{
	/* one event of 6.x's changed: its new fields or print fmt, and what the message says */
	static const struct {
		size_t event;
		const char *fields, *print_fmt, *want;
	} cases[] = {
		{ 4, "long id;8;8;1\nlong retval;16;8;1\n", NULL, "raw_syscalls/sys_exit has no field ret" },
		/* a field the programs could not load from their stack */
		{ 1, "char comm[16];8;16;0\npid_t pid;26;4;1\nint prio;28;4;1\nint target_cpu;32;4;1\n",
		  NULL, "sched/sched_waking: field pid is not aligned" },
		/* softirq_exit's vec elsewhere than softirq_entry's: one layout cannot serve both */
		{ 8, "int pad;8;4;0\nunsigned int vec;12;4;0\n", NULL, "irq/softirq_exit: field vec" },
		/* prev_state's encoding unreadable */
		{ 0, NULL, "\"prev_state=%ld\", REC->prev_state", "prev_state" },
	};
	struct event ev[NEVENTS];

	layout_refused(kernel_6_x86, NEVENTS - 1, -ENOENT, "events/task/task_newtask/format");
	for (size_t i = 0; i < N(cases); i++) {
		memcpy(ev, kernel_6_x86, sizeof(ev));
		if (cases[i].fields)
			ev[cases[i].event].fields = cases[i].fields;
		if (cases[i].print_fmt)
			ev[cases[i].event].print_fmt = cases[i].print_fmt;
		layout_refused(ev, NEVENTS, -EPROTO, cases[i].want);
	}
}

Test(tracefs, finds_the_mount_or_says_how)
{
	char root[128];
	int err = tracefs_find(root, sizeof(root));

	if (err) {
		cr_expect_eq(err, -ENOENT);
		cr_expect(strstr(TRACEFS_MOUNT_HINT, "mount -t tracefs"));
	} else {
		struct stat st;
		char path[256];

		snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format", root);
		cr_expect_eq(stat(path, &st), 0, "%s", path);
	}
}
