// SPDX-License-Identifier: MIT
/*
 * Critical path analysis: TV-6.1 to TV-6.3, Theorems 1 and 2 on random task
 * graphs, and paths / common sub-paths against brute-force enumeration.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "critical/cpa.h"
#include "critical/precedence.h"
#include "ref/precedence_ref.h"
#include "testutil.h"

#define R PREC_ROOT

static struct cpa *run(const struct prec_graph *g)
{
	struct cpa *c;

	cr_assert_eq(cpa__run(g, &c), 0);
	return c;
}

static void assert_critical_set(const struct cpa *c, const int *want, int n)
{
	for (int t = 0; t < n; t++)
		cr_assert_eq(cpa__critical(c, t), want[t], "task %d: critical %d, want %d "
			     "(est %lld lst %lld)", t, cpa__critical(c, t), want[t],
			     (long long)c->est[t], (long long)c->lst[t]);
}

/* The index of edge from -> to (lag given) in to's predecessor list. */
static uint32_t edge_idx(const struct prec_graph *g, uint32_t from, uint32_t to,
			 int64_t lag)
{
	for (uint32_t e = g->pred_off[to]; e < g->pred_off[to + 1]; e++)
		if (g->pred[e] == from && g->lag[e] == lag)
			return e;
	cr_assert_fail("no edge %u -> %u lag %lld", from, to, (long long)lag);
	return CPA_NONE;
}

/* TV-6.1: the Fig. 1 instance. */
enum { A1, B1, C1, D1, E1, F1 };

Test(cpa, tv61_fig1)
{
	const int64_t dur[] = { 1, 2, 5, 1, 2, 1 };
	const struct prec_edge ed[] = {
		{ A1, B1, 0, 3, 0 }, { A1, C1, 0, 3, 0 }, { B1, D1, 0, 3, 0 },
		{ B1, F1, 0, 3, 0 }, { C1, E1, 0, 3, 0 }, { D1, E1, 0, 3, 0 },
	};
	const int64_t est[] = { 0, 1, 1, 3, 6, 3 }, lst[] = { 0, 3, 1, 5, 6, 7 };
	const int crit[] = { 1, 0, 1, 0, 1, 0 };
	struct prec_graph *g;
	struct cpa *c;
	struct cpa_hop hops[8], *common;
	size_t nc;

	cr_assert_eq(prec_graph__from_edges(6, dur, ed, 6, &g), 0);
	c = run(g);
	cr_assert_eq(c->makespan, 8);
	for (int t = 0; t < 6; t++) {
		cr_assert_eq(c->est[t], est[t], "est %d", t);
		cr_assert_eq(c->lst[t], lst[t], "lst %d", t);
	}
	assert_critical_set(c, crit, 6);
	cr_assert_eq(cpa__float(c, F1), 4);
	cr_assert_eq(c->last, E1);

	/* The single critical path A -> C -> E, by walking back from E. */
	cr_assert_eq(cpa__path_into(c, g, E1, hops, 8), 3);
	cr_assert_eq(hops[0].task, A1);
	cr_assert_eq(hops[0].edge, CPA_NONE);
	cr_assert_eq(hops[1].task, C1);
	cr_assert_eq(hops[1].edge, edge_idx(g, A1, C1, 0));
	cr_assert_eq(hops[2].task, E1);
	cr_assert_eq(hops[2].edge, edge_idx(g, C1, E1, 0));
	cr_assert_eq(hops[2].est, 6);
	/* Into D: A -> B -> D, not critical but the longest chain ending at D. */
	cr_assert_eq(cpa__path_into(c, g, D1, hops, 8), 3);
	cr_assert_eq(hops[1].task, B1);
	cr_assert_eq(hops[2].task, D1);

	/* One critical path: it is its own common sub-path, edges included. */
	cr_assert_eq(cpa__common(c, g, &common, &nc), 0);
	cr_assert_eq(nc, 3);
	cr_assert_eq(common[0].task, A1);
	cr_assert_eq(common[0].edge, CPA_NONE);
	cr_assert_eq(common[1].task, C1);
	cr_assert_eq(common[1].edge, edge_idx(g, A1, C1, 0));
	cr_assert_eq(common[2].task, E1);
	cr_assert_eq(common[2].edge, edge_idx(g, C1, E1, 0));
	free(common);
	cpa__free(c);
	prec_graph__free(g);
}

