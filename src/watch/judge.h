/* SPDX-License-Identifier: MIT */
/*
 * Judging one actor on its thread's last seconds with the offline stages
 * themselves: the thread's records (history.h) and the recording's loss
 * records become a trace in memory, which the timeline and the actors'
 * stage study with --actor naming that one actor, as `qostrace report
 * --actor SPEC` would on a window of those seconds. Whatever breaks that
 * finds are the breaks; the detector (follow.h) only says when to look.
 *
 * The trace holds the thread's switches only: the thread on the other
 * side of each becomes the idle task, so that every CPU's sequence still
 * chains (the timeline reads a switch whose prev is not the thread it
 * switched in as a switch the kernel did not report). The thread's runs,
 * how each ended, its calls, and the windows of lost records are exactly
 * those of the whole recording, which is what the actors' stage reads.
 */
#ifndef QT_WATCH_JUDGE_H
#define QT_WATCH_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "file/codec.h"
#include "follow.h"

struct judge_in {
	const char *spec;		/* the actor, as --actor takes it: tid:N, write(1)@tid:N */
	uint32_t tid, tgid;
	const char *comm;
	const char *arch;		/* the recording's (system call numbers) */
	int ncpus;
	const union qt_record *recs;	/* the thread's, sorted (history__of) */
	size_t nrecs;
	const union qt_record *losses;	/* the recording's loss records */
	size_t nlosses;
	bool syscall;			/* a system call actor: which calls (as the spec says) */
	uint32_t nr;
	bool has_arg0;
	uint64_t arg0;
	uint64_t from, to;		/* the span judged */
	int64_t late_ns;		/* --late, 0: a tenth of the period (trigger.h) */
};

/* One break of the actor (actor.h's actor_break, with the time that names it). */
struct judge_break {
	int64_t late_ns;		/* when the late invocation started: the break's identity */
	int64_t start_ns, end_ns;	/* as actor_break */
	int64_t lateness_ns;
	uint8_t kind;			/* enum break_kind */
	bool data_missing;
};

struct judge_out {
	bool studied;			/* the stage made the actor (enough activity) */
	bool periodic;
	double period_ns, qcod;
	size_t ninv;
	struct judge_break *breaks;	/* every break, in time order */
	size_t nbreaks;
	bool have_rule;
	struct follow_rule rule;	/* learnt anew (follow.h) */
};

/*
 * Studies the actor of in over its records into *out (free with
 * judge_out_free). 0, -ENOMEM, or -ENOENT, without a message, when the
 * thread never ran in the span (or made none of the actor's calls): there
 * is nothing to judge.
 */
int judge_actor(const struct judge_in *in, struct judge_out *out);
void judge_out_free(struct judge_out *out);

/*
 * What the actors' stage found of a, as a judgement (without its rule):
 * the tests compare the judge's view of one thread with the stage's on
 * the whole trace through it. 0 or -ENOMEM.
 */
int judge_out_of(const struct actor *a, struct judge_out *out);

/* The time that names a break: its late invocation's start. */
static inline int64_t judge_break_time(int64_t start_ns, int64_t end_ns, bool completion)
{
	return completion ? start_ns : end_ns;
}

#endif
