// SPDX-License-Identifier: MIT
/* Building the timeline from a loaded trace; see src/timeline/timeline.h. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/prefault.h"
#include "lib/sort.h"
#include "timeline.h"

/* Task state bits (include/linux/sched.h), stable since Linux 4.14. */
#define TASK_INTERRUPTIBLE 0x0001
#define TASK_UNINTERRUPTIBLE 0x0002
#define EXIT_DEAD 0x0010
#define EXIT_ZOMBIE 0x0020
#define TASK_DEAD 0x0080
#define TASK_NOLOAD 0x0400
#define TASK_RTLOCK_WAIT 0x1000

uint8_t timeline__end_state(uint32_t s, bool preempt)
{
	if (preempt || s == 0)
		return QT_END_PREEMPTED;	/* still runnable (preempted or yielded) */
	if (s & (TASK_DEAD | EXIT_DEAD | EXIT_ZOMBIE))
		return QT_END_EXITED;
	if (s & TASK_INTERRUPTIBLE)
		return QT_END_SLEEP;
	if (s & TASK_UNINTERRUPTIBLE)
		return (s & TASK_NOLOAD) ? QT_END_SLEEP : QT_END_BLOCKED;
	if (s & TASK_RTLOCK_WAIT)
		return QT_END_BLOCKED;
	return QT_END_OTHER;
}

const char *timeline__end_state_name(uint8_t e)
{
	static const char *const names[] = {
		[QT_END_PREEMPTED] = "preempted", [QT_END_SLEEP] = "sleep",
		[QT_END_BLOCKED] = "blocked", [QT_END_OTHER] = "other",
		[QT_END_EXITED] = "exited", [QT_END_TRUNCATED] = "running",
		[QT_END_UNKNOWN] = "unknown",
	};

	return e < sizeof(names) / sizeof(names[0]) && names[e] ? names[e] : "?";
}

/* ---- a small set of u32 (target processes) ---- */

struct u32set {
	uint32_t *k;
	size_t cap, n;
};

static bool set_has(const struct u32set *s, uint32_t v)
{
	if (!s->cap || !v)
		return false;
	for (size_t i = (v * 2654435761u) & (s->cap - 1); s->k[i]; i = (i + 1) & (s->cap - 1))
		if (s->k[i] == v)
			return true;
	return false;
}

static int set_add(struct u32set *s, uint32_t v)
{
	size_t i;

	if (!v || set_has(s, v))
		return 0;
	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct u32set ns = { calloc(cap, sizeof(uint32_t)), cap, 0 };

		if (!ns.k)
			return -ENOMEM;
		for (size_t j = 0; j < s->cap; j++)
			if (s->k[j])
				set_add(&ns, s->k[j]);
		free(s->k);
		*s = ns;
	}
	for (i = (v * 2654435761u) & (s->cap - 1); s->k[i]; i = (i + 1) & (s->cap - 1))
		;
	s->k[i] = v;
	s->n++;
	return 0;
}

/* ---- growable arrays ---- */

/* How far ahead of the runs made their memory is faulted in (prefault.h). */
#define RUNS_AHEAD (16u << 20)

#define VEC_PUSH(arr, n, cap, item)                                                       \
	({                                                                                 \
		int __e = 0;                                                               \
		if ((n) == (cap)) {                                                        \
			size_t __c = (cap) ? (cap) * 2 : 4096;                             \
			void *__p = realloc((arr), __c * sizeof(*(arr)));                  \
			if (__p) {                                                         \
				(arr) = __p;                                               \
				(cap) = __c;                                               \
			} else {                                                           \
				__e = -ENOMEM;                                             \
			}                                                                  \
		}                                                                          \
		if (!__e)                                                                  \
			(arr)[(n)++] = (item);                                             \
		__e;                                                                       \
	})

struct builder {
	struct timeline *tl;
	const struct trace *t;
	struct trace *consume;		/* t, when its records may be freed as they are used */
	struct u32set targets;
	bool all;
	uint64_t recorder;
	size_t runs_cap, gaps_cap;
	/* the kernel's CPU time of each thread at its last switch-out */
	uint64_t *last_rt, *cpu_ns;
	uint8_t *has_rt;
	size_t rt_cap;
	/* per-CPU lost windows, for the run check */
	struct tl_gap **cpu_gaps;
	size_t *cpu_ngaps, *cpu_cursor;
};

static uint64_t key_task(const void *a, size_t i) { return ((const struct qt_task *)a)[i].h.ts; }
static uint64_t key_sw(const void *a, size_t i) { return ((const struct qt_switch *)a)[i].h.ts; }
static uint64_t key_sc(const void *a, size_t i) { return ((const struct qt_syscall *)a)[i].h.ts; }
static uint64_t key_wk(const void *a, size_t i) { return ((const struct qt_wakeup *)a)[i].h.ts; }
static uint64_t key_irq(const void *a, size_t i) { return ((const struct qt_irq *)a)[i].h.ts; }
static uint64_t key_lost(const void *a, size_t i) { return ((const struct qt_lost *)a)[i].first_ts; }
static uint64_t key_gap(const void *a, size_t i) { return ((const struct tl_gap *)a)[i].start; }

