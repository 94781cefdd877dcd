/* SPDX-License-Identifier: MIT */
/*
 * qostrace watch (docs/DESIGN.md §12): a flight recorder that knows what
 * a period break is. The recorder writes to watch's sink instead of a file
 * (sink.h): the blocks go to a ring in memory (ring.h), the watched
 * threads' records to the detector (tap.h, history.h). The detector's
 * steps, on a thread of their own (or the replay's loop):
 *
 *   1. warm-up: once `before` seconds are recorded, the offline stages
 *      learn which actors to watch and how each runs (learn.h); again
 *      later while none is periodic, or when all have exited;
 *   2. each watched actor's records feed its follower (follow.h), which
 *      flags what may be a major break; the judge (judge.h) decides with
 *      the offline stages on the actor's last seconds, when flagged and
 *      at least every few seconds anyway;
 *   3. each confirmed major break asks for a window (trigger.h); a window
 *      whose end has been recorded is written (window.h) and analysed in
 *      a low-priority child (explainer.h), whose line completes its alert
 *      (status.h).
 *
 * What watch says goes into a queue that the caller prints (watch__say_to)
 * from its own thread, between status lines.
 */
#ifndef QT_WATCH_WATCH_H
#define QT_WATCH_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"

struct writer_sink;

struct watch_opts {
	const char *dir;		/* -o DIR, existing */
	uint64_t before_ns, after_ns;	/* --before, --after */
	int64_t late_ns;		/* --late; 0: a tenth of the period */
	unsigned int max_files;		/* --max-files; 0: no limit */
	uint64_t max_disk;		/* --max-disk, bytes; 0: no limit */
	uint64_t memory;		/* --memory: a quarter for the histories, the rest for the ring */
	const char *const *specs;	/* --actor */
	size_t nspecs;
	const char *self;		/* this program, for the windows' analyses; NULL: none */
	const char *cmdline;		/* into each window's META */
	int zlevel;
	uint64_t lag_ns;		/* live: how far behind the clock the ring is complete */
};

/* What the memory goes to (watch__new() sizes it; cmd_watch states it at start). */
struct watch_budget {
	uint64_t ring_bytes;		/* packed blocks */
	uint64_t history_records;	/* the watched threads' records */
	uint64_t tap_records;		/* records waiting for the detector */
	uint64_t record_size;		/* bytes per record of the last two */
	uint64_t warmup_events;		/* the most the warm-up studies at once */
	uint64_t keep_ns;		/* how much of the past the ring keeps */
};

struct watch;

/* 0, -ENOMEM. */
int watch__new(const struct watch_opts *o, struct watch **out);
/* Stops the detector and the analyses; frees. */
void watch__free(struct watch *w);

void watch__budget(const struct watch *w, struct watch_budget *b);

/* What the recorder writes to (recorder_opts.sink). */
const struct writer_sink *watch__sink(struct watch *w);

/*
 * One step of the detector: the recording is complete (in the ring and
 * the tap) up to complete_until (CLOCK_MONOTONIC); final once the
 * recording is over (every pending window is written with what there is).
 */
void watch__step(struct watch *w, uint64_t complete_until, bool final);

/* Runs watch__step every 100 ms on a thread, complete up to lag_ns ago. 0 or -errno. */
int watch__start(struct watch *w);
void watch__stop(struct watch *w);

/* A window on demand (SIGUSR1): only sets a flag, safe in a signal handler. */
void watch__demand(struct watch *w);

/* Prints what watch has to say since the last call into f. */
void watch__say_to(struct watch *w, FILE *f);

/*
 * Waits up to timeout_ms for the windows' analyses still running,
 * printing their alerts into f; those left are told without a cause.
 * stop (may be NULL) ends the wait early when it becomes true.
 */
void watch__drain(struct watch *w, FILE *f, int timeout_ms, volatile int *stop);

/* The counters of the status line and the summary (elapsed and event rates are the caller's). */
void watch__counts(struct watch *w, struct watch_counts *c);

#endif
