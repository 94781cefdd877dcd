// SPDX-License-Identifier: MIT
/*
 * Upstream order, learnt from the wakeups, and the most upstream actor
 * that breaks its period: the rule is in src/actors/actors.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

static int cmp_edge(const void *x, const void *y)
{
	const struct actor_edge *a = x, *b = y;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return (a->to > b->to) - (a->to < b->to);
}

/* Does the syscall actor a have an invocation containing ts? */
static bool in_invocation(const struct actor *a, int64_t ts)
{
	size_t lo = 0, hi = a->ninv;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->inv[mid].start_ns <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && ts <= a->inv[lo - 1].end_ns;
}

/* End of the thread's last run that starts before ts (its previous wait began there); 0 if none. */
static uint64_t run_before_end(const struct timeline *tl, const struct tl_thread *th, size_t run, uint64_t ts)
{
	size_t lo = th->run0, hi = th->run0 + th->nrun;

	if (run == SIZE_MAX) {
		/* the run containing ts: the last one starting at or before it */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (tl->runs[mid].start <= ts)
				lo = mid + 1;
			else
				hi = mid;
		}
		run = lo > th->run0 ? lo - 1 : th->run0;
	}
	return run > th->run0 ? tl->runs[run - 1].end : 0;
}

/*
 * The wakeups thread th received with ts > lo_ts: index into its
 * wk_by_wakee slice, known to be at least from. A thread's invocations ask
 * in time order, so the answer is a few wakeups on from the last one:
 * galloping forward finds it without a search over all of them (a busy
 * thread's million invocations each cost a score of cache misses so).
 */
static size_t wake_lower(const struct timeline *tl, const struct tl_thread *th, uint64_t lo_ts, size_t from)
{
	size_t lo = from, hi, step = 1;

	for (;;) {
		hi = lo + step - 1;
		if (hi >= th->nwr) {
			hi = th->nwr;
			break;
		}
		if (tl->wk[tl->wk_by_wakee[th->wr0 + hi]].ts > lo_ts)
			break;
		lo = hi + 1;
		step *= 2;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl->wk[tl->wk_by_wakee[th->wr0 + mid]].ts <= lo_ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Counts, for every pair of actors, the invocations of B that A woke (each
 * invocation counted once per waker). Per B, a counter per actor and the
 * list of those touched: linear in the wakeups, no sort of the pairs.
 */
static int collect_edges(struct ctx *c, struct actor_edge **out, size_t *nout)
{
	const struct timeline *tl = c->tl;
	struct actors_result *r = c->r;
	size_t na = r->n, ne = 0, cap = 0, ntouched;
	long *head = malloc((tl->nthreads ? tl->nthreads : 1) * sizeof(*head));
	long *next = malloc((na ? na : 1) * sizeof(*next));
	uint64_t *stamp = calloc(na ? na : 1, sizeof(*stamp));
	size_t *count = calloc(na ? na : 1, sizeof(*count));
	size_t *touched = malloc((na ? na : 1) * sizeof(*touched));
	struct actor_edge *e = NULL;
	uint64_t cur = 0;
	int err = 0;

	if (!head || !next || !stamp || !count || !touched) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < tl->nthreads; i++)
		head[i] = -1;
	for (size_t i = na; i-- > 0;) {
		next[i] = head[r->v[i].thread];
		head[r->v[i].thread] = i;
	}
	for (size_t b = 0; b < na; b++) {
		const struct actor *B = &r->v[b];
		const struct tl_thread *th = &tl->threads[B->thread];
		uint64_t prev = 0;

		ntouched = 0;
		for (size_t k = 0, from = 0; k < B->ninv; k++) {
			const struct actor_invocation *iv = &B->inv[k];
			uint64_t lo = B->kind == ACTOR_THREAD ?
				run_before_end(tl, th, iv->first, 0) :
				run_before_end(tl, th, SIZE_MAX, iv->start_ns);

			cur++;
			/* runs with an uncertain start may go back in time: search from the start */
			from = wake_lower(tl, th, lo, lo < prev ? 0 : from);
			prev = lo;
			for (size_t j = from; j < th->nwr; j++) {
				const struct tl_wakeup *w = &tl->wk[tl->wk_by_wakee[th->wr0 + j]];
				int64_t wt = w->waking_ts && w->waking_ts <= w->ts ? w->waking_ts : w->ts;

				if ((int64_t)w->ts > iv->end_ns)
					break;
				if (w->is_new || w->waker == TL_NONE || w->waker == B->thread)
					continue;
				for (long a = head[w->waker]; a >= 0; a = next[a]) {
					if (stamp[a] == cur)
						continue;
					if (r->v[a].kind == ACTOR_SYSCALL && !in_invocation(&r->v[a], wt))
						continue;
					stamp[a] = cur;
					if (!count[a]++)
						touched[ntouched++] = a;
				}
			}
		}
		for (size_t i = 0; i < ntouched; i++) {
			size_t a = touched[i];

			err = actors_grow((void **)&e, &cap, ne + 1, sizeof(*e));
			if (err)
				goto out;
			e[ne++] = (struct actor_edge){ .from = a, .to = b, .invocations = count[a] };
			count[a] = 0;
		}
	}
	if (ne)
		qsort(e, ne, sizeof(*e), cmp_edge);
out:
	free(head);
	free(next);
	free(stamp);
	free(count);
	free(touched);
	if (err) {
		free(e);
		return err;
	}
	*out = e;
	*nout = ne;
	return 0;
}

static size_t edge_count(const struct actor_edge *e, size_t n, size_t from, size_t to)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e[mid].from < from || (e[mid].from == from && e[mid].to < to))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && e[lo].from == from && e[lo].to == to ? e[lo].invocations : 0;
}

