// SPDX-License-Identifier: MIT
/* Precedence-graph reconstruction: TV-6.2 to TV-6.4, naive = sorted scan, threads = one. */
#include <errno.h>
#include <stdint.h>

#include "critical/precedence.h"
#include "ref/precedence_ref.h"
#include "testutil.h"

struct ed {
	uint32_t from, to;
	int64_t lag;
	int kind, cat;
};

static int ed_cmp(const void *pa, const void *pb)
{
	const struct ed *a = pa, *b = pb;

	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	if (a->lag != b->lag)
		return a->lag < b->lag ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind - b->kind;
	return a->cat - b->cat;
}

/* The graph as a sorted edge set. */
static struct ed *edges_of(const struct prec_graph *g)
{
	struct ed *v = malloc((g->n_edges + 1) * sizeof(*v));
	uint32_t k = 0;

	cr_assert(v);
	cr_assert_eq(g->pred_off[0], 0);
	cr_assert_eq(g->pred_off[g->n], g->n_edges);
	for (uint32_t t = 0; t < g->n; t++) {
		cr_assert_leq(g->pred_off[t], g->pred_off[t + 1]);
		for (uint32_t e = g->pred_off[t]; e < g->pred_off[t + 1]; e++)
			v[k++] = (struct ed){ g->pred[e], t, prec_lag(g, t, e), g->kind[e], g->cat[e] };
	}
	qsort(v, k, sizeof(*v), ed_cmp);
	return v;
}

/* Every edge goes forward in g->order, which is a permutation. */
static void assert_topological(const struct prec_graph *g)
{
	uint32_t *pos = malloc((g->n + 1) * sizeof(*pos));

	cr_assert(pos);
	for (uint32_t t = 0; t < g->n; t++)
		pos[t] = UINT32_MAX;
	for (uint32_t p = 0; p < g->n; p++) {
		cr_assert_lt(g->order[p], g->n);
		cr_assert_eq(pos[g->order[p]], UINT32_MAX, "order repeats a task");
		pos[g->order[p]] = p;
	}
	for (uint32_t t = 0; t < g->n; t++)
		for (uint32_t e = g->pred_off[t]; e < g->pred_off[t + 1]; e++)
			if (g->pred[e] != PREC_ROOT)
				cr_assert_lt(pos[g->pred[e]], pos[t], "edge %u->%u goes backwards",
					     g->pred[e], t);
	free(pos);
}

static void assert_same_graph(const struct prec_graph *a, const struct prec_graph *b,
			      unsigned long long seed)
{
	struct ed *ea, *eb;

	cr_assert_eq(a->n, b->n, "seed %llu", seed);
	cr_assert_eq(a->n_edges, b->n_edges, "seed %llu: %u vs %u edges", seed,
		     a->n_edges, b->n_edges);
	cr_assert_eq(a->t0, b->t0, "seed %llu", seed);
	cr_assert_eq(a->n_candidates, b->n_candidates, "seed %llu", seed);
	cr_assert_eq(a->n_dropped, b->n_dropped, "seed %llu", seed);
	ea = edges_of(a);
	eb = edges_of(b);
	for (uint32_t i = 0; i < a->n_edges; i++)
		cr_assert(!ed_cmp(&ea[i], &eb[i]),
			  "seed %llu: edge %u differs: %u->%u lag %lld kind %d vs %u->%u lag %lld kind %d",
			  seed, i, ea[i].from, ea[i].to, (long long)ea[i].lag, ea[i].kind,
			  eb[i].from, eb[i].to, (long long)eb[i].lag, eb[i].kind);
	for (uint32_t t = 0; t < a->n; t++)
		cr_assert_eq(prec_dur(a, t), prec_dur(b, t));
	free(ea);
	free(eb);
}

/* Builds with both algorithms, checks they agree, returns the sorted-scan one. */
static struct prec_graph *build_both(const struct prec_task *t, size_t n,
				     const struct prec_opts *o)
{
	struct prec_graph *g, *gn;

	cr_assert_eq(prec_graph__build(t, n, o, &g), 0);
	cr_assert_eq(precedence_ref_build(t, n, o, &gn), 0);
	assert_same_graph(g, gn, 0);
	assert_topological(g);
	assert_topological(gn);
	prec_graph__free(gn);
	return g;
}

/* The expected edges, given in any order. */
static void assert_edges(const struct prec_graph *g, const struct ed *want, size_t n)
{
	struct ed *w = malloc((n + 1) * sizeof(*w)), *got = edges_of(g);

	memcpy(w, want, n * sizeof(*w));
	qsort(w, n, sizeof(*w), ed_cmp);
	cr_assert_eq(g->n_edges, n, "%u edges, want %zu", g->n_edges, n);
	for (size_t i = 0; i < n; i++)
		cr_assert(!ed_cmp(&w[i], &got[i]),
			  "edge %zu: got %u->%u lag %lld kind %d, want %u->%u lag %lld kind %d", i,
			  got[i].from, got[i].to, (long long)got[i].lag, got[i].kind,
			  w[i].from, w[i].to, (long long)w[i].lag, w[i].kind);
	free(w);
	free(got);
}

