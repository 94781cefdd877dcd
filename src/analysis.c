// SPDX-License-Identifier: MIT
/* Runs the analysis stages in order; see include/analysis.h. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actors.h"
#include "analysis.h"
#include "critical.h"
#include "log.h"
#include "patterns.h"

void analysis_opts_default(struct analysis_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->qcod_threshold = 0.10;
	o->epsilon_ns = -1;
	o->delta = -1;
	o->alpha = -1;
	o->gap = -1;
	o->break_paths = ANALYSIS_DEFAULT_BREAK_PATHS;
	o->jobs = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
}

static void critical_opts_of(const struct analysis_opts *o, struct critical_opts *co)
{
	critical_opts_default(co);
	co->epsilon_ns = o->epsilon_ns;
	co->timing_only = o->timing_only;
	co->jobs = o->jobs;
	co->seg_breaks = o->break_paths;	/* only the listed paths are shown in full */
}

/* A stage that fails says so and leaves its result NULL; the others still report. */
static int run_critical(struct analysis *a, const struct timeline *tl)
{
	struct critical_opts co;
	int err;

	critical_opts_of(&a->opts, &co);
	err = critical__analyse(tl, a->actors, &co, &a->critical);
	if (err)
		log_warn("critical path: %s%s", strerror(-err),
			 err == -E2BIG ? " (too many edges: try a smaller --epsilon)" : "");
	return err == -ENOMEM ? err : 0;
}

/* Same rule: only running out of memory stops the analysis. */
static int patterns_done(int err)
{
	if (err)
		log_warn("emerging patterns: %s", strerror(-err));
	return err == -ENOMEM ? err : 0;
}

struct patterns_job {
	struct analysis *a;
	const struct timeline *tl;
	int err;
};

static void *patterns_thread(void *arg)
{
	struct patterns_job *j = arg;

	j->err = patterns__analyse(j->tl, j->a->actors, &j->a->opts, &j->a->patterns);
	return NULL;
}

/*
 * The two stages side by side where they can be; messages are written from
 * this thread only, after both are done. A thread that cannot be started
 * means running them in turn, not failing.
 */
static int run_critical_and_patterns(struct analysis *a, const struct timeline *tl)
{
	struct patterns_job job = { a, tl, 0 };
	bool side_by_side = a->opts.jobs > 1;
	pthread_t th;
	int err, perr;

	if (a->opts.progress)
		log_status(side_by_side ? "critical path and emerging patterns..." : "critical path...");
	if (side_by_side && pthread_create(&th, NULL, patterns_thread, &job))
		side_by_side = false;
	err = run_critical(a, tl);
	if (side_by_side) {
		pthread_join(th, NULL);
	} else {
		if (a->opts.progress)
			log_status("mining emerging patterns...");
		patterns_thread(&job);
	}
	if (a->opts.progress)
		log_status_end();
	perr = patterns_done(job.err);
	return err ? err : perr;
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
	if (!err)
		err = run_critical_and_patterns(a, tl);
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
	struct critical_opts co;
	int err;

	if (!a)
		return -ENOMEM;
	a->gantt = g;
	a->opts = *o;
	critical_opts_of(o, &co);
	err = critical__analyse_gantt(g, &co, &a->critical);
	if (err) {
		log_err("critical path: %s%s", strerror(-err),
			err == -E2BIG ? " (too many candidate edges: try a smaller --epsilon)" : "");
		analysis__free(a);
		return err;
	}
	*out = a;
	return 0;
}

void analysis__free(struct analysis *a)
{
	if (!a)
		return;
	actors__free(a->actors);
	critical__free(a->critical);
	patterns__free(a->patterns);
	free(a);
}
