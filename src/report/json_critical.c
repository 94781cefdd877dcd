// SPDX-License-Identifier: MIT
/* The "critical" section of the JSON report (json_critical.h), from one struct critical_result. */
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "actors/holdup.h"
#include "critical/critical.h"
#include "critical_names.h"
#include "file/gantt_csv.h"
#include "file/syscall_names.h"
#include "file/trace.h"
#include "json_critical.h"

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

static void json_owner(json_writer_t *w, const struct analysis *a, uint32_t ow)
{
	char b[64];

	if (a->tl && ow < a->tl->nthreads) {
		jsonw_u64_field(w, "tid", a->tl->threads[ow].tid);
		jsonw_string_field(w, "comm", a->tl->threads[ow].comm);
	} else {
		jsonw_u64_field(w, "tid", 0);
		jsonw_string_field(w, "comm", critical_names_owner(a, ow, b, sizeof(b)));
	}
}

/* A wakeup's hop through the kernel: "via": "NET_RX" (the softirq its waker raised). */
static void json_via(json_writer_t *w, uint8_t cat, uint16_t sub)
{
	if (cat == CRIT_CAT_WAKEUP && sub)
		jsonw_string_field(w, "via", softirq_name(sub - 1));
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
			jsonw_string_field(w, "kind", critical_cat_is_release(s[i].cat) ? "release" : "overhead");
			jsonw_string_field(w, "category", cat_ids[s[i].cat]);
			if (s[i].cat == CRIT_CAT_REL_HARDIRQ || s[i].cat == CRIT_CAT_REL_SOFTIRQ)
				jsonw_u64_field(w, "irq", s[i].sub);
			json_via(w, s[i].cat, s[i].sub);
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
			json_via(w, s->cat, s->sub);
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

static void json_task_list(json_writer_t *w, const struct analysis *a, const char *name, const uint32_t *v,
			   size_t n)
{
	jsonw_name(w, name);
	jsonw_start_array(w);
	for (size_t i = 0; i < n; i++)
		jsonw_string(w, critical_names_task(a, v[i]));
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
		if (critical_cat_is_release(k) && e->releases[k])
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
			jsonw_string_field(w, "task", critical_names_task(a, r->whole_last));
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
			jsonw_string_field(w, "kind", critical_cat_is_release(one.cat) ? "release" : "overhead");
			jsonw_string_field(w, "category", cat_ids[one.cat]);
		}
		jsonw_i64_field(w, "ns", one.ns);
		jsonw_i64_field(w, "excess_ns", b->excess_ns);
	}
	jsonw_end_object(w);
}

/* The break's holdup when it tells the story (critical__break_holdup), else null. */
static void json_holdup(json_writer_t *w, const struct analysis *a, const struct crit_break *b)
{
	struct holdup h;
	char buf[32];
	const char *name;

	jsonw_name(w, "holdup");
	if (!critical__break_holdup(a->actors, b, &h)) {
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

static void json_actors(json_writer_t *w, const struct critical_result *r, const struct analysis *a)
{
	size_t listed = critical__breaks_listed(r, a->opts.break_paths);

	char b[64];

	jsonw_name(w, "actors");
	jsonw_start_array(w);
	for (size_t i = 0; i < r->nactors; i++) {
		const struct crit_actor *ca = &r->actors[i];

		jsonw_start_object(w);
		json_owner(w, a, ca->thread);
		jsonw_string_field(w, "actor", critical_names_actor(a, ca, b, sizeof(b)));
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

void json_critical_write(const struct critical_result *r, const struct analysis *a, json_writer_t *w)
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
			jsonw_string_field(w, "task", critical_names_task(a, t));
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
