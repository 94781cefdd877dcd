/* SPDX-License-Identifier: MIT */
/*
 * One actor: its invocations, period and period breaks (SATM §4,
 * docs/DESIGN.md §4-5), as the actors' stage (actors.h) makes them and the
 * holdup (holdup.h), the other stages and the renderings read them.
 *
 * CONTRACT for the other stages (critical/, patterns/, report/): the
 * fields documented here keep their names and meaning; more may be added.
 *
 * Occurrences. A thread actor's occurrences are its run intervals; a run
 * that was already running when the recording started (TL_RUN_START_CUT)
 * and the runs it continues into by preemption are left out: their
 * invocation began before the recording and its start is unknown. So is
 * the first segment (runs up to the first interruptible sleep) of a thread born
 * during the recording, or that started a program (exec) during it (the
 * traced command's first thread): its set-up, whose distance to the first real
 * invocation would be a break in every pipeline that starts. A run still
 * running at the end (TL_RUN_END_CUT) keeps its real start; one whose
 * switch-in was not reported (TL_RUN_START_UNSURE) the start its kernel
 * runtime gives (its window is a gap: see the breaks below). A syscall
 * actor's occurrences are the thread's calls of that syscall.
 *
 * Invocations. Fragments that ended preempted, or in an incidental wait
 * (below), continue into the next one (exact); the other boundaries by
 * SATM's clustering (invocations.h) with two rules on top of the QCoD
 * guard, both at ACTORS_MAX_GAP_FRAC: the gap
 * rule of invocations_opts.max_gap_frac, and the split rule (when the
 * segments alone are periodic, no invocation spans a pause longer than
 * that fraction of their period). Without them, breaks that recur
 * regularly (a periodic disturbance) collapse an actor into one
 * "invocation" per break. Measurements in study.c.
 *
 * Waits inside an invocation. A thread is released by its usual waits:
 * the system calls it sleeps in between invocations (a timer's
 * clock_nanosleep, a queue's futex, a poll). A wait at a site (the call it
 * was in when it left the CPU, with its first argument: a futex's address,
 * a read's fd) where fewer than 1/ACTORS_WAIT_RARE_DIV of the thread's
 * waits are is incidental: a mutex another thread held, a page read from
 * disk. The run after it continues the invocation, exactly as after a
 * preemption; by times alone it would start one (a player released by its
 * timer, held 5 ms by a logger's lock, then working 1 ms: that run and the
 * next on-time one came out one invocation, and a start break followed
 * that was no break). Applied when the thread's calls were recorded (a
 * target) and the incidental waits are at most 1/ACTORS_WAIT_USUAL_DIV of
 * its waits (otherwise no site is usual enough to be the release).
 * Uninterruptible sleeps (a run that ended blocked: disk I/O, the kernel
 * throttling a writer, a kernel lock) are incidental too, calls recorded
 * or not, when they are at most 1/ACTORS_WAIT_USUAL_DIV of the thread's
 * waits, sleeps blocked one after another counting as one (a call woken
 * by each completion of its I/O: under other programs' writeback a
 * recorder's fdatasync() blocked dozens of times a call): a thread is
 * released from an interruptible sleep (a timer, a futex, a poll); a
 * recorder's fdatasync() that blocks 30 ms is its work held, not the
 * start of the next period.
 *
 * Overruns and completion breaks (thread actors of a periodic actor). An
 * invocation's held time is its span less its time on a CPU: preempted,
 * or in an incidental wait. It overran when its held time is above the
 * fence of the actor's held times (quartiles.h) and at least
 * 1/ACTORS_OVERRUN_DIV of the period more than their median (the
 * overrun). A start break after an overrun of at least half its lateness
 * has its path into the overrunning invocation (actor_break.target). An
 * overrun with no start break before or after it is a completion break:
 * the work began on time and ended late, which start times alone never
 * show (a player released on time by its timer that waits 5 ms for a
 * lock held by a logger).
 *
 * Period and breaks: period.h over the invocation start times (the median
 * interval, QCoD with nearest-rank quartiles, periodic below --qcod). Breaks
 * and D_pos windows exist only for periodic actors, as in SATM. A break whose
 * interval overlaps missing data is flagged data_missing: recorded lost
 * (TL_GAP_LOST, any CPU: the actor may have run there unseen), or a switch
 * the kernel did not report out of this very thread (TL_GAP_BROKEN: the
 * run hidden in such a window is the one of the thread switched in at its
 * start). Such a break is listed but never trusted: it does not make its
 * actor "breaking" and is not counted in worst_lateness_ns.
 *
 * Major breaks and jitter. SATM's fence Q3 + 1.5 IQR assumes the jitter
 * of a real system; an actor released by a precise timer has an IQR of
 * microseconds, and then a run delayed by 50 us is a "break": an
 * undisturbed GStreamer audio source (9.19 ms period, QCoD 0.1 %) made 20
 * such breaks in 5 s, the worst 191 us late, 2 % of its period. A break
 * is major when it is late by min_late_ns or more (the cut, struct
 * actors_cut: a tenth of the period by default, --min-late); the others
 * are jitter. Every stage and report counts the major ones: an actor
 * breaks its period (breaking) when it has a trusted major break, the
 * upstream choice, the Diagnosis and the pattern search (which mines the
 * major breaks only) read them; jitter is listed and counted as such. A
 * break on a jittery actor is above Q3 + 1.5 IQR, more than a tenth of
 * its period already: the cut only bites on precise periods.
 */
