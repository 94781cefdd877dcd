// SPDX-License-Identifier: MIT
/* Record packing for the trace file; the layout is described in codec.h. */
#include <errno.h>
#include <string.h>

#include "codec.h"

#define TAG_TYPE_MASK 0x1f
#define TAG_FLAGS 0x20
#define TAG_SAME_CPU 0x40
#define TAG_RT_DELTA 0x80

static const struct {
	const char *name;
	size_t size;
} types[QT_REC_MAX] = {
	[QT_REC_SWITCH] = { "switch", sizeof(struct qt_switch) },
	[QT_REC_WAKEUP] = { "wakeup", sizeof(struct qt_wakeup) },
	[QT_REC_WAKEUP_NEW] = { "wakeup_new", sizeof(struct qt_wakeup) },
	[QT_REC_SYSCALL] = { "syscall", sizeof(struct qt_syscall) },
	[QT_REC_IRQ] = { "irq", sizeof(struct qt_irq) },
	[QT_REC_SOFTIRQ] = { "softirq", sizeof(struct qt_irq) },
	[QT_REC_FORK] = { "fork", sizeof(struct qt_task) },
	[QT_REC_EXEC] = { "exec", sizeof(struct qt_task) },
	[QT_REC_RENAME] = { "rename", sizeof(struct qt_task) },
	[QT_REC_EXIT] = { "exit", sizeof(struct qt_task) },
	[QT_REC_IRQ_NAME] = { "irq_name", sizeof(struct qt_irq_name) },
	[QT_REC_LOST] = { "lost", sizeof(struct qt_lost) },
	[QT_REC_STATS] = { "stats", sizeof(struct qt_stats) },
	[QT_REC_SOFTIRQ_RAISE] = { "softirq_raise", sizeof(struct qt_softirq_raise) },
	[QT_REC_DATA] = { "data", sizeof(struct qt_data) },
};

size_t codec_rec_size(unsigned int type)
{
	return type < QT_REC_MAX ? types[type].size : 0;
}

const char *codec_type_name(unsigned int type)
{
	return type < QT_REC_MAX && types[type].name ? types[type].name : "?";
}

void codec_reset(struct codec_state *st, uint64_t base_ts)
{
	memset(st, 0, sizeof(*st));
	st->prev_ts = base_ts;
}

static inline unsigned int rt_slot(uint32_t tid)
{
	return (tid ^ (tid >> 8)) & (CODEC_RT_SLOTS - 1);
}

