/* SPDX-License-Identifier: MIT */
/*
 * The flight recorder's memory (docs/DESIGN.md §12): the recording's EVENTS
 * blocks, packed as the trace file stores them (tf_packed: compressed,
 * checksummed), oldest first, in at most a fixed number of bytes. A window
 * written to disk is a run of these blocks copied out as they are, so
 * what is kept costs what the file would, 3 to 5 bytes per event.
 *
 * The bound is hard: a block that would take the ring over its budget
 * pushes the oldest ones out, whoever wanted them (a window still
 * waiting for its --after seconds then starts later than asked, and
 * says so). Blocks also leave by age (ring__expire), as the caller
 * decides. Every block has a sequence number, 0, 1, 2, ... in the order
 * pushed, so that a reader can tell which blocks went.
 *
 * One lock: the writer's thread pushes while the detector's looks up and
 * copies blocks out.
 */
#ifndef QT_WATCH_RING_H
#define QT_WATCH_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "file/tracefile.h"

/* What one block costs beside its data (its slot and allocation). */
#define RING_BLOCK_OVERHEAD 64

struct ring;

struct ring_stats {
	size_t blocks;
	size_t bytes;			/* data and overhead, against the budget */
	size_t budget;
	uint64_t first_seq, next_seq;	/* the blocks held are [first_seq, next_seq) */
	uint64_t oldest_ts, newest_ts;	/* base times of the first and last held (0: none) */
	uint64_t pushed_out;		/* blocks dropped to stay within the budget */
};

/* A block copied out of the ring: its own copy of the data. */
struct ring_copy {
	uint64_t seq;
	struct tf_packed pk;		/* pk.data points into buf */
	uint8_t *buf;
	size_t cap;
};

/* A ring of at most budget bytes (data and overhead); NULL when out of memory. */
struct ring *ring__new(size_t budget);
void ring__free(struct ring *r);

/*
 * Stores a copy of b, an EVENTS block, then drops the oldest blocks while
 * the ring is over its budget. A block larger than the whole budget is
 * refused (-E2BIG); 0 or -ENOMEM otherwise.
 */
int ring__push(struct ring *r, const struct tf_packed *b);

/*
 * Drops the blocks that end before keep_from: those whose successor
 * starts at or before it (a block's records run until the next block's
 * base time, give or take their arrival order). The newest stays.
 */
void ring__expire(struct ring *r, uint64_t keep_from);

/*
 * The blocks that cover [from, to]: from the last one starting at or
 * before from (or the oldest held) to the first starting after to (or the
 * newest held). false when the ring is empty.
 */
bool ring__span(struct ring *r, uint64_t from, uint64_t to, uint64_t *first_seq, uint64_t *last_seq);

/*
 * The stored bytes (what writing them takes) and the records of the
 * blocks held in [first_seq, last_seq]; either pointer may be NULL.
 */
void ring__sum(struct ring *r, uint64_t first_seq, uint64_t last_seq, uint64_t *bytes, uint64_t *records);

/*
 * Copies block seq into c (its buffer grown as needed; zero c before the
 * first use, ring_copy_free() after the last). 1 when copied, 0 when the
 * block is gone (or not pushed yet), -ENOMEM.
 */
int ring__copy(struct ring *r, uint64_t seq, struct ring_copy *c);
void ring_copy_free(struct ring_copy *c);

void ring__stats(struct ring *r, struct ring_stats *st);

#endif
