// SPDX-License-Identifier: MIT
/*
 * Algorithm 1 of Hendriks & Vaandrager with lags on the edges
 * (docs/ALGORITHMS.md §5.4.8), walking back binding predecessors (Lemma 1),
 * and the part common to all critical paths (the paper's §II-B).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cpa.h"

void cpa__free(struct cpa *c)
{
	if (!c)
		return;
	free(c->est);
	free(c->lst);
	free(c->bind);
	free(c);
}

/* End of the control task on edge e into v, i.e. when it lets v start. */
static inline int64_t edge_ready(const struct cpa *c, const struct prec_graph *g,
				 uint32_t v, uint32_t e)
{
	uint32_t u = g->pred[e];

	return (u == PREC_ROOT ? 0 : c->est[u] + prec_dur(g, u)) + prec_lag(g, v, e);
}

/* Is edge a a better binding edge into v than b, both giving the same est? */
static inline bool binds_better(const struct prec_graph *g, uint32_t v,
				uint32_t a, uint32_t b)
{
	int64_t la = prec_lag(g, v, a), lb = prec_lag(g, v, b);

	if (la != lb)
		return la < lb;
	if (g->pred[a] != g->pred[b])
		return g->pred[a] < g->pred[b];
	return a < b;
}

int cpa__run(const struct prec_graph *g, struct cpa **out)
{
	uint32_t n = g->n;
	size_t k = n ? n : 1;
	struct cpa *c;
	int err = -ENOMEM;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->n = n;
	c->last = CPA_NONE;
	c->est = malloc(k * sizeof(*c->est));
	c->lst = malloc(k * sizeof(*c->lst));
	c->bind = malloc(k * sizeof(*c->bind));
	if (!c->est || !c->lst || !c->bind)
		goto fail;

	/* Forward: est(v) = max over edges of est(u) + d(u) + lag, max {} = 0. */
	err = -EOVERFLOW;
	for (uint32_t p = 0; p < n; p++) {
		uint32_t v = g->order[p], b = CPA_NONE;
		int64_t best = 0;

		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			uint32_t u = g->pred[e];
			int64_t x = 0;

			if (u != PREC_ROOT &&
			    __builtin_add_overflow(c->est[u], prec_dur(g, u), &x))
				goto fail;
			if (__builtin_add_overflow(x, prec_lag(g, v, e), &x))
				goto fail;
			if (b == CPA_NONE || x > best ||
			    (x == best && binds_better(g, v, e, b))) {
				best = x;
				b = e;
			}
		}
		c->est[v] = best;
		c->bind[v] = b;
	}

	/* The artificial sink: an edge from every task (docs/ALGORITHMS.md §5.1). */
	c->makespan = 0;
	for (uint32_t v = 0; v < n; v++) {
		int64_t end;

		if (__builtin_add_overflow(c->est[v], prec_dur(g, v), &end))
			goto fail;
		if (c->last == CPA_NONE || end > c->makespan) {
			c->makespan = end;
			c->last = v;
		}
	}

	/*
	 * Backward, pushing along the predecessor lists in reverse order:
	 * when v is reached all its successors have pushed into lst(v).
	 * lst >= est keeps every value in range.
	 */
	for (uint32_t v = 0; v < n; v++)
		c->lst[v] = c->makespan - prec_dur(g, v);
	for (uint32_t p = n; p-- > 0;) {
		uint32_t v = g->order[p];

		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			uint32_t u = g->pred[e];
			int64_t x;

			if (u == PREC_ROOT)
				continue;
			x = c->lst[v] - prec_lag(g, v, e) - prec_dur(g, u);
			if (x < c->lst[u])
				c->lst[u] = x;
		}
	}
	*out = c;
	return 0;
fail:
	cpa__free(c);
	return err;
}

