// SPDX-License-Identifier: MIT
/*
 * Precedence-graph reconstruction (Hendriks & Vaandrager Alg. 2-4 with the
 * decisions of docs/ALGORITHMS.md §5.4): the sorted scan, and edges added
 * to a built graph. The two orders it scans are made in prec_sort.c.
 *
 * The sorted scan works per target instead of per source: the predecessors
 * of t' are the tasks whose end lies in [s(t') - eps, s(t')]. With the tasks
 * also sorted by end, that window is found by two pointers that only move
 * forward while the targets go through the (start, end, id) order, and every
 * task inside it is a candidate. So the scan touches exactly the candidate
 * pairs, and the edges come out grouped by target, which is the CSR layout
 * Algorithm 1 wants (no transpose, no second copy of the edges). A first pass
 * counts the candidates per target, so the edge budget is checked before any
 * edge memory exists and every target gets its slots up front.
 */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lib/workq.h"

/* Relative times (x - t0) and eps stay below this, so sums of a few never overflow. */
#define TIME_MAX (INT64_MAX / 4)

_Static_assert(PREC_MAX_JOBS <= WORKQ_MAX_JOBS, "one thread per share");

/* Below this many tasks a second thread costs more than it saves. */
#define PREC_PARALLEL_MIN 65536

int prec_validate(const struct prec_task *tasks, size_t n, const struct prec_opts *opts, struct build_ctx *bc)
{
	static const struct prec_opts defaults;
	int64_t lo = INT64_MAX;

	if (!opts)
		opts = &defaults;
	if (n > PREC_MAX_TASKS)
		return -E2BIG;
	if (n && !tasks)
		return -EINVAL;
	if (opts->eps_ns < 0 || opts->eps_ns > TIME_MAX)
		return -EINVAL;
	if (opts->jobs < 0 || opts->jobs > PREC_MAX_JOBS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (tasks[i].end_ns < tasks[i].start_ns)
			return -EINVAL;
		if (tasks[i].start_ns < lo)
			lo = tasks[i].start_ns;
	}
	bc->t0 = opts->has_origin ? opts->origin_ns : (n ? lo : 0);
	for (size_t i = 0; i < n; i++) {
		int64_t rel;

		if (tasks[i].start_ns < bc->t0)
			return -EINVAL;
		if (__builtin_sub_overflow(tasks[i].end_ns, bc->t0, &rel) ||
		    rel > TIME_MAX)
			return -EINVAL;
	}
	bc->tasks = tasks;
	bc->lean = opts->lean;
	bc->n = (uint32_t)n;
	bc->eps = opts->eps_ns;
	bc->jobs = opts->jobs > 1 && n >= PREC_PARALLEL_MIN ? opts->jobs : 1;
	bc->max_edges = opts->max_edges ? opts->max_edges :
					  PREC_DEFAULT_MAX_EDGES(n);
	if (bc->max_edges > PREC_MAX_EDGES)
		bc->max_edges = PREC_MAX_EDGES;
	return 0;
}

/*
 * Moves the window [*lo, *hi) of byend over the tasks with a relative end in
 * [rs - eps, rs]. rs never decreases from one call to the next.
 */
static inline void window(const struct build_ctx *bc, const uint32_t *byend,
			  int64_t rs, uint32_t *lo, uint32_t *hi)
{
	while (*lo < bc->n && prec_rel_end(bc, byend[*lo]) < rs - bc->eps)
		(*lo)++;
	if (*hi < *lo)
		*hi = *lo;
	while (*hi < bc->n && prec_rel_end(bc, byend[*hi]) <= rs)
		(*hi)++;
}

