// SPDX-License-Identifier: MIT
/* Runs the analysis stages in order; see include/analysis.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "actors.h"
#include "analysis.h"
#include "log.h"

void analysis_opts_default(struct analysis_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->qcod_threshold = 0.10;
	o->epsilon_ns = -1;
	o->delta = -1;
	o->alpha = -1;
	o->gap = -1;
}

int analysis__run_trace(const struct trace *t, const struct timeline *tl,
			const struct analysis_opts *o, struct analysis **out)
{
	struct analysis *a = calloc(1, sizeof(*a));
	int err;

	if (!a)
		return -ENOMEM;
	a->trace = t;
	a->tl = tl;
	a->opts = *o;
	/* Stages are added here in DESIGN.md order: actors, critical, patterns. */
	err = actors__analyse(tl, o, &a->actors);
	if (err) {
		analysis__free(a);
		return err;
	}
	*out = a;
	return 0;
}

int analysis__run_gantt(const struct gantt *g, const struct analysis_opts *o,
			struct analysis **out)
{
	struct analysis *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->gantt = g;
	a->opts = *o;
	*out = a;
	return 0;
}

void analysis__free(struct analysis *a)
{
	if (!a)
		return;
	actors__free(a->actors);
	free(a);
}
