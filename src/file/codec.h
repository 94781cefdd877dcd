/*
 * Packing of ring-buffer records for the trace file.
 *
 * Inside an EVENTS block (see tracefile.h) records are stored one after the
 * other, each as:
 *
 *   tag      1 byte: bits 0-4 record type (enum qt_rec_type),
 *                    bit 5 a flags byte follows, bit 6 same CPU as the
 *                    previous record (the cpu field is omitted)
 *   flags    1 byte, only when tag bit 5 is set (qt_rec_hdr.flags)
 *   ts       zigzag varint: ts - previous record's ts (the first record of a
 *            block is relative to the block's base_ts). Records are stored in
 *            arrival order, which is not strictly time order across CPUs, so
 *            deltas may be negative.
 *   cpu      varint, unless tag bit 6
 *   fields   per type, as varints (LEB128, at most 10 bytes); tgid as the
 *            zigzag difference to tid, end times as durations; strings as a
 *            length byte and the bytes.
 *
 * A switch's prev_runtime grows by the CPU time of the run that just ended;
 * it is stored as the difference to the last value seen for the same tid in
 * this block (tag bit 7), found in a small direct-mapped cache that encoder
 * and decoder maintain alike, else in full.
 *
 * Decoding state resets at every block, so blocks decode independently.
 */
#ifndef QT_CODEC_H
#define QT_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "qt_events.h"

union qt_record {
	struct qt_rec_hdr h;
	struct qt_switch sw;
	struct qt_wakeup wk;
	struct qt_syscall sc;
	struct qt_irq irq;
	struct qt_task task;
	struct qt_irq_name irqn;
	struct qt_lost lost;
	struct qt_stats stats;
	struct qt_softirq_raise raise;
	struct qt_data data;
};

/* Upper bound of one encoded record, for buffer sizing. */
#define CODEC_MAX_REC 160

#define CODEC_RT_SLOTS 256

struct codec_state {
	uint64_t prev_ts;
	uint16_t prev_cpu;
	int have_cpu;
	uint32_t rt_tid[CODEC_RT_SLOTS];	/* tid + 1; 0 = empty */
	uint64_t rt_val[CODEC_RT_SLOTS];
};

void codec_reset(struct codec_state *st, uint64_t base_ts);

/* Size the kernel uses for a record type, 0 for an unknown type. */
size_t codec_rec_size(unsigned int type);

/* Name of a record type ("switch", "wakeup", ...), "?" if unknown. */
const char *codec_type_name(unsigned int type);

/*
 * Appends rec to out (at least CODEC_MAX_REC bytes free). Returns the number
 * of bytes written, or -EINVAL for an unknown type.
 */
int codec_encode(struct codec_state *st, const union qt_record *rec, uint8_t *out);

/*
 * Decodes one record from [p, end) into rec (fully initialised, padding
 * zeroed). Never reads outside [p, end). Returns the bytes consumed, or
 * -EBADMSG if the bytes are not a valid record: truncated, a varint longer
 * than its shortest form or beyond 64 bits, an unknown type, tag bits that
 * do not apply to the type, a string longer than its field, or a value that
 * does not fit its field.
 */
int codec_decode(struct codec_state *st, const uint8_t *p, const uint8_t *end,
		 union qt_record *rec);

/*
 * The records of one block, in order: codec_block_begin, then
 * codec_block_next until it returns 0 (the end) or -EBADMSG (a record that
 * does not decode: the rest of the block is lost, done says how many came
 * before it).
 */
struct codec_block {
	struct codec_state cs;
	const uint8_t *p, *end;
	uint32_t done;
};

void codec_block_begin(struct codec_block *it, const void *data, size_t len, uint64_t base_ts);
int codec_block_next(struct codec_block *it, union qt_record *rec);

#endif
