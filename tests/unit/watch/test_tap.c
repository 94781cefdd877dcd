// SPDX-License-Identifier: MIT
/*
 * The tap (src/watch/tap.h): of a batch of raw records it takes exactly the
 * watched threads' switches and calls, every lifecycle and loss record;
 * what overflows its array comes back as one loss record over the span
 * dropped; the arrays are exchanged, never copied.
 */
#include "file/codec.h"
#include "recgen.h"
#include "testutil.h"
#include "watch/tap.h"

/* Raw records one after the other, as the writer's batch holds them. */
static size_t raw(uint8_t *buf, const union qt_record *v, size_t n)
{
	size_t used = 0;

	for (size_t i = 0; i < n; i++) {
		size_t size = codec_rec_size(v[i].h.type);

		memcpy(buf + used, &v[i], size);
		used += size;
	}
	return used;
}

static bool wanted_by(const union qt_record *x, const uint32_t *tids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (x->h.type == QT_REC_SWITCH && (x->sw.prev_tid == tids[i] || x->sw.next_tid == tids[i]))
			return true;
		if (x->h.type == QT_REC_SYSCALL && x->sc.tid == tids[i])
			return true;
	}
	return x->h.type >= QT_REC_FORK && x->h.type <= QT_REC_EXIT ? true : x->h.type == QT_REC_LOST;
}

/* Random batches against a reference filter: the same records, in the same order, byte for byte. */
Test(tap, takes_exactly_the_watched_records)
{
	unsigned long long seed = 11;
	uint32_t tids[] = { 5, 9, 4000000000u };
	struct tap *t = tap__new(1 << 16);
	struct tap_batch got = { 0 };
	union qt_record *v = calloc(4000, sizeof(*v));
	uint8_t *buf = malloc(4000 * sizeof(*v));
	struct tap_stats st;
	size_t want = 0, seen = 0, events = 0;

	cr_assert(t && v && buf);
	cr_assert_eq(tap__set_tids(t, tids, 3), 0);
	for (int round = 0; round < 5; round++) {
		size_t n = 800;

		for (size_t i = 0; i < n; i++) {
			rg_record(&seed, &v[i], 0, false);
			/* tids from a small set, so that some are watched */
			if (v[i].h.type == QT_REC_SWITCH) {
				v[i].sw.prev_tid = tu_rand(&seed) % 12;
				v[i].sw.next_tid = tu_rand(&seed) % 12;
			} else if (v[i].h.type == QT_REC_SYSCALL) {
				v[i].sc.tid = tu_rand(&seed) % 3 ? tu_rand(&seed) % 12 : 4000000000u;
			}
			events += v[i].h.type != QT_REC_STATS;
		}
		tap__records(t, buf, raw(buf, v, n));
		tap__take(t, &got);
		for (size_t i = 0, k = 0; i < n; i++) {
			if (!wanted_by(&v[i], tids, 3))
				continue;
			cr_assert_lt(k, got.n);
			cr_assert_eq(memcmp(&got.v[k], &v[i], codec_rec_size(v[i].h.type)), 0, "record %zu", i);
			k++;
			want++;
		}
		seen += got.n;
		got.n = 0;
	}
	cr_assert_eq(seen, want);
	cr_assert_gt(want, 100);
	tap__stats(t, &st);
	cr_assert_eq(st.events, events);
	cr_assert_eq(st.dropped, 0);
	/* no tid: only lifecycle and losses */
	cr_assert_eq(tap__set_tids(t, NULL, 0), 0);
	tap__records(t, buf, raw(buf, v, 800));
	tap__take(t, &got);
	for (size_t i = 0; i < got.n; i++)
		cr_assert(got.v[i].h.type >= QT_REC_FORK && got.v[i].h.type != QT_REC_IRQ_NAME &&
			  got.v[i].h.type != QT_REC_STATS);
	free(got.v);
	free(v);
	free(buf);
	tap__free(t);
}

Test(tap, overflow_is_one_loss_record_over_the_span)
{
	struct tap *t = tap__new(16);
	struct tap_batch got = { 0 };
	union qt_record v[40];
	uint8_t buf[sizeof(v)];
	struct tap_stats st;
	uint32_t tid = 7;

	tap__set_tids(t, &tid, 1);
	for (int i = 0; i < 40; i++) {
		memset(&v[i], 0, sizeof(v[i]));
		v[i].sw.h.type = QT_REC_SWITCH;
		v[i].sw.h.ts = 1000 + i;
		v[i].sw.next_tid = tid;
	}
	tap__records(t, buf, raw(buf, v, 40));
	tap__take(t, &got);
	cr_assert_eq(got.n, 16, "15 records and the loss record");
	for (int i = 0; i < 15; i++)
		cr_assert_eq(got.v[i].h.ts, 1000u + i);
	cr_assert_eq(got.v[15].h.type, QT_REC_LOST);
	cr_assert_eq(got.v[15].lost.first_ts, 1015);
	cr_assert_eq(got.v[15].lost.last_ts, 1039);
	cr_assert_eq(got.v[15].lost.count, 25);
	cr_assert_gt(got.v[15].h.ts, 1039, "the loss record closes its window");
	tap__stats(t, &st);
	cr_assert_eq(st.dropped, 25);
	cr_assert_eq(st.newest_ts, 1039);
	/* the next take starts afresh */
	got.n = 0;
	tap__take(t, &got);
	cr_assert_eq(got.n, 0);
	free(got.v);
	tap__free(t);
}