/* Thread table from the start snapshot and the lifecycle records, in time order. */
static int build_threadtab(struct builder *b)
{
	const struct trace *t = b->t;
	uint32_t *order;
	const char *v;
	int err;

	b->tl->tt = threadtab__new();
	if (!b->tl->tt)
		return -ENOMEM;
	err = threadtab__snapshot(b->tl->tt, t->threads_start, t->nthreads_start,
				  t->threads_start_ts, false);
	if (err)
		return err;
	v = tf_kv_get(&t->meta, TF_META_MODE);
	b->all = v && !strcmp(v, "all");
	for (v = tf_kv_get(&t->meta, TF_META_TARGETS); v && *v;) {
		err = set_add(&b->targets, strtoul(v, NULL, 10));
		if (err)
			return err;
		v = strchr(v, ',');
		v = v ? v + 1 : NULL;
	}
	tf_kv_get_u64(&t->meta, TF_META_RECORDER, &b->recorder);

	err = sort_order(t->ntask, key_task, t->task, &order);
	if (err)
		return err;
	for (size_t k = 0; k < t->ntask && !err; k++) {
		const struct qt_task *r = &t->task[order[k]];

		switch (r->h.type) {
		case QT_REC_FORK:
			/* A process started by a target is a target (the kernel side agrees). */
			if (r->tgid != r->parent_tgid && set_has(&b->targets, r->parent_tgid))
				err = set_add(&b->targets, r->tgid);
			if (!err)
				err = threadtab__fork(b->tl->tt, r->h.ts, r->tid, r->tgid, r->parent_tgid, r->comm);
			break;
		case QT_REC_EXEC:
			err = threadtab__exec(b->tl->tt, r->h.ts, r->tid, r->tgid, r->comm);
			break;
		case QT_REC_RENAME:
			err = threadtab__rename(b->tl->tt, r->h.ts, r->tid, r->tgid, r->comm);
			break;
		case QT_REC_EXIT:
			err = threadtab__exit(b->tl->tt, r->h.ts, r->tid, r->tgid, r->comm);
			break;
		}
	}
	free(order);
	return err;
}

static int add_gap(struct builder *b, uint16_t cpu, uint64_t start, uint64_t end, uint64_t count,
		   uint8_t kind, uint32_t hidden)
{
	struct tl_gap g = { .start = start, .end = end, .count = count, .cpu = cpu, .kind = kind,
			    .hidden = hidden };

	return VEC_PUSH(b->tl->gaps, b->tl->ngaps, b->gaps_cap, g);
}

/* Lost windows, and an index of them per CPU for the run check. */
static int build_lost_gaps(struct builder *b)
{
	const struct trace *t = b->t;
	int ncpu = b->tl->ncpus;
	uint32_t *order;
	int err;

	err = sort_order(t->nlost, key_lost, t->lost, &order);
	if (err)
		return err;
	for (size_t k = 0; k < t->nlost && !err; k++) {
		const struct qt_lost *l = &t->lost[order[k]];

		err = add_gap(b, l->h.cpu, l->first_ts, l->last_ts + 1, l->count, TL_GAP_LOST, TL_NONE);
	}
	free(order);
	if (err)
		return err;
	b->cpu_gaps = calloc(ncpu, sizeof(*b->cpu_gaps));
	b->cpu_ngaps = calloc(ncpu, sizeof(*b->cpu_ngaps));
	b->cpu_cursor = calloc(ncpu, sizeof(*b->cpu_cursor));
	if (!b->cpu_gaps || !b->cpu_ngaps || !b->cpu_cursor)
		return -ENOMEM;
	for (size_t i = 0; i < b->tl->ngaps; i++)
		if (b->tl->gaps[i].cpu < ncpu)
			b->cpu_ngaps[b->tl->gaps[i].cpu]++;
	for (int c = 0; c < ncpu; c++) {
		b->cpu_gaps[c] = malloc((b->cpu_ngaps[c] + 1) * sizeof(struct tl_gap));
		if (!b->cpu_gaps[c])
			return -ENOMEM;
		b->cpu_ngaps[c] = 0;
	}
	for (size_t i = 0; i < b->tl->ngaps; i++) {
		const struct tl_gap *g = &b->tl->gaps[i];

		if (g->cpu < ncpu)
			b->cpu_gaps[g->cpu][b->cpu_ngaps[g->cpu]++] = *g;
	}
	return 0;
}

/* Did this CPU lose records during [start, end]? Runs come in time order per CPU. */
static bool lost_during(struct builder *b, uint16_t cpu, uint64_t start, uint64_t end)
{
	const struct tl_gap *g = b->cpu_gaps[cpu];
	size_t n = b->cpu_ngaps[cpu], *i = &b->cpu_cursor[cpu];

	while (*i < n && g[*i].end <= start)
		(*i)++;
	return *i < n && g[*i].start <= end;
}

static int grow_rt(struct builder *b, size_t need)
{
	size_t cap = b->rt_cap ? b->rt_cap : 1024;
	uint64_t *l, *c;
	uint8_t *h;

	while (cap < need)
		cap *= 2;
	l = realloc(b->last_rt, cap * sizeof(*l));
	if (l)
		b->last_rt = l;
	c = realloc(b->cpu_ns, cap * sizeof(*c));
	if (c)
		b->cpu_ns = c;
	h = realloc(b->has_rt, cap);
	if (h)
		b->has_rt = h;
	if (!l || !c || !h)
		return -ENOMEM;
	memset(b->cpu_ns + b->rt_cap, 0, (cap - b->rt_cap) * sizeof(*c));
	memset(b->has_rt + b->rt_cap, 0, cap - b->rt_cap);
	b->rt_cap = cap;
	return 0;
}

