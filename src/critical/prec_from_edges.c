// SPDX-License-Identifier: MIT
/* A precedence graph from an explicit list of edges, e.g. a model's (precedence.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int prec_graph__from_list(struct prec_graph *g, const struct prec_edge *el, uint64_t m)
{
	uint32_t n = g->n, *succ_off = NULL, *succ = NULL, *indeg = NULL;
	uint32_t head = 0, tail = 0;
	int err = -ENOMEM;

	g->pred_off = calloc((size_t)n + 1, sizeof(*g->pred_off));
	g->order = malloc((n ? n : 1) * sizeof(*g->order));
	if (!g->pred_off || !g->order || prec_graph__alloc_edges(g, m))
		return -ENOMEM;
	for (uint64_t i = 0; i < m; i++)
		g->pred_off[el[i].to + 1]++;
	for (uint32_t v = 0; v < n; v++)
		g->pred_off[v + 1] += g->pred_off[v];
	indeg = calloc((size_t)n + 1, sizeof(*indeg));
	succ_off = calloc((size_t)n + 2, sizeof(*succ_off));
	succ = malloc((m ? m : 1) * sizeof(*succ));
	if (!indeg || !succ_off || !succ)
		goto out;
	/* indeg doubles as the fill cursor per target here. */
	for (uint64_t i = 0; i < m; i++) {
		uint32_t v = el[i].to;

		prec_graph__put_edge(g, g->pred_off[v] + indeg[v]++, el[i].from, el[i].lag,
			 el[i].kind, el[i].cat);
		if (el[i].from != PREC_ROOT)
			succ_off[el[i].from + 2]++;
	}
	for (uint32_t v = 0; v < n; v++)
		succ_off[v + 2] += succ_off[v + 1];
	memset(indeg, 0, ((size_t)n + 1) * sizeof(*indeg));
	for (uint64_t i = 0; i < m; i++) {
		if (el[i].from == PREC_ROOT)
			continue;
		succ[succ_off[el[i].from + 1]++] = el[i].to;
		indeg[el[i].to]++;
	}
	/* succ_off[v .. v+1] now delimits the successors of v. */
	for (uint32_t v = 0; v < n; v++)
		if (!indeg[v])
			g->order[tail++] = v;
	while (head < tail) {
		uint32_t u = g->order[head++];

		for (uint32_t k = succ_off[u]; k < succ_off[u + 1]; k++)
			if (!--indeg[succ[k]])
				g->order[tail++] = succ[k];
	}
	err = tail == n ? 0 : -EINVAL;
out:
	free(indeg);
	free(succ_off);
	free(succ);
	return err;
}

int prec_graph__from_edges(size_t n, const int64_t *dur,
			   const struct prec_edge *edges, size_t n_edges,
			   struct prec_graph **out)
{
	struct prec_graph *g;
	int err;

	*out = NULL;
	if (n > PREC_MAX_TASKS || n_edges > PREC_MAX_EDGES)
		return -E2BIG;
	if ((n && !dur) || (n_edges && !edges))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (dur[i] < 0)
			return -EINVAL;
	for (size_t i = 0; i < n_edges; i++) {
		const struct prec_edge *e = &edges[i];

		if (e->to >= n || e->lag < 0 || e->from == e->to ||
		    (e->from != PREC_ROOT && e->from >= n))
			return -EINVAL;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->n = (uint32_t)n;
	g->dur = malloc((n ? n : 1) * sizeof(*g->dur));
	err = -ENOMEM;
	if (!g->dur)
		goto fail;
	if (n)
		memcpy(g->dur, dur, n * sizeof(*dur));
	err = prec_graph__from_list(g, edges, n_edges);
	if (err)
		goto fail;
	g->n_edges = (uint32_t)n_edges;
	g->n_candidates = n_edges;
	prec_graph__count_kinds(g);
	*out = g;
	return 0;
fail:
	prec_graph__free(g);
	return err;
}
