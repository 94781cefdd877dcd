// SPDX-License-Identifier: MIT
/*
 * Record packing: exact bytes of the documented layout, round trips of every
 * type with edge values, the runtime cache, long random sequences, and a
 * decoder that rejects malformed input without reading out of bounds (every
 * prefix of a valid encoding is tried from an exactly sized heap buffer, so
 * ASan and valgrind see any overread).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "file/codec.h"
#include "recgen.h"
#include "testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Decodes exactly [buf, buf + len) from a heap copy of that size. */
static int decode_exact(struct codec_state *st, const uint8_t *buf, size_t len, union qt_record *r)
{
	uint8_t *copy = malloc(len ? len : 1);
	int n;

	cr_assert(copy);
	if (len)
		memcpy(copy, buf, len);
	n = codec_decode(st, copy, copy + len, r);
	free(copy);
	return n;
}

/* Encodes recs as one block, decodes it back and compares. */
static void roundtrip(const union qt_record *recs, size_t n, uint64_t base)
{
	uint8_t *buf = malloc(n * CODEC_MAX_REC + 1);
	size_t *ends = malloc(n * sizeof(*ends));
	struct codec_state enc, dec;
	size_t used = 0;

	cr_assert(buf && ends);
	codec_reset(&enc, base);
	for (size_t i = 0; i < n; i++) {
		int k = codec_encode(&enc, &recs[i], buf + used);

		cr_assert_gt(k, 0, "record %zu (type %u): encode returned %d", i, recs[i].h.type, k);
		cr_assert_leq(k, CODEC_MAX_REC, "record %zu (type %u) takes %d bytes", i, recs[i].h.type, k);
		used += k;
		ends[i] = used;
	}
	codec_reset(&dec, base);
	for (size_t i = 0, at = 0; i < n; i++) {
		union qt_record r;
		int k = codec_decode(&dec, buf + at, buf + used, &r);

		cr_assert_eq(k, (int)(ends[i] - at), "record %zu (type %u): decode returned %d, want %zu",
			     i, recs[i].h.type, k, ends[i] - at);
		cr_assert(rg_equal(&r, &recs[i]), "record %zu (type %u %s) differs after the round trip",
			  i, recs[i].h.type, codec_type_name(recs[i].h.type));
		at += k;
	}
	free(buf);
	free(ends);
}

static union qt_record rec(unsigned int type, uint64_t ts, uint16_t cpu)
{
	union qt_record r;

	memset(&r, 0, sizeof(r));
	r.h.type = type;
	r.h.ts = ts;
	r.h.cpu = cpu;
	return r;
}

Test(codec, type_sizes_and_names)
{
	static const struct { unsigned int type; size_t size; const char *name; } want[] = {
		{ QT_REC_SWITCH, sizeof(struct qt_switch), "switch" },
		{ QT_REC_WAKEUP, sizeof(struct qt_wakeup), "wakeup" },
		{ QT_REC_WAKEUP_NEW, sizeof(struct qt_wakeup), "wakeup_new" },
		{ QT_REC_SYSCALL, sizeof(struct qt_syscall), "syscall" },
		{ QT_REC_IRQ, sizeof(struct qt_irq), "irq" },
		{ QT_REC_SOFTIRQ, sizeof(struct qt_irq), "softirq" },
		{ QT_REC_FORK, sizeof(struct qt_task), "fork" },
		{ QT_REC_EXEC, sizeof(struct qt_task), "exec" },
		{ QT_REC_RENAME, sizeof(struct qt_task), "rename" },
		{ QT_REC_EXIT, sizeof(struct qt_task), "exit" },
		{ QT_REC_IRQ_NAME, sizeof(struct qt_irq_name), "irq_name" },
		{ QT_REC_LOST, sizeof(struct qt_lost), "lost" },
		{ QT_REC_STATS, sizeof(struct qt_stats), "stats" },
		{ QT_REC_SOFTIRQ_RAISE, sizeof(struct qt_softirq_raise), "softirq_raise" },
		{ QT_REC_DATA, sizeof(struct qt_data), "data" },
	};

	for (size_t i = 0; i < N(want); i++) {
		cr_expect_eq(codec_rec_size(want[i].type), want[i].size, "type %u", want[i].type);
		cr_expect_str_eq(codec_type_name(want[i].type), want[i].name);
	}
	cr_expect_eq(codec_rec_size(QT_REC_NONE), 0);
	cr_expect_eq(codec_rec_size(QT_REC_MAX), 0);
	cr_expect_eq(codec_rec_size(255), 0);
	cr_expect_eq(codec_rec_size(UINT32_MAX), 0);
	cr_expect_str_eq(codec_type_name(QT_REC_NONE), "?");
	cr_expect_str_eq(codec_type_name(QT_REC_MAX), "?");
	cr_expect_str_eq(codec_type_name(UINT32_MAX), "?");
}

