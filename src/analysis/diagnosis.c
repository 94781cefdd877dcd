// SPDX-License-Identifier: MIT
/*
 * The three answers of the Diagnosis, from the stages' results; see
 * src/analysis/diagnosis.h. Which thread broke its period first (and where
 * the delay went), what delayed its worst late invocations (the critical
 * path, or the holdup where the path cannot say), and what activity shows
 * up when it breaks (patterns).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "analysis.h"
#include "critical/critical.h"
#include "diagnosis.h"
#include "patterns/patterns.h"

/* A trusted major break of a (actor.h): the only kind the answers count. */
static bool counts(const struct actor *a, const struct actor_break *b)
{
	return !b->data_missing && actor_break_major(a, b);
}

/*
 * y's trusted major breaks that come after one of u's, and of the others
 * (its own) the worst lateness. A downstream actor can break on its own;
 * only the first kind is u's delay propagating: y's late start within two
 * of its periods after a major break of u (one for the stages between,
 * one for what the delay grows by), and late by at most one period of y
 * more than u (queueing behind its siblings after a disturbance adds
 * some: the demo's sink, three stages down, is 29 ms late when src is
 * 25 ms, 10.2 ms after it; a writer stalled 20 ms while the camera before
 * it was 2 ms late has a cause of its own). Jitter on either side is no
 * delay. Breaks are in time order.
 */