/* TV-6.2: Alg 2 on the Fig. 1 Gantt chart loses D -> E but keeps A -> C -> E. */
Test(cpa, tv62_reconstructed_fig1)
{
	const struct prec_task t[] = { { 0, 1 }, { 1, 3 }, { 1, 6 }, { 3, 4 }, { 3, 4 }, { 6, 8 } };
	enum { A, B, C, D, F, E };
	const int crit[] = { 1, 0, 1, 0, 0, 1 };
	struct prec_graph *g;
	struct cpa *c;

	cr_assert_eq(prec_graph__build(t, 6, NULL, &g), 0);
	c = run(g);
	cr_assert_eq(c->makespan, 8);
	assert_critical_set(c, crit, 6);
	cr_assert_eq(cpa__float(c, B), 4);
	cr_assert_eq(cpa__float(c, D), 4);
	cr_assert_eq(cpa__float(c, F), 4);
	cr_assert_eq(c->last, E);
	cpa__free(c);
	prec_graph__free(g);
}

/* TV-6.3: A[1,2) B[2,4) C[3,8) F[4,5) D[5,6) E[9,11). */
enum { A3, B3, C3, F3, D3, E3 };
static const struct prec_task tv63[] = {
	{ 1, 2 }, { 2, 4 }, { 3, 8 }, { 4, 5 }, { 5, 6 }, { 9, 11 },
};

struct tv63 {
	struct prec_graph *g;
	struct cpa *c;
};

static struct tv63 tv63_run(int64_t eps, int origin0)
{
	struct prec_opts o = { .eps_ns = eps, .has_origin = origin0 };
	struct tv63 r;

	cr_assert_eq(prec_graph__build(tv63, 6, &o, &r.g), 0);
	r.c = run(r.g);
	return r;
}

static void tv63_free(struct tv63 *r)
{
	cpa__free(r->c);
	prec_graph__free(r->g);
}

/* The edges (control tasks and exact edges) with float 0, as a count. */
static int critical_edges(const struct tv63 *r)
{
	int k = 0;

	for (uint32_t t = 0; t < r->g->n; t++)
		for (uint32_t e = r->g->pred_off[t]; e < r->g->pred_off[t + 1]; e++)
			k += !cpa__edge_float(r->c, r->g, t, e);
	return k;
}

static size_t mismatches(const struct tv63 *r)
{
	uint32_t *bad;
	size_t n;

	cr_assert_eq(cpa__start_mismatches(r->c, r->g, tv63, 6, &bad, &n), 0);
	free(bad);
	return n;
}

Test(cpa, tv63_eps0)
{
	struct tv63 r = tv63_run(0, 1);
	const int crit[] = { 1, 1, 1, 1, 1, 0 };	/* A B C F D, not E */
	uint32_t *bad;
	size_t nb;
	struct cpa_hop *common;
	size_t nc;

	cr_assert_eq(r.c->makespan, 5);
	assert_critical_set(r.c, crit, 6);
	/* eps too small: every observed start disagrees with the recomputed one. */
	cr_assert_eq(cpa__start_mismatches(r.c, r.g, tv63, 6, &bad, &nb), 0);
	cr_assert_eq(nb, 6);
	for (uint32_t i = 0; i < 6; i++)
		cr_assert_eq(bad[i], i);
	free(bad);
	/* Two disjoint critical paths (A B F D and C): nothing in common. */
	cr_assert_eq(cpa__common(r.c, r.g, &common, &nc), 0);
	cr_assert_eq(nc, 0);
	free(common);
	tv63_free(&r);
}

static void assert_eps1_path(const struct tv63 *r)
{
	const struct prec_graph *g = r->g;
	struct cpa_hop h[6], *common;
	size_t nc;

	/* Critical: init(->A), A, ctrl(A->C), C, ctrl(C->E), E. */
	cr_assert_eq(r->c->last, E3);
	cr_assert_eq(cpa__path_into(r->c, g, E3, h, 6), 3);
	cr_assert_eq(h[0].task, A3);
	cr_assert_eq(h[0].edge, edge_idx(g, R, A3, 1));
	cr_assert_eq(h[1].task, C3);
	cr_assert_eq(h[1].edge, edge_idx(g, A3, C3, 1));
	cr_assert_eq(h[2].task, E3);
	cr_assert_eq(h[2].edge, edge_idx(g, C3, E3, 1));
	cr_assert_eq(cpa__edge_float(r->c, g, A3, edge_idx(g, R, A3, 1)), 0);
	cr_assert_eq(cpa__edge_float(r->c, g, C3, edge_idx(g, A3, C3, 1)), 0);
	cr_assert_eq(cpa__edge_float(r->c, g, E3, edge_idx(g, C3, E3, 1)), 0);
	cr_assert_eq(critical_edges(r), 3);
	/* A single critical path is its own common part, control tasks included. */
	cr_assert_eq(cpa__common(r->c, g, &common, &nc), 0);
	cr_assert_eq(nc, 3);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(common[i].task, h[i].task);
		cr_assert_eq(common[i].edge, h[i].edge);
	}
	free(common);
}

