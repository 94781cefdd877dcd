// SPDX-License-Identifier: MIT
/*
 * What each thread of the pair is doing at every instant
 * (docs/ALGORITHMS.md §8.2): its rate-0 intervals (blocked on the partner,
 * waiting for ever, exited) and what it spent progressing off the CPU.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct zbuf {
	struct pg_zero *v;
	size_t n, cap;
};

static int zpush(struct zbuf *b, int64_t s, int64_t e, uint8_t kind, int64_t latency)
{
	if (s >= e)
		return 0;	/* an empty block is dropped (§8.2) */
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		struct pg_zero *v = realloc(b->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = (struct pg_zero){ .s = s, .e = e, .kind = kind, .latency = latency };
	return 0;
}

/*
 * The gap [gs, ge) after a wait (or before the first run): the first
 * wakeup in [gs, ge] decides. The partner's makes [gs, w) a block and
 * [w, ge) wake latency; anyone else's, or none, is progress the model
 * does not see (a disk, a timer); none at all at the end is an open wait.
 */
static int wait_gap(const struct pg_thread_in *x, size_t *wi, int64_t gs, int64_t ge, bool tail,
		    struct zbuf *b, struct pg_thread_stats *st)
{
	while (*wi < x->nwakes && x->wakes[*wi].t < gs)
		(*wi)++;
	if (*wi < x->nwakes && x->wakes[*wi].t <= ge) {
		const struct pg_wake *w = &x->wakes[*wi];

		if (!w->by_partner) {
			st->other_ns += ge - gs;
			st->nother++;
			return 0;
		}
		st->latency_ns += ge - w->t;
		return zpush(b, gs, w->t, PG_Z_BLOCKED, ge - w->t);
	}
	if (tail)
		return zpush(b, gs, ge, PG_Z_OPEN, 0);
	st->other_ns += ge - gs;
	st->nother += gs < ge;
	return 0;
}

int classify_thread(const struct pg_thread_in *x, int64_t t_end, struct pg_zero **out, size_t *n,
		    struct pg_thread_stats *st)
{
	struct zbuf b = { 0 };
	uint8_t prev = PG_END_WAIT;	/* before its first run: as after a wait */
	int64_t gs = x->origin;
	size_t wi = 0;
	int err = 0;

	memset(st, 0, sizeof(*st));
	st->exited = -1;
	for (size_t i = 0; i < x->nruns; i++) {
		const struct pg_run *r = &x->runs[i];

		if (r->e < r->s || r->s < gs)
			err = -EINVAL;
		if (err)
			break;
		if (prev == PG_END_PREEMPTED)
			st->preempted_ns += r->s - gs;
		else if (prev == PG_END_WAIT)
			err = wait_gap(x, &wi, gs, r->s, false, &b, st);
		else if (r->s > gs) {	/* an end lost with dropped records */
			st->other_ns += r->s - gs;
			st->nother++;
		}
		if (err)
			break;
		gs = r->e;
		prev = r->end;
		if (prev == PG_END_EXIT) {
			st->exited = r->e;
			err = zpush(&b, r->e, t_end, PG_Z_EXITED, 0);
			goto done;
		}
	}
	if (!err && gs < t_end) {
		if (prev == PG_END_PREEMPTED)
			st->preempted_ns += t_end - gs;
		else if (prev == PG_END_WAIT)
			err = wait_gap(x, &wi, gs, t_end, true, &b, st);
		else if (prev == PG_END_UNKNOWN) {
			st->other_ns += t_end - gs;
			st->nother++;
		}
	}
done:
	if (err) {
		free(b.v);
		return err;
	}
	*out = b.v;
	*n = b.n;
	return 0;
}
