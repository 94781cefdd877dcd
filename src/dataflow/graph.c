// SPDX-License-Identifier: MIT
/*
 * The data-state graph (docs/ALGORITHMS.md §9.2-9.6): every data system
 * call split into the actions of §9.3, processed in time order (at equal
 * times in the order of §9.3, then by call), each new state given its
 * critical input when it is created; then the default target.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dataflow.h"

/* The actions of §9.3, in their order at equal times. */
enum {
	A_CREATE,		/* 0: content versions (and transfers) at the end */
	A_STREAM_WRITE,		/* 1: stream and message writes at the start */
	A_SNAPSHOT,		/* 2: content mutations take what their process has read */
	A_READ,			/* 3: reads applied at the end; forks */
	A_PICK,			/* 4: content reads pick their version at the start */
};

struct action {
	int64_t t;
	uint8_t cls;
	uint32_t op;
};

struct wrec {			/* a stream write: its state and its bytes [w0, w1) */
	long state;
	int64_t w0, w1;
};

struct obj_st {
	long last;		/* the latest state (content, message: by creation) */
	long v0;		/* PRETRACE, made when a read first needs it */
	uint32_t nver;
	struct wrec *w;		/* stream and message writes, in order */
	size_t nw, cap, oldest;	/* oldest: the first write not fully consumed */
	int64_t wbytes, rbytes, b0;
	size_t nread;		/* messages read */
};

struct cand {
	long s;			/* the latest-created state the process has read (-1: none) */
	int64_t r;		/* when it first read it */
};

struct run {
	const struct df_input *in;
	struct dataflow *d;
	struct obj_st *o;
	struct cand *c;
	struct cand *snap;	/* per op: the process's cand at its start (content mutations) */
	long *picked;		/* per op: the version a content read picked */
	size_t cap;
};

static int cmp_action(const void *x, const void *y)
{
	const struct action *a = x, *b = y;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	return (a->op > b->op) - (a->op < b->op);
}

static long new_state(struct run *r, uint32_t obj, int64_t t, uint32_t proc, uint8_t kind, uint32_t op)
{
	struct dataflow *d = r->d;
	struct df_state *s;

	if (d->nstates == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct df_state *v = realloc(d->states, cap * sizeof(*v));

		if (!v)
			return -1;
		d->states = v;
		r->cap = cap;
	}
	s = &d->states[d->nstates];
	*s = (struct df_state){ .obj = obj, .t = t, .proc = proc, .op = op, .kind = kind, .pred = -1, .pred_read_at = -1 };
	s->version = kind == DF_S_PRETRACE ? 0 : ++r->o[obj].nver;
	return (long)d->nstates++;
}

/* The object's PRETRACE version, made once. */
static long pretrace(struct run *r, uint32_t obj)
{
	if (r->o[obj].v0 < 0)
		r->o[obj].v0 = new_state(r, obj, r->in->t_start, UINT32_MAX, DF_S_PRETRACE, UINT32_MAX);
	return r->o[obj].v0;
}

/* Of two candidate inputs, the one created last (ties: the later state). */
static bool later(const struct dataflow *d, long a, long b)
{
	if (b < 0)
		return true;
	if (a < 0)
		return false;
	return d->states[a].t != d->states[b].t ? d->states[a].t > d->states[b].t : a > b;
}

/* State s's critical input: the process's latest read c (read at c.r), or the previous version prev. */
static void set_pred(struct run *r, long s, struct cand c, long prev)
{
	struct df_state *st = &r->d->states[s];

	if (c.s >= 0 && later(r->d, c.s, prev)) {
		st->pred = c.s;
		st->pred_read_at = c.r;
	} else if (prev >= 0) {
		st->pred = prev;
	}
	if (st->pred >= 0 && r->d->states[st->pred].t > st->t) {
		r->d->clamped++;	/* a transfer that overlapped its input */
	}
}

/* A read by proc at t obtained g: it becomes the process's candidate if created after the last one. */
static void got(struct run *r, uint32_t proc, long g, int64_t t)
{
	if (g < 0)
		return;
	r->d->states[g].read = true;
	if (r->c[proc].s < 0 || r->d->states[g].t > r->d->states[r->c[proc].s].t)
		r->c[proc] = (struct cand){ .s = g, .r = t };
}

