// SPDX-License-Identifier: MIT
/*
 * The first thing the text report says: the three answers, one sentence
 * each, from the stages' results. Which thread broke its period first (and
 * where the delay went), what delayed its worst late invocations (the
 * critical path), and what activity shows up when it breaks (patterns).
 * The sections below give the evidence.
 */
#include <string.h>

#include "actors.h"
#include "critical.h"
#include "parse.h"
#include "patterns.h"
#include "report.h"

#define WORST 5

/* The breaking actors the upstream one reaches over the kept wakeup edges. */
static size_t downstream(const struct actors_result *ar, size_t u, bool *seen)
{
	size_t queue[64], qh = 0, qt = 0, n = 0;

	memset(seen, 0, ar->n);
	seen[u] = true;
	queue[qt++] = u;
	while (qh < qt) {
		size_t x = queue[qh++];

		for (size_t e = 0; e < ar->nedges; e++) {
			size_t y = ar->edges[e].to;

			if (ar->edges[e].from != x || seen[y])
				continue;
			seen[y] = true;
			n += ar->v[y].breaking;
			if (qt < sizeof(queue) / sizeof(queue[0]))
				queue[qt++] = y;
		}
	}
	return n;
}

static void first_answer(const struct analysis *a, FILE *f, const struct report_style *st)
{
	const struct actors_result *ar = a->actors;
	const struct actor *u = &ar->v[ar->upstream];
	size_t trusted = 0;
	bool seen[256];
	char b1[32], b2[32];

	for (size_t i = 0; i < u->nbreaks; i++)
		trusted += !u->breaks[i].data_missing;
	fprintf(f, "1. %s%s%s is the first to break its %s period: %zu break%s, the worst %s late",
		rs_bold(st), u->name, rs_reset(st), fmt_duration(b1, sizeof(b1), (int64_t)u->st.period_ns),
		trusted, trusted == 1 ? "" : "s", fmt_duration(b2, sizeof(b2), u->worst_lateness_ns));
	if (ar->n <= sizeof(seen) && downstream(ar, ar->upstream, seen)) {
		const char *sep = "";

		fprintf(f, ";\n   the delay propagates to ");
		for (size_t i = 0; i < ar->n; i++) {
			if (i != (size_t)ar->upstream && seen[i] && ar->v[i].breaking) {
				fprintf(f, "%s%s", sep, ar->v[i].comm[0] ? ar->v[i].comm : ar->v[i].name);
				sep = ", ";
			}
		}
	}
	fprintf(f, ".\n");
}

/*
 * Do two breaks blame the same culprit: the same kind of wait, or threads
 * of one name. A disturber is often a program started anew each time (a
 * cron job, the children of a shell loop): each break then has its own
 * thread, and only the name recurs.
 */
static bool same_culprit(const struct analysis *a, const struct crit_break *x, const struct crit_break *y)
{
	if (x->culprit.cat != y->culprit.cat || (x->culprit.thread == CRIT_NONE) != (y->culprit.thread == CRIT_NONE))
		return false;
	if (x->culprit.thread == y->culprit.thread)
		return true;
	return !strcmp(timeline__comm_at(a->tl, x->culprit.thread, x->path.end_ns),
		       timeline__comm_at(a->tl, y->culprit.thread, y->path.end_ns));
}

/*
 * The break among worst[0..n) whose culprit cost the most over all of them
 * (the sum of its excesses; *count: in how many), or -1. By cost, not by
 * count: one break 4.8 ms late behind a bulk writer says more than two
 * 0.5 ms late behind a kernel thread.
 */
static long most_blamed(const struct analysis *a, const struct crit_break *const *worst, size_t n, size_t *count)
{
	int64_t most = 0;
	long best = -1;

	*count = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t sum = 0;
		size_t c = 0;

		for (size_t j = 0; j < n; j++) {
			if (worst[j]->excess_ns <= 0 || !same_culprit(a, worst[i], worst[j]))
				continue;
			sum += worst[j]->excess_ns;
			c++;
		}
		if (sum > most) {
			most = sum;
			*count = c;
			best = (long)i;
		}
	}
	return best;
}

