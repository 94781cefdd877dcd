// SPDX-License-Identifier: MIT
/*
 * qostrace watch: the flight recorder (src/watch/watch.h). Options, the
 * memory it states at start, the recording with its status line and
 * alerts, SIGUSR1, and the summary at the end. Hidden: --replay FILE (a
 * recording fed to watch, for the tests) and --explain FILE (the
 * low-priority child that analyses a window).
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "actors/actors.h"
#include "commands.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "record/recorder.h"
#include "record_args.h"
#include "watch/explain.h"
#include "watch/replay.h"
#include "watch/watch.h"

#define MAX_SPECS 64
#define NS 1000000000ull

struct watch_args {
	struct record_args ra;		/* the targets and how to record them */
	struct watch_opts w;
	const char *specs[MAX_SPECS];
	bool no_diagnosis;
	const char *replay, *explain, *explain_break;
};

enum {
	OPT_ACTOR = RECORD_ARGS_KEY_END,
	OPT_LATE,
	OPT_BEFORE,
	OPT_AFTER,
	OPT_MAX_FILES,
	OPT_MAX_DISK,
	OPT_MEMORY,
	OPT_NO_DIAGNOSIS,
	OPT_REPLAY,
	OPT_EXPLAIN,
	OPT_EXPLAIN_BREAK,
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "What to watch:", 1 },
	{ "pid", 'p', "PID[,PID...]", 0, "Running processes (their system calls; scheduling is always system-wide)", 1 },
	{ "all", 'a', NULL, 0, "Every thread is a target", 1 },
	{ "actor", OPT_ACTOR, "SPEC", 0, "Watch this actor (repeatable; the syntax of report --actor: a thread "
	  "name or glob, tid:N, pid:N, write@sink). Default: the actors report studies", 1 },
	{ "no-syscalls", RECORD_ARGS_NO_SYSCALLS, NULL, 0, "Do not record system calls", 1 },
	{ "no-irqs", RECORD_ARGS_NO_IRQS, NULL, 0, "Do not record hard and soft IRQs", 1 },
	{ NULL, 0, NULL, 0, "When to write a window:", 2 },
	{ "late", OPT_LATE, "DURATION", 0, "A break this late triggers (default: a tenth of the actor's period)", 2 },
	{ "before", OPT_BEFORE, "DURATION", 0, "Keep this much before a break (default 10s; also the warm-up)", 2 },
	{ "after", OPT_AFTER, "DURATION", 0, "Record this much after it (default 2s)", 2 },
	{ NULL, 0, NULL, 0, "Output and bounds:", 3 },
	{ "output", 'o', "DIR", 0, "Directory of the windows, NNNN-ACTOR-LATE.qtrace (made if missing)", 3 },
	{ "max-files", OPT_MAX_FILES, "N", 0, "Write at most N windows (default 100; 0: no limit)", 3 },
	{ "max-disk", OPT_MAX_DISK, "SIZE", 0, "Write at most SIZE of windows (default 1G; 0: no limit)", 3 },
	{ "memory", OPT_MEMORY, "SIZE", 0, "Memory for the recording kept (default 64M), beside the kernel buffer", 3 },
	{ "no-diagnosis", OPT_NO_DIAGNOSIS, NULL, 0, "Do not analyse the windows (the alert says who broke, not why)", 3 },
	{ "buffer-size", RECORD_ARGS_BUFFER, "SIZE", 0, "Kernel buffer, a power of two (default 32M)", 3 },
	{ "backend", RECORD_ARGS_BACKEND, "PATH[,BUFFER]", 0, "How to attach, as for record (btf, core, tracefs; ringbuf, perfbuf)", 3 },
	{ "btf", RECORD_ARGS_BTF, "FILE", 0, "This kernel's BTF from a file (attach path core)", 3 },
	{ "verbose", 'v', NULL, 0, "More messages", 3 },
	{ "quiet", 'q', NULL, 0, "No status line", 3 },
	{ "replay", OPT_REPLAY, "FILE", OPTION_HIDDEN, "Feed a recording to watch instead of recording", 4 },
	{ "explain", OPT_EXPLAIN, "FILE", OPTION_HIDDEN, "Say what delayed a window's break", 4 },
	{ "explain-break", OPT_EXPLAIN_BREAK, "TID:NS", OPTION_HIDDEN, "The break --explain is about", 4 },
	{ 0 },
};

