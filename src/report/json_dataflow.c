// SPDX-License-Identifier: MIT
/*
 * The "data_path" section of the JSON report: the data-flow critical path
 * (src/dataflow/stage.h) field for field. Times are CLOCK_MONOTONIC ns;
 * an object is named as report --data-path=OBJECT takes it.
 */
#include "analysis/analysis.h"
#include "dataflow/stage.h"
#include "json_dataflow.h"

static const char *const state_kinds[] = {
	[DF_S_PRETRACE] = "pretrace", [DF_S_WRITE] = "write", [DF_S_TRUNC] = "trunc",
	[DF_S_RENAME] = "rename", [DF_S_TRANSFER] = "transfer", [DF_S_EXTERNAL] = "external",
};

static const char *const obj_kinds[] = {
	[DF_CONTENT] = "content", [DF_STREAM] = "stream", [DF_MESSAGE] = "message", [DF_EXTERNAL] = "external",
};

static void object_fields(json_writer_t *w, const struct dataflow_result *r, uint32_t obj)
{
	char b[96];

	jsonw_string_field(w, "object", df_recording_obj_name(&r->rec, obj, b, sizeof(b)));
	jsonw_string_field(w, "object_kind", obj_kinds[r->rec.objs[obj].kind]);
	if (r->rec.names[obj][0])
		jsonw_string_field(w, "name", r->rec.names[obj]);
	else
		jsonw_null_field(w, "name");
}

/* pid and comm of a process, null for nobody traced. */
static void proc_fields(json_writer_t *w, const struct dataflow_result *r, uint32_t proc)
{
	if (proc >= r->rec.in.nprocs) {
		jsonw_null_field(w, "pid");
		return;
	}
	jsonw_u64_field(w, "pid", r->rec.tgids[proc]);
}

static void others(json_writer_t *w, const struct dataflow_result *r, const struct df_hop *h)
{
	jsonw_name(w, "other_inputs");
	jsonw_start_array(w);
	for (size_t k = 0; k < h->nother; k++) {
		const struct df_other *o = &r->others[h->other0 + k];

		jsonw_start_object(w);
		object_fields(w, r, o->obj);
		jsonw_u64_field(w, "version", o->version);
		proc_fields(w, r, o->proc);
		jsonw_i64_field(w, "t_ns", o->t);
		jsonw_i64_field(w, "slack_ns", o->slack);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

static void hops(json_writer_t *w, const struct dataflow_result *r)
{
	jsonw_name(w, "hops");
	jsonw_start_array(w);
	for (size_t i = 0; i < r->nhops; i++) {
		const struct df_hop *h = &r->hops[i];

		jsonw_start_object(w);
		object_fields(w, r, h->obj);
		jsonw_string_field(w, "kind", state_kinds[h->kind]);
		if (h->tgid) {
			jsonw_u64_field(w, "pid", h->tgid);
			jsonw_u64_field(w, "tid", h->tid);
			jsonw_string_field(w, "comm", h->comm);
		} else {
			jsonw_null_field(w, "pid");
			jsonw_null_field(w, "tid");
			jsonw_null_field(w, "comm");
		}
		jsonw_u64_field(w, "v_first", h->v_first);
		jsonw_u64_field(w, "v_last", h->v_last);
		jsonw_i64_field(w, "first_ns", h->t_first);
		jsonw_i64_field(w, "last_ns", h->t_last);
		if (h->read_at >= 0)
			jsonw_i64_field(w, "read_at_ns", h->read_at);
		else
			jsonw_null_field(w, "read_at_ns");
		jsonw_i64_field(w, "waited_ns", h->waited);
		jsonw_i64_field(w, "in_process_ns", h->in_process);
		others(w, r, h);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

static void shares(json_writer_t *w, const struct dataflow_result *r)
{
	double el = r->elapsed > 0 ? (double)r->elapsed : 1;

	jsonw_name(w, "shares");
	jsonw_start_array(w);
	for (size_t i = 0; i < r->nshares; i++) {
		const struct df_share *s = &r->shares[i];

		jsonw_start_object(w);
		jsonw_u64_field(w, "pid", s->tgid);
		jsonw_string_field(w, "comm", s->comm);
		jsonw_i64_field(w, "in_process_ns", s->in_process);
		jsonw_float_field(w, "share", s->in_process / el);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_float_field(w, "waiting_share", r->waited / el);
}

void json_dataflow_write(const struct analysis *a, json_writer_t *w)
{
	const struct dataflow_result *r = a->dataflow;

	jsonw_name(w, "data_path");
	if (!r) {
		jsonw_null(w);
		return;
	}
	jsonw_start_object(w);
	jsonw_bool_field(w, "named", r->named);
	jsonw_u64_field(w, "calls", r->nops);
	jsonw_u64_field(w, "left_out", r->rec.unresolved);
	jsonw_i64_field(w, "pretrace_stream_bytes", r->d.b0_total);
	jsonw_bool_field(w, "approximate", r->lost);
	jsonw_u64_field(w, "renames_left_out", r->renames);
	if (r->target < 0) {
		jsonw_null_field(w, "target");
		jsonw_end_object(w);
		return;
	}
	jsonw_name(w, "target");
	jsonw_start_object(w);
	object_fields(w, r, r->d.states[r->target].obj);
	jsonw_u64_field(w, "version", r->d.states[r->target].version);
	jsonw_i64_field(w, "t_ns", r->d.states[r->target].t);
	jsonw_end_object(w);
	jsonw_i64_field(w, "elapsed_ns", r->elapsed);
	jsonw_i64_field(w, "waited_ns", r->waited);
	hops(w, r);
	shares(w, r);
	jsonw_end_object(w);
}