/* The cause that cost the upstream actor's worst breaks the most. */
static void second_answer(const struct analysis *a, FILE *f, const struct report_style *st)
{
	const struct critical_result *cr = a->critical;
	const struct crit_break *worst[WORST];
	size_t n = 0, best_count;
	long best;
	char name[96], b1[32], b2[32], threads[48] = "";

	/* Breaks over missing data are listed, not trusted: the first answer does not count them either. */
	for (size_t i = 0; i < cr->nbreaks && n < WORST; i++)
		if ((long)cr->breaks[i].actor == a->actors->upstream &&
		    !a->actors->v[cr->breaks[i].actor].breaks[cr->breaks[i].brk].data_missing)
			worst[n++] = &cr->breaks[i];
	if (!n)
		return;
	best = most_blamed(a, worst, n, &best_count);
	if (!best_count) {
		const struct crit_break *b = worst[0];

		if (b->release_excess_ns > 0)
			fprintf(f, "2. What delayed it: its worst late invocation was released %s later than usual "
				"(%s).\n", fmt_duration(b1, sizeof(b1), b->release_excess_ns),
				critical_cat_name(b->release.cat, b->release.sub, a->trace, name, sizeof(name)));
		return;
	}
	{
		const struct crit_share *c = &worst[best]->culprit;
		const char *who = name;	/* a category's name may be a constant, not written to name */
		int64_t lo = INT64_MAX, hi = 0;
		bool match[WORST];
		size_t distinct = 0;
		char in[48];

		for (size_t j = 0; j < n; j++) {
			int64_t v = worst[j]->excess_ns;
			bool first = true;

			match[j] = v > 0 && same_culprit(a, worst[best], worst[j]);
			if (!match[j])
				continue;
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
			for (size_t k = 0; k < j; k++)
				first = first && !(match[k] && worst[k]->culprit.thread == worst[j]->culprit.thread);
			distinct += first;
		}
		if (distinct > 1)
			snprintf(threads, sizeof(threads), "%zu threads of that name; ", distinct);
		if (c->thread != CRIT_NONE)
			snprintf(name, sizeof(name), "%s",
				 timeline__comm_at(a->tl, c->thread, worst[best]->path.end_ns));
		else
			who = critical_cat_name(c->cat, c->sub, a->trace, name, sizeof(name));
		/* a range whose ends print the same ("24.1 ms to 24.1 ms") is one value */
		fmt_duration(b1, sizeof(b1), lo);
		fmt_duration(b2, sizeof(b2), hi);
		if (n == 1)
			snprintf(in, sizeof(in), "in its one break");
		else
			snprintf(in, sizeof(in), "in %zu of its %zu worst breaks", best_count, n);
		fprintf(f, "2. What delayed it: %s, %s%s%s%s (%s%s%s%s more than usual).\n",
			in, c->thread != CRIT_NONE && c->held_ns > c->run_ns ? "it waited for the CPU behind " :
			c->thread != CRIT_NONE ? "the critical path ran through " : "the path waited on ",
			rs_bold(st), who, rs_reset(st), threads, b1, strcmp(b1, b2) ? " to " : "", strcmp(b1, b2) ? b2 : "");
	}
}

static void third_answer(const struct analysis *a, FILE *f, const struct report_style *st)
{
	const struct patterns_result *pr = a->patterns;

	if (!pr->n) {
		fprintf(f, "3. No pattern of activity sets its breaks apart from the periods that hold%s.\n",
			pr->status ? "" : " (see the patterns section)");
		return;
	}
	fprintf(f, "3. What shows up when it breaks: ");
	for (size_t i = 0; i < pr->n && i < 2; i++) {
		const struct pattern *p = &pr->v[i];

		fprintf(f, "%s\"%s", i ? "; " : "", rs_bold(st));
		for (uint32_t k = 0; k < p->len; k++)
			fprintf(f, "%s%s", k ? " -> " : "", p->events[k]);
		fprintf(f, "%s\" (in %u/%u %sbreaks, %u/%u periods)", rs_reset(st), p->count_pos, p->breaks,
			p->level ? "worst " : "", p->count_neg, pr->nneg);
	}
	fprintf(f, ".\n");
}

void report_summary(const struct analysis *a, FILE *f, const struct report_style *st)
{
	const struct actors_result *ar = a->actors;

	rs_section(f, st, "Diagnosis");
	if (!ar || ar->upstream < 0) {
		size_t periodic = 0;

		for (size_t i = 0; ar && i < ar->n; i++)
			periodic += ar->v[i].st.periodic;
		if (!ar || !ar->n)
			fprintf(f, "No thread did enough to judge a period (see --actor to choose one).\n");
		else if (!periodic)
			fprintf(f, "None of the %zu actors is periodic (QCoD below %.0f %%): choose one with --actor, "
				"or allow more dispersion with --qcod.\n", ar->n, 100 * a->opts.qcod_threshold);
		else
			fprintf(f, "%zu periodic actors, and none breaks its period.\n", periodic);
		return;
	}
	first_answer(a, f, st);
	if (a->critical)
		second_answer(a, f, st);
	if (a->patterns)
		third_answer(a, f, st);
}
