/* SPDX-License-Identifier: MIT */
/*
 * The warm-up (docs/DESIGN.md §12): which actors to watch and how each
 * runs, learnt by the offline stages themselves on what the ring holds.
 * The ring's blocks become a trace in memory (the recording's META and
 * the thread table as of its first block, as a window would have), the
 * timeline and the actors' stage study it with the user's --actor specs
 * (or the default set `qostrace report` studies), and each periodic
 * actor is watched with its period and its invocation rule (follow.h).
 * The watched threads' histories (history.h) are then read from every
 * block the ring holds, so that the first judgements see the warm-up
 * too.
 */
#ifndef QT_WATCH_LEARN_H
#define QT_WATCH_LEARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actors/actor.h"
#include "file/tracefile.h"
#include "follow.h"

struct history;
struct ring;
struct threads;
struct trace;

struct learn_in {
	struct ring *ring;
	uint64_t last_seq;		/* the newest block to read */
	const struct tf_kv *meta;	/* the recording's */
	const char *targets;		/* the target processes now, for META (NULL: as recorded) */
	const struct threads *threads;
	size_t max_events;		/* read the newest blocks up to about this many events */
	const char *const *specs;	/* --actor, or none: the default set */
	size_t nspecs;
	int64_t late_ns;
};

struct learnt_actor {
	char spec[96];			/* the actor for the judge: tid:N, write(1)@tid:N */
	char name[64];			/* as the report names it */
	char comm[16];
	uint32_t tid, tgid;
	enum actor_kind kind;
	bool periodic;
	double period_ns, qcod;
	size_t ninv;
	bool have_rule;
	struct follow_rule rule;
};

struct learnt {
	struct learnt_actor *v;		/* every actor studied, periodic or not */
	size_t n;
	size_t skipped;			/* threads the default set left out */
	size_t missing_specs;		/* --actor specs that named no thread yet (left out) */
	uint64_t from, to;		/* the span learnt on */
	uint64_t events;
};

/*
 * Learns from the ring into *out (learnt_free()); *trace gets the trace
 * learnt on (the caller's, for learn_seed(), then trace__free()). 0,
 * -ENODATA (no block, or no spec names a thread yet), -ENOMEM.
 */
int learn_from_ring(const struct learn_in *in, struct learnt *out, struct trace **trace);

/* The records of the threads h keeps, from a trace. 0 or -ENOMEM. */
int learn_seed(const struct trace *t, struct history *h);

/*
 * The records of the ring's blocks [first, last] into h (the threads it
 * keeps, the losses), a few blocks at a time: the watched threads'
 * history from all the ring holds, and around a warm-up, what reached
 * the ring before the tap took the new threads' records. Twice-seen
 * records are kept once. 0 or -ENOMEM.
 */
int learn_catch_up(struct ring *r, uint64_t first, uint64_t last, struct history *h);

void learnt_free(struct learnt *l);

#endif
