// SPDX-License-Identifier: MIT
/* The emerging patterns in the JSON report; see src/report/json_patterns.h. */
#include "json_patterns.h"
#include "patterns/miner.h"

static void json_bounds(json_writer_t *w, unsigned b)
{
	static const struct { unsigned bit; const char *name; } names[] = {
		{ MINER_BOUND_MAX_LEN, "max_len" },
		{ MINER_BOUND_NODES, "nodes" },
		{ MINER_BOUND_TIME, "time" },
		{ MINER_BOUND_PATTERNS, "patterns" },
		{ MINER_BOUND_SEQ_LEN, "seq_len" },
	};

	jsonw_name(w, "bounds");
	jsonw_start_array(w);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (b & names[i].bit)
			jsonw_string(w, names[i].name);
	jsonw_end_array(w);
}

void json_patterns_write(const struct patterns_result *r, json_writer_t *w)
{
	jsonw_name(w, "patterns");
	jsonw_start_array(w);
	for (size_t i = 0; r && i < r->n; i++) {
		const struct pattern *p = &r->v[i];

		jsonw_start_object(w);
		jsonw_name(w, "events");
		jsonw_start_array(w);
		for (uint32_t k = 0; k < p->len; k++)
			jsonw_string(w, p->events[k]);
		jsonw_end_array(w);
		jsonw_name(w, "kinds");
		jsonw_start_array(w);
		for (uint32_t k = 0; k < p->len; k++)
			jsonw_string(w, vocab_kind_name(p->kinds[k]));
		jsonw_end_array(w);
		jsonw_float_field(w, "support_pos", p->support_pos);
		jsonw_float_field(w, "support_neg", p->support_neg);
		jsonw_u64_field(w, "count_pos", p->count_pos);
		jsonw_u64_field(w, "count_neg", p->count_neg);
		jsonw_float_field(w, "delta", p->delta);
		jsonw_float_field(w, "alpha", p->alpha);
		jsonw_float_field(w, "chance_pos", p->chance_pos);
		jsonw_float_field(w, "score", p->score);
		jsonw_u64_field(w, "level", p->level);
		jsonw_u64_field(w, "breaks", p->breaks);
		jsonw_u64_field(w, "rank", i + 1);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);

	jsonw_name(w, "patterns_search");
	if (!r) {
		jsonw_null(w);
		return;
	}
	jsonw_start_object(w);
	if (r->status)
		jsonw_string_field(w, "status", r->status);
	else
		jsonw_null_field(w, "status");
	if (r->actor >= 0)
		jsonw_string_field(w, "actor", r->actor_name);
	else
		jsonw_null_field(w, "actor");
	jsonw_u64_field(w, "windows_pos", r->windows_pos);
	jsonw_u64_field(w, "windows_neg", r->windows_neg);
	jsonw_u64_field(w, "minor_breaks", r->minor_breaks);
	jsonw_i64_field(w, "min_lateness_ns", r->min_lateness_ns);
	jsonw_float_field(w, "min_lateness", r->min_lateness);
	jsonw_bool_field(w, "min_lateness_fixed", r->min_lateness_fixed);
	jsonw_name(w, "levels");
	jsonw_start_array(w);
	for (uint32_t i = 0; i < r->nlevels; i++) {
		const struct patterns_level *l = &r->levels[i];

		jsonw_start_object(w);
		jsonw_u64_field(w, "breaks", l->breaks);
		if (l->late_above_ns >= 0)
			jsonw_i64_field(w, "late_above_ns", l->late_above_ns);
		else
			jsonw_null_field(w, "late_above_ns");
		jsonw_u64_field(w, "breaks_left_out", l->left_out);
		jsonw_bool_field(w, "found", l->found);
		jsonw_float_field(w, "delta", l->delta);
		jsonw_float_field(w, "alpha", l->alpha);
		jsonw_u64_field(w, "runs", l->runs);
		json_bounds(w, l->bounds);
		jsonw_i64_field(w, "mine_ns", l->mine_ns);
		jsonw_float_field(w, "window_ratio", l->window_ratio);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_u64_field(w, "excluded_pos", r->excluded_pos);
	jsonw_u64_field(w, "excluded_neg", r->excluded_neg);
	jsonw_u64_field(w, "unsampled_pos", r->unsampled_pos);
	jsonw_u64_field(w, "unsampled_neg", r->unsampled_neg);
	jsonw_u64_field(w, "subtraces_pos", r->npos);
	jsonw_u64_field(w, "subtraces_neg", r->nneg);
	jsonw_u64_field(w, "events", r->stream_events);
	jsonw_u64_field(w, "symbols", r->symbols);
	jsonw_u64_field(w, "vocabulary", r->vocabulary);
	jsonw_u64_field(w, "longest_subtrace", r->longest);
	jsonw_u64_field(w, "max_subtrace_len", r->max_subtrace_len);
	jsonw_u64_field(w, "truncated_subtraces", r->truncated);
	jsonw_bool_field(w, "actor_activity_dropped", r->actor_dropped);
	jsonw_u64_field(w, "gap", r->gap);
	jsonw_bool_field(w, "delta_searched", r->auto_delta);
	jsonw_bool_field(w, "alpha_searched", r->auto_alpha);
	jsonw_float_field(w, "delta", r->delta);
	jsonw_float_field(w, "alpha", r->alpha);
	jsonw_bool_field(w, "found", r->found);
	jsonw_u64_field(w, "runs", r->runs);
	jsonw_u64_field(w, "patterns_found", r->total);
	json_bounds(w, r->bounds);
	jsonw_string_field(w, "bounds_text", r->bounds_text);
	jsonw_i64_field(w, "mine_ns", r->mine_ns);
	jsonw_i64_field(w, "elapsed_ns", r->elapsed_ns);
	jsonw_end_object(w);
}