int upstream_edges(struct ctx *c)
{
	struct actors_result *r = c->r;
	struct actor_edge *all = NULL;
	size_t nall = 0;
	int err = collect_edges(c, &all, &nall);

	if (err)
		return err;
	r->edges = malloc((nall ? nall : 1) * sizeof(*r->edges));
	if (!r->edges) {
		free(all);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nall; i++) {
		const struct actor_edge *e = &all[i];
		size_t back = edge_count(all, nall, e->to, e->from);

		if (e->invocations < ACTORS_EDGE_MIN || e->invocations * 10 < r->v[e->to].ninv ||
		    back > 2 * e->invocations)
			continue;
		r->edges[r->nedges++] = *e;
	}
	free(all);
	return 0;
}

/* Earlier first trusted major break: start, then end, then index. */
static bool breaks_earlier(const struct actors_result *r, size_t x, size_t y)
{
	const struct actor_break *bx = NULL, *by = NULL;

	for (size_t i = 0; i < r->v[x].nbreaks && !bx; i++)
		if (!r->v[x].breaks[i].data_missing && actor_break_major(&r->v[x], &r->v[x].breaks[i]))
			bx = &r->v[x].breaks[i];
	for (size_t i = 0; i < r->v[y].nbreaks && !by; i++)
		if (!r->v[y].breaks[i].data_missing && actor_break_major(&r->v[y], &r->v[y].breaks[i]))
			by = &r->v[y].breaks[i];
	if (bx->start_ns != by->start_ns)
		return bx->start_ns < by->start_ns;
	if (bx->end_ns != by->end_ns)
		return bx->end_ns < by->end_ns;
	return x < y;
}

int upstream_find(struct ctx *c)
{
	struct actors_result *r = c->r;
	size_t na = r->n, nb = 0;
	size_t *first = calloc(na + 1, sizeof(*first));
	size_t *queue = malloc((na ? na : 1) * sizeof(*queue));
	long *bidx = malloc((na ? na : 1) * sizeof(*bidx));
	size_t *brk = malloc((na ? na : 1) * sizeof(*brk));
	uint64_t *seen = calloc(na ? na : 1, sizeof(*seen));
	unsigned char *reach = NULL;
	int err = 0;

	r->upstream = -1;
	if (!first || !queue || !bidx || !brk || !seen) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < na; i++) {
		bidx[i] = r->v[i].breaking ? (long)nb : -1;
		if (r->v[i].breaking)
			brk[nb++] = i;
	}
	if (!nb)
		goto out;
	/* Adjacency: edges are sorted by `from`. */
	for (size_t e = 0; e < r->nedges; e++)
		first[r->edges[e].from + 1]++;
	for (size_t i = 0; i < na; i++)
		first[i + 1] += first[i];
	reach = calloc(nb * nb, 1);
	if (!reach) {
		err = -ENOMEM;
		goto out;
	}
	/* reach[x][y]: breaking actor x reaches breaking actor y (breadth first). */
	for (size_t x = 0; x < nb; x++) {
		size_t qh = 0, qt = 0;

		queue[qt++] = brk[x];
		seen[brk[x]] = x + 1;
		while (qh < qt) {
			size_t u = queue[qh++];

			for (size_t e = first[u]; e < first[u + 1]; e++) {
				size_t v = r->edges[e].to;

				if (seen[v] == x + 1)
					continue;
				seen[v] = x + 1;
				queue[qt++] = v;
				if (bidx[v] >= 0)
					reach[x * nb + bidx[v]] = 1;
			}
		}
	}
	for (size_t y = 0; y < nb; y++)
		for (size_t x = 0; x < nb && !r->v[brk[y]].fed; x++)
			if (x != y && reach[x * nb + y] && !reach[y * nb + x])
				r->v[brk[y]].fed = true;
	/*
	 * Among the unfed: widest reach, then worst relative lateness, then
	 * earliest. Breaking actors are those with a major break (actor.h):
	 * jitter of a source is no answer when the writer after it stalls
	 * for periods on end.
	 */
	{
		size_t best_reach = 0;
		double best_late = 0;

		for (size_t y = 0; y < nb; y++) {
			size_t i = brk[y], n = 0;
			double late;
			bool better;

			if (r->v[i].fed)
				continue;
			for (size_t z = 0; z < nb; z++)
				n += z != y && reach[y * nb + z];
			late = r->v[i].st.period_ns > 0 ? r->v[i].worst_lateness_ns / r->v[i].st.period_ns : 0;
			if (r->upstream < 0)
				better = true;
			else if (n != best_reach)
				better = n > best_reach;
			else if (late != best_late)
				better = late > best_late;
			else
				better = breaks_earlier(r, i, r->upstream);
			if (better) {
				r->upstream = i;
				best_reach = n;
				best_late = late;
			}
		}
	}
out:
	free(first);
	free(queue);
	free(bidx);
	free(brk);
	free(seen);
	free(reach);
	return err;
}
