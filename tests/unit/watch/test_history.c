// SPDX-License-Identifier: MIT
/*
 * The watched threads' history (src/watch/history.h): whatever the order
 * and the repetitions records come in, each thread's come out sorted and
 * once, against a reference (sort and unique of the same records); a
 * switch between two kept threads is in both; losses are kept apart;
 * trimming and the bound forget the oldest.
 */
#include "file/codec.h"
#include "testutil.h"
#include "watch/history.h"

static union qt_record sw(uint64_t ts, int cpu, uint32_t prev, uint32_t next)
{
	union qt_record r;

	memset(&r, 0, sizeof(r));
	r.sw.h.type = QT_REC_SWITCH;
	r.sw.h.ts = ts;
	r.sw.h.cpu = cpu;
	r.sw.prev_tid = prev;
	r.sw.next_tid = next;
	return r;
}

static union qt_record sc(uint64_t ts, uint32_t tid, uint32_t nr)
{
	union qt_record r;

	memset(&r, 0, sizeof(r));
	r.sc.h.type = QT_REC_SYSCALL;
	r.sc.h.ts = ts;
	r.sc.end_ts = ts + 5;
	r.sc.tid = tid;
	r.sc.nr = nr;
	return r;
}

Test(history, sorted_once_whatever_the_arrival)
{
	unsigned long long seed = 3;
	struct history *h = history__new(1 << 20);
	union qt_record *all = calloc(6000, sizeof(*all)), *ref = calloc(6000, sizeof(*ref));
	size_t n = 0, nref = 0, got;
	const union qt_record *v;

	cr_assert(h && all && ref);
	history__track(h, 10);
	history__track(h, 20);
	for (int i = 0; i < 3000; i++) {
		uint64_t ts = 1000 + tu_rand(&seed) % 100000;
		uint32_t a = tu_rand(&seed) % 4 ? 10 : 30, b = tu_rand(&seed) % 2 ? 20 : 40;

		all[n++] = tu_rand(&seed) % 3 ? sw(ts, tu_rand(&seed) % 4, a, b) : sc(ts, a, 7);
	}
	/* a third come twice, as the ring's blocks and the tap overlap around a warm-up */
	for (int i = 0; i < 1000; i++)
		all[n++] = all[tu_rand(&seed) % 3000];
	/* in chunks, each shuffled */
	for (size_t i = 0; i < n; i++) {
		size_t j = i + tu_rand(&seed) % (n - i > 50 ? 50 : n - i);
		union qt_record t = all[i];

		all[i] = all[j];
		all[j] = t;
	}
	for (size_t i = 0; i < n; i += 97)
		cr_assert_eq(history__add(h, all + i, n - i < 97 ? n - i : 97), 0);
	/* the reference: thread 10's records, sorted, unique */
	for (size_t i = 0; i < n; i++)
		if ((all[i].h.type == QT_REC_SWITCH && (all[i].sw.prev_tid == 10 || all[i].sw.next_tid == 10)) ||
		    (all[i].h.type == QT_REC_SYSCALL && all[i].sc.tid == 10))
			ref[nref++] = all[i];
	qsort(ref, nref, sizeof(*ref), history_cmp_records);
	{
		size_t w = 1;

		for (size_t i = 1; i < nref; i++)
			if (history_cmp_records(&ref[i], &ref[w - 1]))
				ref[w++] = ref[i];
		nref = w;
	}
	v = history__of(h, 10, &got);
	cr_assert_eq(got, nref);
	cr_assert_eq(memcmp(v, ref, nref * sizeof(*ref)), 0);
	/* a switch from 10 to 20 is in both */
	v = history__of(h, 20, &got);
	for (size_t i = 0; i < got; i++)
		cr_assert(v[i].sw.prev_tid == 20 || v[i].sw.next_tid == 20);
	cr_assert_null(history__of(h, 30, &got), "not kept");
	free(all);
	free(ref);
	history__free(h);
}

Test(history, losses_trim_and_bound)
{
	struct history *h = history__new(1024);
	union qt_record r[3000];
	const union qt_record *v;
	size_t n;

	history__track(h, 1);
	for (int i = 0; i < 3000; i++)
		r[i] = sw(100 + (uint64_t)i, 0, 1, 2);
	memset(&r[5], 0, sizeof(r[5]));
	r[5].lost.h.type = QT_REC_LOST;
	r[5].lost.h.ts = 50;
	r[5].lost.first_ts = 10;
	r[5].lost.last_ts = 49;
	history__add(h, r, 10);
	v = history__losses(h, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(v[0].lost.first_ts, 10);
	v = history__of(h, 1, &n);
	cr_assert_eq(n, 9);
	history__trim(h, 104);
	v = history__of(h, 1, &n);
	cr_assert_eq(n, 5, "104 .. 109 less the loss");
	cr_assert_eq(v[0].h.ts, 104);
	history__losses(h, &n);
	cr_assert_eq(n, 0, "its window closed before 104");
	/* the bound: one kept thread gets half of 1024 (its share beside the losses) */
	history__add(h, r + 10, 2990);
	v = history__of(h, 1, &n);
	cr_assert_eq(n, 512);
	cr_assert_eq(v[n - 1].h.ts, 100 + 2999, "the newest are kept");
	cr_assert_leq(history__size(h), 1024);
	history__untrack(h, 1);
	cr_assert_null(history__of(h, 1, &n));
	history__free(h);
}
