// SPDX-License-Identifier: MIT
/*
 * The thread table: who a tid is at a given time. Snapshot threads,
 * fork/exec/rename/exit, names over time, tid reuse (incarnations resolved
 * by time), a fork seen for a thread already in the start snapshot, unknown
 * tids guessed and named from the end snapshot, tid 0 never a thread, and a
 * large random history against a brute-force model.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "testutil.h"
#include "file/threadtab.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct threadtab *new_tt(void)
{
	struct threadtab *tt = threadtab__new();

	cr_assert(tt);
	return tt;
}

static const struct tt_thread *get(struct threadtab *tt, uint32_t i)
{
	const struct tt_thread *th = threadtab__get(tt, i);

	cr_assert_not_null(th, "thread %u", i);
	return th;
}

static const struct tf_thread snap[] = {
	{ .tid = 1, .tgid = 1, .comm = "init" },
	{ .tid = 2, .tgid = 2, .flags = TF_THREAD_KTHREAD, .comm = "kthreadd" },
	{ .tid = 100, .tgid = 100, .ppid = 1, .comm = "player" },
	{ .tid = 101, .tgid = 100, .ppid = 1, .comm = "audio" },
	{ .tid = 0, .tgid = 0, .comm = "swapper/0" },
	{ .tid = 100, .tgid = 999, .comm = "duplicate" },
};

Test(threadtab, snapshot)
{
	struct threadtab *tt = new_tt();
	uint32_t i;

	cr_assert_eq(threadtab__snapshot(tt, snap, N(snap), 50, false), 0);
	cr_expect_eq(threadtab__count(tt), 4, "tid 0 and the duplicate are not threads");
	i = threadtab__resolve(tt, 101, 12345, 0);
	cr_assert_neq(i, TT_NONE);
	cr_expect_eq(get(tt, i)->tid, 101);
	cr_expect_eq(get(tt, i)->pid, 100);
	cr_expect_str_eq(get(tt, i)->comm, "audio");
	cr_expect_eq(get(tt, i)->flags, 0);
	cr_expect_eq(get(tt, i)->birth, 0);
	cr_expect_eq(get(tt, i)->death, UINT64_MAX);
	cr_expect_eq(get(tt, i)->names, TT_NONE);
	cr_expect_eq(get(tt, i)->older, TT_NONE);
	/* a time before the snapshot resolves to the same thread */
	cr_expect_eq(threadtab__resolve(tt, 101, 0, 0), i);
	i = threadtab__resolve(tt, 2, 10, 0);
	cr_expect_eq(get(tt, i)->flags, TT_KTHREAD);
	i = threadtab__resolve(tt, 100, 10, 0);
	cr_expect_str_eq(get(tt, i)->comm, "player");
	cr_expect_eq(get(tt, i)->pid, 100);
	cr_expect_eq(threadtab__count(tt), 4, "resolving known tids adds nothing");
	cr_expect_null(threadtab__get(tt, 4));
	cr_expect_null(threadtab__get(tt, TT_NONE));
	cr_expect_str_eq(threadtab__comm_at(tt, 4, 0), "?");
	threadtab__free(tt);
	threadtab__free(NULL);
}

Test(threadtab, tid_zero_is_never_a_thread)
{
	struct threadtab *tt = new_tt();

	cr_expect_eq(threadtab__resolve(tt, 0, 100, 0), TT_NONE);
	cr_expect_eq(threadtab__fork(tt, 10, 0, 0, 1, "swapper"), 0);
	cr_expect_eq(threadtab__rename(tt, 20, 0, 0, "x"), 0);
	cr_expect_eq(threadtab__exit(tt, 30, 0, 0, "x"), 0);
	threadtab__name_from(tt, snap, N(snap));
	cr_expect_eq(threadtab__count(tt), 0);
	cr_expect_eq(threadtab__resolve(tt, 0, 100, 0), TT_NONE);
	threadtab__free(tt);
}

