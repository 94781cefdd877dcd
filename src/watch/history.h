/* SPDX-License-Identifier: MIT */
/*
 * The last seconds of each watched thread: its switches (in and out), its
 * system calls and its lifecycle records, in time order, and every loss
 * record of the recording over the same time. It is what the detector
 * judges a thread's breaks on (judge.h), a few hundred kB per thread
 * where the ring holds every thread's records.
 *
 * Records come in arrival order, which across CPUs is not time order, and
 * the same record may come twice (from the ring's blocks and from the
 * tap, around a warm-up): each thread's records are kept sorted and
 * without duplicates. The bound: at most max_records records over all
 * threads; a thread over its share forgets its oldest first.
 */
#ifndef QT_WATCH_HISTORY_H
#define QT_WATCH_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "file/codec.h"

struct history;

/*
 * The order a thread's records are kept in (a qsort comparator over union
 * qt_record): by time, then type, then CPU, then their bytes, so that two
 * copies of one record are equal and every other pair is not.
 */
int history_cmp_records(const void *a, const void *b);

struct history *history__new(size_t max_records);
void history__free(struct history *h);

/* Keeps the records of tid from now on (a no-op when it is kept). 0 or -ENOMEM. */
int history__track(struct history *h, uint32_t tid);
/* Forgets tid and its records. */
void history__untrack(struct history *h, uint32_t tid);

/*
 * Adds records in any order: a switch to the kept threads it names, a
 * system call or lifecycle record to its thread if kept, a loss record
 * to the losses; the others are ignored. 0 or -ENOMEM.
 */
int history__add(struct history *h, const union qt_record *v, size_t n);

/* Forgets every record older than ts. */
void history__trim(struct history *h, uint64_t ts);

/*
 * The records of tid, sorted by time (then type and CPU), each once;
 * valid until the next call that adds or trims. NULL (*n 0) when tid is
 * not kept or has none.
 */
const union qt_record *history__of(struct history *h, uint32_t tid, size_t *n);

/* The loss records, sorted by when their window closed; valid as above. */
const union qt_record *history__losses(struct history *h, size_t *n);

/* Records held over all threads and losses. */
size_t history__size(const struct history *h);

#endif
