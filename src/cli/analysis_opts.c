// SPDX-License-Identifier: MIT
/* The analysis options of report and export: one argp child (analysis_opts.h). */
#include <argp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "actors/actors.h"
#include "analysis_opts.h"
#include "file/dataobj.h"
#include "lib/parse.h"
#include "progress/progress.h"

enum {
	OPT_ACTOR = 0x100,
	OPT_QCOD,
	OPT_EPSILON,
	OPT_BREAK_PATHS,
	OPT_TIMING_ONLY,
	OPT_PAIR,
	OPT_DATA_PATH,
	OPT_MIN_LATE,
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Periods (SATM):", ANALYSIS_GROUP_ACTORS },
	{ "actor", OPT_ACTOR, "SPEC", 0, "Study this actor (repeatable); see ACTORS below",
	  ANALYSIS_GROUP_ACTORS },
	{ "qcod", OPT_QCOD, "FRACTION", 0,
	  "Periodic when the quartile coefficient of dispersion is below this (default 0.10)",
	  ANALYSIS_GROUP_ACTORS },
	{ "min-late", OPT_MIN_LATE, "DURATION|PERCENT", 0,
	  "A break is major when late by this much (2ms) or this share of the period (default 10%); "
	  "smaller ones are jitter (0: every break is major)",
	  ANALYSIS_GROUP_ACTORS },
	{ NULL, 0, NULL, 0, "Critical path (Hendriks & Vaandrager):", ANALYSIS_GROUP_CRITICAL },
	{ "epsilon", OPT_EPSILON, "DURATION", 0,
	  "Control overhead bridged between tasks (e.g. 50us), or auto (default: from the wakeups)",
	  ANALYSIS_GROUP_CRITICAL },
	{ "break-paths", OPT_BREAK_PATHS, "N", 0,
	  "List (report --json, --html) or draw (export) the critical paths of the N worst breaks (default 1000, 0: all)",
	  ANALYSIS_GROUP_CRITICAL },
	{ "timing-only", OPT_TIMING_ONLY, NULL, 0,
	  "Ignore the wakeups: reconstruct from start and end times alone", ANALYSIS_GROUP_CRITICAL },
	{ NULL, 0, NULL, 0, "Two threads (progress graph, Abrams et al.):", ANALYSIS_GROUP_VIEWS },
	{ "pair", OPT_PAIR, "A,B", 0,
	  "The two threads to draw, A on x: names (globs work) or tids (default: the upstream actor "
	  "and the thread it wakes most)", ANALYSIS_GROUP_VIEWS },
	{ "data-path", OPT_DATA_PATH, "OBJECT", OPTION_ARG_OPTIONAL,
	  "The data-flow critical path (Nguyen & Karavanic) into OBJECT: a file's name (as the "
	  "targets opened it), MAJ:MIN:INO (stat -c '%Hd:%Ld:%i' FILE), pipe:[INO] or socket:[INO] "
	  "(default: the last file written that nothing read); an error if the recording has no data "
	  "records", ANALYSIS_GROUP_VIEWS },
	{ 0 },
};

/*
 * After the parent's EXAMPLES (argp prints the children's text after the
 * "\v" below the parent's): every command that takes --actor explains it,
 * and the error messages can point here.
 */
static const char doc[] =
	"\v"
	"ACTORS:\n"
	"  An actor is what should run once per period. By default every thread of the\n"
	"  recorded command (every user thread with -a) that has enough activity to\n"
	"  judge: 8 runs and 12 invocations; qostrace report says which threads it\n"
	"  skipped and why. --actor SPEC (repeatable) studies the named actors\n"
	"  instead; add --actor auto to keep the default ones.\n"
	"    NAME          threads whose name is NAME; shell globs work: 'dec*'\n"
	"    TID           the thread with this id (also tid:TID)\n"
	"    pid:PID       every thread of process PID\n"
	"    comm:NAME     NAME even when it looks like a number or a prefix\n"
	"    CALL@THREAD   each call of system call CALL by THREAD (any form above)\n"
	"                  is an occurrence: write@ts_record, read@1234\n"
	"    CALL(ARG)@THREAD  only the calls with first argument ARG: 'write(1)@sink'\n"
	"  A thread's run intervals are its occurrences; those that end preempted\n"
	"  continue the same invocation, and the other boundaries are found by SATM's\n"
	"  temporal clustering. The period is the median interval between\n"
	"  invocations; the actor is periodic when the quartile coefficient of\n"
	"  dispersion is below 0.10 (--qcod); intervals above Q3 + 1.5 IQR are\n"
	"  breaks (listed but not trusted where data is missing). A break late by a\n"
	"  tenth of the period or more (--min-late) is major; the smaller ones are\n"
	"  jitter, counted apart: a pipeline whose actors only jitter keeps its\n"
	"  rhythm. The most upstream actor with a major break, by who wakes whom in\n"
	"  the recording, is the one to study first.\n";

