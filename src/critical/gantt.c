// SPDX-License-Identifier: MIT
/*
 * The stage over a Gantt chart (report FILE.csv), the paper's setting,
 * analysed as the paper says: tasks are the lines, Algorithm 4 with the
 * given eps (default 0, i.e. Algorithm 2: a model's output is non-delay),
 * initial control tasks per the pseudo-code, origin = earliest start.
 * Reported: makespan, critical tasks, the critical paths (or, when there
 * are more than CRIT_MAX_PATHS, the sub-path common to all of them:
 * certainly on a real critical path, Hendriks & Vaandrager §II-B), floats,
 * the paper's check of eps (the tasks whose recomputed start differs from
 * the observed one), and per actor the paths into its tasks (walk.c).
 * Algorithm 1 runs in full here: 20 bytes per task.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "file/gantt_csv.h"
#include "internal.h"

static int gantt_hook(void *ctx, uint32_t u, uint32_t v, int64_t gap, enum prec_edge_kind kind, uint8_t *cat)
{
	struct crit_edge_stats *st = ctx;

	(void)u;
	(void)v;
	(void)gap;
	if (kind == PREC_EDGE_INIT) {
		*cat = CRIT_CAT_INIT;
		st->releases[CRIT_CAT_INIT]++;
	} else if (kind == PREC_EDGE_GAP) {
		*cat = CRIT_CAT_GAP;
		st->cross++;
		st->unchecked++;
	} else {
		*cat = CRIT_CAT_NONE;
	}
	return 1;
}

static inline bool crit_edge(const struct cpa *c, const struct prec_graph *g, uint32_t v, uint32_t e)
{
	return (prec_lag(g, v, e) > 0 || g->pred[e] != PREC_ROOT) && cpa__edge_float(c, g, v, e) == 0;
}

/* Starts a critical path (no critical edge from a task into it, at time 0)? */
static bool path_start(const struct cpa *c, const struct prec_graph *g, uint32_t v)
{
	if (c->est[v] != 0 || !cpa__critical(c, v))
		return false;
	for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++)
		if (g->pred[e] != PREC_ROOT && crit_edge(c, g, v, e))
			return false;
	return true;
}

/* Lists the path on the stack (last task first there), if there is room. */
static int emit_path(struct critical_result *res, const uint32_t *stk, size_t depth)
{
	uint32_t *path;

	if (res->npaths_listed >= CRIT_MAX_PATHS)
		return 0;
	path = malloc(depth * sizeof(*path));
	if (!path)
		return -ENOMEM;
	for (size_t i = 0; i < depth; i++)
		path[i] = stk[depth - 1 - i];
	res->path_len[res->npaths_listed] = depth;
	res->paths[res->npaths_listed++] = path;
	return 0;
}

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * Counts the critical paths (maximal ones: from a start at 0 to a task
 * ending at the makespan with no critical successor) and lists up to
 * CRIT_MAX_PATHS of them, by a depth-first walk back over critical edges:
 * every critical task lies on a critical path, so every branch ends in a
 * path and the walk costs O(paths listed x length).
 */
static int gantt_paths(struct critical_result *res, const struct prec_graph *g, const struct cpa *c)
{
	uint32_t n = g->n;
	uint64_t *cnt = calloc(n ? n : 1, sizeof(*cnt));
	uint8_t *has_succ = calloc(n ? n : 1, 1);
	uint32_t *stk = malloc((n ? n : 1) * sizeof(*stk)), *cur = malloc((n ? n : 1) * sizeof(*cur));
	int err = -ENOMEM;

	res->paths = calloc(CRIT_MAX_PATHS, sizeof(*res->paths));
	res->path_len = calloc(CRIT_MAX_PATHS, sizeof(*res->path_len));
	if (!cnt || !has_succ || !stk || !cur || !res->paths || !res->path_len)
		goto out;
	for (uint32_t p = 0; p < n; p++) {
		uint32_t v = g->order[p];

		if (!cpa__critical(c, v))
			continue;
		cnt[v] = path_start(c, g, v);
		for (uint32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			if (!crit_edge(c, g, v, e))
				continue;
			if (g->pred[e] == PREC_ROOT) {
				cnt[v] = sat_add(cnt[v], 1);
			} else {
				cnt[v] = sat_add(cnt[v], cnt[g->pred[e]]);
				has_succ[g->pred[e]] = 1;
			}
		}
	}
	for (uint32_t p = 0; p < n; p++) {
		uint32_t end = g->order[p];
		size_t depth = 1;

		if (!cpa__critical(c, end) || has_succ[end] || c->est[end] + prec_dur(g, end) != c->makespan)
			continue;
		res->npaths = sat_add(res->npaths, cnt[end]);
		/* Depth-first, back from end; a path is complete at a start or a root lag. */
		stk[0] = end;
		cur[0] = g->pred_off[end];
		if (path_start(c, g, end) && emit_path(res, stk, 1))
			goto out;
		while (depth && res->npaths_listed < CRIT_MAX_PATHS) {
			uint32_t v = stk[depth - 1], e = cur[depth - 1], u;

			if (e == g->pred_off[v + 1]) {
				depth--;
				continue;
			}
			cur[depth - 1]++;
			if (!crit_edge(c, g, v, e))
				continue;
			u = g->pred[e];
			if (u == PREC_ROOT) {
				if (emit_path(res, stk, depth))
					goto out;
				continue;
			}
			stk[depth] = u;
			cur[depth] = g->pred_off[u];
			depth++;
			if (path_start(c, g, u) && emit_path(res, stk, depth))
				goto out;
		}
	}
	err = 0;
out:
	free(cnt);
	free(has_succ);
	free(stk);
	free(cur);
	return err;
}

