// SPDX-License-Identifier: MIT
/* Trace file blocks read ahead on a thread; see src/file/readahead.h. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "readahead.h"

/*
 * Blocks waiting to be decoded. Two would keep both threads busy if every
 * block cost the same; a few more absorb blocks that decompress slower
 * than others. The slots hold decompressed payloads: 4 MB for a
 * recording's 1 MB blocks, at most 256 MB for a file of blocks of the
 * largest size a reader accepts (TF_MAX_PAYLOAD).
 */
#define RA_SLOTS 4

struct ra_slot {
	struct tf_block blk;	/* data points into buf */
	uint8_t *buf;
	size_t cap;
	int rc;			/* tf_reader__next()'s */
};

struct readahead {
	struct tf_reader *r;
	pthread_t th;
	bool threaded;
	pthread_mutex_t mu;
	pthread_cond_t filled, freed;
	struct ra_slot slot[RA_SLOTS];
	/*
	 * slot[head % RA_SLOTS] is the next to hand out, slot[tail % RA_SLOTS]
	 * the next to fill. The one handed out last stays taken until the
	 * next call (its data must stay valid until then): held.
	 */
	uint64_t head, tail;
	bool held;
	bool stop;
};

/* The block's payload into the slot's own buffer: the reader reuses its own. */
static int keep(struct ra_slot *s, const struct tf_block *b)
{
	if (b->len > s->cap) {
		size_t cap = s->cap ? s->cap : 64 * 1024;
		uint8_t *nb;

		while (cap < b->len)
			cap *= 2;
		nb = malloc(cap);
		if (!nb)
			return -ENOMEM;
		free(s->buf);
		s->buf = nb;
		s->cap = cap;
	}
	memcpy(s->buf, b->data, b->len);
	s->blk = *b;
	s->blk.data = s->buf;
	return 1;
}

static void *reader_thread(void *arg)
{
	struct readahead *ra = arg;
	int rc;

	do {
		struct ra_slot *s;
		struct tf_block b;

		pthread_mutex_lock(&ra->mu);
		while (ra->tail - ra->head == RA_SLOTS && !ra->stop)
			pthread_cond_wait(&ra->freed, &ra->mu);
		if (ra->stop) {
			pthread_mutex_unlock(&ra->mu);
			break;
		}
		s = &ra->slot[ra->tail % RA_SLOTS];
		pthread_mutex_unlock(&ra->mu);

		rc = tf_reader__next(ra->r, &b);
		if (rc > 0)
			rc = keep(s, &b);
		s->rc = rc;

		pthread_mutex_lock(&ra->mu);
		ra->tail++;
		pthread_cond_signal(&ra->filled);
		pthread_mutex_unlock(&ra->mu);
	} while (rc > 0);
	return NULL;
}

int readahead__start(struct tf_reader *r, struct readahead **out)
{
	struct readahead *ra = calloc(1, sizeof(*ra));

	*out = NULL;
	if (!ra)
		return -ENOMEM;
	ra->r = r;
	if (pthread_mutex_init(&ra->mu, NULL))
		goto no_mutex;
	if (pthread_cond_init(&ra->filled, NULL))
		goto no_filled;
	if (pthread_cond_init(&ra->freed, NULL))
		goto no_freed;
	/* Without a thread the same blocks come from the caller's. */
	ra->threaded = !pthread_create(&ra->th, NULL, reader_thread, ra);
	*out = ra;
	return 0;
no_freed:
	pthread_cond_destroy(&ra->filled);
no_filled:
	pthread_mutex_destroy(&ra->mu);
no_mutex:
	free(ra);
	return -ENOMEM;
}

int readahead__next(struct readahead *ra, struct tf_block *blk)
{
	struct ra_slot *s;
	int rc;

	if (!ra->threaded)
		return tf_reader__next(ra->r, blk);
	pthread_mutex_lock(&ra->mu);
	if (ra->held) {
		ra->head++;
		ra->held = false;
		pthread_cond_signal(&ra->freed);
	}
	while (ra->tail == ra->head)
		pthread_cond_wait(&ra->filled, &ra->mu);
	s = &ra->slot[ra->head % RA_SLOTS];
	rc = s->rc;
	/* The end or an error stays in its slot: every later call returns it too. */
	if (rc > 0) {
		*blk = s->blk;
		ra->held = true;
	}
	pthread_mutex_unlock(&ra->mu);
	return rc;
}

void readahead__stop(struct readahead *ra)
{
	if (!ra)
		return;
	if (ra->threaded) {
		pthread_mutex_lock(&ra->mu);
		ra->stop = true;
		pthread_cond_signal(&ra->freed);
		pthread_mutex_unlock(&ra->mu);
		pthread_join(ra->th, NULL);
	}
	for (int i = 0; i < RA_SLOTS; i++)
		free(ra->slot[i].buf);
	pthread_cond_destroy(&ra->freed);
	pthread_cond_destroy(&ra->filled);
	pthread_mutex_destroy(&ra->mu);
	free(ra);
}
