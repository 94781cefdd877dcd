// SPDX-License-Identifier: MIT
/* qostrace record: options, then the recorder. */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "file/codec.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "record/recorder.h"
#include "record_args.h"

enum {
	OPT_FORCE = RECORD_ARGS_KEY_END,
	OPT_POLL,
	OPT_COMPRESS,
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "What to record:", 1 },
	{ "pid", 'p', "PID[,PID...]", 0, "Attach to running processes (their system calls; scheduling is always system-wide)", 1 },
	{ "all", 'a', NULL, 0, "Every thread is a target (system calls of all threads)", 1 },
	{ "duration", 'd', "SECONDS", 0, "Stop after this long (a number of seconds, or with a unit: 500ms, 2m)", 1 },
	{ "no-syscalls", RECORD_ARGS_NO_SYSCALLS, NULL, 0, "Do not record system calls", 1 },
	{ "no-irqs", RECORD_ARGS_NO_IRQS, NULL, 0, "Do not record hard and soft IRQs", 1 },
	{ "data", RECORD_ARGS_DATA, NULL, 0, "Record the objects (file, pipe, socket) of the targets' reads and writes, for report --data-path (the default, except with -a)", 1 },
	{ "no-data", RECORD_ARGS_NO_DATA, NULL, 0, "Do not record the objects of reads and writes", 1 },
	{ NULL, 0, NULL, 0, "Output:", 2 },
	{ "output", 'o', "FILE", 0, "Trace file to write (default qostrace.qtrace)", 2 },
	{ "force", OPT_FORCE, NULL, 0, "Replace FILE if it exists", 2 },
	{ "compress", OPT_COMPRESS, "LEVEL", 0, "zlib level 0-9 (default 1: fast; 0 stores)", 2 },
	{ NULL, 0, NULL, 0, "Tuning:", 3 },
	{ "buffer-size", RECORD_ARGS_BUFFER, "SIZE", 0, "Kernel buffer, a power of two (default 32M; a perf buffer gets its share per CPU)", 3 },
	{ "poll", OPT_POLL, "MS", 0, "Drain the buffer every MS milliseconds (default 100)", 3 },
	{ "backend", RECORD_ARGS_BACKEND, "PATH[,BUFFER]", 0, "How to attach: btf, core or tracefs; and/or where the records go: ringbuf or perfbuf (default: the best this kernel allows; see below)", 3 },
	{ "btf", RECORD_ARGS_BTF, "FILE", 0, "This kernel's BTF from a file, for a kernel without /sys/kernel/btf/vmlinux (attach path core)", 3 },
	{ NULL, 0, NULL, 0, "Messages:", 4 },
	{ "verbose", 'v', NULL, 0, "More messages (-vv debug, -vvv libbpf and verifier log)", 4 },
	{ "quiet", 'q', NULL, 0, "Only errors: no status line, no summary", 4 },
	{ 0 },
};

