// SPDX-License-Identifier: MIT
/*
 * "diagnosis" of report --json (docs/report.schema.json): struct diagnosis
 * (src/analysis/diagnosis.h) field for field, with the names a reader
 * needs beside the indices. The HTML page renders its three answers from
 * this object.
 */
#include <math.h>

#include "actors/actors.h"
#include "analysis/diagnosis.h"
#include "critical/critical.h"
#include "file/syscall_names.h"
#include "file/trace.h"
#include "report.h"

static const char *const answer_ids[] = {
	[DIAG_NO_ACTOR] = "no_actor",
	[DIAG_NONE_PERIODIC] = "none_periodic",
	[DIAG_NONE_BREAKS] = "none_breaks",
	[DIAG_UPSTREAM] = "upstream_breaks",
};

static const char *const cause_ids[] = {
	[DIAG_CAUSE_NOT_ANALYSED] = "not_analysed",
	[DIAG_CAUSE_NONE] = "none",
	[DIAG_CAUSE_HELD] = "held",
	[DIAG_CAUSE_CULPRIT] = "culprit",
	[DIAG_CAUSE_RELEASE] = "release",
};

static const char *const how_ids[] = {
	[DIAG_CPU_BEHIND] = "cpu_wait_behind",
	[DIAG_RAN_THROUGH] = "ran_through",
	[DIAG_WAITED_ON] = "waited_on",
};

static const char *const why_ids[] = {
	[HOLDUP_NONE] = "none",
	[HOLDUP_IN_CALL] = "in_call",
	[HOLDUP_KERNEL] = "kernel",
	[HOLDUP_CPU_IDLE] = "cpu_idle",
};

/* An actor by index, name and thread. */
static void actor_fields(json_writer_t *w, const struct analysis *a, size_t i)
{
	const struct actor *y = &a->actors->v[i];

	jsonw_u64_field(w, "index", i);
	jsonw_string_field(w, "name", y->name);
	jsonw_u64_field(w, "tid", a->tl->threads[y->thread].tid);
	jsonw_string_field(w, "comm", y->comm);
}

static void json_rows(json_writer_t *w, const struct analysis *a, const struct diagnosis *d)
{
	jsonw_name(w, "breaking");
	jsonw_start_array(w);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diag_actor *r = &d->rows[i];

		jsonw_start_object(w);
		actor_fields(w, a, r->actor);
		jsonw_u64_field(w, "breaks", r->breaks);
		jsonw_u64_field(w, "jitter", r->jitter);
		jsonw_i64_field(w, "worst_jitter_ns", r->worst_jitter_ns);
		jsonw_bool_field(w, "downstream", r->downstream);
		jsonw_u64_field(w, "after_upstream", r->after);
		jsonw_u64_field(w, "own", r->own);
		jsonw_u64_field(w, "own_major", r->own_major);
		jsonw_i64_field(w, "own_worst_ns", r->own_worst_ns);
		jsonw_bool_field(w, "on_its_own", r->on_its_own);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	jsonw_name(w, "on_its_own_worst");
	if (d->own_worst < 0) {
		jsonw_null(w);
		return;
	}
	jsonw_start_object(w);
	actor_fields(w, a, d->rows[d->own_worst].actor);
	jsonw_i64_field(w, "lateness_ns", d->rows[d->own_worst].own_worst_ns);
	jsonw_end_object(w);
}

static void json_cause(json_writer_t *w, const struct analysis *a, const struct diag_cause *c)
{
	char buf[96];

	jsonw_name(w, "cause");
	if (c->kind == DIAG_CAUSE_NOT_ANALYSED) {
		jsonw_null(w);
		return;
	}
	jsonw_start_object(w);
	jsonw_string_field(w, "kind", cause_ids[c->kind]);
	jsonw_name(w, "worst_breaks");
	jsonw_start_array(w);
	for (size_t i = 0; i < c->nworst; i++)
		jsonw_u64(w, c->worst[i]);
	jsonw_end_array(w);
	if (c->kind == DIAG_CAUSE_NONE) {
		jsonw_end_object(w);
		return;
	}
	jsonw_u64_field(w, "breaks", c->count);
	jsonw_i64_field(w, "total_ns", c->total_ns);
	jsonw_i64_field(w, "min_ns", c->min_ns);
	jsonw_i64_field(w, "max_ns", c->max_ns);
	if (c->kind == DIAG_CAUSE_HELD) {
		const char *name = c->call_nr == HOLDUP_NO_CALL ? NULL : syscall_name(trace__arch(a->trace), c->call_nr);

		jsonw_string_field(w, "holdup", why_ids[c->why]);
		jsonw_string_field(w, "state", c->state);
		if (c->call_nr == HOLDUP_NO_CALL)
			jsonw_null_field(w, "syscall_nr");
		else
			jsonw_u64_field(w, "syscall_nr", c->call_nr);
		if (name)
			jsonw_string_field(w, "syscall", name);
		else
			jsonw_null_field(w, "syscall");
	} else if (c->kind == DIAG_CAUSE_CULPRIT) {
		jsonw_string_field(w, "how", how_ids[c->how]);
		if (c->thread != CRIT_NONE) {
			jsonw_u64_field(w, "tid", a->tl->threads[c->thread].tid);
			jsonw_string_field(w, "name", timeline__comm_at(a->tl, c->thread, c->named_at_ns));
		} else {
			jsonw_null_field(w, "tid");
			jsonw_string_field(w, "name", critical_cat_name(c->cat, c->sub, a->trace, buf, sizeof(buf)));
		}
		jsonw_u64_field(w, "threads", c->threads);
	} else {
		jsonw_string_field(w, "name", critical_cat_name(c->cat, c->sub, a->trace, buf, sizeof(buf)));
	}
	jsonw_end_object(w);
}