#define R PREC_ROOT
#define X PREC_EDGE_EXACT
#define G PREC_EDGE_GAP
#define I PREC_EDGE_INIT

/* TV-6.2: A(0,1) B(1,3) C(1,6) D(3,4) F(3,4) E(6,8). */
enum { A2, B2, C2, D2, F2, E2 };
static const struct prec_task tv62[] = {
	{ 0, 1 }, { 1, 3 }, { 1, 6 }, { 3, 4 }, { 3, 4 }, { 6, 8 },
};

Test(precedence, tv62_exact_adjacency)
{
	struct prec_graph *g = build_both(tv62, 6, NULL);
	const struct ed want[] = {
		{ A2, B2, 0, X, 0 }, { A2, C2, 0, X, 0 }, { B2, D2, 0, X, 0 },
		{ B2, F2, 0, X, 0 }, { C2, E2, 0, X, 0 },
	};
	const uint32_t order[] = { A2, B2, C2, D2, F2, E2 };

	assert_edges(g, want, 5);
	cr_assert_eq(g->t0, 0);
	for (int i = 0; i < 6; i++)
		cr_assert_eq(g->order[i], order[i]);
	cr_assert_eq(g->n_exact, 5);
	cr_assert_eq(g->n_gap + g->n_init, 0);
	prec_graph__free(g);
}

/* TV-6.3: A[1,2) B[2,4) C[3,8) F[4,5) D[5,6) E[9,11). */
enum { A3, B3, C3, F3, D3, E3 };
static const struct prec_task tv63[] = {
	{ 1, 2 }, { 2, 4 }, { 3, 8 }, { 4, 5 }, { 5, 6 }, { 9, 11 },
};

static struct prec_graph *tv63_graph(int64_t eps, int origin0)
{
	struct prec_opts o = { .eps_ns = eps, .has_origin = origin0, .origin_ns = 0 };

	return build_both(tv63, 6, &o);
}

#define EXACT63 { A3, B3, 0, X, 0 }, { B3, F3, 0, X, 0 }, { F3, D3, 0, X, 0 }
#define EPS1_63 EXACT63, { A3, C3, 1, G, 0 }, { B3, D3, 1, G, 0 }, { C3, E3, 1, G, 0 }, \
		{ R, A3, 1, I, 0 }
#define EPS2_63 EPS1_63, { A3, F3, 2, G, 0 }, { R, B3, 2, I, 0 }
#define EPS3_63 EPS2_63, { A3, D3, 3, G, 0 }, { D3, E3, 3, G, 0 }, { R, C3, 3, I, 0 }

Test(precedence, tv63_eps0)
{
	struct prec_graph *g = tv63_graph(0, 1);
	const struct ed want[] = { EXACT63 };

	assert_edges(g, want, 3);
	prec_graph__free(g);
}

Test(precedence, tv63_eps1)
{
	struct prec_graph *g = tv63_graph(1, 1);
	const struct ed want[] = { EPS1_63 };

	assert_edges(g, want, 7);
	cr_assert_eq(g->n_exact, 3);
	cr_assert_eq(g->n_gap, 3);
	cr_assert_eq(g->n_init, 1);
	prec_graph__free(g);
}

Test(precedence, tv63_eps2)
{
	struct prec_graph *g = tv63_graph(2, 1);
	const struct ed want[] = { EPS2_63 };

	assert_edges(g, want, 9);
	prec_graph__free(g);
}

Test(precedence, tv63_eps3)
{
	struct prec_graph *g = tv63_graph(3, 1);
	const struct ed want[] = { EPS3_63 };

	assert_edges(g, want, 12);
	cr_assert_eq(g->n_candidates, 12);
	cr_assert_eq(g->n_dropped, 0);
	prec_graph__free(g);
}

/* Origin = earliest start (1): A gets no initial control task, B gets (->B,1). */
Test(precedence, tv63_origin_earliest)
{
	struct prec_graph *g = tv63_graph(1, 0);
	const struct ed want[] = {
		EXACT63, { A3, C3, 1, G, 0 }, { B3, D3, 1, G, 0 }, { C3, E3, 1, G, 0 },
		{ R, B3, 1, I, 0 },
	};

	cr_assert_eq(g->t0, 1);
	assert_edges(g, want, 7);
	prec_graph__free(g);
}

/* TV-6.4: X[5,5) Y[5,5): exactly one edge, from the lower (s, e, id) key. */
Test(precedence, tv64_zero_duration_tie)
{
	const struct prec_task xy[] = { { 5, 5 }, { 5, 5 } };
	struct prec_opts o = { .eps_ns = 1 };
	struct prec_graph *g = build_both(xy, 2, &o);
	const struct ed want[] = { { 0, 1, 0, X, 0 } };

	assert_edges(g, want, 1);
	cr_assert_eq(g->order[0], 0);
	cr_assert_eq(g->order[1], 1);
	cr_assert_eq(g->n_candidates, 2);
	cr_assert_eq(g->n_dropped, 1);
	prec_graph__free(g);

	/* Origin 4: both get an initial control task of 1, still one X->Y edge. */
	o.has_origin = 1;
	o.origin_ns = 4;
	g = build_both(xy, 2, &o);
	const struct ed want2[] = { { 0, 1, 0, X, 0 }, { R, 0, 1, I, 0 }, { R, 1, 1, I, 0 } };

	assert_edges(g, want2, 3);
	prec_graph__free(g);
}