static const char doc[] =
	"Watch a streaming program for hours and keep only what matters: the seconds\n"
	"around each period break, as ordinary trace files, each told in one line with\n"
	"what delayed it.\n"
	"\n"
	"USAGE: qostrace watch -o DIR [OPTIONS] -- COMMAND [ARG...]\n"
	"       qostrace watch -o DIR [OPTIONS] -p PID[,PID...]\n"
	"       qostrace watch -o DIR [OPTIONS] -a\n"
	"\v"
	"It records as `qostrace record` does, but keeps only the last --before seconds\n"
	"in memory, packed as in a trace file, within --memory. After a warm-up of\n"
	"--before seconds it says which actors it watches and their periods. When one\n"
	"breaks its period by a tenth of it (or by --late), it records --after seconds\n"
	"more, writes the window to DIR (mode 0600; a temporary name, then renamed),\n"
	"analyses it at the lowest priority and prints one line:\n"
	"  06:01:17 src/1234 broke its 10.00 ms period: 25.1 ms late, waited 25.3 ms\n"
	"  for CPU behind disturber/77 -> drops/0003-src-25ms.qtrace\n"
	"Breaks close together share one file. Each file is a recording like any\n"
	"other: qostrace report, info, dump, export read it.\n"
	"\n"
	"EXAMPLES:\n"
	"  qostrace watch -o drops/ -- ./my-pipeline\n"
	"      watch its threads until it exits\n"
	"  qostrace watch -o drops/ -p 1234 --actor src --actor 'sink*'\n"
	"      a running process, two named actors\n"
	"  qostrace watch -o drops/ -a --late 5ms --before 10s --after 2s --max-files 50\n"
	"      everything; only breaks of 5 ms or more\n"
	"  kill -USR1 $(pidof qostrace)\n"
	"      write a window of the last --before seconds now\n"
	"  qostrace report drops/0003-src-25ms.qtrace\n"
	"      the whole story of one window\n"
	"\n"
	"Ctrl-C or SIGTERM ends it: the windows waiting for their --after seconds are\n"
	"written with what there is, then a summary (time watched, breaks, files,\n"
	"events lost). Needs root, or CAP_BPF and CAP_PERFMON.";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct watch_args *a = state->input;
	char msg[256];
	uint64_t v;

	if (record_args_parse(&a->ra, key, arg, state))
		return 0;
	switch (key) {
	case 'o':
		a->w.dir = arg;
		break;
	case OPT_ACTOR:
		if (actors__check_spec(arg, msg, sizeof(msg)))
			argp_error(state, "%s", msg);
		if (a->w.nspecs == MAX_SPECS)
			argp_error(state, "--actor: at most %d", MAX_SPECS);
		a->specs[a->w.nspecs++] = arg;
		break;
	case OPT_LATE:
		if (parse_duration(arg, 0, &v) || !v || v > 3600 * NS)
			argp_error(state, "--late '%s': expected a duration with its unit, e.g. 5ms", arg);
		a->w.late_ns = (int64_t)v;
		break;
	case OPT_BEFORE:
	case OPT_AFTER:
		if (parse_duration(arg, NS, &v) || v > 3600 * NS || (key == OPT_BEFORE && v < 100000000ull))
			argp_error(state, "--%s '%s': expected a duration such as 10s or 500ms%s",
				   key == OPT_BEFORE ? "before" : "after", arg, key == OPT_BEFORE ? ", at least 100ms" : "");
		*(key == OPT_BEFORE ? &a->w.before_ns : &a->w.after_ns) = v;
		break;
	case OPT_MAX_FILES:
		if (parse_u64(arg, 0, 1000000, &v))
			argp_error(state, "--max-files '%s': expected a number of files (0: no limit)", arg);
		a->w.max_files = (unsigned int)v;
		break;
	case OPT_MAX_DISK:
	case OPT_MEMORY:
		if (parse_size(arg, &v) || (key == OPT_MEMORY && (v < (4u << 20) || v > (64ull << 30))))
			argp_error(state, "--%s '%s': expected a size such as 500M or 2G%s",
				   key == OPT_MEMORY ? "memory" : "max-disk", arg,
				   key == OPT_MEMORY ? ", from 4M" : " (0: no limit)");
		*(key == OPT_MEMORY ? &a->w.memory : &a->w.max_disk) = v;
		break;
	case OPT_NO_DIAGNOSIS:
		a->no_diagnosis = true;
		break;
	case 'v':
		if (log_level < LOG_LIBBPF)
			log_level++;
		break;
	case 'q':
		a->ra.o.quiet = true;
		break;
	case OPT_REPLAY:
		a->replay = arg;
		break;
	case OPT_EXPLAIN:
		a->explain = arg;
		break;
	case OPT_EXPLAIN_BREAK:
		a->explain_break = arg;
		break;
	case ARGP_KEY_END:
		if (a->explain)
			break;
		if (!a->w.dir)
			argp_error(state, "where do the windows go? -o DIR");
		if (!a->replay)
			record_args_check(&a->ra, state, "watch");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* DIR exists (made if missing, 0700) and takes files: 0, or 1 after a message. */
static int check_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		log_err("cannot make %s: %s", dir, strerror(errno));
		return 1;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		log_err("%s is not a directory: -o takes the directory the windows go to", dir);
		return 1;
	}
	if (access(dir, W_OK | X_OK)) {
		log_err("cannot write in %s: %s", dir, strerror(errno));
		return 1;
	}
	return 0;
}