/*
 * The CPU time the kernel charged a thread for the run ending with a
 * switch-out that reported runtime (its se.sum_exec_runtime), or 0 if
 * unknown (first switch-out of a thread that existed before the start).
 */
static uint64_t charged(struct builder *b, uint32_t th, uint64_t runtime)
{
	uint64_t c = 0;

	if (b->has_rt[th] && runtime >= b->last_rt[th])
		c = runtime - b->last_rt[th];
	else if (!b->has_rt[th] && (threadtab__get(b->tl->tt, th)->flags & TT_BORN))
		c = runtime;	/* a new thread's runtime starts at 0 */
	b->last_rt[th] = runtime;
	b->has_rt[th] = 1;
	return c;
}

static int emit_run(struct builder *b, uint32_t tid, uint32_t tgid, uint16_t cpu, uint64_t start,
		    uint64_t end, uint8_t state, uint8_t flags, uint64_t runtime)
{
	struct tl_run r = { .start = start, .end = end, .cpu = cpu, .end_state = state, .flags = flags };
	uint64_t c = 0;

	if (!tid)
		return 0;	/* the idle task: the absence of work */
	r.thread = threadtab__resolve(b->tl->tt, tid, start, tgid);
	if (r.thread == TT_NONE)
		return -ENOMEM;
	if (r.thread >= b->rt_cap && grow_rt(b, r.thread + 1))
		return -ENOMEM;
	if (runtime) {
		/* Cumulative: exact even across lost records. */
		c = charged(b, r.thread, runtime);
		b->cpu_ns[r.thread] += c ? c : end - start;
	}
	if (lost_during(b, cpu, start, end)) {
		b->tl->runs_dropped++;
		return 0;
	}
	/* The kernel knows how long a run whose switch-in went unreported was. */
	if ((flags & TL_RUN_START_UNSURE) && c && c < end - start)
		r.start = end - c;
	return VEC_PUSH(b->tl->runs, b->tl->nruns, b->runs_cap, r);
}

/*
 * Walks the switches in time order. On each CPU, a switch ends the run of
 * prev, which began at the previous switch on that CPU if that one switched
 * prev in. Runs come out ordered by their end, hence in start order per
 * thread, since one thread's runs never overlap.
 */
static int build_runs(struct builder *b)
{
	const struct trace *t = b->t;
	struct timeline *tl = b->tl;
	struct cur {
		uint64_t start;
		uint32_t tid, tgid;
		bool valid;
	} *cur;
	struct prefault *pf;
	uint32_t *order;
	uint64_t max_ts = 0;
	int err;

	err = sort_order(t->nsw, key_sw, t->sw, &order);
	if (err)
		return err;
	cur = calloc(tl->ncpus, sizeof(*cur));
	/*
	 * A switch ends at most one run, and each CPU's last run ends at the
	 * stop: sized once, the runs are never copied to grow, and the pages
	 * of the runs not made are never touched.
	 */
	b->runs_cap = t->nsw + (size_t)tl->ncpus;
	tl->runs = malloc((b->runs_cap ? b->runs_cap : 1) * sizeof(*tl->runs));
	if (!cur || !tl->runs) {
		free(cur);
		free(order);
		return -ENOMEM;
	}
	/* Not the whole cap ahead: switches to and from idle make no run. */
	pf = prefault__start(tl->runs, b->runs_cap * sizeof(*tl->runs), RUNS_AHEAD);
	for (size_t i = 0; i < t->nsw; i++) {
		if (t->sw[i].h.ts < max_ts)
			tl->out_of_order++;	/* arrived after a later record */
		else
			max_ts = t->sw[i].h.ts;
	}
	for (size_t k = 0; k < t->nsw && !err; k++) {
		const struct qt_switch *s = &t->sw[order[k]];
		struct cur *c = &cur[s->h.cpu];
		uint8_t state = timeline__end_state(s->prev_state, s->h.flags & QT_SWITCH_PREEMPT);

		if (!c->valid) {
			/* prev was running when the recording started */
			if (s->h.ts > tl->start)
				err = emit_run(b, s->prev_tid, s->prev_tgid, s->h.cpu, tl->start, s->h.ts,
					       state, TL_RUN_START_CUT, s->prev_runtime);
		} else if (c->tid == s->prev_tid) {
			err = emit_run(b, s->prev_tid, s->prev_tgid, s->h.cpu, c->start, s->h.ts, state, 0,
				       s->prev_runtime);
		} else if (!lost_during(b, s->h.cpu, c->start, s->h.ts)) {
			/* A switch the kernel did not report (see timeline.h). */
			tl->broken_chains++;
			err = add_gap(b, s->h.cpu, c->start, s->h.ts, 0, TL_GAP_BROKEN, c->tid);
			if (!err && s->prev_tid) {
				size_t before = tl->nruns;

				err = emit_run(b, s->prev_tid, s->prev_tgid, s->h.cpu, c->start, s->h.ts,
					       state, TL_RUN_START_UNSURE, s->prev_runtime);
				if (!err && tl->nruns > before) {
					/* the run as kept (emit_run may shorten it to the kernel's charge) */
					tl->unsure_runs++;
					tl->unsure_ns += tl->runs[before].end - tl->runs[before].start;
					/*
					 * prev ran from there on, seen by the kernel's charge:
					 * only before it could the hidden thread have run.
					 */
					if (tl->runs[before].start > c->start)
						tl->gaps[tl->ngaps - 1].end = tl->runs[before].start;
				}
			}
		} else {
			tl->broken_chains++;	/* records lost: nothing assumed */
			if (s->prev_tid) {
				uint32_t th = threadtab__resolve(tl->tt, s->prev_tid, s->h.ts, s->prev_tgid);

				if (th == TT_NONE || (th >= b->rt_cap && grow_rt(b, th + 1)))
					err = -ENOMEM;
				else
					b->cpu_ns[th] += charged(b, th, s->prev_runtime);
			}
		}
		c->valid = true;
		c->tid = s->next_tid;
		c->tgid = s->next_tgid;
		c->start = s->h.ts;
		if (k % 4096 == 0)
			prefault__reach(pf, tl->nruns * sizeof(*tl->runs));
	}
	prefault__stop(pf);
	for (int cpu = 0; cpu < tl->ncpus && !err; cpu++) {
		struct cur *c = &cur[cpu];

		if (c->valid && c->tid && tl->end > c->start)
			err = emit_run(b, c->tid, c->tgid, cpu, c->start, tl->end, QT_END_TRUNCATED,
				       TL_RUN_END_CUT, 0);
	}
	free(cur);
	free(order);
	return err;
}