/* Three tasks at one instant plus a task before and after: a complete DAG in id order. */
Test(precedence, zero_duration_group)
{
	const struct prec_task t[] = { { 7, 7 }, { 3, 7 }, { 7, 7 }, { 7, 9 }, { 7, 7 } };
	struct prec_graph *g = build_both(t, 5, NULL);
	const struct ed want[] = {
		{ 1, 0, 0, X, 0 }, { 1, 2, 0, X, 0 }, { 1, 4, 0, X, 0 }, { 1, 3, 0, X, 0 },
		{ 0, 2, 0, X, 0 }, { 0, 4, 0, X, 0 }, { 2, 4, 0, X, 0 },
		{ 0, 3, 0, X, 0 }, { 2, 3, 0, X, 0 }, { 4, 3, 0, X, 0 },
	};
	const uint32_t order[] = { 1, 0, 2, 4, 3 };

	assert_edges(g, want, 10);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(g->order[i], order[i]);
	prec_graph__free(g);
}

struct hook_ctx {
	int calls;
	int fail_at;
};

/* Drops gaps of 2, tags exact edges 7 and the rest with their lag + 10. */
static int hook(void *ctx, uint32_t from, uint32_t to, int64_t gap,
		enum prec_edge_kind kind, uint8_t *cat)
{
	struct hook_ctx *h = ctx;

	cr_assert_eq(*cat, 0);
	cr_assert_neq(from, to);
	if (++h->calls == h->fail_at)
		return -EIO;
	if (kind == PREC_EDGE_GAP && gap == 2)
		return 0;
	*cat = kind == PREC_EDGE_EXACT ? 7 : (uint8_t)(gap + 10);
	return 1;
}

Test(precedence, hook_drops_and_tags)
{
	struct hook_ctx h = { 0, 0 };
	struct prec_opts o = { .eps_ns = 3, .has_origin = 1, .edge_fn = hook, .edge_ctx = &h };
	struct prec_graph *g, *gn;
	const struct ed want[] = {
		{ A3, B3, 0, X, 7 }, { B3, F3, 0, X, 7 }, { F3, D3, 0, X, 7 },
		{ A3, C3, 1, G, 11 }, { B3, D3, 1, G, 11 }, { C3, E3, 1, G, 11 },
		{ R, A3, 1, I, 11 }, { R, B3, 2, I, 12 },
		{ A3, D3, 3, G, 13 }, { D3, E3, 3, G, 13 }, { R, C3, 3, I, 13 },
	};

	cr_assert_eq(prec_graph__build(tv63, 6, &o, &g), 0);
	cr_assert_eq(h.calls, 12, "the hook sees every candidate once");
	assert_edges(g, want, 11);
	cr_assert_eq(g->n_dropped, 1);
	h.calls = 0;
	cr_assert_eq(precedence_ref_build(tv63, 6, &o, &gn), 0);
	cr_assert_eq(h.calls, 12);
	assert_same_graph(g, gn, 0);
	prec_graph__free(g);
	prec_graph__free(gn);
}

Test(precedence, hook_error_stops_build)
{
	struct hook_ctx h = { 0, 5 };
	struct prec_opts o = { .eps_ns = 3, .has_origin = 1, .edge_fn = hook, .edge_ctx = &h };
	struct prec_graph *g = (void *)1;

	cr_assert_eq(prec_graph__build(tv63, 6, &o, &g), -EIO);
	cr_assert_null(g);
	cr_assert_eq(h.calls, 5);
	h.calls = 0;
	cr_assert_eq(precedence_ref_build(tv63, 6, &o, &g), -EIO);
	cr_assert_null(g);
}

Test(precedence, bad_input)
{
	const struct prec_task bad[] = { { 0, 1 }, { 5, 4 } };
	const struct prec_task ok[] = { { 10, 12 }, { 12, 20 } };
	struct prec_opts o = { 0 };
	struct prec_graph *g;

	cr_assert_eq(prec_graph__build(bad, 2, NULL, &g), -EINVAL);
	cr_assert_eq(precedence_ref_build(bad, 2, NULL, &g), -EINVAL);
	o.eps_ns = -1;
	cr_assert_eq(prec_graph__build(ok, 2, &o, &g), -EINVAL);
	o.eps_ns = INT64_MAX;
	cr_assert_eq(prec_graph__build(ok, 2, &o, &g), -EINVAL);
	o.eps_ns = 0;
	o.has_origin = 1;
	o.origin_ns = 11;	/* after the first start */
	cr_assert_eq(prec_graph__build(ok, 2, &o, &g), -EINVAL);
	o.origin_ns = INT64_MIN;	/* relative times overflow */
	cr_assert_eq(prec_graph__build(ok, 2, &o, &g), -EINVAL);
	cr_assert_eq(prec_graph__build(NULL, 2, NULL, &g), -EINVAL);

	/* No tasks: an empty graph. */
	cr_assert_eq(prec_graph__build(NULL, 0, NULL, &g), 0);
	cr_assert_eq(g->n, 0);
	cr_assert_eq(g->n_edges, 0);
	cr_assert_eq(g->pred_off[0], 0);
	prec_graph__free(g);
}