/* The bytes of codec.h's layout, written out by hand. */
Test(codec, exact_bytes_of_two_switches)
{
	union qt_record a = rec(QT_REC_SWITCH, 1005, 3), b = rec(QT_REC_SWITCH, 1001, 3);
	static const uint8_t want[] = {
		/* a: tag = switch | flags byte, flags 1, ts zz(+5) = 10, cpu 3 */
		0x21, 0x01, 0x0a, 0x03,
		0x64, 0x00,		/* prev_tid 100, zz(tgid - tid = 0) */
		0xc8, 0x01, 0x01,	/* next_tid 200, zz(199 - 200 = -1) = 1 */
		0x01, 0x78, 0x79,	/* prev_state 1, prios 120 and 121 */
		0xac, 0x02,		/* prev_runtime 300 in full: tid 100 not cached */
		/* b: tag = switch | same cpu | runtime delta, ts zz(-4) = 7 */
		0xc1, 0x07,
		0x64, 0x00, 0x00, 0x00,	/* prev 100/100, next 0/0 */
		0x00, 0x00, 0x00,	/* state 0, prios 0 */
		0x64,			/* zz(350 - 300 = +50) = 100 */
	};
	struct codec_state st;
	uint8_t out[2 * CODEC_MAX_REC];
	int n1, n2;

	a.h.flags = QT_SWITCH_PREEMPT;
	a.sw.prev_tid = a.sw.prev_tgid = 100;
	a.sw.next_tid = 200;
	a.sw.next_tgid = 199;
	a.sw.prev_state = 1;
	a.sw.prev_prio = 120;
	a.sw.next_prio = 121;
	a.sw.prev_runtime = 300;
	b.sw.prev_tid = b.sw.prev_tgid = 100;
	b.sw.prev_runtime = 350;
	codec_reset(&st, 1000);
	n1 = codec_encode(&st, &a, out);
	n2 = codec_encode(&st, &b, out + n1);
	cr_assert_eq(n1 + n2, (int)sizeof(want), "encoded %d + %d bytes, want %zu", n1, n2, sizeof(want));
	for (size_t i = 0; i < sizeof(want); i++)
		cr_expect_eq(out[i], want[i], "byte %zu: 0x%02x, want 0x%02x", i, out[i], want[i]);
	roundtrip((union qt_record[]){ a, b }, 2, 1000);
}

Test(codec, encode_rejects_unknown_types)
{
	struct codec_state st;
	uint8_t out[CODEC_MAX_REC];
	union qt_record r = rec(QT_REC_NONE, 1, 0);

	codec_reset(&st, 0);
	cr_expect_eq(codec_encode(&st, &r, out), -EINVAL);
	r.h.type = QT_REC_MAX;
	cr_expect_eq(codec_encode(&st, &r, out), -EINVAL);
	r.h.type = 200;
	cr_expect_eq(codec_encode(&st, &r, out), -EINVAL);
}