Test(cpa, tv63_eps1)
{
	struct tv63 r = tv63_run(1, 1);
	const int crit[] = { 1, 0, 1, 0, 0, 1 };
	const int64_t est[] = { 1, 2, 3, 4, 5, 9 };
	struct cpa_hop h[4];

	cr_assert_eq(r.c->makespan, 11);
	assert_critical_set(r.c, crit, 6);
	for (int t = 0; t < 6; t++)
		cr_assert_eq(r.c->est[t], est[t]);
	cr_assert_eq(mismatches(&r), 0);
	assert_eps1_path(&r);

	/*
	 * Into D: B -> D (lag 1) and F -> D (exact) both give 5; the smaller lag
	 * binds. So A (init) -> B -> F -> D. A short buffer gets the first hops.
	 */
	cr_assert_eq(cpa__path_into(r.c, r.g, D3, h, 2), 4);
	cr_assert_eq(h[0].task, A3);
	cr_assert_eq(h[1].task, B3);
	cr_assert_eq(h[1].edge, edge_idx(r.g, A3, B3, 0));
	cr_assert_eq(cpa__path_into(r.c, r.g, D3, h, 4), 4);
	cr_assert_eq(h[2].task, F3);
	cr_assert_eq(h[3].task, D3);
	cr_assert_eq(h[3].edge, edge_idx(r.g, F3, D3, 0));
	cr_assert_eq(h[3].est, 5);
	cr_assert_eq(cpa__path_into(r.c, r.g, 6, h, 4), -EINVAL);
	tv63_free(&r);
}

Test(cpa, tv63_eps2)
{
	struct tv63 r = tv63_run(2, 1);
	const int crit[] = { 1, 0, 1, 0, 0, 1 };

	cr_assert_eq(r.c->makespan, 11);
	assert_critical_set(r.c, crit, 6);
	cr_assert_eq(mismatches(&r), 0);
	assert_eps1_path(&r);
	cr_assert_eq(cpa__edge_float(r.c, r.g, B3, edge_idx(r.g, R, B3, 2)), 5);
	cr_assert_eq(cpa__edge_float(r.c, r.g, F3, edge_idx(r.g, A3, F3, 2)), 5);
	tv63_free(&r);
}

Test(cpa, tv63_eps3_everything_critical)
{
	struct tv63 r = tv63_run(3, 1);
	const int crit[] = { 1, 1, 1, 1, 1, 1 };
	struct cpa_hop *common;
	size_t nc;

	cr_assert_eq(r.c->makespan, 11);
	assert_critical_set(r.c, crit, 6);
	cr_assert_eq(critical_edges(&r), (int)r.g->n_edges);
	cr_assert_eq(r.g->n_edges, 12);
	cr_assert_eq(mismatches(&r), 0);
	/* Only E is on every critical path: C->E and D->E overlap in [8, 9]. */
	cr_assert_eq(cpa__common(r.c, r.g, &common, &nc), 0);
	cr_assert_eq(nc, 1);
	cr_assert_eq(common[0].task, E3);
	cr_assert_eq(common[0].edge, CPA_NONE);
	free(common);
	tv63_free(&r);
}

Test(cpa, tv63_origin_earliest)
{
	struct tv63 r = tv63_run(1, 0);
	const int crit[] = { 1, 0, 1, 0, 0, 1 };
	struct cpa_hop h[3];

	cr_assert_eq(r.g->t0, 1);
	cr_assert_eq(r.c->makespan, 10);
	assert_critical_set(r.c, crit, 6);
	cr_assert_eq(cpa__edge_float(r.c, r.g, B3, edge_idx(r.g, R, B3, 1)), 5);
	cr_assert_eq(critical_edges(&r), 2);
	cr_assert_eq(cpa__path_into(r.c, r.g, E3, h, 3), 3);
	cr_assert_eq(h[0].task, A3);
	cr_assert_eq(h[0].edge, CPA_NONE);
	cr_assert_eq(h[0].est, 0);
	cr_assert_eq(h[1].edge, edge_idx(r.g, A3, C3, 1));
	cr_assert_eq(mismatches(&r), 0);
	tv63_free(&r);
}

Test(cpa, tv64_zero_duration_tie)
{
	const struct prec_task xy[] = { { 5, 5 }, { 5, 5 } };
	struct prec_opts o = { .eps_ns = 1 };
	struct prec_graph *g;
	struct cpa *c;
	struct cpa_hop h[2];

	cr_assert_eq(prec_graph__build(xy, 2, &o, &g), 0);
	c = run(g);
	cr_assert_eq(c->makespan, 0);
	cr_assert(cpa__critical(c, 0) && cpa__critical(c, 1));
	cr_assert_eq(cpa__path_into(c, g, 1, h, 2), 2);
	cr_assert_eq(h[0].task, 0);
	cr_assert_eq(h[1].task, 1);
	cpa__free(c);
	prec_graph__free(g);
}

