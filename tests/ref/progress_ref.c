// SPDX-License-Identifier: MIT
/* The progress graph instant by instant: see progress_ref.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "progress_ref.h"

enum { R_GO, R_BLOCKED, R_OPEN, R_EXITED };

/* What thread x does at instant t: R_*, with the gap it is in (*gap: its start) and its wakeup. */
static int state_at(const struct pg_thread_in *x, int64_t t, int64_t t_end, int64_t *gap, int64_t *wake,
		    int64_t *next)
{
	int64_t gs = x->origin, ge = t_end;
	uint8_t prev = PG_END_WAIT;

	for (size_t i = 0; i < x->nruns; i++) {
		if (x->runs[i].s <= t && t < x->runs[i].e)
			return R_GO;
		if (x->runs[i].e <= t) {
			gs = x->runs[i].e;
			prev = x->runs[i].end;
			if (prev == PG_END_EXIT) {
				*gap = gs;
				return R_EXITED;
			}
		}
	}
	for (size_t i = 0; i < x->nruns; i++) {
		if (x->runs[i].s > t) {
			ge = x->runs[i].s;
			break;
		}
	}
	*gap = gs;
	*next = ge;
	if (prev != PG_END_WAIT)
		return R_GO;
	for (size_t i = 0; i < x->nwakes; i++) {
		if (x->wakes[i].t < gs || x->wakes[i].t > ge)
			continue;
		*wake = x->wakes[i].t;
		return x->wakes[i].by_partner && t < x->wakes[i].t ? R_BLOCKED : R_GO;
	}
	return ge == t_end ? R_OPEN : R_GO;
}

static const struct pg_call *call_at(const struct pg_thread_in *x, int64_t t)
{
	for (size_t i = 0; i < x->ncalls; i++)
		if (x->calls[i].s <= t && t <= x->calls[i].e)
			return &x->calls[i];
	return NULL;
}

struct inst {
	int st[2];
	int64_t gap[2], wake[2], next[2];
};

static bool same_label(const struct pg_block *a, const struct pg_block *b)
{
	return a->thread == b->thread && a->nr == b->nr && a->arg0 == b->arg0 && a->waker_nr == b->waker_nr;
}

static bool match(const struct pg_block *a, const struct pg_block *b)
{
	return same_label(a, b) && progress_close(a->q2, b->q2) && progress_close(a->q3, b->q3);
}

static int cmp64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

static int64_t med(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp64);
	return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

/* The median of the blocks' field f over positions pos, pos + k, ... of [j, end). */
static int64_t med_field(const struct pg_block *b, size_t j, size_t end, size_t k, size_t pos, int64_t *v, int f)
{
	size_t n = 0;

	for (size_t i = j + pos; i < end; i += k)
		v[n++] = f ? b[i].q2 : b[i].q3;
	return med(v, n);
}

/* The median step of field f (0 s, 1 x, 2 y) from one repetition to the next within [j, end). */
static int64_t med_step(const struct pg_block *b, size_t j, size_t end, size_t k, int64_t *v, int f)
{
	size_t n = 0;

	for (size_t i = j; i + k < end; i += k)
		v[n++] = f == 0 ? b[i + k].s - b[i].s : f == 1 ? b[i + k].x - b[i].x : b[i + k].y - b[i].y;
	return med(v, n);
}

/* A position of the pattern as a block, to match it as blocks are matched. */
static struct pg_block as_block(const struct pg_pattern *pt)
{
	return (struct pg_block){ .thread = pt->thread, .nr = pt->nr, .arg0 = pt->arg0, .waker_nr = pt->waker_nr,
				  .q2 = pt->q2, .q3 = pt->q3 };
}