/* Every type with all fields 0, then all fields at their maximum. */
Test(codec, roundtrip_every_type_zero_and_max)
{
	union qt_record recs[2 * (QT_REC_MAX - 1)];
	size_t n = 0;

	for (unsigned int type = 1; type < QT_REC_MAX; type++)
		recs[n++] = rec(type, 0, 0);
	for (unsigned int type = 1; type < QT_REC_MAX; type++) {
		union qt_record *r = &recs[n++];

		memset(r, 0xff, codec_rec_size(type));
		r->h.type = type;
		switch (type) {	/* explicit padding stays 0: the decoder zeroes it */
		case QT_REC_SWITCH: memset(r->sw.pad, 0, sizeof(r->sw.pad)); break;
		case QT_REC_WAKEUP: case QT_REC_WAKEUP_NEW: r->wk.pad = 0; break;
		case QT_REC_SYSCALL: r->sc.pad = 0; break;
		case QT_REC_IRQ: case QT_REC_SOFTIRQ: r->irq.pad = 0; break;
		case QT_REC_IRQ_NAME: r->irqn.pad = 0; break;
		case QT_REC_SOFTIRQ_RAISE: r->raise.pad = 0; break;
		case QT_REC_DATA: r->data.pad = 0; break;
		}
		/* the header's own padding (after cpu) */
		memset((char *)&r->h + offsetof(struct qt_rec_hdr, cpu) + 2, 0,
		       sizeof(r->h) - offsetof(struct qt_rec_hdr, cpu) - 2);
	}
	roundtrip(recs, n, 0);
	roundtrip(recs, n, UINT64_MAX);
	roundtrip(recs, n, 1ull << 63);
}

/* The largest encodings the field ranges allow stay within CODEC_MAX_REC. */
Test(codec, worst_case_size)
{
	static const uint8_t longest_of[QT_REC_MAX] = {
		[QT_REC_SWITCH] = 52, [QT_REC_WAKEUP] = 55, [QT_REC_WAKEUP_NEW] = 55,
		[QT_REC_SYSCALL] = 60, [QT_REC_IRQ] = 40, [QT_REC_SOFTIRQ] = 40,
		[QT_REC_FORK] = 52, [QT_REC_EXEC] = 52, [QT_REC_RENAME] = 52, [QT_REC_EXIT] = 52,
		[QT_REC_IRQ_NAME] = 53, [QT_REC_LOST] = 45, [QT_REC_STATS] = 55,
		[QT_REC_SOFTIRQ_RAISE] = 31, [QT_REC_DATA] = 143,
	};

	for (unsigned int type = 1; type < QT_REC_MAX; type++) {
		struct codec_state st;
		uint8_t out[CODEC_MAX_REC + 16];
		union qt_record r = rec(type, 1ull << 63, UINT16_MAX);
		int n;

		r.h.flags = 0xff;
		/*
		 * Large tids with tgid 0: the zigzag difference is largest. Not
		 * UINT32_MAX for a switch's prev: tid + 1 wraps to the cache's
		 * empty mark and hits.
		 */
		switch (type) {
		case QT_REC_SWITCH:
			r.sw.prev_tid = r.sw.next_tid = UINT32_MAX - 1;
			r.sw.prev_state = UINT32_MAX;
			r.sw.prev_runtime = UINT64_MAX;
			break;
		case QT_REC_WAKEUP: case QT_REC_WAKEUP_NEW:
			r.wk.waking_ts = 0;
			r.wk.waker_tid = r.wk.wakee_tid = UINT32_MAX;
			r.wk.target_cpu = r.wk.waker_cpu = r.wk.waker_irq = UINT16_MAX;
			break;
		case QT_REC_SYSCALL:
			r.sc.end_ts = r.h.ts - 1;
			r.sc.arg0 = UINT64_MAX;
			r.sc.ret = INT64_MIN;
			r.sc.tid = r.sc.nr = UINT32_MAX;
			break;
		case QT_REC_IRQ: case QT_REC_SOFTIRQ:
			r.irq.end_ts = r.h.ts - 1;
			r.irq.irq = r.irq.tid = UINT32_MAX;
			r.irq.ret = INT32_MIN;
			break;
		case QT_REC_FORK: case QT_REC_EXEC: case QT_REC_RENAME: case QT_REC_EXIT:
			r.task.tid = r.task.parent_tid = UINT32_MAX;
			memset(r.task.comm, 'x', QT_COMM_LEN);
			break;
		case QT_REC_IRQ_NAME:
			r.irqn.irq = UINT32_MAX;
			memset(r.irqn.name, 'x', QT_IRQ_NAME_LEN);
			break;
		case QT_REC_LOST:
			r.lost.first_ts = 0;
			r.lost.last_ts = 1ull << 63;
			r.lost.count = UINT64_MAX;
			break;
		case QT_REC_STATS:
			r.stats.emitted = r.stats.lost = r.stats.consumed = r.stats.user_dropped = UINT64_MAX;
			break;
		case QT_REC_SOFTIRQ_RAISE:
			r.raise.tid = UINT32_MAX;
			r.raise.vec = r.raise.irq = UINT16_MAX;
			break;
		case QT_REC_DATA:
			r.data.end_ts = r.h.ts - 1;
			r.data.bytes = INT64_MIN;
			r.data.tid = r.data.nr = UINT32_MAX;
			for (int i = 0; i < 2; i++) {
				r.data.obj[i].ino = r.data.obj[i].peer = UINT64_MAX;
				r.data.obj[i].dev = r.data.obj[i].mode = UINT32_MAX;
			}
			memset(r.data.name, 'x', QT_DATA_NAME_LEN);
			break;
		}
		codec_reset(&st, 0);
		n = codec_encode(&st, &r, out);
		cr_expect_eq(n, longest_of[type], "%s: %d bytes, want %u", codec_type_name(type), n,
			     longest_of[type]);
		cr_expect_leq(n, CODEC_MAX_REC);
		roundtrip(&r, 1, 0);
	}
}