Test(cpa, empty_and_overflow)
{
	struct prec_graph *g;
	struct cpa *c;
	struct cpa_hop *h;
	size_t nh;
	const int64_t dur[] = { INT64_MAX / 2, INT64_MAX / 2, 10 };
	const struct prec_edge ed[] = { { 0, 1, 0, 3, 0 }, { 1, 2, 0, 3, 0 } };

	cr_assert_eq(prec_graph__from_edges(0, NULL, NULL, 0, &g), 0);
	c = run(g);
	cr_assert_eq(c->makespan, 0);
	cr_assert_eq(c->last, CPA_NONE);
	cr_assert_eq(cpa__common(c, g, &h, &nh), 0);
	cr_assert_eq(nh, 0);
	free(h);
	cpa__free(c);
	prec_graph__free(g);

	cr_assert_eq(prec_graph__from_edges(3, dur, ed, 2, &g), 0);
	c = (void *)1;
	cr_assert_eq(cpa__run(g, &c), -EOVERFLOW);
	cr_assert_null(c);
	prec_graph__free(g);
}

/* ---------------------------------------------------------------------------
 * Brute force on small graphs: enumerate every path of the graph with its
 * control tasks as elements (element n + e is the control task of edge e,
 * when lag > 0), as in Def. 2.
 */
struct bf {
	const struct prec_graph *g;
	uint32_t *to;		/* target of each edge */
	int64_t M;		/* longest path */
	int64_t *end_max;	/* per task: longest path ending at it */
	int64_t *from_max;	/* per task: longest path starting at it */
	uint64_t common_el;	/* elements on every critical path */
	uint64_t common_ed;	/* lag-0 edges on every critical path */
	int pass;
	long paths;
};

/*
 * A critical path is maximal when no zero-duration task can be put before
 * its first element or after its last one.
 */
static bool bf_maximal(const struct bf *b, uint32_t first, uint32_t last)
{
	const struct prec_graph *g = b->g;
	uint32_t n = g->n;

	if (first >= n) {
		uint32_t u = g->pred[first - n];

		if (u != PREC_ROOT && !g->dur[u])
			return false;
	} else {
		for (uint32_t e = g->pred_off[first]; e < g->pred_off[first + 1]; e++)
			if (!g->lag[e] && g->pred[e] != PREC_ROOT && !g->dur[g->pred[e]])
				return false;
	}
	if (last >= n)
		return g->dur[b->to[last - n]] != 0;
	for (uint32_t e = 0; e < g->n_edges; e++)
		if (g->pred[e] == last && !g->lag[e] && !g->dur[b->to[e]])
			return false;
	return true;
}

static void bf_visit(struct bf *b, uint32_t first, uint32_t el, int64_t len, uint64_t els,
		     uint64_t eds)
{
	const struct prec_graph *g = b->g;
	uint32_t n = g->n;

	len += el < n ? g->dur[el] : g->lag[el - n];
	els |= 1ULL << el;
	b->paths++;
	if (b->pass == 0) {
		if (len > b->M)
			b->M = len;
		if (el < n && len > b->end_max[el])
			b->end_max[el] = len;
	} else if (len == b->M && bf_maximal(b, first, el)) {
		b->common_el &= els;
		b->common_ed &= eds;
	}
	if (el < n) {
		for (uint32_t e = 0; e < g->n_edges; e++) {
			if (g->pred[e] != el)
				continue;
			if (g->lag[e])
				bf_visit(b, first, n + e, len, els, eds);
			else
				bf_visit(b, first, b->to[e], len, els, eds | 1ULL << e);
		}
	} else {
		bf_visit(b, first, b->to[el - n], len, els, eds);
	}
}

/* Longest path starting at element el. */
static int64_t bf_longest_from(struct bf *b, uint32_t el)
{
	const struct prec_graph *g = b->g;
	uint32_t n = g->n;
	int64_t best = 0;

	if (el < n) {
		for (uint32_t e = 0; e < g->n_edges; e++) {
			int64_t x;

			if (g->pred[e] != el)
				continue;
			x = g->lag[e] ? bf_longest_from(b, n + e) : bf_longest_from(b, b->to[e]);
			if (x > best)
				best = x;
		}
		return g->dur[el] + best;
	}
	return g->lag[el - n] + bf_longest_from(b, b->to[el - n]);
}

static void bf_run(struct bf *b, const struct prec_graph *g)
{
	uint32_t n = g->n, nel = n + g->n_edges;

	memset(b, 0, sizeof(*b));
	b->g = g;
	b->to = malloc((g->n_edges + 1) * sizeof(*b->to));
	b->end_max = calloc(n + 1, sizeof(*b->end_max));
	b->from_max = calloc(n + 1, sizeof(*b->from_max));
	for (uint32_t t = 0; t < n; t++)
		for (uint32_t e = g->pred_off[t]; e < g->pred_off[t + 1]; e++)
			b->to[e] = t;
	for (b->pass = 0; b->pass < 2; b->pass++) {
		b->common_el = b->common_ed = ~0ULL;
		for (uint32_t el = 0; el < nel; el++)
			if (el < n || g->lag[el - n])
				bf_visit(b, el, el, 0, 0, 0);
	}
	for (uint32_t t = 0; t < n; t++)
		b->from_max[t] = bf_longest_from(b, t);
}

