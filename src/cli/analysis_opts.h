/* SPDX-License-Identifier: MIT */
/*
 * The analysis options that qostrace report and qostrace export share
 * (--actor, --qcod, --min-late, --epsilon, --break-paths, --timing-only, --pair), as one argp
 * child: each is declared,
 * checked and documented here, so that a bad value is the same usage error
 * at parse time in both commands.
 *
 * A command lists analysis_argp among its children and, in its own
 * ARGP_KEY_INIT, points state->child_inputs[i] at a struct analysis_args;
 * the child starts it from analysis_opts_default().
 */
#ifndef QT_ANALYSIS_OPTS_H
#define QT_ANALYSIS_OPTS_H

#include <argp.h>

#include "analysis/analysis.h"

#define ANALYSIS_MAX_ACTOR_SPECS 64

struct analysis_args {
	struct analysis_opts o;
	/* o.actor_specs points here: the --actor arguments, in argv */
	const char *specs[ANALYSIS_MAX_ACTOR_SPECS];
};

/*
 * The help groups of the child's options, each under a header of the
 * child's. List the child without a group or header of its own
 * (argp_child.group and .header 0): argp then sorts a parent's options of
 * the same group numbers under the same headers.
 */
enum {
	ANALYSIS_GROUP_ACTORS = 2,
	ANALYSIS_GROUP_CRITICAL = 3,
	ANALYSIS_GROUP_VIEWS = 5,	/* after report's patterns (4) */
};

extern const struct argp analysis_argp;

#endif
