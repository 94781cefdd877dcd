/*
 * The buffer the BPF programs write records into, as the consumer sees
 * it: a BPF ring buffer shared by all CPUs (Linux 5.8+), or a perf buffer
 * per CPU (any kernel), behind one set of calls (after libbpf-tools'
 * compat.c). The programs' side is bpf/common.bpf.h (knobs.perfbuf).
 */
#ifndef QT_EVBUF_H
#define QT_EVBUF_H

#include <stddef.h>
#include <stdint.h>

#include <bpf/libbpf.h>

#include "recorder.h"

struct evbuf;

/* One record; the return value is ignored. */
typedef int (*evbuf_record_fn)(void *ctx, void *data, size_t size);

/*
 * Before the object is loaded: makes the `events` map the kind asked for
 * (REC_BUFFER_RING or REC_BUFFER_PERF), bytes in all (a perf buffer gets
 * its share per CPU, a power of two of pages). 0 or a negative errno.
 */
int evbuf__new(struct bpf_map *events, enum rec_buffer kind, uint64_t bytes, struct evbuf **out);

/*
 * After load, before the programs are attached (a perf buffer that is not
 * open yet would drop what they write). fn gets every record consumed.
 */
int evbuf__open(struct evbuf *eb, evbuf_record_fn fn, void *ctx);

/*
 * Drains what is there without waiting and hands each record to fn; those
 * of a perf buffer in time order across CPUs, as the ring buffer gives
 * them. Returns the records consumed or a negative errno.
 */
int evbuf__consume(struct evbuf *eb);

/* The bytes of the smallest buffer: the ring, or one CPU's perf buffer. */
uint64_t evbuf__capacity(const struct evbuf *eb);

/*
 * Records the perf buffer of this CPU reported lost (PERF_RECORD_LOST);
 * 0 for a ring buffer, whose losses only the programs count.
 */
uint64_t evbuf__lost(const struct evbuf *eb, int cpu);

/* Accepts NULL. */
void evbuf__free(struct evbuf *eb);

#endif
