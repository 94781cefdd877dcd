// SPDX-License-Identifier: MIT
/* The flight recorder's detector and windows; see src/watch/watch.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "history.h"
#include "internal.h"
#include "ring.h"
#include "sink.h"
#include "threads.h"
#include "window.h"

#define TAP_RECORDS 65536	/* records waiting for the detector (its steps are 100 ms apart) */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NS + ts.tv_nsec;
}

int watch__new(const struct watch_opts *o, struct watch **out)
{
	struct watch *w = calloc(1, sizeof(*w));
	unsigned int removed = 0;

	if (!w)
		return -ENOMEM;
	w->o = *o;
	w->sweep_ns = o->before_ns / 2 < NS ? NS : o->before_ns / 2 > 5 * NS ? 5 * NS : o->before_ns / 2;
	w->hist_ns = o->before_ns + o->after_ns;
	w->b = (struct watch_budget){
		.ring_bytes = o->memory - o->memory / 4,
		.history_records = o->memory / 4 / sizeof(union qt_record),
		.tap_records = TAP_RECORDS,
		.record_size = sizeof(union qt_record),
		/* Decoded, studied and seeded, an event takes about 100 bytes while the warm-up runs. */
		.warmup_events = o->memory / 64,
		.keep_ns = o->before_ns + o->after_ns + w->sweep_ns + 2 * NS,
	};
	w->ring = ring__new(w->b.ring_bytes);
	w->tap = tap__new(w->b.tap_records);
	w->sink = w->ring && w->tap ? sink__new(w->ring, w->tap, o->zlevel) : NULL;
	w->threads = threads__new();
	w->hist = history__new(w->b.history_records);
	w->trig = trigger__new(o->before_ns, o->after_ns, 2 * o->before_ns + o->after_ns);
	w->ex = o->self ? explainer__new(o->self) : NULL;
	pthread_mutex_init(&w->mlock, NULL);
	pthread_mutex_init(&w->slock, NULL);
	if (!w->sink || !w->threads || !w->hist || !w->trig || (o->self && !w->ex)) {
		watch__free(w);
		return -ENOMEM;
	}
	if (!window_clean(o->dir, &w->next_number, &removed) && removed)
		watch_say(w, "qostrace: removed %u unfinished window%s a killed watcher left in %s", removed,
		    removed == 1 ? "" : "s", o->dir);
	*out = w;
	return 0;
}

void watch__free(struct watch *w)
{
	if (!w)
		return;
	watch__stop(w);
	explainer__free(w->ex);
	sink__free(w->sink);
	tap__free(w->tap);
	ring__free(w->ring);
	threads__free(w->threads);
	history__free(w->hist);
	trigger__free(w->trig);
	tf_kv_free(&w->meta);
	free(w->batch.v);
	free(w->targets);
	free(w->v);
	free(w->actor_specs);
	for (size_t i = 0; i < w->nmsgs; i++)
		free(w->msgs[i]);
	free(w->msgs);
	pthread_mutex_destroy(&w->mlock);
	pthread_mutex_destroy(&w->slock);
	free(w);
}

void watch__budget(const struct watch *w, struct watch_budget *b)
{
	*b = w->b;
}

const struct writer_sink *watch__sink(struct watch *w)
{
	return sink__writer(w->sink);
}

void watch__demand(struct watch *w)
{
	w->demand = 1;
}

/* ---- the recording's facts, and its target processes ---- */

static bool is_target(const struct watch *w, uint32_t tgid)
{
	for (size_t i = 0; i < w->ntargets; i++)
		if (w->targets[i] == tgid)
			return true;
	return false;
}

static void add_target(struct watch *w, uint32_t tgid)
{
	if (!tgid || is_target(w, tgid))
		return;
	if (w->ntargets == w->tcap) {
		size_t cap = w->tcap ? w->tcap * 2 : 16;
		uint32_t *t = realloc(w->targets, cap * sizeof(*t));

		if (!t)
			return;
		w->targets = t;
		w->tcap = cap;
	}
	w->targets[w->ntargets++] = tgid;
}

static bool start(struct watch *w)
{
	struct tf_thread *th;
	const char *v;
	uint64_t u;
	size_t n;

	if (!sink__started(w->sink, &w->meta, &th, &n, &w->start_ts))
		return false;
	threads__set(w->threads, th, n, w->start_ts);
	free(th);
	snprintf(w->arch, sizeof(w->arch), "%s", tf_kv_get(&w->meta, TF_META_ARCH) ?: "");
	w->ncpus = !tf_kv_get_u64(&w->meta, TF_META_CPUS, &u) && u && u < 65536 ? (int)u : 1;
	if ((v = tf_kv_get(&w->meta, TF_META_BOOT_OFFSET)))
		w->realtime_offset = strtoll(v, NULL, 10);
	v = tf_kv_get(&w->meta, TF_META_MODE);
	w->all = v && !strcmp(v, "all");
	for (v = tf_kv_get(&w->meta, TF_META_TARGETS); v && *v;) {
		add_target(w, (uint32_t)strtoul(v, NULL, 10));
		v = strchr(v, ',');
		v = v ? v + 1 : NULL;
	}
	w->learn_at = w->start_ts + w->o.before_ns;
	w->started = true;
	return true;
}

