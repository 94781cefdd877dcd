// SPDX-License-Identifier: MIT
/* qostrace export: the analysis of a recording in a format other tools open. */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis_opts.h"
#include "commands.h"
#include "report/perfetto.h"
#include "lib/log.h"
#include "session.h"

struct export_args {
	const char *path;
	const char *perfetto;
	struct perfetto_opts po;
	struct analysis_args an;	/* analysis_argp: --actor, --qcod, --min-late, --epsilon, --break-paths, --timing-only */
};

enum {
	OPT_PERFETTO = 0x100,
	OPT_NO_SYSCALLS,
	OPT_NO_WAKEUPS,
	OPT_NO_IRQS,
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Output:", 1 },
	{ "perfetto", OPT_PERFETTO, "OUT.json", 0,
	  "Chrome trace-event JSON for ui.perfetto.dev and chrome://tracing ('-': standard output)", 1 },
	{ "no-syscalls", OPT_NO_SYSCALLS, NULL, 0, "Leave out the system call tracks", 1 },
	{ "no-wakeups", OPT_NO_WAKEUPS, NULL, 0, "Leave out wakeups and their flow arrows", 1 },
	{ "no-irqs", OPT_NO_IRQS, NULL, 0, "Leave out the per-CPU IRQ and softirq tracks", 1 },
	{ "quiet", 'q', NULL, 0, "No progress or summary", 1 },
	{ 0 },
};

/* --actor, --qcod, --min-late, --epsilon, --break-paths, --timing-only, under report's headers, after Output */
static const struct argp_child children[] = {
	{ &analysis_argp, 0, NULL, 0 },
	{ 0 },
};

static const char doc[] =
	"Write a recording and its analysis in a format that trace viewers open.\n"
	"\n"
	"USAGE: qostrace export --perfetto OUT.json [OPTIONS] FILE.qtrace\n"
	"       qostrace export --perfetto OUT.json CHART.csv\n"
	"\n"
	"--perfetto writes Chrome trace-event JSON: one track per thread with a\n"
	"slice per run interval (named by how it ended: preempted, sleep, blocked,\n"
	"...), a track of system calls beside it, wakeups as arrows from the waker\n"
	"to the wakee's next run, the actors' invocations and period breaks, the\n"
	"critical paths into the worst late invocations (tracks, and arrows between\n"
	"threads; --break-paths), and per-CPU tracks for interrupts and missing\n"
	"data. Open it at ui.perfetto.dev (Open trace file) or in chrome://tracing\n"
	"(Load).\n"
	"\v"
	"EXAMPLES:\n"
	"  qostrace export --perfetto run.json run.qtrace\n"
	"  qostrace export --perfetto - --no-syscalls run.qtrace | gzip > run.json.gz\n"
	"  qostrace export --perfetto chart.json chart.csv\n";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct export_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->an;
		break;
	case OPT_PERFETTO:
		a->perfetto = arg;
		break;
	case OPT_NO_SYSCALLS:
		a->po.no_syscalls = true;
		break;
	case OPT_NO_WAKEUPS:
		a->po.no_wakeups = true;
		break;
	case OPT_NO_IRQS:
		a->po.no_irqs = true;
		break;
	case 'q':
		log_level = LOG_QUIET;
		break;
	case ARGP_KEY_ARG:
		if (a->path)
			argp_error(state, "one file at a time");
		a->path = arg;
		break;
	case ARGP_KEY_END:
		if (!a->path)
			argp_error(state, "which trace file (or Gantt chart .csv)?");
		if (!a->perfetto)
			argp_error(state, "which format? --perfetto OUT.json");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int write_perfetto(const struct export_args *a, const struct analysis *an)
{
	struct perfetto_stats st;
	bool to_stdout = !strcmp(a->perfetto, "-");
	FILE *f = to_stdout ? stdout : fopen(a->perfetto, "w");
	int err, cerr = 0;

	if (!f) {
		err = -errno;
		log_err("cannot write %s: %s", a->perfetto, strerror(errno));
		return err;
	}
	/* big writes: a recording of millions of events makes hundreds of MB */
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	err = export_perfetto(an, f, &a->po, &st);
	if (!to_stdout && fclose(f))
		cerr = -errno;
	if (!err && cerr)
		err = cerr;
	if (err) {
		log_err("writing %s failed: %s", a->perfetto, strerror(-err));
		return err;
	}
	if (log_level >= LOG_NORMAL && !to_stdout) {
		if (an->tl)
			fprintf(stderr,
				"%s: %llu events: %llu threads, %llu run slices, %llu syscalls, "
				"%llu wakeups (%llu flows), %llu IRQs, %llu invocations, %llu breaks, "
				"%llu critical-path flows, %llu data-path flows\n",
				a->perfetto, (unsigned long long)st.events, (unsigned long long)st.threads,
				(unsigned long long)st.runs, (unsigned long long)st.syscalls,
				(unsigned long long)st.wakeups, (unsigned long long)st.wakeup_flows,
				(unsigned long long)st.irqs, (unsigned long long)st.invocations,
				(unsigned long long)st.breaks, (unsigned long long)st.critical_flows,
				(unsigned long long)st.data_flows);
		else
			fprintf(stderr, "%s: %llu events: %llu tasks on %llu tracks, %llu critical-path flows\n",
				a->perfetto, (unsigned long long)st.events, (unsigned long long)st.tasks,
				(unsigned long long)st.threads, (unsigned long long)st.critical_flows);
	}
	return 0;
}

int cmd_export(int argc, char **argv, char *const *whole)
{
	struct argp argp = { options, parse_opt, "FILE", doc, children, NULL, NULL };
	struct export_args a = { 0 };
	struct session s;
	int err;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return 2;
	a.an.o.progress = log_is_tty();
	if (session__open_input(a.path, &s))
		return 1;
	err = session__analyse(&s, &a.an.o);
	if (!err)
		err = write_perfetto(&a, s.an);
	session__close(&s);
	return err ? 1 : 0;
}
