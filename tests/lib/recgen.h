/*
 * Random ring-buffer records for the codec, trace file, writer and loader
 * tests. Deterministic from a seed (tu_rand), all
 * padding zeroed, strings zero-filled after their end, so that a decoded
 * record compares equal to its source with memcmp.
 */
#ifndef QT_RECGEN_H
#define QT_RECGEN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "file/codec.h"
#include "testutil.h"

#define rg_rand tu_rand

/* A value biased to the edges: 0, 1, max, max-1, small, or anything. */
static inline uint64_t rg_edge(unsigned long long *s, uint64_t max)
{
	uint64_t v;

	switch (rg_rand(s) % 8) {
	case 0: return 0;
	case 1: return 1 <= max ? 1 : 0;
	case 2: return max;
	case 3: return max - 1;
	case 4: v = rg_rand(s) % 300; return v <= max ? v : max;
	default:
		v = rg_rand(s);
		return max == UINT64_MAX ? v : v % (max + 1);
	}
}

static inline void rg_str(unsigned long long *s, char *dst, size_t max)
{
	size_t n = rg_rand(s) % (max + 1);

	memset(dst, 0, max);
	for (size_t i = 0; i < n; i++)
		dst[i] = (char)(' ' + rg_rand(s) % 95);
}

/*
 * A random record. str_max_full: strings may fill their field completely
 * (no NUL); the kernel never does that, so callers comparing with what the
 * loader keeps pass false.
 */
