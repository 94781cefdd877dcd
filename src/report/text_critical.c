// SPDX-License-Identifier: MIT
/* The critical-path section of the text report (text_critical.h), from one struct critical_result. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "actors/holdup.h"
#include "critical/critical.h"
#include "critical_names.h"
#include "file/gantt_csv.h"
#include "file/trace.h"
#include "lib/parse.h"
#include "style.h"
#include "text_critical.h"

#define TOP_ROWS 5		/* rows of a share table without -v */
#define TOP_BREAKS 3
#define TOP_FLOATS 10

static const char *row_name(const struct analysis *a, const struct crit_share *r, char *buf, size_t len)
{
	if (r->thread != CRIT_NONE)
		return critical_names_owner(a, r->thread, buf, len);
	return critical_cat_name(r->cat, r->sub, a->trace, buf, len);
}

static void print_shares(FILE *f, const struct analysis *a, const struct crit_share *s, size_t n, int64_t total,
			 size_t top, const struct report_style *st)
{
	char b1[32], b2[64];

	for (size_t i = 0; i < n && i < top; i++) {
		const char *what = "";

		if (s[i].thread != CRIT_NONE && s[i].held_ns > 0)
			what = s[i].run_ns > 0 ? " (ran, and held the CPU)" : " (held the CPU)";
		else if (s[i].thread == CRIT_NONE)
			what = critical_cat_is_release(s[i].cat) ? " (release)" : "";
		fprintf(f, "  %10s %5.1f%%  %s%s%s%s\n", fmt_duration(b1, sizeof(b1), s[i].ns),
			total > 0 ? 100.0 * s[i].ns / total : 0.0, s[i].thread == CRIT_NONE ? rs_dim(st) : "",
			row_name(a, &s[i], b2, sizeof(b2)), what, s[i].thread == CRIT_NONE ? rs_reset(st) : "");
	}
	if (n > top)
		fprintf(f, "  %s... %zu more (-v)%s\n", rs_dim(st), n - top, rs_reset(st));
}

/* "a 1.2 ms, b 800 us, c 10 us" for the first k rows. */
static void print_inline(FILE *f, const struct analysis *a, const struct crit_share *s, size_t n, size_t k)
{
	char b1[32], b2[64];

	for (size_t i = 0; i < n && i < k; i++)
		fprintf(f, "%s%s %s", i ? ", " : "", row_name(a, &s[i], b2, sizeof(b2)),
			fmt_duration(b1, sizeof(b1), s[i].ns));
}

void text_critical_break_cause(FILE *f, const struct analysis *a, const struct crit_break *b, uint32_t self)
{
	const struct crit_share *c = &b->culprit;
	const struct actor_break *ab = &a->actors->v[b->actor].breaks[b->brk];
	struct holdup h;
	char b1[32], b2[96];

	if (critical__break_holdup(a->actors, b, &h)) {
		holdup__describe(&h, trace__arch(a->trace), b2, sizeof(b2));
		fmt_duration(b1, sizeof(b1), h.off_ns);
		if (ab->into_before)
			fprintf(f, "invocation %zu was held %s, %s", actor_break_target(ab), b1, b2);
		else
			fprintf(f, "held %s, %s", b1, b2);
		return;
	}
	fmt_duration(b1, sizeof(b1), c->ns);
	/* The larger excess tells the story: a late release, or what the chain waited for. */
	if (b->release_excess_ns > b->excess_ns) {
		fprintf(f, "its chain was released %s later than usual (%s)",
			fmt_duration(b1, sizeof(b1), b->release_excess_ns),
			critical_cat_name(b->release.cat, b->release.sub, a->trace, b2, sizeof(b2)));
		return;
	}
	if (!c->ns) {
		fprintf(f, "nothing on its path took longer than usual");
	} else if (c->thread != CRIT_NONE && c->thread == self) {
		fprintf(f, "it ran %s itself", b1);
	} else if (c->thread != CRIT_NONE && c->held_ns >= c->run_ns) {
		fprintf(f, "waited %s for CPU behind %s", fmt_duration(b1, sizeof(b1), c->held_ns),
			critical_names_owner(a, c->thread, b2, sizeof(b2)));
	} else if (c->thread != CRIT_NONE) {
		fprintf(f, "waited for %s, which ran %s on its critical path", critical_names_owner(a, c->thread, b2, sizeof(b2)),
			b1);
	} else {
		fprintf(f, "%s %s", critical_cat_name(c->cat, c->sub, a->trace, b2, sizeof(b2)), b1);
	}
}

