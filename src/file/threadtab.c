// SPDX-License-Identifier: MIT
/* The thread table; see src/file/threadtab.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "threadtab.h"

struct name_change {
	uint64_t ts;
	uint32_t next;
	char comm[16];
};

struct threadtab {
	struct tt_thread *t;
	size_t n, cap;
	struct name_change *names;
	size_t nnames, names_cap;
	/* open addressing: tid -> newest thread with that tid */
	uint32_t *keys, *vals;
	size_t hcap, hused;
};

struct threadtab *threadtab__new(void)
{
	return calloc(1, sizeof(struct threadtab));
}

void threadtab__free(struct threadtab *tt)
{
	if (!tt)
		return;
	free(tt->t);
	free(tt->names);
	free(tt->keys);
	free(tt->vals);
	free(tt);
}

/*
 * Names come from fixed 16-byte fields (qt_task.comm, tf_thread.comm) that a
 * damaged or hostile file may fill without a NUL: read at most 15 bytes.
 */
static void set_comm(char dst[16], const char *src)
{
	size_t n = strnlen(src, 15);

	memcpy(dst, src, n);
	dst[n] = 0;
}

static inline size_t slot_of(uint32_t tid, size_t cap)
{
	return (tid * 2654435761u) & (cap - 1);
}

static int hash_grow(struct threadtab *tt)
{
	size_t cap = tt->hcap ? tt->hcap * 2 : 1024;
	uint32_t *k = malloc(cap * sizeof(*k)), *v = malloc(cap * sizeof(*v));

	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	memset(k, 0, cap * sizeof(*k));	/* key 0 = empty: tid 0 is never stored */
	for (size_t i = 0; i < tt->hcap; i++) {
		size_t s;

		if (!tt->keys[i])
			continue;
		for (s = slot_of(tt->keys[i], cap); k[s]; s = (s + 1) & (cap - 1))
			;
		k[s] = tt->keys[i];
		v[s] = tt->vals[i];
	}
	free(tt->keys);
	free(tt->vals);
	tt->keys = k;
	tt->vals = v;
	tt->hcap = cap;
	return 0;
}

static uint32_t newest(const struct threadtab *tt, uint32_t tid)
{
	if (!tt->hcap)
		return TT_NONE;
	for (size_t s = slot_of(tid, tt->hcap); tt->keys[s]; s = (s + 1) & (tt->hcap - 1))
		if (tt->keys[s] == tid)
			return tt->vals[s];
	return TT_NONE;
}

static int set_newest(struct threadtab *tt, uint32_t tid, uint32_t idx)
{
	size_t s;

	if ((tt->hused + 1) * 2 > tt->hcap && hash_grow(tt))
		return -ENOMEM;
	for (s = slot_of(tid, tt->hcap); tt->keys[s]; s = (s + 1) & (tt->hcap - 1)) {
		if (tt->keys[s] == tid) {
			tt->vals[s] = idx;
			return 0;
		}
	}
	tt->keys[s] = tid;
	tt->vals[s] = idx;
	tt->hused++;
	return 0;
}

static uint32_t add_thread(struct threadtab *tt, uint32_t tid, uint32_t pid, uint64_t birth,
			   const char *comm, uint32_t flags)
{
	struct tt_thread *th;
	uint32_t idx;

	if (tt->n == tt->cap) {
		size_t cap = tt->cap ? tt->cap * 2 : 1024;
		struct tt_thread *nt = realloc(tt->t, cap * sizeof(*nt));

		if (!nt)
			return TT_NONE;
		tt->t = nt;
		tt->cap = cap;
	}
	idx = tt->n;
	th = &tt->t[idx];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->pid = pid ? pid : tid;
	th->birth = birth;
	th->death = UINT64_MAX;
	th->flags = flags;
	th->names = TT_NONE;
	th->older = newest(tt, tid);
	if (comm)
		set_comm(th->comm, comm);
	if (set_newest(tt, tid, idx))
		return TT_NONE;
	tt->n++;
	return idx;
}

/* The thread with this tid alive at ts: the newest one born at or before ts. */
static uint32_t find(const struct threadtab *tt, uint32_t tid, uint64_t ts)
{
	uint32_t i = newest(tt, tid), last = i;

	while (i != TT_NONE && tt->t[i].birth > ts) {
		last = i;
		i = tt->t[i].older;
	}
	return i != TT_NONE ? i : last;	/* before every birth: the oldest (clock skew) */
}

int threadtab__snapshot(struct threadtab *tt, const struct tf_thread *t, size_t n, uint64_t ts,
			bool at_end)
{
	if (at_end) {
		threadtab__name_from(tt, t, n);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (!t[i].tid || newest(tt, t[i].tid) != TT_NONE)
			continue;
		if (add_thread(tt, t[i].tid, t[i].tgid, 0, t[i].comm,
			       t[i].flags & TF_THREAD_KTHREAD ? TT_KTHREAD : 0) == TT_NONE)
			return -ENOMEM;
	}
	return 0;
}