static int stream_push(struct obj_st *o, long state, int64_t bytes)
{
	if (o->nw == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 16;
		struct wrec *v = realloc(o->w, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		o->w = v;
		o->cap = cap;
	}
	o->w[o->nw++] = (struct wrec){ .state = state, .w0 = o->wbytes, .w1 = o->wbytes + bytes };
	o->wbytes += bytes;
	return 0;
}

/*
 * m bytes read from stream obj: the write that covers the last of them
 * (§9.4: offsets shifted by the bytes there before the recording), or
 * PRETRACE. consume: advance the read offset (not for tee).
 */
static long stream_take(struct run *r, uint32_t obj, int64_t m, bool consume)
{
	struct obj_st *o = &r->o[obj];
	int64_t first = o->rbytes - o->b0, last = first + (m > 0 ? m : 1) - 1;
	size_t i;

	if (consume)
		o->rbytes += m;
	if (last < 0 || !o->nw)
		return pretrace(r, obj);
	while (o->oldest + 1 < o->nw && o->w[o->oldest].w1 <= first)
		o->oldest++;
	for (i = o->oldest; i + 1 < o->nw && o->w[i].w1 <= last; i++)
		;
	return o->w[i].state;
}

/* What a read (or a transfer's input) of op obtains from its object. */
static long take(struct run *r, const struct df_op *op, uint32_t idx, int64_t at, bool consume)
{
	struct obj_st *o = &r->o[op->obj];

	switch (r->in->objs[op->obj].kind) {
	case DF_CONTENT:
		if (op->kind == DF_OP_READ)
			return r->picked[idx];
		return o->last >= 0 ? o->last : pretrace(r, op->obj);
	case DF_STREAM:
		return stream_take(r, op->obj, op->bytes, consume);
	case DF_MESSAGE:
		if (o->nread < o->nw)
			return o->w[consume ? o->nread++ : o->nread].state;
		return pretrace(r, op->obj);
	default:
		return new_state(r, op->obj, at, op->proc, DF_S_EXTERNAL, idx);
	}
}

static uint8_t mutation_kind(uint8_t op)
{
	return op == DF_OP_TRUNC ? DF_S_TRUNC : op == DF_OP_RENAME ? DF_S_RENAME :
	       op == DF_OP_WRITE ? DF_S_WRITE : DF_S_TRANSFER;
}

/* A new state of out at t (a transfer's), with input g or the process's snapshot c. */
static int mutate(struct run *r, const struct df_op *op, uint32_t idx, uint32_t out, int64_t t, struct cand c)
{
	uint8_t kind = r->in->objs[out].kind;
	long prev = kind == DF_CONTENT && op->kind != DF_OP_TRUNC ? r->o[out].last : -1;
	long s = new_state(r, out, t, op->proc, mutation_kind(op->kind), idx);

	if (s < 0)
		return -ENOMEM;
	set_pred(r, s, c, prev);
	r->o[out].last = s;
	if (kind == DF_STREAM || kind == DF_MESSAGE)
		return stream_push(&r->o[out], s, kind == DF_STREAM ? op->bytes : 1);
	return 0;
}

static int act(struct run *r, const struct action *a)
{
	const struct df_op *op = &r->in->ops[a->op];
	long g;

	switch (a->cls) {
	case A_PICK:
		r->picked[a->op] = r->o[op->obj].last >= 0 ? r->o[op->obj].last : pretrace(r, op->obj);
		return r->picked[a->op] < 0 ? -ENOMEM : 0;
	case A_SNAPSHOT:
		r->snap[a->op] = r->c[op->proc];
		return 0;
	case A_STREAM_WRITE:
		return mutate(r, op, a->op, op->obj, op->s, r->c[op->proc]);
	case A_READ:
		if (op->kind == DF_OP_FORK) {
			r->c[op->child] = r->c[op->proc];
			return 0;
		}
		g = take(r, op, a->op, op->e, true);
		if (g < 0)
			return -ENOMEM;
		r->d->got[a->op] = g;
		got(r, op->proc, g, op->e);
		return 0;
	default:
		break;
	}
	if (op->kind != DF_OP_TRANSFER && op->kind != DF_OP_TEE)
		return mutate(r, op, a->op, op->obj, op->e, r->snap[a->op]);
	/* a transfer: its input, read at its start, is its only candidate besides out's previous version */
	g = take(r, op, a->op, op->e, op->kind == DF_OP_TRANSFER);
	if (g < 0)
		return -ENOMEM;
	r->d->states[g].read = true;
	r->d->got[a->op] = g;
	return mutate(r, op, a->op, op->out, op->e, (struct cand){ .s = g, .r = op->s });
}

/* The actions of op i into a (at most two). */
static size_t actions_of(const struct df_input *in, uint32_t i, struct action *a)
{
	const struct df_op *op = &in->ops[i];
	uint8_t kind = op->kind == DF_OP_FORK ? DF_EXTERNAL : in->objs[op->obj].kind;
	bool stream = kind == DF_STREAM || kind == DF_MESSAGE;

	switch (op->kind) {
	case DF_OP_READ:
		if (kind == DF_CONTENT) {
			a[0] = (struct action){ op->s, A_PICK, i };
			a[1] = (struct action){ op->e, A_READ, i };
			return 2;
		}
		a[0] = (struct action){ op->e, A_READ, i };
		return 1;
	case DF_OP_FORK:
		a[0] = (struct action){ op->s, A_READ, i };
		return 1;
	case DF_OP_TRANSFER:
	case DF_OP_TEE:
		a[0] = (struct action){ op->e, A_CREATE, i };
		return 1;
	default:
		if (stream) {
			a[0] = (struct action){ op->s, A_STREAM_WRITE, i };
			return 1;
		}
		a[0] = (struct action){ op->s, A_SNAPSHOT, i };
		a[1] = (struct action){ op->e, A_CREATE, i };
		return 2;
	}
}

/*
 * §9.4 pass 1: each stream's bytes there before the recording, the least
 * that lets no read return bytes written after it ended.
 */
static void stream_fill(struct run *r, const struct action *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct df_op *op = &r->in->ops[a[i].op];
		struct obj_st *o;

		if (op->kind == DF_OP_FORK || r->in->objs[op->obj].kind != DF_STREAM)
			continue;
		o = &r->o[op->obj];
		if (a[i].cls == A_STREAM_WRITE) {
			o->wbytes += op->bytes;
		} else if ((a[i].cls == A_READ && op->kind == DF_OP_READ) ||
			   (a[i].cls == A_CREATE && op->kind == DF_OP_TRANSFER)) {
			o->rbytes += op->bytes;
			if (o->rbytes - o->wbytes > o->b0)
				o->b0 = o->rbytes - o->wbytes;
		}
	}
	for (size_t k = 0; k < r->in->nobjs; k++) {
		r->d->b0_total += r->o[k].b0;
		r->o[k].wbytes = r->o[k].rbytes = 0;
	}
}

