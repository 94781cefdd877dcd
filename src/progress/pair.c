// SPDX-License-Identifier: MIT
/*
 * Which two threads (docs/ALGORITHMS.md §8.2, §8.6 point 1): the pair
 * report --pair names, or by default the upstream actor and the thread it
 * wakes most; without an upstream actor (or one that wakes no thread
 * PG_REPEATS times), the pair blocked on each other the longest. A named pair keeps its order;
 * a default one puts on x the thread blocked less on the other (the
 * leader, the producer of the paper's Fig. 3), so that the steady blocks
 * draw as horizontal rays.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "internal.h"
#include "lib/log.h"
#include "timeline/timeline.h"

/* ---- --pair A,B ---- */

/* One side of --pair: "tid:N", "comm:NAME", digits (a tid) or a name (globs work). */
struct side {
	char text[64];
	bool by_tid;
	uint32_t tid;
};

static int side_parse(const char *s, size_t n, struct side *sd)
{
	const char *v = s;
	size_t vn = n;
	bool digits = n > 0;

	memset(sd, 0, sizeof(*sd));
	if (!n || n >= sizeof(sd->text))
		return -EINVAL;
	if (n > 4 && !strncmp(s, "tid:", 4)) {
		v = s + 4;
		vn = n - 4;
	} else if (n > 5 && !strncmp(s, "comm:", 5)) {
		memcpy(sd->text, s + 5, n - 5);
		return 0;
	}
	for (size_t i = 0; i < vn; i++)
		digits &= v[i] >= '0' && v[i] <= '9';
	if (v != s && !digits)
		return -EINVAL;
	if (digits) {
		if (vn > 9)
			return -EINVAL;
		sd->by_tid = true;
		sd->tid = (uint32_t)strtoul(v, NULL, 10);
	}
	memcpy(sd->text, s, n);
	return 0;
}

static int pair_parse(const char *pair, struct side sd[2])
{
	const char *comma = pair ? strchr(pair, ',') : NULL;

	if (!comma || strchr(comma + 1, ','))
		return -EINVAL;
	if (side_parse(pair, comma - pair, &sd[0]) || side_parse(comma + 1, strlen(comma + 1), &sd[1]))
		return -EINVAL;
	return 0;
}

int progress_check_pair(const char *pair, char *msg, size_t len)
{
	struct side sd[2];

	if (pair_parse(pair, sd)) {
		snprintf(msg, len, "--pair '%s': two threads, A,B, each a name (globs work), a tid, "
			 "tid:N or comm:NAME", pair ? pair : "");
		return -EINVAL;
	}
	return 0;
}

/* The busiest thread the side names, or TL_NONE. */
static uint32_t side_find(const struct timeline *tl, const struct side *sd, uint32_t not)
{
	uint32_t best = TL_NONE;

	for (size_t i = 0; i < tl->nthreads; i++) {
		const struct tl_thread *th = &tl->threads[i];

		if (i == not || !th->nrun)
			continue;
		if (sd->by_tid ? th->tid != sd->tid : fnmatch(sd->text, th->comm, 0) != 0)
			continue;
		if (best == TL_NONE || th->run_ns > tl->threads[best].run_ns)
			best = i;
	}
	return best;
}

int pair_named(const struct timeline *tl, const char *pair, uint32_t th[2])
{
	struct side sd[2];

	if (pair_parse(pair, sd))
		return -EINVAL;
	for (int k = 0; k < 2; k++) {
		th[k] = side_find(tl, &sd[k], k ? th[0] : TL_NONE);
		if (th[k] == TL_NONE) {
			log_err("--pair: no thread %s%s ran in this recording", sd[k].text,
				k && !strcmp(sd[0].text, sd[1].text) ? " other than the first" : "");
			return -ESRCH;
		}
	}
	return 0;
}

/* ---- the default pair ---- */

static bool waits(uint8_t end)
{
	return end == QT_END_SLEEP || end == QT_END_BLOCKED || end == QT_END_OTHER;
}

/*
 * Calls fn(ctx, x, waker, ns) for each wait of thread x that a thread's
 * wakeup ended first: ns from the wait to that wakeup (the block of §8.2
 * when the waker is the partner).
 */
static void each_block(const struct timeline *tl, uint32_t x, void (*fn)(void *, uint32_t, uint32_t, int64_t),
		       void *ctx)
{
	const struct tl_thread *th = &tl->threads[x];
	size_t wi = th->wr0, wend = th->wr0 + th->nwr;

	for (size_t i = th->run0; i < th->run0 + th->nrun; i++) {
		const struct tl_run *r = &tl->runs[i];
		uint64_t next = i + 1 < th->run0 + th->nrun ? tl->runs[i + 1].start : tl->end;
		const struct tl_wakeup *w;

		if (!waits(r->end_state))
			continue;
		while (wi < wend && tl->wk[tl->wk_by_wakee[wi]].ts < r->end)
			wi++;
		if (wi == wend)
			break;
		w = &tl->wk[tl->wk_by_wakee[wi]];
		if (w->ts <= next && w->waker != TL_NONE && !w->is_new && w->waker != x)
			fn(ctx, x, w->waker, (int64_t)(w->ts - r->end));
	}
}

struct one_pair {
	uint32_t on;
	int64_t ns;
};

static void add_if_on(void *ctx, uint32_t x, uint32_t waker, int64_t ns)
{
	struct one_pair *o = ctx;

	if (waker == o->on)
		o->ns += ns;
}

