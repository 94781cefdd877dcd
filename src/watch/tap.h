/* SPDX-License-Identifier: MIT */
/*
 * What the detector needs of the records, taken as they pass (on the
 * writer's thread, before they are packed): the switches and system
 * calls of the watched threads, every lifecycle record (the thread table
 * of a window), every loss record (where data is missing). A hash lookup
 * per record; the rest of the records only counts.
 *
 * The taken records wait in one array until the detector takes them all
 * at once (tap__take) and gives an emptied array back. The array has a
 * fixed size: if the detector does not come (a long warm-up on a busy
 * system), the excess is dropped and stands in the array as a loss
 * record over the span it covers, so that no analysis trusts a break
 * there.
 */
#ifndef QT_WATCH_TAP_H
#define QT_WATCH_TAP_H

#include <stddef.h>
#include <stdint.h>

#include "file/codec.h"

struct tap;

/* A batch handed over: records in arrival order. */
struct tap_batch {
	union qt_record *v;
	size_t n, cap;
};

struct tap_stats {
	uint64_t events;		/* records seen (STATS excluded) */
	uint64_t newest_ts;		/* the latest record time seen */
	uint64_t dropped;		/* taken records dropped because the array was full */
};

/* A tap whose array holds at most cap records; NULL when out of memory. */
struct tap *tap__new(size_t cap);
void tap__free(struct tap *t);

/* The writer's thread: one batch of raw records (writer_sink.records). */
void tap__records(struct tap *t, const void *raw, size_t len);

/*
 * The threads whose switches and calls are taken from the next batch on
 * (replacing the set; n may be 0). 0 or -ENOMEM.
 */
int tap__set_tids(struct tap *t, const uint32_t *tids, size_t n);

/*
 * Everything taken since the last call, into *out; the array out held
 * before (emptied by the caller, or zeroed the first time) is given to
 * the tap in exchange.
 */
void tap__take(struct tap *t, struct tap_batch *out);

void tap__stats(struct tap *t, struct tap_stats *st);

#endif