static void bf_free(struct bf *b)
{
	free(b->to);
	free(b->end_max);
	free(b->from_max);
}

/* A path returned by cpa__path_into is a real, tight path of the right length. */
static void check_path(const struct prec_graph *g, const struct cpa *c, uint32_t v,
		       unsigned long long seed)
{
	struct cpa_hop h[64];
	long len = cpa__path_into(c, g, v, h, 64);
	int64_t t;

	cr_assert(len >= 1 && len <= 64, "seed %llu", seed);
	cr_assert_eq(h[len - 1].task, v);
	if (h[0].edge == CPA_NONE) {
		t = 0;
	} else {
		cr_assert_eq(g->pred[h[0].edge], PREC_ROOT, "seed %llu", seed);
		t = g->lag[h[0].edge];
	}
	for (long i = 0; i < len; i++) {
		uint32_t x = h[i].task;

		if (i) {
			uint32_t e = h[i].edge;

			cr_assert(e >= g->pred_off[x] && e < g->pred_off[x + 1], "seed %llu", seed);
			cr_assert_eq(g->pred[e], h[i - 1].task, "seed %llu", seed);
			t += g->lag[e];
		}
		cr_assert_eq(h[i].est, t, "seed %llu: hop %ld of the path into %u", seed, i, v);
		cr_assert_eq(c->est[x], t);
		t += g->dur[x];
	}
	cr_assert_eq(t, c->est[v] + g->dur[v]);
}

static struct prec_graph *random_small_graph(unsigned long long *s)
{
	uint32_t n = (uint32_t)tu_rand_range(s, 1, 7), perm[7];
	int64_t dur[7];
	struct prec_edge ed[24];
	size_t m = 0, want = (size_t)tu_rand_range(s, 0, 14);
	struct prec_graph *g;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = (uint32_t)tu_rand_range(s, 0, i);

		perm[i] = perm[j];
		perm[j] = i;
		dur[i] = tu_rand_range(s, 0, 3);
	}
	while (m < want) {
		uint32_t a = (uint32_t)tu_rand_range(s, 0, n - 1), b = (uint32_t)tu_rand_range(s, 0, n - 1);
		int64_t lag = tu_rand_range(s, -2, 2);

		if (lag < 0)
			lag = 0;
		if (tu_rand_range(s, 0, 5) == 0) {
			ed[m++] = (struct prec_edge){ PREC_ROOT, perm[b], lag + 1, PREC_EDGE_INIT, 0 };
			continue;
		}
		if (a == b)
			continue;
		if (a > b) {
			uint32_t x = a;

			a = b;
			b = x;
		}
		ed[m++] = (struct prec_edge){ perm[a], perm[b], lag, PREC_EDGE_GIVEN, 0 };
	}
	cr_assert_eq(prec_graph__from_edges(n, dur, ed, m, &g), 0);
	return g;
}

Test(cpa, brute_force_small_graphs)
{
	long paths = 0;

	for (unsigned long long seed = 1; seed <= 20000; seed++) {
		unsigned long long s = seed * 0xD1B54A32D192ED03ULL;
		struct prec_graph *g = random_small_graph(&s);
		struct cpa *c = run(g);
		struct cpa_hop *common;
		size_t nc;
		uint64_t got_el = 0, got_ed = 0, want_ed;
		struct bf b;

		bf_run(&b, g);
		paths += b.paths;
		cr_assert_eq(c->makespan, b.M, "seed %llu", seed);
		for (uint32_t t = 0; t < g->n; t++) {
			/* Lemma 1 and Lemma 3. */
			cr_assert_eq(c->est[t] + g->dur[t], b.end_max[t], "seed %llu task %u", seed, t);
			cr_assert_eq(c->lst[t], c->makespan - b.from_max[t], "seed %llu task %u", seed, t);
			check_path(g, c, t, seed);
		}
		for (uint32_t t = 0; t < g->n; t++)
			for (uint32_t e = g->pred_off[t]; e < g->pred_off[t + 1]; e++)
				if (g->lag[e] && g->pred[e] != PREC_ROOT)
					cr_assert_eq(cpa__edge_float(c, g, t, e),
						     c->makespan - (b.end_max[g->pred[e]] + g->lag[e] +
								    b.from_max[t]),
						     "seed %llu edge %u", seed, e);
		cr_assert_eq(cpa__common(c, g, &common, &nc), 0);
		for (size_t i = 0; i < nc; i++) {
			uint32_t e = common[i].edge;

			got_el |= 1ULL << common[i].task;
			cr_assert_eq(common[i].est, c->est[common[i].task]);
			if (i)
				cr_assert_lt(c->est[common[i - 1].task], c->est[common[i].task] + 1);
			if (e == CPA_NONE)
				continue;
			if (g->lag[e])
				got_el |= 1ULL << (g->n + e);
			else
				got_ed |= 1ULL << e;
		}
		want_ed = b.common_ed;
		cr_assert_eq(got_el, b.common_el, "seed %llu: common elements %llx, want %llx",
			     seed, (unsigned long long)got_el, (unsigned long long)b.common_el);
		cr_assert_eq(got_ed, want_ed, "seed %llu: common edges %llx, want %llx", seed,
			     (unsigned long long)got_ed, (unsigned long long)want_ed);
		free(common);
		bf_free(&b);
		cpa__free(c);
		prec_graph__free(g);
	}
	cr_log_info("brute force enumerated %ld paths", paths);
}