/* ---- live ---- */

static struct watch *the_watch;
static volatile int drain_stop;

static void on_usr1(int sig)
{
	(void)sig;
	if (the_watch)
		watch__demand(the_watch);
}

static void on_int_drain(int sig)
{
	(void)sig;
	drain_stop = 1;
}

struct live {
	struct watch *w;
	bool quiet;
	uint64_t last_status, last_events;
	double rate;
	uint64_t lost;
};

static const char *on_poll(void *arg, const struct recorder_progress *p)
{
	struct live *l = arg;
	struct watch_counts c = { 0 };
	char line[256];

	log_status_end();
	watch__say_to(l->w, stdout);
	if (p->now_ns - l->last_status < NS)
		return NULL;
	if (l->last_status)
		l->rate = (p->events - l->last_events) * 1e9 / (p->now_ns - l->last_status);
	l->last_status = p->now_ns;
	l->last_events = p->events;
	l->lost = p->lost;
	if (l->quiet)
		return NULL;
	watch__counts(l->w, &c);
	c.elapsed_ns = p->now_ns - p->start_ns;
	c.events_per_s = l->rate;
	c.lost = p->lost;
	status_line(line, sizeof(line), &c);
	log_status("%s", line);
	return NULL;
}

/* What a window is and the memory bound, said at start. */
static void state_bounds(const struct watch_args *a, struct watch *w)
{
	struct watch_budget b;
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
	uint64_t on_way;

	watch__budget(w, &b);
	on_way = b.tap_records * b.record_size + a->ra.o.queue_bytes;
	printf("qostrace: a window is the %s before a break and the %s after it, written to %s\n",
	       fmt_duration(b1, sizeof(b1), (int64_t)a->w.before_ns), fmt_duration(b2, sizeof(b2), (int64_t)a->w.after_ns),
	       a->w.dir);
	printf("qostrace: memory: at most %s beside the kernel buffer (%s): %s of packed events, %s of the watched "
	       "threads' records, %s of records on their way; the warm-up studies up to %s events at once "
	       "(about 100 bytes each)\n",
	       fmt_bytes(b1, sizeof(b1), (double)(b.ring_bytes + b.history_records * b.record_size + on_way)),
	       fmt_bytes(b2, sizeof(b2), (double)a->ra.o.ring_bytes), fmt_bytes(b3, sizeof(b3), (double)b.ring_bytes),
	       fmt_bytes(b4, sizeof(b4), (double)(b.history_records * b.record_size)),
	       fmt_bytes(b5, sizeof(b5), (double)on_way), fmt_count(b6, sizeof(b6), (double)b.warmup_events));
	fflush(stdout);
}