static inline uint64_t zz_enc(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t zz_dec(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint8_t *put_var(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint8_t *put_str(uint8_t *p, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	*p++ = (uint8_t)n;
	memcpy(p, s, n);
	return p + n;
}

int codec_encode(struct codec_state *st, const union qt_record *r, uint8_t *out)
{
	unsigned int type = r->h.type;
	uint8_t *p = out + 1;
	uint8_t tag = type;

	if (type >= QT_REC_MAX || !types[type].size)
		return -EINVAL;
	if (r->h.flags) {
		tag |= TAG_FLAGS;
		*p++ = r->h.flags;
	}
	p = put_var(p, zz_enc((int64_t)(r->h.ts - st->prev_ts)));
	if (st->have_cpu && st->prev_cpu == r->h.cpu)
		tag |= TAG_SAME_CPU;
	else
		p = put_var(p, r->h.cpu);
	st->prev_ts = r->h.ts;
	st->prev_cpu = r->h.cpu;
	st->have_cpu = 1;

	switch (type) {
	case QT_REC_SWITCH:
		p = put_var(p, r->sw.prev_tid);
		p = put_var(p, zz_enc((int64_t)r->sw.prev_tgid - r->sw.prev_tid));
		p = put_var(p, r->sw.next_tid);
		p = put_var(p, zz_enc((int64_t)r->sw.next_tgid - r->sw.next_tid));
		p = put_var(p, r->sw.prev_state);
		*p++ = r->sw.prev_prio;
		*p++ = r->sw.next_prio;
		{
			unsigned int k = rt_slot(r->sw.prev_tid);

			if (st->rt_tid[k] == r->sw.prev_tid + 1) {
				tag |= TAG_RT_DELTA;
				p = put_var(p, zz_enc((int64_t)(r->sw.prev_runtime - st->rt_val[k])));
			} else {
				p = put_var(p, r->sw.prev_runtime);
			}
			st->rt_tid[k] = r->sw.prev_tid + 1;
			st->rt_val[k] = r->sw.prev_runtime;
		}
		break;
	case QT_REC_WAKEUP:
	case QT_REC_WAKEUP_NEW:
		p = put_var(p, zz_enc((int64_t)(r->h.ts - r->wk.waking_ts)));
		p = put_var(p, r->wk.waker_tid);
		p = put_var(p, zz_enc((int64_t)r->wk.waker_tgid - r->wk.waker_tid));
		p = put_var(p, r->wk.wakee_tid);
		p = put_var(p, zz_enc((int64_t)r->wk.wakee_tgid - r->wk.wakee_tid));
		p = put_var(p, r->wk.target_cpu);
		p = put_var(p, r->wk.waker_cpu);
		p = put_var(p, r->wk.waker_irq);
		*p++ = r->wk.wakee_prio;
		break;
	case QT_REC_SYSCALL:
		p = put_var(p, r->sc.end_ts - r->h.ts);
		p = put_var(p, r->sc.nr);
		p = put_var(p, r->sc.arg0);
		p = put_var(p, zz_enc(r->sc.ret));
		p = put_var(p, r->sc.tid);
		p = put_var(p, zz_enc((int64_t)r->sc.tgid - r->sc.tid));
		break;
	case QT_REC_IRQ:
	case QT_REC_SOFTIRQ:
		p = put_var(p, r->irq.end_ts - r->h.ts);
		p = put_var(p, r->irq.irq);
		p = put_var(p, zz_enc(r->irq.ret));
		p = put_var(p, r->irq.tid);
		break;
	case QT_REC_FORK:
	case QT_REC_EXEC:
	case QT_REC_RENAME:
	case QT_REC_EXIT:
		p = put_var(p, r->task.tid);
		p = put_var(p, zz_enc((int64_t)r->task.tgid - r->task.tid));
		p = put_var(p, r->task.parent_tid);
		p = put_var(p, zz_enc((int64_t)r->task.parent_tgid - r->task.parent_tid));
		p = put_str(p, r->task.comm, QT_COMM_LEN);
		break;
	case QT_REC_IRQ_NAME:
		p = put_var(p, r->irqn.irq);
		p = put_str(p, r->irqn.name, QT_IRQ_NAME_LEN);
		break;
	case QT_REC_LOST:
		p = put_var(p, zz_enc((int64_t)(r->h.ts - r->lost.first_ts)));
		p = put_var(p, zz_enc((int64_t)(r->lost.last_ts - r->lost.first_ts)));
		p = put_var(p, r->lost.count);
		break;
	case QT_REC_SOFTIRQ_RAISE:
		p = put_var(p, r->raise.tid);
		p = put_var(p, zz_enc((int64_t)r->raise.tgid - r->raise.tid));
		p = put_var(p, r->raise.vec);
		p = put_var(p, r->raise.irq);
		break;
	case QT_REC_DATA:
		p = put_var(p, r->data.end_ts - r->h.ts);
		p = put_var(p, zz_enc(r->data.bytes));
		p = put_var(p, r->data.tid);
		p = put_var(p, zz_enc((int64_t)r->data.tgid - r->data.tid));
		p = put_var(p, r->data.nr);
		/* an object not resolved (ino 0), or the second of a one-descriptor call: one byte */
		for (int i = 0; i < 2; i++) {
			p = put_var(p, r->data.obj[i].ino);
			if (!r->data.obj[i].ino)
				continue;
			p = put_var(p, r->data.obj[i].dev);
			p = put_var(p, r->data.obj[i].mode);
			p = put_var(p, r->data.obj[i].peer);
		}
		if (r->h.flags & QT_DATA_NAMED)
			p = put_str(p, r->data.name, QT_DATA_NAME_LEN);
		break;
	case QT_REC_STATS:
		p = put_var(p, r->stats.emitted);
		p = put_var(p, r->stats.lost);
		p = put_var(p, r->stats.consumed);
		p = put_var(p, r->stats.user_dropped);
		break;
	}
	out[0] = tag;
	return (int)(p - out);
}

struct rd {
	const uint8_t *p, *end;
	int bad;
};

/*
 * put_var() writes the shortest form, so anything else is damage: more than
 * 10 bytes, bits beyond 64 in the 10th byte (they used to be dropped
 * silently), or a final zero byte after a continuation (zero padding).
 */
static inline uint64_t get_var(struct rd *rd)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (rd->p >= rd->end) {
			rd->bad = 1;
			return 0;
		}
		b = *rd->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if ((shift && !b) || (shift == 63 && b > 1))
				break;
			return v;
		}
	}
	rd->bad = 1;
	return 0;
}

