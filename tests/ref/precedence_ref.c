// SPDX-License-Identifier: MIT
/* Algorithm 4 of Hendriks & Vaandrager literally, O(n^2): see precedence_ref.h. */
#include <errno.h>
#include <stdlib.h>

#include "critical/internal.h"
#include "ref/precedence_ref.h"

int precedence_ref_build(const struct prec_task *tasks, size_t n, const struct prec_opts *opts,
			 struct prec_graph **out)
{
	struct build_ctx bc;
	struct prec_graph *g;
	struct prec_edge *el = NULL;
	uint64_t total = 0, m = 0;
	int err;

	*out = NULL;
	err = prec_validate(tasks, n, opts, &bc);
	if (err)
		return err;
	/* The budget counts the same candidates as the sorted scan. */
	for (uint32_t t = 0; t < bc.n; t++) {
		for (uint32_t u = 0; u < bc.n; u++) {
			int64_t gap = prec_rel_start(&bc, u) - prec_rel_end(&bc, t);

			total += t != u && gap >= 0 && gap <= bc.eps;
		}
		total += prec_has_init(&bc, prec_rel_start(&bc, t));
	}
	if (total > bc.max_edges)
		return -E2BIG;
	g = prec_graph_new(&bc);
	if (!g)
		return -ENOMEM;
	g->n_candidates = total;
	err = -ENOMEM;
	el = malloc((total ? total : 1) * sizeof(*el));
	if (!el)
		goto fail;
	/* Algorithm 4, lines 3-20, over the original tasks only (docs/ALGORITHMS.md §5.4.7). */
	for (uint32_t t = 0; t < bc.n; t++) {
		int64_t st = prec_rel_start(&bc, t);
		uint8_t cat;

		for (uint32_t u = 0; u < bc.n; u++) {
			int64_t gap = prec_rel_start(&bc, u) - prec_rel_end(&bc, t);
			enum prec_edge_kind kind;

			if (t == u)
				continue;
			if (gap == 0)
				kind = PREC_EDGE_EXACT;
			else if (gap > 0 && gap <= bc.eps)
				kind = PREC_EDGE_GAP;
			else
				continue;
			err = prec_decide(&bc, opts, opts ? opts->edge_ctx : NULL, t, u, gap, kind, &cat);
			if (err < 0)
				goto fail;
			if (err)
				el[m++] = (struct prec_edge){ t, u, gap, kind, cat };
		}
		if (prec_has_init(&bc, st)) {
			err = prec_decide(&bc, opts, opts ? opts->edge_ctx : NULL, PREC_ROOT, t, st, PREC_EDGE_INIT,
					  &cat);
			if (err < 0)
				goto fail;
			if (err)
				el[m++] = (struct prec_edge){ PREC_ROOT, t, st, PREC_EDGE_INIT, cat };
		}
	}
	err = prec_graph__from_list(g, el, m);
	if (err)
		goto fail;
	g->n_edges = (uint32_t)m;
	g->n_dropped = total - m;
	err = prec_graph__fill_dur(g, tasks);
	if (err)
		goto fail;
	prec_graph__count_kinds(g);
	free(el);
	*out = g;
	return 0;
fail:
	free(el);
	prec_graph__free(g);
	return err;
}
