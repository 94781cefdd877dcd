// SPDX-License-Identifier: MIT
/* The warm-up's steps; see src/watch/internal.h and learn.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actors/period.h"
#include "file/trace.h"
#include "history.h"
#include "internal.h"
#include "lib/parse.h"
#include "ring.h"
#include "status.h"

#define NOT_WATCHED_SHOWN 5	/* actors the warm-up names without watching them */

/* The targets now, as META lists them (the warm-up's trace has lost the forks before it). */
static char *targets_list(const struct watch *w)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < w->ntargets; i++)
		fprintf(f, "%s%u", i ? "," : "", w->targets[i]);
	fclose(f);
	return s;
}

/* The actors studied: those watched with their period, a few of the others with why not. */
static void say_learnt(struct watch *w, const struct learnt *l)
{
	size_t shown = 0, left = 0;
	char line[256];

	for (size_t i = 0; i < l->n; i++) {
		const struct learnt_actor *a = &l->v[i];
		bool watched = a->periodic && a->have_rule;

		if (!watched && shown >= NOT_WATCHED_SHOWN) {
			left++;
			continue;
		}
		shown += !watched;
		status_actor(line, sizeof(line), a, watched, PERIOD_DEFAULT_QCOD_THRESHOLD);
		watch_say(w, "%s", line);
	}
	if (left)
		watch_say(w, "... and %zu more actors that are not periodic", left);
}

static bool any_watched(const struct learnt *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].periodic && l->v[i].have_rule)
			return true;
	return false;
}

/*
 * The periodic actors watched from now on: their followers, their
 * threads' records taken by the tap and kept in the history, seeded with
 * the warm-up's. They are judged from the warm-up's start.
 */
static int install(struct watch *w, const struct learnt *l, uint64_t last_seq)
{
	uint32_t *tids = calloc(l->n ? l->n : 1, sizeof(*tids));
	size_t nt = 0, len = 0;
	FILE *f;
	int err = 0;

	free(w->v);
	w->v = calloc(l->n ? l->n : 1, sizeof(*w->v));
	free(w->actor_specs);
	w->actor_specs = NULL;
	f = open_memstream(&w->actor_specs, &len);
	if (!tids || !w->v || !f) {
		if (f)
			fclose(f);
		free(tids);
		return -ENOMEM;
	}
	w->n = 0;
	for (size_t i = 0; i < l->n && !err; i++) {
		struct watched *x = &w->v[w->n];

		if (!l->v[i].periodic || !l->v[i].have_rule)
			continue;
		*x = (struct watched){ .a = l->v[i], .judged_until = l->from, .judge_at = l->to };
		follow_init(&x->f, x->a.tid, &x->a.rule);
		fprintf(f, "%s%s", w->n ? " " : "", x->a.spec);
		w->n++;
		w->watched_ever++;
		tids[nt++] = x->a.tid;
		err = history__track(w->hist, x->a.tid);
	}
	fclose(f);
	if (!err)
		err = tap__set_tids(w->tap, tids, nt);
	free(tids);
	/* Everything the ring holds up to the warm-up's last block; what comes after, warmup_catch_up. */
	if (!err) {
		struct ring_stats st;

		ring__stats(w->ring, &st);
		err = learn_catch_up(w->ring, st.first_seq, last_seq, w->hist);
	}
	return err;
}

void warmup_learn(struct watch *w, uint64_t now, bool final)
{
	struct learn_in in = {
		.ring = w->ring, .meta = &w->meta, .threads = w->threads, .max_events = w->b.warmup_events,
		.specs = w->o.specs, .nspecs = w->o.nspecs, .late_ns = w->o.late_ns,
	};
	struct ring_stats st;
	struct learnt l;
	struct trace *t = NULL;
	char *targets = w->all ? NULL : targets_list(w), b1[32], b2[32];
	int err;

	ring__stats(w->ring, &st);
	w->learn_at = now + w->o.before_ns;
	if (!st.blocks) {
		free(targets);
		return;
	}
	in.last_seq = st.next_seq - 1;
	in.targets = targets;
	err = learn_from_ring(&in, &l, &t);
	free(targets);
	if (err) {
		if (err == -ENODATA && !w->said_waiting && !final)
			watch_say(w, "qostrace: none of the threads --actor names has run yet: waiting for them");
		else if (err != -ENODATA)
			watch_say(w, "qostrace: error: the warm-up failed: %s", strerror(-err));
		w->said_waiting = err == -ENODATA;
		return;
	}
	say_learnt(w, &l);
	if (!any_watched(&l)) {
		if (!final)
			watch_say(w, "qostrace: no periodic actor in the last %s: studying again in %s",
				  fmt_duration(b1, sizeof(b1), (int64_t)(l.to - l.from)),
				  fmt_duration(b2, sizeof(b2), (int64_t)w->o.before_ns));
		trace__free(t);
		learnt_free(&l);
		return;
	}
	err = install(w, &l, in.last_seq);
	trace__free(t);
	learnt_free(&l);
	if (err) {
		watch_say(w, "qostrace: error: cannot watch the actors: %s", strerror(-err));
		w->n = 0;
		return;
	}
	ring__stats(w->ring, &st);
	w->catch_from = in.last_seq + 1;
	/* The block being filled, and one more for a batch that spans two. */
	w->catch_to = st.next_seq + 1;
	w->ls = L_CATCHUP;
}

void warmup_catch_up(struct watch *w, bool final)
{
	struct ring_stats st;

	ring__stats(w->ring, &st);
	if (!final && st.next_seq <= w->catch_to)
		return;
	if (w->catch_from < st.next_seq &&
	    learn_catch_up(w->ring, w->catch_from, st.next_seq - 1 < w->catch_to ? st.next_seq - 1 : w->catch_to,
			   w->hist))
		watch_say(w, "qostrace: warning: out of memory: the first seconds after the warm-up are not judged");
	w->ls = L_DONE;
}