/*
 * The hops of a path that went through the kernel: "waker -> wakee via
 * NET_RX", the waker being whoever ran on the path just before the wait.
 */
static void print_via(FILE *f, const struct analysis *a, const struct crit_path *p)
{
	char b1[64], b2[64];
	size_t n = 0;

	for (size_t i = 0; i < p->nseg; i++) {
		const struct crit_seg *s = &p->seg[i];

		if (s->kind != CRIT_SEG_WAIT || s->cat != CRIT_CAT_WAKEUP || !s->sub)
			continue;
		fprintf(f, "%s", n++ ? ", " : "    through the kernel: ");
		if (i && p->seg[i - 1].kind == CRIT_SEG_RUN)
			fprintf(f, "%s -> ", critical_names_owner(a, p->seg[i - 1].thread, b1, sizeof(b1)));
		fprintf(f, "%s via %s", critical_names_owner(a, s->thread, b2, sizeof(b2)), softirq_name(s->sub - 1));
		if (n == 3)
			break;
	}
	if (n)
		fprintf(f, "\n");
}

/* The breaks of the upstream actor (or of the others), latest first. */
static void print_breaks(const struct critical_result *r, const struct analysis *a, FILE *f,
			 const struct report_style *st, long up, bool upstream)
{
	size_t max = st->verbose ? SIZE_MAX : TOP_BREAKS, shown = 0, more = 0;
	char b1[32], b2[32];

	for (size_t i = 0; i < r->nbreaks && a->actors; i++) {
		const struct crit_break *b = &r->breaks[i];
		const struct actor *ac = &a->actors->v[b->actor];
		const struct actor_break *ab = &ac->breaks[b->brk];
		double at = a->trace ? (ab->end_ns - (int64_t)a->trace->start_ns) / 1e9 : 0;

		if (((long)b->actor == up) != upstream)
			continue;
		if (shown++ >= max) {
			more++;
			continue;
		}
		fprintf(f, "  %s at %.3f s, %s %s late%s: ", ac->name, at,
			ab->kind == BREAK_COMPLETION ? "finished" : "started", fmt_duration(b1, sizeof(b1), b->lateness_ns),
			actor_break_major(ac, ab) ? "" : " (jitter)");
		text_critical_break_cause(f, a, b, ac->thread);
		fprintf(f, "%s\n    path %s: ", ab->data_missing ? " (data missing)" : "",
			fmt_duration(b2, sizeof(b2), b->path.end_ns - b->path.start_ns));
		print_inline(f, a, b->path.share, b->path.nshare, 4);
		fprintf(f, "\n");
		print_via(f, a, &b->path);
	}
	if (more)
		fprintf(f, "  %s... %zu more%s (-v)%s\n", rs_dim(st), more, upstream ? " of the upstream actor" : "",
			rs_reset(st));
}