/* Thread x's time blocked on y. */
static int64_t blocked_on(const struct timeline *tl, uint32_t x, uint32_t y)
{
	struct one_pair o = { .on = y };

	each_block(tl, x, add_if_on, &o);
	return o.ns;
}

/* x on the axis of the thread blocked less on the other (ties: the lower tid). */
static void order(const struct timeline *tl, uint32_t th[2])
{
	int64_t a = blocked_on(tl, th[0], th[1]), b = blocked_on(tl, th[1], th[0]);

	if (b < a || (a == b && tl->threads[th[1]].tid < tl->threads[th[0]].tid)) {
		uint32_t t = th[0];

		th[0] = th[1];
		th[1] = t;
	}
}

static bool candidate(const struct timeline *tl, uint32_t t, bool targets_only)
{
	const struct tl_thread *th = &tl->threads[t];

	return !(th->flags & TL_RECORDER) && (!targets_only || th->flags & TL_TARGET);
}

/* The thread that u wakes most (not itself, not qostrace), and how often; TL_NONE if none. */
static uint32_t wakes_most(const struct timeline *tl, uint32_t u, uint64_t *count)
{
	const struct tl_thread *th = &tl->threads[u];
	uint32_t *n = calloc(tl->nthreads ? tl->nthreads : 1, sizeof(*n)), best = TL_NONE;

	if (!n)
		return TL_NONE;
	for (size_t i = th->ws0; i < th->ws0 + th->nws; i++) {
		const struct tl_wakeup *w = &tl->wk[tl->wk_by_waker[i]];

		if (w->is_new || w->wakee == u || w->wakee >= tl->nthreads || !candidate(tl, w->wakee, false))
			continue;
		if (++n[w->wakee] > (best == TL_NONE ? 0 : n[best]))
			best = w->wakee;
	}
	*count = best == TL_NONE ? 0 : n[best];
	free(n);
	return best;
}

/* Pairs and their mutual blocked time, in an open-addressing table. */
struct pair_sum {
	uint64_t key;		/* lower index << 32 | higher index, + 1; 0: empty */
	int64_t ns;
};

struct pair_tab {
	struct pair_sum *v;
	size_t cap, n;
	const struct timeline *tl;
	bool targets_only;
	int err;
};

static int tab_grow(struct pair_tab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	struct pair_sum *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		size_t h;

		if (!t->v[i].key)
			continue;
		for (h = (t->v[i].key * 0x9e3779b97f4a7c15ull) >> 20 & (cap - 1); v[h].key; h = (h + 1) & (cap - 1))
			;
		v[h] = t->v[i];
	}
	free(t->v);
	t->v = v;
	t->cap = cap;
	return 0;
}

static void tab_add(void *ctx, uint32_t x, uint32_t waker, int64_t ns)
{
	struct pair_tab *t = ctx;
	uint64_t key = ((uint64_t)(x < waker ? x : waker) << 32 | (x < waker ? waker : x)) + 1;
	size_t h;

	if (t->err || waker >= t->tl->nthreads || !candidate(t->tl, waker, t->targets_only))
		return;
	if (2 * (t->n + 1) > t->cap && (t->err = tab_grow(t)))
		return;
	for (h = (key * 0x9e3779b97f4a7c15ull) >> 20 & (t->cap - 1); t->v[h].key && t->v[h].key != key;
	     h = (h + 1) & (t->cap - 1))
		;
	if (!t->v[h].key) {
		t->v[h].key = key;
		t->n++;
	}
	t->v[h].ns += ns;
}

/* The pair blocked on each other the longest (ties: the lower indices); 1, 0 if none, or -ENOMEM. */
static int most_blocking(const struct timeline *tl, uint32_t th[2])
{
	struct pair_tab t = { .tl = tl };
	const struct pair_sum *best = NULL;

	for (size_t i = 0; i < tl->nthreads && !t.targets_only; i++)
		t.targets_only = tl->threads[i].flags & TL_TARGET;
	for (size_t i = 0; i < tl->nthreads && !t.err; i++)
		if (candidate(tl, i, t.targets_only))
			each_block(tl, i, tab_add, &t);
	for (size_t i = 0; i < t.cap; i++)
		if (t.v[i].key && (!best || t.v[i].ns > best->ns || (t.v[i].ns == best->ns && t.v[i].key < best->key)))
			best = &t.v[i];
	if (best) {
		th[0] = (best->key - 1) >> 32;
		th[1] = (uint32_t)(best->key - 1);
	}
	free(t.v);
	return t.err ? t.err : best != NULL;
}

int pair_default(const struct timeline *tl, const struct actors_result *ar, uint32_t th[2], uint8_t *how,
		 uint64_t *wakeups)
{
	int found;

	*wakeups = 0;
	if (ar && ar->upstream >= 0 && (size_t)ar->upstream < ar->n) {
		uint32_t u = ar->v[ar->upstream].thread, p = u < tl->nthreads ? wakes_most(tl, u, wakeups) : TL_NONE;

		/* fewer wakeups than a cycle needs: no rhythm between them */
		if (p != TL_NONE && *wakeups >= PG_REPEATS) {
			th[0] = u;
			th[1] = p;
			*how = PG_PAIR_UPSTREAM;
			order(tl, th);
			return 1;
		}
		*wakeups = 0;
	}
	found = most_blocking(tl, th);
	if (found > 0) {
		*how = PG_PAIR_BLOCKING;
		order(tl, th);
	}
	return found;
}