Test(codec, negative_values_and_strings)
{
	union qt_record r[8];

	r[0] = rec(QT_REC_SYSCALL, 500, 1);
	r[0].sc.ret = -EAGAIN;
	r[0].sc.end_ts = 400;		/* ends before it starts: a negative duration */
	r[0].sc.tid = 7;
	r[0].sc.tgid = 5;
	r[1] = rec(QT_REC_IRQ, 600, 1);
	r[1].irq.ret = -1;
	r[1].irq.end_ts = 601;
	r[2] = rec(QT_REC_SOFTIRQ, 700, 2);
	r[2].irq.ret = INT32_MIN;
	r[3] = rec(QT_REC_EXEC, 800, 2);
	r[3].task.tid = 9;		/* comm "" */
	r[4] = rec(QT_REC_RENAME, 900, 2);
	memcpy(r[4].task.comm, "0123456789abcdef", QT_COMM_LEN);	/* 16 chars, no NUL */
	r[5] = rec(QT_REC_IRQ_NAME, 1000, 2);
	memcpy(r[5].irqn.name, "0123456789abcdef0123456789abcdef", QT_IRQ_NAME_LEN);
	r[6] = rec(QT_REC_LOST, 10, 0);	/* closed before the window it reports */
	r[6].lost.first_ts = 20;
	r[6].lost.last_ts = 15;
	r[6].lost.count = 3;
	r[7] = rec(QT_REC_WAKEUP, 50, 0);
	r[7].wk.waking_ts = 90;		/* the waker's clock was ahead */
	r[7].wk.waker_tid = 1;
	r[7].wk.waker_tgid = UINT32_MAX;
	r[7].wk.wakee_tid = UINT32_MAX;
	r[7].wk.wakee_tgid = 0;
	roundtrip(r, N(r), 0);
	roundtrip(r, N(r), 1000);
}

/* The same-CPU bit is set exactly when the CPU repeats, and not on the first record. */
Test(codec, cpu_changes)
{
	static const uint16_t cpus[] = { 0, 0, 1, 1, 1, 0, UINT16_MAX, UINT16_MAX, 2, 0, 0 };
	union qt_record r[N(cpus)];
	struct codec_state st;
	uint8_t buf[N(cpus) * CODEC_MAX_REC];
	size_t at = 0;

	codec_reset(&st, 0);
	for (size_t i = 0; i < N(cpus); i++) {
		int n;

		r[i] = rec(QT_REC_STATS, i, cpus[i]);
		n = codec_encode(&st, &r[i], buf + at);
		cr_expect_eq(!!(buf[at] & 0x40), i > 0 && cpus[i] == cpus[i - 1], "record %zu", i);
		at += n;
	}
	roundtrip(r, N(r), 0);
}

/* Records arrive in arrival order, not time order: deltas of either sign and any size. */
Test(codec, out_of_order_timestamps)
{
	static const uint64_t ts[] = {
		1000, 999, 5000, 0, UINT64_MAX, 0, UINT64_MAX - 1, 1ull << 63, (1ull << 63) - 1,
		42, 42, 41, INT64_MAX, (uint64_t)INT64_MAX + 2,
	};
	union qt_record r[N(ts)];

	for (size_t i = 0; i < N(ts); i++) {
		r[i] = rec(i % 2 ? QT_REC_WAKEUP : QT_REC_SYSCALL, ts[i], i % 3);
		if (i % 2) {
			r[i].wk.waking_ts = ts[N(ts) - 1 - i];
		} else {
			r[i].sc.end_ts = ts[N(ts) - 1 - i];
			r[i].sc.ret = -(int64_t)i;
		}
	}
	roundtrip(r, N(r), 0);
	roundtrip(r, N(r), 1000);
	roundtrip(r, N(r), UINT64_MAX);
}