static int build_syscalls(struct builder *b)
{
	const struct trace *t = b->t;
	struct timeline *tl = b->tl;
	uint32_t *order;
	int err;

	err = sort_order(t->nsc, key_sc, t->sc, &order);
	if (err)
		return err;
	tl->sc = malloc((t->nsc ? t->nsc : 1) * sizeof(*tl->sc));
	if (!tl->sc) {
		free(order);
		return -ENOMEM;
	}
	for (size_t k = 0; k < t->nsc; k++) {
		const struct qt_syscall *r = &t->sc[order[k]];
		struct tl_syscall *s = &tl->sc[tl->nsc];

		s->start = r->h.ts;
		s->end = r->end_ts;
		s->ret = r->ret;
		s->arg0 = r->arg0;
		s->nr = r->nr;
		s->cpu = r->h.cpu;
		s->flags = r->h.flags;
		s->thread = threadtab__resolve(tl->tt, r->tid, r->h.ts, r->tgid);
		if (s->thread == TT_NONE)
			continue;
		tl->nsc++;
	}
	free(order);
	return 0;
}

static int build_wakeups(struct builder *b)
{
	const struct trace *t = b->t;
	struct timeline *tl = b->tl;
	uint32_t *order;
	int err;

	err = sort_order(t->nwk, key_wk, t->wk, &order);
	if (err)
		return err;
	tl->wk = malloc((t->nwk ? t->nwk : 1) * sizeof(*tl->wk));
	if (!tl->wk) {
		free(order);
		return -ENOMEM;
	}
	for (size_t k = 0; k < t->nwk; k++) {
		const struct qt_wakeup *r = &t->wk[order[k]];
		struct tl_wakeup *w = &tl->wk[tl->nwk];

		w->ts = r->h.ts;
		w->waking_ts = r->waking_ts;
		w->target_cpu = r->target_cpu;
		w->waker_cpu = r->waker_cpu;
		w->irq = r->waker_irq;
		w->flags = r->h.flags;
		w->is_new = r->h.type == QT_REC_WAKEUP_NEW;
		w->wakee = threadtab__resolve(tl->tt, r->wakee_tid, r->h.ts, r->wakee_tgid);
		if (w->wakee == TT_NONE)
			continue;
		/* An interrupt wakes on behalf of nobody it happened to interrupt. */
		if (r->h.flags & (QT_WAKE_HARDIRQ | QT_WAKE_SOFTIRQ))
			w->waker = TL_NONE;
		else
			w->waker = threadtab__resolve(tl->tt, r->waker_tid, r->waking_ts, r->waker_tgid);
		tl->nwk++;
	}
	free(order);
	return 0;
}

static int build_irqs(struct builder *b)
{
	const struct trace *t = b->t;
	struct timeline *tl = b->tl;
	uint32_t *order;
	int err;

	err = sort_order(t->nirq, key_irq, t->irq, &order);
	if (err)
		return err;
	tl->irqs = malloc((t->nirq ? t->nirq : 1) * sizeof(*tl->irqs));
	if (!tl->irqs) {
		free(order);
		return -ENOMEM;
	}
	for (size_t k = 0; k < t->nirq; k++) {
		const struct qt_irq *r = &t->irq[order[k]];
		struct tl_irq *q = &tl->irqs[tl->nirqs++];

		q->start = r->h.ts;
		q->end = r->end_ts;
		q->num = r->irq;
		q->ret = r->ret;
		q->cpu = r->h.cpu;
		q->soft = r->h.type == QT_REC_SOFTIRQ;
		q->thread = threadtab__resolve(tl->tt, r->tid, r->h.ts, 0);
	}
	free(order);
	return 0;
}