static void print_trace(const struct critical_result *r, const struct analysis *a, FILE *f,
			const struct report_style *st)
{
	const struct crit_edge_stats *e = &r->edges;
	size_t top = st->verbose ? SIZE_MAX : TOP_ROWS;
	char b1[32], b2[32], b3[32], b4[32], b5[64];
	long up = a->actors ? a->actors->upstream : -1;

	fprintf(f, "eps %s (%s", fmt_duration(b1, sizeof(b1), r->epsilon_ns), r->epsilon_source);
	if (!strcmp(r->epsilon_source, "auto") && r->epsilon_evidence_ns == 0)
		fprintf(f, ": every wakeup latency was spent behind another thread, so none is invisible");
	else if (!strcmp(r->epsilon_source, "auto"))
		fprintf(f, ": largest wakeup latency not spent behind another thread, %s%s",
			fmt_duration(b2, sizeof(b2), r->epsilon_evidence_ns), r->epsilon_capped ? "; capped" : "");
	else if (r->epsilon_evidence_ns >= 0)
		fprintf(f, "; the wakeups say %s would do",
			fmt_duration(b2, sizeof(b2), r->epsilon_evidence_ns));
	fprintf(f, ")\n");
	fprintf(f, "%s tasks (%s), %s edges: %s CPU hand-overs, %s program order, %s wakeups\n",
		fmt_count(b1, sizeof(b1), r->ntasks),
		r->wakeups ? "run intervals split where they wake another thread" : "run intervals, timing only",
		fmt_count(b2, sizeof(b2), r->nedges), fmt_count(b3, sizeof(b3), e->resource),
		fmt_count(b4, sizeof(b4), e->same_thread + e->preempt_beyond),
		fmt_count(b5, sizeof(b5), e->confirmed + e->wakeups_beyond));
	if (r->wakeups)
		fprintf(f, "timing alone proposes %s cross-thread eps-edges: %s confirmed by wakeups, %s spurious "
			"(dropped); %s wakeup edges beyond eps added\n",
			fmt_count(b1, sizeof(b1), e->cross), fmt_count(b2, sizeof(b2), e->confirmed),
			fmt_count(b3, sizeof(b3), e->rejected), fmt_count(b4, sizeof(b4), e->wakeups_beyond));
	else
		fprintf(f, "%s cross-thread eps-edges kept unchecked (no wakeups used)\n",
			fmt_count(b1, sizeof(b1), e->cross));
	if (r->unexplained)
		fprintf(f, "%s%zu of %s task starts have %s%s\n", rs_dim(st), r->unexplained,
			fmt_count(b1, sizeof(b1), r->ntasks),
			r->wakeups ? "no recorded cause" : "no predecessor within eps (eps check)", rs_reset(st));

	if (r->whole.nshare) {
		fprintf(f, "\n%sWhole recording%s: %s, into the last task to end (%s): ", rs_bold(st), rs_reset(st),
			fmt_duration(b1, sizeof(b1), r->makespan_ns),
			r->whole.nseg ? critical_names_owner(a, r->whole.seg[r->whole.nseg - 1].thread, b5, sizeof(b5)) : "?");
		print_inline(f, a, r->whole.share, r->whole.nshare, 4);
		fprintf(f, "\n");
	}
	for (size_t i = 0; i < r->nactors; i++) {
		const struct crit_actor *ca = &r->actors[i];

		if ((long)ca->actor != up)
			continue;
		fprintf(f, "\n%sCritical paths into the %zu invocations of %s%s (upstream actor), %s:\n",
			rs_bold(st), ca->ninv, critical_names_actor(a, ca, b5, sizeof(b5)), rs_reset(st),
			fmt_duration(b1, sizeof(b1), ca->total_ns));
		print_shares(f, a, ca->share, ca->nshare, ca->total_ns, top, st);
	}
	if (r->nactors > (up >= 0))
		fprintf(f, "\n%sCritical paths into the invocations of each actor%s (most time first):\n", rs_bold(st),
			rs_reset(st));
	for (size_t i = 0, shown = 0; i < r->nactors; i++) {
		const struct crit_actor *ca = &r->actors[i];

		if ((long)ca->actor == up || !ca->nshare)
			continue;
		if (!st->verbose && shown++ >= TOP_ROWS) {
			fprintf(f, "  %s... more actors (-v)%s\n", rs_dim(st), rs_reset(st));
			break;
		}
		fprintf(f, "  %s (%zu): ", critical_names_actor(a, ca, b5, sizeof(b5)), ca->ninv);
		print_inline(f, a, ca->share, ca->nshare, 4);
		fprintf(f, "\n");
	}
	if (r->nbreaks) {
		size_t jitter = 0;

		for (size_t i = 0; i < r->nbreaks && a->actors; i++) {
			const struct actor *ac = &a->actors->v[r->breaks[i].actor];

			jitter += !actor_break_major(ac, &ac->breaks[r->breaks[i].brk]);
		}
		fprintf(f, "\n%sWhat delayed the late invocations%s (%zu breaks", rs_bold(st), rs_reset(st), r->nbreaks);
		if (jitter)
			fprintf(f, ", %zu of them jitter", jitter);
		fprintf(f, ", latest first%s):\n", up >= 0 ? "; the upstream actor's first" : "");
		print_breaks(r, a, f, st, up, true);
		print_breaks(r, a, f, st, up, false);
	}
}

static void print_task_list(FILE *f, const struct analysis *a, const uint32_t *v, const uint8_t *joined, size_t n,
			    const char *sep, size_t max)
{
	for (size_t i = 0; i < n; i++) {
		if (i == max && n > max + 1) {
			fprintf(f, " ... (%zu more) ... %s", n - max - 1, critical_names_task(a, v[n - 1]));
			break;
		}
		fprintf(f, "%s%s", !i ? "" : joined && !joined[i] ? " ... " : sep, critical_names_task(a, v[i]));
	}
}

static int cmp_float(const void *x, const void *y, void *ctx)
{
	const struct critical_result *r = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int64_t fa = r->lst[a] - r->est[a], fb = r->lst[b] - r->est[b];

	if (fa != fb)
		return fa < fb ? -1 : 1;
	if (r->est[a] != r->est[b])
		return r->est[a] < r->est[b] ? -1 : 1;
	return (a > b) - (a < b);
}

