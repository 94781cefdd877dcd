// SPDX-License-Identifier: MIT
/* Taking the detector's records as they pass; see src/watch/tap.h. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

struct tap {
	pthread_mutex_t lock;
	uint32_t *tids;			/* open addressing, 0 empty; cap a power of two */
	size_t tcap;
	struct tap_batch in;		/* filled by the writer's thread */
	size_t cap;			/* in.v's fixed size */
	/* records dropped since the last take (the array was full), and their span */
	uint64_t drop_n, drop_first, drop_last;
	struct tap_stats st;
};

struct tap *tap__new(size_t cap)
{
	struct tap *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cap = cap < 16 ? 16 : cap;
	t->in.v = malloc(t->cap * sizeof(*t->in.v));
	if (!t->in.v) {
		free(t);
		return NULL;
	}
	t->in.cap = t->cap;
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

void tap__free(struct tap *t)
{
	if (!t)
		return;
	free(t->in.v);
	free(t->tids);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static size_t slot_of(uint32_t tid, size_t cap)
{
	return (size_t)((tid * 2654435761u) & (cap - 1));
}

static bool watched(const struct tap *t, uint32_t tid)
{
	if (!t->tcap || !tid)
		return false;
	for (size_t i = slot_of(tid, t->tcap); t->tids[i]; i = (i + 1) & (t->tcap - 1))
		if (t->tids[i] == tid)
			return true;
	return false;
}

int tap__set_tids(struct tap *t, const uint32_t *tids, size_t n)
{
	size_t cap = 16;
	uint32_t *v;

	while (cap < 2 * n + 2)
		cap *= 2;
	v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		size_t i = slot_of(tids[k], cap);

		if (!tids[k])
			continue;
		while (v[i] && v[i] != tids[k])
			i = (i + 1) & (cap - 1);
		v[i] = tids[k];
	}
	pthread_mutex_lock(&t->lock);
	free(t->tids);
	t->tids = v;
	t->tcap = cap;
	pthread_mutex_unlock(&t->lock);
	return 0;
}

static bool wanted(const struct tap *t, const union qt_record *r)
{
	switch (r->h.type) {
	case QT_REC_SWITCH:
		return watched(t, r->sw.prev_tid) || watched(t, r->sw.next_tid);
	case QT_REC_SYSCALL:
		return watched(t, r->sc.tid);
	case QT_REC_FORK:
	case QT_REC_EXEC:
	case QT_REC_RENAME:
	case QT_REC_EXIT:
	case QT_REC_LOST:
		return true;
	}
	return false;
}

/* The records dropped so far, as one loss record that covers them (the array's last slot). */
static void note_drops(struct tap *t)
{
	union qt_record *r = &t->in.v[t->in.n++];

	memset(r, 0, sizeof(*r));
	r->lost.h.type = QT_REC_LOST;
	r->lost.h.ts = t->drop_last + 1;
	r->lost.first_ts = t->drop_first;
	r->lost.last_ts = t->drop_last;
	r->lost.count = t->drop_n;
	t->drop_n = 0;
}

void tap__records(struct tap *t, const void *raw, size_t len)
{
	const uint8_t *p = raw, *end = p + len;

	pthread_mutex_lock(&t->lock);
	while (p < end) {
		const union qt_record *r = (const void *)p;
		size_t size = codec_rec_size(r->h.type);

		if (!size || size > (size_t)(end - p))
			break;	/* the writer checked each record's size; never here */
		p += size;
		if (r->h.type == QT_REC_STATS)
			continue;
		t->st.events++;
		if (r->h.ts > t->st.newest_ts)
			t->st.newest_ts = r->h.ts;
		if (!wanted(t, r))
			continue;
		/* The last slot is kept for the loss record that stands for the drops. */
		if (t->in.n + 1 >= t->cap) {
			if (!t->drop_n++)
				t->drop_first = r->h.ts;
			t->drop_last = r->h.ts > t->drop_last ? r->h.ts : t->drop_last;
			t->st.dropped++;
			continue;
		}
		memset(&t->in.v[t->in.n], 0, sizeof(*t->in.v));
		memcpy(&t->in.v[t->in.n++], r, size);
	}
	pthread_mutex_unlock(&t->lock);
}

void tap__take(struct tap *t, struct tap_batch *out)
{
	struct tap_batch give = *out;

	/* The caller's array, or a fresh one the first time. */
	if (!give.v || give.cap < t->cap) {
		free(give.v);
		give.v = malloc(t->cap * sizeof(*give.v));
		give.cap = give.v ? t->cap : 0;
	}
	pthread_mutex_lock(&t->lock);
	if (t->drop_n)
		note_drops(t);
	if (!give.v) {
		/* Out of memory: the records stay for the next take. */
		out->n = 0;
		pthread_mutex_unlock(&t->lock);
		return;
	}
	*out = t->in;
	t->in = give;
	t->in.n = 0;
	pthread_mutex_unlock(&t->lock);
}

void tap__stats(struct tap *t, struct tap_stats *st)
{
	pthread_mutex_lock(&t->lock);
	*st = t->st;
	pthread_mutex_unlock(&t->lock);
}