/* Large eps on a dense trace: a clear -E2BIG before any edge memory. */
Test(precedence, edge_budget)
{
	enum { N = 3000 };
	struct prec_task *t = malloc(N * sizeof(*t));
	struct prec_opts o = { .eps_ns = 1000 };
	struct prec_graph *g;
	uint64_t cnt;

	for (int i = 0; i < N; i++)
		t[i] = (struct prec_task){ i, i + 1 };
	/*
	 * Task i precedes i+1 .. i+1001 (gaps 0..1000), and tasks 1..1000 start
	 * within eps of the origin 0.
	 */
	cr_assert_eq(prec_count_candidates(t, N, &o, &cnt), 0);
	cr_assert_eq(cnt, (uint64_t)(N - 1001) * 1001 + 1000 * 1001 / 2 + 1000);
	o.max_edges = cnt - 1;
	cr_assert_eq(prec_graph__build(t, N, &o, &g), -E2BIG);
	cr_assert_eq(precedence_ref_build(t, N, &o, &g), -E2BIG);
	o.max_edges = cnt;
	cr_assert_eq(prec_graph__build(t, N, &o, &g), 0);
	cr_assert_eq(g->n_edges, cnt);
	prec_graph__free(g);

	/* The default budget (32 n + 2^20) refuses ~n^2/2 edges. */
	o.max_edges = 0;
	o.eps_ns = N;
	cr_assert_eq(prec_count_candidates(t, N, &o, &cnt), 0);
	cr_assert_eq(cnt, (uint64_t)N * (N - 1) / 2 + N - 1);
	cr_assert_eq(prec_graph__build(t, N, &o, &g), -E2BIG);
	free(t);
}

static void random_tasks(unsigned long long *s, struct prec_task *t, size_t n,
			 int64_t span, int64_t maxdur)
{
	for (size_t i = 0; i < n; i++) {
		int64_t st = tu_rand_range(s, 0, span);

		t[i] = (struct prec_task){ st, st + tu_rand_range(s, 0, maxdur) };
	}
}

static int hash_hook(void *ctx, uint32_t from, uint32_t to, int64_t gap,
		     enum prec_edge_kind kind, uint8_t *cat)
{
	uint64_t h = ((uint64_t)from * 2654435761u) ^ ((uint64_t)to * 40503u) ^ (uint64_t)gap;

	(void)ctx;
	if (h % 5 == 0)
		return 0;
	*cat = (uint8_t)(h % 7 + kind);
	return 1;
}

/* Many coincidences: small time range, many zero durations, random eps and origin. */
Test(precedence, naive_equals_sorted_random)
{
	for (unsigned long long seed = 1; seed <= 3000; seed++) {
		unsigned long long s = seed * 0x9E3779B97F4A7C15ULL;
		size_t n = (size_t)tu_rand_range(&s, 1, 60);
		struct prec_task t[60];
		struct prec_opts o = { .eps_ns = tu_rand_range(&s, 0, 6) };
		struct prec_graph *g, *gn;
		int64_t lo = INT64_MAX;

		random_tasks(&s, t, n, tu_rand_range(&s, 0, 40), tu_rand_range(&s, 0, 6));
		for (size_t i = 0; i < n; i++)
			lo = t[i].start_ns < lo ? t[i].start_ns : lo;
		if (tu_rand(&s) & 1) {
			o.has_origin = 1;
			o.origin_ns = lo - tu_rand_range(&s, 0, 8);
		}
		if (seed % 3 == 0)
			o.edge_fn = hash_hook;
		cr_assert_eq(prec_graph__build(t, n, &o, &g), 0, "seed %llu", seed);
		cr_assert_eq(precedence_ref_build(t, n, &o, &gn), 0, "seed %llu", seed);
		assert_same_graph(g, gn, seed);
		assert_topological(g);
		assert_topological(gn);
		/* The sorted-scan order is (start, end, id). */
		for (uint32_t p = 1; p < g->n; p++) {
			const struct prec_task *a = &t[g->order[p - 1]], *b = &t[g->order[p]];

			cr_assert(a->start_ns < b->start_ns ||
				  (a->start_ns == b->start_ns &&
				   (a->end_ns < b->end_ns ||
				    (a->end_ns == b->end_ns && g->order[p - 1] < g->order[p]))),
				  "seed %llu: order not (s, e, id) at %u", seed, p);
		}
		prec_graph__free(g);
		prec_graph__free(gn);
	}
}