static inline void rg_record(unsigned long long *s, union qt_record *r, int type, bool str_max_full)
{
	memset(r, 0, sizeof(*r));
	if (!type)
		type = 1 + rg_rand(s) % (QT_REC_MAX - 1);
	r->h.type = type;
	r->h.ts = rg_edge(s, UINT64_MAX);
	r->h.cpu = rg_edge(s, UINT16_MAX);
	r->h.flags = rg_rand(s) % 3 ? 0 : rg_edge(s, UINT8_MAX);
	switch (type) {
	case QT_REC_SWITCH:
		r->sw.prev_tid = rg_edge(s, UINT32_MAX);
		r->sw.prev_tgid = rg_edge(s, UINT32_MAX);
		r->sw.next_tid = rg_edge(s, UINT32_MAX);
		r->sw.next_tgid = rg_edge(s, UINT32_MAX);
		r->sw.prev_state = rg_edge(s, UINT32_MAX);
		r->sw.prev_prio = rg_edge(s, UINT8_MAX);
		r->sw.next_prio = rg_edge(s, UINT8_MAX);
		r->sw.prev_runtime = rg_edge(s, UINT64_MAX);
		break;
	case QT_REC_WAKEUP:
	case QT_REC_WAKEUP_NEW:
		r->wk.waking_ts = rg_edge(s, UINT64_MAX);
		r->wk.waker_tid = rg_edge(s, UINT32_MAX);
		r->wk.waker_tgid = rg_edge(s, UINT32_MAX);
		r->wk.wakee_tid = rg_edge(s, UINT32_MAX);
		r->wk.wakee_tgid = rg_edge(s, UINT32_MAX);
		r->wk.target_cpu = rg_edge(s, UINT16_MAX);
		r->wk.waker_cpu = rg_edge(s, UINT16_MAX);
		r->wk.waker_irq = rg_edge(s, UINT16_MAX);
		r->wk.wakee_prio = rg_edge(s, UINT8_MAX);
		break;
	case QT_REC_SYSCALL:
		r->sc.end_ts = rg_edge(s, UINT64_MAX);
		r->sc.arg0 = rg_edge(s, UINT64_MAX);
		r->sc.ret = (int64_t)rg_edge(s, UINT64_MAX);
		r->sc.tid = rg_edge(s, UINT32_MAX);
		r->sc.tgid = rg_edge(s, UINT32_MAX);
		r->sc.nr = rg_edge(s, UINT32_MAX);
		break;
	case QT_REC_IRQ:
	case QT_REC_SOFTIRQ:
		r->irq.end_ts = rg_edge(s, UINT64_MAX);
		r->irq.irq = rg_edge(s, UINT32_MAX);
		r->irq.ret = (int32_t)rg_edge(s, UINT32_MAX);
		r->irq.tid = rg_edge(s, UINT32_MAX);
		break;
	case QT_REC_FORK:
	case QT_REC_EXEC:
	case QT_REC_RENAME:
	case QT_REC_EXIT:
		r->task.tid = rg_edge(s, UINT32_MAX);
		r->task.tgid = rg_edge(s, UINT32_MAX);
		r->task.parent_tid = rg_edge(s, UINT32_MAX);
		r->task.parent_tgid = rg_edge(s, UINT32_MAX);
		rg_str(s, r->task.comm, QT_COMM_LEN - !str_max_full);
		break;
	case QT_REC_IRQ_NAME:
		r->irqn.irq = rg_edge(s, UINT32_MAX);
		rg_str(s, r->irqn.name, QT_IRQ_NAME_LEN - !str_max_full);
		break;
	case QT_REC_LOST:
		r->lost.first_ts = rg_edge(s, UINT64_MAX);
		r->lost.last_ts = rg_edge(s, UINT64_MAX);
		r->lost.count = rg_edge(s, UINT64_MAX);
		break;
	case QT_REC_STATS:
		r->stats.emitted = rg_edge(s, UINT64_MAX);
		r->stats.lost = rg_edge(s, UINT64_MAX);
		r->stats.consumed = rg_edge(s, UINT64_MAX);
		r->stats.user_dropped = rg_edge(s, UINT64_MAX);
		break;
	case QT_REC_SOFTIRQ_RAISE:
		/* often a process's main thread, and a vector the kernel has */
		r->raise.tid = rg_edge(s, UINT32_MAX);
		r->raise.tgid = rg_rand(s) % 2 ? r->raise.tid : rg_edge(s, UINT32_MAX);
		r->raise.vec = rg_rand(s) % 4 ? rg_rand(s) % 10 : rg_edge(s, UINT16_MAX);
		r->raise.irq = rg_edge(s, UINT16_MAX);
		break;
	case QT_REC_DATA:
		r->data.end_ts = rg_edge(s, UINT64_MAX);
		r->data.bytes = (int64_t)rg_edge(s, UINT64_MAX);
		r->data.tid = rg_edge(s, UINT32_MAX);
		r->data.tgid = rg_edge(s, UINT32_MAX);
		r->data.nr = rg_edge(s, UINT32_MAX);
		/* an unresolved object (ino 0) is stored as ino alone: the rest is 0 */
		for (int i = 0; i < 2; i++) {
			r->data.obj[i].ino = rg_rand(s) % 3 ? rg_edge(s, UINT64_MAX) : 0;
			if (!r->data.obj[i].ino)
				continue;
			r->data.obj[i].peer = rg_edge(s, UINT64_MAX);
			r->data.obj[i].dev = rg_edge(s, UINT32_MAX);
			r->data.obj[i].mode = rg_edge(s, UINT32_MAX);
		}
		/* a name only with its flag: without it the decoder leaves the field zeroed */
		if (r->h.flags & QT_DATA_NAMED)
			rg_str(s, r->data.name, QT_DATA_NAME_LEN - !str_max_full);
		else
			memset(r->data.name, 0, sizeof(r->data.name));
		break;
	}
}

static inline bool rg_equal(const union qt_record *a, const union qt_record *b)
{
	return a->h.type == b->h.type && !memcmp(a, b, codec_rec_size(a->h.type));
}

/* Encodes n records as one block from base_ts; returns the bytes used. */
static inline size_t rg_encode_block(const union qt_record *r, size_t n, uint64_t base_ts, uint8_t *out)
{
	struct codec_state st;
	size_t used = 0;

	codec_reset(&st, base_ts);
	for (size_t i = 0; i < n; i++) {
		int k = codec_encode(&st, &r[i], out + used);

		if (k <= 0)
			return 0;
		used += k;
	}
	return used;
}

#endif