Test(threadtab, fork_exec_rename_exit)
{
	struct threadtab *tt = new_tt();
	uint32_t i, j;

	threadtab__snapshot(tt, snap, N(snap), 50, false);
	cr_assert_eq(threadtab__fork(tt, 1000, 200, 200, 1, "player"), 0);	/* a new process */
	cr_assert_eq(threadtab__exec(tt, 1100, 200, 200, "decoder"), 0);
	cr_assert_eq(threadtab__rename(tt, 1200, 200, 200, "decoder:vid"), 0);	/* prctl */
	cr_assert_eq(threadtab__fork(tt, 1300, 201, 200, 200, "decoder:vid"), 0);	/* a thread of it */
	cr_assert_eq(threadtab__exit(tt, 1900, 201, 200, "decoder:vid"), 0);
	cr_assert_eq(threadtab__exit(tt, 2000, 200, 200, "decoder:vid"), 0);

	i = threadtab__resolve(tt, 200, 1500, 0);
	cr_assert_neq(i, TT_NONE);
	cr_expect_eq(get(tt, i)->flags, TT_BORN | TT_EXECED | TT_DIED);
	cr_expect_eq(get(tt, i)->birth, 1000);
	cr_expect_eq(get(tt, i)->death, 2000);
	cr_expect_eq(get(tt, i)->pid, 200);
	cr_expect_str_eq(get(tt, i)->comm, "decoder:vid", "the last name");
	cr_expect_str_eq(threadtab__comm_at(tt, i, 0), "player");
	cr_expect_str_eq(threadtab__comm_at(tt, i, 1000), "player");
	cr_expect_str_eq(threadtab__comm_at(tt, i, 1099), "player");
	cr_expect_str_eq(threadtab__comm_at(tt, i, 1100), "decoder");
	cr_expect_str_eq(threadtab__comm_at(tt, i, 1199), "decoder");
	cr_expect_str_eq(threadtab__comm_at(tt, i, 1200), "decoder:vid");
	cr_expect_str_eq(threadtab__comm_at(tt, i, UINT64_MAX), "decoder:vid");
	j = threadtab__resolve(tt, 201, 1500, 0);
	cr_expect_eq(get(tt, j)->pid, 200);
	cr_expect_str_eq(threadtab__comm_at(tt, j, 1500), "decoder:vid");
	cr_expect_eq(get(tt, j)->names, TT_NONE, "one name, no history");
	/* after its death, a tid still means the thread that had it */
	cr_expect_eq(threadtab__resolve(tt, 200, 5000, 0), i);
	cr_expect_eq(threadtab__count(tt), 6);
	/* renaming to the same name records nothing */
	cr_assert_eq(threadtab__rename(tt, 1950, 201, 200, "decoder:vid"), 0);
	cr_expect_eq(get(tt, j)->names, TT_NONE);
	threadtab__free(tt);
}

/*
 * Kernel threads started during a recording (a kworker for new work) are
 * forked by kthreadd, pid 2: they are kernel threads like those of the
 * snapshot. A user thread's is not, whoever its parent.
 */
Test(threadtab, a_child_of_kthreadd_is_a_kernel_thread)
{
	struct threadtab *tt = new_tt();

	threadtab__snapshot(tt, snap, N(snap), 50, false);
	cr_assert_eq(threadtab__fork(tt, 1000, 300, 300, 2, "kworker/1:2"), 0);
	cr_assert_eq(threadtab__fork(tt, 1100, 301, 301, 300, "modprobe"), 0);
	cr_assert_eq(threadtab__fork(tt, 1200, 302, 100, 100, "audio"), 0);
	cr_expect_eq(get(tt, threadtab__resolve(tt, 300, 1500, 0))->flags, TT_BORN | TT_KTHREAD);
	cr_expect_eq(get(tt, threadtab__resolve(tt, 301, 1500, 0))->flags, TT_BORN, "a kworker's child execs");
	cr_expect_eq(get(tt, threadtab__resolve(tt, 302, 1500, 0))->flags, TT_BORN);
	threadtab__free(tt);
}