/*
 * Stable counting sort of items by a thread index: per-thread slices. The
 * items are scattered into a new array, which replaces the old one (a copy
 * back would cost a pass; permuting in place, random swaps, took 3x as long
 * on 9 M runs).
 */
static int group_by_thread(void **arr, size_t n, size_t elem, size_t nthreads,
			   uint32_t (*thread_of)(const void *), size_t *first, size_t *count,
			   uint32_t *moved_to)
{
	char *tmp = malloc((n ? n : 1) * elem), *a = *arr;
	size_t *pos = calloc(nthreads + 1, sizeof(*pos));
	struct prefault *pf;

	if (!tmp || !pos) {
		free(tmp);
		free(pos);
		return -ENOMEM;
	}
	/* Filled to its end; the helper gets the counting pass as a head start. */
	pf = prefault__start(tmp, n * elem, PREFAULT_ALL);
	for (size_t i = 0; i < n; i++)
		pos[thread_of(a + i * elem) + 1]++;
	for (size_t th = 0; th < nthreads; th++) {
		first[th] = pos[th];
		count[th] = pos[th + 1];
		pos[th + 1] += pos[th];
	}
	for (size_t i = 0; i < n; i++) {
		const char *it = a + i * elem;
		size_t to = pos[thread_of(it)]++;

		memcpy(tmp + to * elem, it, elem);
		if (moved_to)
			moved_to[i] = (uint32_t)to;
	}
	prefault__stop(pf);
	free(*arr);
	*arr = tmp;
	free(pos);
	return 0;
}

static uint32_t run_thread(const void *p) { return ((const struct tl_run *)p)[0].thread; }
static uint32_t sc_thread(const void *p) { return ((const struct tl_syscall *)p)[0].thread; }

/* Index lists of wakeups grouped by one side (wakee or waker), time order kept. */
static int wakeup_index(struct timeline *tl, bool by_waker, uint32_t **out, size_t (*first_count)[2])
{
	size_t *pos = calloc(tl->nthreads + 1, sizeof(*pos));
	uint32_t *idx = malloc((tl->nwk ? tl->nwk : 1) * sizeof(*idx));

	if (!pos || !idx) {
		free(pos);
		free(idx);
		return -ENOMEM;
	}
	for (size_t i = 0; i < tl->nwk; i++) {
		uint32_t th = by_waker ? tl->wk[i].waker : tl->wk[i].wakee;

		if (th != TL_NONE)
			pos[th + 1]++;
	}
	for (size_t th = 0; th < tl->nthreads; th++) {
		first_count[th][0] = pos[th];
		first_count[th][1] = pos[th + 1];
		pos[th + 1] += pos[th];
	}
	for (size_t i = 0; i < tl->nwk; i++) {
		uint32_t th = by_waker ? tl->wk[i].waker : tl->wk[i].wakee;

		if (th != TL_NONE)
			idx[pos[th]++] = i;
	}
	free(pos);
	*out = idx;
	return 0;
}

size_t timeline__next_run(const struct timeline *tl, const struct tl_thread *x, size_t from, uint64_t ts)
{
	size_t end = x->run0 + x->nrun, lo = from, hi = from, step = 1;

	/* Gallop forward, then search the last step. */
	while (hi < end && tl->runs[hi].start < ts) {
		lo = hi + 1;
		hi = end - hi > step ? hi + step : end;
		step *= 2;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl->runs[mid].start < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * A wakeup recorded at sched_waking knows only the CPU the wakee last ran
 * on: the CPU it was enqueued on is where its next run starts. Each
 * wakee's wakeups (wk_by_wakee: in time order, as build_wakeups sorted
 * them) are walked beside its runs; a binary search per wakeup over a busy
 * thread's runs missed the cache at every step (a 15 s storm: 0.14 s of a
 * 0.33 s timeline build).
 */
static void resolve_target_cpus(struct timeline *tl)
{
	for (size_t th = 0; th < tl->nthreads; th++) {
		const struct tl_thread *x = &tl->threads[th];
		size_t r = x->run0;

		for (size_t k = x->wr0; k < x->wr0 + x->nwr; k++) {
			struct tl_wakeup *w = &tl->wk[tl->wk_by_wakee[k]];

			if (!(w->flags & QT_WAKE_CPU_PREV))
				continue;
			r = timeline__next_run(tl, x, r, w->ts);
			if (r < x->run0 + x->nrun)
				w->target_cpu = tl->runs[r].cpu;
		}
	}
}

/*
 * The runs come out of build_runs in the order their switches ended them:
 * on one CPU, where runs never overlap, that is time order. Lists each
 * CPU's runs by that place; *moved_to gets room for where grouping by
 * thread puts each run (NULL, and no lists, beyond UINT32_MAX runs).
 */
