// SPDX-License-Identifier: MIT
/*
 * watch's sink behind the recorder's writer (src/watch/sink.h, writer.h's
 * writer_sink): the writer writes no file; what it would have written is
 * kept: META and the start thread table as they were given, every record
 * pushed comes back from the ring's packed blocks in order and byte for
 * byte, the watched threads' records reach the tap, END is there once the
 * writer finished.
 */
#include "file/codec.h"
#include "lib/log.h"
#include "recgen.h"
#include "testutil.h"
#include "watch/ring.h"
#include "watch/sink.h"
#include "watch/tap.h"

Test(sink, the_writer_writes_to_memory)
{
	unsigned long long seed = 21;
	struct ring *ring = ring__new(64u << 20);
	struct tap *tap = tap__new(1 << 16);
	struct sink *s = sink__new(ring, tap, 1);
	struct writer_opts wo = { .sink = sink__writer(s), .block_bytes = 8192 };
	struct tf_thread th[2] = { { .tid = 1, .tgid = 1, .comm = "init" }, { .tid = 5, .tgid = 5, .comm = "src" } };
	struct tf_kv meta = { 0 }, end = { 0 }, got_meta = { 0 }, got_end = { 0 };
	struct tf_thread *got_th;
	size_t n_th, n = 3000, k = 0, tapped = 0;
	uint64_t ts0;
	union qt_record *v = calloc(n, sizeof(*v));
	struct tf_packer *pk;
	struct ring_stats st;
	struct tap_batch b = { 0 };
	struct writer *w;
	uint32_t tid = 5;

	log_level = LOG_QUIET;
	tf_kv_set(&meta, TF_META_CPUS, "4");
	tf_kv_set(&meta, TF_META_CMDLINE, "qostrace watch -o d -a");
	tf_kv_set(&end, TF_END_REASON, "interrupted");
	tap__set_tids(tap, &tid, 1);
	cr_assert_not(sink__started(s, &got_meta, &got_th, &n_th, &ts0));
	cr_assert_eq(writer__open(&wo, &meta, th, 2, 777, &w), 0);
	cr_assert(sink__started(s, &got_meta, &got_th, &n_th, &ts0));
	cr_assert_str_eq(tf_kv_get(&got_meta, TF_META_CMDLINE), "qostrace watch -o d -a");
	cr_assert_eq(n_th, 2);
	cr_assert_str_eq(got_th[1].comm, "src");
	cr_assert_eq(ts0, 777);
	for (size_t i = 0; i < n; i++) {
		rg_record(&seed, &v[i], 1 + tu_rand(&seed) % (QT_REC_STATS - 1), false);
		if (v[i].h.type == QT_REC_SWITCH && i % 3 == 0)
			v[i].sw.next_tid = 5;
		cr_assert_eq(writer__push(w, &v[i], codec_rec_size(v[i].h.type)), 0);
		tapped += (v[i].h.type == QT_REC_SWITCH && (v[i].sw.prev_tid == 5 || v[i].sw.next_tid == 5)) ||
			  (v[i].h.type == QT_REC_SYSCALL && v[i].sc.tid == 5) ||
			  (v[i].h.type >= QT_REC_FORK && v[i].h.type <= QT_REC_EXIT) || v[i].h.type == QT_REC_LOST;
	}
	cr_assert_not(sink__ended(s, &got_end));
	cr_assert_eq(writer__finish(w, th, 2, 999, &end), 0);
	cr_assert(sink__ended(s, &got_end));
	cr_assert_str_eq(tf_kv_get(&got_end, TF_END_REASON), "interrupted");
	cr_assert_eq(sink__refused(s), 0);
	/* the ring's blocks, unpacked and decoded: the records pushed */
	ring__stats(ring, &st);
	cr_assert_gt(st.blocks, 3, "blocks of 8 KiB: %zu", st.blocks);
	cr_assert_eq(tf_packer__new(0, &pk), 0);
	for (uint64_t seq = st.first_seq; seq < st.next_seq; seq++) {
		struct ring_copy c = { 0 };
		struct codec_state cs;
		const uint8_t *p, *e;
		union qt_record r;
		int used;

		cr_assert_eq(ring__copy(ring, seq, &c), 1);
		cr_assert(c.pk.flags & TF_BLK_COMPRESSED, "packed as the file would be");
		cr_assert_eq(tf_packer__unpack(pk, &c.pk, &p), 0);
		e = p + c.pk.raw_len;
		codec_reset(&cs, c.pk.base_ts);
		for (; p < e; p += used, k++) {
			used = codec_decode(&cs, p, e, &r);
			cr_assert_gt(used, 0);
			cr_assert_eq(memcmp(&r, &v[k], codec_rec_size(r.h.type)), 0, "record %zu", k);
		}
		ring_copy_free(&c);
	}
	cr_assert_eq(k, n);
	tap__take(tap, &b);
	cr_assert_eq(b.n, tapped);
	free(b.v);
	free(got_th);
	tf_packer__free(pk);
	tf_kv_free(&meta);
	tf_kv_free(&end);
	tf_kv_free(&got_meta);
	tf_kv_free(&got_end);
	free(v);
	sink__free(s);
	tap__free(tap);
	ring__free(ring);
}

/* A ring too small for a block: the block is refused and counted, the recording goes on. */
Test(sink, a_block_the_ring_refuses_is_counted)
{
	struct ring *ring = ring__new(1024);
	struct tap *tap = tap__new(64);
	struct sink *s = sink__new(ring, tap, 0);
	const struct writer_sink *ws = sink__writer(s);
	static uint8_t payload[8192];

	cr_assert_eq(ws->append(ws->ctx, TF_BLK_EVENTS, payload, sizeof(payload), 1, 5), 0);
	cr_assert_eq(sink__refused(s), 1);
	cr_assert_eq(ws->append(ws->ctx, TF_BLK_EVENTS, payload, 100, 1, 6), 0);
	cr_assert_eq(sink__refused(s), 1);
	sink__free(s);
	tap__free(tap);
	ring__free(ring);
}
