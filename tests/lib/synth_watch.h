/* SPDX-License-Identifier: MIT */
/*
 * A small scheduler simulation for watch's tests: periodic actors on an
 * absolute timer (each with its CPU, priority, work and jitter, now and
 * then held on a lock: a rare futex wait inside its work), a disturber of
 * higher priority that takes an actor's CPU at chosen times, background
 * threads of the lowest priority that run in slices on any CPU, and
 * windows of lost records. Time advances in steps of STEP ns; each CPU
 * runs its most urgent runnable thread; every change is a switch record
 * with how prev left (preempted, asleep). The schedule is what a kernel
 * would have recorded: the runs, the calls (clock_nanosleep between
 * invocations, futex for the lock), the losses (a CPU's switches inside
 * a loss window are not in the trace).
 *
 *   struct sw_cfg c = sw_default(seed);      // then adjust c
 *   struct trace *t = sw_run(&c);            // a trace in memory (synth_trace.h)
 *   sw_save(t, path, 64 << 10);              // and as a file, in blocks of 64 KiB
 */
#ifndef QT_SYNTH_WATCH_H
#define QT_SYNTH_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "file/codec.h"
#include "file/writer.h"
#include "synth_trace.h"
#include "testutil.h"

#define SW_STEP 10000ull		/* 10 us */
#define SW_SLICE 1000000ull		/* background threads take turns */
#define SW_MAX_ACTORS 4
#define SW_MAX_BG 4
#define SW_MAX_DISTURB 64
#define SW_MAX_LOSSES 8
#define SW_NR_FUTEX 202			/* x86_64 */
#define SW_NR_NANOSLEEP 230		/* clock_nanosleep */
#define SW_PID 1000
#define SW_DISTURBER 2000
#define SW_BG 3000

struct sw_actor {
	uint64_t period, work, jitter;	/* ns */
	int cpu, prio;			/* higher runs first */
	double lock_p;			/* per invocation: held on a lock */
	uint64_t lock_ns;
};

struct sw_cfg {
	unsigned long long seed;
	uint64_t start, len;		/* ns */
	int ncpus;
	int nactors;
	struct sw_actor a[SW_MAX_ACTORS];
	int nbg;			/* background threads */
	uint64_t bg_run, bg_sleep;	/* their mean run and sleep */
	int ndisturb;
	uint64_t disturb_at[SW_MAX_DISTURB], disturb_ns;
	int disturb_cpu;
	int nlosses;
	uint64_t loss_at[SW_MAX_LOSSES], loss_ns;
};

/* Two actors at 10 ms on CPU 0 and 1, two background threads, nothing disturbed. */
static inline struct sw_cfg sw_default(unsigned long long seed)
{
	struct sw_cfg c = {
		.seed = seed, .start = 1000000000ull, .len = 20000000000ull, .ncpus = 2, .nactors = 2,
		.nbg = 2, .bg_run = 2000000, .bg_sleep = 3000000, .disturb_ns = 60000000,
		.loss_ns = 3000000,
	};

	c.a[0] = (struct sw_actor){ .period = 10000000, .work = 1500000, .jitter = 100000, .cpu = 0, .prio = 5,
				    .lock_p = 0.02, .lock_ns = 2000000 };
	c.a[1] = (struct sw_actor){ .period = 10000000, .work = 2500000, .jitter = 150000, .cpu = 1, .prio = 5 };
	return c;
}

enum sw_state { SW_SLEEPING, SW_RUNNABLE, SW_LOCKED };

struct sw_thread {
	uint32_t tid;
	int prio, cpu;			/* cpu -1: any */
	enum sw_state st;
	uint64_t left;			/* work left */
	uint64_t wake;			/* when it becomes runnable */
	uint64_t release;		/* actors: the next release */
	uint64_t lock_at;		/* work left when it takes the lock (0: no lock this time) */
	uint64_t call_start;		/* the call it sleeps in */
	uint64_t since;			/* on its CPU since */
	int running_on;			/* -1 */
	const struct sw_actor *a;
};

static inline uint64_t sw_rand(unsigned long long *s, uint64_t n)
{
	return n ? tu_rand(s) % n : 0;
}