/*
 * --min-late: a duration with its unit (a cut in ns for every actor) or a
 * share of each actor's period; 0 in either form is no cut (every break
 * major, as in SATM). 0 or -EINVAL.
 */
static int parse_min_late(const char *arg, struct actors_cut *out)
{
	uint64_t ns;
	double f;

	if (!parse_duration(arg, 0, &ns)) {
		if (ns > INT64_MAX)
			return -EINVAL;
		*out = ns ? (struct actors_cut){ .ns = (int64_t)ns } : (struct actors_cut){ .frac = -1 };
		return 0;
	}
	if (parse_fraction(arg, &f))
		return -EINVAL;
	*out = f > 0 ? (struct actors_cut){ .frac = f } : (struct actors_cut){ .frac = -1 };
	return 0;
}

/*
 * argp_error() exits with argp_err_exit_status, except under ARGP_NO_EXIT
 * (the unit tests): there the error code makes argp_parse() fail.
 */
static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct analysis_args *a = state->input;
	char msg[256];
	uint64_t v, ino;
	uint32_t dev;

	switch (key) {
	case ARGP_KEY_INIT:
		analysis_opts_default(&a->o);
		a->o.actor_specs = a->specs;
		break;
	case OPT_ACTOR:
		if (a->o.n_actor_specs == ANALYSIS_MAX_ACTOR_SPECS) {
			argp_error(state, "at most %d --actor options", ANALYSIS_MAX_ACTOR_SPECS);
			return EINVAL;
		}
		/* a typo fails now, not after loading a recording of several GB */
		if (actors__check_spec(arg, msg, sizeof(msg))) {
			argp_error(state, "%s (see ACTORS in --help)", msg);
			return EINVAL;
		}
		a->specs[a->o.n_actor_specs++] = arg;
		break;
	case OPT_QCOD:
		if (parse_fraction(arg, &a->o.qcod_threshold) || a->o.qcod_threshold <= 0) {
			argp_error(state, "--qcod '%s': a fraction in (0, 1], e.g. 0.1 or 10%%", arg);
			return EINVAL;
		}
		break;
	case OPT_MIN_LATE:
		if (parse_min_late(arg, &a->o.min_late)) {
			argp_error(state, "--min-late '%s': a duration with a unit (2ms) or a share of the period "
				   "(10%%, 0.1)", arg);
			return EINVAL;
		}
		break;
	case OPT_TIMING_ONLY:
		a->o.timing_only = true;
		break;
	case OPT_EPSILON:
		if (parse_epsilon(arg, &a->o.epsilon_ns)) {
			argp_error(state, "--epsilon '%s': a duration with a unit (50us, 1ms) or auto", arg);
			return EINVAL;
		}
		break;
	case OPT_PAIR:
		if (progress_check_pair(arg, msg, sizeof(msg))) {
			argp_error(state, "%s", msg);
			return EINVAL;
		}
		a->o.pair = arg;
		break;
	case OPT_DATA_PATH:
		/* a file's name is checked against the recording: anything else that is not an OBJECT */
		if (arg && (!*arg || (dataobj_parse(arg, &dev, &ino) && arg[strlen(arg) - 1] == '/'))) {
			argp_error(state, "--data-path='%s': expected MAJ:MIN:INO (stat -c '%%Hd:%%Ld:%%i' FILE), "
				   "pipe:[INO], socket:[INO] or a file's name", arg);
			return EINVAL;
		}
		a->o.data_path = true;
		a->o.data_target = arg;
		break;
	case OPT_BREAK_PATHS:
		if (parse_u64(arg, 0, SIZE_MAX, &v)) {
			argp_error(state, "--break-paths '%s': a number of breaks, 0 for all", arg);
			return EINVAL;
		}
		a->o.break_paths = v;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp analysis_argp = { options, parse_opt, NULL, doc, NULL, NULL, NULL };