#ifndef QT_ACTOR_H
#define QT_ACTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "holdup.h"
#include "invocations.h"
#include "period.h"

struct timeline;

#define ACTORS_MAX_GAP_FRAC 0.5	/* invocations_opts.max_gap_frac used by default */
#define ACTORS_WAIT_RARE_DIV 10		/* a site with < 1/10 of the waits is incidental */
#define ACTORS_WAIT_USUAL_DIV 4		/* ... when they are <= 1/4 of the waits */
#define ACTORS_OVERRUN_DIV 4		/* an overrun is at least 1/4 of the period */
#define ACTORS_DEFAULT_MIN_LATE 0.10	/* a major break is late by a tenth of the period or more */

/*
 * The cut between major breaks and jitter (--min-late): late by ns or
 * more when ns > 0, else by frac of the actor's period (frac < 0: no cut,
 * every break is major, as in SATM).
 */
struct actors_cut {
	double frac;
	int64_t ns;
};

/* The lateness from which a break of an actor of period period_ns is major. */
static inline int64_t actors_cut_ns(struct actors_cut c, double period_ns)
{
	if (c.ns > 0)
		return c.ns;
	return c.frac < 0 ? INT64_MIN : (int64_t)(c.frac * period_ns);
}

enum actor_kind {
	ACTOR_THREAD,		/* occurrences are the thread's run intervals */
	ACTOR_SYSCALL,		/* occurrences are one system call of one thread */
};

/* One invocation: what the actor did for one period. */
struct actor_invocation {
	int64_t start_ns;	/* start of its first occurrence: the invocation's timestamp */
	int64_t end_ns;		/* end of its last occurrence: when the work was done */
	size_t first, last;	/* occurrences: indices into tl->runs (THREAD) or tl->sc (SYSCALL) */
};

enum break_kind {
	BREAK_START,		/* SATM's: the interval between two starts above the fence */
	BREAK_COMPLETION,	/* started on time, held off the CPU longer than usual */
};

/*
 * A period break. BREAK_START: the interval between invocations before and
 * late above the fence; [start_ns, end_ns] from the one's start to the
 * other's. BREAK_COMPLETION (thread actors): invocation late overran, and
 * no start break is next to it; [start_ns, end_ns] its start and
 * completion, interval_ns its span, lateness_ns its overrun.
 */
