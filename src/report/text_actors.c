// SPDX-License-Identifier: MIT
/*
 * The text report's actor table and the upstream actor's breaks. Times are
 * seconds since the recording started.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "lib/parse.h"
#include "style.h"
#include "text_actors.h"


/* Order of the table: the upstream actor, breaking, periodic, the rest. */
static int row_rank(const struct actors_result *r, size_t i)
{
	const struct actor *a = &r->v[i];

	if ((long)i == r->upstream)
		return 0;
	if (a->breaking)
		return 1;
	if (a->st.periodic)
		return 2;
	return 3;
}

struct rows {
	const struct actors_result *r;
	size_t *ancestors;	/* actors that reach it over the wakeup edges, NULL if not computed */
};

/*
 * How many actors reach each one (breadth first from every actor): sorting
 * by it puts a pipeline in its order. Skipped on huge actor sets, where the
 * table shows a few rows anyway.
 */
static size_t *count_ancestors(const struct actors_result *r)
{
	size_t n = r->n, *first, *queue, *anc, *seen;

	if (n > 4096)
		return NULL;
	first = calloc(n + 1, sizeof(*first));
	queue = malloc((n ? n : 1) * sizeof(*queue));
	anc = calloc(n ? n : 1, sizeof(*anc));
	seen = calloc(n ? n : 1, sizeof(*seen));
	if (!first || !queue || !anc || !seen) {
		free(anc);
		anc = NULL;
		goto out;
	}
	for (size_t e = 0; e < r->nedges; e++)
		first[r->edges[e].from + 1]++;
	for (size_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	for (size_t x = 0; x < n; x++) {
		size_t qh = 0, qt = 0;

		queue[qt++] = x;
		seen[x] = x + 1;
		while (qh < qt) {
			size_t u = queue[qh++];

			for (size_t e = first[u]; e < first[u + 1]; e++) {
				size_t v = r->edges[e].to;

				if (seen[v] == x + 1)
					continue;
				seen[v] = x + 1;
				queue[qt++] = v;
				anc[v]++;
			}
		}
	}
out:
	free(first);
	free(queue);
	free(seen);
	return anc;
}

static int by_row(const void *x, const void *y, void *arg)
{
	const struct rows *rw = arg;
	const struct actors_result *r = rw->r;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int ri = row_rank(r, i), rj = row_rank(r, j);
	int64_t ti, tj;

	if (ri != rj)
		return ri - rj;
	if (rw->ancestors && rw->ancestors[i] != rw->ancestors[j])
		return rw->ancestors[i] < rw->ancestors[j] ? -1 : 1;
	/* Data flows forward in time: the first to run comes first. */
	ti = r->v[i].ninv ? r->v[i].inv[0].start_ns : INT64_MAX;
	tj = r->v[j].ninv ? r->v[j].inv[0].start_ns : INT64_MAX;
	if (ti != tj)
		return ti < tj ? -1 : 1;
	return i < j ? -1 : i > j;
}

static const char *fmt_ms(char *buf, size_t len, double ns)
{
	if (fabs(ns) >= 1e9)
		snprintf(buf, len, "%.3f s", ns / 1e9);
	else if (fabs(ns) >= 1e6)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.1f us", ns / 1e3);
	return buf;
}

const char *text_actors_cut(char *buf, size_t len, struct actors_cut c, const char *period)
{
	double p = 100 * c.frac;

	if (c.ns > 0)
		fmt_duration(buf, len, c.ns);
	else if (c.frac < 0)
		snprintf(buf, len, "any time");
	else
		snprintf(buf, len, p == floor(p) ? "%.0f %% of %s" : "%.1f %% of %s", p, period);
	return buf;
}

/* "+3 jitter, at most 191 us" after a note (sep between them). */
static void print_jitter(const struct actor *a, const char *sep, FILE *f, const struct report_style *st)
{
	char b1[32];

	if (!a->njitter)
		return;
	fprintf(f, "%s%s+%zu jitter, at most %s%s", sep, rs_dim(st), a->njitter,
		fmt_duration(b1, sizeof(b1), a->worst_jitter_ns), rs_reset(st));
}

static void print_table(const struct actors_result *r, FILE *f, const struct report_style *st)
{
	size_t top = st->verbose ? r->n : 12, *order = malloc((r->n ? r->n : 1) * sizeof(*order));
	char b1[32], b2[32], b3[32], q[16], brk[24];
	struct rows rw = { .r = r };
	bool jitter = false;

	if (!order)
		return;
	for (size_t i = 0; i < r->n; i++)
		order[i] = i;
	rw.ancestors = count_ancestors(r);
	qsort_r(order, r->n, sizeof(*order), by_row, &rw);
	free(rw.ancestors);
	fprintf(f, "%s%-24s %11s %7s %6s %7s %11s  %s%s\n", rs_dim(st), "ACTOR", "PERIOD", "QCOD", "INVOC",
		"BREAKS", "WORST LATE", "NOTE", rs_reset(st));
	for (size_t k = 0; k < r->n && k < top; k++) {
		const struct actor *a = &r->v[order[k]];
		const char *note = "", *col = "";

		if (a->st.has_intervals) {
			fmt_ms(b1, sizeof(b1), a->st.period_ns);
			snprintf(q, sizeof(q), "%.1f%%", 100 * a->st.qcod);
		} else {
			strcpy(b1, "-");
			strcpy(q, "-");
		}
		if (a->st.periodic) {
			snprintf(brk, sizeof(brk), "%zu", a->nmajor);
			if (a->nmajor)
				snprintf(b2, sizeof(b2), "+%s", fmt_ms(b3, sizeof(b3), a->worst_lateness_ns));
			else
				strcpy(b2, "-");
		} else {
			strcpy(brk, "-");
			strcpy(b2, "-");
		}
		if ((long)order[k] == r->upstream) {
			note = "most upstream breaking";
			col = rs_red(st);
		} else if (a->breaking) {
			note = a->fed ? "breaks downstream" : "breaks";
			col = rs_yellow(st);
		} else if (!a->st.has_intervals) {
			note = "too few invocations";
		} else if (!a->st.periodic) {
			note = "not periodic";
		} else {
			col = rs_green(st);
		}
		fprintf(f, "%s%-24s%s %11s %7s %6zu %7s %11s  %s", col, a->name, *col ? rs_reset(st) : "", b1, q,
			a->ninv, brk, b2, note);
		print_jitter(a, *note ? "; " : "", f, st);
		if (a->nbreaks_missing)
			fprintf(f, "%s%s%zu break%s over missing data%s", *note || a->njitter ? "; " : "",
				rs_yellow(st), a->nbreaks_missing, a->nbreaks_missing == 1 ? "" : "s", rs_reset(st));
		fputc('\n', f);
	}
	if (r->n > top)
		fprintf(f, "%s... %zu more actors (-v lists them)%s\n", rs_dim(st), r->n - top, rs_reset(st));
	for (size_t i = 0; i < r->n; i++)
		jitter = jitter || r->v[i].njitter;
	/* Where the cut made a difference, the table says where it is. */
	if (jitter)
		fprintf(f, "%sBREAKS: late by %s or more (--min-late); the smaller ones are jitter%s\n", rs_dim(st),
			text_actors_cut(b1, sizeof(b1), r->min_late, "the period"), rs_reset(st));
	free(order);
}

static void print_skipped(const struct actors_result *r, const struct timeline *tl, FILE *f,
			  const struct report_style *st)
{
	size_t runs = 0, inv = 0, kernel = 0, self = 0;

	if (!r->nskipped)
		return;
	for (size_t i = 0; i < r->nskipped; i++) {
		const char *why = r->skipped[i].reason;

		runs += !strcmp(why, "too few runs");
		inv += !strcmp(why, "too few invocations");
		kernel += !strcmp(why, "kernel thread");
		self += !strcmp(why, "qostrace itself");
	}
	fprintf(f, "%s%zu thread%s not studied:", rs_dim(st), r->nskipped, r->nskipped == 1 ? "" : "s");
	if (runs)
		fprintf(f, " %zu with fewer than %d runs%s", runs, ACTORS_MIN_RUNS, inv || kernel || self ? "," : "");
	if (inv)
		fprintf(f, " %zu with fewer than %d invocations%s", inv, ACTORS_MIN_INVOCATIONS,
			kernel || self ? "," : "");
	if (kernel)
		fprintf(f, " %zu kernel thread%s%s", kernel, kernel == 1 ? "" : "s", self ? "," : "");
	if (self)
		fprintf(f, " %zu of qostrace itself", self);
	fprintf(f, "%s%s\n", st->verbose ? "" : " (-v lists them)", rs_reset(st));
	if (!st->verbose)
		return;
	for (size_t i = 0; i < r->nskipped; i++) {
		const struct tl_thread *th = &tl->threads[r->skipped[i].thread];

		fprintf(f, "%s  %s/%u: %s (%zu)%s\n", rs_dim(st), th->comm, th->tid, r->skipped[i].reason,
			r->skipped[i].count, rs_reset(st));
	}
}

static int by_lateness(const void *x, const void *y, void *arg)
{
	const struct actor_break *b = arg;
	int64_t lx = b[*(const size_t *)x].lateness_ns, ly = b[*(const size_t *)y].lateness_ns;

	return lx > ly ? -1 : lx < ly;
}

static void print_upstream(const struct actors_result *r, const struct timeline *tl, FILE *f,
			   const struct report_style *st)
{
	const struct actor *a;
	size_t trusted, top, *order, shown = 0;
	char b1[32], b2[32], b3[32];
	bool any = false;

	if (r->upstream < 0) {
		size_t periodic = 0, jitter = 0;

		for (size_t i = 0; i < r->n; i++) {
			periodic += r->v[i].st.periodic;
			jitter += r->v[i].njitter;
		}
		fprintf(f, "\nNo periodic actor breaks its period%s", periodic ? "" :
			" (none is periodic: try --actor, or a higher --qcod)");
		if (jitter)
			fprintf(f, " by %s or more: %zu break%s of jitter",
				text_actors_cut(b1, sizeof(b1), r->min_late, "the period"), jitter, jitter == 1 ? "" : "s");
		fprintf(f, ".\n");
		return;
	}
	a = &r->v[r->upstream];
	trusted = a->nmajor;
	fprintf(f, "\n%sMost upstream actor that breaks its period: %s%s%s, period %s, %zu break%s", rs_bold(st),
		rs_red(st), a->name, rs_reset(st), fmt_ms(b1, sizeof(b1), a->st.period_ns), trusted,
		trusted == 1 ? "" : "s");
	print_jitter(a, "; ", f, st);
	fputc('\n', f);
	/* What it feeds, so a person sees why it is the one to look at. */
	for (size_t e = 0; e < r->nedges; e++) {
		if (r->edges[e].from != (size_t)r->upstream)
			continue;
		fprintf(f, "%s%s", any ? ", " : "  wakes ", r->v[r->edges[e].to].name);
		any = true;
	}
	if (any)
		fputc('\n', f);
	order = malloc(a->nbreaks * sizeof(*order));
	if (!order)
		return;
	for (size_t b = 0; b < a->nbreaks; b++)
		order[b] = b;
	/* The worst first; -v lists them all in time order. */
	if (!st->verbose)
		qsort_r(order, a->nbreaks, sizeof(*order), by_lateness, a->breaks);
	top = st->verbose ? a->nbreaks : 5;
	fprintf(f, "%s  %12s %11s %11s %8s  %s%s\n", rs_dim(st), "AT (s)", "INTERVAL", "LATE BY", "INVOC", "WHAT",
		rs_reset(st));
	for (size_t k = 0; k < a->nbreaks && shown < top; k++) {
		const struct actor_break *b = &a->breaks[order[k]];
		char what[80];

		if (b->kind == BREAK_COMPLETION)
			snprintf(what, sizeof(what), "started on time, finished late (took %s)",
				 fmt_ms(b3, sizeof(b3), b->interval_ns));
		else if (b->into_before)
			snprintf(what, sizeof(what), "started late: invocation %zu overran %s", b->before,
				 fmt_ms(b3, sizeof(b3), b->overrun_ns));
		else
			snprintf(what, sizeof(what), "started late");
		fprintf(f, "  %12.6f %11s %11s %8zu  %s%s%s%s%s\n", (b->start_ns - (int64_t)tl->start) / 1e9,
			fmt_ms(b1, sizeof(b1), b->interval_ns), fmt_ms(b2, sizeof(b2), b->lateness_ns), b->late, what,
			actor_break_major(a, b) ? "" : " (jitter)", b->data_missing ? rs_yellow(st) : "",
			b->data_missing ? "; data missing: not trusted" : "", b->data_missing ? rs_reset(st) : "");
		shown++;
	}
	if (a->nbreaks > shown)
		fprintf(f, "%s  ... %zu more (-v lists them all)%s\n", rs_dim(st), a->nbreaks - shown, rs_reset(st));
	free(order);
}

void text_actors_print(const struct actors_result *r, const struct timeline *tl, FILE *f,
		       const struct report_style *st)
{
	rs_section(f, st, "Actors: periods and breaks (SATM)");
	if (!r || (!r->n && !r->nskipped)) {
		fprintf(f, "no thread to study\n");
		return;
	}
	if (r->n)
		print_table(r, f, st);
	else
		fprintf(f, "no actor with enough activity to judge a period\n");
	print_skipped(r, tl, f, st);
	print_upstream(r, tl, f, st);
}
