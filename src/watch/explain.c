// SPDX-License-Identifier: MIT
/* What delayed a window's break; see src/watch/explain.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "analysis/analysis.h"
#include "critical/critical.h"
#include "explain.h"
#include "file/trace.h"
#include "judge.h"
#include "lib/log.h"
#include "report/text_critical.h"
#include "timeline/timeline.h"

/* The child writes one line: the full paths of a few breaks are enough. */
#define EXPLAIN_BREAK_PATHS 16
#define EXPLAIN_MAX_SPECS 256

/* The window's watched actors (its META), split in place into specs. */
static size_t specs_of(char *list, const char **specs, size_t max)
{
	size_t n = 0;

	for (char *s = strtok(list, " "); s && n < max; s = strtok(NULL, " "))
		specs[n++] = s;
	return n;
}

/*
 * The specs that name a thread of the window, into keep (EXPLAIN_MAX_SPECS):
 * with -a, threads watched since the warm-up come and go, and the stage
 * refuses a spec that names none.
 */
static size_t present(const struct timeline *tl, const char *const *specs, size_t nspecs, const char **keep)
{
	size_t n = 0;

	for (size_t i = 0; i < nspecs && n < EXPLAIN_MAX_SPECS; i++)
		if (actors__spec_names(specs[i], tl))
			keep[n++] = specs[i];
	return n;
}

/* The critical-path result of the break of tid at at_ns, or NULL. */
static const struct crit_break *find_break(const struct analysis *a, uint32_t tid, int64_t at_ns, uint32_t *self)
{
	const struct actors_result *ar = a->actors;

	if (!ar || !a->critical)
		return NULL;
	for (size_t i = 0; i < a->critical->nbreaks; i++) {
		const struct crit_break *cb = &a->critical->breaks[i];
		const struct actor *ac = &ar->v[cb->actor];
		const struct actor_break *b = &ac->breaks[cb->brk];

		if (a->tl->threads[ac->thread].tid != tid ||
		    judge_break_time(b->start_ns, b->end_ns, b->kind == BREAK_COMPLETION) != at_ns)
			continue;
		*self = ac->thread;
		return cb;
	}
	return NULL;
}

int explain_window(const char *path, const char *const *specs, size_t nspecs, uint32_t tid, int64_t at_ns,
		   FILE *out)
{
	const char *own[EXPLAIN_MAX_SPECS], *kept[EXPLAIN_MAX_SPECS];
	struct analysis_opts o;
	struct analysis *a = NULL;
	struct timeline *tl = NULL;
	struct trace *t = NULL;
	const struct crit_break *cb;
	char msg[512], *list = NULL;
	uint32_t self = 0;
	int err;

	err = trace__load(path, NULL, &t, msg, sizeof(msg));
	if (err) {
		log_err("%s", msg);
		return err;
	}
	if (!nspecs && tf_kv_get(&t->meta, TF_META_WATCH_ACTORS)) {
		list = strdup(tf_kv_get(&t->meta, TF_META_WATCH_ACTORS));
		nspecs = list ? specs_of(list, own, EXPLAIN_MAX_SPECS) : 0;
		specs = own;
	}
	analysis_opts_default(&o);
	o.actor_specs = specs;
	o.n_actor_specs = nspecs;
	o.break_paths = EXPLAIN_BREAK_PATHS;
	o.jobs = 1;
	err = timeline__build_consuming(t, NULL, &tl);
	if (!err) {
		o.actor_specs = kept;
		o.n_actor_specs = present(tl, specs, nspecs, kept);
	}
	if (!err)
		err = analysis__run_trace(t, tl, &o, &a);
	if (err) {
		log_err("%s: cannot analyse the window: %s", path, strerror(-err));
	} else if ((cb = find_break(a, tid, at_ns, &self))) {
		text_critical_break_cause(out, a, cb, self);
		fputc('\n', out);
	} else {
		fprintf(out, "the report on the window does not find this break\n");
	}
	analysis__free(a);
	timeline__free(tl);
	trace__free(t);
	free(list);
	return err;
}