/* ---------------------------------------------------------------------------
 * Theorems 1 and 2: a random task graph, its non-delay Gantt chart, and the
 * reconstruction from that chart.
 */
struct truth {
	uint32_t n_vis, n;	/* visible tasks are 0 .. n_vis - 1 */
	int64_t *dur;
	struct prec_edge *ed;
	size_t m, cap;
	int64_t eps;		/* longest chain of hidden tasks */
};

static void add_edge(struct truth *t, uint32_t a, uint32_t b)
{
	if (t->m == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->ed = realloc(t->ed, t->cap * sizeof(*t->ed));
	}
	t->ed[t->m++] = (struct prec_edge){ a, b, 0, PREC_EDGE_GIVEN, 0 };
}

/* A hidden chain of one or two tasks, total duration in [1, epsmax], from a to b. */
static void add_hidden(struct truth *t, unsigned long long *s, uint32_t a, uint32_t b,
		       int64_t epsmax)
{
	int64_t total = tu_rand_range(s, 1, epsmax);
	int two = total >= 2 && (tu_rand(s) & 1);
	int64_t d1 = two ? tu_rand_range(s, 1, total - 1) : total;
	uint32_t h1 = t->n++, h2 = two ? t->n++ : h1;

	t->dur[h1] = d1;
	if (two) {
		t->dur[h2] = total - d1;
		add_edge(t, h1, h2);
	}
	if (a != PREC_ROOT)
		add_edge(t, a, h1);
	add_edge(t, h2, b);
	if (total > t->eps)
		t->eps = total;
}

/*
 * n_vis visible tasks with random ids over a random DAG (up to 3 predecessors
 * each among earlier positions). hide: the fraction (in 1/6) of edges that get
 * a hidden chain, and of sources that get a hidden initial chain.
 */
static void make_truth(struct truth *t, unsigned long long *s, uint32_t n_vis,
		       int64_t dmin, int64_t dmax, int hide, int64_t epsmax)
{
	uint32_t *perm = malloc(n_vis * sizeof(*perm));

	memset(t, 0, sizeof(*t));
	t->n_vis = t->n = n_vis;
	t->dur = malloc(3 * n_vis * 4 * sizeof(*t->dur));
	for (uint32_t i = 0; i < n_vis; i++) {
		uint32_t j = (uint32_t)tu_rand_range(s, 0, i);

		perm[i] = perm[j];
		perm[j] = i;
	}
	for (uint32_t i = 0; i < n_vis; i++)
		t->dur[perm[i]] = tu_rand_range(s, dmin, dmax);
	for (uint32_t i = 0; i < n_vis; i++) {
		int k = i ? (int)tu_rand_range(s, 0, 3) : 0;

		for (int j = 0; j < k; j++) {
			uint32_t p = (uint32_t)tu_rand_range(s, i > 30 ? i - 30 : 0, i - 1);

			if (tu_rand_range(s, 0, 5) < hide)
				add_hidden(t, s, perm[p], perm[i], epsmax);
			else
				add_edge(t, perm[p], perm[i]);
		}
		if (!k && i && tu_rand_range(s, 0, 5) < hide)
			add_hidden(t, s, PREC_ROOT, perm[i], epsmax);
	}
	free(perm);
}

static void free_truth(struct truth *t)
{
	free(t->dur);
	free(t->ed);
}