/* Larger unsorted inputs, including keys too wide to pack with the id. */
Test(precedence, naive_equals_sorted_large)
{
	for (unsigned long long seed = 1; seed <= 12; seed++) {
		unsigned long long s = seed;
		size_t n = 1500;
		struct prec_task *t = malloc(n * sizeof(*t));
		struct prec_opts o = { .eps_ns = 50 };
		struct prec_graph *g, *gn;

		if (seed % 3 == 0) {
			/* Spans ~2^61 ns: the 16-byte pair sort. Clustered so edges exist. */
			for (size_t i = 0; i < n; i++) {
				int64_t base = (int64_t)(tu_rand(&s) % 4) << 59;
				int64_t st = base + tu_rand_range(&s, 0, 3000);

				t[i] = (struct prec_task){ st, st + tu_rand_range(&s, 0, 40) };
			}
		} else {
			random_tasks(&s, t, n, 20000, 100);
		}
		cr_assert_eq(prec_graph__build(t, n, &o, &g), 0, "seed %llu", seed);
		cr_assert_eq(precedence_ref_build(t, n, &o, &gn), 0, "seed %llu", seed);
		cr_assert_gt(g->n_edges, n / 2, "seed %llu: too few edges to mean much", seed);
		assert_same_graph(g, gn, seed);
		assert_topological(g);
		prec_graph__free(g);
		prec_graph__free(gn);
		free(t);
	}
}

Test(precedence, from_edges)
{
	const int64_t dur[] = { 1, 2, 3 };
	const struct prec_edge ok[] = { { 0, 1, 0, 3, 0 }, { 1, 2, 5, 3, 9 }, { R, 0, 4, I, 0 } };
	const struct prec_edge cyc[] = { { 0, 1, 0, 3, 0 }, { 1, 2, 0, 3, 0 }, { 2, 0, 0, 3, 0 } };
	const struct prec_edge self[] = { { 1, 1, 0, 3, 0 } };
	const struct prec_edge badid[] = { { 0, 3, 0, 3, 0 } };
	const struct prec_edge neglag[] = { { 0, 1, -1, 3, 0 } };
	const int64_t negdur[] = { 1, -2, 3 };
	struct prec_graph *g;

	cr_assert_eq(prec_graph__from_edges(3, dur, ok, 3, &g), 0);
	cr_assert_eq(g->n_edges, 3);
	cr_assert_eq(g->order[0], 0);
	cr_assert_eq(g->order[1], 1);
	cr_assert_eq(g->order[2], 2);
	cr_assert_eq(g->pred_off[2], 2);
	cr_assert_eq(g->pred[2], 1);
	cr_assert_eq(g->lag[2], 5);
	cr_assert_eq(g->cat[2], 9);
	cr_assert_eq(g->n_init, 1);
	assert_topological(g);
	prec_graph__free(g);
	cr_assert_eq(prec_graph__from_edges(3, dur, cyc, 3, &g), -EINVAL);
	cr_assert_null(g);
	cr_assert_eq(prec_graph__from_edges(3, dur, self, 1, &g), -EINVAL);
	cr_assert_eq(prec_graph__from_edges(3, dur, badid, 1, &g), -EINVAL);
	cr_assert_eq(prec_graph__from_edges(3, dur, neglag, 1, &g), -EINVAL);
	cr_assert_eq(prec_graph__from_edges(3, negdur, ok, 3, &g), -EINVAL);
}

/* A list of edges handed to add_edges target by target, in list order. */
struct edge_list {
	const struct prec_edge *e;
	size_t n;
	unsigned calls;
};

static size_t list_gen(void *ctx, uint32_t to, struct prec_edge *out)
{
	struct edge_list *l = ctx;
	size_t c = 0;

	l->calls++;
	/* More than PREC_GEN_MAX are counted, not written: add_edges must refuse them. */
	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].to == to && c++ < PREC_GEN_MAX)
			out[c - 1] = l->e[i];
	return c;
}

static int add_list(struct prec_graph *g, const struct prec_edge *e, size_t n)
{
	struct edge_list l = { e, n, 0 };

	return prec_graph__add_edges(g, list_gen, &l);
}

/*
 * add_edges: the result is the build's edges plus the new ones, with each
 * target's old edges first and in their old order, the new ones after them
 * in the generator's order; a backward edge is refused and leaves the graph
 * as it was.
 */
