// SPDX-License-Identifier: MIT
/* qostrace report: analyse a trace (or a Gantt chart) and render it. */
#include <argp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis_opts.h"
#include "commands.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "report/report.h"
#include "report/html.h"
#include "session.h"

struct report_args {
	const char *path;
	bool json;
	const char *html;
	int color;		/* -1 auto, 0 never, 1 always */
	struct analysis_args an;	/* analysis_argp: --actor, --qcod, --min-late, --epsilon, --break-paths, --timing-only */
};

enum {
	OPT_JSON = 0x100,
	OPT_HTML,
	OPT_DELTA,
	OPT_ALPHA,
	OPT_GAP,
	OPT_COLOR,
	OPT_SEARCH_PATTERNS,
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Output:", 1 },
	{ "json", OPT_JSON, NULL, 0, "The JSON document (docs/report.schema.json) on standard output", 1 },
	{ "html", OPT_HTML, "FILE", 0, "Also write a self-contained HTML page with the timeline", 1 },
	{ "color", OPT_COLOR, "WHEN", 0, "Colour: auto (on a terminal), always, never", 1 },
	{ "verbose", 'v', NULL, 0, "Show more rows in each section", 1 },
	{ "quiet", 'q', NULL, 0, "No progress or warnings", 1 },
	{ NULL, 0, NULL, 0, "Emerging patterns (ConSGapMiner):", 4 },
	{ "delta", OPT_DELTA, "PERCENT", 0, "Minimum support where the period breaks: 80% or 0.8 (default: searched from 100%)", 4 },
	{ "alpha", OPT_ALPHA, "PERCENT", 0, "Maximum support where it holds, scaled to the breaks' window lengths: 10% or 0.1 (default: searched from 0%)", 4 },
	{ "gap", OPT_GAP, "N", 0, "Events a pattern may skip between two of its elements (default 2)", 4 },
	{ "search-patterns", OPT_SEARCH_PATTERNS, NULL, 0,
	  "Search even an actor whose period is under 100 us and breaks 1000 times or more (skipped by default: a scheduler's rhythm, not a media period)",
	  4 },
	{ 0 },
};

/* --actor, --qcod, --min-late, --epsilon, --break-paths, --timing-only */
static const struct argp_child children[] = {
	{ &analysis_argp, 0, NULL, 0 },
	{ 0 },
};

static const char doc[] =
	"Explain why a streaming program misses its rhythm: which thread broke its\n"
	"period first, what was on the critical path into the late invocations, and\n"
	"what system activity shows up whenever the period breaks.\n"
	"\n"
	"USAGE: qostrace report [OPTIONS] FILE.qtrace\n"
	"       qostrace report [OPTIONS] CHART.csv\n"
	"       (a Gantt chart with the header task,actor,start_ns,end_ns)\n"
	"\v"
	"EXAMPLES:\n"
	"  qostrace report run.qtrace\n"
	"  qostrace report --json run.qtrace > run.json\n"
	"  qostrace report --html run.html run.qtrace\n"
	"  qostrace report --actor src --actor write@sink run.qtrace\n"
	"  qostrace report --actor auto --actor 'write(1)@ts_*' --qcod 5% run.qtrace\n"
	"  qostrace report --pair dec,sink run.qtrace\n"
	"  qostrace report --data-path=out.ts run.qtrace  # which processes made out.ts last\n"
	"  qostrace report --min-late 2ms run.qtrace      # breaks: late by 2 ms or more\n"
	"  qostrace report --epsilon 50us chart.csv\n";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct report_args *a = state->input;
	uint64_t v;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->an;
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_HTML:
		a->html = arg;
		break;
	case OPT_COLOR:
		if (!strcmp(arg, "auto"))
			a->color = -1;
		else if (!strcmp(arg, "always"))
			a->color = 1;
		else if (!strcmp(arg, "never"))
			a->color = 0;
		else
			argp_error(state, "--color '%s': auto, always or never", arg);
		break;
	case 'v':
		a->an.o.verbose++;
		break;
	case 'q':
		log_level = LOG_QUIET;
		break;
	case OPT_DELTA:
		if (parse_fraction(arg, &a->an.o.delta) || a->an.o.delta <= 0)
			argp_error(state, "--delta '%s': a share of the breaks in (0, 1] or a percentage, "
				   "e.g. 0.8 or 80%%", arg);
		break;
	case OPT_ALPHA:
		if (parse_fraction(arg, &a->an.o.alpha))
			argp_error(state, "--alpha '%s': a share of the kept periods in [0, 1] or a percentage, "
				   "e.g. 0.1 or 10%%", arg);
		break;
	case OPT_SEARCH_PATTERNS:
		a->an.o.search_patterns = true;
		break;
	case OPT_GAP:
		if (parse_u64(arg, 0, 64, &v))
			argp_error(state, "--gap '%s': a number of events from 0 to 64", arg);
		a->an.o.gap = v;
		break;
	case ARGP_KEY_ARG:
		if (a->path)
			argp_error(state, "one file at a time");
		a->path = arg;
		break;
	case ARGP_KEY_END:
		if (!a->path)
			argp_error(state, "which trace file (or Gantt chart .csv)?");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int render(const struct report_args *a, const struct analysis *an)
{
	struct report_style st = { .verbose = a->an.o.verbose };

	st.color = a->color < 0 ? isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL : a->color;
	if (a->html) {
		struct report_html_stats hs;
		int err = report_html_write(an, a->html, NULL, &hs);

		if (err) {
			log_err("cannot write %s: %s", a->html, strerror(-err));
			return err;
		}
		if (log_level >= LOG_NORMAL)
			fprintf(stderr, "%s: %zu lanes, %llu run intervals, %.1f MB: open it in a browser\n",
				a->html, hs.lanes, (unsigned long long)hs.runs, hs.bytes / 1e6);
	}
	if (a->json)
		return report_json(an, stdout);
	return report_text(an, stdout, &st);
}

int cmd_report(int argc, char **argv, char *const *whole)
{
	struct argp argp = { options, parse_opt, "FILE", doc, children, NULL, NULL };
	struct report_args a = { .color = -1 };
	struct session s;
	int err;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return 2;
	a.an.o.progress = log_is_tty();
	if (session__open_input(a.path, &s))
		return 1;
	err = session__analyse(&s, &a.an.o);
	if (!err)
		err = render(&a, s.an);
	session__close(&s);
	/* --pair, --data-path naming nothing, or no data records: the stage said why */
	if (err && err != -ESRCH && err != -ENODATA)
		log_err("report failed: %s", strerror(err < 0 ? -err : EIO));
	return err ? 1 : 0;
}
