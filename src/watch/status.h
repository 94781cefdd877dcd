/* SPDX-License-Identifier: MIT */
/*
 * What a person watching reads: the line per actor after the warm-up, the
 * alert line per window ("06:01:17 src/1234 broke its 10.00 ms period:
 * 25.1 ms late, waited 25.3 ms for CPU behind disturber/77 ->
 * drops/0003-src-25ms.qtrace"), the status line on a terminal, and the
 * summary at the end. Formatting only: watch.c decides what to say.
 */
#ifndef QT_WATCH_STATUS_H
#define QT_WATCH_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trigger.h"

struct learnt_actor;

/* The counters a status line and the summary show. */
struct watch_counts {
	uint64_t elapsed_ns;
	uint64_t events;		/* records taken from the kernel */
	double events_per_s;		/* over the last second or so */
	uint64_t lost;			/* in the kernel */
	size_t actors;			/* watched now */
	size_t actors_ever;		/* watched at some time */
	bool learning;			/* still in the warm-up */
	uint64_t breaks;		/* confirmed major breaks */
	uint64_t files;			/* windows written */
	uint64_t bytes;			/* their size */
	uint64_t not_written;		/* windows refused by a limit or failed */
};

/* "src/1234: period 10.00 ms, watching" (or why not) into buf. */
void status_actor(char *buf, size_t len, const struct learnt_actor *a, bool watched, double qcod_threshold);

/*
 * The alert of a window: when its first break happened (local time, from
 * the recording's realtime offset), who broke and by how much, the
 * cause (NULL: none yet), where it was written (path NULL: why_not).
 */
void status_alert(char *buf, size_t len, const struct trig_window *w, int64_t realtime_offset_ns, const char *cause,
		  const char *path, const char *why_not);

/* The status line: elapsed, events/s, actors, breaks, files, lost. */
void status_line(char *buf, size_t len, const struct watch_counts *c);

/* The summary at the end: hours watched, breaks seen, files written, events lost; then why it stopped. */
void status_summary(FILE *f, const struct watch_counts *c, const char *dir, const char *reason);

#endif
