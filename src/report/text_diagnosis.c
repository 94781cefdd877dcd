// SPDX-License-Identifier: MIT
/*
 * The first thing the text report says: the three answers of the
 * Diagnosis (src/analysis/diagnosis.h), one sentence each, printed from
 * struct diagnosis, or that the pipeline keeps its rhythm. The sections
 * below give the evidence.
 */
#include <math.h>
#include <string.h>

#include "actors/actors.h"
#include "analysis/diagnosis.h"
#include "critical/critical.h"
#include "file/syscall_names.h"
#include "file/trace.h"
#include "lib/parse.h"
#include "patterns/patterns.h"
#include "report.h"
#include "text_actors.h"

/* How the answers name an actor downstream: by its thread's name. */
static const char *short_name(const struct actor *y)
{
	return y->comm[0] ? y->comm : y->name;
}

/*
 * "the delay propagates to dec, sink"; then those that also break on
 * their own, with how many major breaks of their own, on one line.
 */
static void print_downstream(const struct analysis *a, const struct diagnosis *d, FILE *f)
{
	const struct actors_result *ar = a->actors;
	size_t n = 0;
	char b1[32];

	for (size_t i = 0; i < d->nrows; i++) {
		const struct diag_actor *r = &d->rows[i];

		if (!r->downstream || !r->after)
			continue;
		fprintf(f, "%s%s", n++ ? ", " : ";\n   the delay propagates to ", short_name(&ar->v[r->actor]));
		if (r->own)
			fprintf(f, " (%zu of its %zu breaks)", r->after, r->after + r->own);
	}
	n = 0;
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diag_actor *r = &d->rows[i];

		if (!r->on_its_own)
			continue;
		fprintf(f, "%s%s %zu time%s", n++ ? ", " : ";\n   breaking on their own too (not after its breaks): ",
			short_name(&ar->v[r->actor]), r->own_major, r->own_major == 1 ? "" : "s");
	}
	if (d->own_worst >= 0)
		fprintf(f, "; the worst %s late (%s)", fmt_duration(b1, sizeof(b1), d->rows[d->own_worst].own_worst_ns),
			short_name(&ar->v[d->rows[d->own_worst].actor]));
}

static void first_answer(const struct analysis *a, const struct diagnosis *d, FILE *f,
			 const struct report_style *st)
{
	const struct actor *u = &a->actors->v[d->upstream];
	char b1[32], b2[32];

	fprintf(f, "1. %s%s%s is the first to break its %s period: %zu break%s", rs_bold(st), u->name, rs_reset(st),
		fmt_duration(b1, sizeof(b1), (int64_t)u->st.period_ns), d->breaks, d->breaks == 1 ? "" : "s");
	if (d->jitter)
		fprintf(f, " (+%zu jitter, at most %s)", d->jitter, fmt_duration(b1, sizeof(b1), d->worst_jitter_ns));
	fprintf(f, ", the worst %s late", fmt_duration(b2, sizeof(b2), d->worst_ns));
	print_downstream(a, d, f);
	fprintf(f, ".\n");
}

/*
 * No periodic actor has a major break: the rhythm is kept, and how close
 * each came, as a share of its period ("2.1 % (191 us of 9.19 ms)").
 */