static void json_patterns(json_writer_t *w, const struct diag_patterns *p)
{
	jsonw_name(w, "patterns");
	if (p->kind == DIAG_PATTERNS_NOT_ANALYSED) {
		jsonw_null(w);
		return;
	}
	jsonw_start_object(w);
	jsonw_bool_field(w, "found", p->kind == DIAG_PATTERNS_FOUND);
	jsonw_bool_field(w, "searched", p->searched);
	jsonw_name(w, "shown");
	jsonw_start_array(w);
	for (size_t i = 0; i < p->nshown; i++)
		jsonw_u64(w, p->shown[i]);
	jsonw_end_array(w);
	jsonw_u64_field(w, "periods", p->periods);
	jsonw_end_object(w);
}

static const char *const verdict_ids[] = {
	[DIAG_KEEPS_RHYTHM] = "keeps_rhythm",
	[DIAG_BREAKS] = "breaks",
};

void report_json_verdict(const struct analysis *a, json_writer_t *w)
{
	const struct diagnosis *d = a->diagnosis;

	if (d && d->verdict != DIAG_VERDICT_NONE)
		jsonw_string_field(w, "verdict", verdict_ids[d->verdict]);
	else
		jsonw_null_field(w, "verdict");
}

/* The cut between major breaks and jitter: a share of the period or a duration (null: the other; both: none). */
static void json_cut(json_writer_t *w, struct actors_cut c)
{
	if (c.ns <= 0 && c.frac >= 0)
		jsonw_float_field(w, "min_late_fraction", c.frac);
	else
		jsonw_null_field(w, "min_late_fraction");
	if (c.ns > 0)
		jsonw_i64_field(w, "min_late_ns", c.ns);
	else
		jsonw_null_field(w, "min_late_ns");
}

/* Every periodic actor's latest break against its period, the latest first. */
static void json_rhythm(json_writer_t *w, const struct analysis *a, const struct diagnosis *d)
{
	jsonw_name(w, "rhythm");
	jsonw_start_array(w);
	for (size_t i = 0; i < d->nrhythm; i++) {
		const struct diag_rhythm *r = &d->rhythm[i];

		jsonw_start_object(w);
		actor_fields(w, a, r->actor);
		jsonw_i64_field(w, "period_ns", llround(a->actors->v[r->actor].st.period_ns));
		jsonw_i64_field(w, "worst_lateness_ns", r->worst_ns);
		jsonw_float_field(w, "share", r->share);
		jsonw_u64_field(w, "major_breaks", r->major);
		jsonw_u64_field(w, "jitter", r->jitter);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

void report_json_diagnosis(const struct analysis *a, json_writer_t *w)
{
	const struct diagnosis *d = a->diagnosis;

	jsonw_name(w, "diagnosis");
	if (!d) {
		jsonw_null(w);
		return;
	}
	jsonw_start_object(w);
	jsonw_string_field(w, "answer", answer_ids[d->answer]);
	jsonw_u64_field(w, "actors", d->nactors);
	jsonw_u64_field(w, "periodic", d->nperiodic);
	jsonw_float_field(w, "qcod_threshold", d->qcod_threshold);
	json_cut(w, d->min_late);
	json_rhythm(w, a, d);
	jsonw_name(w, "upstream");
	if (d->answer != DIAG_UPSTREAM) {
		jsonw_null(w);
		jsonw_end_object(w);
		return;
	}
	jsonw_start_object(w);
	actor_fields(w, a, d->upstream);
	jsonw_i64_field(w, "period_ns", llround(a->actors->v[d->upstream].st.period_ns));
	jsonw_u64_field(w, "breaks", d->breaks);
	jsonw_i64_field(w, "worst_lateness_ns", d->worst_ns);
	jsonw_u64_field(w, "jitter", d->jitter);
	jsonw_i64_field(w, "worst_jitter_ns", d->worst_jitter_ns);
	jsonw_end_object(w);
	jsonw_bool_field(w, "downstream_checked", d->downstream_checked);
	json_rows(w, a, d);
	json_cause(w, a, &d->cause);
	json_patterns(w, &d->patterns);
	jsonw_end_object(w);
}
