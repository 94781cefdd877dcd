// SPDX-License-Identifier: MIT
/*
 * The steady cycle of a real trajectory, the limit cycle of the paper found
 * with a tolerance (docs/ALGORITHMS.md §8.5), and the departures from it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "stats/quartiles.h"

bool progress_close(int64_t a, int64_t b)
{
	int64_t hi = a > b ? a : b, d = a > b ? a - b : b - a;
	double tol = PG_REL_TOL * (double)hi;

	return d <= PG_ABS_TOL || (double)d <= tol;
}

static bool same_label(const struct pg_block *a, const struct pg_block *b)
{
	return a->thread == b->thread && a->nr == b->nr && a->arg0 == b->arg0 && a->waker_nr == b->waker_nr;
}

/* match(i, j) of §8.5 on complete blocks i and j. */
static bool match(const struct progress *p, size_t i, size_t j)
{
	const struct pg_block *a = &p->blocks[p->complete[i]], *b = &p->blocks[p->complete[j]];

	return same_label(a, b) && progress_close(a->q2, b->q2) && progress_close(a->q3, b->q3);
}

static bool match_pattern(const struct pg_block *b, const struct pg_pattern *pt)
{
	return b->thread == pt->thread && b->nr == pt->nr && b->arg0 == pt->arg0 && b->waker_nr == pt->waker_nr &&
	       progress_close(b->q2, pt->q2) && progress_close(b->q3, pt->q3);
}

/* The median of v[0..n) as §3 takes it (the middle pair averaged), in whole ns. */
static int64_t median(int64_t *v, size_t n)
{
	struct quartiles q;

	if (!n || quartiles_compute_inplace(v, n, &q))
		return 0;
	return q.median_lo + (q.median_hi - q.median_lo) / 2;
}

/*
 * The longest stretch of complete blocks [*j, *end) that repeats with k
 * blocks per cycle (match(i, i + k) for every i with i + k in it; ties:
 * the latest, §8.5 point 3 as amended there): true if it holds R cycles.
 */
static bool cycle_stretch(const struct progress *p, size_t k, size_t *j, size_t *end)
{
	size_t m = p->ncomplete, a = 0, best = 0;

	for (size_t i = 0; i + k <= m; i++) {
		/* the stretch [a, i + k) holds if every pair in it matches */
		if (i + k < m && match(p, i, i + k))
			continue;
		if (i + k - a >= best) {
			best = i + k - a;
			*j = a;
			*end = i + k;
		}
		a = i + 1;
	}
	return best >= PG_REPEATS * k;
}

/*
 * The median step of an int64 field of the blocks (offset off) from one
 * repetition's first block to the next's, within [j, end); v has room for
 * the steps.
 */
static int64_t step_median(const struct progress *p, size_t j, size_t end, size_t k, int64_t *v, size_t off)
{
	size_t n = 0;

	for (size_t i = j; i + k < end; i += k) {
		const char *a = (const char *)&p->blocks[p->complete[i]];
		const char *b = (const char *)&p->blocks[p->complete[i + k]];
		int64_t va, vb;

		memcpy(&va, a + off, sizeof(va));
		memcpy(&vb, b + off, sizeof(vb));
		v[n++] = vb - va;
	}
	return median(v, n);
}

/* The pattern, repetitions, period, advance and shares of the accepted cycle: k blocks over [j, end). */
static int describe(struct progress *p, size_t k, size_t j, size_t end)
{
	struct pg_cycle *c = &p->cycle;
	size_t n = (end - j) / k + 1;
	int64_t *v = malloc(n * sizeof(*v));

	if (!v)
		return -ENOMEM;
	c->state = PG_CYCLE_FOUND;
	c->first = j;
	c->k = k;
	c->reps = (end - j) / k;
	for (size_t pos = 0; pos < k; pos++) {
		const struct pg_block *b = &p->blocks[p->complete[j + pos]];
		struct pg_pattern *pt = &c->pat[pos];
		size_t cnt = 0;

		pt->thread = b->thread;
		pt->nr = b->nr;
		pt->arg0 = b->arg0;
		pt->waker_nr = b->waker_nr;
		for (size_t i = j + pos; i < end; i += k)
			v[cnt++] = p->blocks[p->complete[i]].q3;
		pt->q3 = median(v, cnt);
		cnt = 0;
		for (size_t i = j + pos; i < end; i += k)
			v[cnt++] = p->blocks[p->complete[i]].q2;
		pt->q2 = median(v, cnt);
	}
	c->period = step_median(p, j, end, k, v, offsetof(struct pg_block, s));
	c->adv_x = step_median(p, j, end, k, v, offsetof(struct pg_block, x));
	c->adv_y = step_median(p, j, end, k, v, offsetof(struct pg_block, y));
	for (size_t pos = 0; pos < k; pos++)
		if (c->period > 0)
			c->blocked_share[c->pat[pos].thread] += (double)c->pat[pos].q2 / c->period;
	free(v);
	return 0;
}

