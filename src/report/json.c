// SPDX-License-Identifier: MIT
/*
 * report --json: the document of docs/DESIGN.md §10. All times are
 * CLOCK_MONOTONIC ns, durations ns, supports fractions in [0, 1]. Field
 * names are an interface: add, never rename.
 */
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "file/codec.h"
#include "json_actors.h"
#include "json_critical.h"
#include "json_patterns.h"
#include "json_progress.h"
#include "json_dataflow.h"
#include "report.h"
#include "file/tracefile.h"

static void kv_string(json_writer_t *w, const struct tf_kv *kv, const char *key, const char *name)
{
	const char *v = tf_kv_get(kv, key);

	if (v)
		jsonw_string_field(w, name, v);
	else
		jsonw_null_field(w, name);
}

void report_json_trace(const struct analysis *a, json_writer_t *w)
{
	const struct trace *t = a->trace;
	const struct timeline *tl = a->tl;
	uint64_t v;

	jsonw_name(w, "trace");
	jsonw_start_object(w);
	jsonw_string_field(w, "file", t->path);
	jsonw_u64_field(w, "format_version", t->format_version ? t->format_version : TF_VERSION);
	jsonw_u64_field(w, "file_bytes", t->file_bytes);
	jsonw_u64_field(w, "start_ns", t->start_ns);
	jsonw_u64_field(w, "stop_ns", t->stop_ns);
	jsonw_u64_field(w, "duration_ns", t->stop_ns - t->start_ns);
	jsonw_u64_field(w, "events", t->events);
	jsonw_name(w, "events_by_type");
	jsonw_start_object(w);
	for (int ty = 1; ty < QT_REC_MAX; ty++)
		if (ty != QT_REC_STATS && t->by_type[ty])
			jsonw_u64_field(w, codec_type_name(ty), t->by_type[ty]);
	jsonw_end_object(w);
	jsonw_u64_field(w, "lost_events", t->lost_events);
	jsonw_u64_field(w, "writer_dropped", t->user_dropped);
	jsonw_u64_field(w, "undecodable", t->undecodable);
	jsonw_u64_field(w, "cpus", t->ncpus);
	jsonw_bool_field(w, "complete", t->finished);
	kv_string(w, &t->end, TF_END_REASON, "stop_reason");
	kv_string(w, &t->meta, TF_META_KERNEL, "kernel");
	kv_string(w, &t->meta, TF_META_ARCH, "arch");
	kv_string(w, &t->meta, TF_META_HOST, "host");
	kv_string(w, &t->meta, TF_META_MODE, "mode");
	kv_string(w, &t->meta, TF_META_TARGETS, "targets");
	kv_string(w, &t->meta, TF_META_CMDLINE, "command");
	if (!tf_kv_get_u64(&t->meta, TF_META_BOOT_OFFSET, &v))
		jsonw_i64_field(w, "realtime_offset_ns", (int64_t)v);
	jsonw_name(w, "damage");
	jsonw_start_object(w);
	jsonw_u64_field(w, "corrupt_blocks", t->damage.corrupt_blocks);
	jsonw_u64_field(w, "resyncs", t->damage.resyncs);
	jsonw_u64_field(w, "bytes_skipped", t->damage.bytes_skipped);
	jsonw_bool_field(w, "truncated", t->damage.truncated);
	jsonw_end_object(w);
	jsonw_u64_field(w, "unreported_switches", tl->broken_chains);
	jsonw_u64_field(w, "uncertain_runs", tl->unsure_runs);
	/* Where data is missing: no conclusion is drawn inside these windows. */
	jsonw_name(w, "gaps");
	jsonw_start_array(w);
	for (size_t i = 0; i < tl->ngaps; i++) {
		const struct tl_gap *g = &tl->gaps[i];

		jsonw_start_object(w);
		jsonw_u64_field(w, "cpu", g->cpu);
		jsonw_u64_field(w, "start_ns", g->start);
		jsonw_u64_field(w, "end_ns", g->end);
		jsonw_string_field(w, "kind", g->kind == TL_GAP_LOST ? "lost" : "unreported");
		jsonw_u64_field(w, "lost_events", g->count);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_end_object(w);
}

static int by_run_ns(const void *x, const void *y, void *arg)
{
	const struct tl_thread *t = arg;
	const struct tl_thread *a = &t[*(const uint32_t *)x], *b = &t[*(const uint32_t *)y];

	if (a->run_ns != b->run_ns)
		return a->run_ns < b->run_ns ? 1 : -1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* Threads that did something in the recording, most CPU first. */
void report_json_threads(const struct analysis *a, json_writer_t *w)
{
	const struct timeline *tl = a->tl;
	uint32_t *order = malloc((tl->nthreads ? tl->nthreads : 1) * sizeof(*order));
	size_t n = 0;

	jsonw_name(w, "threads");
	jsonw_start_array(w);
	if (!order) {
		jsonw_end_array(w);
		return;
	}
	for (size_t i = 0; i < tl->nthreads; i++)
		if (tl->threads[i].nruns || tl->threads[i].nsc || tl->threads[i].nwr)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), by_run_ns, tl->threads);
	for (size_t k = 0; k < n; k++) {
		const struct tl_thread *th = &tl->threads[order[k]];

		jsonw_start_object(w);
		jsonw_u64_field(w, "tid", th->tid);
		jsonw_u64_field(w, "pid", th->pid);
		jsonw_string_field(w, "comm", th->comm);
		jsonw_u64_field(w, "run_ns", th->run_ns);
		jsonw_u64_field(w, "cpu_ns", th->cpu_ns);
		jsonw_u64_field(w, "occurrences", th->nruns);
		jsonw_u64_field(w, "preempted", th->npreempted);
		jsonw_u64_field(w, "voluntary", th->nvoluntary);
		jsonw_u64_field(w, "syscalls", th->nsc);
		jsonw_u64_field(w, "wakeups_sent", th->nws);
		jsonw_u64_field(w, "wakeups_received", th->nwr);
		if (th->nruns) {
			jsonw_u64_field(w, "first_ns", th->first_run);
			jsonw_u64_field(w, "last_ns", th->last_end);
		}
		jsonw_bool_field(w, "target", th->flags & TL_TARGET);
		jsonw_bool_field(w, "kernel_thread", th->flags & TT_KTHREAD);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	free(order);
}

int report_json(const struct analysis *a, FILE *f)
{
	json_writer_t *w = jsonw_new(f, true);

	if (!w)
		return -1;
	jsonw_start_object(w);
	jsonw_string_field(w, "qostrace_report", "1");
	/* The answers first, as the text report gives them; the evidence follows. */
	report_json_verdict(a, w);
	report_json_diagnosis(a, w);
	if (a->trace) {
		report_json_trace(a, w);
		report_json_threads(a, w);
	}
	/* Stages add their sections here: actors + upstream_actor, patterns, critical. */
	json_actors_write(a->actors, a->tl, w);
	if (a->trace)
		json_patterns_write(a->patterns, w);
	jsonw_name(w, "critical");
	if (a->critical)
		json_critical_write(a->critical, a, w);
	else
		jsonw_null(w);
	if (a->trace) {
		json_progress_write(a, w);
		json_dataflow_write(a, w);
	}
	jsonw_end_object(w);
	jsonw_destroy(&w);
	return ferror(f) ? -1 : 0;
}