int cpa__observed(const struct prec_graph *g, struct cpa_observed *out)
{
	uint32_t n = g->n;
	uint64_t *crit;
	int64_t end;

	*out = (struct cpa_observed){ .last = CPA_NONE };
	if (!g->tasks)
		return -EINVAL;
	for (uint32_t v = 0; v < n; v++) {
		/* est = max {} = 0 must be the observed start */
		if (g->pred_off[v] == g->pred_off[v + 1] && g->tasks[v].start_ns != g->t0)
			return -EINVAL;
		end = g->tasks[v].end_ns - g->t0;
		if (out->last == CPA_NONE || end > out->makespan) {
			out->makespan = end;
			out->last = v;
		}
	}
	crit = calloc(n / 64 + 1, sizeof(*crit));
	if (!crit)
		return -ENOMEM;
	for (uint32_t p = n; p-- > 0;) {
		uint32_t v = g->order[p];

		if (!(crit[v / 64] >> (v % 64) & 1)) {
			if (g->tasks[v].end_ns - g->t0 != out->makespan)
				continue;
			crit[v / 64] |= 1ull << (v % 64);
		}
		out->ncritical++;
		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			uint32_t u = g->pred[e];

			if (u != PREC_ROOT)
				crit[u / 64] |= 1ull << (u % 64);
		}
	}
	free(crit);
	return 0;
}

int64_t cpa__edge_float(const struct cpa *c, const struct prec_graph *g,
			uint32_t to, uint32_t e)
{
	return c->lst[to] - edge_ready(c, g, to, e);
}

long cpa__path_into(const struct cpa *c, const struct prec_graph *g,
		    uint32_t task, struct cpa_hop *buf, size_t cap)
{
	size_t len = 0, i;
	uint32_t v;

	if (task >= c->n || c->n != g->n)
		return -EINVAL;
	for (v = task;;) {
		uint32_t e = c->bind[v];

		len++;
		if (e == CPA_NONE || g->pred[e] == PREC_ROOT)
			break;
		v = g->pred[e];
	}
	for (v = task, i = len; i-- > 0;) {
		uint32_t e = c->bind[v];

		if (i < cap)
			buf[i] = (struct cpa_hop){ v, e, c->est[v] };
		if (!i)
			break;
		v = g->pred[e];
	}
	return (long)len;
}

/*
 * The tight subgraph D holds the critical tasks and the control tasks of the
 * critical edges with a lag; an edge of D joins two of them when one ends
 * exactly when the other starts (an edge of the graph with float 0). A
 * maximal critical path is a path of D from an element without predecessor
 * in D to one without successor in D, and vice versa. Add a source S before
 * the first kind and a sink T after the second, and number the elements of D
 * in a topological order. Along a path the numbers increase, so:
 *
 *   x lies on every S-T path  <=>  no edge (a, b) of D + {S, T} has
 *                                  pos(a) < pos(x) < pos(b).
 *
 * (<=: a path avoiding x must step over pos(x) somewhere. =>: every element
 * of D lies on some critical path, so S ~> a -> b ~> T avoids x.) An edge
 * a -> b is on every path iff a and b are, nothing of D lies between them
 * and it is the only edge a -> b. One sweep from the right, keeping the
 * smallest source position of the edges seen so far, tests all of it: exact
 * integers, no path counts that overflow, O(n + edges).
 *
 * The order: the tasks in g->order, each preceded by the control tasks of
 * its critical in-edges. That is topological, since a control task has one
 * predecessor (earlier in g->order) and one successor (right after it).
 * A root edge with lag 0 is no element and no constraint: it is ignored.
 */
static inline bool in_d(const struct cpa *c, const struct prec_graph *g,
			uint32_t v, uint32_t e)
{
	return (prec_lag(g, v, e) > 0 || g->pred[e] != PREC_ROOT) &&
	       !cpa__edge_float(c, g, v, e);
}

int cpa__common(const struct cpa *c, const struct prec_graph *g,
		struct cpa_hop **out, size_t *n_out)
{
	uint32_t n = g->n;
	int64_t *dpos, q = 0, m = INT64_MAX;
	uint8_t *has_succ;
	struct cpa_hop *hops;
	size_t nh = 0;