Test(precedence, add_edges_random)
{
	for (unsigned long long seed = 1; seed <= 500; seed++) {
		unsigned long long s = seed * 0xD1B54A32D192ED03ULL;
		size_t n = (size_t)tu_rand_range(&s, 2, 50), k = 0;
		struct prec_task t[50];
		struct prec_opts o = { .eps_ns = tu_rand_range(&s, 0, 4) };
		struct prec_edge add[80];
		uint32_t pos[50], per[50] = { 0 }, *old_off;
		struct prec_graph *g;
		struct ed *before, *after, *want;
		uint32_t nb;

		random_tasks(&s, t, n, tu_rand_range(&s, 5, 60), tu_rand_range(&s, 0, 6));
		cr_assert_eq(prec_graph__build(t, n, &o, &g), 0, "seed %llu", seed);
		for (uint32_t p = 0; p < g->n; p++)
			pos[g->order[p]] = p;
		for (int i = 0; i < 80; i++) {
			uint32_t a = (uint32_t)tu_rand_range(&s, 0, (long long)n - 1);
			uint32_t b = (uint32_t)tu_rand_range(&s, 0, (long long)n - 1);

			if (per[b] == PREC_GEN_MAX)
				continue;
			if (i % 7 == 0) {
				add[k++] = (struct prec_edge){ PREC_ROOT, b, tu_rand_range(&s, 0, 9), 3, 7 };
				per[b]++;
			} else if (pos[a] < pos[b]) {
				add[k++] = (struct prec_edge){ a, b, tu_rand_range(&s, 0, 9), 3, (uint8_t)i };
				per[b]++;
			}
		}
		before = edges_of(g);
		nb = g->n_edges;
		old_off = malloc((n + 1) * sizeof(*old_off));
		memcpy(old_off, g->pred_off, (n + 1) * sizeof(*old_off));
		/* Old edges keep their order at the front of each target's list. */
		{
			uint32_t *old_pred = malloc((nb + 1) * sizeof(*old_pred));

			memcpy(old_pred, g->pred, nb * sizeof(*old_pred));
			cr_assert_eq(add_list(g, add, k), 0, "seed %llu", seed);
			for (uint32_t v = 0; v < n; v++) {
				uint32_t old = old_off[v + 1] - old_off[v], j = old;

				for (j = 0; j < old; j++)
					cr_assert_eq(g->pred[g->pred_off[v] + j], old_pred[old_off[v] + j],
						     "seed %llu", seed);
				for (size_t i = 0; i < k; i++)
					if (add[i].to == v) {
						cr_assert_eq(g->pred[g->pred_off[v] + j], add[i].from, "seed %llu", seed);
						cr_assert_eq(g->cat[g->pred_off[v] + j], add[i].cat, "seed %llu", seed);
						j++;
					}
				cr_assert_eq(g->pred_off[v] + j, g->pred_off[v + 1], "seed %llu", seed);
			}
			free(old_pred);
		}
		cr_assert_eq(g->n_edges, nb + k, "seed %llu", seed);
		assert_topological(g);
		after = edges_of(g);
		want = malloc((nb + k + 1) * sizeof(*want));
		memcpy(want, before, nb * sizeof(*want));
		for (size_t i = 0; i < k; i++)
			want[nb + i] = (struct ed){ add[i].from, add[i].to, add[i].lag, add[i].kind, add[i].cat };
		qsort(want, nb + k, sizeof(*want), ed_cmp);
		for (size_t i = 0; i < nb + k; i++)
			cr_assert(!ed_cmp(&want[i], &after[i]), "seed %llu: edge %zu", seed, i);
		/* A backward edge: refused, nothing changes. */
		if (n >= 2) {
			struct prec_edge back = { g->order[n - 1], g->order[0], 0, 3, 0 };

			cr_assert_eq(add_list(g, &back, 1), -EINVAL);
			cr_assert_eq(g->n_edges, nb + k);
		}
		free(before);
		free(after);
		free(want);
		free(old_off);
		prec_graph__free(g);
	}
}

Test(precedence, add_edges_bad_input)
{
	const struct prec_task t[] = { { 0, 1 }, { 1, 2 }, { 2, 3 } };
	struct prec_graph *g;
	const struct prec_edge self = { 1, 1, 0, 3, 0 }, badid = { 0, 7, 0, 3, 0 };
	const struct prec_edge neglag = { 0, 2, -1, 3, 0 }, ok = { 0, 2, 1, 3, 5 };
	const struct prec_edge badfrom = { 9, 2, 0, 3, 0 }, back = { 2, 1, 0, 3, 0 };
	const struct prec_edge many[PREC_GEN_MAX + 1] = {
		{ 0, 2, 0, 3, 0 }, { 0, 2, 1, 3, 0 }, { 0, 2, 2, 3, 0 }, { 0, 2, 3, 3, 0 }, { 0, 2, 4, 3, 0 },
	};
	struct edge_list none = { NULL, 0, 0 };

	cr_assert_eq(prec_graph__build(t, 3, NULL, &g), 0);
	cr_assert_eq(g->n_edges, 2);
	cr_assert_eq(add_list(g, &self, 1), -EINVAL);
	cr_assert_eq(add_list(g, &badid, 1), 0, "an edge into no task is never asked for");
	cr_assert_eq(add_list(g, &neglag, 1), -EINVAL);
	cr_assert_eq(add_list(g, &badfrom, 1), -EINVAL);
	cr_assert_eq(add_list(g, &back, 1), -EINVAL);
	cr_assert_eq(add_list(g, many, PREC_GEN_MAX + 1), -EINVAL);
	cr_assert_eq(prec_graph__add_edges(g, NULL, NULL), -EINVAL);
	cr_assert_eq(g->n_edges, 2, "the graph is unchanged after every refusal");
	cr_assert_eq(prec_graph__add_edges(g, list_gen, &none), 0);
	cr_assert_eq(none.calls, 3, "no edges: one counting pass, no placing pass");
	cr_assert_eq(add_list(g, &ok, 1), 0);
	cr_assert_eq(g->n_edges, 3);
	cr_assert_eq(g->pred_off[2], 1);
	cr_assert_eq(g->pred_off[3], 3);
	cr_assert_eq(g->pred[1], 1);
	cr_assert_eq(g->pred[2], 0);
	cr_assert_eq(g->lag[2], 1);
	cr_assert_eq(g->cat[2], 5);
	prec_graph__free(g);
}

