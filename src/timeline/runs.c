// SPDX-License-Identifier: MIT
/*
 * The switches into runs, CPU by CPU, and the windows where data is
 * missing: lost records, and switches the kernel did not report (the
 * rules are in src/timeline/timeline.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lib/prefault.h"
#include "lib/sort.h"

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

static uint64_t key_sw(const void *a, size_t i) { return ((const struct qt_switch *)a)[i].h.ts; }
static uint64_t key_lost(const void *a, size_t i) { return ((const struct qt_lost *)a)[i].first_ts; }

static int add_gap(struct builder *b, uint16_t cpu, uint64_t start, uint64_t end, uint64_t count,
		   uint8_t kind, uint32_t hidden)
{
	struct tl_gap g = { .start = start, .end = end, .count = count, .cpu = cpu, .kind = kind,
			    .hidden = hidden };

	return VEC_PUSH(b->tl->gaps, b->tl->ngaps, b->gaps_cap, g);
}

/* Lost windows, and an index of them per CPU for the run check. */
int runs_lost_gaps(struct builder *b)
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

bool runs_lost_during(struct builder *b, uint16_t cpu, uint64_t start, uint64_t end)
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
	if (runs_lost_during(b, cpu, start, end)) {
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
int runs_build(struct builder *b)
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
		} else if (!runs_lost_during(b, s->h.cpu, c->start, s->h.ts)) {
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
