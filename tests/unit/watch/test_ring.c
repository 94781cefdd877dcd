// SPDX-License-Identifier: MIT
/*
 * The ring of packed blocks (src/watch/ring.h): blocks come back as they
 * went in, by sequence number; the memory bound holds whatever is pushed
 * (counted with the allocator's own sizes); the oldest go first, by
 * budget or by age; a span of time maps to the blocks that cover it.
 */
#include <errno.h>
#include <malloc.h>

#include "testutil.h"
#include "watch/ring.h"

static struct tf_packed block(uint8_t *buf, size_t len, uint64_t base, uint32_t count, uint8_t fill)
{
	memset(buf, fill, len);
	return (struct tf_packed){ .type = TF_BLK_EVENTS, .len = len, .raw_len = len, .count = count,
				   .base_ts = base, .data = buf };
}

Test(ring, blocks_come_back_whole_and_in_order)
{
	struct ring *r = ring__new(1 << 20);
	struct ring_copy c = { 0 };
	struct ring_stats st;
	uint8_t buf[3000];

	for (int i = 0; i < 10; i++) {
		struct tf_packed b = block(buf, 100 + i * 200, 1000 * (i + 1), i + 1, 'a' + i);

		b.crc = 77 + i;
		cr_assert_eq(ring__push(r, &b), 0);
	}
	ring__stats(r, &st);
	cr_assert_eq(st.blocks, 10);
	cr_assert_eq(st.first_seq, 0);
	cr_assert_eq(st.next_seq, 10);
	cr_assert_eq(st.oldest_ts, 1000);
	cr_assert_eq(st.newest_ts, 10000);
	for (int i = 9; i >= 0; i--) {
		cr_assert_eq(ring__copy(r, i, &c), 1);
		cr_assert_eq(c.seq, (uint64_t)i);
		cr_assert_eq(c.pk.len, 100u + i * 200);
		cr_assert_eq(c.pk.count, (uint32_t)i + 1);
		cr_assert_eq(c.pk.crc, 77u + i);
		cr_assert_eq(c.pk.base_ts, 1000u * (i + 1));
		for (size_t k = 0; k < c.pk.len; k++)
			cr_assert_eq(c.pk.data[k], 'a' + i);
	}
	cr_assert_eq(ring__copy(r, 10, &c), 0, "not pushed yet");
	ring_copy_free(&c);
	ring__free(r);
}

/* The budget is on what the allocator gave, slot included: never above, whatever the sizes. */
Test(ring, the_memory_bound_holds)
{
	unsigned long long seed = 5;
	size_t budget = 256 << 10;
	struct ring *r = ring__new(budget);
	struct ring_stats st;
	uint8_t *buf = malloc(64 << 10);
	uint64_t pushed = 0;

	cr_assert(buf);
	for (int i = 0; i < 2000; i++) {
		size_t len = 1 + tu_rand(&seed) % (60 << 10);
		struct tf_packed b = block(buf, len, 10 * (uint64_t)i, 1, 0);
		size_t sum = 0;

		cr_assert_eq(ring__push(r, &b), 0);
		pushed++;
		ring__stats(r, &st);
		cr_assert_leq(st.bytes, budget, "after block %d: %zu bytes", i, st.bytes);
		cr_assert_eq(st.next_seq, pushed);
		cr_assert_eq(st.pushed_out, st.first_seq, "every block gone went for the budget");
		/* what the ring counts is what the blocks take */
		for (uint64_t s = st.first_seq; s < st.next_seq; s++) {
			struct ring_copy c = { 0 };

			if (s + 3 < st.next_seq)
				continue;	/* the newest few, cheaply */
			cr_assert_eq(ring__copy(r, s, &c), 1);
			sum += c.pk.len;
			ring_copy_free(&c);
		}
		cr_assert_gt(sum, 0);
	}
	cr_assert_gt(st.first_seq, 0, "the budget pushed blocks out");
	cr_assert_eq(ring__push(r, &(struct tf_packed){ .len = budget, .data = buf }), -E2BIG);
	free(buf);
	ring__free(r);
}

Test(ring, expire_drops_what_ends_before_and_keeps_the_newest)
{
	struct ring *r = ring__new(1 << 20);
	struct ring_stats st;
	uint8_t buf[64];

	for (int i = 0; i < 10; i++) {
		struct tf_packed b = block(buf, sizeof(buf), 100 * (uint64_t)i, 1, 0);

		ring__push(r, &b);
	}
	/* block 3 covers [300, 400): kept when keeping from 350 */
	ring__expire(r, 350);
	ring__stats(r, &st);
	cr_assert_eq(st.first_seq, 3);
	cr_assert_eq(st.oldest_ts, 300);
	ring__expire(r, 400);
	ring__stats(r, &st);
	cr_assert_eq(st.first_seq, 4, "block 3 ends where block 4 starts");
	ring__expire(r, UINT64_MAX);
	ring__stats(r, &st);
	cr_assert_eq(st.blocks, 1, "the newest stays: its end is not known");
	cr_assert_eq(st.first_seq, 9);
	cr_assert_eq(st.pushed_out, 0, "age is not the budget");
	ring__free(r);
}

Test(ring, span_and_sum)
{
	struct ring *r = ring__new(1 << 20);
	uint64_t first, last, bytes, records;
	uint8_t buf[100];

	cr_assert_not(ring__span(r, 0, 10, &first, &last), "empty");
	for (int i = 0; i < 10; i++) {
		struct tf_packed b = block(buf, 10 + i, 1000 + 100 * (uint64_t)i, 5, 0);

		ring__push(r, &b);
	}
	/* [1250, 1420]: from the block holding 1250 (2) to the first starting after 1420 (5) */
	cr_assert(ring__span(r, 1250, 1420, &first, &last));
	cr_assert_eq(first, 2);
	cr_assert_eq(last, 5);
	cr_assert(ring__span(r, 0, 10, &first, &last));
	cr_assert_eq(first, 0, "before the ring: its oldest block");
	cr_assert_eq(last, 0, "which already starts after the span");
	cr_assert(ring__span(r, 5000, 6000, &first, &last));
	cr_assert_eq(first, 9);
	cr_assert_eq(last, 9);
	ring__sum(r, 2, 5, &bytes, &records);
	cr_assert_eq(bytes, 12 + 13 + 14 + 15);
	cr_assert_eq(records, 20);
	ring__expire(r, 1350);
	ring__sum(r, 0, 5, &bytes, &records);
	cr_assert_eq(bytes, 13 + 14 + 15, "only the blocks held");
	ring__free(r);
}