/* Records a switch on cpu from prev to next (tid 0: idle), and the calls the sleep ends. */
static inline void sw_switch(struct synth *s, uint64_t ts, int cpu, struct sw_thread *prev, struct sw_thread *next)
{
	enum synth_end how = !prev ? SYN_SLEEP : prev->st == SW_RUNNABLE ? SYN_PREEMPT : SYN_SLEEP;

	synth_switch(s, ts, cpu, prev ? prev->tid : 0, prev ? SW_PID : 0, how, next ? next->tid : 0,
		     next ? SW_PID : 0);
}

static inline void sw_wake(struct synth *s, struct sw_thread *t, uint64_t now)
{
	if (t->a && t->call_start)
		synth_syscall(s, t->call_start, now, t->tid, SW_PID, t->st == SW_LOCKED ? SW_NR_FUTEX : SW_NR_NANOSLEEP,
			      t->st == SW_LOCKED ? 0x7f00beef : 1, 0);
	t->call_start = 0;
	t->st = SW_RUNNABLE;
}

/* Work done: to sleep until the next release (actors), or a while (background). */
static inline void sw_done(struct sw_cfg *c, struct sw_thread *t, uint64_t now)
{
	t->st = SW_SLEEPING;
	if (t->a) {
		while (t->release <= now)
			t->release += t->a->period;
		t->wake = t->release;
		t->left = t->a->work - t->a->jitter + sw_rand(&c->seed, 2 * t->a->jitter + 1);
		t->lock_at = (double)sw_rand(&c->seed, 1000000) < t->a->lock_p * 1e6 ? t->left / 2 : 0;
		t->call_start = now;
	} else if (t->tid == SW_DISTURBER) {
		t->wake = UINT64_MAX;
	} else {
		t->wake = now + SW_STEP + sw_rand(&c->seed, 2 * c->bg_sleep);
		t->left = SW_STEP + sw_rand(&c->seed, 2 * c->bg_run);
	}
}

static inline struct trace *sw_run(struct sw_cfg *c)
{
	struct synth *s = synth_new(c->start, c->start + c->len, c->ncpus);
	struct sw_thread th[SW_MAX_ACTORS + SW_MAX_BG + 1];
	struct sw_thread *cur[8] = { 0 };
	int n = 0, nd = 0;

	synth_targets(s, "1000");
	for (int i = 0; i < c->nactors; i++) {
		char name[16];

		th[n] = (struct sw_thread){ .tid = SW_PID + 1 + i, .prio = c->a[i].prio, .cpu = c->a[i].cpu,
					    .release = c->start + 1000000 + i * 100000, .a = &c->a[i], .running_on = -1 };
		sw_done(c, &th[n], c->start);
		snprintf(name, sizeof(name), "stage%d", i);
		synth_thread(s, th[n].tid, SW_PID, name);
		n++;
	}
	th[n] = (struct sw_thread){ .tid = SW_DISTURBER, .prio = 10, .cpu = c->disturb_cpu, .wake = UINT64_MAX,
				    .running_on = -1 };
	synth_thread(s, SW_DISTURBER, SW_PID, "disturber");
	n++;
	for (int i = 0; i < c->nbg; i++) {
		th[n] = (struct sw_thread){ .tid = SW_BG + i, .prio = 1, .cpu = -1, .running_on = -1 };
		sw_done(c, &th[n], c->start);
		synth_thread(s, th[n].tid, SW_BG + i, "background");
		n++;
	}
	for (uint64_t now = c->start; now < c->start + c->len; now += SW_STEP) {
		for (int i = 0; i < n; i++) {
			struct sw_thread *t = &th[i];

			if (t->tid == SW_DISTURBER && nd < c->ndisturb && now >= c->disturb_at[nd]) {
				t->left = c->disturb_ns;
				t->st = SW_RUNNABLE;
				nd++;
			} else if (t->st != SW_RUNNABLE && now >= t->wake) {
				sw_wake(s, t, now);
			}
		}
		for (int cpu = 0; cpu < c->ncpus; cpu++) {
			struct sw_thread *best = NULL;

			for (int i = 0; i < n; i++) {
				struct sw_thread *t = &th[i];

				if (t->st != SW_RUNNABLE || (t->cpu >= 0 && t->cpu != cpu) ||
				    (t->running_on >= 0 && t->running_on != cpu))
					continue;
				if (!best || t->prio > best->prio)
					best = t;
				/* equal: the one on the CPU keeps it for a slice of 1 ms, then the other */
				else if (t->prio == best->prio && best == cur[cpu] && now - best->since >= SW_SLICE)
					best = t;
				else if (t->prio == best->prio && t == cur[cpu] && now - t->since < SW_SLICE)
					best = t;
			}
			if (best != cur[cpu]) {
				sw_switch(s, now, cpu, cur[cpu], best);
				if (cur[cpu])
					cur[cpu]->running_on = -1;
				if (best) {
					best->running_on = cpu;
					best->since = now;
				}
				cur[cpu] = best;
			}
			if (!best)
				continue;
			best->left = best->left > SW_STEP ? best->left - SW_STEP : 0;
			if (best->a && best->lock_at && best->left <= best->lock_at) {
				/* held on the lock: asleep in futex for lock_ns */
				best->lock_at = 0;
				best->st = SW_LOCKED;
				best->wake = now + SW_STEP + best->a->lock_ns;
				best->call_start = now + SW_STEP;
			} else if (!best->left) {
				sw_done(c, best, now + SW_STEP);
			}
			if (best->st != SW_RUNNABLE) {
				sw_switch(s, now + SW_STEP, cpu, best, NULL);
				best->running_on = -1;
				cur[cpu] = NULL;
			}
		}
	}
	/* What a CPU lost is not in the trace: its switches in the window go. */
	for (int i = 0; i < c->nlosses; i++) {
		int cpu = i % c->ncpus;
		uint64_t a = c->loss_at[i], b = a + c->loss_ns;
		size_t k = 0;

		synth_lost(s, cpu, a, b, 100);
		for (size_t j = 0; j < s->t->nsw; j++)
			if (s->t->sw[j].h.cpu != cpu || s->t->sw[j].h.ts < a || s->t->sw[j].h.ts > b)
				s->t->sw[k++] = s->t->sw[j];
		s->t->nsw = k;
	}
	return synth_finish(s);
}