/* The cycle of k blocks over the blocks [j, end) of b: pattern, repetitions, period, advance. */
static void ref_describe(struct progress *p, const struct pg_block *b, size_t k, size_t j, size_t end, int64_t *v)
{
	p->cycle.state = PG_CYCLE_FOUND;
	p->cycle.first = j;
	p->cycle.k = k;
	p->cycle.reps = (end - j) / k;
	for (size_t pos = 0; pos < k; pos++) {
		struct pg_pattern *pt = &p->cycle.pat[pos];

		pt->thread = b[j + pos].thread;
		pt->nr = b[j + pos].nr;
		pt->arg0 = b[j + pos].arg0;
		pt->waker_nr = b[j + pos].waker_nr;
		pt->q3 = med_field(b, j, end, k, pos, v, 0);
		pt->q2 = med_field(b, j, end, k, pos, v, 1);
	}
	p->cycle.period = med_step(b, j, end, k, v, 0);
	p->cycle.adv_x = med_step(b, j, end, k, v, 1);
	p->cycle.adv_y = med_step(b, j, end, k, v, 2);
}

/*
 * The cycle of §8.5 as amended, by trying every k and every stretch
 * [j, end): for each k the longest in which every block matches the one k
 * later (ties: the latest).
 */
static void ref_cycle(struct progress *p)
{
	size_t m = p->ncomplete, best_pairs = 0, best_k = 0, best_j = 0, best_end = 0;
	struct pg_block *b = malloc((m ? m : 1) * sizeof(*b));
	int64_t *v = malloc((m ? m : 1) * sizeof(*v));

	for (size_t i = 0; i < m; i++)
		b[i] = p->blocks[p->complete[i]];
	if (!p->nblocks || 2 * p->q3_trailing >= p->t_end - p->t0) {
		p->cycle.state = PG_CYCLE_NONBLOCKING;
		goto out;
	}
	p->cycle.state = PG_CYCLE_NONE;
	for (size_t k = 1; k <= 16 && k * 3 <= m; k++) {
		size_t bj = 0, bend = 0;

		for (size_t j = 0; j < m; j++) {
			for (size_t end = j + 1; end <= m; end++) {
				bool all = true;

				for (size_t i = j; i + k < end && all; i++)
					all = match(&b[i], &b[i + k]);
				if (all && end - j >= bend - bj) {
					bj = j;
					bend = end;
				}
			}
		}
		/* R cycles; of those k, the most blocks matching the one a cycle later (ties: the smaller k) */
		if (bend - bj < 3 * k || (best_k && bend - bj - k <= best_pairs))
			continue;
		best_pairs = bend - bj - k;
		best_k = k;
		best_j = bj;
		best_end = bend;
	}
	if (!best_k)
		goto out;
	ref_describe(p, b, best_k, best_j, best_end, v);
	/* a multiple of a smaller cycle is that cycle */
	for (size_t d = 1; d < best_k; d++) {
		bool same = best_k % d == 0;

		for (size_t pos = d; pos < best_k && same; pos++) {
			struct pg_block x = as_block(&p->cycle.pat[pos]), y = as_block(&p->cycle.pat[pos % d]);

			same = match(&x, &y);
		}
		if (same) {
			memset(&p->cycle, 0, sizeof(p->cycle));
			ref_describe(p, b, d, best_j, best_end, v);
			break;
		}
	}
out:
	free(b);
	free(v);
}