/* Which slot of the runtime cache a tid takes (codec.c's rt_slot). */
static unsigned int slot(uint32_t tid)
{
	return (tid ^ (tid >> 8)) & (CODEC_RT_SLOTS - 1);
}

static union qt_record sw(uint64_t ts, uint32_t prev, uint64_t runtime)
{
	union qt_record r = rec(QT_REC_SWITCH, ts, 0);

	r.sw.prev_tid = r.sw.prev_tgid = prev;
	r.sw.prev_runtime = runtime;
	return r;
}

/* Hits, misses, collisions (evictions) and the extreme tids of the runtime cache. */
Test(codec, runtime_cache)
{
	const uint32_t a = 5, b = 0x104, c = UINT32_MAX, d = 0;
	union qt_record r[] = {
		sw(1, a, 1000),		/* miss */
		sw(2, a, 1500),		/* hit, +500 */
		sw(3, b, 7),		/* miss: same slot as a, evicts it */
		sw(4, a, 2000),		/* miss again */
		sw(5, a, 1900),		/* hit, -100 (a kernel clock step) */
		sw(6, c, UINT64_MAX),	/* tid + 1 wraps to the empty mark: a "hit" on 0 */
		sw(7, c, 3),		/* hit; encoder and decoder agree, which is all that matters */
		sw(8, d, 0),
		sw(9, d, UINT64_MAX),	/* hit, delta -1 */
		sw(10, a, 0),		/* hit, large negative delta */
		sw(11, b, 8),		/* miss: a took the slot back */
	};
	static const bool want_hit[] = { 0, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0 };
	struct codec_state st;
	uint8_t out[CODEC_MAX_REC];

	cr_assert_eq(slot(a), slot(b));
	cr_assert_neq(slot(a), slot(c));
	cr_assert_neq(slot(a), slot(d));
	codec_reset(&st, 0);
	for (size_t i = 0; i < N(r); i++) {
		cr_assert_gt(codec_encode(&st, &r[i], out), 0);
		cr_expect_eq(!!(out[0] & 0x80), want_hit[i], "record %zu: delta bit %d, want %d", i,
			     !!(out[0] & 0x80), want_hit[i]);
	}
	roundtrip(r, N(r), 0);
}

/* Many threads: every slot collides several times; values must still round trip. */
Test(codec, runtime_cache_many_threads)
{
	enum { NTID = 1500, NREC = 60000 };
	unsigned long long seed = 0x5eed;
	uint64_t *rt = calloc(NTID, sizeof(*rt));
	union qt_record *r = malloc(NREC * sizeof(*r));

	for (size_t i = 0; i < NREC; i++) {
		uint32_t k = rg_rand(&seed) % NTID, tid = 1000 + k * 37;

		rt[k] += rg_rand(&seed) % 5000000;
		r[i] = sw(i * 10, tid, rt[k]);
		r[i].h.cpu = rg_rand(&seed) % 8;
		r[i].sw.next_tid = r[i].sw.next_tgid = rg_rand(&seed) % 70000;
	}
	roundtrip(r, NREC, 0);
	free(rt);
	free(r);
}

Test(codec, random_long_sequences)
{
	enum { NREC = 20000 };
	union qt_record *r = malloc(NREC * sizeof(*r));

	for (unsigned long long s0 = 1; s0 <= 20; s0++) {
		unsigned long long seed = s0 * 0x9e3779b97f4a7c15ull;

		for (size_t i = 0; i < NREC; i++)
			rg_record(&seed, &r[i], 0, true);
		roundtrip(r, NREC, rg_rand(&seed));
	}
	free(r);
}