static int index_by_cpu(struct timeline *tl, uint32_t **moved_to)
{
	size_t *fill;

	*moved_to = NULL;
	if (tl->nruns > UINT32_MAX)
		return 0;
	tl->cpu_run0 = calloc(tl->ncpus + 1, sizeof(*tl->cpu_run0));
	tl->runs_by_cpu = malloc((tl->nruns ? tl->nruns : 1) * sizeof(*tl->runs_by_cpu));
	*moved_to = malloc((tl->nruns ? tl->nruns : 1) * sizeof(**moved_to));
	fill = malloc((tl->ncpus + 1) * sizeof(*fill));
	if (!tl->cpu_run0 || !tl->runs_by_cpu || !*moved_to || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t i = 0; i < tl->nruns; i++)
		tl->cpu_run0[tl->runs[i].cpu + 1]++;
	for (int c = 0; c < tl->ncpus; c++)
		tl->cpu_run0[c + 1] += tl->cpu_run0[c];
	memcpy(fill, tl->cpu_run0, (tl->ncpus + 1) * sizeof(*fill));
	for (size_t i = 0; i < tl->nruns; i++)
		tl->runs_by_cpu[fill[tl->runs[i].cpu]++] = (uint32_t)i;
	free(fill);
	return 0;
}

static int finish_threads(struct builder *b)
{
	struct timeline *tl = b->tl;
	size_t n = threadtab__count(tl->tt);
	size_t *first, *count, (*fc)[2];
	uint32_t *moved_to = NULL;
	void *grouped;
	int err;

	threadtab__name_from(tl->tt, b->t->threads_end, b->t->nthreads_end);
	tl->nthreads = n;
	tl->threads = calloc(n ? n : 1, sizeof(*tl->threads));
	first = calloc(n + 1, sizeof(*first));
	count = calloc(n + 1, sizeof(*count));
	fc = calloc(n + 1, sizeof(*fc));
	if (!tl->threads || !first || !count || !fc) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct tt_thread *th = threadtab__get(tl->tt, i);
		struct tl_thread *x = &tl->threads[i];

		x->tid = th->tid;
		x->pid = th->pid;
		x->flags = th->flags;
		memcpy(x->comm, th->comm, sizeof(x->comm));
		if (i < b->rt_cap)
			x->cpu_ns = b->cpu_ns[i];
		if (!x->comm[0])
			snprintf(x->comm, sizeof(x->comm), "<%u>", th->tid);
		if (b->all || set_has(&b->targets, th->pid))
			x->flags |= TL_TARGET;
		if (b->recorder && th->pid == b->recorder) {
			x->flags |= TL_RECORDER;
			x->flags &= ~TL_TARGET;
		}
	}
	err = index_by_cpu(tl, &moved_to);
	if (err)
		goto out;
	grouped = tl->runs;
	err = group_by_thread(&grouped, tl->nruns, sizeof(*tl->runs), n, run_thread, first, count, moved_to);
	tl->runs = grouped;
	if (err)
		goto out;
	/* The CPUs' lists named the runs by their place in time; now by their place by thread. */
	for (size_t i = 0; moved_to && i < tl->nruns; i++)
		tl->runs_by_cpu[i] = moved_to[tl->runs_by_cpu[i]];
	for (size_t i = 0; i < n; i++) {
		struct tl_thread *x = &tl->threads[i];

		x->run0 = first[i];
		x->nrun = count[i];
		x->nruns = count[i];
		for (size_t k = x->run0; k < x->run0 + x->nrun; k++) {
			const struct tl_run *r = &tl->runs[k];

			x->run_ns += r->end - r->start;
			if (r->flags & TL_RUN_START_UNSURE)
				x->unsure_ns += r->end - r->start;
			if (r->end_state == QT_END_PREEMPTED)
				x->npreempted++;
			else if (r->end_state == QT_END_SLEEP || r->end_state == QT_END_BLOCKED)
				x->nvoluntary++;
		}
		if (x->nrun) {
			x->first_run = tl->runs[x->run0].start;
			x->last_end = tl->runs[x->run0 + x->nrun - 1].end;
		}
	}
	grouped = tl->sc;
	err = group_by_thread(&grouped, tl->nsc, sizeof(*tl->sc), n, sc_thread, first, count, NULL);
	tl->sc = grouped;
	if (err)
		goto out;
	for (size_t i = 0; i < n; i++) {
		tl->threads[i].sc0 = first[i];
		tl->threads[i].nsc = count[i];
	}
	err = wakeup_index(tl, false, &tl->wk_by_wakee, fc);
	if (err)
		goto out;
	for (size_t i = 0; i < n; i++) {
		tl->threads[i].wr0 = fc[i][0];
		tl->threads[i].nwr = fc[i][1];
	}
	resolve_target_cpus(tl);
	err = wakeup_index(tl, true, &tl->wk_by_waker, fc);
	if (err)
		goto out;
	for (size_t i = 0; i < n; i++) {
		tl->threads[i].ws0 = fc[i][0];
		tl->threads[i].nws = fc[i][1];
	}
out:
	free(moved_to);
	free(first);
	free(count);
	free(fc);
	return err;
}

static int sort_gaps(struct timeline *tl)
{
	uint32_t *order;
	struct tl_gap *g;
	int err = sort_order(tl->ngaps, key_gap, tl->gaps, &order);

	if (err)
		return err;
	g = malloc((tl->ngaps ? tl->ngaps : 1) * sizeof(*g));
	if (!g) {
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < tl->ngaps; i++)
		g[i] = tl->gaps[order[i]];
	free(tl->gaps);
	tl->gaps = g;
	free(order);
	return 0;
}

