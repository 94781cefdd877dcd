// SPDX-License-Identifier: MIT
/*
 * The critical-path section of the reports: JSON ("critical" of DESIGN.md
 * §10) and text, side by side, from one struct critical_result.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "critical/critical.h"
#include "file/gantt_csv.h"
#include "actors/holdup.h"
#include "lib/parse.h"
#include "report.h"
#include "file/syscall_names.h"
#include "file/trace.h"

#define TOP_ROWS 5		/* rows of a share table without -v */
#define TOP_BREAKS 3
#define TOP_FLOATS 10
#define MAX_JSON_MISMATCH 100

static const char *const cat_ids[CRIT_CAT_MAX] = {
	[CRIT_CAT_NONE] = "exact",
	[CRIT_CAT_GAP] = "control_overhead",
	[CRIT_CAT_INIT] = "initial_control",
	[CRIT_CAT_CONT] = "program_order",
	[CRIT_CAT_PREEMPT] = "cpu_wait",
	[CRIT_CAT_BLOCKED] = "blocked",
	[CRIT_CAT_RESOURCE] = "cpu_handover",
	[CRIT_CAT_WAKEUP] = "wakeup_latency",
	[CRIT_CAT_OWN_WAIT] = "wait_within_invocation",
	[CRIT_CAT_REL_HARDIRQ] = "irq",
	[CRIT_CAT_REL_SOFTIRQ] = "softirq",
	[CRIT_CAT_REL_KERNEL] = "kernel",
	[CRIT_CAT_REL_WAKER] = "waker_not_recorded",
	[CRIT_CAT_REL_NONE] = "no_recorded_cause",
	[CRIT_CAT_REL_START] = "before_recording",
};

static bool is_release(uint8_t cat)
{
	return cat >= CRIT_CAT_REL_HARDIRQ || cat == CRIT_CAT_INIT;
}

const char *critical_cat_name(enum crit_cat cat, uint16_t sub, const struct trace *t, char *buf, size_t len)
{
	switch (cat) {
	case CRIT_CAT_NONE: return "exact adjacency";
	case CRIT_CAT_GAP: return "control overhead";
	case CRIT_CAT_INIT: return "initial control task";
	case CRIT_CAT_CONT: return "program order";
	case CRIT_CAT_PREEMPT: return "CPU wait";
	case CRIT_CAT_BLOCKED: return "blocked (no recorded waker)";
	case CRIT_CAT_RESOURCE: return "CPU hand-over";
	case CRIT_CAT_WAKEUP: return "wakeup latency";
	case CRIT_CAT_OWN_WAIT: return "waits within the invocation";
	case CRIT_CAT_REL_HARDIRQ:
		if (t)
			return irq_source_name(t, sub, buf, len);
		snprintf(buf, len, "irq %u", sub);
		return buf;
	case CRIT_CAT_REL_SOFTIRQ:
		snprintf(buf, len, "softirq %s", softirq_name(sub));
		return buf;
	case CRIT_CAT_REL_KERNEL: return "woken by the kernel";
	case CRIT_CAT_REL_WAKER: return "woken outside a recorded run";
	case CRIT_CAT_REL_NONE: return "no recorded cause";
	case CRIT_CAT_REL_START: return "before the recording";
	default: return "?";
	}
}

/* "comm/tid" of a thread, or the Gantt actor's name. */
static const char *owner_name(const struct analysis *a, uint32_t ow, char *buf, size_t len)
{
	if (ow == CRIT_NONE)
		return "-";
	if (a->gantt)
		return ow < a->gantt->n_actors ? a->gantt->actors[ow] : "?";
	if (!a->tl || ow >= a->tl->nthreads)
		return "?";
	snprintf(buf, len, "%s/%u", a->tl->threads[ow].comm, a->tl->threads[ow].tid);
	return buf;
}

static const char *row_name(const struct analysis *a, const struct crit_share *r, char *buf, size_t len)
{
	if (r->thread != CRIT_NONE)
		return owner_name(a, r->thread, buf, len);
	return critical_cat_name(r->cat, r->sub, a->trace, buf, len);
}