/* A tid reused after an exit: two threads, each found by time. */
Test(threadtab, tid_reuse)
{
	struct threadtab *tt = new_tt();
	uint32_t a, b, c;

	threadtab__snapshot(tt, snap, N(snap), 50, false);
	cr_assert_eq(threadtab__exit(tt, 400, 101, 100, "audio"), 0);
	cr_assert_eq(threadtab__fork(tt, 600, 101, 300, 1, "other"), 0);
	cr_assert_eq(threadtab__rename(tt, 700, 101, 300, "other2"), 0);
	cr_assert_eq(threadtab__exit(tt, 800, 101, 300, "other2"), 0);
	cr_assert_eq(threadtab__fork(tt, 900, 101, 101, 1, "third"), 0);
	a = threadtab__resolve(tt, 101, 300, 0);
	b = threadtab__resolve(tt, 101, 650, 0);
	c = threadtab__resolve(tt, 101, 950, 0);
	cr_assert(a != b && b != c && a != c);
	cr_expect_eq(get(tt, a)->pid, 100);
	cr_expect_eq(get(tt, a)->death, 400);
	cr_expect_eq(get(tt, b)->pid, 300);
	cr_expect_eq(get(tt, b)->birth, 600);
	cr_expect_eq(get(tt, b)->death, 800);
	cr_expect_eq(get(tt, c)->pid, 101);
	cr_expect_eq(get(tt, c)->death, UINT64_MAX);
	cr_expect_eq(get(tt, c)->older, b);
	cr_expect_eq(get(tt, b)->older, a);
	cr_expect_eq(get(tt, a)->older, TT_NONE);
	/* the boundaries: born at 600 means 600 is the new one's */
	cr_expect_eq(threadtab__resolve(tt, 101, 599, 0), a);
	cr_expect_eq(threadtab__resolve(tt, 101, 600, 0), b);
	cr_expect_eq(threadtab__resolve(tt, 101, 899, 0), b);
	cr_expect_eq(threadtab__resolve(tt, 101, 900, 0), c);
	/* names stay with their incarnation */
	cr_expect_str_eq(threadtab__comm_at(tt, a, 650), "audio");
	cr_expect_str_eq(threadtab__comm_at(tt, b, 650), "other");
	cr_expect_str_eq(threadtab__comm_at(tt, b, 750), "other2");
	cr_expect_str_eq(threadtab__comm_at(tt, c, 750), "third");
	cr_expect_eq(threadtab__count(tt), 6);
	threadtab__free(tt);
}

/* Forked between attaching and reading /proc: in the snapshot and forked; one thread. */
Test(threadtab, fork_of_a_snapshot_thread)
{
	struct threadtab *tt = new_tt();
	uint32_t i;

	threadtab__snapshot(tt, snap, N(snap), 50, false);
	cr_assert_eq(threadtab__fork(tt, 40, 101, 100, 1, "audio"), 0);
	cr_expect_eq(threadtab__count(tt), 4);
	i = threadtab__resolve(tt, 101, 45, 0);
	cr_expect_eq(get(tt, i)->birth, 40);
	cr_expect_eq(get(tt, i)->flags, TT_BORN);
	cr_expect_str_eq(get(tt, i)->comm, "audio");
	cr_expect_eq(threadtab__resolve(tt, 101, 10, 0), i, "before its birth: clock skew, the same");
	threadtab__free(tt);
}

/* An exit that was lost: the next fork of the tid ends the old thread there. */
Test(threadtab, fork_after_a_lost_exit)
{
	struct threadtab *tt = new_tt();
	uint32_t a, b;

	cr_assert_eq(threadtab__fork(tt, 100, 500, 500, 1, "first"), 0);
	cr_assert_eq(threadtab__fork(tt, 900, 500, 600, 1, "second"), 0);
	a = threadtab__resolve(tt, 500, 500, 0);
	b = threadtab__resolve(tt, 500, 950, 0);
	cr_assert_neq(a, b);
	cr_expect_eq(get(tt, a)->death, 900);
	cr_expect_eq(get(tt, a)->flags & TT_DIED, 0, "its exit was not seen");
	cr_expect_eq(get(tt, b)->pid, 600);
	threadtab__free(tt);
}