static void keeps_rhythm(const struct analysis *a, const struct diagnosis *d, FILE *f,
			 const struct report_style *st)
{
	char b1[32], b2[32];

	fprintf(f, "%sThe pipeline keeps its rhythm%s: ", rs_bold(st), rs_reset(st));
	if (d->min_late.ns <= 0 && d->min_late.frac < 0) {
		if (d->nperiodic == 1)
			fprintf(f, "its periodic actor never breaks its period");
		else
			fprintf(f, "none of its %zu periodic actors breaks its period", d->nperiodic);
	} else {
		text_actors_cut(b1, sizeof(b1), d->min_late, "its period");
		if (d->nperiodic == 1)
			fprintf(f, "its periodic actor is never late by %s or more", b1);
		else
			fprintf(f, "none of its %zu periodic actors is late by %s or more", d->nperiodic, b1);
	}
	/* what is not periodic is not judged: say so, or "keeps its rhythm" claims too much */
	if (d->nactors > d->nperiodic)
		fprintf(f, " (%zu other actor%s not periodic)", d->nactors - d->nperiodic,
			d->nactors - d->nperiodic == 1 ? " is" : "s are");
	fprintf(f, ".\n");
	fprintf(f, "Worst lateness, as a share of the period:");
	for (size_t i = 0; i < d->nrhythm && i < DIAG_RHYTHM_SHOWN; i++) {
		const struct diag_rhythm *r = &d->rhythm[i];
		const struct actor *y = &a->actors->v[r->actor];

		fprintf(f, "%s %s ", i ? "," : "", short_name(y));
		if (!r->worst_ns) {
			fprintf(f, "no break");
			continue;
		}
		fprintf(f, "%.1f %% (%s of %s", 100 * r->share, fmt_duration(b1, sizeof(b1), r->worst_ns),
			fmt_duration(b2, sizeof(b2), llround(y->st.period_ns)));
		if (r->jitter)
			fprintf(f, ", %zu jitter", r->jitter);
		fprintf(f, ")");
	}
	if (d->nrhythm > DIAG_RHYTHM_SHOWN)
		fprintf(f, ", and %zu more", d->nrhythm - DIAG_RHYTHM_SHOWN);
	fprintf(f, ".\n");
}

/* "in its one break", "in 3 of its 5 worst breaks" */
static const char *in_breaks(char *buf, size_t len, size_t count, size_t n)
{
	if (n == 1)
		snprintf(buf, len, "in its one break");
	else
		snprintf(buf, len, "in %zu of its %zu worst breaks", count, n);
	return buf;
}

/* "13.7 ms to 19.2 ms"; a range whose ends print the same ("24.1 ms to 24.1 ms") is one value. */
static const char *range(char *buf, size_t len, int64_t lo, int64_t hi)
{
	char b1[32], b2[32];

	fmt_duration(b1, sizeof(b1), lo);
	fmt_duration(b2, sizeof(b2), hi);
	snprintf(buf, len, "%s%s%s", b1, strcmp(b1, b2) ? " to " : "", strcmp(b1, b2) ? b2 : "");
	return buf;
}

/* What held the worst breaks: "it was blocked in fdatasync() (13.7 ms to 19.2 ms)." */
static void print_held(const struct analysis *a, const struct diag_cause *c, FILE *f,
		       const struct report_style *st)
{
	char what[64], in[48], r[80];
	const char *state = c->state;

	if (c->why == HOLDUP_CPU_IDLE) {
		snprintf(what, sizeof(what), "while its CPU ran nothing");
		state = "runnable";
	} else if (c->call_nr == HOLDUP_NO_CALL) {
		snprintf(what, sizeof(what), "in the kernel");
	} else {
		const char *name = syscall_name(trace__arch(a->trace), c->call_nr);

		if (name)
			snprintf(what, sizeof(what), "in %s()", name);
		else
			snprintf(what, sizeof(what), "in system call %u", c->call_nr);
	}
	fprintf(f, "2. What delayed it: %s, it was %s %s%s%s (%s)%s\n",
		in_breaks(in, sizeof(in), c->count, c->nworst), state, rs_bold(st), what, rs_reset(st),
		range(r, sizeof(r), c->min_ns, c->max_ns),
		c->why == HOLDUP_CPU_IDLE ? ": CPU bandwidth throttling (a cgroup's CPU quota spent)?" : ".");
}

