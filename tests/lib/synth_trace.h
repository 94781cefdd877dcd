/*
 * Builds a struct trace in memory, as trace__load() would from a file, so
 * that tests can run timeline__build() and the analysis on schedules they
 * write by hand. Switch records carry the kernel's runtime (prev_runtime)
 * computed from the schedule itself, as the kernel would report it.
 *
 *   struct synth *s = synth_new(0, 1000000, 2);
 *   synth_thread(s, 100, 100, "src");          // alive at the start
 *   synth_switch(s, 10, 0, 0, 0, SYN_PREEMPT, 100, 100);   // idle -> src on CPU 0
 *   synth_switch(s, 50, 0, 100, 100, SYN_SLEEP, 0, 0);     // src sleeps
 *   struct trace *t = synth_finish(s);          // owns nothing of s any more
 *   ... timeline__build(t, NULL, &tl) ...; trace__free(t);
 */
#ifndef QT_SYNTH_TRACE_H
#define QT_SYNTH_TRACE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/trace.h"

enum synth_end { SYN_PREEMPT, SYN_SLEEP, SYN_BLOCK, SYN_EXIT };

struct synth_rt {
	uint32_t tid;
	uint64_t runtime;
	uint64_t since;		/* switched in at, on its CPU */
};

struct synth {
	struct trace *t;
	size_t cap_thr;
	struct synth_rt *rt;
	size_t nrt, cap_rt;
};

#define SYNTH_PUSH(arr, n, cap, item)                                         \
	do {                                                                  \
		if ((n) == (cap)) {                                           \
			(cap) = (cap) ? (cap) * 2 : 64;                       \
			(arr) = realloc((arr), (cap) * sizeof(*(arr)));       \
			if (!(arr))                                           \
				abort();                                      \
		}                                                             \
		(arr)[(n)++] = (item);                                        \
	} while (0)

/*
 * The record arrays: only trace__grow_records() makes what trace__free()
 * releases, and it keeps their capacity itself.
 */
#define SYNTH_PUSH_REC(arr, n, item)                                          \
	do {                                                                  \
		(arr) = trace__grow_records((arr), (n) + 1, sizeof(*(arr)));  \
		if (!(arr))                                                   \
			abort();                                              \
		(arr)[(n)++] = (item);                                        \
	} while (0)

static inline struct synth *synth_new(uint64_t start_ns, uint64_t stop_ns, int ncpus)
{
	struct synth *s = calloc(1, sizeof(*s));

	s->t = calloc(1, sizeof(*s->t));
	s->t->path = strdup("synthetic");
	s->t->start_ns = start_ns;
	s->t->stop_ns = stop_ns;
	s->t->ncpus = ncpus;
	s->t->finished = 1;
	tf_kv_set(&s->t->meta, TF_META_START, "%llu", (unsigned long long)start_ns);
	tf_kv_set(&s->t->meta, TF_META_CPUS, "%d", ncpus);
	tf_kv_set(&s->t->meta, TF_META_MODE, "all");
	tf_kv_set(&s->t->meta, TF_META_ARCH, "x86_64");
	tf_kv_set(&s->t->end, TF_END_STOP, "%llu", (unsigned long long)stop_ns);
	return s;
}

static inline struct synth_rt *synth_rt_of(struct synth *s, uint32_t tid)
{
	struct synth_rt r = { .tid = tid };

	for (size_t i = 0; i < s->nrt; i++)
		if (s->rt[i].tid == tid)
			return &s->rt[i];
	SYNTH_PUSH(s->rt, s->nrt, s->cap_rt, r);
	return &s->rt[s->nrt - 1];
}

/* A thread alive when the recording started (the /proc snapshot). */
static inline void synth_thread(struct synth *s, uint32_t tid, uint32_t pid, const char *comm)
{
	struct tf_thread th = { .tid = tid, .tgid = pid };

	snprintf(th.comm, sizeof(th.comm), "%s", comm);
	SYNTH_PUSH(s->t->threads_start, s->t->nthreads_start, s->cap_thr, th);
}

/* Makes every thread of the snapshot (and later forks) a target. */
static inline void synth_targets(struct synth *s, const char *tgids)
{
	tf_kv_set(&s->t->meta, TF_META_MODE, "command");
	tf_kv_set(&s->t->meta, TF_META_TARGETS, "%s", tgids);
}

static inline void synth_switch(struct synth *s, uint64_t ts, int cpu, uint32_t prev, uint32_t prev_pid,
				enum synth_end how, uint32_t next, uint32_t next_pid)
{
	static const uint32_t state[] = { 0, 0x1, 0x2, 0x80 };
	struct qt_switch r = { .h = { .ts = ts, .type = QT_REC_SWITCH, .cpu = cpu } };

	r.h.flags = how == SYN_PREEMPT ? QT_SWITCH_PREEMPT : 0;
	r.prev_tid = prev;
	r.prev_tgid = prev_pid;
	r.next_tid = next;
	r.next_tgid = next_pid;
	r.prev_state = state[how];
	r.prev_prio = r.next_prio = 120;
	if (prev) {
		struct synth_rt *p = synth_rt_of(s, prev);

		if (p->since && ts > p->since)
			p->runtime += ts - p->since;
		p->since = 0;
		r.prev_runtime = p->runtime ? p->runtime : 1;
	}
	if (next)
		synth_rt_of(s, next)->since = ts;
	SYNTH_PUSH_REC(s->t->sw, s->t->nsw, r);
}