static int add_name(struct threadtab *tt, uint32_t idx, uint64_t ts, const char *comm)
{
	struct tt_thread *th = &tt->t[idx];
	struct name_change *nc;
	uint32_t *link;
	char name[16];

	set_comm(name, comm);
	if (!strcmp(th->comm, name))
		return 0;
	if (tt->nnames + 2 > tt->names_cap) {
		size_t cap = tt->names_cap ? tt->names_cap * 2 : 256;
		struct name_change *nn = realloc(tt->names, cap * sizeof(*nn));

		if (!nn)
			return -ENOMEM;
		tt->names = nn;
		tt->names_cap = cap;
	}
	/* The history starts with the name it had before the first change. */
	if (th->names == TT_NONE) {
		nc = &tt->names[tt->nnames];
		nc->ts = 0;
		nc->next = TT_NONE;
		memcpy(nc->comm, th->comm, sizeof(nc->comm));
		th->names = tt->nnames++;
	}
	for (link = &th->names; *link != TT_NONE; link = &tt->names[*link].next)
		;
	nc = &tt->names[tt->nnames];
	nc->ts = ts;
	nc->next = TT_NONE;
	memcpy(nc->comm, name, sizeof(nc->comm));
	*link = tt->nnames++;
	memcpy(th->comm, nc->comm, sizeof(th->comm));
	return 0;
}

#define KTHREADD_PID 2

int threadtab__fork(struct threadtab *tt, uint64_t ts, uint32_t tid, uint32_t pid, uint32_t parent_pid,
		    const char *comm)
{
	uint32_t kind = parent_pid == KTHREADD_PID ? TT_KTHREAD : 0;
	uint32_t i;

	if (!tid)
		return 0;
	i = newest(tt, tid);
	if (i != TT_NONE && tt->t[i].death == UINT64_MAX) {
		if (tt->t[i].birth == 0 && !(tt->t[i].flags & TT_GUESSED)) {
			/* Born between attaching and the /proc snapshot: one thread. */
			tt->t[i].birth = ts;
			tt->t[i].flags |= TT_BORN | kind;
			return 0;
		}
		/* Its exit was not seen (lost): it ended before this fork. */
		tt->t[i].death = ts;
	}
	return add_thread(tt, tid, pid, ts, comm, TT_BORN | kind) == TT_NONE ? -ENOMEM : 0;
}

int threadtab__rename(struct threadtab *tt, uint64_t ts, uint32_t tid, uint32_t pid,
		      const char *comm)
{
	uint32_t i;

	if (!tid)
		return 0;
	i = threadtab__resolve(tt, tid, ts, pid);
	if (i == TT_NONE)
		return -ENOMEM;
	if (!tt->t[i].comm[0]) {
		set_comm(tt->t[i].comm, comm);
		return 0;
	}
	return add_name(tt, i, ts, comm);
}

int threadtab__exec(struct threadtab *tt, uint64_t ts, uint32_t tid, uint32_t pid, const char *comm)
{
	int err = threadtab__rename(tt, ts, tid, pid, comm);
	uint32_t i;

	if (err || !tid)
		return err;
	i = threadtab__resolve(tt, tid, ts, pid);
	if (i != TT_NONE)
		tt->t[i].flags |= TT_EXECED;
	return 0;
}

int threadtab__exit(struct threadtab *tt, uint64_t ts, uint32_t tid, uint32_t pid,
		    const char *comm)
{
	uint32_t i;

	if (!tid)
		return 0;
	i = threadtab__resolve(tt, tid, ts, pid);
	if (i == TT_NONE)
		return -ENOMEM;
	tt->t[i].death = ts;
	tt->t[i].flags |= TT_DIED;
	if (!tt->t[i].comm[0])
		set_comm(tt->t[i].comm, comm);
	return 0;
}

uint32_t threadtab__resolve(struct threadtab *tt, uint32_t tid, uint64_t ts, uint32_t pid_hint)
{
	uint32_t i;

	if (!tid)
		return TT_NONE;
	i = find(tt, tid, ts);
	if (i != TT_NONE)
		return i;
	return add_thread(tt, tid, pid_hint, 0, NULL, TT_GUESSED);
}

void threadtab__name_from(struct threadtab *tt, const struct tf_thread *t, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		uint32_t i = newest(tt, t[k].tid);

		if (i == TT_NONE || tt->t[i].comm[0])
			continue;
		set_comm(tt->t[i].comm, t[k].comm);
		if (t[k].flags & TF_THREAD_KTHREAD)
			tt->t[i].flags |= TT_KTHREAD;
	}
}

size_t threadtab__count(const struct threadtab *tt)
{
	return tt->n;
}

const struct tt_thread *threadtab__get(const struct threadtab *tt, uint32_t idx)
{
	return idx < tt->n ? &tt->t[idx] : NULL;
}

const char *threadtab__comm_at(const struct threadtab *tt, uint32_t idx, uint64_t ts)
{
	const struct tt_thread *th = threadtab__get(tt, idx);
	const char *name;

	if (!th)
		return "?";
	if (th->names == TT_NONE)
		return th->comm;
	name = tt->names[th->names].comm;
	for (uint32_t k = th->names; k != TT_NONE; k = tt->names[k].next)
		if (tt->names[k].ts <= ts)
			name = tt->names[k].comm;
	return name;
}