static int sw_by_time(const void *a, const void *b)
{
	const union qt_record *x = a, *y = b;

	return x->h.ts < y->h.ts ? -1 : x->h.ts > y->h.ts;
}

/*
 * The trace as a recording on disk, its records in time order as the
 * writer would have them, in blocks of block_bytes.
 */
static inline void sw_save(const struct trace *t, const char *path, size_t block_bytes)
{
	size_t n = t->nsw + t->nsc + t->nlost + t->ntask, k = 0;
	union qt_record *v = calloc(n ? n : 1, sizeof(*v));
	struct writer_opts wo = { .path = path, .zlevel = 1, .block_bytes = block_bytes, .force = true };
	struct tf_kv end = { 0 };
	struct writer *w;

	cr_assert(v);
	for (size_t i = 0; i < t->nsw; i++)
		v[k++].sw = t->sw[i];
	for (size_t i = 0; i < t->nsc; i++)
		v[k++].sc = t->sc[i];
	for (size_t i = 0; i < t->nlost; i++)
		v[k++].lost = t->lost[i];
	for (size_t i = 0; i < t->ntask; i++)
		v[k++].task = t->task[i];
	qsort(v, n, sizeof(*v), sw_by_time);
	cr_assert_eq(writer__open(&wo, &t->meta, t->threads_start, t->nthreads_start, t->start_ns, &w), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(writer__push(w, &v[i], codec_rec_size(v[i].h.type)), 0);
	tf_kv_set(&end, TF_END_STOP, "%llu", (unsigned long long)t->stop_ns);
	tf_kv_set(&end, TF_END_LOST, "%llu", (unsigned long long)t->lost_events);
	cr_assert_eq(writer__finish(w, t->threads_start, t->nthreads_start, t->stop_ns, &end), 0);
	tf_kv_free(&end);
	free(v);
}

/* A recording's blocks handed to a writer sink, as the writer would (watch's memory, src/watch/sink.h). */
static inline void sw_fill(const char *path, const struct writer_sink *ws)
{
	struct tf_reader *r;
	struct tf_block b;
	char err[256];

	cr_assert_eq(tf_reader__open(path, &r, err, sizeof(err)), 0, "%s", err);
	while (tf_reader__next(r, &b) > 0)
		cr_assert_eq(ws->append(ws->ctx, b.type, b.data, b.len, b.count, b.base_ts), 0);
	tf_reader__close(r);
}

#endif