/* A decoder state fresh from codec_reset decodes a block alone: blocks are independent. */
Test(codec, blocks_decode_independently)
{
	enum { NREC = 500 };
	union qt_record r[NREC];
	unsigned long long seed = 77;
	uint8_t *b1 = malloc(NREC * CODEC_MAX_REC), *b2 = malloc(NREC * CODEC_MAX_REC);
	size_t n1, n2;

	for (size_t i = 0; i < NREC; i++)
		rg_record(&seed, &r[i], QT_REC_SWITCH, true);
	/* the second half alone encodes the same whatever came before */
	n1 = rg_encode_block(r + NREC / 2, NREC / 2, 123, b1);
	rg_encode_block(r, NREC / 2, 99, b2);
	n2 = rg_encode_block(r + NREC / 2, NREC / 2, 123, b2);
	cr_assert_eq(n1, n2);
	cr_assert_eq(memcmp(b1, b2, n1), 0);
	free(b1);
	free(b2);
}

/*
 * The block walk gives the records in order and stops at the end; cut
 * inside a record, it gives those before, then -EBADMSG once, then the end.
 */
Test(codec, block_walk_gives_each_record_then_stops_at_a_cut)
{
	enum { NREC = 300 };
	union qt_record r[NREC], got;
	unsigned long long seed = 5;
	uint8_t *b = malloc(NREC * CODEC_MAX_REC);
	struct codec_block it;
	size_t len, cut;
	int k;

	cr_assert(b);
	for (size_t i = 0; i < NREC; i++)
		rg_record(&seed, &r[i], QT_REC_SWITCH, true);
	len = rg_encode_block(r, NREC, 4242, b);
	codec_block_begin(&it, b, len, 4242);
	for (size_t i = 0; i < NREC; i++) {
		cr_assert_eq(codec_block_next(&it, &got), 1, "record %zu", i);
		cr_assert(rg_equal(&got, &r[i]), "record %zu differs", i);
	}
	cr_assert_eq(codec_block_next(&it, &got), 0);
	cr_assert_eq(it.done, NREC);
	/* a cut one byte into the last record */
	{
		struct codec_block whole;

		codec_block_begin(&whole, b, len, 4242);
		for (size_t i = 0; i + 1 < NREC; i++)
			codec_block_next(&whole, &got);
		cut = (size_t)(whole.p - b) + 1;
	}
	codec_block_begin(&it, b, cut, 4242);
	while ((k = codec_block_next(&it, &got)) > 0)
		;
	cr_assert_eq(k, -EBADMSG);
	cr_assert_eq(it.done, NREC - 1);
	cr_assert_eq(codec_block_next(&it, &got), 0, "the walk goes on after a record that does not decode");
	free(b);
}

/* ---- rejection of malformed input ---- */

static int decode1(const uint8_t *buf, size_t len)
{
	struct codec_state st;
	union qt_record r;

	codec_reset(&st, 0);
	return decode_exact(&st, buf, len, &r);
}

#define REJECT(...)                                                                        \
	do {                                                                               \
		const uint8_t b_[] = { __VA_ARGS__ };                                      \
		cr_expect_eq(decode1(b_, sizeof(b_)), -EBADMSG, "line %d: accepted", __LINE__); \
	} while (0)
#define ACCEPT(want, ...)                                                                  \
	do {                                                                               \
		const uint8_t b_[] = { __VA_ARGS__ };                                      \
		cr_expect_eq(decode1(b_, sizeof(b_)), (want), "line %d: %d", __LINE__,     \
			     decode1(b_, sizeof(b_)));                                     \
	} while (0)

Test(codec, rejects_empty_and_unknown_types)
{
	cr_expect_eq(decode1(NULL, 0), -EBADMSG);
	for (unsigned int tag = 0; tag < 256; tag++) {
		unsigned int type = tag & 0x1f;
		uint8_t b[64] = { (uint8_t)tag };

		if (type == QT_REC_NONE || type >= QT_REC_MAX)
			cr_expect_eq(decode1(b, sizeof(b)), -EBADMSG, "tag 0x%02x accepted", tag);
	}
	/* a stats record of zeros: the smallest valid record */
	ACCEPT(7, QT_REC_STATS, 0, 0, 0, 0, 0, 0);
}

