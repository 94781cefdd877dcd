// SPDX-License-Identifier: MIT
/*
 * The "actors", "actors_skipped" and "upstream_actor" sections of the JSON
 * report (docs/DESIGN.md §10). Times are CLOCK_MONOTONIC ns.
 */
#include <math.h>

#include "actors/actors.h"
#include "json_actors.h"

static const char *rule_name(enum invocations_rule r)
{
	switch (r) {
	case INVOC_RULE_FEW:
		return "few";
	case INVOC_RULE_SAME_TIME:
		return "same_time";
	case INVOC_RULE_OTSU:
		return "otsu";
	default:
		return "all";
	}
}

static void json_actor_ref(json_writer_t *w, const struct actors_result *r, const struct timeline *tl,
			   size_t i)
{
	const struct actor *a = &r->v[i];

	jsonw_u64_field(w, "index", i);
	jsonw_string_field(w, "name", a->name);
	jsonw_u64_field(w, "tid", tl->threads[a->thread].tid);
	jsonw_string_field(w, "comm", a->comm);
}

static void json_break(json_writer_t *w, const struct actor *a, const struct actor_break *b)
{
	jsonw_start_object(w);
	jsonw_i64_field(w, "start_ns", b->start_ns);
	jsonw_i64_field(w, "end_ns", b->end_ns);
	jsonw_i64_field(w, "interval_ns", b->interval_ns);
	jsonw_i64_field(w, "lateness_ns", b->lateness_ns);
	jsonw_u64_field(w, "before", b->before);
	jsonw_u64_field(w, "late", b->late);
	jsonw_bool_field(w, "data_missing", b->data_missing);
	jsonw_bool_field(w, "major", actor_break_major(a, b));
	jsonw_string_field(w, "kind", b->kind == BREAK_COMPLETION ? "completion" : "start");
	jsonw_u64_field(w, "target", actor_break_target(b));
	jsonw_i64_field(w, "overrun_ns", b->overrun_ns);
	jsonw_end_object(w);
}

static void json_actor(json_writer_t *w, const struct actors_result *r, const struct timeline *tl, size_t i)
{
	const struct actor *a = &r->v[i];
	const struct tl_thread *th = &tl->threads[a->thread];

	jsonw_start_object(w);
	json_actor_ref(w, r, tl, i);
	jsonw_u64_field(w, "pid", th->pid);
	jsonw_string_field(w, "kind", a->kind == ACTOR_THREAD ? "thread" : "syscall");
	if (a->kind == ACTOR_SYSCALL) {
		jsonw_u64_field(w, "syscall_nr", a->syscall_nr);
		if (a->has_arg0)
			jsonw_u64_field(w, "arg0", a->arg0);
	}
	jsonw_bool_field(w, "from_spec", a->from_spec);
	jsonw_u64_field(w, "occurrences", a->noccurrences);
	jsonw_u64_field(w, "occurrences_cut", a->ncut);
	jsonw_u64_field(w, "invocations", a->ninv);
	jsonw_string_field(w, "clustering", rule_name(a->info.rule));
	jsonw_u64_field(w, "periodic_splits", a->nsplit);
	jsonw_u64_field(w, "incidental_waits", a->nincidental);
	if (a->ninv) {
		jsonw_i64_field(w, "first_invocation_ns", a->inv[0].start_ns);
		jsonw_i64_field(w, "last_invocation_ns", a->inv[a->ninv - 1].start_ns);
	}
	jsonw_bool_field(w, "periodic", a->st.periodic);
	if (a->st.has_intervals) {
		/* ns as integers: %.9g would print long periods with an exponent */
		jsonw_i64_field(w, "period_ns", llround(a->st.period_ns));
		jsonw_float_field(w, "qcod", a->st.qcod);
		jsonw_i64_field(w, "q1_ns", a->st.q1_ns);
		jsonw_i64_field(w, "q3_ns", a->st.q3_ns);
		jsonw_i64_field(w, "fence_ns", llround(a->st.fence_ns));
	} else {
		jsonw_null_field(w, "period_ns");
		jsonw_null_field(w, "qcod");
	}
	jsonw_name(w, "breaks");
	jsonw_start_array(w);
	for (size_t b = 0; b < a->nbreaks; b++)
		json_break(w, a, &a->breaks[b]);
	jsonw_end_array(w);
	jsonw_u64_field(w, "breaks_data_missing", a->nbreaks_missing);
	jsonw_i64_field(w, "worst_lateness_ns", a->worst_lateness_ns);
	/* the cut (actor.h), and the trusted breaks on each side of it */
	if (a->st.has_intervals && a->min_late_ns > INT64_MIN)
		jsonw_i64_field(w, "min_late_ns", a->min_late_ns);
	else
		jsonw_null_field(w, "min_late_ns");
	jsonw_u64_field(w, "major_breaks", a->nmajor);
	jsonw_u64_field(w, "jitter_breaks", a->njitter);
	jsonw_i64_field(w, "worst_jitter_ns", a->worst_jitter_ns);
	jsonw_bool_field(w, "breaking", a->breaking);
	jsonw_bool_field(w, "fed_by_breaking", a->fed);
	/* Who wakes it (the upstream order's edges into this actor). */
	jsonw_name(w, "woken_by");
	jsonw_start_array(w);
	for (size_t e = 0; e < r->nedges; e++) {
		if (r->edges[e].to != i)
			continue;
		jsonw_start_object(w);
		json_actor_ref(w, r, tl, r->edges[e].from);
		jsonw_u64_field(w, "invocations", r->edges[e].invocations);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
}

void json_actors_write(const struct actors_result *r, const struct timeline *tl, json_writer_t *w)
{
	jsonw_name(w, "actors");
	jsonw_start_array(w);
	for (size_t i = 0; r && i < r->n; i++)
		json_actor(w, r, tl, i);
	jsonw_end_array(w);
	jsonw_name(w, "actors_skipped");
	jsonw_start_array(w);
	for (size_t i = 0; r && i < r->nskipped; i++) {
		const struct tl_thread *th = &tl->threads[r->skipped[i].thread];

		jsonw_start_object(w);
		jsonw_u64_field(w, "tid", th->tid);
		jsonw_string_field(w, "comm", th->comm);
		jsonw_string_field(w, "reason", r->skipped[i].reason);
		jsonw_u64_field(w, "count", r->skipped[i].count);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	if (!r || r->upstream < 0) {
		jsonw_null_field(w, "upstream_actor");
		return;
	}
	const struct actor *a = &r->v[r->upstream];

	jsonw_name(w, "upstream_actor");
	jsonw_start_object(w);
	json_actor_ref(w, r, tl, r->upstream);
	jsonw_i64_field(w, "period_ns", llround(a->st.period_ns));
	jsonw_u64_field(w, "breaks", a->nmajor);
	jsonw_u64_field(w, "jitter", a->njitter);
	for (size_t b = 0; b < a->nbreaks; b++) {
		if (!a->breaks[b].data_missing && actor_break_major(a, &a->breaks[b])) {
			jsonw_i64_field(w, "first_break_ns", a->breaks[b].start_ns);
			break;
		}
	}
	/* The subtraces for the pattern miner (docs/ALGORITHMS.md §3.3): a break each, and the rest. */
	jsonw_u64_field(w, "windows_pos", a->nbreaks);
	jsonw_u64_field(w, "windows_neg", a->nwindows > a->nbreaks ? a->nwindows - a->nbreaks : 0);
	jsonw_end_object(w);
}