/* Seen only in records: guessed, with the pid given, named from the end snapshot. */
Test(threadtab, unknown_tids_guessed)
{
	static const struct tf_thread end[] = {
		{ .tid = 700, .tgid = 700, .comm = "late" },
		{ .tid = 701, .tgid = 700, .flags = TF_THREAD_KTHREAD, .comm = "kworker/1:2" },
		{ .tid = 100, .tgid = 100, .comm = "renamed?" },
		{ .tid = 0, .tgid = 0, .comm = "idle" },
	};
	struct threadtab *tt = new_tt();
	uint32_t g, h, k, p;

	threadtab__snapshot(tt, snap, N(snap), 50, false);
	g = threadtab__resolve(tt, 700, 5000, 0);
	h = threadtab__resolve(tt, 701, 5000, 700);
	k = threadtab__resolve(tt, 702, 5000, 700);
	cr_assert(g != TT_NONE && h != TT_NONE && k != TT_NONE);
	cr_expect_eq(get(tt, g)->flags, TT_GUESSED);
	cr_expect_eq(get(tt, g)->pid, 700, "no hint: its own process");
	cr_expect_eq(get(tt, h)->pid, 700);
	cr_expect_str_eq(get(tt, g)->comm, "");
	cr_expect_eq(threadtab__resolve(tt, 700, 1, 0), g, "found again, whatever the time");
	cr_assert_eq(threadtab__snapshot(tt, end, N(end), 9000, true), 0);
	cr_expect_str_eq(get(tt, g)->comm, "late");
	cr_expect_str_eq(get(tt, h)->comm, "kworker/1:2");
	cr_expect_eq(get(tt, h)->flags, TT_GUESSED | TT_KTHREAD);
	cr_expect_str_eq(get(tt, k)->comm, "", "not in the end snapshot either");
	p = threadtab__resolve(tt, 100, 100, 0);
	cr_expect_str_eq(get(tt, p)->comm, "player", "named threads keep their name");
	cr_expect_eq(threadtab__count(tt), 7);
	threadtab__free(tt);
}

/* A guessed thread later forked: the fork starts a new one. */
Test(threadtab, guessed_then_forked)
{
	struct threadtab *tt = new_tt();
	uint32_t g, f;

	g = threadtab__resolve(tt, 800, 50, 0);
	cr_assert_eq(threadtab__fork(tt, 100, 800, 800, 1, "child"), 0);
	f = threadtab__resolve(tt, 800, 150, 0);
	cr_expect_neq(f, g);
	cr_expect_eq(get(tt, g)->death, 100);
	cr_expect_eq(get(tt, f)->flags, TT_BORN);
	threadtab__free(tt);
}

/* A rename of a nameless (guessed) thread names it without a history. */
Test(threadtab, rename_of_a_nameless_thread)
{
	struct threadtab *tt = new_tt();
	uint32_t g;

	g = threadtab__resolve(tt, 900, 50, 0);
	cr_assert_eq(threadtab__rename(tt, 100, 900, 900, "named"), 0);
	cr_expect_str_eq(get(tt, g)->comm, "named");
	cr_expect_eq(get(tt, g)->names, TT_NONE);
	cr_expect_str_eq(threadtab__comm_at(tt, g, 0), "named");
	cr_assert_eq(threadtab__rename(tt, 200, 900, 900, "again"), 0);
	cr_expect_str_eq(threadtab__comm_at(tt, g, 150), "named");
	cr_expect_str_eq(threadtab__comm_at(tt, g, 250), "again");
	/* an exit names a nameless thread too */
	g = threadtab__resolve(tt, 901, 50, 0);
	cr_assert_eq(threadtab__exit(tt, 300, 901, 901, "bye"), 0);
	cr_expect_str_eq(get(tt, g)->comm, "bye");
	cr_expect_eq(get(tt, g)->flags, TT_GUESSED | TT_DIED);
	threadtab__free(tt);
}