static inline uint32_t get_u32(struct rd *rd)
{
	uint64_t v = get_var(rd);

	if (v > UINT32_MAX)
		rd->bad = 1;
	return (uint32_t)v;
}

/* 16-bit fields: a larger value is damage, not something to truncate. */
static inline uint16_t get_u16(struct rd *rd)
{
	uint64_t v = get_var(rd);

	if (v > UINT16_MAX)
		rd->bad = 1;
	return (uint16_t)v;
}

static inline uint32_t get_tgid(struct rd *rd, uint32_t tid)
{
	int64_t v = (int64_t)tid + zz_dec(get_var(rd));

	if (v < 0 || v > UINT32_MAX)
		rd->bad = 1;
	return (uint32_t)v;
}

static inline uint8_t get_byte(struct rd *rd)
{
	if (rd->p >= rd->end) {
		rd->bad = 1;
		return 0;
	}
	return *rd->p++;
}

static inline void get_str(struct rd *rd, char *dst, size_t max)
{
	size_t n = get_byte(rd);

	if (rd->bad || n > max || (size_t)(rd->end - rd->p) < n) {
		rd->bad = 1;
		return;
	}
	memcpy(dst, rd->p, n);
	if (n < max)
		dst[n] = 0;
	rd->p += n;
}

int codec_decode(struct codec_state *st, const uint8_t *p, const uint8_t *end,
		 union qt_record *r)
{
	struct rd rd = { p, end, 0 };
	uint8_t tag;
	unsigned int type;

	memset(r, 0, sizeof(*r));
	tag = get_byte(&rd);
	type = tag & TAG_TYPE_MASK;
	if (rd.bad || type >= QT_REC_MAX || !types[type].size ||
	    ((tag & TAG_RT_DELTA) && type != QT_REC_SWITCH))
		return -EBADMSG;
	r->h.type = type;
	if (tag & TAG_FLAGS)
		r->h.flags = get_byte(&rd);
	r->h.ts = st->prev_ts + (uint64_t)zz_dec(get_var(&rd));
	if (tag & TAG_SAME_CPU) {
		if (!st->have_cpu)
			return -EBADMSG;
		r->h.cpu = st->prev_cpu;
	} else {
		uint64_t cpu = get_var(&rd);

		if (cpu > UINT16_MAX)
			return -EBADMSG;
		r->h.cpu = cpu;
	}