/*
 * A lean graph (no duration or lag arrays) is the same graph as a full one,
 * by both algorithms, with or without a hook: prec_dur() and prec_lag()
 * read what the arrays would hold off the tasks. add_edges keeps it lean,
 * and refuses a lag the tasks do not give.
 */
Test(precedence, lean_equals_full)
{
	for (unsigned long long seed = 1; seed <= 1500; seed++) {
		unsigned long long s = seed * 0x9E3779B97F4A7C15ULL;
		size_t n = (size_t)tu_rand_range(&s, 2, 60);
		struct prec_task t[60];
		struct prec_opts o = { .eps_ns = tu_rand_range(&s, 0, 6), .has_origin = 1 };
		struct prec_opts lo;
		struct prec_graph *g, *gl, *gn;
		int64_t first = INT64_MAX;

		random_tasks(&s, t, n, tu_rand_range(&s, 0, 40), tu_rand_range(&s, 0, 6));
		for (size_t i = 0; i < n; i++)
			first = t[i].start_ns < first ? t[i].start_ns : first;
		o.origin_ns = first - tu_rand_range(&s, 0, 8);
		if (seed % 3 == 0)
			o.edge_fn = hash_hook;
		lo = o;
		lo.lean = 1;
		cr_assert_eq(prec_graph__build(t, n, &o, &g), 0, "seed %llu", seed);
		cr_assert_eq(prec_graph__build(t, n, &lo, &gl), 0, "seed %llu", seed);
		cr_assert_eq(precedence_ref_build(t, n, &lo, &gn), 0, "seed %llu", seed);
		cr_assert(gl->lag == NULL && gl->dur == NULL && gl->tasks == t, "seed %llu", seed);
		cr_assert(gn->lag == NULL && gn->dur == NULL, "seed %llu", seed);
		cr_assert(g->lag != NULL && g->dur != NULL && g->tasks == NULL, "seed %llu", seed);
		assert_same_graph(g, gl, seed);
		assert_same_graph(g, gn, seed);
		/* The last task in the order gets a root edge and one from the first. */
		{
			uint32_t v = gl->order[n - 1], u = gl->order[0];
			int64_t ok = t[v].start_ns - t[u].end_ns;
			const struct prec_edge add[] = {
				{ PREC_ROOT, v, t[v].start_ns - o.origin_ns, PREC_EDGE_GIVEN, 9 },
				{ u, v, ok, PREC_EDGE_GIVEN, 8 },
			};
			const struct prec_edge wrong = { PREC_ROOT, v, t[v].start_ns - o.origin_ns + 1,
							 PREC_EDGE_GIVEN, 9 };
			uint32_t m = gl->n_edges;

			cr_assert_eq(add_list(gl, &wrong, 1), -EINVAL, "seed %llu", seed);
			cr_assert_eq(gl->n_edges, m);
			if (u == v || ok < 0) {
				cr_assert_eq(add_list(gl, add, 1), 0, "seed %llu", seed);
				cr_assert_eq(add_list(g, add, 1), 0, "seed %llu", seed);
			} else {
				cr_assert_eq(add_list(gl, add, 2), 0, "seed %llu", seed);
				cr_assert_eq(add_list(g, add, 2), 0, "seed %llu", seed);
			}
			cr_assert(gl->lag == NULL, "seed %llu", seed);
			assert_same_graph(g, gl, seed);
		}
		prec_graph__free(g);
		prec_graph__free(gl);
		prec_graph__free(gn);
	}
}

/* A hook's context per thread: its own count of calls and of the targets it saw. */
struct thread_ctx {
	uint64_t calls;
	uint32_t fail_at;	/* return -EIO for this target; UINT32_MAX: never */
	int failed;
};

static int counting_hook(void *ctx, uint32_t from, uint32_t to, int64_t gap, enum prec_edge_kind kind,
			 uint8_t *cat)
{
	struct thread_ctx *c = ctx;

	c->calls++;
	if (to == c->fail_at) {
		c->failed = 1;
		return -EIO;
	}
	return hash_hook(NULL, from, to, gap, kind, cat);
}

/*
 * On 2 or 3 threads the edges are those of one thread, each thread's hook
 * context sees calls, and all of them together as many as one context.
 * Tasks come thread by thread in time order, as a recording's do, and
 * shuffled; sizes around the one where the build starts to split.
 */