/* Tag bit 7 (runtime delta) exists only for switches; bit 6 needs a previous CPU. */
Test(codec, rejects_flags_on_the_wrong_type)
{
	for (unsigned int type = 2; type < QT_REC_MAX; type++) {
		uint8_t b[64] = { (uint8_t)(type | 0x80) };

		cr_expect_eq(decode1(b, sizeof(b)), -EBADMSG, "type %u with the runtime-delta bit", type);
	}
	REJECT(QT_REC_STATS | 0x40, 0, 0, 0, 0, 0);	/* same CPU as no record */
	/* a runtime delta for a tid the cache does not hold */
	REJECT(QT_REC_SWITCH | 0x80, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0);
	ACCEPT(11, QT_REC_SWITCH, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0);
}

Test(codec, rejects_truncated_varints)
{
	REJECT(QT_REC_STATS, 0x80);			/* ts */
	REJECT(QT_REC_STATS, 0, 0xff, 0xff);		/* cpu */
	REJECT(QT_REC_STATS, 0, 0, 0, 0, 0, 0x80);	/* last field */
	REJECT(QT_REC_STATS | 0x20);			/* the flags byte */
	REJECT(QT_REC_SWITCH, 0, 0, 1, 0, 2, 0, 0, 120);	/* next_prio missing */
}

