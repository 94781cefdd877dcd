/* SPDX-License-Identifier: MIT */
/*
 * The online detector (docs/DESIGN.md §12): follows one actor's
 * invocations record by record with the rule learnt from the offline
 * stages (follow_rule_learn, on the warm-up or on the last judgement of
 * the actor), and says when something may be a major break. It is a
 * sieve, not the judge: what it flags is judged by the offline stages on
 * the thread's last seconds (judge.h), which decide; it only has to miss
 * nothing, cheaply (a few comparisons per record of the actor's thread).
 *
 * The rule, as the actors' stage finds invocations (src/actors/actor.h):
 * a run that ended preempted continues its invocation; after a wait, the
 * next run (a system call actor's next call) starts a new invocation
 * when it comes at least release_ns after the current invocation's
 * start (learnt: halfway between the latest release inside an invocation
 * and the period, which is SATM's clustering's effect on a periodic
 * actor). The sieve flags, with half the margin the judgement needs:
 *  - an invocation that starts late: its interval to the previous start
 *    is at least the period and half the cut;
 *  - a release that comes late, whatever invocation it belongs to (a
 *    wrong grouping must not hide a late start);
 *  - a thread actor's invocation held off its CPU (its span less its
 *    runs) more than usual by half of what a completion break needs
 *    (the smaller of a quarter of the period and the cut).
 */
#ifndef QT_WATCH_FOLLOW_H
#define QT_WATCH_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "actors/actor.h"
#include "file/codec.h"

struct timeline;

struct follow_rule {
	enum actor_kind kind;
	uint32_t nr;			/* ACTOR_SYSCALL: the call, with arg0 when has_arg0 */
	bool has_arg0;
	uint64_t arg0;
	int64_t period_ns;
	int64_t release_ns;		/* a release this long after its invocation's start begins another */
	int64_t held_ns;		/* the usual time an invocation is held off its CPU (median) */
	int64_t cut_ns;			/* the lateness of a break to act on (trigger.h) */
};

/*
 * The rule of actor a, as the actors' stage studied it on tl, with the
 * cut cut_ns. -EINVAL when a has no period (fewer than two invocations).
 */
int follow_rule_learn(const struct actor *a, const struct timeline *tl, int64_t cut_ns, struct follow_rule *out);

struct follow {
	struct follow_rule r;
	uint32_t tid;
	bool in_inv, running, flagged_held;
	uint8_t last_end;		/* how the last run ended (enum qt_run_end) */
	uint64_t run_start, inv_start, inv_cpu, last_release;
};

/* A follower of thread tid (its thread or one of its calls, as r says). */
void follow_init(struct follow *f, uint32_t tid, const struct follow_rule *r);

/* A new rule (after a judgement), keeping where the follower stands. */
void follow_relearn(struct follow *f, const struct follow_rule *r);

/*
 * One record of the thread, in time order: a switch in or out of it, or
 * one of its system calls (others are ignored). Returns the time of what
 * it flags (the late start, or the start of the held invocation), or 0.
 */
uint64_t follow__feed(struct follow *f, const union qt_record *x);

#endif