static void follows(const struct actor *u, const struct actor *y, struct diag_actor *row)
{
	int64_t period = (int64_t)y->st.period_ns;
	size_t i = 0;

	for (size_t j = 0; j < y->nbreaks; j++) {
		const struct actor_break *by = &y->breaks[j];
		bool after = false;

		if (!counts(y, by))
			continue;
		while (i < u->nbreaks && u->breaks[i].end_ns + 2 * period < by->end_ns)
			i++;
		for (size_t x = i; x < u->nbreaks && u->breaks[x].start_ns <= by->end_ns && !after; x++)
			after = counts(u, &u->breaks[x]) && by->lateness_ns <= u->breaks[x].lateness_ns + period;
		if (after) {
			row->after++;
			continue;
		}
		row->own++;
		row->own_major++;
		row->own_worst_ns = by->lateness_ns > row->own_worst_ns ? by->lateness_ns : row->own_worst_ns;
	}
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
 * y's trusted breaks: *major of them major, *jitter the others, the latest
 * of which *worst_jitter. Counted from the breaks, not read from
 * breaks_judge()'s summary: the answers read nothing else of an actor.
 */
static void split_breaks(const struct actor *y, size_t *major, size_t *jitter, int64_t *worst_jitter)
{
	*major = *jitter = 0;
	*worst_jitter = 0;
	for (size_t i = 0; i < y->nbreaks; i++) {
		const struct actor_break *b = &y->breaks[i];

		if (b->data_missing)
			continue;
		if (actor_break_major(y, b)) {
			(*major)++;
			continue;
		}
		(*jitter)++;
		*worst_jitter = b->lateness_ns > *worst_jitter ? b->lateness_ns : *worst_jitter;
	}
}

/*
 * A row per breaking actor; for those downstream of the upstream one,
 * whether their breaks follow its breaks ("the delay propagates to dec,
 * sink"), and which also break on their own by a major break worse than
 * the upstream actor's worst (jitter is no news).
 */
static int first_answer(struct diagnosis *d, const struct actors_result *ar)
{
	const struct actor *u = &ar->v[d->upstream];
	bool seen[DIAG_MAX_FOLLOWED];
	int64_t worst = 0;

	split_breaks(u, &d->breaks, &d->jitter, &d->worst_jitter_ns);
	d->worst_ns = u->worst_lateness_ns;
	d->own_worst = -1;
	for (size_t i = 0; i < ar->n; i++)
		d->nrows += ar->v[i].breaking;
	d->rows = calloc(d->nrows ? d->nrows : 1, sizeof(*d->rows));
	if (!d->rows)
		return -ENOMEM;
	d->downstream_checked = ar->n <= DIAG_MAX_FOLLOWED;
	if (d->downstream_checked)
		downstream(ar, d->upstream, seen);
	d->nrows = 0;
	for (size_t i = 0; i < ar->n; i++) {
		const struct actor *y = &ar->v[i];
		struct diag_actor *row = &d->rows[d->nrows];

		if (!y->breaking)
			continue;
		d->nrows++;
		row->actor = i;
		split_breaks(y, &row->breaks, &row->jitter, &row->worst_jitter_ns);
		row->downstream = d->downstream_checked && i != d->upstream && seen[i];
		if (!row->downstream)
			continue;
		follows(u, y, row);
		row->on_its_own = row->own_worst_ns > u->worst_lateness_ns;
		if (row->on_its_own && (d->own_worst < 0 || row->own_worst_ns > worst)) {
			worst = row->own_worst_ns;
			d->own_worst = (long)(d->nrows - 1);
		}
	}
	return 0;
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
 * many breaks and the range of their times, as a HELD cause into *out;
 * false if none does.
 */
static bool most_held(const struct analysis *a, const struct crit_break *const *worst, size_t n,
		      struct diag_cause *out)
{
	struct holdup h[DIAG_WORST];
	bool tells[DIAG_WORST];

	out->count = 0;
	out->total_ns = 0;
	for (size_t i = 0; i < n; i++)
		tells[i] = critical__break_holdup(a->actors, worst[i], &h[i]);
	for (size_t i = 0; i < n; i++) {
		struct diag_cause c = *out;

		if (!tells[i])
			continue;
		c.why = h[i].why;
		c.call_nr = h[i].call_nr;
		c.state = holdup__state(&h[i]);
		c.count = 0;
		c.total_ns = 0;
		c.min_ns = INT64_MAX;
		c.max_ns = INT64_MIN;
		for (size_t j = 0; j < n; j++) {
			int64_t v;

			if (!tells[j] || h[j].why != c.why || h[j].call_nr != c.call_nr)
				continue;
			v = h[j].told_ns;
			c.count++;
			c.total_ns += v;
			c.min_ns = v < c.min_ns ? v : c.min_ns;
			c.max_ns = v > c.max_ns ? v : c.max_ns;
		}
		if (c.total_ns > out->total_ns)
			*out = c;
	}
	if (!out->count)
		return false;
	out->kind = DIAG_CAUSE_HELD;
	return true;
}

/* The culprit of worst[best], over the breaks it explains. */
static void culprit_cause(const struct analysis *a, const struct crit_break *const *worst, size_t n, long best,
			  struct diag_cause *c)
{
	const struct crit_share *s = &worst[best]->culprit;
	bool match[DIAG_WORST];

	c->kind = DIAG_CAUSE_CULPRIT;
	c->thread = s->thread;
	c->cat = s->cat;
	c->sub = s->sub;
	c->named_at_ns = worst[best]->path.end_ns;
	c->how = s->thread == CRIT_NONE ? DIAG_WAITED_ON : s->held_ns > s->run_ns ? DIAG_CPU_BEHIND : DIAG_RAN_THROUGH;
	c->min_ns = INT64_MAX;
	c->max_ns = 0;
	c->threads = 0;
	for (size_t j = 0; j < n; j++) {
		int64_t v = worst[j]->excess_ns;
		bool first = true;

		match[j] = v > 0 && same_culprit(a, worst[best], worst[j]);
		if (!match[j])
			continue;
		c->min_ns = v < c->min_ns ? v : c->min_ns;
		c->max_ns = v > c->max_ns ? v : c->max_ns;
		for (size_t k = 0; k < j; k++)
			first = first && !(match[k] && worst[k]->culprit.thread == worst[j]->culprit.thread);
		c->threads += first;
	}
}

/* The cause that cost the upstream actor's worst breaks the most. */
static void second_answer(struct diagnosis *d, const struct analysis *a)
{
	const struct critical_result *cr = a->critical;
	const struct actors_result *ar = a->actors;
	const struct crit_break *worst[DIAG_WORST];
	struct diag_cause *c = &d->cause, held;
	size_t n = 0, best_count;
	int64_t best_cost;
	long best;

	c->kind = DIAG_CAUSE_NONE;
	/*
	 * Breaks over missing data are listed, not trusted, and jitter is no
	 * break to explain: the first answer does not count them either.
	 */
	for (size_t i = 0; i < cr->nbreaks && n < DIAG_WORST; i++) {
		if (cr->breaks[i].actor == d->upstream &&
		    counts(&ar->v[d->upstream], &ar->v[d->upstream].breaks[cr->breaks[i].brk])) {
			c->worst[n] = i;
			worst[n++] = &cr->breaks[i];
		}
	}
	c->nworst = n;
	if (!n)
		return;
	best = most_blamed(a, worst, n, &best_count, &best_cost);
	held = *c;
	/* The call names what a category (a wait within the invocation, a release) only hints at. */
	if (most_held(a, worst, n, &held) &&
	    (best < 0 || held.total_ns >= best_cost || worst[best]->culprit.thread == CRIT_NONE ||
	     worst[best]->culprit.thread == ar->v[d->upstream].thread)) {
		*c = held;
		return;
	}
	if (best_count) {
		c->count = best_count;
		c->total_ns = best_cost;
		culprit_cause(a, worst, n, best, c);
		return;
	}
	if (worst[0]->release_excess_ns > 0) {
		c->kind = DIAG_CAUSE_RELEASE;
		c->count = 1;
		c->total_ns = c->min_ns = c->max_ns = worst[0]->release_excess_ns;
		c->cat = worst[0]->release.cat;
		c->sub = worst[0]->release.sub;
	}
}

static void third_answer(struct diagnosis *d, const struct patterns_result *pr)
{
	struct diag_patterns *p = &d->patterns;

	p->kind = pr->n ? DIAG_PATTERNS_FOUND : pr->skipped ? DIAG_PATTERNS_SKIPPED : DIAG_PATTERNS_NONE;
	p->searched = !pr->status;
	p->periods = pr->nneg;
	for (size_t i = 0; i < pr->n && i < DIAG_PATTERNS; i++)
		p->shown[p->nshown++] = i;
}

static int by_share(const void *x, const void *y)
{
	const struct diag_rhythm *a = x, *b = y;

	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	return a->actor < b->actor ? -1 : a->actor > b->actor;
}

/* Every periodic actor's latest trusted break against its period, the latest first. */
static int rhythm(struct diagnosis *d, const struct actors_result *ar)
{
	d->rhythm = calloc(d->nperiodic ? d->nperiodic : 1, sizeof(*d->rhythm));
	if (!d->rhythm)
		return -ENOMEM;
	for (size_t i = 0; i < d->nactors; i++) {
		const struct actor *y = &ar->v[i];
		struct diag_rhythm *r = &d->rhythm[d->nrhythm];
		int64_t unused;

		if (!y->st.periodic)
			continue;
		d->nrhythm++;
		r->actor = i;
		r->worst_ns = y->worst_lateness_ns;
		r->share = y->st.period_ns > 0 ? y->worst_lateness_ns / y->st.period_ns : 0;
		split_breaks(y, &r->major, &r->jitter, &unused);
	}
	qsort(d->rhythm, d->nrhythm, sizeof(*d->rhythm), by_share);
	return 0;
}

int diagnosis__compute(const struct analysis *a, struct diagnosis **out)
{
	const struct actors_result *ar = a->actors;
	struct diagnosis *d = calloc(1, sizeof(*d));
	int err;

	if (!d)
		return -ENOMEM;
	d->qcod_threshold = a->opts.qcod_threshold;
	d->min_late = ar ? ar->min_late : a->opts.min_late;
	d->nactors = ar ? ar->n : 0;
	for (size_t i = 0; i < d->nactors; i++)
		d->nperiodic += ar->v[i].st.periodic;
	d->cause.kind = DIAG_CAUSE_NOT_ANALYSED;
	d->patterns.kind = DIAG_PATTERNS_NOT_ANALYSED;
	if (ar && ar->upstream >= 0)
		d->answer = DIAG_UPSTREAM;
	else if (!ar || !ar->n)
		d->answer = DIAG_NO_ACTOR;
	else if (!d->nperiodic)
		d->answer = DIAG_NONE_PERIODIC;
	else
		d->answer = DIAG_NONE_BREAKS;
	d->verdict = d->answer == DIAG_UPSTREAM ? DIAG_BREAKS :
		     d->answer == DIAG_NONE_BREAKS ? DIAG_KEEPS_RHYTHM : DIAG_VERDICT_NONE;
	err = rhythm(d, ar);
	if (err || d->answer != DIAG_UPSTREAM)
		goto out;
	d->upstream = (size_t)ar->upstream;
	err = first_answer(d, ar);
	if (err)
		goto out;
	if (a->critical)
		second_answer(d, a);
	if (a->patterns)
		third_answer(d, a->patterns);
out:
	if (err) {
		diagnosis__free(d);
		return err;
	}
	*out = d;
	return 0;
}

void diagnosis__free(struct diagnosis *d)
{
	if (!d)
		return;
	free(d->rows);
	free(d->rhythm);
	free(d);
}