static const char *actor_name(const struct analysis *a, const struct crit_actor *ca, char *buf, size_t len)
{
	if (a->actors && ca->actor < a->actors->n)
		return a->actors->v[ca->actor].name;
	return owner_name(a, ca->thread, buf, len);
}

/* ---- JSON ---- */

static void json_owner(json_writer_t *w, const struct analysis *a, uint32_t ow)
{
	char b[64];

	if (a->tl && ow < a->tl->nthreads) {
		jsonw_u64_field(w, "tid", a->tl->threads[ow].tid);
		jsonw_string_field(w, "comm", a->tl->threads[ow].comm);
	} else {
		jsonw_u64_field(w, "tid", 0);
		jsonw_string_field(w, "comm", owner_name(a, ow, b, sizeof(b)));
	}
}

static void json_shares(json_writer_t *w, const struct analysis *a, const struct crit_share *s, size_t n)
{
	char b[64];

	jsonw_name(w, "share");
	jsonw_start_array(w);
	for (size_t i = 0; i < n; i++) {
		jsonw_start_object(w);
		if (s[i].thread != CRIT_NONE) {
			json_owner(w, a, s[i].thread);
			jsonw_string_field(w, "kind", a->gantt ? "actor" : "thread");
			jsonw_i64_field(w, "ns", s[i].ns);
			jsonw_i64_field(w, "run_ns", s[i].run_ns);
			jsonw_i64_field(w, "held_ns", s[i].held_ns);
		} else {
			jsonw_u64_field(w, "tid", 0);
			jsonw_string_field(w, "comm", critical_cat_name(s[i].cat, s[i].sub, a->trace, b, sizeof(b)));
			jsonw_string_field(w, "kind", is_release(s[i].cat) ? "release" : "overhead");
			jsonw_string_field(w, "category", cat_ids[s[i].cat]);
			if (s[i].cat == CRIT_CAT_REL_HARDIRQ || s[i].cat == CRIT_CAT_REL_SOFTIRQ)
				jsonw_u64_field(w, "irq", s[i].sub);
			jsonw_i64_field(w, "ns", s[i].ns);
		}
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

static void json_segments(json_writer_t *w, const struct analysis *a, const struct crit_path *p)
{
	static const char *const kinds[] = { "run", "wait", "release" };
	char b[64];

	jsonw_name(w, "segments");
	jsonw_start_array(w);
	for (size_t i = 0; i < p->nseg; i++) {
		const struct crit_seg *s = &p->seg[i];

		jsonw_start_object(w);
		jsonw_i64_field(w, "start_ns", s->start_ns);
		jsonw_i64_field(w, "end_ns", s->end_ns);
		jsonw_string_field(w, "kind", kinds[s->kind]);
		json_owner(w, a, s->thread);
		if (s->kind != CRIT_SEG_RUN) {
			jsonw_string_field(w, "category", cat_ids[s->cat]);
			jsonw_string_field(w, "category_name", critical_cat_name(s->cat, s->sub, a->trace, b, sizeof(b)));
		}
		if (s->kind == CRIT_SEG_WAIT && s->cpu != UINT16_MAX) {
			jsonw_u64_field(w, "cpu", s->cpu);
			jsonw_i64_field(w, "cpu_held_ns", s->held_ns);
		}
		if (s->holder != CRIT_NONE) {
			jsonw_name(w, "cpu_held_by");
			jsonw_start_object(w);
			json_owner(w, a, s->holder);
			jsonw_i64_field(w, "ns", s->holder_ns);
			jsonw_end_object(w);
		}
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_u64_field(w, "segments_total", p->nseg_total);
}

static const char *task_name(const struct analysis *a, uint32_t t)
{
	return a->gantt->names[a->gantt->name[t]];
}

static void json_task_list(json_writer_t *w, const struct analysis *a, const char *name, const uint32_t *v,
			   size_t n)
{
	jsonw_name(w, name);
	jsonw_start_array(w);
	for (size_t i = 0; i < n; i++)
		jsonw_string(w, task_name(a, v[i]));
	jsonw_end_array(w);
}

static void json_lines(json_writer_t *w, const struct analysis *a, const char *name, const uint32_t *v, size_t n)
{
	jsonw_name(w, name);
	jsonw_start_array(w);
	for (size_t i = 0; i < n; i++)
		jsonw_u64(w, a->gantt->line[v[i]]);
	jsonw_end_array(w);
}

static void json_edges(json_writer_t *w, const struct critical_result *r)
{
	const struct crit_edge_stats *e = &r->edges;

	jsonw_name(w, "edges");
	jsonw_start_object(w);
	jsonw_u64_field(w, "total", r->nedges);
	jsonw_u64_field(w, "candidates", e->candidates);
	jsonw_u64_field(w, "exact", e->exact);
	jsonw_u64_field(w, "same_thread", e->same_thread);
	jsonw_u64_field(w, "cpu_handover", e->resource);
	jsonw_u64_field(w, "epsilon", e->cross);
	jsonw_u64_field(w, "confirmed", e->confirmed);
	jsonw_u64_field(w, "rejected", e->rejected);
	jsonw_u64_field(w, "unchecked", e->unchecked);
	jsonw_u64_field(w, "missing_data", e->missing_data);
	jsonw_u64_field(w, "redundant", e->redundant);
	jsonw_u64_field(w, "wakeups_beyond_epsilon", e->wakeups_beyond);
	jsonw_u64_field(w, "preemptions_beyond_epsilon", e->preempt_beyond);
	jsonw_u64_field(w, "wakeups_unmatched", e->wakeups_unmatched);
	jsonw_name(w, "releases");
	jsonw_start_object(w);
	for (int k = 0; k < CRIT_CAT_MAX; k++)
		if (is_release(k) && e->releases[k])
			jsonw_u64_field(w, cat_ids[k], e->releases[k]);
	jsonw_end_object(w);
	jsonw_end_object(w);
}

static void json_whole(json_writer_t *w, const struct critical_result *r, const struct analysis *a)
{
	jsonw_name(w, "whole");
	jsonw_start_object(w);
	jsonw_i64_field(w, "length_ns", r->makespan_ns);
	jsonw_i64_field(w, "start_ns", r->origin_ns);
	jsonw_i64_field(w, "end_ns", r->origin_ns + r->makespan_ns);
	jsonw_u64_field(w, "critical_task_count", r->ncritical);
	if (r->whole_last != CRIT_NONE) {
		jsonw_name(w, "last_task");
		jsonw_start_object(w);
		if (a->gantt) {
			jsonw_string_field(w, "task", task_name(a, r->whole_last));
			jsonw_u64_field(w, "line", a->gantt->line[r->whole_last]);
		} else {
			const struct crit_seg *s = r->whole.nseg ? &r->whole.seg[r->whole.nseg - 1] : NULL;

			if (s)
				json_owner(w, a, s->thread);
		}
		jsonw_end_object(w);
	} else {
		jsonw_null_field(w, "last_task");
	}
	json_shares(w, a, r->whole.share, r->whole.nshare);
	if (a->gantt) {
		json_task_list(w, a, "critical_tasks", r->critical, r->ncritical);
		json_lines(w, a, "critical_lines", r->critical, r->ncritical);
		if (r->npaths == UINT64_MAX)
			jsonw_null_field(w, "path_count");
		else
			jsonw_u64_field(w, "path_count", r->npaths);
		jsonw_name(w, "paths");
		jsonw_start_array(w);
		for (size_t i = 0; i < r->npaths_listed; i++) {
			jsonw_start_object(w);
			json_task_list(w, a, "tasks", r->paths[i], r->path_len[i]);
			json_lines(w, a, "lines", r->paths[i], r->path_len[i]);
			jsonw_end_object(w);
		}
		jsonw_end_array(w);
		jsonw_name(w, "common");
		jsonw_start_object(w);
		json_task_list(w, a, "tasks", r->common, r->ncommon);
		json_lines(w, a, "lines", r->common, r->ncommon);
		/* joined[i]: the edge from the task before is on every critical path too. */
		jsonw_name(w, "joined");
		jsonw_start_array(w);
		for (size_t i = 0; i < r->ncommon; i++)
			jsonw_bool(w, r->common_joined[i]);
		jsonw_end_array(w);
		jsonw_end_object(w);
	} else {
		jsonw_null_field(w, "critical_tasks");
		json_segments(w, a, &r->whole);
	}
	jsonw_end_object(w);
}

static void json_culprit(json_writer_t *w, const struct analysis *a, const struct crit_break *b)
{
	struct crit_share one = b->culprit;

	jsonw_i64_field(w, "release_excess_ns", b->release_excess_ns);
	if (b->release_excess_ns > 0) {
		char buf[64];

		jsonw_string_field(w, "release", critical_cat_name(b->release.cat, b->release.sub, a->trace, buf,
								   sizeof(buf)));
	}
	jsonw_name(w, "delayed_by");
	if (!one.ns) {
		jsonw_null(w);
		return;
	}
	/* One share row, plus how far it exceeds the actor's mean. */
	jsonw_start_object(w);
	{
		char buf[64];

		if (one.thread != CRIT_NONE) {
			json_owner(w, a, one.thread);
			jsonw_string_field(w, "kind", one.held_ns > one.run_ns ? "cpu_held" : "ran");
		} else {
			jsonw_u64_field(w, "tid", 0);
			jsonw_string_field(w, "comm", critical_cat_name(one.cat, one.sub, a->trace, buf, sizeof(buf)));
			jsonw_string_field(w, "kind", is_release(one.cat) ? "release" : "overhead");
			jsonw_string_field(w, "category", cat_ids[one.cat]);
		}
		jsonw_i64_field(w, "ns", one.ns);
		jsonw_i64_field(w, "excess_ns", b->excess_ns);
	}
	jsonw_end_object(w);
}

bool critical__break_holdup(const struct analysis *a, const struct crit_break *b, struct holdup *h,
			    char *desc, size_t descl)
{
	const struct actor *ac;
	const struct crit_share *c = &b->culprit;

	if (!a->tl || !a->actors || b->actor >= a->actors->n)
		return false;
	ac = &a->actors->v[b->actor];
	*h = ac->breaks[b->brk].held;
	if (h->why == HOLDUP_NONE)
		return false;
	/* Another thread the path blames stays the answer: a lock holder, a hog. */
	if (b->release_excess_ns <= b->excess_ns && c->ns && c->thread != CRIT_NONE && c->thread != ac->thread)
		return false;
	if (desc)
		holdup__describe(h, trace__arch(a->trace), desc, descl);
	return true;
}

/* The break's holdup when it tells the story (critical__break_holdup), else null. */
static void json_holdup(json_writer_t *w, const struct analysis *a, const struct crit_break *b)
{
	struct holdup h;
	char buf[32];
	const char *name;

	jsonw_name(w, "holdup");
	if (!critical__break_holdup(a, b, &h, NULL, 0)) {
		jsonw_null(w);
		return;
	}
	jsonw_start_object(w);
	jsonw_i64_field(w, "off_cpu_ns", h.off_ns);
	jsonw_i64_field(w, "runnable_ns", h.runnable_ns);
	jsonw_i64_field(w, "runnable_idle_ns", h.runnable_idle_ns);
	jsonw_i64_field(w, "asleep_ns", h.sleep_ns);
	jsonw_i64_field(w, "blocked_ns", h.blocked_ns);
	jsonw_string_field(w, "state", holdup__state(&h));
	jsonw_name(w, "syscall");
	if (h.call_nr == HOLDUP_NO_CALL) {
		jsonw_null(w);
	} else {
		name = syscall_name(trace__arch(a->trace), h.call_nr);
		if (!name) {
			snprintf(buf, sizeof(buf), "%u", h.call_nr);
			name = buf;
		}
		jsonw_start_object(w);
		jsonw_string_field(w, "name", name);
		jsonw_u64_field(w, "nr", h.call_nr);
		jsonw_u64_field(w, "arg0", h.call_arg0);
		jsonw_i64_field(w, "start_ns", h.call_start_ns);
		jsonw_i64_field(w, "end_ns", h.call_end_ns);
		jsonw_i64_field(w, "off_cpu_ns", h.call_off_ns);
		jsonw_i64_field(w, "asleep_ns", h.call_sleep_ns);
		jsonw_i64_field(w, "blocked_ns", h.call_blocked_ns);
		jsonw_end_object(w);
	}
	jsonw_end_object(w);
}

size_t critical__breaks_listed(const struct critical_result *r, const struct analysis *a)
{
	size_t max = a->opts.break_paths;

	return max && max < r->nbreaks ? max : r->nbreaks;
}

static void json_actors(json_writer_t *w, const struct critical_result *r, const struct analysis *a)
{
	size_t listed = critical__breaks_listed(r, a);

	char b[64];

	jsonw_name(w, "actors");
	jsonw_start_array(w);
	for (size_t i = 0; i < r->nactors; i++) {
		const struct crit_actor *ca = &r->actors[i];

		jsonw_start_object(w);
		json_owner(w, a, ca->thread);
		jsonw_string_field(w, "actor", actor_name(a, ca, b, sizeof(b)));
		jsonw_u64_field(w, "invocations", ca->ninv);
		jsonw_i64_field(w, "total_ns", ca->total_ns);
		json_shares(w, a, ca->share, ca->nshare);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_name(w, "breaks");
	jsonw_start_array(w);
	for (size_t i = 0; i < listed && a->actors; i++) {
		const struct crit_break *br = &r->breaks[i];
		const struct actor *ac = &a->actors->v[br->actor];
		const struct actor_break *ab = &ac->breaks[br->brk];

		jsonw_start_object(w);
		json_owner(w, a, ac->thread);
		jsonw_string_field(w, "actor", ac->name);
		jsonw_u64_field(w, "late_invocation", ab->late);
		jsonw_string_field(w, "kind", ab->kind == BREAK_COMPLETION ? "completion" : "start");
		jsonw_u64_field(w, "target_invocation", actor_break_target(ab));
		jsonw_i64_field(w, "late_start_ns", ab->kind == BREAK_COMPLETION ? ab->start_ns : ab->end_ns);
		jsonw_i64_field(w, "lateness_ns", br->lateness_ns);
		jsonw_i64_field(w, "start_ns", br->path.start_ns);
		jsonw_i64_field(w, "end_ns", br->path.end_ns);
		jsonw_bool_field(w, "data_missing", ab->data_missing);
		json_culprit(w, a, br);
		json_holdup(w, a, br);
		json_shares(w, a, br->path.share, br->path.nshare);
		json_segments(w, a, &br->path);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_u64_field(w, "breaks_total", r->nbreaks);
	jsonw_u64_field(w, "breaks_left_out", r->nbreaks - listed);
}

static void json_gantt_tasks(json_writer_t *w, const struct critical_result *r, const struct analysis *a)
{
	const struct gantt *g = a->gantt;

	jsonw_name(w, "tasks");
	jsonw_start_array(w);
	for (size_t t = 0; t < g->n; t++) {
		jsonw_start_object(w);
		jsonw_string_field(w, "task", g->names[g->name[t]]);
		jsonw_string_field(w, "actor", g->actors[g->actor[t]]);
		jsonw_u64_field(w, "line", g->line[t]);
		jsonw_i64_field(w, "start_ns", g->tasks[t].start_ns);
		jsonw_i64_field(w, "end_ns", g->tasks[t].end_ns);
		jsonw_i64_field(w, "est_ns", r->origin_ns + r->est[t]);
		jsonw_i64_field(w, "lst_ns", r->origin_ns + r->lst[t]);
		jsonw_i64_field(w, "float_ns", r->lst[t] - r->est[t]);
		jsonw_bool_field(w, "critical", r->lst[t] == r->est[t]);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

void critical__json(const struct critical_result *r, const struct analysis *a, json_writer_t *w)
{
	jsonw_start_object(w);
	jsonw_string_field(w, "input", r->input == CRIT_INPUT_GANTT ? "gantt" : "trace");
	jsonw_i64_field(w, "epsilon_ns", r->epsilon_ns);
	jsonw_string_field(w, "epsilon_source", r->epsilon_source);
	if (r->epsilon_evidence_ns >= 0)
		jsonw_i64_field(w, "epsilon_evidence_ns", r->epsilon_evidence_ns);
	else
		jsonw_null_field(w, "epsilon_evidence_ns");
	jsonw_bool_field(w, "epsilon_capped", r->epsilon_capped);
	jsonw_bool_field(w, "wakeups_used", r->wakeups);
	jsonw_u64_field(w, "tasks", r->ntasks);
	json_edges(w, r);
	jsonw_name(w, "epsilon_check");
	jsonw_start_object(w);
	if (a->gantt) {
		jsonw_string_field(w, "kind", "recomputed_starts");
		jsonw_bool_field(w, "reproduced", r->nmismatch == 0);
		jsonw_u64_field(w, "mismatches", r->nmismatch);
		jsonw_name(w, "tasks");
		jsonw_start_array(w);
		for (size_t i = 0; i < r->nmismatch && i < MAX_JSON_MISMATCH; i++) {
			uint32_t t = r->mismatch[i];

			jsonw_start_object(w);
			jsonw_string_field(w, "task", task_name(a, t));
			jsonw_u64_field(w, "line", a->gantt->line[t]);
			jsonw_i64_field(w, "start_ns", a->gantt->tasks[t].start_ns);
			jsonw_i64_field(w, "recomputed_ns", r->origin_ns + r->est[t]);
			jsonw_end_object(w);
		}
		jsonw_end_array(w);
	} else {
		/* Every start is reproduced by construction; what is left is what nothing explains. */
		jsonw_string_field(w, "kind", "unexplained_starts");
		jsonw_bool_field(w, "reproduced", true);
		jsonw_u64_field(w, "mismatches", r->unexplained);
	}
	jsonw_end_object(w);
	json_whole(w, r, a);
	json_actors(w, r, a);
	if (a->gantt)
		json_gantt_tasks(w, r, a);
	jsonw_name(w, "timing");
	jsonw_start_object(w);
	jsonw_u64_field(w, "build_ns", r->build_ns);
	jsonw_u64_field(w, "cpa_ns", r->cpa_ns);
	jsonw_u64_field(w, "account_ns", r->account_ns);
	jsonw_end_object(w);
	jsonw_end_object(w);
}

/* ---- text ---- */

static void print_shares(FILE *f, const struct analysis *a, const struct crit_share *s, size_t n, int64_t total,
			 size_t top, const struct report_style *st)
{
	char b1[32], b2[64];

	for (size_t i = 0; i < n && i < top; i++) {
		const char *what = "";

		if (s[i].thread != CRIT_NONE && s[i].held_ns > 0)
			what = s[i].run_ns > 0 ? " (ran, and held the CPU)" : " (held the CPU)";
		else if (s[i].thread == CRIT_NONE)
			what = is_release(s[i].cat) ? " (release)" : "";
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

static void print_culprit(FILE *f, const struct analysis *a, const struct crit_break *b, uint32_t self)
{
	const struct crit_share *c = &b->culprit;
	const struct actor_break *ab = &a->actors->v[b->actor].breaks[b->brk];
	struct holdup h;
	char b1[32], b2[96];

	if (critical__break_holdup(a, b, &h, b2, sizeof(b2))) {
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
			owner_name(a, c->thread, b2, sizeof(b2)));
	} else if (c->thread != CRIT_NONE) {
		fprintf(f, "waited for %s, which ran %s on its critical path", owner_name(a, c->thread, b2, sizeof(b2)),
			b1);
	} else {
		fprintf(f, "%s %s", critical_cat_name(c->cat, c->sub, a->trace, b2, sizeof(b2)), b1);
	}
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
		fprintf(f, "  %s at %.3f s, %s %s late: ", ac->name, at,
			ab->kind == BREAK_COMPLETION ? "finished" : "started", fmt_duration(b1, sizeof(b1), b->lateness_ns));
		print_culprit(f, a, b, ac->thread);
		fprintf(f, "%s\n    path %s: ", ab->data_missing ? " (data missing)" : "",
			fmt_duration(b2, sizeof(b2), b->path.end_ns - b->path.start_ns));
		print_inline(f, a, b->path.share, b->path.nshare, 4);
		fprintf(f, "\n");
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
		fprintf(f, ": every wakeup latency was spent behind another thread, so none is invisible; Theorem 2");
	else if (!strcmp(r->epsilon_source, "auto"))
		fprintf(f, ": largest wakeup latency not spent behind another thread, %s, Theorem 2%s",
			fmt_duration(b2, sizeof(b2), r->epsilon_evidence_ns), r->epsilon_capped ? "; capped" : "");
	else if (r->epsilon_evidence_ns >= 0)
		fprintf(f, "; the wakeups say %s would do, Theorem 2",
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
			r->whole.nseg ? owner_name(a, r->whole.seg[r->whole.nseg - 1].thread, b5, sizeof(b5)) : "?");
		print_inline(f, a, r->whole.share, r->whole.nshare, 4);
		fprintf(f, "\n");
	}
	for (size_t i = 0; i < r->nactors; i++) {
		const struct crit_actor *ca = &r->actors[i];

		if ((long)ca->actor != up)
			continue;
		fprintf(f, "\n%sCritical paths into the %zu invocations of %s%s (upstream actor), %s:\n",
			rs_bold(st), ca->ninv, actor_name(a, ca, b5, sizeof(b5)), rs_reset(st),
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
		fprintf(f, "  %s (%zu): ", actor_name(a, ca, b5, sizeof(b5)), ca->ninv);
		print_inline(f, a, ca->share, ca->nshare, 4);
		fprintf(f, "\n");
	}
	if (r->nbreaks) {
		fprintf(f, "\n%sWhat delayed the late invocations%s (%zu breaks, latest first; the upstream actor's "
			"first):\n", rs_bold(st), rs_reset(st), r->nbreaks);
		print_breaks(r, a, f, st, up, true);
		print_breaks(r, a, f, st, up, false);
	}
}

static void print_task_list(FILE *f, const struct analysis *a, const uint32_t *v, const uint8_t *joined, size_t n,
			    const char *sep, size_t max)
{
	for (size_t i = 0; i < n; i++) {
		if (i == max && n > max + 1) {
			fprintf(f, " ... (%zu more) ... %s", n - max - 1, task_name(a, v[n - 1]));
			break;
		}
		fprintf(f, "%s%s", !i ? "" : joined && !joined[i] ? " ... " : sep, task_name(a, v[i]));
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
		r->epsilon_ns == 0 ? ": Algorithm 2, exact adjacency" : ": Algorithm 4");
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
		fprintf(f, "; on all of them (certainly critical, seed §II-B): ");
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

			fprintf(f, "%s%s (line %u) at %s, recomputed %s", i ? ", " : "", task_name(a, t), g->line[t],
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
				fprintf(f, "%s %s %s", i ? "," : "", task_name(a, o[i]),
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

void critical__print(const struct critical_result *r, const struct analysis *a, FILE *f,
		     const struct report_style *st)
{
	rs_section(f, st, "Critical path (Hendriks & Vaandrager)");
	if (r->input == CRIT_INPUT_GANTT)
		print_gantt(r, a, f, st);
	else
		print_trace(r, a, f, st);
}
