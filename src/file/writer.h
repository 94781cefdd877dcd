/*
 * The recorder's writer: a thread that packs records (codec.h), compresses
 * blocks and writes them (tracefile.h), so that draining the ring buffer
 * never waits for zlib or for the disk.
 *
 * The consumer copies raw records into 1 MiB batches and hands full batches
 * over a bounded queue. When the queue is full the consumer waits: the ring
 * buffer then fills and the kernel drops records, which it counts and
 * locates in time. Nothing is dropped silently on this side either.
 *
 * A block is closed when it holds block_bytes of packed records or is
 * block_ns old, so a crash loses at most about block_ns of data; the file is
 * fdatasync()ed at most every sync_ns.
 */
#ifndef QT_WRITER_H
#define QT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qt_events.h"
#include "tracefile.h"

/*
 * Where the blocks go instead of a file (watch keeps them in memory): the
 * writer hands over the blocks a file would get, in the same order (META,
 * the start THREADS, EVENTS..., the end THREADS, END), their payloads
 * packed (codec.h) but not compressed, and before packing each batch its
 * raw records. Both are called on the writer's thread; an error from
 * append counts as a write error.
 */
struct writer_sink {
	int (*append)(void *ctx, enum tf_block_type type, const void *payload, size_t len, uint32_t count,
		      uint64_t base_ts);
	/* The records of one batch as the kernel made them (may be NULL). */
	void (*records)(void *ctx, const void *raw, size_t len);
	void *ctx;
};

struct writer_opts {
	const char *path;	/* the trace file, unless sink is set */
	const struct writer_sink *sink;
	bool force;		/* replace an existing regular file */
	int zlevel;		/* zlib level, 1 (fast) by default; 0 stores */
	size_t block_bytes;	/* default 1 MiB of packed records */
	uint64_t block_ns;	/* default 1 s */
	uint64_t sync_ns;	/* default 1 s */
	size_t queue_bytes;	/* default 256 MiB of raw records in flight */
};

struct writer_stats {
	uint64_t records;		/* accepted */
	uint64_t by_type[QT_REC_MAX];
	uint64_t malformed;		/* records of a wrong size or type: dropped, counted */
	uint64_t user_dropped;		/* records not written because of a write error */
	uint64_t file_bytes;
	uint64_t first_ts, last_ts;
	size_t queue_peak;		/* batches */
	int err;			/* first write error, or 0 */
};

struct writer;

/*
 * Creates the file (or, with a sink, gives it the blocks), writes META and
 * the start THREADS snapshot, and starts the thread. Errors are negative
 * errno (-EEXIST: exists and !force; -ELOOP: path is a symlink).
 */
int writer__open(const struct writer_opts *opts, const struct tf_kv *meta,
		 const struct tf_thread *threads, size_t nthreads, uint64_t snapshot_ts,
		 struct writer **out);

/* Copies one raw record into the current batch (consumer side). */
int writer__push(struct writer *w, const void *rec, size_t size);

/* Hands the current batch to the thread even if not full. */
void writer__flush_batch(struct writer *w);

/* Snapshot of the counters; call from the consumer's thread. */
void writer__stats(struct writer *w, struct writer_stats *st);

/*
 * Drains everything, writes the end THREADS snapshot and the END block,
 * syncs, closes and frees (a sink is the caller's). Returns the first
 * error seen.
 */
int writer__finish(struct writer *w, const struct tf_thread *threads, size_t nthreads,
		   uint64_t snapshot_ts, const struct tf_kv *end);

#endif
