/* SPDX-License-Identifier: MIT */
/*
 * When a window is written and what it covers (docs/DESIGN.md §12). A
 * major break at time T asks for [T - before, T + after]; a break that
 * comes before that window is closed joins it and moves its end to its
 * own T + after ("breaks close together go into one file"), as long as
 * the window stays within max_len (the ring must still hold its start);
 * otherwise it opens the next window. Breaks come in the order they are
 * judged, actor after actor: a break joins any window not yet due that
 * covers it, and the earliest break of a window leads it (its name, its
 * alert). A window on demand (SIGUSR1) is the last `before` seconds, at
 * once. A window is due once every break up to its end is decided
 * (the caller says how far that is).
 *
 * Every break seen stays in a log as long as the ring may hold it, so
 * that a window lists all the breaks inside it, including those that
 * triggered an earlier window overlapping it: the agreement with the
 * report is checked window by window on that list.
 */
#ifndef QT_WATCH_TRIGGER_H
#define QT_WATCH_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actors/actor.h"

/*
 * The lateness from which a break of an actor whose period is period_ns
 * is one to act on: the report's cut between major breaks and jitter
 * (actors_cut_ns(), a tenth of the period), or late_ns when it is given
 * (--late), as report --min-late takes it. watch's one cut: the
 * detector, the judge and the tests all ask here.
 */
static inline int64_t watch_cut_ns(double period_ns, int64_t late_ns)
{
	return actors_cut_ns((struct actors_cut){ ACTORS_DEFAULT_MIN_LATE, late_ns }, period_ns);
}

/* Is a break late by lateness_ns one to act on (watch_cut_ns())? Without a period, none is. */
static inline bool watch_major(int64_t lateness_ns, double period_ns, int64_t late_ns)
{
	return (late_ns > 0 || period_ns > 0) && lateness_ns >= watch_cut_ns(period_ns, late_ns);
}

/* A major break the judge confirmed. */
struct trig_break {
	uint32_t tid;
	char actor[64];			/* as the report names it: src/1234, write@sink/1236 */
	char comm[16];
	int64_t at_ns;			/* its late invocation's start (judge_break.late_ns) */
	int64_t lateness_ns;
	double period_ns;
	uint8_t kind;			/* enum break_kind */
	bool online;			/* the detector found it as it came (else on its window) */
};

/* A window to write. */
struct trig_window {
	uint64_t from, to;
	bool manual;			/* SIGUSR1: no break asked for it */
	struct trig_break first;	/* its earliest break (manual: none) */
	size_t nbreaks;			/* the breaks that asked for it (first included) */
	int64_t worst_ns;		/* the largest lateness among them */
};

struct trigger;

/* before, after: --before, --after; max_len: the longest window the ring can serve. */
struct trigger *trigger__new(uint64_t before_ns, uint64_t after_ns, uint64_t max_len_ns);
void trigger__free(struct trigger *t);

/* A confirmed major break: joins the open window or opens the next. 0 or -ENOMEM. */
int trigger__break(struct trigger *t, const struct trig_break *b);

/* A window on demand of the `before` seconds up to now. 0 or -ENOMEM. */
int trigger__manual(struct trigger *t, uint64_t now);

/*
 * The oldest window whose end is decided (decided_until >= its end), or
 * any at all with flush (the recording is over): moved into *out, true;
 * false when none is due.
 */
bool trigger__due(struct trigger *t, uint64_t decided_until, bool flush, struct trig_window *out);

/* The end of the first window to close (UINT64_MAX: none): the breaks up to it must be decided. */
uint64_t trigger__next_end(const struct trigger *t);

/* The start of the oldest window not yet due (UINT64_MAX: none): the ring must keep it. */
uint64_t trigger__keep_from(const struct trigger *t);

/*
 * The breaks of the log inside [from, to] (their at_ns), in time order:
 * *out (malloc'd, NULL when none) and *n. 0 or -ENOMEM.
 */
int trigger__breaks_in(const struct trigger *t, uint64_t from, uint64_t to, struct trig_break **out, size_t *n);

/* Forgets the breaks before ts. */
void trigger__forget(struct trigger *t, uint64_t ts);

#endif