	*out = NULL;
	*n_out = 0;
	if (c->n != n)
		return -EINVAL;
	for (uint32_t v = 0; v < n; v++)
		nh += cpa__critical(c, v);
	dpos = malloc((n ? n : 1) * sizeof(*dpos));
	has_succ = calloc(n ? n : 1, 1);
	hops = malloc((nh ? nh : 1) * sizeof(*hops));
	if (!dpos || !has_succ || !hops) {
		free(dpos);
		free(has_succ);
		free(hops);
		return -ENOMEM;
	}
	nh = 0;
	for (uint32_t p = 0; p < n; p++) {
		uint32_t v = g->order[p];

		if (!cpa__critical(c, v)) {
			dpos[v] = -1;
			continue;
		}
		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			if (!in_d(c, g, v, e))
				continue;
			if (g->pred[e] != PREC_ROOT)
				has_succ[g->pred[e]] = 1;
			q += prec_lag(g, v, e) > 0;
		}
		dpos[v] = q++;
	}
	for (uint32_t v = 0; v < n; v++)
		if (dpos[v] >= 0 && !has_succ[v] && dpos[v] < m)
			m = dpos[v];
	free(has_succ);
	/* m is now the smallest source of an edge into T. */
	for (uint32_t p = n; p-- > 0;) {
		uint32_t v = g->order[p], nctl = 0, cand = CPA_NONE, ncand = 0;
		int64_t qv = dpos[v], ms = INT64_MAX, first;
		bool is_common;

		if (qv < 0)
			continue;
		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			uint32_t u = g->pred[e];

			if (!in_d(c, g, v, e))
				continue;
			if (prec_lag(g, v, e) > 0) {
				nctl++;
				continue;
			}
			if (dpos[u] < ms)
				ms = dpos[u];
			if (dpos[u] == qv - 1) {
				cand = e;
				ncand++;
			}
		}
		first = qv - nctl;
		if (nctl && first < ms)
			ms = first;
		if (ms == INT64_MAX)
			ms = -1;	/* no predecessor in D: an edge from S */
		is_common = m >= qv;
		if (is_common)
			hops[nh++] = (struct cpa_hop){ v, ncand == 1 ? cand : CPA_NONE,
						       c->est[v] };
		if (ms < m)
			m = ms;
		/* v's control tasks, right to left: positions qv-1 .. first. */
		for (uint32_t e = g->pred_off[v + 1]; nctl && e-- > g->pred_off[v];) {
			uint32_t u = g->pred[e];
			int64_t pc, src;

			if (prec_lag(g, v, e) == 0 || !in_d(c, g, v, e))
				continue;
			pc = first + --nctl;
			/* Its only successor is v, so v is common too. */
			if (m >= pc && is_common)
				hops[nh - 1].edge = e;
			src = u == PREC_ROOT ? -1 : dpos[u];
			if (src < m)
				m = src;
		}
	}
	free(dpos);
	/* Reverse into topological order; keep an exact edge only from the previous hop. */
	for (size_t i = 0; i < nh / 2; i++) {
		struct cpa_hop t = hops[i];

		hops[i] = hops[nh - 1 - i];
		hops[nh - 1 - i] = t;
	}
	for (size_t i = 0; i < nh; i++) {
		uint32_t e = hops[i].edge;

		if (e != CPA_NONE && prec_lag(g, hops[i].task, e) == 0 &&
		    (i == 0 || g->pred[e] != hops[i - 1].task))
			hops[i].edge = CPA_NONE;
	}
	*out = hops;
	*n_out = nh;
	return 0;
}

int cpa__start_mismatches(const struct cpa *c, const struct prec_graph *g,
			  const struct prec_task *tasks, size_t n,
			  uint32_t **out, size_t *n_out)
{
	uint32_t *list;
	size_t k = 0;

	*out = NULL;
	*n_out = 0;
	if (n != g->n || c->n != g->n)
		return -EINVAL;
	for (uint32_t t = 0; t < n; t++)
		k += c->est[t] + g->t0 != tasks[t].start_ns;
	list = malloc((k ? k : 1) * sizeof(*list));
	if (!list)
		return -ENOMEM;
	k = 0;
	for (uint32_t t = 0; t < n; t++)
		if (c->est[t] + g->t0 != tasks[t].start_ns)
			list[k++] = t;
	*out = list;
	*n_out = k;
	return 0;
}