/* Is the cycle's pattern its first d positions repeated (a multiple of the cycle of d blocks)? */
static bool repeats(const struct pg_cycle *c, size_t d)
{
	for (size_t pos = d; pos < c->k; pos++) {
		const struct pg_pattern *a = &c->pat[pos], *b = &c->pat[pos % d];

		if (a->thread != b->thread || a->nr != b->nr || a->arg0 != b->arg0 || a->waker_nr != b->waker_nr ||
		    !progress_close(a->q2, b->q2) || !progress_close(a->q3, b->q3))
			return false;
	}
	return true;
}

static int dep_push(struct progress *p, size_t *cap, const struct pg_departure *d)
{
	if (p->ndep == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct pg_departure *v = realloc(p->dep, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->dep = v;
		*cap = nc;
	}
	p->dep[p->ndep++] = *d;
	return 0;
}

/*
 * Every complete block against the cycle's block expected at its place:
 * a run of blocks that do not match is one departure. The place moves on
 * with each block; after a block that does not match, to the one after
 * the cycle's block it does look like (a phase slip: an extra or a
 * missing block), if any.
 */
static int departures(struct progress *p)
{
	const struct pg_cycle *c = &p->cycle;
	size_t k = c->k, pos = (k - c->first % k) % k, cap = 0;
	struct pg_departure d;
	bool open = false;
	int64_t worst = 0;

	for (size_t i = 0; i < p->ncomplete; i++) {
		const struct pg_block *b = &p->blocks[p->complete[i]];
		const struct pg_pattern *pt = &c->pat[pos];
		bool labelled = b->thread == pt->thread && b->nr == pt->nr && b->arg0 == pt->arg0 &&
				b->waker_nr == pt->waker_nr;
		int64_t ex;

		if (match_pattern(b, pt)) {
			if (open && dep_push(p, &cap, &d))
				return -ENOMEM;
			open = false;
			pos = (pos + 1) % k;
			continue;
		}
		if (!open) {
			memset(&d, 0, sizeof(d));
			d.first = i;
			d.start = b->s;
			d.actor = -1;
			worst = INT64_MIN;
			open = true;
		}
		d.last = i;
		d.end = b->w;
		/* the first block's Q3 counts from T0, the threads' set-up: not the cycle's */
		d.excess += b->q2 - pt->q2 + (p->complete[i] ? b->q3 - pt->q3 : 0);
		ex = labelled ? b->q2 - pt->q2 : b->q2;
		if (ex > worst) {
			worst = ex;
			d.worst = i;
			d.worst_expect = labelled ? pt->q2 : -1;
		}
		pos = (pos + 1) % k;
		for (size_t q = 0; q < k; q++) {
			if (match_pattern(b, &c->pat[q])) {
				pos = (q + 1) % k;
				break;
			}
		}
	}
	if (open && dep_push(p, &cap, &d))
		return -ENOMEM;
	p->cycle.follow = p->ncomplete;
	for (size_t i = 0; i < p->ndep; i++)
		p->cycle.follow -= p->dep[i].last - p->dep[i].first + 1;
	return 0;
}

int cycle_find(struct progress *p)
{
	size_t m = p->ncomplete, kmax = m / PG_REPEATS, bk = 0, bj = 0, bend = 0;
	int err;

	memset(&p->cycle, 0, sizeof(p->cycle));
	if (!p->nblocks || 2 * p->q3_trailing >= p->t_end - p->t0) {
		p->cycle.state = PG_CYCLE_NONBLOCKING;
		return 0;
	}
	p->cycle.state = PG_CYCLE_NONE;
	if (kmax > PG_MAX_K)
		kmax = PG_MAX_K;
	/* the k whose stretch has the most blocks matching the one a cycle later; ties: the smaller k */
	for (size_t k = 1; k <= kmax; k++) {
		size_t j, end;

		if (cycle_stretch(p, k, &j, &end) && (!bk || end - j - k > bend - bj - bk)) {
			bk = k;
			bj = j;
			bend = end;
		}
	}
	if (!bk)
		return 0;
	err = describe(p, bk, bj, bend);
	for (size_t d = 1; !err && d < bk; d++) {
		if (bk % d || !repeats(&p->cycle, d))
			continue;
		memset(&p->cycle, 0, sizeof(p->cycle));
		err = describe(p, d, bj, bend);
		break;
	}
	return err ? err : departures(p);
}