static inline void synth_wakeup(struct synth *s, uint64_t ts, uint32_t waker, uint32_t waker_pid,
				uint32_t wakee, uint32_t wakee_pid, int target_cpu)
{
	struct qt_wakeup r = { .h = { .ts = ts, .type = QT_REC_WAKEUP, .cpu = target_cpu } };

	r.waking_ts = ts;
	r.waker_tid = waker;
	r.waker_tgid = waker_pid;
	r.wakee_tid = wakee;
	r.wakee_tgid = wakee_pid;
	r.target_cpu = r.waker_cpu = target_cpu;
	r.waker_irq = QT_IRQ_UNKNOWN;
	SYNTH_PUSH_REC(s->t->wk, s->t->nwk, r);
}

/* A wakeup by a timer interrupt (nanosleep expiry and the like). */
static inline void synth_timer_wakeup(struct synth *s, uint64_t ts, uint32_t wakee, uint32_t wakee_pid,
				      int cpu)
{
	synth_wakeup(s, ts, 0, 0, wakee, wakee_pid, cpu);
	s->t->wk[s->t->nwk - 1].h.flags = QT_WAKE_HARDIRQ;
	s->t->wk[s->t->nwk - 1].waker_irq = QT_IRQ_TIMER;
}

static inline void synth_syscall(struct synth *s, uint64_t start, uint64_t end, uint32_t tid, uint32_t pid,
				 uint32_t nr, uint64_t arg0, int64_t ret)
{
	struct qt_syscall r = { .h = { .ts = start, .type = QT_REC_SYSCALL } };

	r.end_ts = end;
	r.tid = tid;
	r.tgid = pid;
	r.nr = nr;
	r.arg0 = arg0;
	r.ret = ret;
	SYNTH_PUSH_REC(s->t->sc, s->t->nsc, r);
}

static inline void synth_irq(struct synth *s, uint64_t start, uint64_t end, int cpu, uint32_t irq,
			     int soft, uint32_t interrupted_tid)
{
	struct qt_irq r = { .h = { .ts = start, .type = soft ? QT_REC_SOFTIRQ : QT_REC_IRQ, .cpu = cpu } };

	r.end_ts = end;
	r.irq = irq;
	r.tid = interrupted_tid;
	SYNTH_PUSH_REC(s->t->irq, s->t->nirq, r);
}

/*
 * A wakeup from a softirq (vector vec) running on cpu on top of thread
 * on/on_pid (0: idle), as the kernel side records it.
 */
static inline void synth_softirq_wakeup(struct synth *s, uint64_t ts, int cpu, uint32_t vec, uint32_t on,
					uint32_t on_pid, uint32_t wakee, uint32_t wakee_pid, int target_cpu)
{
	synth_wakeup(s, ts, on, on_pid, wakee, wakee_pid, target_cpu);
	s->t->wk[s->t->nwk - 1].h.flags = QT_WAKE_SOFTIRQ;
	s->t->wk[s->t->nwk - 1].h.cpu = cpu;
	s->t->wk[s->t->nwk - 1].waker_cpu = cpu;
	s->t->wk[s->t->nwk - 1].waker_irq = vec;
}

/*
 * A softirq raised on cpu by thread tid/pid (flags 0 or QT_RAISE_SYSCALL),
 * or with flags QT_WAKE_HARDIRQ / QT_WAKE_SOFTIRQ by the IRQ or vector irq
 * interrupting tid.
 */
static inline void synth_raise(struct synth *s, uint64_t ts, int cpu, uint32_t vec, uint8_t flags, uint16_t irq,
			       uint32_t tid, uint32_t pid)
{
	struct qt_softirq_raise r = { .h = { .ts = ts, .type = QT_REC_SOFTIRQ_RAISE, .flags = flags, .cpu = cpu } };

	r.vec = vec;
	r.irq = irq;
	r.tid = tid;
	r.tgid = pid;
	SYNTH_PUSH_REC(s->t->raise, s->t->nraise, r);
}

/* FORK, EXEC, RENAME or EXIT. */
static inline void synth_task(struct synth *s, uint8_t type, uint64_t ts, uint32_t tid, uint32_t pid,
			      uint32_t parent_tid, uint32_t parent_pid, const char *comm)
{
	struct qt_task r = { .h = { .ts = ts, .type = type } };

	r.tid = tid;
	r.tgid = pid;
	r.parent_tid = parent_tid;
	r.parent_tgid = parent_pid;
	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	SYNTH_PUSH_REC(s->t->task, s->t->ntask, r);
}

static inline void synth_lost(struct synth *s, int cpu, uint64_t first, uint64_t last, uint64_t count)
{
	struct qt_lost r = { .h = { .ts = last + 1, .type = QT_REC_LOST, .cpu = cpu } };

	r.first_ts = first;
	r.last_ts = last;
	r.count = count;
	SYNTH_PUSH_REC(s->t->lost, s->t->nlost, r);
	s->t->lost_events += count;
}

/* Hands the trace over (free it with trace__free) and frees the builder. */
static inline struct trace *synth_finish(struct synth *s)
{
	struct trace *t = s->t;

	t->by_type[QT_REC_SWITCH] = t->nsw;
	t->by_type[QT_REC_WAKEUP] = t->nwk;
	t->by_type[QT_REC_SYSCALL] = t->nsc;
	t->by_type[QT_REC_IRQ] = t->nirq;
	t->by_type[QT_REC_FORK] = t->ntask;
	t->by_type[QT_REC_LOST] = t->nlost;
	t->by_type[QT_REC_SOFTIRQ_RAISE] = t->nraise;
	t->by_type[QT_REC_DATA] = t->ndata;
	t->events = t->nsw + t->nwk + t->nsc + t->nirq + t->ntask + t->nlost + t->nraise + t->ndata;
	t->first_ts = t->start_ns;
	t->last_ts = t->stop_ns;
	free(s->rt);
	free(s);
	return t;
}

#endif