static int cmp_est(const void *x, const void *y, void *ctx)
{
	const int64_t *est = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (est[a] != est[b])
		return est[a] < est[b] ? -1 : 1;
	return (a > b) - (a < b);
}

struct gantt_done {
	uint32_t task;
	int64_t end;
};

static int cmp_done(const void *x, const void *y)
{
	const struct gantt_done *a = x, *b = y;

	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return (a->task > b->task) - (a->task < b->task);
}

/* Per actor of the chart: every task is an invocation; horizons in non-delay time. */
static int gantt_actors(struct critical_result *res, const struct walker *w, const struct gantt *gt,
			struct acc *acc)
{
	struct gantt_done *d = malloc((gt->n ? gt->n : 1) * sizeof(*d));
	size_t *first = calloc(gt->n_actors + 1, sizeof(*first));
	int err = -ENOMEM;

	res->actors = calloc(gt->n_actors ? gt->n_actors : 1, sizeof(*res->actors));
	if (!d || !first || !res->actors)
		goto out;
	for (size_t i = 0; i < gt->n; i++)
		first[gt->actor[i] + 1]++;
	for (size_t a = 0; a < gt->n_actors; a++)
		first[a + 1] += first[a];
	{
		size_t *fill = malloc((gt->n_actors ? gt->n_actors : 1) * sizeof(*fill));

		if (!fill)
			goto out;
		memcpy(fill, first, gt->n_actors * sizeof(*fill));
		for (uint32_t i = 0; i < gt->n; i++)
			d[fill[gt->actor[i]]++] = (struct gantt_done){ i, walker_est(w, i) + prec_dur(w->g, i) };
		free(fill);
	}
	for (size_t a = 0; a < gt->n_actors; a++) {
		struct crit_actor *ca = &res->actors[res->nactors];
		int64_t horizon = 0;

		qsort(d + first[a], first[a + 1] - first[a], sizeof(*d), cmp_done);
		ca->actor = a;
		ca->thread = (uint32_t)a;
		for (size_t k = first[a]; k < first[a + 1]; k++) {
			if (d[k].end <= horizon && k > first[a])
				continue;
			walk_path(w, d[k].task, d[k].end, horizon, &(struct sink){ .acc = acc });
			ca->ninv++;
			ca->total_ns = d[k].end;
			horizon = d[k].end;
		}
		err = acc_take(acc, &ca->share, &ca->nshare);
		if (err)
			goto out;
		res->nactors++;
	}
	err = 0;
out:
	free(d);
	free(first);
	return err;
}

int critical__analyse_gantt(const struct gantt *gt, const struct critical_opts *o,
			    struct critical_result **out)
{
	struct critical_opts def;
	struct critical_result *res;
	struct model m = { .gt = gt };
	struct prec_graph *g = NULL;
	struct cpa *c = NULL;
	struct cpa_hop *hops = NULL;
	struct acc acc = { 0 };
	struct walker w;
	struct prec_task *tasks;
	size_t nh = 0;
	uint64_t t_start, t_graph, t_cpa;
	int err;