Test(codec, rejects_over_long_varints)
{
	/* 11 bytes */
	REJECT(QT_REC_STATS, 0, 0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00);
	/* 10 bytes whose last one carries bits beyond 64 */
	REJECT(QT_REC_STATS, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02);
	REJECT(QT_REC_STATS, 0, 0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f);
	/* zero padding: a value encoded in more bytes than it needs */
	REJECT(QT_REC_STATS, 0x80, 0x00, 0, 0, 0, 0, 0);
	REJECT(QT_REC_STATS, 0, 0, 0, 0, 0, 0x81, 0x80, 0x00);
	/* the longest legal varint: UINT64_MAX in 10 bytes */
	ACCEPT(16, QT_REC_STATS, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
}

Test(codec, rejects_strings_longer_than_the_field)
{
	uint8_t b[80] = { QT_REC_EXEC, 0, 0, 1, 0, 0, 0 };

	b[7] = QT_COMM_LEN + 1;
	memset(b + 8, 'a', QT_COMM_LEN + 1);
	cr_expect_eq(decode1(b, 8 + QT_COMM_LEN + 1), -EBADMSG);
	b[7] = QT_COMM_LEN;
	cr_expect_eq(decode1(b, 8 + QT_COMM_LEN), 8 + QT_COMM_LEN);
	b[7] = 255;
	cr_expect_eq(decode1(b, sizeof(b)), -EBADMSG);
	/* a string running past the end of the block */
	b[7] = 5;
	cr_expect_eq(decode1(b, 8 + 4), -EBADMSG);

	memset(b, 0, sizeof(b));
	b[0] = QT_REC_IRQ_NAME;
	b[3] = 9;			/* irq 9 */
	b[4] = QT_IRQ_NAME_LEN + 1;
	memset(b + 5, 'n', QT_IRQ_NAME_LEN + 1);
	cr_expect_eq(decode1(b, 5 + QT_IRQ_NAME_LEN + 1), -EBADMSG);
	b[4] = QT_IRQ_NAME_LEN;
	cr_expect_eq(decode1(b, 5 + QT_IRQ_NAME_LEN), 5 + QT_IRQ_NAME_LEN);
}

/* Values that do not fit their field are not silently truncated. */
Test(codec, rejects_out_of_range_values)
{
	/* cpu 65536 */
	REJECT(QT_REC_STATS, 0, 0x80, 0x80, 0x04, 0, 0, 0, 0);
	ACCEPT(9, QT_REC_STATS, 0, 0xff, 0xff, 0x03, 0, 0, 0, 0);
	/* switch prev_tid 2^32 */
	REJECT(QT_REC_SWITCH, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0, 0, 0, 0, 0);
	/* tgid = tid + zz^-1(3) = 0 - 2 < 0 */
	REJECT(QT_REC_SWITCH, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0);
	/* tgid = 0xffffffff + 1 */
	REJECT(QT_REC_SWITCH, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 2, 0, 0, 0, 0, 0, 0);
	ACCEPT(15, QT_REC_SWITCH, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0, 0, 0, 0);
	/* a raise's vector and irq are 16-bit */
	ACCEPT(9, QT_REC_SOFTIRQ_RAISE, 0, 0, 0, 0, 0xff, 0xff, 0x03, 0);
	REJECT(QT_REC_SOFTIRQ_RAISE, 0, 0, 0, 0, 0x80, 0x80, 0x04, 0);
	REJECT(QT_REC_SOFTIRQ_RAISE, 0, 0, 0, 0, 0, 0x80, 0x80, 0x04);
	/* wakeup target_cpu, waker_cpu, waker_irq are 16-bit */
	ACCEPT(14, QT_REC_WAKEUP, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0x03, 0, 0, 0, 0);
	REJECT(QT_REC_WAKEUP, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x80, 0x04, 0, 0, 0);
	REJECT(QT_REC_WAKEUP, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x80, 0x04, 0, 0);
	REJECT(QT_REC_WAKEUP, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x80, 0x04, 0);
	/* irq ret is 32-bit signed: zz(2^31) = 2^32 does not fit, zz(-2^31) does */
	REJECT(QT_REC_IRQ, 0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 0);
	ACCEPT(11, QT_REC_IRQ, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 0);
}

/* Every prefix of a valid record is rejected, and read within its bounds. */
Test(codec, every_prefix_of_every_type)
{
	unsigned long long seed = 4242;

	for (int round = 0; round < 40; round++) {
		for (unsigned int type = 1; type < QT_REC_MAX; type++) {
			union qt_record r, back;
			struct codec_state st;
			uint8_t buf[CODEC_MAX_REC];
			int n;

			rg_record(&seed, &r, type, true);
			codec_reset(&st, 0);
			n = codec_encode(&st, &r, buf);
			cr_assert_gt(n, 0);
			for (int len = 0; len < n; len++)
				cr_expect_eq(decode1(buf, len), -EBADMSG, "%s: prefix of %d/%d bytes accepted",
					     codec_type_name(type), len, n);
			codec_reset(&st, 0);
			cr_expect_eq(decode_exact(&st, buf, n, &back), n);
			cr_expect(rg_equal(&r, &back));
		}
	}
}

/* A block cut at any byte decodes exactly the whole records before the cut. */
Test(codec, block_cut_at_every_byte)
{
	enum { NREC = 300 };
	union qt_record r[NREC];
	unsigned long long seed = 99;
	uint8_t *buf = malloc(NREC * CODEC_MAX_REC);
	size_t ends[NREC], used = 0;
	struct codec_state st;

	codec_reset(&st, 7);
	for (size_t i = 0; i < NREC; i++) {
		rg_record(&seed, &r[i], 0, true);
		used += codec_encode(&st, &r[i], buf + used);
		ends[i] = used;
	}
	for (size_t cut = 0; cut <= used; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		const uint8_t *p = copy, *end = copy + cut;
		size_t k = 0;
		union qt_record back;
		int n;

		memcpy(copy, buf, cut);
		codec_reset(&st, 7);
		while (p < end && (n = codec_decode(&st, p, end, &back)) > 0) {
			cr_assert(rg_equal(&back, &r[k]), "cut %zu: record %zu differs", cut, k);
			p += n;
			k++;
		}
		/* whole records before the cut, then a rejection or the exact end */
		cr_assert(k == NREC || ends[k] > cut, "cut %zu: decoded %zu records", cut, k);
		cr_assert(k == 0 || ends[k - 1] <= cut);
		cr_assert_eq(p == end, k == NREC || (k > 0 ? ends[k - 1] : 0) == cut);
		free(copy);
	}
	free(buf);
}

/* Random bytes: every call either rejects or consumes a plausible amount. */
Test(codec, random_garbage_never_overreads)
{
	unsigned long long seed = 0xbadc0de;

	for (int it = 0; it < 100000; it++) {
		size_t len = rg_rand(&seed) % 80;
		uint8_t *b = malloc(len ? len : 1);
		struct codec_state st;
		const uint8_t *p = b;
		union qt_record r;
		int n;

		for (size_t i = 0; i < len; i++)
			b[i] = rg_rand(&seed) % 4 ? (uint8_t)rg_rand(&seed) : (uint8_t)(rg_rand(&seed) % 14);
		codec_reset(&st, rg_rand(&seed));
		while (p < b + len && (n = codec_decode(&st, p, b + len, &r)) > 0) {
			cr_assert_leq((size_t)n, (size_t)(b + len - p));
			cr_assert(r.h.type > 0 && r.h.type < QT_REC_MAX);
			p += n;
		}
		free(b);
	}
}