static int build(const struct trace *t, struct trace *consume, const struct timeline_opts *opts,
		 struct timeline **out)
{
	struct builder b = { .consume = consume };
	struct timeline *tl;
	int err;

	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return -ENOMEM;
	b.tl = tl;
	b.t = t;
	tl->trace = t;
	tl->start = t->start_ns;
	tl->end = t->stop_ns;
	tl->ncpus = t->ncpus > 0 ? t->ncpus : 1;
	/*
	 * Per-CPU state is indexed by the records' CPU: cover every CPU they
	 * name, whatever the header said (trace__load does so for switches; a
	 * trace made another way may not).
	 */
	for (size_t i = 0; i < t->nsw; i++)
		if (t->sw[i].h.cpu >= tl->ncpus)
			tl->ncpus = t->sw[i].h.cpu + 1;
	for (size_t i = 0; i < t->nlost; i++)
		if (t->lost[i].h.cpu >= tl->ncpus)
			tl->ncpus = t->lost[i].h.cpu + 1;

	err = build_threadtab(&b);
	if (!err)
		err = build_lost_gaps(&b);
	if (!err)
		err = build_runs(&b);
	if (!err && b.consume)
		trace__drop_switches(b.consume);
	if (!err)
		err = build_syscalls(&b);
	if (!err)
		err = build_wakeups(&b);
	if (!err)
		err = build_irqs(&b);
	if (!err && b.consume)
		trace__drop_records(b.consume);
	if (!err)
		err = finish_threads(&b);
	if (!err)
		err = sort_gaps(tl);

	free(b.targets.k);
	free(b.last_rt);
	free(b.cpu_ns);
	free(b.has_rt);
	for (int c = 0; b.cpu_gaps && c < tl->ncpus; c++)
		free(b.cpu_gaps[c]);
	free(b.cpu_gaps);
	free(b.cpu_ngaps);
	free(b.cpu_cursor);
	if (err) {
		timeline__free(tl);
		return err;
	}
	if (tl->unsure_runs)
		log_info("%s: %llu switches were not reported by the kernel; %llu runs have an uncertain "
			 "start (%.3f ms in all)", t->path, (unsigned long long)tl->broken_chains,
			 (unsigned long long)tl->unsure_runs, tl->unsure_ns / 1e6);
	*out = tl;
	return 0;
}

int timeline__build(const struct trace *t, const struct timeline_opts *opts,
		    struct timeline **out)
{
	return build(t, NULL, opts, out);
}

int timeline__build_consuming(struct trace *t, const struct timeline_opts *opts,
			      struct timeline **out)
{
	return build(t, t, opts, out);
}

void timeline__free(struct timeline *tl)
{
	if (!tl)
		return;
	threadtab__free(tl->tt);
	free(tl->threads);
	free(tl->runs);
	free(tl->sc);
	free(tl->wk);
	free(tl->wk_by_wakee);
	free(tl->wk_by_waker);
	free(tl->irqs);
	free(tl->gaps);
	free(tl->runs_by_cpu);
	free(tl->cpu_run0);
	free(tl);
}

const char *timeline__comm_at(const struct timeline *tl, uint32_t thread, uint64_t ts)
{
	const char *c;

	if (thread == TL_NONE || thread >= tl->nthreads)
		return "-";
	c = threadtab__comm_at(tl->tt, thread, ts);
	return c && *c ? c : tl->threads[thread].comm;
}

/* The name of the thread with this tid that ran last (the tid may have been reused). */
static const char *tid_name(const struct timeline *tl, uint32_t tid)
{
	const char *name = NULL;

	if (!tid)
		return "idle";
	for (size_t i = 0; i < tl->nthreads; i++)
		if (tl->threads[i].tid == tid && (!name || tl->threads[i].nruns))
			name = tl->threads[i].comm;
	return name ? name : "?";
}

size_t timeline__hidden_threads(const struct timeline *tl, char *buf, size_t len)
{
	struct hidden_count { uint32_t tid; uint64_t n; } v[64];
	size_t nv = 0, more = 0, off = 0;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < tl->ngaps; i++) {
		const struct tl_gap *g = &tl->gaps[i];
		size_t k = 0;

		if (g->kind != TL_GAP_BROKEN || g->hidden == TL_NONE)
			continue;
		while (k < nv && v[k].tid != g->hidden)
			k++;
		if (k == nv) {
			if (nv == sizeof(v) / sizeof(v[0])) {
				more++;
				continue;
			}
			v[nv++] = (struct hidden_count){ g->hidden, 0 };
		}
		v[k].n++;
	}
	/* Most often first, then by tid: a few entries, an insertion sort. */
	for (size_t i = 1; i < nv; i++)
		for (size_t j = i; j && (v[j].n > v[j - 1].n || (v[j].n == v[j - 1].n && v[j].tid < v[j - 1].tid)); j--) {
			struct hidden_count t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	for (size_t i = 0; i < nv && i < 3 && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s/%u (%llu)", i ? ", " : "", tid_name(tl, v[i].tid),
					v[i].tid, (unsigned long long)v[i].n);
	if (nv > 3 && off < len)
		snprintf(buf + off, len - off, " and %zu more", nv - 3 + more);
	return nv + more;
}

bool timeline__missing(const struct timeline *tl, int cpu, uint64_t start, uint64_t end)
{
	/* Half-open: a gap that begins at end does not overlap [start, end). */
	if (end <= start)
		end = start + 1;	/* the instant start */
	for (size_t i = 0; i < tl->ngaps && tl->gaps[i].start < end; i++)
		if ((cpu < 0 || tl->gaps[i].cpu == cpu) && tl->gaps[i].end > start)
			return true;
	return false;
}

