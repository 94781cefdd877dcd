/* SPDX-License-Identifier: MIT */
/*
 * Where watch's recorder writes (writer.h's writer_sink): the blocks a
 * trace file would get go to memory instead. The EVENTS blocks are packed
 * (compressed and checksummed, tf_packer) on the writer's thread and kept
 * in the ring (ring.h); META, the start thread table and END are kept
 * here for the windows; each batch's raw records pass through the tap
 * (tap.h) first. The recorder itself is unchanged: it writes to a sink
 * as it writes to a file.
 */
#ifndef QT_WATCH_SINK_H
#define QT_WATCH_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "file/tracefile.h"
#include "file/writer.h"

struct ring;
struct tap;

struct sink;

/*
 * A sink that packs at zlevel into ring and passes records through tap
 * (both the caller's, which must outlive it). NULL when out of memory.
 */
struct sink *sink__new(struct ring *ring, struct tap *tap, int zlevel);
void sink__free(struct sink *s);

/* What the writer is given (writer_opts.sink). */
const struct writer_sink *sink__writer(struct sink *s);

/*
 * The recording's META and its start thread table, copied into *meta
 * (freed by the caller with tf_kv_free) and *threads (free()), once the
 * writer has opened; false before.
 */
bool sink__started(struct sink *s, struct tf_kv *meta, struct tf_thread **threads, size_t *n, uint64_t *ts);

/* The END block once the writer has finished (copied into *end); false before. */
bool sink__ended(struct sink *s, struct tf_kv *end);

/* Blocks the ring could not take (out of memory, or larger than it): their records are lost. */
uint64_t sink__refused(struct sink *s);

#endif
