// SPDX-License-Identifier: MIT
/*
 * Which critical path. On a recording every start is reproduced (graph.c),
 * so every predecessor that ends just in time is tight and many paths tie;
 * all are critical in the paper's sense. The one reported into a task
 * follows, at each step, the tight edge of the highest rank: CONT, PREEMPT
 * > WAKEUP > interrupt release > GAP > BLOCKED > RESOURCE > unexplained
 * release; then the smaller lag, then the lower predecessor id. So the path
 * stays on the causal chain (what woke whom), and the time a thread waited
 * for a CPU is a lag, which the accounting (walk.c) splits by who held that
 * CPU. The binding edges form a forest (one per task), so the path into any
 * task is walked in O(its length). Cost O(n + edges), 4 bytes per task.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

static int cat_rank(uint8_t cat)
{
	switch (cat) {
	case CRIT_CAT_CONT:
	case CRIT_CAT_PREEMPT:
		return 7;
	case CRIT_CAT_WAKEUP:
		return 6;
	case CRIT_CAT_REL_HARDIRQ:
	case CRIT_CAT_REL_SOFTIRQ:
	case CRIT_CAT_REL_KERNEL:
	case CRIT_CAT_REL_WAKER:
		return 5;
	case CRIT_CAT_GAP:
	case CRIT_CAT_NONE:
	case CRIT_CAT_INIT:
		return 4;
	case CRIT_CAT_BLOCKED:
		return 3;
	case CRIT_CAT_RESOURCE:
		return 2;
	default:
		return 1;
	}
}

void bind_rank(const struct prec_graph *g, const int64_t *est, uint32_t *bind)
{
	for (uint32_t v = 0; v < g->n; v++) {
		uint32_t b = CRIT_NONE;
		int64_t blag = 0;
		int br = 0;

		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			uint32_t u = g->pred[e];
			int64_t lag = prec_lag(g, v, e);
			int r;

			if (est && (u == PREC_ROOT ? 0 : est[u] + prec_dur(g, u)) + lag != est[v])
				continue;
			r = cat_rank(g->cat[e]);
			if (b == CRIT_NONE || r > br || (r == br && (lag < blag || (lag == blag && u < g->pred[b])))) {
				b = e;
				br = r;
				blag = lag;
			}
		}
		bind[v] = b;
	}
}

/*
 * Algorithm 1 on a recording's graph, and the binding edge of every task by
 * rank. The graph reproduces every observed start (graph.c), so the
 * earliest starts are the observed ones and every edge is tight: what is
 * left is which tasks are critical (cpa__observed). Algorithm 1's forward
 * pass would only give back the observed starts.
 */
int bind_observed(const struct model *m, const struct prec_graph *g, struct cpa_observed *ob, uint32_t **bind)
{
	int err;

	*bind = NULL;
	err = cpa__observed(g, ob);
	if (err)
		return err;
	*bind = malloc((m->n ? m->n : 1) * sizeof(**bind));
	if (!*bind)
		return -ENOMEM;
	bind_rank(g, NULL, *bind);
	return 0;
}
