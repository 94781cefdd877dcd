// SPDX-License-Identifier: MIT
/* Runs the analysis stages in order; see src/analysis/analysis.h. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "analysis.h"
#include "critical/critical.h"
#include "diagnosis.h"
#include "lib/log.h"
#include "patterns/patterns.h"
#include "progress/progress.h"
#include "dataflow/stage.h"
#include "lib/workq.h"

void analysis_opts_default(struct analysis_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->qcod_threshold = 0.10;
	o->min_late.frac = ACTORS_DEFAULT_MIN_LATE;
	o->epsilon_ns = -1;
	o->delta = -1;
	o->alpha = -1;
	o->gap = -1;
	o->break_paths = ANALYSIS_DEFAULT_BREAK_PATHS;
	o->jobs = workq_cpus_usable() > 1 ? 2 : 1;
}

static void critical_opts_of(const struct analysis_opts *o, struct critical_opts *co)
{
	critical_opts_default(co);
	co->epsilon_ns = o->epsilon_ns;
	co->timing_only = o->timing_only;
	co->jobs = o->jobs;
	co->seg_breaks = o->break_paths;	/* only the listed paths are shown in full */
}

static void actors_opts_of(const struct analysis_opts *o, struct actors_opts *ao)
{
	memset(ao, 0, sizeof(*ao));
	ao->actor_specs = o->actor_specs;
	ao->n_actor_specs = o->n_actor_specs;
	ao->qcod_threshold = o->qcod_threshold;
	ao->min_late = o->min_late;
	ao->jobs = o->jobs;
}

static void patterns_opts_of(const struct analysis_opts *o, struct patterns_opts *po)
{
	patterns_opts_default(po);
	po->delta = o->delta;
	po->alpha = o->alpha;
	po->gap = o->gap;
	po->search_always = o->search_patterns;
}

/*
 * The critical path's graph needs only the timeline: with two jobs it is
 * built beside the actors' stage (critical__prepare), and the actors'
 * paths are accounted once both are done.
 */
struct prep_job {
	const struct timeline *tl;
	struct critical_opts co;
	struct critical_prep *prep;
	pthread_t th;
	bool started;
	int err;
};

static void *prep_thread(void *arg)
{
	struct prep_job *j = arg;

	workq_busy(1);
	j->err = critical__prepare(j->tl, &j->co, &j->prep);
	workq_busy(-1);
	return NULL;
}

/* The prepared graph, once built (NULL: none was started); the caller owns it. */
static struct critical_prep *prep_join(struct prep_job *j, int *err)
{
	if (!j->started)
		return NULL;
	workq_busy(-1);
	pthread_join(j->th, NULL);
	workq_busy(1);
	j->started = false;
	*err = j->err;
	return j->prep;
}

/* A stage that fails says so and leaves its result NULL; the others still report. */
static int run_critical(struct analysis *a, const struct timeline *tl, struct prep_job *pj)
{
	struct critical_prep *prep;
	int err = 0;

	prep = prep_join(pj, &err);
	if (prep)
		err = critical__finish(prep, a->actors, &a->critical);
	else if (!err)
		err = critical__analyse(tl, a->actors, &pj->co, &a->critical);
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

/*
 * The progress graph of two threads: after the actors (the default pair is
 * the upstream actor's). Only running out of memory, or a --pair that
 * names no thread of the recording, stops the analysis.
 */
static int run_progress(struct analysis *a, const struct timeline *tl)
{
	struct progress_opts po = { .pair = a->opts.pair };
	int err = progress__analyse(tl, a->actors, &po, &a->progress);

	if (err && err != -ENOMEM && err != -ESRCH)
		log_warn("progress graph: %s", strerror(-err));
	return err == -ENOMEM || err == -ESRCH ? err : 0;
}

/*
 * The data-flow path: of the data records alone. Without --data-path a
 * recording without them has no such section; with it, that (or an
 * object no call made) stops the analysis.
 */
static int run_dataflow(struct analysis *a, const struct trace *t, const struct timeline *tl)
{
	struct dataflow_opts dopts = { .asked = a->opts.data_path, .target = a->opts.data_target };
	int err = dataflow__analyse(t, tl, &dopts, &a->dataflow);

	if (err && err != -ENOMEM && !a->opts.data_path) {
		log_warn("data-flow path: %s", strerror(-err));
		return 0;
	}
	return err;
}

struct patterns_job {
	struct analysis *a;
	const struct timeline *tl;
	int err;
	struct patterns_opts po;	/* patterns_opts_of() the analysis' */
};

static void *patterns_thread(void *arg)
{
	struct patterns_job *j = arg;

	workq_busy(1);
	j->err = patterns__analyse(j->tl, j->a->actors, &j->po, &j->a->patterns);
	workq_busy(-1);
	return NULL;
}

/*
 * The two stages side by side where they can be; messages are written from
 * this thread only, after both are done. A thread that cannot be started
 * means running them in turn, not failing.
 */
static int run_critical_and_patterns(struct analysis *a, const struct timeline *tl, struct prep_job *pj)
{
	struct patterns_job job = { .a = a, .tl = tl };
	bool side_by_side = a->opts.jobs > 1;
	pthread_t th;
	int err, perr;

	patterns_opts_of(&a->opts, &job.po);
	if (a->opts.progress)
		log_status(side_by_side ? "critical path and emerging patterns..." : "critical path...");
	if (side_by_side && pthread_create(&th, NULL, patterns_thread, &job))
		side_by_side = false;
	err = run_critical(a, tl, pj);
	if (side_by_side) {
		workq_busy(-1);
		pthread_join(th, NULL);
		workq_busy(1);
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
	struct prep_job pj = { 0 };
	struct actors_opts ao;
	int err, perr;

	if (!a)
		return -ENOMEM;
	a->trace = t;
	a->tl = tl;
	a->opts = *o;
	/*
	 * Stages in docs/DESIGN.md order: actors, critical, patterns; the critical
	 * path's graph is built beside the actors where two jobs run, and
	 * the patterns beside the rest of the critical path.
	 */
	workq_cpus_set(o->jobs);
	pj.tl = tl;
	critical_opts_of(o, &pj.co);
	pj.started = o->jobs > 1 && !pthread_create(&pj.th, NULL, prep_thread, &pj);
	actors_opts_of(o, &ao);
	err = actors__analyse(tl, &ao, &a->actors);
	if (!err)
		err = run_critical_and_patterns(a, tl, &pj);
	/* Unused when the actors failed: their error stands. */
	critical__prep_free(prep_join(&pj, &perr));
	workq_cpus_set(0);
	if (!err)
		err = run_progress(a, tl);
	if (!err)
		err = run_dataflow(a, t, tl);
	/* Computed once, from every stage's result: the renderings only print it. */
	if (!err)
		err = diagnosis__compute(a, &a->diagnosis);
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
	progress__free(a->progress);
	dataflow__free(a->dataflow);
	diagnosis__free(a->diagnosis);
	free(a);
}
