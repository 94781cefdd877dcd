// SPDX-License-Identifier: MIT
/* The recorder's writer thread; see src/file/writer.h. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "codec.h"
#include "lib/log.h"
#include "writer.h"

#define BATCH_BYTES (1u << 20)

struct batch {
	struct batch *next;
	size_t used;
	uint8_t data[BATCH_BYTES];
};

struct writer {
	struct writer_opts o;
	struct tf_writer *tf;		/* NULL with a sink */
	uint64_t sink_bytes;		/* payload bytes handed to the sink */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* the thread waits for batches */
	pthread_cond_t space;		/* the consumer waits for a free slot */
	struct batch *head, *tail;	/* full batches, oldest first */
	struct batch *free_list;
	size_t queued, allocated, max_batches;
	bool done;

	struct batch *cur;		/* consumer side only */

	/* thread side only */
	uint8_t *block;
	size_t block_used;
	uint32_t block_count;
	uint64_t block_base;
	uint64_t block_opened, last_sync;
	struct codec_state cs;

	/*
	 * Counters: the consumer's own (records, types, timestamps) need no
	 * lock; the thread's (errors, bytes, queue) are under lock.
	 */
	struct writer_stats st;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* One block to the file, or to the sink. */
static int emit(struct writer *w, enum tf_block_type type, const void *payload, size_t len, uint32_t count,
		uint64_t base_ts)
{
	const struct writer_sink *s = w->o.sink;

	if (!s)
		return tf_writer__append(w->tf, type, payload, len, count, base_ts);
	w->sink_bytes += len;
	return s->append(s->ctx, type, payload, len, count, base_ts);
}

static uint64_t emitted_bytes(const struct writer *w)
{
	return w->tf ? tf_writer__bytes(w->tf) : w->sink_bytes;
}

static int write_block(struct writer *w)
{
	int err;

	if (!w->block_count)
		return 0;
	err = emit(w, TF_BLK_EVENTS, w->block, w->block_used, w->block_count, w->block_base);
	pthread_mutex_lock(&w->lock);
	if (err) {
		if (!w->st.err)
			w->st.err = err;
		w->st.user_dropped += w->block_count;
	}
	w->st.file_bytes = emitted_bytes(w);
	pthread_mutex_unlock(&w->lock);
	w->block_used = 0;
	w->block_count = 0;
	return err;
}

static void maybe_sync(struct writer *w, uint64_t now)
{
	if (w->tf && now - w->last_sync >= w->o.sync_ns) {
		tf_writer__sync(w->tf);
		w->last_sync = now;
	}
}

static void pack_batch(struct writer *w, const struct batch *b)
{
	const uint8_t *p = b->data, *end = b->data + b->used;

	if (w->o.sink && w->o.sink->records)
		w->o.sink->records(w->o.sink->ctx, b->data, b->used);
	while (p < end) {
		const union qt_record *r = (const void *)p;
		size_t size = codec_rec_size(r->h.type);
		int n;

		if (!w->block_count) {
			w->block_base = r->h.ts;
			w->block_opened = now_ns();
			codec_reset(&w->cs, r->h.ts);
		}
		n = codec_encode(&w->cs, r, w->block + w->block_used);
		w->block_used += n;
		w->block_count++;
		p += size;
		if (w->block_used + CODEC_MAX_REC > w->o.block_bytes)
			write_block(w);
	}
}

static void *writer_thread(void *arg)
{
	struct writer *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct batch *b;
		uint64_t now;

		while (!w->head && !w->done) {
			struct timespec until;

			/* Wake at least every 100 ms to close aging blocks. */
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += 100 * 1000000;
			if (until.tv_nsec >= 1000000000) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000;
			}
			if (pthread_cond_timedwait(&w->cond, &w->lock, &until) == ETIMEDOUT)
				break;
		}
		b = w->head;
		if (b) {
			w->head = b->next;
			if (!w->head)
				w->tail = NULL;
			w->queued--;
		}
		if (!b && w->done)
			break;
		pthread_mutex_unlock(&w->lock);

		if (b)
			pack_batch(w, b);
		now = now_ns();
		if (w->block_count && now - w->block_opened >= w->o.block_ns) {
			write_block(w);
			maybe_sync(w, now);
		}

		pthread_mutex_lock(&w->lock);
		if (b) {
			b->next = w->free_list;
			w->free_list = b;
			pthread_cond_signal(&w->space);
		}
	}
	pthread_mutex_unlock(&w->lock);
	write_block(w);
	return NULL;
}

