/*
 * Actors, invocations, periods and period breaks (SATM §4, DESIGN.md §4-5)
 * over a timeline; and the most upstream actor that breaks its period.
 *
 * CONTRACT for the other stages (critical.c, patterns.c, renderings): the
 * fields documented here keep their names and meaning; more may be added.
 */
#ifndef QT_ACTORS_H
#define QT_ACTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"
#include "json_writer.h"
#include "period.h"
#include "timeline.h"

struct report_style;

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

/* A period break: the interval between two invocations above the fence. */
struct actor_break {
	size_t before, late;	/* invocation indices, late = before + 1 */
	int64_t start_ns;	/* the invocation before the break starts */
	int64_t end_ns;		/* the late invocation starts */
	int64_t interval_ns;
	int64_t lateness_ns;	/* interval - period */
	bool data_missing;	/* the interval overlaps missing data: reported, not trusted */
};

struct actor {
	enum actor_kind kind;
	uint32_t thread;		/* timeline thread index */
	uint32_t syscall_nr;		/* ACTOR_SYSCALL */
	char name[64];			/* as the report names it, e.g. "src/1234", "write@sink/1236" */

	struct actor_invocation *inv;	/* time order */
	size_t ninv;

	struct period_stats st;		/* period.h: period_ns, q1/q3, qcod, periodic, ... */
	struct actor_break *breaks;	/* time order */
	size_t nbreaks;
	/*
	 * The subtraces of ALGORITHMS.md §3.3 between consecutive invocations:
	 * positive = a break (D_pos), else the period held (D_neg).
	 */
	struct period_window *windows;
	size_t nwindows;
};

struct actor_skip {
	uint32_t thread;
	const char *reason;		/* static string: "only 3 runs", ... */
};

struct actors_result {
	struct actor *v;
	size_t n;
	struct actor_skip *skipped;	/* threads not studied, and why */
	size_t nskipped;
	/*
	 * The most upstream actor that breaks its period (SATM §3): index into
	 * v, or -1 when no periodic actor breaks. Upstream order is learnt from
	 * the recording (which actor's invocations wake or precede which).
	 */
	long upstream;
};

int actors__analyse(const struct timeline *tl, const struct analysis_opts *o,
		    struct actors_result **out);
void actors__free(struct actors_result *r);

/* "actors": [...] and "upstream_actor": {...} | null of DESIGN.md §10. */
void actors__json(const struct actors_result *r, const struct timeline *tl, json_writer_t *w);
/* The report's actor table and the upstream actor's breaks. */
void actors__print(const struct actors_result *r, const struct timeline *tl, FILE *f,
		   const struct report_style *st);

#endif