static int cmp_span(const void *a, const void *b)
{
	const struct tl_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The spans sorted and merged where they overlap, in place; returns how many are left. */
static size_t merge_spans(struct tl_span *s, size_t n)
{
	size_t k = 0;

	qsort(s, n, sizeof(*s), cmp_span);
	for (size_t i = 0; i < n; i++) {
		if (s[i].end < s[i].start)
			continue;
		if (k && s[i].start <= s[k - 1].end)
			s[k - 1].end = s[i].end > s[k - 1].end ? s[i].end : s[k - 1].end;
		else
			s[k++] = s[i];
	}
	return k;
}

/* First span that ends at or after t. */
static size_t span_from(const struct tl_span *s, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].end < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The records of one array (count of them, the time at byte offset `at`
 * of each stride-byte record) whose time is inside the merged spans, as
 * pairs (time, place + i) into p[k..]; with p NULL only counted. Returns
 * the new k. The arrays are a few ascending runs (runs and system calls
 * one per thread): the span cursor moves forward within one and is
 * searched again where the next begins.
 */
static size_t add_events(struct sort_pair *p, size_t k, const void *arr, size_t count, size_t stride,
			 size_t at, size_t place, const struct tl_span *sp, size_t nsp)
{
	const char *b = (const char *)arr + at;
	uint64_t prev = 0;
	size_t r = 0;

	for (size_t i = 0; i < count; i++) {
		uint64_t ts;

		memcpy(&ts, b + i * stride, sizeof(ts));
		if (sp) {
			if (!i || ts < prev)
				r = span_from(sp, nsp, ts);
			prev = ts;
			while (r < nsp && sp[r].end < ts)
				r++;
			if (r == nsp || ts < sp[r].start)
				continue;
		}
		if (p)
			p[k] = (struct sort_pair){ ts, place + i };
		k++;
	}
	return k;
}

/*
 * The events' times and places in the concatenation runs, syscalls,
 * wakeups, IRQs, gaps are sorted as pairs; each sorted pair is then
 * turned into its event in place (both are 16 bytes), so the stream costs
 * one array and the sort's buffer, not three arrays.
 */
int timeline__stream(const struct timeline *tl, const struct tl_span *spans, size_t nspans,
		     struct tl_event **out, size_t *n)
{
	const struct {
		const void *arr;
		size_t count, stride, at;
	} src[] = {
		{ tl->runs, tl->nruns, sizeof(*tl->runs), offsetof(struct tl_run, start) },
		{ tl->sc, tl->nsc, sizeof(*tl->sc), offsetof(struct tl_syscall, start) },
		{ tl->wk, tl->nwk, sizeof(*tl->wk), offsetof(struct tl_wakeup, ts) },
		{ tl->irqs, tl->nirqs, sizeof(*tl->irqs), offsetof(struct tl_irq, start) },
		{ tl->gaps, tl->ngaps, sizeof(*tl->gaps), offsetof(struct tl_gap, start) },
	};
	static const uint8_t kinds[] = { TL_EV_RUN, TL_EV_SYSCALL, TL_EV_WAKEUP, TL_EV_IRQ, TL_EV_GAP };
	size_t first[6] = { 0 }, total = 0, nsp = 0;
	struct tl_span *sp = NULL;
	struct sort_pair *p = NULL;
	struct tl_event *ev;

	_Static_assert(sizeof(struct tl_event) == sizeof(struct sort_pair), "converted in place");
	*out = NULL;
	*n = 0;
	for (int k = 0; k < 5; k++)
		first[k + 1] = first[k] + src[k].count;
	if (spans) {
		sp = malloc((nspans ? nspans : 1) * sizeof(*sp));
		if (!sp)
			return -ENOMEM;
		memcpy(sp, spans, nspans * sizeof(*sp));
		nsp = merge_spans(sp, nspans);
	}
	/* with spans, counted first: the pairs are sized to what is kept */
	total = first[5];
	if (sp) {
		total = 0;
		for (int k = 0; k < 5; k++)
			total = add_events(NULL, total, src[k].arr, src[k].count, src[k].stride, src[k].at,
					   first[k], sp, nsp);
	}
	p = malloc((total ? total : 1) * sizeof(*p));
	if (!p) {
		free(sp);
		return -ENOMEM;
	}
	for (size_t k = 0, j = 0; k < 5; k++)
		j = add_events(p, j, src[k].arr, src[k].count, src[k].stride, src[k].at, first[k], sp, nsp);
	free(sp);
	if (sort_pairs(p, total)) {
		free(p);
		return -ENOMEM;
	}
	ev = (struct tl_event *)p;
	for (size_t i = 0; i < total; i++) {
		struct sort_pair x;
		int kind = 4;

		memcpy(&x, &p[i], sizeof(x));
		while (x.idx < first[kind])
			kind--;
		ev[i] = (struct tl_event){ .ts = x.key, .idx = (uint32_t)(x.idx - first[kind]), .kind = kinds[kind] };
	}
	*out = ev;
	*n = total;
	return 0;
}

size_t timeline__lower_bound(const struct tl_event *ev, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ev[mid].ts < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