Test(precedence, threads_equal_one, .timeout = 120)
{
	static const size_t sizes[] = { 1000, 65536, 150001 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (int shape = 0; shape < 2; shape++) {
			unsigned long long s = 11 + k * 7 + shape;
			size_t n = sizes[k];
			struct prec_task *t = malloc(n * sizeof(*t));
			struct thread_ctx one = { .fail_at = UINT32_MAX };
			struct prec_opts o = { .eps_ns = tu_rand_range(&s, 0, 30), .edge_fn = counting_hook,
					       .edge_ctx = &one };
			struct prec_graph *g1, *g;
			uint64_t c1, c;

			cr_assert(t);
			if (shape == 0) {
				random_tasks(&s, t, n, (int64_t)n * 3, 20);
			} else {
				/* 40 threads, each a row of tasks with small gaps between them */
				for (size_t i = 0; i < n; i++) {
					int64_t prev = i % (n / 40 + 1) ? t[i - 1].end_ns : tu_rand_range(&s, 0, 50);
					int64_t st = prev + tu_rand_range(&s, 0, 40);

					t[i] = (struct prec_task){ st, st + tu_rand_range(&s, 0, 60) };
				}
			}
			cr_assert_eq(prec_graph__build(t, n, &o, &g1), 0);
			cr_assert_eq(prec_count_candidates(t, n, &o, &c1), 0);
			cr_assert_gt(g1->n_edges, n / 4, "n %zu: too few edges to mean much", n);
			for (int jobs = 2; jobs <= 3; jobs++) {
				struct thread_ctx tc[3];
				void *ctxs[3] = { &tc[0], &tc[1], &tc[2] };
				struct prec_opts po = o;
				uint64_t calls = 0;

				for (int i = 0; i < 3; i++)
					tc[i] = (struct thread_ctx){ .fail_at = UINT32_MAX };
				po.jobs = jobs;
				po.edge_ctxs = ctxs;
				cr_assert_eq(prec_graph__build(t, n, &po, &g), 0);
				assert_same_graph(g1, g, s);
				for (uint32_t p = 0; p < n; p++)
					cr_assert_eq(g->order[p], g1->order[p], "n %zu jobs %d: order at %u", n, jobs, p);
				for (int i = 0; i < jobs; i++) {
					calls += tc[i].calls;
					if (n >= 65536)
						cr_assert_gt(tc[i].calls, 0, "n %zu jobs %d: thread %d had no calls", n,
							     jobs, i);
				}
				cr_assert_eq(calls, one.calls, "n %zu jobs %d", n, jobs);
				cr_assert_eq(prec_count_candidates(t, n, &po, &c), 0);
				cr_assert_eq(c, c1, "n %zu jobs %d", n, jobs);
				prec_graph__free(g);
			}
			prec_graph__free(g1);
			free(t);
			one.calls = 0;
		}
	}
}

/* A hook's error on any thread stops the build, which returns it and no graph. */
Test(precedence, threads_hook_error)
{
	enum { N = 100000 };
	struct prec_task *t = malloc(N * sizeof(*t));
	unsigned long long s = 3;

	cr_assert(t);
	random_tasks(&s, t, N, 3 * N, 20);
	for (int share = 0; share < 2; share++) {
		struct thread_ctx tc[2];
		void *ctxs[2] = { &tc[0], &tc[1] };
		struct prec_opts o = { .eps_ns = 10, .edge_fn = counting_hook, .jobs = 2, .edge_ctxs = ctxs };
		struct prec_graph *g = (struct prec_graph *)&o;
		uint32_t v = UINT32_MAX;

		/* a target late in the order (the second thread's share) or early (the first's) */
		for (uint32_t i = 0; i < N; i++)
			if (t[i].start_ns > (share ? 2 * N : N / 2) && t[i].start_ns < (share ? 3 * N : N) &&
			    t[i].start_ns != t[i].end_ns) {
				v = i;
				break;
			}
		cr_assert_neq(v, UINT32_MAX);
		for (int i = 0; i < 2; i++)
			tc[i] = (struct thread_ctx){ .fail_at = v };
		cr_assert_eq(prec_graph__build(t, N, &o, &g), -EIO, "share %d", share);
		cr_assert_null(g);
		/* It was the thread of that share that met it. */
		cr_assert(tc[share].failed && !tc[!share].failed, "share %d", share);
	}
	free(t);
}

Test(precedence, threads_bad_jobs)
{
	struct prec_task t[] = { { 0, 1 }, { 1, 2 } };
	struct prec_opts o = { .jobs = -1 };
	struct prec_graph *g;
	uint64_t c;

	cr_assert_eq(prec_graph__build(t, 2, &o, &g), -EINVAL);
	o.jobs = PREC_MAX_JOBS + 1;
	cr_assert_eq(prec_graph__build(t, 2, &o, &g), -EINVAL);
	cr_assert_eq(prec_count_candidates(t, 2, &o, &c), -EINVAL);
	o.jobs = PREC_MAX_JOBS;
	cr_assert_eq(prec_graph__build(t, 2, &o, &g), 0);
	cr_assert_eq(g->n_edges, 1);
	prec_graph__free(g);
}
