// SPDX-License-Identifier: MIT
/* The watched threads' last seconds; see src/watch/history.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"

struct recs {
	union qt_record *v;
	size_t n, cap;
	size_t sorted;		/* v[0..sorted) is in order and without duplicates */
};

struct kept {
	uint32_t tid;
	struct recs r;
};

struct history {
	struct kept *k;
	size_t nk, kcap;
	struct recs losses;
	size_t max_records;
};

struct history *history__new(size_t max_records)
{
	struct history *h = calloc(1, sizeof(*h));

	if (h)
		h->max_records = max_records < 1024 ? 1024 : max_records;
	return h;
}

void history__free(struct history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nk; i++)
		free(h->k[i].r.v);
	free(h->k);
	free(h->losses.v);
	free(h);
}

static struct kept *kept_of(struct history *h, uint32_t tid)
{
	for (size_t i = 0; i < h->nk; i++)
		if (h->k[i].tid == tid)
			return &h->k[i];
	return NULL;
}

int history__track(struct history *h, uint32_t tid)
{
	if (kept_of(h, tid))
		return 0;
	if (h->nk == h->kcap) {
		size_t cap = h->kcap ? h->kcap * 2 : 8;
		struct kept *k = realloc(h->k, cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		h->k = k;
		h->kcap = cap;
	}
	h->k[h->nk++] = (struct kept){ .tid = tid };
	return 0;
}

void history__untrack(struct history *h, uint32_t tid)
{
	struct kept *k = kept_of(h, tid);

	if (!k)
		return;
	free(k->r.v);
	*k = h->k[--h->nk];
}

static int push(struct recs *r, const union qt_record *x)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		union qt_record *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n++] = *x;
	return 0;
}

int history_cmp_records(const void *a, const void *b)
{
	const union qt_record *x = a, *y = b;

	if (x->h.ts != y->h.ts)
		return x->h.ts < y->h.ts ? -1 : 1;
	if (x->h.type != y->h.type)
		return x->h.type < y->h.type ? -1 : 1;
	if (x->h.cpu != y->h.cpu)
		return x->h.cpu < y->h.cpu ? -1 : 1;
	/* The rest only so that equal records meet and one of them goes. */
	return memcmp(x, y, sizeof(*x));
}

/*
 * Sorts what came since the last sort into place and drops duplicates.
 * Only the stretch from the first sorted record later than the newcomers'
 * earliest is sorted again: records arrive nearly in order.
 */
static void settle(struct recs *r)
{
	size_t from = r->sorted, w;
	uint64_t min_new = UINT64_MAX;

	if (r->sorted == r->n)
		return;
	for (size_t i = r->sorted; i < r->n; i++)
		if (r->v[i].h.ts < min_new)
			min_new = r->v[i].h.ts;
	while (from > 0 && r->v[from - 1].h.ts >= min_new)
		from--;
	qsort(r->v + from, r->n - from, sizeof(*r->v), history_cmp_records);
	w = from ? from : 1;
	for (size_t i = w; i < r->n; i++)
		if (history_cmp_records(&r->v[i], &r->v[w - 1]))
			r->v[w++] = r->v[i];
	r->n = r->n ? w : 0;
	r->sorted = r->n;
}

/* Drops the oldest records of r beyond max (r settled). */
static void cap_recs(struct recs *r, size_t max)
{
	if (r->n <= max)
		return;
	memmove(r->v, r->v + (r->n - max), max * sizeof(*r->v));
	r->n = max;
	r->sorted = max;
}

static void trim_recs(struct recs *r, uint64_t ts)
{
	size_t k = 0;

	settle(r);
	while (k < r->n && r->v[k].h.ts < ts)
		k++;
	if (k)
		memmove(r->v, r->v + k, (r->n - k) * sizeof(*r->v));
	r->n -= k;
	r->sorted = r->n;
}

/* The thread a record belongs to, and for a switch the other one. */
static void owners(const union qt_record *x, uint32_t *a, uint32_t *b)
{
	*a = *b = 0;
	switch (x->h.type) {
	case QT_REC_SWITCH:
		*a = x->sw.prev_tid;
		*b = x->sw.next_tid;
		break;
	case QT_REC_SYSCALL:
		*a = x->sc.tid;
		break;
	case QT_REC_FORK:
	case QT_REC_EXEC:
	case QT_REC_RENAME:
	case QT_REC_EXIT:
		*a = x->task.tid;
		break;
	}
}

int history__add(struct history *h, const union qt_record *v, size_t n)
{
	size_t share;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		const union qt_record *x = &v[i];
		struct kept *k;
		uint32_t a, b;

		if (x->h.type == QT_REC_LOST) {
			err = push(&h->losses, x);
			continue;
		}
		owners(x, &a, &b);
		if (a && (k = kept_of(h, a)))
			err = push(&k->r, x);
		if (!err && b && b != a && (k = kept_of(h, b)))
			err = push(&k->r, x);
	}
	share = h->max_records / (h->nk + 1);
	for (size_t i = 0; i < h->nk; i++) {
		settle(&h->k[i].r);
		cap_recs(&h->k[i].r, share);
	}
	settle(&h->losses);
	cap_recs(&h->losses, share);
	return err;
}

void history__trim(struct history *h, uint64_t ts)
{
	for (size_t i = 0; i < h->nk; i++)
		trim_recs(&h->k[i].r, ts);
	trim_recs(&h->losses, ts);
}

const union qt_record *history__of(struct history *h, uint32_t tid, size_t *n)
{
	struct kept *k = kept_of(h, tid);

	*n = 0;
	if (!k || !k->r.n)
		return NULL;
	settle(&k->r);
	*n = k->r.n;
	return k->r.v;
}

const union qt_record *history__losses(struct history *h, size_t *n)
{
	settle(&h->losses);
	*n = h->losses.n;
	return h->losses.n ? h->losses.v : NULL;
}

size_t history__size(const struct history *h)
{
	size_t n = h->losses.n;

	for (size_t i = 0; i < h->nk; i++)
		n += h->k[i].r.n;
	return n;
}
