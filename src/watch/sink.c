// SPDX-License-Identifier: MIT
/* watch's writer sink; see src/watch/sink.h. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"
#include "sink.h"
#include "tap.h"

struct sink {
	struct writer_sink ws;
	struct ring *ring;
	struct tap *tap;
	struct tf_packer *pk;		/* the writer's thread only */

	pthread_mutex_t lock;		/* what follows */
	struct tf_kv meta, end;
	struct tf_thread *threads;
	size_t nthreads;
	uint64_t threads_ts;
	bool have_meta, have_threads, have_end;
	uint64_t refused;
};

static int kv_copy(struct tf_kv *dst, const struct tf_kv *src)
{
	for (size_t i = 0; i < src->n; i++)
		if (tf_kv_set(dst, src->keys[i], "%s", src->vals[i]))
			return -ENOMEM;
	return 0;
}

static int keep_kv(struct sink *s, struct tf_kv *kv, bool *have, const void *payload, size_t len)
{
	struct tf_kv tmp = { 0 };
	int err = tf_kv_decode(&tmp, payload, len);

	if (err) {
		tf_kv_free(&tmp);
		return err;
	}
	pthread_mutex_lock(&s->lock);
	tf_kv_free(kv);
	*kv = tmp;
	*have = true;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

/* The first table is the start snapshot; the end one is not needed (windows make their own). */
static int keep_threads(struct sink *s, const void *payload, size_t len, uint32_t count, uint64_t ts)
{
	struct tf_thread *t;
	size_t n;
	int err;

	if (s->have_threads)
		return 0;
	err = tf_threads_decode(payload, len, count, &t, &n);
	if (err)
		return err;
	pthread_mutex_lock(&s->lock);
	s->threads = t;
	s->nthreads = n;
	s->threads_ts = ts;
	s->have_threads = true;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static int keep_events(struct sink *s, const void *payload, size_t len, uint32_t count, uint64_t base_ts)
{
	struct tf_packed b;
	int err = tf_packer__pack(s->pk, TF_BLK_EVENTS, payload, len, count, base_ts, &b);

	if (!err)
		err = ring__push(s->ring, &b);
	if (err) {
		pthread_mutex_lock(&s->lock);
		s->refused++;
		pthread_mutex_unlock(&s->lock);
	}
	/* Refused blocks are counted, not fatal: the recording goes on. */
	return err == -ENOMEM || err == -E2BIG ? 0 : err;
}

static int append(void *ctx, enum tf_block_type type, const void *payload, size_t len, uint32_t count,
		  uint64_t base_ts)
{
	struct sink *s = ctx;

	switch (type) {
	case TF_BLK_META:
		return keep_kv(s, &s->meta, &s->have_meta, payload, len);
	case TF_BLK_THREADS:
		return keep_threads(s, payload, len, count, base_ts);
	case TF_BLK_EVENTS:
		return keep_events(s, payload, len, count, base_ts);
	case TF_BLK_END:
		return keep_kv(s, &s->end, &s->have_end, payload, len);
	}
	return -EINVAL;
}

static void records(void *ctx, const void *raw, size_t len)
{
	struct sink *s = ctx;

	tap__records(s->tap, raw, len);
}

struct sink *sink__new(struct ring *ring, struct tap *tap, int zlevel)
{
	struct sink *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (tf_packer__new(zlevel, &s->pk)) {
		free(s);
		return NULL;
	}
	s->ring = ring;
	s->tap = tap;
	s->ws = (struct writer_sink){ .append = append, .records = records, .ctx = s };
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

void sink__free(struct sink *s)
{
	if (!s)
		return;
	tf_packer__free(s->pk);
	tf_kv_free(&s->meta);
	tf_kv_free(&s->end);
	free(s->threads);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

const struct writer_sink *sink__writer(struct sink *s)
{
	return &s->ws;
}

bool sink__started(struct sink *s, struct tf_kv *meta, struct tf_thread **threads, size_t *n, uint64_t *ts)
{
	bool ok;

	pthread_mutex_lock(&s->lock);
	ok = s->have_meta && s->have_threads;
	if (ok) {
		*threads = malloc((s->nthreads ? s->nthreads : 1) * sizeof(**threads));
		ok = *threads && !kv_copy(meta, &s->meta);
		if (ok) {
			if (s->nthreads)
				memcpy(*threads, s->threads, s->nthreads * sizeof(**threads));
			*n = s->nthreads;
			*ts = s->threads_ts;
		} else {
			free(*threads);
			*threads = NULL;
			tf_kv_free(meta);
		}
	}
	pthread_mutex_unlock(&s->lock);
	return ok;
}

bool sink__ended(struct sink *s, struct tf_kv *end)
{
	bool ok;

	pthread_mutex_lock(&s->lock);
	ok = s->have_end && !kv_copy(end, &s->end);
	pthread_mutex_unlock(&s->lock);
	return ok;
}

uint64_t sink__refused(struct sink *s)
{
	uint64_t v;

	pthread_mutex_lock(&s->lock);
	v = s->refused;
	pthread_mutex_unlock(&s->lock);
	return v;
}