static void check_theorem(unsigned long long seed, uint32_t n_vis, int64_t dmin, int hide,
			  int64_t epsmax)
{
	unsigned long long s = seed * 0x2545F4914F6CDD1DULL;
	struct truth tr;
	struct prec_graph *tg, *g, *gn;
	struct cpa *tc, *c;
	struct prec_task *gantt;
	struct prec_opts o = { .has_origin = 1, .origin_ns = 0 };
	struct cpa_hop *h;
	uint32_t *bad;
	size_t nb;
	long len;

	make_truth(&tr, &s, n_vis, dmin, 20, hide, epsmax);
	cr_assert_eq(prec_graph__from_edges(tr.n, tr.dur, tr.ed, tr.m, &tg), 0, "seed %llu", seed);
	tc = run(tg);
	/* Alg 1's est is the non-delay interpretation: the Gantt chart. */
	gantt = malloc(n_vis * sizeof(*gantt));
	for (uint32_t v = 0; v < n_vis; v++)
		gantt[v] = (struct prec_task){ tc->est[v], tc->est[v] + tr.dur[v] };
	o.eps_ns = tr.eps;
	cr_assert_eq(prec_graph__build(gantt, n_vis, &o, &g), 0, "seed %llu", seed);
	c = run(g);
	cr_assert_eq(c->makespan, tc->makespan, "seed %llu: makespan %lld, truth %lld", seed,
		     (long long)c->makespan, (long long)tc->makespan);
	for (uint32_t v = 0; v < n_vis; v++)
		if (cpa__critical(tc, v))
			cr_assert(cpa__critical(c, v), "seed %llu: truly critical task %u "
				  "not critical in the reconstruction (eps %lld)", seed, v,
				  (long long)tr.eps);
	/* A safe eps reproduces every observed start. */
	cr_assert_eq(cpa__start_mismatches(c, g, gantt, n_vis, &bad, &nb), 0);
	cr_assert_eq(nb, 0, "seed %llu: %zu starts differ", seed, nb);
	free(bad);
	/* The reconstructed critical path into the last task has the makespan's length. */
	len = cpa__path_into(c, g, c->last, NULL, 0);
	h = malloc(len * sizeof(*h));
	cr_assert_eq(cpa__path_into(c, g, c->last, h, len), len);
	cr_assert_eq(h[len - 1].est + g->dur[c->last], c->makespan);
	for (long i = 0; i < len; i++)
		cr_assert(cpa__critical(c, h[i].task));
	free(h);
	/* And naive = sorted here too. */
	if (n_vis <= 400) {
		cr_assert_eq(precedence_ref_build(gantt, n_vis, &o, &gn), 0);
		cr_assert_eq(gn->n_edges, g->n_edges, "seed %llu", seed);
		cr_assert_eq(gn->n_candidates, g->n_candidates, "seed %llu", seed);
		prec_graph__free(gn);
	}
	free(gantt);
	cpa__free(c);
	prec_graph__free(g);
	cpa__free(tc);
	prec_graph__free(tg);
	free_truth(&tr);
}

Test(cpa, theorem1_random)
{
	for (unsigned long long seed = 1; seed <= 300; seed++)
		check_theorem(seed, (uint32_t)(100 + seed % 400), 1, 0, 1);
}

/* Zero durations are outside Prop. 3, but the tie rule keeps Theorem 1. */
Test(cpa, theorem1_random_zero_durations)
{
	for (unsigned long long seed = 1; seed <= 300; seed++)
		check_theorem(seed + 7000, (uint32_t)(100 + seed % 400), 0, 0, 1);
}

Test(cpa, theorem2_hidden_control)
{
	for (unsigned long long seed = 1; seed <= 300; seed++)
		check_theorem(seed + 1000, (uint32_t)(100 + seed % 400), 1, 2, 1 + (int64_t)(seed % 6));
}

Test(cpa, theorem2_hidden_control_dense)
{
	for (unsigned long long seed = 1; seed <= 200; seed++)
		check_theorem(seed + 3000, (uint32_t)(100 + seed % 300), seed % 2 ? 0 : 1, 5,
			      2 + (int64_t)(seed % 9));
}

/* The CPA of a lean graph (durations and lags read off the tasks) is the full graph's. */
Test(cpa, lean_graph_same_results)
{
	for (unsigned long long seed = 1; seed <= 2000; seed++) {
		unsigned long long s = seed * 0x9E3779B97F4A7C15ULL;
		size_t n = (size_t)tu_rand_range(&s, 1, 40);
		struct prec_task t[40];
		struct prec_opts o = { .eps_ns = tu_rand_range(&s, 0, 5) }, lo;
		struct prec_graph *g, *gl;
		struct cpa *c, *cl;
		struct cpa_hop *h, *hl;
		size_t nh, nhl;

		for (size_t i = 0; i < n; i++) {
			int64_t st = tu_rand_range(&s, 0, 30);

			t[i] = (struct prec_task){ st, st + tu_rand_range(&s, 0, 5) };
		}
		lo = o;
		lo.lean = 1;
		cr_assert_eq(prec_graph__build(t, n, &o, &g), 0);
		cr_assert_eq(prec_graph__build(t, n, &lo, &gl), 0);
		cr_assert_null(gl->lag);
		c = run(g);
		cl = run(gl);
		cr_assert_eq(c->makespan, cl->makespan, "seed %llu", seed);
		cr_assert_eq(c->last, cl->last, "seed %llu", seed);
		for (uint32_t v = 0; v < n; v++) {
			cr_assert_eq(c->est[v], cl->est[v], "seed %llu task %u", seed, v);
			cr_assert_eq(c->lst[v], cl->lst[v], "seed %llu task %u", seed, v);
			cr_assert_eq(c->bind[v], cl->bind[v], "seed %llu task %u", seed, v);
			for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++)
				cr_assert_eq(cpa__edge_float(c, g, v, e), cpa__edge_float(cl, gl, v, e));
		}
		cr_assert_eq(cpa__common(c, g, &h, &nh), 0);
		cr_assert_eq(cpa__common(cl, gl, &hl, &nhl), 0);
		cr_assert_eq(nh, nhl, "seed %llu", seed);
		for (size_t i = 0; i < nh; i++) {
			cr_assert_eq(h[i].task, hl[i].task, "seed %llu", seed);
			cr_assert_eq(h[i].edge, hl[i].edge, "seed %llu", seed);
		}
		free(h);
		free(hl);
		cpa__free(c);
		cpa__free(cl);
		prec_graph__free(g);
		prec_graph__free(gl);
	}
}