/* Names that fill all 16 bytes (no NUL) are read within their field. */
Test(threadtab, names_filling_the_field)
{
	struct tf_thread *t = malloc(sizeof(*t));	/* exactly one: ASan sees an overread */
	char *full = malloc(16);
	struct threadtab *tt = new_tt();
	uint32_t i;

	memset(t, 0, sizeof(*t));
	t->tid = t->tgid = 5;
	memcpy(t->comm, "0123456789abcdef", 16);
	memcpy(full, "fedcba9876543210", 16);
	cr_assert_eq(threadtab__snapshot(tt, t, 1, 0, false), 0);
	i = threadtab__resolve(tt, 5, 0, 0);
	cr_expect_str_eq(get(tt, i)->comm, "0123456789abcde");
	cr_assert_eq(threadtab__rename(tt, 10, 5, 5, full), 0);
	cr_expect_str_eq(threadtab__comm_at(tt, i, 10), "fedcba987654321");
	cr_assert_eq(threadtab__fork(tt, 20, 6, 6, 1, full), 0);
	cr_expect_str_eq(get(tt, threadtab__resolve(tt, 6, 20, 0))->comm, "fedcba987654321");
	i = threadtab__resolve(tt, 7, 20, 0);
	cr_assert_eq(threadtab__exit(tt, 30, 7, 7, full), 0);
	cr_expect_str_eq(get(tt, i)->comm, "fedcba987654321");
	i = threadtab__resolve(tt, 8, 20, 0);
	t->tid = 8;
	threadtab__name_from(tt, t, 1);
	cr_expect_str_eq(get(tt, i)->comm, "0123456789abcde");
	threadtab__free(tt);
	free(full);
	free(t);
}

/*
 * Random lifecycles of many tids, with heavy reuse and tids that collide in
 * the hash, against a brute-force list of incarnations.
 */
struct model {
	uint32_t tid, pid;
	uint64_t birth, death;
};

Test(threadtab, random_history_against_a_model)
{
	enum { NTID = 3000, STEPS = 60000 };
	unsigned long long seed = 2024;
	struct model *m = calloc(STEPS + NTID, sizeof(*m));
	int32_t *alive = malloc(NTID * sizeof(*alive));	/* model index of the live one, or -1 */
	struct threadtab *tt = new_tt();
	size_t nm = 0;

	for (uint32_t k = 0; k < NTID; k++)
		alive[k] = -1;
	for (uint64_t ts = 1; ts <= STEPS; ts++) {
		uint32_t k = tu_rand(&seed) % NTID;
		uint32_t tid = (k + 1) * 1024;	/* all in one bucket of a naive hash */

		if (alive[k] < 0) {
			m[nm] = (struct model){ tid, tid + 1, ts * 10, UINT64_MAX };
			alive[k] = nm++;
			cr_assert_eq(threadtab__fork(tt, ts * 10, tid, tid + 1, 1, "t"), 0);
		} else {
			m[alive[k]].death = ts * 10;
			alive[k] = -1;
			cr_assert_eq(threadtab__exit(tt, ts * 10, tid, tid + 1, "t"), 0);
		}
	}
	cr_assert_eq(threadtab__count(tt), nm);
	for (size_t i = 0; i < nm; i++) {
		/* every moment of its life, and its birth, resolves to this incarnation */
		uint64_t probes[] = { m[i].birth, m[i].birth + 5,
				      m[i].death == UINT64_MAX ? UINT64_MAX : m[i].death };
		for (size_t p = 0; p < N(probes); p++) {
			uint32_t x = threadtab__resolve(tt, m[i].tid, probes[p], 0);
			const struct tt_thread *th = get(tt, x);

			cr_assert_eq(th->tid, m[i].tid);
			cr_assert_eq(th->birth, m[i].birth, "tid %u at %llu: born %llu, want %llu", m[i].tid,
				     (unsigned long long)probes[p], (unsigned long long)th->birth,
				     (unsigned long long)m[i].birth);
			cr_assert_eq(th->death, m[i].death);
		}
	}
	cr_assert_eq(threadtab__count(tt), nm, "resolving known tids creates nothing");
	threadtab__free(tt);
	free(alive);
	free(m);
}