/* What the tap took: the thread table, the targets, the watched threads' histories. */
static void take(struct watch *w)
{
	tap__take(w->tap, &w->batch);
	for (size_t i = 0; i < w->batch.n; i++) {
		const union qt_record *x = &w->batch.v[i];

		if (x->h.type < QT_REC_FORK || x->h.type > QT_REC_EXIT)
			continue;
		threads__add(w->threads, &x->task);
		if (x->h.type == QT_REC_FORK && x->task.tgid != x->task.parent_tgid &&
		    is_target(w, x->task.parent_tgid))
			add_target(w, x->task.tgid);
	}
	if (history__add(w->hist, w->batch.v, w->batch.n))
		watch_say(w, "qostrace: warning: out of memory for the watched threads' records");
	w->batch.n = 0;
}

/* The past nobody needs any more: out of the ring, the histories and the logs. */
static void forget(struct watch *w, uint64_t until)
{
	uint64_t keep = until > w->b.keep_ns ? until - w->b.keep_ns : 0, pending = trigger__keep_from(w->trig);
	struct ring_stats st;

	if (pending != UINT64_MAX && pending < keep + w->o.lag_ns)
		keep = pending > w->o.lag_ns ? pending - w->o.lag_ns : 0;
	ring__expire(w->ring, keep);
	ring__stats(w->ring, &st);
	if (st.oldest_ts) {
		threads__advance(w->threads, st.oldest_ts);
		trigger__forget(w->trig, st.oldest_ts);
	}
	/* The histories serve the judge (hist_ns back) and the verdicts of the windows to write. */
	keep = until > w->hist_ns + w->sweep_ns + 2 * NS ? until - w->hist_ns - w->sweep_ns - 2 * NS : 0;
	if (pending != UINT64_MAX && pending < keep + w->o.lag_ns)
		keep = pending > w->o.lag_ns ? pending - w->o.lag_ns : 0;
	history__trim(w->hist, keep);
}

void watch__step(struct watch *w, uint64_t complete_until, bool final)
{
	pthread_mutex_lock(&w->slock);
	if (!w->started && !start(w)) {
		pthread_mutex_unlock(&w->slock);
		return;
	}
	take(w);
	if (w->ls == L_WAIT && (complete_until >= w->learn_at || final))
		warmup_learn(w, complete_until, final);
	if (w->ls == L_CATCHUP)
		warmup_catch_up(w, final);
	if (w->ls == L_DONE)
		watched_step(w, complete_until, final);
	windows_step(w, complete_until, final);
	forget(w, complete_until);
	pthread_mutex_unlock(&w->slock);
}

/* ---- the detector's thread, live ---- */

static void *detector(void *arg)
{
	struct watch *w = arg;
	struct timespec tick = { 0, 100 * (long)MS };

	while (!w->stop) {
		uint64_t now = mono_ns();

		nanosleep(&tick, NULL);
		watch__step(w, now > w->o.lag_ns ? now - w->o.lag_ns : 0, false);
	}
	return NULL;
}

int watch__start(struct watch *w)
{
	int err = -pthread_create(&w->th, NULL, detector, w);

	w->running = !err;
	return err;
}

void watch__stop(struct watch *w)
{
	if (!w->running)
		return;
	w->stop = true;
	pthread_join(w->th, NULL);
	w->running = false;
}

void watch__drain(struct watch *w, FILE *f, int timeout_ms, volatile int *stop)
{
	uint64_t until = mono_ns() + (uint64_t)timeout_ms * MS;

	while (w->ex && explainer__pending(w->ex) && mono_ns() < until && !(stop && *stop)) {
		windows_told(w, 100);
		watch__say_to(w, f);
	}
	windows_untold(w);
	watch__say_to(w, f);
}

void watch__counts(struct watch *w, struct watch_counts *c)
{
	struct tap_stats ts;

	tap__stats(w->tap, &ts);
	c->events = ts.events;
	c->actors = w->n;
	c->actors_ever = w->watched_ever;
	c->learning = w->ls != L_DONE;
	c->breaks = w->breaks;
	c->files = w->files;
	c->bytes = w->bytes;
	c->not_written = w->not_written;
	if (w->started && ts.newest_ts > w->start_ts)
		c->elapsed_ns = ts.newest_ts - w->start_ts;
}