int writer__open(const struct writer_opts *opts, const struct tf_kv *meta,
		 const struct tf_thread *threads, size_t nthreads, uint64_t snapshot_ts,
		 struct writer **out)
{
	struct writer *w;
	uint8_t *buf;
	size_t len;
	int err;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->o = *opts;
	if (!w->o.block_bytes)
		w->o.block_bytes = 1u << 20;
	if (w->o.block_bytes < 4096)
		w->o.block_bytes = 4096;
	if (!w->o.block_ns)
		w->o.block_ns = 1000000000ull;
	if (!w->o.sync_ns)
		w->o.sync_ns = 1000000000ull;
	if (!w->o.queue_bytes)
		w->o.queue_bytes = 256u << 20;
	w->max_batches = w->o.queue_bytes / BATCH_BYTES;
	if (w->max_batches < 2)
		w->max_batches = 2;
	w->block = malloc(w->o.block_bytes);
	if (!w->block) {
		free(w);
		return -ENOMEM;
	}
	if (!w->o.sink) {
		err = tf_writer__create(w->o.path, w->o.force, w->o.zlevel, &w->tf);
		if (err)
			goto fail;
	}
	buf = (uint8_t *)tf_kv_encode(meta, &len);
	if (!buf) {
		err = -ENOMEM;
		goto fail_file;
	}
	err = emit(w, TF_BLK_META, buf, len, meta->n, snapshot_ts);
	free(buf);
	if (err)
		goto fail_file;
	buf = tf_threads_encode(threads, nthreads, &len);
	if (!buf) {
		err = -ENOMEM;
		goto fail_file;
	}
	err = emit(w, TF_BLK_THREADS, buf, len, nthreads, snapshot_ts);
	free(buf);
	if (err)
		goto fail_file;
	if (w->tf)
		tf_writer__sync(w->tf);
	w->last_sync = now_ns();
	w->st.file_bytes = emitted_bytes(w);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	pthread_cond_init(&w->space, NULL);
	err = -pthread_create(&w->thread, NULL, writer_thread, w);
	if (err)
		goto fail_file;
	*out = w;
	return 0;
fail_file:
	if (w->tf) {
		tf_writer__close(w->tf);
		unlink(w->o.path);
	}
fail:
	free(w->block);
	free(w);
	return err;
}

/* Gives the current batch to the thread; waits for space when the queue is full. */
static void hand_over(struct writer *w)
{
	struct batch *b = w->cur;

	if (!b || !b->used)
		return;
	w->cur = NULL;
	pthread_mutex_lock(&w->lock);
	b->next = NULL;
	if (w->tail)
		w->tail->next = b;
	else
		w->head = b;
	w->tail = b;
	w->queued++;
	if (w->queued > w->st.queue_peak)
		w->st.queue_peak = w->queued;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static struct batch *get_batch(struct writer *w)
{
	struct batch *b;

	pthread_mutex_lock(&w->lock);
	while (!w->free_list && w->allocated >= w->max_batches)
		pthread_cond_wait(&w->space, &w->lock);
	b = w->free_list;
	if (b)
		w->free_list = b->next;
	else if ((b = malloc(sizeof(*b))))
		w->allocated++;
	pthread_mutex_unlock(&w->lock);
	if (b)
		b->used = 0;
	return b;
}

int writer__push(struct writer *w, const void *rec, size_t size)
{
	const struct qt_rec_hdr *h = rec;

	if (size < sizeof(*h) || codec_rec_size(h->type) != size) {
		w->st.malformed++;
		return -EBADMSG;
	}
	if (w->cur && w->cur->used + size > BATCH_BYTES)
		hand_over(w);
	if (!w->cur) {
		w->cur = get_batch(w);
		if (!w->cur) {
			pthread_mutex_lock(&w->lock);
			w->st.user_dropped++;
			pthread_mutex_unlock(&w->lock);
			return -ENOMEM;
		}
	}
	memcpy(w->cur->data + w->cur->used, rec, size);
	w->cur->used += size;
	w->st.records++;
	w->st.by_type[h->type]++;
	if (!w->st.first_ts || h->ts < w->st.first_ts)
		w->st.first_ts = h->ts;
	if (h->ts > w->st.last_ts)
		w->st.last_ts = h->ts;
	return 0;
}

void writer__flush_batch(struct writer *w)
{
	hand_over(w);
}

void writer__stats(struct writer *w, struct writer_stats *st)
{
	pthread_mutex_lock(&w->lock);
	*st = w->st;
	pthread_mutex_unlock(&w->lock);
}

int writer__finish(struct writer *w, const struct tf_thread *threads, size_t nthreads,
		   uint64_t snapshot_ts, const struct tf_kv *end)
{
	struct batch *b;
	uint8_t *buf;
	size_t len;
	int err = 0, e;

	hand_over(w);
	pthread_mutex_lock(&w->lock);
	w->done = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);

	buf = tf_threads_encode(threads, nthreads, &len);
	if (buf) {
		e = emit(w, TF_BLK_THREADS, buf, len, nthreads, snapshot_ts);
		free(buf);
		if (e && !w->st.err)
			w->st.err = e;
	}
	buf = (uint8_t *)tf_kv_encode(end, &len);
	if (buf) {
		e = emit(w, TF_BLK_END, buf, len, end->n, snapshot_ts);
		free(buf);
		if (e && !w->st.err)
			w->st.err = e;
	}
	e = tf_writer__close(w->tf);
	err = w->st.err ? w->st.err : e;
	while ((b = w->free_list)) {
		w->free_list = b->next;
		free(b);
	}
	free(w->cur);
	free(w->block);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	pthread_cond_destroy(&w->space);
	free(w);
	return err;
}