static void print_gantt(const struct critical_result *r, const struct analysis *a, FILE *f,
			const struct report_style *st)
{
	const struct gantt *g = a->gantt;
	size_t list = st->verbose ? SIZE_MAX : 20;
	char b1[32], b2[32], b3[32];

	fprintf(f, "%zu tasks, %zu actors; eps %s (%s%s)\n", g->n, g->n_actors,
		fmt_duration(b1, sizeof(b1), r->epsilon_ns), r->epsilon_source,
		r->epsilon_ns == 0 ? ": exact adjacency" : ": gaps up to eps bridged");
	fprintf(f, "%" PRIu64 " edges: %" PRIu64 " exact, %" PRIu64 " through a control task, %" PRIu64
		" initial control tasks\n", r->nedges, r->edges.exact, r->edges.cross,
		r->edges.releases[CRIT_CAT_INIT]);
	fprintf(f, "%smakespan %s%s", rs_bold(st), fmt_duration(b1, sizeof(b1), r->makespan_ns), rs_reset(st));
	if (r->makespan_ns >= 1000)
		fprintf(f, " (%" PRId64 " ns)", r->makespan_ns);
	fprintf(f, "\n");
	fprintf(f, "critical tasks (%zu, float 0): ", r->ncritical);
	print_task_list(f, a, r->critical, NULL, r->ncritical, ", ", list);
	fprintf(f, "\n");
	if (r->npaths <= CRIT_MAX_PATHS && r->npaths == r->npaths_listed) {
		fprintf(f, "critical path%s (%" PRIu64 "):\n", r->npaths == 1 ? "" : "s", r->npaths);
		for (size_t i = 0; i < r->npaths_listed; i++) {
			fprintf(f, "  ");
			print_task_list(f, a, r->paths[i], NULL, r->path_len[i], " -> ", list);
			fprintf(f, "\n");
		}
	} else {
		if (r->npaths == UINT64_MAX)
			fprintf(f, "more than 2^64 critical paths");
		else
			fprintf(f, "%" PRIu64 " critical paths", r->npaths);
		fprintf(f, "; on all of them (certainly critical): ");
		if (r->ncommon)
			print_task_list(f, a, r->common, r->common_joined, r->ncommon, " -> ", list);
		else
			fprintf(f, "no task");
		fprintf(f, "\n");
	}
	if (!r->nmismatch) {
		fprintf(f, "%seps check%s: the non-delay interpretation reproduces every observed start\n",
			rs_green(st), rs_reset(st));
	} else {
		fprintf(f, "%seps check%s: %zu of %zu tasks start later than the reconstruction explains "
			"(eps too small, or idle time in the chart): ", rs_yellow(st), rs_reset(st), r->nmismatch, g->n);
		for (size_t i = 0; i < r->nmismatch && i < 5; i++) {
			uint32_t t = r->mismatch[i];

			fprintf(f, "%s%s (line %u) at %s, recomputed %s", i ? ", " : "", critical_names_task(a, t), g->line[t],
				fmt_duration(b2, sizeof(b2), g->tasks[t].start_ns - r->origin_ns),
				fmt_duration(b3, sizeof(b3), r->est[t]));
		}
		fprintf(f, "%s\n", r->nmismatch > 5 ? ", ..." : "");
	}
	if (g->n > r->ncritical) {
		uint32_t *o = malloc(g->n * sizeof(*o));
		size_t k = 0, top = st->verbose ? SIZE_MAX : TOP_FLOATS;

		if (o) {
			for (uint32_t t = 0; t < g->n; t++)
				if (r->lst[t] != r->est[t])
					o[k++] = t;
			qsort_r(o, k, sizeof(*o), cmp_float, (void *)r);
			fprintf(f, "floats (smallest first):");
			for (size_t i = 0; i < k && i < top; i++)
				fprintf(f, "%s %s %s", i ? "," : "", critical_names_task(a, o[i]),
					fmt_duration(b1, sizeof(b1), r->lst[o[i]] - r->est[o[i]]));
			fprintf(f, "%s\n", k > top ? ", ... (-v)" : "");
			free(o);
		}
	}
	if (r->whole.nshare) {
		fprintf(f, "the critical path by actor: ");
		print_inline(f, a, r->whole.share, r->whole.nshare, st->verbose ? SIZE_MAX : 6);
		fprintf(f, "\n");
	}
}

void text_critical_print(const struct critical_result *r, const struct analysis *a, FILE *f,
			 const struct report_style *st)
{
	rs_section(f, st, "Critical path (Hendriks & Vaandrager)");
	if (r->input == CRIT_INPUT_GANTT)
		print_gantt(r, a, f, st);
	else
		print_trace(r, a, f, st);
}
