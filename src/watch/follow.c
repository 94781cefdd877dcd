// SPDX-License-Identifier: MIT
/* The online detector, a sieve for the judge; see src/watch/follow.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "follow.h"
#include "timeline/timeline.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The latest release inside an invocation, from its start (0: none). */
static int64_t latest_inner_release(const struct actor *a, const struct timeline *tl)
{
	int64_t worst = 0;

	for (size_t k = 0; k < a->ninv; k++) {
		const struct actor_invocation *iv = &a->inv[k];

		for (size_t j = iv->first + 1; j <= iv->last; j++) {
			int64_t at;

			if (a->kind == ACTOR_THREAD) {
				if (tl->runs[j - 1].end_state == QT_END_PREEMPTED)
					continue;
				at = (int64_t)tl->runs[j].start;
			} else {
				const struct tl_syscall *sc = &tl->sc[j];

				if (sc->nr != a->syscall_nr || (a->has_arg0 && sc->arg0 != a->arg0))
					continue;
				at = (int64_t)sc->start;
			}
			if (at - iv->start_ns > worst)
				worst = at - iv->start_ns;
		}
	}
	return worst;
}

/* The median time the invocations were held off their CPU (thread actors). */
static int64_t median_held(const struct actor *a, const struct timeline *tl)
{
	int64_t *held, med;

	if (a->kind != ACTOR_THREAD || !a->ninv)
		return 0;
	held = malloc(a->ninv * sizeof(*held));
	if (!held)
		return 0;	/* a sieve that flags more, not less */
	for (size_t k = 0; k < a->ninv; k++) {
		const struct actor_invocation *iv = &a->inv[k];

		held[k] = iv->end_ns - iv->start_ns;
		for (size_t j = iv->first; j <= iv->last; j++)
			held[k] -= (int64_t)(tl->runs[j].end - tl->runs[j].start);
	}
	qsort(held, a->ninv, sizeof(*held), cmp_i64);
	med = held[a->ninv / 2];
	free(held);
	return med > 0 ? med : 0;
}

int follow_rule_learn(const struct actor *a, const struct timeline *tl, int64_t cut_ns, struct follow_rule *out)
{
	int64_t inner;

	if (!a->st.has_intervals || a->st.period_ns <= 0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->kind = a->kind;
	out->nr = a->syscall_nr;
	out->has_arg0 = a->has_arg0;
	out->arg0 = a->arg0;
	out->period_ns = (int64_t)a->st.period_ns;
	out->cut_ns = cut_ns > 0 ? cut_ns : 1;
	inner = latest_inner_release(a, tl);
	out->release_ns = inner > 0 && inner < out->period_ns ? (inner + out->period_ns) / 2 : out->period_ns / 2;
	out->held_ns = median_held(a, tl);
	return 0;
}

void follow_init(struct follow *f, uint32_t tid, const struct follow_rule *r)
{
	memset(f, 0, sizeof(*f));
	f->tid = tid;
	f->r = *r;
	f->last_end = QT_END_SLEEP;
}

void follow_relearn(struct follow *f, const struct follow_rule *r)
{
	f->r = *r;
}

/* A release at s (a run after a wait, or a call): a new invocation, or one that goes on. */
static uint64_t release(struct follow *f, uint64_t s)
{
	int64_t late = f->r.period_ns + f->r.cut_ns / 2;
	uint64_t flag = 0;

	if (f->last_release && (int64_t)(s - f->last_release) >= late)
		flag = s;
	f->last_release = s;
	if (!f->in_inv || (int64_t)(s - f->inv_start) >= f->r.release_ns) {
		if (f->in_inv && (int64_t)(s - f->inv_start) >= late)
			flag = s;
		f->in_inv = true;
		f->inv_start = s;
		f->inv_cpu = 0;
		f->flagged_held = false;
	}
	return flag;
}

/* A run of the thread ended at e: is its invocation held off its CPU too long? */
static uint64_t run_end(struct follow *f, uint64_t e)
{
	int64_t need = f->r.period_ns / ACTORS_OVERRUN_DIV, held;

	if (f->r.cut_ns < need)
		need = f->r.cut_ns;
	f->inv_cpu += e - f->run_start;
	if (!f->in_inv || f->flagged_held)
		return 0;
	held = (int64_t)(e - f->inv_start) - (int64_t)f->inv_cpu;
	if (held - f->r.held_ns < need / 2)
		return 0;
	f->flagged_held = true;
	return f->inv_start;
}

uint64_t follow__feed(struct follow *f, const union qt_record *x)
{
	if (f->r.kind == ACTOR_SYSCALL) {
		if (x->h.type != QT_REC_SYSCALL || x->sc.tid != f->tid || x->sc.nr != f->r.nr ||
		    (f->r.has_arg0 && x->sc.arg0 != f->r.arg0))
			return 0;
		return release(f, x->h.ts);
	}
	if (x->h.type != QT_REC_SWITCH)
		return 0;
	if (x->sw.next_tid == f->tid && !f->running) {
		f->running = true;
		f->run_start = x->h.ts;
		if (f->last_end != QT_END_PREEMPTED || !f->in_inv)
			return release(f, x->h.ts);
		return 0;
	}
	if (x->sw.prev_tid == f->tid && f->running) {
		f->running = false;
		f->last_end = timeline__end_state(x->sw.prev_state, x->h.flags & QT_SWITCH_PREEMPT);
		return run_end(f, x->h.ts);
	}
	return 0;
}