static void print_culprit(const struct analysis *a, const struct diag_cause *c, FILE *f,
			  const struct report_style *st)
{
	static const char *const how[] = {
		[DIAG_CPU_BEHIND] = "it waited for the CPU behind ",
		[DIAG_RAN_THROUGH] = "the critical path ran through ",
		[DIAG_WAITED_ON] = "the path waited on ",
	};
	char name[96], threads[48] = "", in[48], r[80];
	const char *who = name;	/* a category's name may be a constant, not written to name */

	if (c->threads > 1)
		snprintf(threads, sizeof(threads), "%zu threads of that name; ", c->threads);
	if (c->thread != CRIT_NONE)
		snprintf(name, sizeof(name), "%s", timeline__comm_at(a->tl, c->thread, c->named_at_ns));
	else
		who = critical_cat_name(c->cat, c->sub, a->trace, name, sizeof(name));
	fprintf(f, "2. What delayed it: %s, %s%s%s%s (%s%s more than usual).\n",
		in_breaks(in, sizeof(in), c->count, c->nworst), how[c->how], rs_bold(st), who, rs_reset(st), threads,
		range(r, sizeof(r), c->min_ns, c->max_ns));
}

/* The cause that cost the upstream actor's worst breaks the most. */
static void second_answer(const struct analysis *a, const struct diagnosis *d, FILE *f,
			  const struct report_style *st)
{
	const struct diag_cause *c = &d->cause;
	char name[96], b1[32];

	switch (c->kind) {
	case DIAG_CAUSE_HELD:
		print_held(a, c, f, st);
		break;
	case DIAG_CAUSE_CULPRIT:
		print_culprit(a, c, f, st);
		break;
	case DIAG_CAUSE_RELEASE:
		fprintf(f, "2. What delayed it: its worst late invocation was released %s later than usual (%s).\n",
			fmt_duration(b1, sizeof(b1), c->total_ns),
			critical_cat_name(c->cat, c->sub, a->trace, name, sizeof(name)));
		break;
	default:
		break;
	}
}

static void third_answer(const struct analysis *a, const struct diagnosis *d, FILE *f,
			 const struct report_style *st)
{
	const struct diag_patterns *dp = &d->patterns;

	if (dp->kind == DIAG_PATTERNS_NOT_ANALYSED)
		return;
	if (dp->kind == DIAG_PATTERNS_SKIPPED) {
		/* "No pattern sets them apart" would claim a search that did not run. */
		fprintf(f, "3. Its breaks were not searched for patterns: its period is too short for a media period "
			   "(see the patterns section).\n");
		return;
	}
	if (dp->kind == DIAG_PATTERNS_NONE) {
		fprintf(f, "3. No pattern of activity sets its breaks apart from the periods that hold%s.\n",
			dp->searched ? " (see the patterns section)" : "");
		return;
	}
	fprintf(f, "3. What shows up when it breaks: ");
	for (size_t i = 0; i < dp->nshown; i++) {
		const struct pattern *p = &a->patterns->v[dp->shown[i]];

		fprintf(f, "%s\"%s", i ? "; " : "", rs_bold(st));
		for (uint32_t k = 0; k < p->len; k++)
			fprintf(f, "%s%s", k ? " -> " : "", p->events[k]);
		fprintf(f, "%s\" (in %u/%u %sbreaks, %u/%u periods)", rs_reset(st), p->count_pos, p->breaks,
			p->level ? "worst " : "", p->count_neg, dp->periods);
	}
	fprintf(f, ".\n");
}

void report_summary(const struct analysis *a, FILE *f, const struct report_style *st)
{
	const struct diagnosis *d = a->diagnosis;

	if (!d)
		return;
	rs_section(f, st, "Diagnosis");
	switch (d->answer) {
	case DIAG_NO_ACTOR:
		fprintf(f, "No thread did enough to judge a period (see --actor to choose one).\n");
		return;
	case DIAG_NONE_PERIODIC:
		fprintf(f, "None of the %zu actors is periodic (QCoD below %.0f %%): choose one with --actor, "
			"or allow more dispersion with --qcod.\n", d->nactors, 100 * d->qcod_threshold);
		return;
	case DIAG_NONE_BREAKS:
		keeps_rhythm(a, d, f, st);
		return;
	case DIAG_UPSTREAM:
		break;
	}
	first_answer(a, d, f, st);
	second_answer(a, d, f, st);
	third_answer(a, d, f, st);
}
