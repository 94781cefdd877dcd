/* SPDX-License-Identifier: MIT */
/*
 * The thread table at any moment the ring still holds: a window written to
 * disk starts with the table as of its first block (names, processes), as
 * a recording starts with its /proc snapshot. Kept as the recording's
 * start snapshot carried forward, plus the lifecycle records (fork, exec,
 * rename, exit) since: the snapshot is moved forward as the ring forgets
 * the past (threads__advance), so what is kept is the threads alive and
 * the lifecycle of the last seconds.
 */
#ifndef QT_WATCH_THREADS_H
#define QT_WATCH_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "file/tracefile.h"
#include "qt_events.h"

struct threads;

struct threads *threads__new(void);
void threads__free(struct threads *t);

/* The table as of ts (a /proc snapshot); replaces everything. 0 or -ENOMEM. */
int threads__set(struct threads *t, const struct tf_thread *v, size_t n, uint64_t ts);

/*
 * A lifecycle record (QT_REC_FORK, EXEC, RENAME or EXIT; others are
 * ignored), in any order: applied in time order. 0 or -ENOMEM.
 */
int threads__add(struct threads *t, const struct qt_task *r);

/* Applies the records older than ts to the snapshot and forgets them (ts only moves forward). */
void threads__advance(struct threads *t, uint64_t ts);

/*
 * The table as of ts, no earlier than the snapshot was advanced to (the
 * snapshot and the records before ts; an exited thread is gone): *out
 * malloc'd, sorted by tid. 0 or -ENOMEM.
 */
int threads__at(const struct threads *t, uint64_t ts, struct tf_thread **out, size_t *n);

/* The thread tid as it is now (after every record): false if unknown. */
bool threads__find(const struct threads *t, uint32_t tid, struct tf_thread *out);

/* Lifecycle records held (for the tests and the memory statement). */
size_t threads__pending(const struct threads *t);

#endif