/* Where the window starts for a scan that begins at the target with start rs. */
static uint32_t window_start(const struct build_ctx *bc, const uint32_t *byend, int64_t rs)
{
	uint32_t lo = 0, hi = bc->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (prec_rel_end(bc, byend[mid]) < rs - bc->eps)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * One thread's share of a scan: the targets at order positions [p0, p1).
 * Pass 1 (g NULL) counts their candidates into cap[] (by id) when cap is
 * given; pass 2 writes their edges into their slots. Each target's slots
 * and cap[] entry are its own, so the shares run side by side.
 */
struct scan_part {
	const struct build_ctx *bc;
	const struct prec_opts *opts;
	void *ctx;		/* the hook's */
	const uint32_t *order, *byend;
	uint32_t *cap;
	struct prec_graph *g;
	uint32_t p0, p1;
	uint64_t total;		/* pass 1: candidates; pass 2: edges kept */
	int err;
};

/* A zero-duration target lies in its own window; it is not counted. */
static void count_part(struct scan_part *sp)
{
	const struct build_ctx *bc = sp->bc;
	uint32_t lo, hi;

	if (sp->p0 >= sp->p1)
		return;
	lo = hi = window_start(bc, sp->byend, prec_rel_start(bc, sp->order[sp->p0]));
	for (uint32_t p = sp->p0; p < sp->p1; p++) {
		uint32_t v = sp->order[p];
		int64_t rs = prec_rel_start(bc, v);
		uint64_t c;

		window(bc, sp->byend, rs, &lo, &hi);
		c = hi - lo;
		if (prec_rel_end(bc, v) == rs)
			c--;
		c += prec_has_init(bc, rs);
		sp->total += c;
		if (sp->cap)
			sp->cap[v] = (uint32_t)(c > UINT32_MAX ? UINT32_MAX : c);
	}
}

void prec_graph__free(struct prec_graph *g)
{
	if (!g)
		return;
	free(g->dur);
	free(g->order);
	free(g->pred_off);
	free(g->pred);
	free(g->lag);
	free(g->kind);
	free(g->cat);
	free(g);
}

int prec_graph__alloc_edges(struct prec_graph *g, uint64_t m)
{
	size_t k = m ? (size_t)m : 1;

	g->pred = malloc(k * sizeof(*g->pred));
	g->lag = g->tasks ? NULL : malloc(k * sizeof(*g->lag));
	g->kind = malloc(k);
	g->cat = malloc(k);
	if (!g->pred || (!g->tasks && !g->lag) || !g->kind || !g->cat)
		return -ENOMEM;
	return 0;
}

/* Gives the unused tail of the edge arrays back. */
static void shrink_edges(struct prec_graph *g, uint64_t m)
{
	size_t k = m ? (size_t)m : 1;
	void *p;

	if ((p = realloc(g->pred, k * sizeof(*g->pred))))
		g->pred = p;
	if (g->lag && (p = realloc(g->lag, k * sizeof(*g->lag))))
		g->lag = p;
	if ((p = realloc(g->kind, k)))
		g->kind = p;
	if ((p = realloc(g->cat, k)))
		g->cat = p;
}

/*
 * Moves c edges from index src to index dst (the ranges may overlap). A
 * target has a few edges, and the compaction and add_edges move every
 * target's: four memmove calls each cost more than the copying (a tenth
 * of a storm's graph build). Copying in the direction of the move keeps
 * overlapping ranges right.
 */
static void move_edges(struct prec_graph *g, uint32_t dst, uint32_t src, uint32_t c)
{
	if (dst < src) {
		for (uint32_t i = 0; i < c; i++) {
			g->pred[dst + i] = g->pred[src + i];
			if (g->lag)
				g->lag[dst + i] = g->lag[src + i];
			g->kind[dst + i] = g->kind[src + i];
			g->cat[dst + i] = g->cat[src + i];
		}
	} else if (dst > src) {
		for (uint32_t i = c; i-- > 0;) {
			g->pred[dst + i] = g->pred[src + i];
			if (g->lag)
				g->lag[dst + i] = g->lag[src + i];
			g->kind[dst + i] = g->kind[src + i];
			g->cat[dst + i] = g->cat[src + i];
		}
	}
}

void prec_graph__count_kinds(struct prec_graph *g)
{
	g->n_exact = g->n_gap = g->n_init = 0;
	for (uint32_t e = 0; e < g->n_edges; e++) {
		switch (g->kind[e]) {
		case PREC_EDGE_EXACT:
			g->n_exact++;
			break;
		case PREC_EDGE_GAP:
			g->n_gap++;
			break;
		case PREC_EDGE_INIT:
			g->n_init++;
			break;
		}
	}
}

struct prec_graph *prec_graph_new(const struct build_ctx *bc)
{
	struct prec_graph *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->n = bc->n;
	g->t0 = bc->t0;
	g->eps_ns = bc->eps;
	g->tasks = bc->lean ? bc->tasks : NULL;
	return g;
}

int prec_graph__fill_dur(struct prec_graph *g, const struct prec_task *tasks)
{
	if (g->tasks)
		return 0;
	g->dur = malloc((g->n ? g->n : 1) * sizeof(*g->dur));
	if (!g->dur)
		return -ENOMEM;
	for (uint32_t i = 0; i < g->n; i++)
		g->dur[i] = tasks[i].end_ns - tasks[i].start_ns;
	return 0;
}

static void edges_part(struct scan_part *sp)
{
	const struct build_ctx *bc = sp->bc;
	struct prec_graph *g = sp->g;
	uint32_t lo, hi;
	uint8_t cat;
	int r;

	if (sp->p0 >= sp->p1)
		return;
	lo = hi = window_start(bc, sp->byend, prec_rel_start(bc, sp->order[sp->p0]));
	for (uint32_t p = sp->p0; p < sp->p1; p++) {
		uint32_t v = sp->order[p], e = g->pred_off[v], c = 0;
		int64_t rs = prec_rel_start(bc, v);

		window(bc, sp->byend, rs, &lo, &hi);
		for (uint32_t k = lo; k < hi; k++) {
			uint32_t u = sp->byend[k];
			int64_t gap = rs - prec_rel_end(bc, u);
			enum prec_edge_kind kind = gap ? PREC_EDGE_GAP :
							 PREC_EDGE_EXACT;

			if (u == v)
				continue;
			r = prec_decide(bc, sp->opts, sp->ctx, u, v, gap, kind, &cat);
			if (r < 0)
				goto fail;
			if (r)
				prec_graph__put_edge(g, e + c++, u, gap, kind, cat);
		}
		if (prec_has_init(bc, rs)) {
			r = prec_decide(bc, sp->opts, sp->ctx, PREC_ROOT, v, rs,
				   PREC_EDGE_INIT, &cat);
			if (r < 0)
				goto fail;
			if (r)
				prec_graph__put_edge(g, e + c++, PREC_ROOT, rs,
					 PREC_EDGE_INIT, cat);
		}
		/* A target never precedes itself: it marks the end of its list. */
		if (e + c < g->pred_off[v + 1])
			g->pred[e + c] = v;
		sp->total += c;
	}
	return;
fail:
	sp->err = r;
}

static void *count_thread(void *arg)
{
	count_part(arg);
	return NULL;
}

static void *edges_thread(void *arg)
{
	edges_part(arg);
	return NULL;
}

/*
 * A scan over all targets, by bc->jobs threads on equal shares of the
 * order (the calling thread takes the last). Returns the first share's
 * error, else 0, with the shares' totals summed into *total.
 */
static int scan(const struct build_ctx *bc, const struct scan_part *proto,
		void *(*fn)(void *), uint64_t *total)
{
	struct scan_part sp[PREC_MAX_JOBS];
	int jobs = 1 + workq_spare(bc->jobs - 1), err = 0;

	for (int i = 0; i < jobs; i++) {
		sp[i] = *proto;
		sp[i].p0 = workq_share(bc->n, i, jobs);
		sp[i].p1 = workq_share(bc->n, i + 1, jobs);
		if (sp[i].opts && sp[i].opts->edge_ctxs)
			sp[i].ctx = sp[i].opts->edge_ctxs[i];
	}
	workq_parts(jobs, fn, sp, sizeof(sp[0]));
	workq_busy(1 - jobs);
	*total = 0;
	for (int i = 0; i < jobs; i++) {
		*total += sp[i].total;
		if (sp[i].err && !err)
			err = sp[i].err;
	}
	return err;
}

int prec_count_candidates(const struct prec_task *tasks, size_t n,
			  const struct prec_opts *opts, uint64_t *count)
{
	struct build_ctx bc;
	uint32_t *order = NULL, *byend = NULL;
	int err;

	err = prec_validate(tasks, n, opts, &bc);
	if (err)
		return err;
	order = malloc((n ? n : 1) * sizeof(*order));
	byend = malloc((n ? n : 1) * sizeof(*byend));
	err = -ENOMEM;
	if (!order || !byend)
		goto out;
	err = prec_sort_both(&bc, order, byend);
	if (!err) {
		struct scan_part proto = { .bc = &bc, .order = order, .byend = byend };

		err = scan(&bc, &proto, count_thread, count);
	}
out:
	free(order);
	free(byend);
	return err;
}

int prec_graph__build(const struct prec_task *tasks, size_t n,
		      const struct prec_opts *opts, struct prec_graph **out)
{
	struct build_ctx bc;
	struct prec_graph *g = NULL;
	uint32_t *byend = NULL;
	struct scan_part proto;
	uint64_t total, kept = 0;
	int err;

	*out = NULL;
	err = prec_validate(tasks, n, opts, &bc);
	if (err)
		return err;
	g = prec_graph_new(&bc);
	if (!g)
		return -ENOMEM;
	err = -ENOMEM;
	g->order = malloc((n ? n : 1) * sizeof(*g->order));
	byend = malloc((n ? n : 1) * sizeof(*byend));
	g->pred_off = malloc((n + 1) * sizeof(*g->pred_off));
	if (!g->order || !byend || !g->pred_off)
		goto fail;
	err = prec_sort_both(&bc, g->order, byend);
	if (err)
		goto fail;

	/* Pass 1: slots per target (cap in pred_off[1..n], then offsets). */
	proto = (struct scan_part){ .bc = &bc, .opts = opts, .ctx = opts ? opts->edge_ctx : NULL,
				    .order = g->order, .byend = byend, .cap = g->pred_off + 1 };
	scan(&bc, &proto, count_thread, &total);
	g->n_candidates = total;
	if (total > bc.max_edges) {
		err = -E2BIG;
		goto fail;
	}
	g->pred_off[0] = 0;
	for (uint32_t i = 0; i < bc.n; i++)
		g->pred_off[i + 1] += g->pred_off[i];
	err = -ENOMEM;
	if (prec_graph__alloc_edges(g, total))
		goto fail;

	/* Pass 2: the edges themselves, each target into its own slots. */
	proto.cap = NULL;
	proto.g = g;
	err = scan(&bc, &proto, edges_thread, &kept);
	if (err)
		goto fail;
	free(byend);
	byend = NULL;

	if (kept < total) {
		/* Close the holes the tie rule and the hook left. */
		uint32_t w = 0, r = 0;

		for (uint32_t v = 0; v < bc.n; v++) {
			uint32_t r_end = g->pred_off[v + 1], c = 0;

			while (r + c < r_end && g->pred[r + c] != v)
				c++;
			g->pred_off[v] = w;
			if (r != w)
				move_edges(g, w, r, c);
			w += c;
			r = r_end;
		}
		g->pred_off[bc.n] = w;
		shrink_edges(g, kept);
	}
	g->n_edges = (uint32_t)kept;
	g->n_dropped = total - kept;
	err = prec_graph__fill_dur(g, tasks);
	if (err)
		goto fail;
	prec_graph__count_kinds(g);
	*out = g;
	return 0;
fail:
	free(byend);
	prec_graph__free(g);
	return err;
}

int prec_graph__add_edges(struct prec_graph *g, prec_edge_gen gen, void *ctx)
{
	struct prec_edge buf[PREC_GEN_MAX];
	uint32_t n = g->n, *aux, next_new;
	uint64_t m = g->n_edges, k = 0;
	void *p;

	if (!gen)
		return -EINVAL;
	aux = malloc((n ? n : 1) * sizeof(*aux));
	if (!aux)
		return -ENOMEM;
	/* aux = position in the order, to check that every edge goes forward. */
	for (uint32_t i = 0; i < n; i++)
		aux[g->order[i]] = i;
	for (uint32_t v = 0; v < n; v++) {
		size_t c = gen(ctx, v, buf);

		for (size_t i = 0; i < c && c <= PREC_GEN_MAX; i++) {
			const struct prec_edge *e = &buf[i];

			if (e->lag < 0 || e->from == v ||
			    (e->from != PREC_ROOT && (e->from >= n || aux[e->from] >= aux[v])) ||
			    (g->tasks && e->lag != prec_lean_lag(g, v, e->from)))
				c = PREC_GEN_MAX + 1;
		}
		if (c > PREC_GEN_MAX) {
			free(aux);
			return -EINVAL;
		}
		k += c;
	}
	free(aux);
	if (!k)
		return 0;
	if (m + k > PREC_MAX_EDGES)
		return -E2BIG;
	/* Grow the edge arrays; a failure leaves the graph as it was. */
	if (!(p = realloc(g->pred, (m + k) * sizeof(*g->pred))))
		return -ENOMEM;
	g->pred = p;
	if (g->lag) {
		if (!(p = realloc(g->lag, (m + k) * sizeof(*g->lag))))
			return -ENOMEM;
		g->lag = p;
	}
	if (!(p = realloc(g->kind, m + k)))
		return -ENOMEM;
	g->kind = p;
	if (!(p = realloc(g->cat, m + k)))
		return -ENOMEM;
	g->cat = p;

	/*
	 * Move each target's old edges right by the new edges of the targets
	 * before it, last target first so nothing is overwritten, and put its
	 * new edges after them; pred_off[v+1] becomes the new offset once
	 * target v has moved.
	 */
	next_new = (uint32_t)(m + k);
	for (uint32_t v = n; v-- > 0;) {
		size_t c = gen(ctx, v, buf);
		uint32_t lo = g->pred_off[v], old = g->pred_off[v + 1] - lo;
		uint32_t to = next_new - (uint32_t)c - old;

		assert(to >= lo);	/* gen gave more edges than when counted */
		if (to != lo)
			move_edges(g, to, lo, old);
		for (size_t i = 0; i < c; i++)
			prec_graph__put_edge(g, to + old + (uint32_t)i, buf[i].from, buf[i].lag, buf[i].kind, buf[i].cat);
		g->pred_off[v + 1] = next_new;
		next_new = to;
	}
	assert(next_new == 0);	/* gen gave fewer edges than when counted */
	g->pred_off[0] = 0;
	g->n_edges = (uint32_t)(m + k);
	prec_graph__count_kinds(g);
	return 0;
}