struct actor_break {
	size_t before, late;	/* invocation indices, late = before + 1 */
	int64_t start_ns;	/* the invocation before the break starts (COMPLETION: the late one) */
	int64_t end_ns;		/* the late invocation starts (COMPLETION: completes) */
	int64_t interval_ns;
	int64_t lateness_ns;	/* interval - period (COMPLETION: the overrun) */
	int64_t overrun_ns;	/* the target's overrun (below), 0 if it did not overrun */
	bool data_missing;	/* the interval overlaps missing data: reported, not trusted */
	uint8_t kind;		/* enum break_kind */
	/*
	 * The invocation whose completion the break's critical path goes
	 * into (from the start of the one before it) is before, not late: its
	 * overrun is at least half the lateness (a loop that sleeps a fixed
	 * time after its work starts late because the work ended late; one
	 * whose timer fired while it still worked runs the next period inside
	 * the same run). Targets never decrease over an actor's breaks; two
	 * in a row share one when the overrunning invocation started late.
	 */
	bool into_before;
	/*
	 * What kept the target invocation off its CPU, where that explains
	 * the overrun (holdup__explains; held.why is HOLDUP_NONE where it
	 * does not).
	 */
	struct holdup held;
};

/* The invocation a break's critical path goes into (see into_before). */
static inline size_t actor_break_target(const struct actor_break *b)
{
	return b->into_before ? b->before : b->late;
}

/* The invocation whose window (actor_windows) holds the break's cause. */
static inline size_t actor_break_window(const struct actor_break *b)
{
	return b->kind == BREAK_COMPLETION ? b->late : b->before;
}

struct actor {
	enum actor_kind kind;
	bool from_spec;			/* named by --actor, never skipped */
	bool has_arg0;			/* ACTOR_SYSCALL: only calls with this first argument */
	uint64_t arg0;
	uint32_t thread;		/* timeline thread index */
	uint32_t syscall_nr;		/* ACTOR_SYSCALL */
	char name[64];			/* as the report names it, e.g. "src/1234", "write@sink/1236" */

	struct actor_invocation *inv;	/* time order */
	size_t ninv;

	struct period_stats st;		/* period.h: period_ns, q1/q3, qcod, periodic, ... */
	struct actor_break *breaks;	/* time order */
	size_t nbreaks;
	size_t nwindows;		/* ninv + 1, or 0: see actor_windows() */

	/* Added by the actors stage itself (not part of the original contract). */
	char comm[16];			/* the thread's name */
	size_t noccurrences;		/* fragments clustered (runs cut at the start left out) */
	size_t ncut;			/* runs in no invocation: begun before the recording, a
					 * born thread's set-up, an exited thread's teardown */
	struct invocations_info info;	/* how the clustering decided */
	size_t nsplit;			/* invocations split by the periodic-segments rule */
	size_t nincidental;		/* incidental waits inside invocations (see above) */
	size_t nbreaks_missing;		/* of the breaks, those flagged data_missing */
	int64_t worst_lateness_ns;	/* largest lateness of a trusted break, 0 if none */
	/* Major breaks and jitter (above): the cut, and the trusted breaks on each side of it. */
	int64_t min_late_ns;		/* a break late by this or more is major (actor_break_major) */
	size_t nmajor;			/* trusted major breaks */
	size_t njitter;			/* trusted breaks of jitter */
	int64_t worst_jitter_ns;	/* largest lateness of a trusted break of jitter, 0 if none */
	bool breaking;			/* periodic with >= 1 trusted major break */
	bool fed;			/* breaking, and another breaking actor feeds it */
};

/* Is b, a break of a, major (late by a's cut or more) rather than jitter? */
static inline bool actor_break_major(const struct actor *a, const struct actor_break *b)
{
	return b->lateness_ns >= a->min_late_ns;
}

/*
 * The subtraces of docs/ALGORITHMS.md §3.3 between consecutive invocations
 * of a into out (the caller's, room for a->nwindows): the
 * recording's start to the first invocation, each invocation to the next
 * (positive where that interval is one of the actor's breaks: D_pos, else
 * the period held: D_neg), the last invocation to the recording's end
 * (closed). tl is the timeline a was studied on. Made when asked, from the
 * invocations and breaks: kept, they were 32 bytes per invocation of every
 * actor, for the one actor the pattern search reads. Writes nothing when
 * the actor has no invocation.
 */
void actor_windows(const struct actor *a, const struct timeline *tl, struct period_window *out);

#endif