int progress_ref_compute(const struct pg_input *in, int64_t tick, struct progress *p)
{
	int64_t t0 = in->th[0].origin > in->th[1].origin ? in->th[0].origin : in->th[1].origin;
	size_t nt = (size_t)((in->t_end - t0) / tick), cap = 2 * nt + 2;
	struct inst prev = { .st = { -1, -1 } }, cur;
	int64_t x, y, d_at_block = 0;
	int64_t *bgap[2];
	size_t nb[2] = { 0, 0 };

	memset(p, 0, sizeof(*p));
	p->t0 = t0;
	p->t_end = in->t_end;
	p->gx = x = t0 - in->th[0].origin;
	p->gy = y = t0 - in->th[1].origin;
	p->dead_at = -1;
	p->rays = calloc(cap, sizeof(*p->rays));
	p->blocks = calloc(cap, sizeof(*p->blocks));
	p->complete = calloc(cap, sizeof(*p->complete));
	bgap[0] = calloc(cap, sizeof(int64_t));
	bgap[1] = calloc(cap, sizeof(int64_t));
	if (!p->rays || !p->blocks || !p->complete || !bgap[0] || !bgap[1])
		return -ENOMEM;
	for (size_t k = 0; k < nt; k++) {
		int64_t t = t0 + (int64_t)k * tick;
		bool go[2], fresh;
		uint8_t kind;
		struct pg_ray *r;

		for (int u = 0; u < 2; u++) {
			cur.wake[u] = cur.next[u] = 0;
			cur.st[u] = state_at(&in->th[u], t, in->t_end, &cur.gap[u], &cur.wake[u], &cur.next[u]);
			go[u] = cur.st[u] == R_GO;
		}
		/* a block starts where a thread first stands still in a gap */
		for (int u = 0; u < 2; u++) {
			bool seen = false;

			if (cur.st[u] != R_BLOCKED && cur.st[u] != R_OPEN)
				continue;
			for (size_t i = 0; i < nb[u]; i++)
				seen |= bgap[u][i] == cur.gap[u];
			if (seen)
				continue;
			bgap[u][nb[u]++] = cur.gap[u];
			{
				struct pg_block *b = &p->blocks[p->nblocks++];
				const struct pg_call *c = call_at(&in->th[u], t);

				b->thread = u;
				b->open = cur.st[u] == R_OPEN;
				b->s = t;
				b->w = b->open ? in->t_end : cur.wake[u];
				b->q2 = b->w - t;
				b->latency = b->open ? 0 : cur.next[u] - cur.wake[u];
				b->x = x;
				b->y = y;
				b->q3 = p->d_ns - d_at_block;
				d_at_block = p->d_ns;
				b->nr = c ? c->nr : -1;
				b->arg0 = c ? c->arg0 : 0;
				c = b->open ? NULL : call_at(&in->th[!u], b->w);
				b->waker_nr = c ? c->nr : -1;
			}
		}
		if (go[0] && go[1])
			kind = PG_RAY_D;
		else if (go[0] != go[1])
			kind = cur.st[go[0] ? 1 : 0] == R_EXITED ? PG_RAY_X : go[0] ? PG_RAY_H : PG_RAY_V;
		else
			kind = PG_RAY_S;
		fresh = !p->nrays || p->rays[p->nrays - 1].kind != kind;
		for (int u = 0; u < 2 && !fresh; u++)
			fresh = (cur.st[u] != prev.st[u]) || (!go[u] && cur.gap[u] != prev.gap[u]);
		if (fresh) {
			r = &p->rays[p->nrays++];
			*r = (struct pg_ray){ .t0 = t, .x0 = x, .y0 = y, .kind = kind, .block = UINT32_MAX };
			r->open = (kind == PG_RAY_H && cur.st[1] == R_OPEN) || (kind == PG_RAY_V && cur.st[0] == R_OPEN);
			if (kind == PG_RAY_H || kind == PG_RAY_V)
				r->block = p->nblocks - 1;	/* placeholder: compared by kind only */
			if (kind == PG_RAY_S) {
				r->dead = cur.st[0] != R_BLOCKED && cur.st[1] != R_BLOCKED;
				if (r->dead && p->dead_at < 0) {
					p->dead_at = t;
					p->deadlock = cur.st[0] == R_OPEN && cur.st[1] == R_OPEN;
				}
				if (!r->dead)
					p->anomalies++;
			}
		}
		r = &p->rays[p->nrays - 1];
		x += go[0] ? tick : 0;
		y += go[1] ? tick : 0;
		r->t1 = t + tick;
		r->x1 = x;
		r->y1 = y;
		if (kind == PG_RAY_D)
			p->d_ns += tick;
		if (kind == PG_RAY_S && !r->dead)
			p->anomaly_ns += tick;
		prev = cur;
	}
	p->q3_trailing = p->d_ns - d_at_block;
	for (size_t i = 0; i < p->nblocks; i++)
		if (!p->blocks[i].open)
			p->complete[p->ncomplete++] = i;
	free(bgap[0]);
	free(bgap[1]);
	ref_cycle(p);
	return 0;
}