static int run_live(struct watch_args *a, struct watch *w)
{
	struct live l = { .w = w, .quiet = a->ra.o.quiet || !log_is_tty() };
	struct recorder_summary sum;
	struct sigaction su = { .sa_handler = on_usr1 }, si = { .sa_handler = on_int_drain };
	struct watch_counts c = { 0 };
	int err;

	a->ra.o.sink = watch__sink(w);
	a->ra.o.on_poll = on_poll;
	a->ra.o.arg = &l;
	/* Blocks of a quarter second: a window's edges are that fine, and its blocks' packing as good. */
	a->ra.o.block_ns = NS / 4;
	a->ra.o.block_bytes = 256u << 10;
	a->ra.o.queue_bytes = 8u << 20;
	a->ra.o.quiet = true;	/* watch's status line, not record's */
	the_watch = w;
	sigaction(SIGUSR1, &su, NULL);
	err = watch__start(w);
	if (err) {
		log_err("cannot start the detector: %s", strerror(-err));
		return 1;
	}
	state_bounds(a, w);
	err = recorder_run(&a->ra.o, &sum);
	watch__stop(w);
	log_status_end();
	if (!sum.start_ns)
		return 1;
	/* The last windows, with what there is; a second Ctrl-C skips waiting for their analyses. */
	sigaction(SIGINT, &si, NULL);
	sigaction(SIGTERM, &si, NULL);
	watch__step(w, sum.stop_ns, true);
	watch__say_to(w, stdout);
	watch__drain(w, stdout, 300000, &drain_stop);
	watch__counts(w, &c);
	c.elapsed_ns = sum.stop_ns - sum.start_ns;
	c.lost = sum.lost;
	status_summary(stdout, &c, a->w.dir, sum.reason);
	signal(SIGUSR1, SIG_DFL);
	the_watch = NULL;
	return err ? 1 : 0;
}

static int run_replay(struct watch_args *a, struct watch *w)
{
	struct watch_counts c = { 0 };
	int err = watch_replay(w, a->replay, stdout);

	watch__drain(w, stdout, 300000, NULL);
	watch__counts(w, &c);
	status_summary(stdout, &c, a->w.dir, err ? "the replay failed" : "end of the recording replayed");
	return err ? 1 : 0;
}

static int run_explain(const struct watch_args *a)
{
	unsigned int tid = 0;
	long long at = 0;

	if (a->explain_break && sscanf(a->explain_break, "%u:%lld", &tid, &at) != 2) {
		log_err("--explain-break '%s': expected TID:NS", a->explain_break);
		return 2;
	}
	return explain_window(a->explain, NULL, 0, tid, at, stdout) ? 1 : 0;
}

int cmd_watch(int argc, char **argv, char *const *whole)
{
	static struct watch_args a;
	struct argp argp = { options, parse_opt, NULL, doc, NULL, NULL, NULL };
	char self[PATH_MAX];
	struct watch *w = NULL;
	char *cmdline;
	ssize_t n;
	int rc;

	memset(&a, 0, sizeof(a));
	a.ra.o.ring_bytes = 32u << 20;
	a.ra.o.poll_ms = 100;
	a.ra.o.zlevel = 1;
	a.w.before_ns = 10 * NS;
	a.w.after_ns = 2 * NS;
	a.w.max_files = 100;
	a.w.max_disk = 1ull << 30;
	a.w.memory = 64u << 20;
	a.w.zlevel = 1;
	if (argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a))
		return 2;
	if (a.explain)
		return run_explain(&a);
	if (!a.replay && recorder_missing()) {
		log_err("this qostrace cannot record: %s", recorder_missing());
		return 1;
	}
	if (check_dir(a.w.dir))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	record_args_finish(&a.ra);
	a.w.specs = a.specs;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = 0;
	a.w.self = a.no_diagnosis || n <= 0 ? NULL : self;
	cmdline = record_args_cmdline(whole);
	a.w.cmdline = cmdline;
	a.ra.o.cmdline = cmdline;
	/* Live: the ring is complete about two polls and two blocks behind the clock. */
	a.w.lag_ns = NS;
	if (watch__new(&a.w, &w)) {
		log_err("out of memory");
		free(cmdline);
		return 1;
	}
	watch__say_to(w, stdout);
	rc = a.replay ? run_replay(&a, w) : run_live(&a, w);
	watch__free(w);
	free(cmdline);
	return rc;
}
