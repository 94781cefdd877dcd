// SPDX-License-Identifier: MIT
/* The thread table at any moment; see src/watch/threads.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "threads.h"

/* kthreadd's pid: its children are kernel threads (threadtab.h does the same). */
#define KTHREADD 2

struct table {
	struct tf_thread *v;	/* sorted by tid */
	size_t n, cap;
};

struct threads {
	struct table base;
	uint64_t base_ts;
	struct qt_task *rec;	/* sorted by time */
	size_t nrec, rcap;
};

struct threads *threads__new(void)
{
	return calloc(1, sizeof(struct threads));
}

void threads__free(struct threads *t)
{
	if (!t)
		return;
	free(t->base.v);
	free(t->rec);
	free(t);
}

/* The index of tid in tb, or where it would go (*found false). */
static size_t find(const struct table *tb, uint32_t tid, bool *found)
{
	size_t lo = 0, hi = tb->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tb->v[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < tb->n && tb->v[lo].tid == tid;
	return lo;
}

/* The entry for tid, inserted (zeroed but for the tid) when it is new; NULL when out of memory. */
static struct tf_thread *entry(struct table *tb, uint32_t tid)
{
	bool found;
	size_t i = find(tb, tid, &found);

	if (found)
		return &tb->v[i];
	if (grow_array((void **)&tb->v, &tb->cap, tb->n + 1, sizeof(*tb->v)))
		return NULL;
	memmove(&tb->v[i + 1], &tb->v[i], (tb->n - i) * sizeof(*tb->v));
	tb->n++;
	memset(&tb->v[i], 0, sizeof(tb->v[i]));
	tb->v[i].tid = tid;
	return &tb->v[i];
}

static int apply(struct table *tb, const struct qt_task *r)
{
	struct tf_thread *e;
	bool found;
	size_t i;

	if (r->h.type == QT_REC_EXIT) {
		i = find(tb, r->tid, &found);
		if (found) {
			memmove(&tb->v[i], &tb->v[i + 1], (tb->n - i - 1) * sizeof(*tb->v));
			tb->n--;
		}
		return 0;
	}
	e = entry(tb, r->tid);
	if (!e)
		return -ENOMEM;
	e->tgid = r->tgid;
	if (r->h.type == QT_REC_FORK) {
		/* A new thread of the parent's process, or a new process whose parent is the forking one. */
		e->ppid = r->tgid == r->parent_tgid ? 0 : r->parent_tgid;
		e->flags = r->parent_tgid == KTHREADD ? TF_THREAD_KTHREAD : 0;
	}
	memcpy(e->comm, r->comm, sizeof(e->comm));
	e->comm[sizeof(e->comm) - 1] = 0;
	return 0;
}

int threads__set(struct threads *t, const struct tf_thread *v, size_t n, uint64_t ts)
{
	struct table tb = { 0 };

	for (size_t i = 0; i < n; i++) {
		struct tf_thread *e = entry(&tb, v[i].tid);

		if (!e) {
			free(tb.v);
			return -ENOMEM;
		}
		*e = v[i];
	}
	free(t->base.v);
	t->base = tb;
	t->base_ts = ts;
	t->nrec = 0;
	return 0;
}

int threads__add(struct threads *t, const struct qt_task *r)
{
	size_t i;

	if (r->h.type != QT_REC_FORK && r->h.type != QT_REC_EXEC && r->h.type != QT_REC_RENAME &&
	    r->h.type != QT_REC_EXIT)
		return 0;
	if (grow_array((void **)&t->rec, &t->rcap, t->nrec + 1, sizeof(*t->rec)))
		return -ENOMEM;
	/* Records come nearly in order: insert from the back. */
	for (i = t->nrec; i > 0 && t->rec[i - 1].h.ts > r->h.ts; i--)
		;
	memmove(&t->rec[i + 1], &t->rec[i], (t->nrec - i) * sizeof(*t->rec));
	t->rec[i] = *r;
	t->nrec++;
	return 0;
}

void threads__advance(struct threads *t, uint64_t ts)
{
	size_t k = 0;

	if (ts <= t->base_ts)
		return;
	/* Out of memory, a record stays pending: it is applied at every threads__at() instead. */
	while (k < t->nrec && t->rec[k].h.ts < ts && !apply(&t->base, &t->rec[k]))
		k++;
	if (k)
		memmove(t->rec, t->rec + k, (t->nrec - k) * sizeof(*t->rec));
	t->nrec -= k;
	t->base_ts = ts;
}

int threads__at(const struct threads *t, uint64_t ts, struct tf_thread **out, size_t *n)
{
	struct table tb = { .n = t->base.n, .cap = t->base.n };

	tb.v = malloc((tb.cap ? tb.cap : 1) * sizeof(*tb.v));
	if (!tb.v)
		return -ENOMEM;
	if (t->base.n)
		memcpy(tb.v, t->base.v, t->base.n * sizeof(*tb.v));
	for (size_t k = 0; k < t->nrec && t->rec[k].h.ts < ts; k++) {
		if (apply(&tb, &t->rec[k])) {
			free(tb.v);
			return -ENOMEM;
		}
	}
	*out = tb.v;
	*n = tb.n;
	return 0;
}

bool threads__find(const struct threads *t, uint32_t tid, struct tf_thread *out)
{
	bool found, gone = false, seen = false;
	size_t i = find(&t->base, tid, &found);

	if (found) {
		*out = t->base.v[i];
		seen = true;
	}
	for (size_t k = 0; k < t->nrec; k++) {
		const struct qt_task *r = &t->rec[k];

		if (r->tid != tid)
			continue;
		if (r->h.type == QT_REC_EXIT) {
			gone = true;
			continue;
		}
		if (!seen || gone)
			*out = (struct tf_thread){ .tid = tid };
		seen = true;
		gone = false;
		out->tgid = r->tgid;
		memcpy(out->comm, r->comm, sizeof(out->comm));
		out->comm[sizeof(out->comm) - 1] = 0;
	}
	return seen;
}

size_t threads__pending(const struct threads *t)
{
	return t->nrec;
}