	switch (type) {
	case QT_REC_SWITCH:
		r->sw.prev_tid = get_u32(&rd);
		r->sw.prev_tgid = get_tgid(&rd, r->sw.prev_tid);
		r->sw.next_tid = get_u32(&rd);
		r->sw.next_tgid = get_tgid(&rd, r->sw.next_tid);
		r->sw.prev_state = get_u32(&rd);
		r->sw.prev_prio = get_byte(&rd);
		r->sw.next_prio = get_byte(&rd);
		{
			unsigned int k = rt_slot(r->sw.prev_tid);

			if (tag & TAG_RT_DELTA) {
				if (st->rt_tid[k] != r->sw.prev_tid + 1)
					return -EBADMSG;
				r->sw.prev_runtime = st->rt_val[k] + (uint64_t)zz_dec(get_var(&rd));
			} else {
				r->sw.prev_runtime = get_var(&rd);
			}
			if (rd.bad)
				return -EBADMSG;
			st->rt_tid[k] = r->sw.prev_tid + 1;
			st->rt_val[k] = r->sw.prev_runtime;
		}
		break;
	case QT_REC_WAKEUP:
	case QT_REC_WAKEUP_NEW:
		r->wk.waking_ts = r->h.ts - (uint64_t)zz_dec(get_var(&rd));
		r->wk.waker_tid = get_u32(&rd);
		r->wk.waker_tgid = get_tgid(&rd, r->wk.waker_tid);
		r->wk.wakee_tid = get_u32(&rd);
		r->wk.wakee_tgid = get_tgid(&rd, r->wk.wakee_tid);
		r->wk.target_cpu = get_u16(&rd);
		r->wk.waker_cpu = get_u16(&rd);
		r->wk.waker_irq = get_u16(&rd);
		r->wk.wakee_prio = get_byte(&rd);
		break;
	case QT_REC_SYSCALL:
		r->sc.end_ts = r->h.ts + get_var(&rd);
		r->sc.nr = get_u32(&rd);
		r->sc.arg0 = get_var(&rd);
		r->sc.ret = zz_dec(get_var(&rd));
		r->sc.tid = get_u32(&rd);
		r->sc.tgid = get_tgid(&rd, r->sc.tid);
		break;
	case QT_REC_IRQ:
	case QT_REC_SOFTIRQ:
		r->irq.end_ts = r->h.ts + get_var(&rd);
		r->irq.irq = get_u32(&rd);
		{
			int64_t ret = zz_dec(get_var(&rd));

			if (ret < INT32_MIN || ret > INT32_MAX)
				rd.bad = 1;
			r->irq.ret = (int32_t)ret;
		}
		r->irq.tid = get_u32(&rd);
		break;
	case QT_REC_FORK:
	case QT_REC_EXEC:
	case QT_REC_RENAME:
	case QT_REC_EXIT:
		r->task.tid = get_u32(&rd);
		r->task.tgid = get_tgid(&rd, r->task.tid);
		r->task.parent_tid = get_u32(&rd);
		r->task.parent_tgid = get_tgid(&rd, r->task.parent_tid);
		get_str(&rd, r->task.comm, QT_COMM_LEN);
		break;
	case QT_REC_IRQ_NAME:
		r->irqn.irq = get_u32(&rd);
		get_str(&rd, r->irqn.name, QT_IRQ_NAME_LEN);
		break;
	case QT_REC_LOST:
		r->lost.first_ts = r->h.ts - (uint64_t)zz_dec(get_var(&rd));
		r->lost.last_ts = r->lost.first_ts + (uint64_t)zz_dec(get_var(&rd));
		r->lost.count = get_var(&rd);
		break;
	case QT_REC_SOFTIRQ_RAISE:
		r->raise.tid = get_u32(&rd);
		r->raise.tgid = get_tgid(&rd, r->raise.tid);
		r->raise.vec = get_u16(&rd);
		r->raise.irq = get_u16(&rd);
		break;
	case QT_REC_DATA:
		r->data.end_ts = r->h.ts + get_var(&rd);
		r->data.bytes = zz_dec(get_var(&rd));
		r->data.tid = get_u32(&rd);
		r->data.tgid = get_tgid(&rd, r->data.tid);
		r->data.nr = get_u32(&rd);
		for (int i = 0; i < 2; i++) {
			r->data.obj[i].ino = get_var(&rd);
			if (!r->data.obj[i].ino)
				continue;
			r->data.obj[i].dev = get_u32(&rd);
			r->data.obj[i].mode = get_u32(&rd);
			r->data.obj[i].peer = get_var(&rd);
		}
		if (r->h.flags & QT_DATA_NAMED)
			get_str(&rd, r->data.name, QT_DATA_NAME_LEN);
		break;
	case QT_REC_STATS:
		r->stats.emitted = get_var(&rd);
		r->stats.lost = get_var(&rd);
		r->stats.consumed = get_var(&rd);
		r->stats.user_dropped = get_var(&rd);
		break;
	}
	if (rd.bad)
		return -EBADMSG;
	st->prev_ts = r->h.ts;
	st->prev_cpu = r->h.cpu;
	st->have_cpu = 1;
	return (int)(rd.p - p);
}

void codec_block_begin(struct codec_block *it, const void *data, size_t len, uint64_t base_ts)
{
	codec_reset(&it->cs, base_ts);
	it->p = data;
	it->end = it->p + len;
	it->done = 0;
}

int codec_block_next(struct codec_block *it, union qt_record *rec)
{
	int n;

	if (it->p >= it->end)
		return 0;
	n = codec_decode(&it->cs, it->p, it->end, rec);
	if (n < 0) {
		/* sticky: a decoder cannot resynchronise inside a block */
		it->p = it->end;
		return n;
	}
	it->p += n;
	it->done++;
	return 1;
}
