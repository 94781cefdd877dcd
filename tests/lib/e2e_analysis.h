/* SPDX-License-Identifier: MIT */
/*
 * What the end-to-end suites that check one workload's analysis share: a
 * recording loaded whole (no lost events), its timeline, the analysis with
 * default options, and lookups of a thread's actor and a break's path.
 */
#ifndef QT_E2E_ANALYSIS_H
#define QT_E2E_ANALYSIS_H

#include <stdint.h>

#include "actors/actors.h"
#include "analysis/analysis.h"
#include "critical/critical.h"
#include "testutil.h"
#include "timeline/timeline.h"
#include "file/trace.h"

struct e2e_analysis {
	struct trace *tr;
	struct timeline *tl;
	struct analysis *an;
};

static inline void e2e_analyse(const char *path, struct e2e_analysis *e)
{
	struct analysis_opts o;
	char err[512];

	cr_assert_eq(trace__load(path, NULL, &e->tr, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(e->tr->lost_events, 0, "%llu events lost", (unsigned long long)e->tr->lost_events);
	cr_assert_eq(timeline__build(e->tr, NULL, &e->tl), 0);
	analysis_opts_default(&o);
	cr_assert_eq(analysis__run_trace(e->tr, e->tl, &o, &e->an), 0);
}

/* The actor of the thread tid; the test fails if it is none. */
static inline const struct actor *e2e_thread_actor(const struct e2e_analysis *e, int tid, const char *what)
{
	for (size_t i = 0; i < e->an->actors->n; i++)
		if (e->an->actors->v[i].kind == ACTOR_THREAD &&
		    e->tl->threads[e->an->actors->v[i].thread].tid == (uint32_t)tid)
			return &e->an->actors->v[i];
	cr_assert_fail("the %s (tid %d) is no actor", what, tid);
	return NULL;
}

/* The critical-path entry of break brk of actor ac, or NULL. */
static inline const struct crit_break *e2e_break_path(const struct e2e_analysis *e, const struct actor *ac,
						      size_t brk)
{
	const struct critical_result *cr = e->an->critical;

	for (size_t i = 0; i < cr->nbreaks; i++)
		if (cr->breaks[i].actor == (size_t)(ac - e->an->actors->v) && cr->breaks[i].brk == brk)
			return &cr->breaks[i];
	return NULL;
}

static inline void e2e_analysis_free(struct e2e_analysis *e)
{
	analysis__free(e->an);
	timeline__free(e->tl);
	trace__free(e->tr);
}

#endif
