/* SPDX-License-Identifier: MIT */
/*
 * The analysis of each window, beside the recording and never in its way
 * (docs/DESIGN.md §12): a child process, `qostrace watch --explain FILE`
 * (explain.h), at the lowest priority there is (SCHED_IDLE and nice 19:
 * it runs on CPU time nothing else wants), with its own memory, returned
 * whole when it exits, so that the watcher's stays flat. One child at a
 * time; the windows waiting for one are queued. Its one line of output is
 * the alert's cause.
 */
#ifndef QT_WATCH_EXPLAINER_H
#define QT_WATCH_EXPLAINER_H

#include <stddef.h>
#include <stdint.h>

/* Windows waiting beyond the one analysed: more are told without a cause. */
#define EXPLAINER_QUEUE 16

struct explainer;

/* Children run the program at self (this qostrace). NULL when out of memory. */
struct explainer *explainer__new(const char *self);
/* Stops a child still running, forgets the queue. */
void explainer__free(struct explainer *e);

/*
 * The analysis of window path, for the break of tid at at_ns (tid 0: the
 * window's first break), with the caller's tag. 0, -EBUSY (queue full),
 * -ENOMEM.
 */
int explainer__queue(struct explainer *e, const char *path, uint32_t tid, int64_t at_ns, unsigned long tag);

/*
 * A finished analysis, waiting up to timeout_ms for one (0: a look): 1
 * with its tag and its line (or why there is none, in brackets), 0 when
 * none finished. Starts the next child.
 */
int explainer__poll(struct explainer *e, int timeout_ms, unsigned long *tag, char *line, size_t len);

/* Analyses running or queued. */
size_t explainer__pending(const struct explainer *e);

#endif
