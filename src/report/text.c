// SPDX-License-Identifier: MIT
/*
 * The terminal report: the recording's story top-down, in a minute of
 * reading. What was recorded (and lost); then each stage's section.
 */
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "lib/parse.h"
#include "report.h"
#include "style.h"
#include "text_critical.h"
#include "text_patterns.h"
#include "text_progress.h"
#include "text_dataflow.h"
#include "text_actors.h"
#include "file/missing.h"
#include "file/tracefile.h"

static void print_recording(const struct analysis *a, FILE *f, const struct report_style *st)
{
	const struct trace *t = a->trace;
	const struct timeline *tl = a->tl;
	const char *cmd = tf_kv_get(&t->meta, TF_META_CMDLINE);
	const char *missing = tf_kv_get(&t->meta, TF_META_MISSING), *unaccounted;
	char b1[32], b2[32], words[128];
	size_t active = 0;

	for (size_t i = 0; i < tl->nthreads; i++)
		active += tl->threads[i].nruns > 0;
	rs_section(f, st, "Recording");
	fprintf(f, "%s: %.3f s on %d CPUs, kernel %s, %s events (%s), %zu threads ran\n", t->path,
		(t->stop_ns - t->start_ns) / 1e9, t->ncpus, tf_kv_get(&t->meta, TF_META_KERNEL) ?: "?",
		fmt_count(b1, sizeof(b1), t->events), fmt_bytes(b2, sizeof(b2), t->file_bytes), active);
	if (cmd)
		fprintf(f, "command: %s\n", cmd);
	unaccounted = missing_runtime_who(missing, words, sizeof(words));
	if (unaccounted)
		fprintf(f, "%srecorded without the kernel's CPU-time accounting at switches of %s (attach "
			"path %s, kernel %s): their CPU times are switch-to-switch intervals, not corrected "
			"where switches went unreported or lost%s\n", rs_dim(st), unaccounted,
			tf_kv_get(&t->meta, TF_META_BACKEND) ?: "?", tf_kv_get(&t->meta, TF_META_KERNEL) ?: "?",
			rs_reset(st));
	if (!t->finished)
		fprintf(f, "%sNOT FINISHED%s: the file was cut short; analysed up to its last whole block\n",
			rs_yellow(st), rs_reset(st));
	if (t->lost_events || t->user_dropped || t->undecodable)
		fprintf(f, "%sLOST %llu events%s (ring buffer full) in %zu windows: no conclusion is drawn "
			"inside them\n", rs_red(st), (unsigned long long)(t->lost_events + t->user_dropped +
			t->undecodable), rs_reset(st), tl->ngaps);
	else
		fprintf(f, "no events lost\n");
	if (tl->unsure_runs) {
		char who[160];

		fprintf(f, "%s%llu switches were not reported by the kernel (tracepoints filtered for some "
			"threads); %llu runs have an uncertain start", rs_dim(st),
			(unsigned long long)tl->broken_chains, (unsigned long long)tl->unsure_runs);
		if (timeline__hidden_threads(tl, who, sizeof(who)))
			fprintf(f, ";\nthe switches out of %s", who);
		fprintf(f, "%s\n", rs_reset(st));
	}
}

static int by_run_ns(const void *x, const void *y, void *arg)
{
	const struct tl_thread *t = arg;
	uint64_t a = t[*(const uint32_t *)x].run_ns, b = t[*(const uint32_t *)y].run_ns;

	return a < b ? 1 : a > b ? -1 : 0;
}

static void print_threads(const struct analysis *a, FILE *f, const struct report_style *st)
{
	const struct timeline *tl = a->tl;
	double span = a->trace->stop_ns > a->trace->start_ns ? a->trace->stop_ns - a->trace->start_ns : 1;
	size_t top = st->verbose ? tl->nthreads : 5, shown = 0;
	uint32_t *order = malloc((tl->nthreads ? tl->nthreads : 1) * sizeof(*order));
	char b1[32];

	if (!order)
		return;
	for (size_t i = 0; i < tl->nthreads; i++)
		order[i] = i;
	qsort_r(order, tl->nthreads, sizeof(*order), by_run_ns, tl->threads);
	rs_section(f, st, "Busiest threads");
	fprintf(f, "%s%8s %8s  %-16s %10s %6s %7s %8s%s\n", rs_dim(st), "TID", "PID", "COMM", "ON CPU",
		"CPU%", "RUNS", "PREEMPT", rs_reset(st));
	for (size_t k = 0; k < tl->nthreads && shown < top; k++) {
		const struct tl_thread *th = &tl->threads[order[k]];

		if (!th->nruns)
			break;
		fprintf(f, "%8u %8u  %-16s %10s %5.1f%% %7u %8u%s\n", th->tid, th->pid, th->comm,
			fmt_duration(b1, sizeof(b1), th->run_ns), 100.0 * th->run_ns / span, th->nruns,
			th->npreempted, th->flags & TL_TARGET ? "  target" : "");
		shown++;
	}
	free(order);
}

int report_text(const struct analysis *a, FILE *f, const struct report_style *st)
{
	if (a->trace) {
		print_recording(a, f, st);
		report_summary(a, f, st);
	}
	/* The evidence, stage by stage. */
	if (a->tl)
		text_actors_print(a->actors, a->tl, f, st);
	if (a->critical)
		text_critical_print(a->critical, a, f, st);
	text_patterns_print(a->patterns, f, st);
	text_progress_print(a, f, st);
	text_dataflow_print(a, f, st);
	if (a->trace)
		print_threads(a, f, st);
	return ferror(f) ? -1 : 0;
}
