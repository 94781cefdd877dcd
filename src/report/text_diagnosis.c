// SPDX-License-Identifier: MIT
/*
 * The first thing the text report says: the three answers, one sentence
 * each, from the stages' results. Which thread broke its period first (and
 * where the delay went), what delayed its worst late invocations (the
 * critical path), and what activity shows up when it breaks (patterns).
 * The sections below give the evidence.
 */
#include <string.h>

#include "actors/actors.h"
#include "critical/critical.h"
#include "actors/holdup.h"
#include "lib/parse.h"
#include "patterns/patterns.h"
#include "report.h"
#include "file/syscall_names.h"
#include "file/trace.h"

#define WORST 5
#define MAX_LISTED 256		/* the actors the first answer follows downstream */

/*
 * y's trusted breaks that come after one of u's, and of the others how
 * many are major (late by 1/ACTORS_MAJOR_DIV of y's period or more) and
 * the worst lateness. A downstream actor can break on its own; only the
 * first kind is u's delay propagating: y's late start within two of its
 * periods after u's (one for the stages between, one for what the delay
 * grows by), and late by at most one period of y more than u (queueing
 * behind its siblings after a disturbance adds some: the demo's sink,
 * three stages down, is 29 ms late when src is 25 ms, 10.2 ms after it; a
 * writer stalled 20 ms while the camera before it was 2 ms late has a
 * cause of its own).
 * Breaks are in time order.
 */
struct follow {
	size_t after, own, own_major;
	int64_t own_worst_ns;
};

static struct follow follows(const struct actor *u, const struct actor *y)
{
	struct follow fo = { 0, 0, 0, 0 };
	int64_t period = (int64_t)y->st.period_ns;
	size_t i = 0;

	for (size_t j = 0; j < y->nbreaks; j++) {
		const struct actor_break *by = &y->breaks[j];
		bool after = false;

		if (by->data_missing)
			continue;
		while (i < u->nbreaks && u->breaks[i].end_ns + 2 * period < by->end_ns)
			i++;
		for (size_t x = i; x < u->nbreaks && u->breaks[x].start_ns <= by->end_ns && !after; x++)
			after = !u->breaks[x].data_missing && by->lateness_ns <= u->breaks[x].lateness_ns + period;
		if (after) {
			fo.after++;
			continue;
		}
		fo.own++;
		if (actors_major(by->lateness_ns, y->st.period_ns))
			fo.own_major++;
		fo.own_worst_ns = by->lateness_ns > fo.own_worst_ns ? by->lateness_ns : fo.own_worst_ns;
	}
	return fo;
}

/* seen[y]: the upstream actor u reaches y over the kept wakeup edges. */
static void downstream(const struct actors_result *ar, size_t u, bool *seen)
{
	size_t queue[64], qh = 0, qt = 0;

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
			if (qt < sizeof(queue) / sizeof(queue[0]))
				queue[qt++] = y;
		}
	}
}

/*
 * The breaking actors downstream of the upstream one whose breaks follow
 * its breaks ("the delay propagates to dec, sink"); then those that also
 * break on their own, by a major break worse than the upstream actor's
 * worst, with how many major breaks of their own (minor jitter is no
 * news), on one line.
 */
static void list_downstream(FILE *f, const struct actors_result *ar, const bool *seen)
{
	const struct actor *u = &ar->v[ar->upstream], *who = NULL;
	struct follow fo[MAX_LISTED];
	size_t n = 0;
	int64_t worst = 0;
	char b1[32];

	for (size_t i = 0; i < ar->n; i++) {
		if (i == (size_t)ar->upstream || !seen[i] || !ar->v[i].breaking) {
			fo[i] = (struct follow){ 0 };
			continue;
		}
		fo[i] = follows(u, &ar->v[i]);
		if (!fo[i].after)
			continue;
		fprintf(f, "%s%s", n++ ? ", " : ";\n   the delay propagates to ",
			ar->v[i].comm[0] ? ar->v[i].comm : ar->v[i].name);
		if (fo[i].own)
			fprintf(f, " (%zu of its %zu breaks)", fo[i].after, fo[i].after + fo[i].own);
	}
	n = 0;
	for (size_t i = 0; i < ar->n; i++) {
		const struct actor *y = &ar->v[i];

		/* not downstream, or not breaking: own_worst_ns is 0 */
		if (fo[i].own_worst_ns <= u->worst_lateness_ns || !actors_major(fo[i].own_worst_ns, y->st.period_ns))
			continue;
		fprintf(f, "%s%s %zu time%s", n ? ", " : ";\n   breaking on their own too (not after its breaks): ",
			y->comm[0] ? y->comm : y->name, fo[i].own_major, fo[i].own_major == 1 ? "" : "s");
		if (!n || fo[i].own_worst_ns > worst) {
			worst = fo[i].own_worst_ns;
			who = y;
		}
		n++;
	}
	if (n)
		fprintf(f, "; the worst %s late (%s)", fmt_duration(b1, sizeof(b1), worst),
			who->comm[0] ? who->comm : who->name);
}

