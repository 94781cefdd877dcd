// SPDX-License-Identifier: MIT
/*
 * The two threads swept together (docs/ALGORITHMS.md §8.3-8.4): the rays
 * of the trajectory, the blocks with their points, labels and Q3, the
 * dead point and the anomalies.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Clips a thread's rate-0 intervals to [t0, t_end) in place; empty ones go. */
static size_t clip(struct pg_zero *z, size_t n, int64_t t0, int64_t t_end)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		struct pg_zero c = z[i];

		if (c.s < t0)
			c.s = t0;
		if (c.e > t_end)
			c.e = t_end;
		if (c.s < c.e)
			z[k++] = c;
	}
	return k;
}

/* The interval of z covering t (*in) or the next one's start; *i moves forward only. */
static int64_t next_edge(const struct pg_zero *z, size_t n, size_t *i, int64_t t, bool *in)
{
	while (*i < n && z[*i].e <= t)
		(*i)++;
	*in = *i < n && z[*i].s <= t;
	if (*in)
		return z[*i].e;
	return *i < n ? z[*i].s : INT64_MAX;
}

/*
 * How many of the n elements of `size` bytes at base, sorted by the int64
 * at byte offset off, have it at or before t: calls by start, rays by t0.
 */
static size_t count_upto(const void *base, size_t n, size_t size, size_t off, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t v;

		memcpy(&v, (const char *)base + mid * size + off, sizeof(v));
		if (v <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The call of c[0..n) (by start) in progress at t (start <= t <= end), or NULL. */
static const struct pg_call *call_at(const struct pg_call *c, size_t n, int64_t t)
{
	size_t k = count_upto(c, n, sizeof(*c), offsetof(struct pg_call, s), t);

	return k && c[k - 1].e >= t ? &c[k - 1] : NULL;
}

static bool is_block(const struct pg_zero *z)
{
	return z->kind == PG_Z_BLOCKED || z->kind == PG_Z_OPEN;
}

/*
 * The blocks of both threads by start (ties: x first), labelled; bi[t][i]
 * is the block of thread t's rate-0 interval i (UINT32_MAX: an exit).
 */
static int make_blocks(const struct pg_input *in, struct pg_zero *const z[2], const size_t nz[2],
		       uint32_t *bi[2], struct progress *p)
{
	size_t n = 0, i[2] = { 0, 0 };

	for (int t = 0; t < 2; t++)
		for (size_t k = 0; k < nz[t]; k++)
			n += is_block(&z[t][k]);
	p->blocks = calloc(n ? n : 1, sizeof(*p->blocks));
	p->complete = malloc((n ? n : 1) * sizeof(*p->complete));
	if (!p->blocks || !p->complete)
		return -ENOMEM;
	for (;;) {
		int t;

		for (int u = 0; u < 2; u++)
			while (i[u] < nz[u] && !is_block(&z[u][i[u]]))
				bi[u][i[u]++] = UINT32_MAX;
		if (i[0] == nz[0] && i[1] == nz[1])
			break;
		t = i[1] == nz[1] || (i[0] < nz[0] && z[0][i[0]].s <= z[1][i[1]].s) ? 0 : 1;
		{
			const struct pg_zero *zz = &z[t][i[t]];
			struct pg_block *b = &p->blocks[p->nblocks];
			const struct pg_thread_in *me = &in->th[t], *other = &in->th[!t];
			const struct pg_call *c = call_at(me->calls, me->ncalls, zz->s);

			b->thread = t;
			b->open = zz->kind == PG_Z_OPEN;
			b->s = zz->s;
			b->w = zz->e;
			b->q2 = zz->e - zz->s;
			b->latency = b->open ? 0 : zz->latency;
			b->nr = c ? c->nr : -1;
			b->arg0 = c ? c->arg0 : 0;
			c = b->open ? NULL : call_at(other->calls, other->ncalls, zz->e);
			b->waker_nr = c ? c->nr : -1;
			if (b->open) {
				p->th[t].open_ns += b->q2;
			} else {
				p->th[t].blocked_ns += b->q2;
				p->th[t].nblocks++;
				p->complete[p->ncomplete++] = p->nblocks;
			}
			bi[t][i[t]++] = p->nblocks++;
		}
	}
	return 0;
}

struct raybuf {
	struct progress *p;
	size_t cap;
	int64_t *cum_d;		/* D time before each ray's start */
	long cause[2];		/* the last ray's rate-0 intervals, -1: none */
};

static int ray_push(struct raybuf *rb, const struct pg_ray *r, const long cause[2])
{
	struct progress *p = rb->p;

	if (p->nrays && p->rays[p->nrays - 1].kind == r->kind && rb->cause[0] == cause[0] &&
	    rb->cause[1] == cause[1]) {
		struct pg_ray *last = &p->rays[p->nrays - 1];

		last->t1 = r->t1;
		last->x1 = r->x1;
		last->y1 = r->y1;
		return 0;
	}
	if (p->nrays == rb->cap) {
		size_t cap = rb->cap ? rb->cap * 2 : 64;
		struct pg_ray *v = realloc(p->rays, cap * sizeof(*v));
		int64_t *d;

		if (!v)
			return -ENOMEM;
		p->rays = v;
		d = realloc(rb->cum_d, cap * sizeof(*d));
		if (!d)
			return -ENOMEM;
		rb->cum_d = d;
		rb->cap = cap;
	}
	rb->cum_d[p->nrays] = p->d_ns;
	p->rays[p->nrays++] = *r;
	rb->cause[0] = cause[0];
	rb->cause[1] = cause[1];
	return 0;
}

/* The kind of an elementary interval where thread `who` alone stands still. */
static uint8_t one_still(const struct pg_zero *z, int who, bool *open)
{
	*open = z->kind == PG_Z_OPEN;
	if (z->kind == PG_Z_EXITED)
		return PG_RAY_X;
	return who == 0 ? PG_RAY_V : PG_RAY_H;
}

/* Neither progresses: a dead point (both wait for ever, or an exit), else an anomaly. */
static void both_still(const struct pg_zero *a, const struct pg_zero *b, struct pg_ray *r,
		       struct progress *p)
{
	bool dead = (a->kind != PG_Z_BLOCKED) && (b->kind != PG_Z_BLOCKED);

	r->dead = dead;
	if (dead) {
		if (p->dead_at < 0) {
			p->dead_at = r->t0;
			p->deadlock = a->kind == PG_Z_OPEN && b->kind == PG_Z_OPEN;
		}
	} else {
		p->anomalies++;
		p->anomaly_ns += r->t1 - r->t0;
	}
}

static int sweep_rays(struct pg_zero *const z[2], const size_t nz[2], uint32_t *const bi[2],
		      struct raybuf *rb)
{
	struct progress *p = rb->p;
	int64_t t = p->t0, x = p->gx, y = p->gy;
	size_t i[2] = { 0, 0 };

	rb->cause[0] = rb->cause[1] = -2;
	while (t < p->t_end) {
		bool in[2];
		int64_t na = next_edge(z[0], nz[0], &i[0], t, &in[0]);
		int64_t nb = next_edge(z[1], nz[1], &i[1], t, &in[1]);
		int64_t nx = p->t_end < na ? p->t_end : na, dt;
		struct pg_ray r = { .t0 = t, .x0 = x, .y0 = y, .block = UINT32_MAX };
		long cause[2] = { in[0] ? (long)i[0] : -1, in[1] ? (long)i[1] : -1 };
		int err;

		if (nb < nx)
			nx = nb;
		dt = nx - t;
		r.t1 = nx;
		x += in[0] ? 0 : dt;
		y += in[1] ? 0 : dt;
		r.x1 = x;
		r.y1 = y;
		if (!in[0] && !in[1]) {
			r.kind = PG_RAY_D;
		} else if (in[0] != in[1]) {
			int who = in[0] ? 0 : 1;

			r.kind = one_still(&z[who][i[who]], who, &r.open);
			r.block = bi[who][i[who]];
		} else {
			r.kind = PG_RAY_S;
			both_still(&z[0][i[0]], &z[1][i[1]], &r, p);
		}
		err = ray_push(rb, &r, cause);
		if (err)
			return err;
		if (r.kind == PG_RAY_D)
			p->d_ns += dt;
		t = nx;
	}
	return 0;
}

/* The last ray starting at or before t. */
static size_t ray_at(const struct progress *p, int64_t t)
{
	size_t k = count_upto(p->rays, p->nrays, sizeof(*p->rays), offsetof(struct pg_ray, t0), t);

	return k ? k - 1 : 0;
}

/* Each block's point and Q3 (both progressing since the previous block's start). */
static void place_blocks(struct progress *p, const int64_t *cum_d)
{
	int64_t prev = 0, d = 0;

	for (size_t k = 0; k < p->nblocks && p->nrays; k++) {
		struct pg_block *b = &p->blocks[k];
		size_t r = ray_at(p, b->s);
		const struct pg_ray *ray = &p->rays[r];
		int64_t dt = b->s - ray->t0;

		b->x = ray->x0 + (ray->x1 != ray->x0 ? dt : 0);
		b->y = ray->y0 + (ray->y1 != ray->y0 ? dt : 0);
		d = cum_d[r] + (ray->kind == PG_RAY_D ? dt : 0);
		b->q3 = d - prev;
		prev = d;
	}
	p->q3_trailing = p->d_ns - prev;
}

int sweep_build(const struct pg_input *in, struct pg_zero *const z[2], const size_t nz0[2],
		struct progress *p)
{
	struct raybuf rb = { .p = p };
	uint32_t *bi[2];
	size_t nz[2];
	int err = -ENOMEM;

	for (int t = 0; t < 2; t++)
		nz[t] = clip(z[t], nz0[t], p->t0, p->t_end);
	bi[0] = malloc((nz[0] ? nz[0] : 1) * sizeof(*bi[0]));
	bi[1] = malloc((nz[1] ? nz[1] : 1) * sizeof(*bi[1]));
	if (bi[0] && bi[1])
		err = make_blocks(in, z, nz, bi, p);
	if (!err)
		err = sweep_rays(z, nz, bi, &rb);
	if (!err)
		place_blocks(p, rb.cum_d);
	free(rb.cum_d);
	free(bi[0]);
	free(bi[1]);
	return err;
}