/* A root lag into every task the build left without a predecessor. */
struct root_ctx {
	const uint8_t *orphan;
	const struct prec_task *t;
	int64_t t0;
};

static size_t root_lag_gen(void *ctx, uint32_t to, struct prec_edge *out)
{
	const struct root_ctx *r = ctx;

	if (!r->orphan[to])
		return 0;
	*out = (struct prec_edge){ .from = PREC_ROOT, .to = to, .lag = r->t[to].start_ns - r->t0,
				   .kind = PREC_EDGE_INIT };
	return 1;
}

/*
 * On a recording's kind of graph (lean, a predecessor for every task) the
 * shortcut gives what Algorithm 1 gives: the observed starts as est (the
 * claim it rests on), the makespan, the last task and the critical tasks.
 */
Test(cpa, observed_equals_algorithm1)
{
	size_t compared = 0;

	for (unsigned long long seed = 1; seed <= 3000; seed++) {
		unsigned long long s = seed * 0xD1B54A32D192ED03ULL;
		size_t n = (size_t)tu_rand_range(&s, 1, 60);
		struct prec_task t[60];
		struct prec_opts o = { .eps_ns = tu_rand_range(&s, 0, 6), .lean = 1 };
		struct prec_graph *g;
		struct cpa *c;
		struct cpa_observed ob;
		uint8_t orphan[60] = { 0 };
		size_t norphan = 0, ncrit = 0;

		for (size_t i = 0; i < n; i++) {
			int64_t st = tu_rand_range(&s, 0, 40);

			t[i] = (struct prec_task){ st, st + tu_rand_range(&s, 0, 6) };
		}
		cr_assert_eq(prec_graph__build(t, n, &o, &g), 0);
		for (uint32_t v = 0; v < n; v++) {
			orphan[v] = g->pred_off[v] == g->pred_off[v + 1] && t[v].start_ns != g->t0;
			norphan += orphan[v];
		}
		if (norphan)
			cr_assert_eq(cpa__observed(g, &ob), -EINVAL, "seed %llu: a task after t0 without predecessor", seed);
		/* Half the graphs keep some orphans to check the refusal above. */
		if (norphan && (seed & 1)) {
			prec_graph__free(g);
			continue;
		}
		if (norphan) {
			struct root_ctx r = { orphan, t, g->t0 };

			cr_assert_eq(prec_graph__add_edges(g, root_lag_gen, &r), 0, "seed %llu", seed);
		}
		c = run(g);
		cr_assert_eq(cpa__observed(g, &ob), 0, "seed %llu", seed);
		for (uint32_t v = 0; v < n; v++) {
			cr_assert_eq(c->est[v], t[v].start_ns - g->t0, "seed %llu task %u", seed, v);
			ncrit += cpa__critical(c, v);
		}
		cr_assert_eq(ob.makespan, c->makespan, "seed %llu", seed);
		cr_assert_eq(ob.last, c->last, "seed %llu", seed);
		cr_assert_eq(ob.ncritical, ncrit, "seed %llu: %u critical, Algorithm 1 %zu", seed, ob.ncritical, ncrit);
		compared++;
		cpa__free(c);
		prec_graph__free(g);
	}
	cr_assert_geq(compared, 1500, "only %zu graphs compared", compared);
}

Test(cpa, observed_needs_lean_graph)
{
	static const struct prec_task t[] = { { 0, 2 }, { 2, 3 } };
	struct prec_opts o = { .eps_ns = 1 };
	struct prec_graph *g;
	struct cpa_observed ob;

	cr_assert_eq(prec_graph__build(t, 2, &o, &g), 0);
	cr_assert_eq(cpa__observed(g, &ob), -EINVAL);
	prec_graph__free(g);
}
