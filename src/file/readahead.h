/* SPDX-License-Identifier: MIT */
/*
 * The blocks of a trace file read ahead on a thread of their own: reading,
 * checking and decompressing a block (over half of a load's CPU time) runs
 * on one CPU while the loader decodes the block before it on another.
 *
 * The blocks, their order, the damage accounted and the warnings printed
 * are exactly those of tf_reader__next() on the same reader: only the
 * thread that does the work differs. Where no thread can be started, the
 * blocks are read in the caller's thread.
 */
#ifndef QT_READAHEAD_H
#define QT_READAHEAD_H

#include "tracefile.h"

struct readahead;

/*
 * Starts reading r ahead; r belongs to the read-ahead until
 * readahead__stop(). Returns 0 or -ENOMEM.
 */
int readahead__start(struct tf_reader *r, struct readahead **out);
/*
 * tf_reader__next()'s contract: 1 with *blk filled (its data valid until
 * the next call), 0 at the end, a negative errno for an I/O error.
 */
int readahead__next(struct readahead *ra, struct tf_block *blk);
/* Stops reading, at the end or early, and frees; r is the caller's again. */
void readahead__stop(struct readahead *ra);

#endif