static bool valid(const struct df_input *in)
{
	for (size_t i = 0; i < in->nops; i++) {
		const struct df_op *op = &in->ops[i];

		if (op->e < op->s || (op->kind != DF_OP_FORK && op->obj >= in->nobjs) || op->proc >= in->nprocs ||
		    ((op->kind == DF_OP_TRANSFER || op->kind == DF_OP_TEE) && op->out >= in->nobjs) ||
		    (op->kind == DF_OP_FORK && op->child >= in->nprocs))
			return false;
	}
	return true;
}

/* §9.6: the last final version of a regular file no read returned; else the last state no read returned. */
static long default_target(const struct run *r)
{
	const struct dataflow *d = r->d;
	long best = -1;

	for (int pass = 0; pass < 2 && best < 0; pass++) {
		for (size_t i = 0; i < d->nstates; i++) {
			const struct df_state *s = &d->states[i];

			if (s->read || s->kind == DF_S_PRETRACE)
				continue;
			if (!pass && (!r->in->objs[s->obj].regular || r->o[s->obj].last != (long)i))
				continue;
			if (later(d, (long)i, best))
				best = (long)i;
		}
	}
	return best;
}

int dataflow_compute(const struct df_input *in, struct dataflow *d)
{
	struct run r = { .in = in, .d = d };
	struct action *a;
	size_t n = 0;
	int err = 0;

	memset(d, 0, sizeof(*d));
	d->target = -1;
	if (!valid(in))
		return -EINVAL;
	a = malloc((2 * in->nops + 1) * sizeof(*a));
	r.o = calloc(in->nobjs + 1, sizeof(*r.o));
	r.c = malloc((in->nprocs + 1) * sizeof(*r.c));
	r.snap = malloc((in->nops + 1) * sizeof(*r.snap));
	r.picked = malloc((in->nops + 1) * sizeof(*r.picked));
	d->got = malloc((in->nops + 1) * sizeof(*d->got));
	if (!a || !r.o || !r.c || !r.snap || !r.picked || !d->got) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < in->nobjs; k++)
		r.o[k].last = r.o[k].v0 = -1;
	for (size_t k = 0; k < in->nprocs; k++)
		r.c[k] = (struct cand){ .s = -1, .r = -1 };
	for (uint32_t i = 0; i < in->nops; i++) {
		d->got[i] = -1;
		n += actions_of(in, i, a + n);
	}
	qsort(a, n, sizeof(*a), cmp_action);
	stream_fill(&r, a, n);
	for (size_t i = 0; i < n && !err; i++)
		err = act(&r, &a[i]);
	if (!err)
		d->target = default_target(&r);
out:
	for (size_t k = 0; r.o && k < in->nobjs; k++)
		free(r.o[k].w);
	free(r.o);
	free(r.c);
	free(r.snap);
	free(r.picked);
	free(a);
	if (err)
		dataflow_release(d);
	return err;
}

void dataflow_release(struct dataflow *d)
{
	free(d->states);
	free(d->got);
	memset(d, 0, sizeof(*d));
	d->target = -1;
}

int dataflow_path(const struct dataflow *d, long target, struct df_step **steps, size_t *n)
{
	size_t len = 0, k;
	struct df_step *v;

	*steps = NULL;
	*n = 0;
	if (target < 0 || (size_t)target >= d->nstates)
		return -EINVAL;
	for (long s = target; d->states[s].pred >= 0; s = d->states[s].pred)
		len++;
	v = malloc((len ? len : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	k = len;
	for (long s = target; d->states[s].pred >= 0; s = d->states[s].pred) {
		const struct df_state *to = &d->states[s], *from = &d->states[to->pred];
		int64_t r = to->pred_read_at >= 0 ? to->pred_read_at : from->t;

		v[--k] = (struct df_step){ .from = to->pred, .to = s, .waited = r - from->t, .in_process = to->t - r };
		if (v[k].in_process < 0) {	/* a transfer that overlapped its input (§9.3) */
			v[k].in_process = 0;
		}
	}
	*steps = v;
	*n = len;
	return 0;
}
