// SPDX-License-Identifier: MIT
/* The ring of packed blocks; see src/watch/ring.h. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

struct slot {
	struct tf_packed pk;	/* pk.data is the slot's own allocation */
	size_t cost;
};

struct ring {
	pthread_mutex_t lock;
	struct slot *v;		/* circular: v[(head + i) % cap], i < n */
	size_t cap, head, n;
	size_t bytes, budget;
	uint64_t first_seq;	/* of v[head] */
	uint64_t pushed_out;
};

struct ring *ring__new(size_t budget)
{
	struct ring *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	pthread_mutex_init(&r->lock, NULL);
	r->budget = budget;
	return r;
}

static struct slot *at(const struct ring *r, size_t i)
{
	return &r->v[(r->head + i) % r->cap];
}

static void drop_oldest(struct ring *r)
{
	struct slot *s = at(r, 0);

	r->bytes -= s->cost;
	free((void *)s->pk.data);
	r->head = (r->head + 1) % r->cap;
	r->n--;
	r->first_seq++;
}

void ring__free(struct ring *r)
{
	if (!r)
		return;
	while (r->n)
		drop_oldest(r);
	free(r->v);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* Room for one more slot: the circular array doubles, unrolled in order. */
static int grow(struct ring *r)
{
	size_t cap = r->cap ? r->cap * 2 : 64;
	struct slot *v;

	if (r->n < r->cap)
		return 0;
	v = malloc(cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++)
		v[i] = *at(r, i);
	free(r->v);
	r->v = v;
	r->cap = cap;
	r->head = 0;
	return 0;
}

int ring__push(struct ring *r, const struct tf_packed *b)
{
	struct slot s = { .pk = *b };
	uint8_t *data;
	int err;

	if ((size_t)b->len + RING_BLOCK_OVERHEAD > r->budget)
		return -E2BIG;
	data = malloc(b->len ? b->len : 1);
	if (!data)
		return -ENOMEM;
	memcpy(data, b->data, b->len);
	s.pk.data = data;
	/* What the allocator really gave: the bound is on memory, not on payloads. */
	s.cost = malloc_usable_size(data) + RING_BLOCK_OVERHEAD;
	pthread_mutex_lock(&r->lock);
	while (r->n && r->bytes + s.cost > r->budget) {
		drop_oldest(r);
		r->pushed_out++;
	}
	err = grow(r);
	if (err) {
		pthread_mutex_unlock(&r->lock);
		free(data);
		return err;
	}
	r->v[(r->head + r->n) % r->cap] = s;
	r->n++;
	r->bytes += s.cost;
	pthread_mutex_unlock(&r->lock);
	return 0;
}

void ring__expire(struct ring *r, uint64_t keep_from)
{
	pthread_mutex_lock(&r->lock);
	while (r->n > 1 && at(r, 1)->pk.base_ts <= keep_from)
		drop_oldest(r);
	pthread_mutex_unlock(&r->lock);
}

bool ring__span(struct ring *r, uint64_t from, uint64_t to, uint64_t *first_seq, uint64_t *last_seq)
{
	size_t lo = 0, hi;

	pthread_mutex_lock(&r->lock);
	if (!r->n) {
		pthread_mutex_unlock(&r->lock);
		return false;
	}
	/* Base times rise with the sequence (a block's base is its first record's arrival). */
	while (lo + 1 < r->n && at(r, lo + 1)->pk.base_ts <= from)
		lo++;
	hi = lo;
	while (hi + 1 < r->n && at(r, hi)->pk.base_ts <= to)
		hi++;
	*first_seq = r->first_seq + lo;
	*last_seq = r->first_seq + hi;
	pthread_mutex_unlock(&r->lock);
	return true;
}

void ring__sum(struct ring *r, uint64_t first_seq, uint64_t last_seq, uint64_t *bytes, uint64_t *records)
{
	uint64_t b = 0, n = 0;

	pthread_mutex_lock(&r->lock);
	for (uint64_t s = first_seq > r->first_seq ? first_seq : r->first_seq;
	     s <= last_seq && s < r->first_seq + r->n; s++) {
		b += at(r, s - r->first_seq)->pk.len;
		n += at(r, s - r->first_seq)->pk.count;
	}
	pthread_mutex_unlock(&r->lock);
	if (bytes)
		*bytes = b;
	if (records)
		*records = n;
}

int ring__copy(struct ring *r, uint64_t seq, struct ring_copy *c)
{
	const struct slot *s;
	int found = 0;

	pthread_mutex_lock(&r->lock);
	if (seq >= r->first_seq && seq < r->first_seq + r->n) {
		s = at(r, seq - r->first_seq);
		if (s->pk.len > c->cap) {
			uint8_t *nb = realloc(c->buf, s->pk.len);

			if (!nb) {
				pthread_mutex_unlock(&r->lock);
				return -ENOMEM;
			}
			c->buf = nb;
			c->cap = s->pk.len;
		}
		memcpy(c->buf, s->pk.data, s->pk.len);
		c->pk = s->pk;
		c->pk.data = c->buf;
		c->seq = seq;
		found = 1;
	}
	pthread_mutex_unlock(&r->lock);
	return found;
}

void ring_copy_free(struct ring_copy *c)
{
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

void ring__stats(struct ring *r, struct ring_stats *st)
{
	pthread_mutex_lock(&r->lock);
	*st = (struct ring_stats){
		.blocks = r->n, .bytes = r->bytes, .budget = r->budget, .first_seq = r->first_seq,
		.next_seq = r->first_seq + r->n, .pushed_out = r->pushed_out,
		.oldest_ts = r->n ? at(r, 0)->pk.base_ts : 0,
		.newest_ts = r->n ? at(r, r->n - 1)->pk.base_ts : 0,
	};
	pthread_mutex_unlock(&r->lock);
}