static void first_answer(const struct analysis *a, FILE *f, const struct report_style *st)
{
	const struct actors_result *ar = a->actors;
	const struct actor *u = &ar->v[ar->upstream];
	size_t trusted = 0;
	bool seen[MAX_LISTED];
	char b1[32], b2[32];

	for (size_t i = 0; i < u->nbreaks; i++)
		trusted += !u->breaks[i].data_missing;
	fprintf(f, "1. %s%s%s is the first to break its %s period: %zu break%s, the worst %s late",
		rs_bold(st), u->name, rs_reset(st), fmt_duration(b1, sizeof(b1), (int64_t)u->st.period_ns),
		trusted, trusted == 1 ? "" : "s", fmt_duration(b2, sizeof(b2), u->worst_lateness_ns));
	if (ar->n <= sizeof(seen)) {
		downstream(ar, ar->upstream, seen);
		list_downstream(f, ar, seen);
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
static long most_blamed(const struct analysis *a, const struct crit_break *const *worst, size_t n, size_t *count,
			int64_t *cost)
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
	*cost = most;
	return best;
}

/*
 * The system call (or the kernel outside any, HOLDUP_NO_CALL) whose
 * holdups tell the story of the most time among worst[0..n), with how
 * many breaks and the range of their times; false if none does.
 */
struct held_answer {
	enum holdup_why why;
	uint32_t nr;
	size_t count;
	int64_t sum, lo, hi;
	const char *state;
	const char *hint;
	char what[64];
};

static bool most_held(const struct analysis *a, const struct crit_break *const *worst, size_t n,
		      struct held_answer *out)
{
	struct holdup h[WORST];
	bool tells[WORST];

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		tells[i] = critical__break_holdup(a->actors, worst[i], &h[i]);
	for (size_t i = 0; i < n; i++) {
		struct held_answer c = { .why = h[i].why, .nr = h[i].call_nr, .lo = INT64_MAX,
					 .state = holdup__state(&h[i]) };

		if (!tells[i])
			continue;
		for (size_t j = 0; j < n; j++) {
			int64_t v;

			if (!tells[j] || h[j].why != c.why || h[j].call_nr != c.nr)
				continue;
			v = h[j].told_ns;
			c.count++;
			c.sum += v;
			c.lo = v < c.lo ? v : c.lo;
			c.hi = v > c.hi ? v : c.hi;
		}
		if (c.sum > out->sum)
			*out = c;
	}
	if (!out->count)
		return false;
	if (out->why == HOLDUP_CPU_IDLE) {
		snprintf(out->what, sizeof(out->what), "while its CPU ran nothing");
		out->state = "runnable";
		out->hint = ": CPU bandwidth throttling (a cgroup's CPU quota spent)?";
	} else if (out->nr == HOLDUP_NO_CALL) {
		snprintf(out->what, sizeof(out->what), "in the kernel");
	} else {
		const char *name = syscall_name(trace__arch(a->trace), out->nr);

		if (name)
			snprintf(out->what, sizeof(out->what), "in %s()", name);
		else
			snprintf(out->what, sizeof(out->what), "in system call %u", out->nr);
	}
	return true;
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

/* The cause that cost the upstream actor's worst breaks the most. */
static void second_answer(const struct analysis *a, FILE *f, const struct report_style *st)
{
	const struct critical_result *cr = a->critical;
	const struct crit_break *worst[WORST];
	size_t n = 0, best_count;
	int64_t best_cost;
	struct held_answer held;
	long best;
	char name[96], b1[32], b2[32], threads[48] = "", in[48];

	/* Breaks over missing data are listed, not trusted: the first answer does not count them either. */
	for (size_t i = 0; i < cr->nbreaks && n < WORST; i++)
		if ((long)cr->breaks[i].actor == a->actors->upstream &&
		    !a->actors->v[cr->breaks[i].actor].breaks[cr->breaks[i].brk].data_missing)
			worst[n++] = &cr->breaks[i];
	if (!n)
		return;
	best = most_blamed(a, worst, n, &best_count, &best_cost);
	/* The call names what a category (a wait within the invocation, a release) only hints at. */
	if (most_held(a, worst, n, &held) &&
	    (best < 0 || held.sum >= best_cost || worst[best]->culprit.thread == CRIT_NONE ||
	     worst[best]->culprit.thread == a->actors->v[a->actors->upstream].thread)) {
		fmt_duration(b1, sizeof(b1), held.lo);
		fmt_duration(b2, sizeof(b2), held.hi);
		fprintf(f, "2. What delayed it: %s, it was %s %s%s%s (%s%s%s)%s\n",
			in_breaks(in, sizeof(in), held.count, n), held.state, rs_bold(st), held.what, rs_reset(st),
			b1, strcmp(b1, b2) ? " to " : "", strcmp(b1, b2) ? b2 : "", held.hint ? held.hint : ".");
		return;
	}
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
		in_breaks(in, sizeof(in), best_count, n);
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
