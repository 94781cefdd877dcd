// SPDX-License-Identifier: MIT
/*
 * The thread table at any moment (src/watch/threads.h), against a brute
 * force: the table as of t is the snapshot with every lifecycle record
 * before t applied in time order, whatever order the records came in and
 * however far the snapshot was advanced meanwhile.
 */
#include "testutil.h"
#include "watch/threads.h"

static struct qt_task task(uint8_t type, uint64_t ts, uint32_t tid, uint32_t tgid, uint32_t ptgid, const char *comm)
{
	struct qt_task r = { .h = { .type = type, .ts = ts }, .tid = tid, .tgid = tgid, .parent_tid = ptgid,
			     .parent_tgid = ptgid };

	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	return r;
}

/* The brute force: a tid -> entry map as a plain array. */
struct bf {
	struct tf_thread v[512];
	bool alive[512];
};

static void bf_apply(struct bf *b, const struct qt_task *r)
{
	struct tf_thread *e = &b->v[r->tid];

	if (r->h.type == QT_REC_EXIT) {
		b->alive[r->tid] = false;
		return;
	}
	if (!b->alive[r->tid])
		memset(e, 0, sizeof(*e));
	b->alive[r->tid] = true;
	e->tid = r->tid;
	e->tgid = r->tgid;
	if (r->h.type == QT_REC_FORK) {
		e->ppid = r->tgid == r->parent_tgid ? 0 : r->parent_tgid;
		e->flags = r->parent_tgid == 2 ? TF_THREAD_KTHREAD : 0;
	}
	snprintf(e->comm, sizeof(e->comm), "%s", r->comm);
}

Test(threads, as_of_any_time_like_the_brute_force)
{
	unsigned long long seed = 17;
	struct threads *t = threads__new();
	struct tf_thread snap[50];
	struct qt_task recs[400];
	static struct bf base;
	static const uint8_t types[] = { QT_REC_FORK, QT_REC_EXEC, QT_REC_RENAME, QT_REC_EXIT };

	for (uint32_t i = 0; i < 50; i++) {
		snap[i] = (struct tf_thread){ .tid = 1 + i * 7, .tgid = 1 + i * 7, .ppid = 1 };
		snprintf(snap[i].comm, sizeof(snap[i].comm), "t%u", snap[i].tid);
		base.v[snap[i].tid] = snap[i];
		base.alive[snap[i].tid] = true;
	}
	cr_assert_eq(threads__set(t, snap, 50, 1000), 0);
	for (int i = 0; i < 400; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", i);
		recs[i] = task(types[tu_rand(&seed) % 4], 1001 + (uint64_t)i * 10, 1 + tu_rand(&seed) % 500,
			       1 + tu_rand(&seed) % 500, tu_rand(&seed) % 8 ? 1 : 2, name);
	}
	/* added out of order, in chunks */
	for (int i = 0; i < 400; i += 20)
		for (int k = 19; k >= 0; k--)
			cr_assert_eq(threads__add(t, &recs[i + k]), 0);
	for (int round = 0; round < 8; round++) {
		uint64_t adv = 1000 + round * 400, at = adv + tu_rand(&seed) % 1500;
		static struct bf ref;
		struct tf_thread *got;
		size_t n, alive = 0;

		/* the snapshot moves on as the ring forgets, never past what is asked */
		threads__advance(t, adv);
		ref = base;
		for (int i = 0; i < 400 && recs[i].h.ts < at; i++)
			bf_apply(&ref, &recs[i]);
		cr_assert_eq(threads__at(t, at, &got, &n), 0);
		for (uint32_t tid = 0; tid < 512; tid++)
			alive += ref.alive[tid];
		cr_assert_eq(n, alive, "at %llu", (unsigned long long)at);
		for (size_t i = 0; i < n; i++) {
			cr_assert(ref.alive[got[i].tid]);
			cr_assert_eq(memcmp(&got[i], &ref.v[got[i].tid], sizeof(got[i])), 0, "tid %u at %llu", got[i].tid,
				     (unsigned long long)at);
			if (i)
				cr_assert_lt(got[i - 1].tid, got[i].tid, "sorted by tid");
		}
		free(got);
	}
	threads__free(t);
}

Test(threads, find_and_advance)
{
	struct threads *t = threads__new();
	struct tf_thread snap = { .tid = 10, .tgid = 10, .comm = "old" }, e;
	struct qt_task r1 = task(QT_REC_RENAME, 200, 10, 10, 0, "new"), r2 = task(QT_REC_FORK, 300, 11, 10, 10, "kid"),
		       r3 = task(QT_REC_EXIT, 400, 10, 10, 0, "new");

	threads__set(t, &snap, 1, 100);
	threads__add(t, &r1);
	threads__add(t, &r2);
	threads__add(t, &r3);
	cr_assert(threads__find(t, 10, &e));
	cr_assert_str_eq(e.comm, "new", "its last name, exited or not");
	cr_assert(threads__find(t, 11, &e));
	cr_assert_eq(e.tgid, 10);
	cr_assert_not(threads__find(t, 12, &e));
	threads__advance(t, 350);
	cr_assert_eq(threads__pending(t), 1, "the exit, after 350");
	threads__advance(t, 300);
	cr_assert_eq(threads__pending(t), 1, "time only moves forward");
	threads__free(t);
}
