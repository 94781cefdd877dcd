// SPDX-License-Identifier: MIT
/* When windows are written and what they cover; see src/watch/trigger.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "trigger.h"

struct trigger {
	uint64_t before, after, max_len;
	struct trig_window *q;		/* windows not yet due, in the order opened */
	size_t nq, qcap;
	struct trig_break *log;		/* every break, by at_ns */
	size_t nlog, lcap;
};

struct trigger *trigger__new(uint64_t before_ns, uint64_t after_ns, uint64_t max_len_ns)
{
	struct trigger *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->before = before_ns;
	t->after = after_ns;
	t->max_len = max_len_ns > before_ns + after_ns ? max_len_ns : before_ns + after_ns;
	return t;
}

void trigger__free(struct trigger *t)
{
	if (!t)
		return;
	free(t->q);
	free(t->log);
	free(t);
}

static int log_break(struct trigger *t, const struct trig_break *b)
{
	size_t i;

	if (grow_array((void **)&t->log, &t->lcap, t->nlog + 1, sizeof(*t->log)))
		return -ENOMEM;
	for (i = t->nlog; i > 0 && t->log[i - 1].at_ns > b->at_ns; i--)
		;
	memmove(&t->log[i + 1], &t->log[i], (t->nlog - i) * sizeof(*t->log));
	t->log[i] = *b;
	t->nlog++;
	return 0;
}

static int open_window(struct trigger *t, const struct trig_window *w)
{
	if (grow_array((void **)&t->q, &t->qcap, t->nq + 1, sizeof(*t->q)))
		return -ENOMEM;
	t->q[t->nq++] = *w;
	return 0;
}

/* May the window w take a break at `at` and stay within max_len? */
static bool may_join(const struct trigger *t, const struct trig_window *w, uint64_t at)
{
	uint64_t from = at - (at > t->before ? t->before : at), to = at + t->after;

	if (w->manual || at < w->from || at > w->to)
		return false;
	from = from < w->from ? from : w->from;
	to = to > w->to ? to : w->to;
	return to - from <= t->max_len;
}

int trigger__break(struct trigger *t, const struct trig_break *b)
{
	uint64_t at = b->at_ns > 0 ? (uint64_t)b->at_ns : 0;
	int err = log_break(t, b);

	if (err)
		return err;
	/*
	 * A window not yet written that covers the break takes it: breaks of
	 * several actors at one disturbance, judged one actor after the
	 * other, go into one file.
	 */
	for (size_t i = 0; i < t->nq; i++) {
		struct trig_window *w = &t->q[i];

		if (!may_join(t, w, at))
			continue;
		if (at + t->after > w->to)
			w->to = at + t->after;
		if (at - (at > t->before ? t->before : at) < w->from)
			w->from = at - (at > t->before ? t->before : at);
		/* The earliest break leads: a delay reaches the stages downstream later. */
		if (b->at_ns < w->first.at_ns)
			w->first = *b;
		w->nbreaks++;
		if (b->lateness_ns > w->worst_ns)
			w->worst_ns = b->lateness_ns;
		return 0;
	}
	return open_window(t, &(struct trig_window){
		.from = at > t->before ? at - t->before : 0, .to = at + t->after,
		.first = *b, .nbreaks = 1, .worst_ns = b->lateness_ns,
	});
}

int trigger__manual(struct trigger *t, uint64_t now)
{
	return open_window(t, &(struct trig_window){
		.from = now > t->before ? now - t->before : 0, .to = now, .manual = true,
	});
}

bool trigger__due(struct trigger *t, uint64_t decided_until, bool flush, struct trig_window *out)
{
	size_t best = t->nq;

	for (size_t i = 0; i < t->nq; i++)
		if ((flush || t->q[i].to <= decided_until) && (best == t->nq || t->q[i].to < t->q[best].to))
			best = i;
	if (best == t->nq)
		return false;
	*out = t->q[best];
	memmove(&t->q[best], &t->q[best + 1], (t->nq - best - 1) * sizeof(*t->q));
	t->nq--;
	return true;
}

uint64_t trigger__next_end(const struct trigger *t)
{
	uint64_t v = UINT64_MAX;

	for (size_t i = 0; i < t->nq; i++)
		if (t->q[i].to < v)
			v = t->q[i].to;
	return v;
}

uint64_t trigger__keep_from(const struct trigger *t)
{
	uint64_t v = UINT64_MAX;

	for (size_t i = 0; i < t->nq; i++)
		if (t->q[i].from < v)
			v = t->q[i].from;
	return v;
}

int trigger__breaks_in(const struct trigger *t, uint64_t from, uint64_t to, struct trig_break **out, size_t *n)
{
	size_t k = 0;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < t->nlog; i++)
		k += t->log[i].at_ns >= (int64_t)from && t->log[i].at_ns <= (int64_t)to;
	if (!k)
		return 0;
	*out = malloc(k * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < t->nlog; i++)
		if (t->log[i].at_ns >= (int64_t)from && t->log[i].at_ns <= (int64_t)to)
			(*out)[(*n)++] = t->log[i];
	return 0;
}

void trigger__forget(struct trigger *t, uint64_t ts)
{
	size_t k = 0;

	while (k < t->nlog && t->log[k].at_ns < (int64_t)ts)
		k++;
	if (!k)
		return;
	memmove(t->log, t->log + k, (t->nlog - k) * sizeof(*t->log));
	t->nlog -= k;
}