static const char doc[] =
	"Record scheduling, wakeups, IRQs (system-wide) and the system calls of the targets.\n"
	"\n"
	"USAGE: qostrace record [OPTIONS] -- COMMAND [ARG...]\n"
	"       qostrace record [OPTIONS] -p PID[,PID...] [-d SECONDS]\n"
	"       qostrace record [OPTIONS] -a [-d SECONDS] [-- COMMAND [ARG...]]\n"
	"\v"
	"EXAMPLES:\n"
	"  qostrace record -o run.qtrace -- ./my-pipeline --args\n"
	"      trace a command and its children until it exits\n"
	"  qostrace record -o stb.qtrace -d 30 -p 1234\n"
	"      attach to a running process for 30 s\n"
	"  qostrace record -o all.qtrace -d 10 -a\n"
	"      every thread for 10 s\n"
	"  qostrace record -o flow.qtrace -d 10 -a --data\n"
	"      and the files, pipes and sockets of every read and write (report --data-path)\n"
	"  qostrace record -o load.qtrace -a -- stress-ng --switch 2 -t 5\n"
	"      every thread, for as long as the command runs\n"
	"  qostrace record -o old.qtrace -a -d 10 --backend tracefs,perfbuf\n"
	"      as on a kernel without BTF and ring buffer\n"
	"\n"
	"ATTACH PATHS (--backend; -v says which one was chosen, and why):\n"
	"  btf      tp_btf on the kernel's own BTF (/sys/kernel/btf/vmlinux),\n"
	"           task storage, sched_switch's prev_state: Linux 5.18+;\n"
	"           the ring buffer only\n"
	"  core     raw tracepoints, reads relocated against the kernel's BTF\n"
	"           or a BTF file (--btf FILE; distributions and BTFHub ship\n"
	"           them): Linux 4.17+\n"
	"  tracefs  classic tracepoints, layouts from the tracefs format files\n"
	"           (mount -t tracefs nodev /sys/kernel/tracing), no BTF at\n"
	"           all; without the kernel's per-switch CPU accounting (the\n"
	"           file says so, and the report)\n"
	"  ringbuf  one ring buffer for all CPUs: Linux 5.8+\n"
	"  perfbuf  a perf buffer per CPU: any kernel\n"
	"Every path needs Linux 5.2+ (read-only values for the programs).\n"
	"\n"
	"Ctrl-C or SIGTERM ends a recording cleanly. Needs root, or CAP_BPF and\n"
	"CAP_PERFMON. Then: qostrace info FILE, qostrace report FILE.";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct record_args *a = state->input;
	uint64_t v;
	int err;

	if (record_args_parse(a, key, arg, state))
		return 0;
	switch (key) {
	case 'o':
		a->o.path = arg;
		break;
	case 'd':
		err = parse_duration(arg, 1000000000ull, &v);
		if (err || !v)
			argp_error(state, "-d '%s': expected a positive duration such as 30, 1.5s or 500ms", arg);
		a->o.duration_ns = v;
		break;
	case 'q':
		log_level = LOG_QUIET;
		a->o.quiet = true;
		break;
	case 'v':
		if (log_level < LOG_LIBBPF)
			log_level++;
		break;
	case OPT_FORCE:
		a->o.force = true;
		break;
	case OPT_COMPRESS:
		if (parse_u64(arg, 0, 9, &v))
			argp_error(state, "--compress '%s': expected a zlib level from 0 to 9", arg);
		a->o.zlevel = v;
		break;
	case OPT_POLL:
		if (parse_u64(arg, 1, 10000, &v))
			argp_error(state, "--poll '%s': expected milliseconds from 1 to 10000", arg);
		a->o.poll_ms = v;
		break;
	case ARGP_KEY_END:
		record_args_check(a, state, "record");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void print_summary(const struct recorder_opts *o, const struct recorder_summary *s)
{
	double secs = (s->stop_ns - s->start_ns) / 1e9;
	char b1[32], b2[32], b3[32];

	fprintf(stderr, "qostrace: recorded %s events in %.2f s (%s/s) to %s: %s, %.1f bytes/event\n",
		fmt_count(b1, sizeof(b1), s->events), secs,
		fmt_count(b2, sizeof(b2), secs > 0 ? s->events / secs : 0), o->path,
		fmt_bytes(b3, sizeof(b3), s->file_bytes),
		s->events ? (double)s->file_bytes / s->events : 0.0);
	fprintf(stderr, "qostrace: ");
	for (int t = 1, first = 1; t < QT_REC_MAX; t++) {
		if (!s->by_type[t] || t == QT_REC_STATS)
			continue;
		fprintf(stderr, "%s%s %llu", first ? "" : ", ", codec_type_name(t),
			(unsigned long long)s->by_type[t]);
		first = 0;
	}
	fprintf(stderr, "\n");
	if (s->lost)
		fprintf(stderr, "qostrace: LOST %llu events in the kernel (%s full): the trace marks "
			"where; a larger --buffer-size or fewer event kinds (--no-syscalls) help\n",
			(unsigned long long)s->lost, s->buffer == REC_BUFFER_PERF ? "perf buffer" : "ring buffer");
	if (s->user_dropped)
		fprintf(stderr, "qostrace: %llu events could not be written%s%s\n",
			(unsigned long long)s->user_dropped, s->write_err ? ": " : "",
			s->write_err ? strerror(-s->write_err) : "");
	if (s->missed)
		fprintf(stderr, "qostrace: MISSED %llu tracepoint hits: the kernel runs no program where one "
			"is already running on that CPU\n", (unsigned long long)s->missed);
	if (!s->lost && !s->user_dropped && !s->missed) {
		fprintf(stderr, "qostrace: no events lost\n");
	}
	fprintf(stderr, "qostrace: stopped: %s", s->reason ? s->reason : "error");
	if (s->exit_status >= 0) {
		if (WIFEXITED(s->exit_status))
			fprintf(stderr, " (exit status %d)", WEXITSTATUS(s->exit_status));
		else if (WIFSIGNALED(s->exit_status))
			fprintf(stderr, " (killed by signal %d)", WTERMSIG(s->exit_status));
	}
	fprintf(stderr, "\n");
}

int cmd_record(int argc, char **argv, char *const *whole)
{
	static struct record_args a;
	struct argp argp = { options, parse_opt, NULL, doc, NULL, NULL, NULL };
	struct recorder_summary sum;
	char *cmdline;
	int err;

	memset(&a, 0, sizeof(a));
	a.o.path = "qostrace.qtrace";
	a.o.ring_bytes = 32u << 20;
	a.o.poll_ms = 100;
	a.o.zlevel = 1;
	if (argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a))
		return 2;
	record_args_finish(&a);
	cmdline = record_args_cmdline(whole);
	a.o.cmdline = cmdline;
	err = recorder_run(&a.o, &sum);
	free(cmdline);
	if (sum.start_ns && !a.o.quiet)
		print_summary(&a.o, &sum);
	return err ? 1 : 0;
}