	*out = NULL;
	if (!o) {
		critical_opts_default(&def);
		o = &def;
	}
	res = calloc(1, sizeof(*res));
	tasks = malloc((gt->n ? gt->n : 1) * sizeof(*tasks));
	if (!res || !tasks) {
		free(res);
		free(tasks);
		return -ENOMEM;
	}
	for (size_t i = 0; i < gt->n; i++)
		tasks[i] = (struct prec_task){ gt->tasks[i].start_ns, gt->tasks[i].end_ns };
	res->input = CRIT_INPUT_GANTT;
	res->whole_last = CRIT_NONE;
	res->epsilon_evidence_ns = -1;
	res->ntasks = gt->n;
	if (o->epsilon_ns >= 0) {
		res->epsilon_ns = o->epsilon_ns;
		res->epsilon_source = "given";
	} else {
		res->epsilon_ns = 0;
		res->epsilon_source = "default";
	}
	t_start = critical_now_ns();
	{
		/*
		 * Lean: durations and lags read off the stage's copy of the
		 * chart's times, which lives as long as the graph, instead of
		 * arrays of their own (8 bytes per task and per edge).
		 */
		struct prec_opts po = {
			.eps_ns = res->epsilon_ns,
			.max_edges = o->max_edges,
			.edge_fn = gantt_hook,
			.edge_ctx = &res->edges,
			.lean = 1,
		};

		err = prec_graph__build(tasks, gt->n, &po, &g);
	}
	if (err)
		goto out;
	res->edges.candidates = g->n_candidates;
	res->edges.exact = g->n_exact;
	res->nedges = g->n_edges;
	res->origin_ns = g->t0;
	m.t0 = g->t0;
	m.n = gt->n;
	m.tasks = tasks;
	t_graph = critical_now_ns();
	err = cpa__run(g, &c);
	if (err)
		goto out;
	t_cpa = critical_now_ns();
	res->makespan_ns = c->makespan;
	res->est = malloc((gt->n ? gt->n : 1) * sizeof(*res->est));
	res->lst = malloc((gt->n ? gt->n : 1) * sizeof(*res->lst));
	err = -ENOMEM;
	if (!res->est || !res->lst)
		goto out;
	memcpy(res->est, c->est, gt->n * sizeof(*res->est));
	memcpy(res->lst, c->lst, gt->n * sizeof(*res->lst));
	for (uint32_t v = 0; v < gt->n; v++)
		res->ncritical += cpa__critical(c, v);
	res->critical = malloc((res->ncritical ? res->ncritical : 1) * sizeof(*res->critical));
	if (!res->critical)
		goto out;
	res->ncritical = 0;
	for (uint32_t v = 0; v < gt->n; v++)
		if (cpa__critical(c, v))
			res->critical[res->ncritical++] = v;
	qsort_r(res->critical, res->ncritical, sizeof(*res->critical), cmp_est, res->est);
	err = gantt_paths(res, g, c);
	if (!err)
		err = cpa__common(c, g, &hops, &nh);
	if (err)
		goto out;
	res->common = malloc((nh ? nh : 1) * sizeof(*res->common));
	res->common_joined = calloc(nh ? nh : 1, 1);
	err = -ENOMEM;
	if (!res->common || !res->common_joined)
		goto out;
	for (size_t i = 0; i < nh; i++) {
		res->common[i] = hops[i].task;
		res->common_joined[i] = i && hops[i].edge != CPA_NONE && g->pred[hops[i].edge] == hops[i - 1].task;
	}
	res->ncommon = nh;
	err = cpa__start_mismatches(c, g, tasks, gt->n, &res->mismatch, &res->nmismatch);
	if (err)
		goto out;

	w = (struct walker){ .m = &m, .g = g, .est = c->est, .bind = c->bind, .hint = m.cpu_hint };
	err = acc_init(&acc, gt->n_actors);
	if (err)
		goto out;
	if (c->last != CPA_NONE) {
		res->whole_last = c->last;
		err = path_into(&w, c->last, c->makespan, 0, &acc, SIZE_MAX, &res->whole);
		if (err)
			goto out;
	}
	err = gantt_actors(res, &w, gt, &acc);
	res->build_ns = t_graph - t_start;
	res->cpa_ns = t_cpa - t_graph;
	res->account_ns = critical_now_ns() - t_cpa;
out:
	free(tasks);
	free(hops);
	acc_free(&acc);
	cpa__free(c);
	prec_graph__free(g);
	if (err) {
		critical__free(res);
		return err;
	}
	*out = res;
	return 0;
}
