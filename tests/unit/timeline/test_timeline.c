// SPDX-License-Identifier: MIT
/*
 * The timeline, on traces built in memory (synth_trace.h): runs per CPU
 * from switches, end states from raw task states, cuts at the recording's
 * bounds, out-of-order records, lost windows (gaps, no runs, exact cpu_ns),
 * unreported switches (runs with an unsure start sized by the kernel's
 * charge), wakeups and their wakers, syscalls per thread, tid reuse,
 * targets and the recorder, the event stream and missing-data queries.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/log.h"
#include "synth_trace.h"
#include "testutil.h"
#include "timeline/timeline.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* raw task states (include/linux/sched.h) */
#define S_RUNNING 0x0000
#define S_INTERRUPTIBLE 0x0001
#define S_UNINTERRUPTIBLE 0x0002
#define S_STOPPED 0x0004
#define S_TRACED 0x0008
#define S_EXIT_DEAD 0x0010
#define S_EXIT_ZOMBIE 0x0020
#define S_PARKED 0x0040
#define S_DEAD 0x0080
#define S_WAKEKILL 0x0100
#define S_NOLOAD 0x0400
#define S_RTLOCK_WAIT 0x1000
#define S_IDLE (S_UNINTERRUPTIBLE | S_NOLOAD)
#define S_KILLABLE (S_WAKEKILL | S_UNINTERRUPTIBLE)

static struct timeline *build(struct trace *t)
{
	struct timeline *tl = NULL;

	log_level = LOG_QUIET;
	cr_assert_eq(timeline__build(t, NULL, &tl), 0);
	return tl;
}

static void done(struct timeline *tl, struct trace *t)
{
	timeline__free(tl);
	trace__free(t);
}

/* The one thread with this tid. */
static uint32_t th_of(const struct timeline *tl, uint32_t tid)
{
	uint32_t found = TL_NONE;

	for (size_t i = 0; i < tl->nthreads; i++) {
		if (tl->threads[i].tid != tid)
			continue;
		cr_assert_eq(found, TL_NONE, "tid %u: more than one thread", tid);
		found = i;
	}
	cr_assert_neq(found, TL_NONE, "tid %u: no thread", tid);
	return found;
}

static const struct tl_run *run_of(const struct timeline *tl, uint32_t th, size_t k)
{
	cr_assert_lt(k, tl->threads[th].nrun, "thread %u has %zu runs, not %zu", th, tl->threads[th].nrun, k + 1);
	return &tl->runs[tl->threads[th].run0 + k];
}

#define EXPECT_RUN(r, s, e, c, state, fl)                                                           \
	cr_expect((r)->start == (s) && (r)->end == (e) && (r)->cpu == (c) && (r)->end_state == (state) && \
		  (r)->flags == (fl),                                                                \
		  "run [%llu, %llu) cpu %u end %s flags 0x%x, want [%llu, %llu) cpu %u end %s flags 0x%x", \
		  (unsigned long long)(r)->start, (unsigned long long)(r)->end, (r)->cpu,              \
		  timeline__end_state_name((r)->end_state), (r)->flags, (unsigned long long)(s),        \
		  (unsigned long long)(e), (unsigned)(c), timeline__end_state_name(state), (unsigned)(fl))

static int by_cpu_start(const void *x, const void *y)
{
	const struct tl_run *a = x, *b = y;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* Structural invariants every timeline must satisfy. */
static void check_invariants(const struct timeline *tl)
{
	struct tl_run *byc;
	size_t total = 0;

	for (size_t i = 0; i < tl->nthreads; i++) {
		const struct tl_thread *x = &tl->threads[i];
		uint64_t run_ns = 0;

		cr_assert_neq(x->tid, 0, "the idle task is never a thread");
		cr_assert_eq(x->run0, total, "runs are grouped by thread");
		total += x->nrun;
		for (size_t k = 0; k < x->nrun; k++) {
			const struct tl_run *r = &tl->runs[x->run0 + k];

			cr_assert_eq(r->thread, i);
			cr_assert_lt(r->start, r->end);
			cr_assert_geq(r->start, tl->start);
			cr_assert_leq(r->end, tl->end);
			cr_assert_lt(r->cpu, tl->ncpus);
			if (k)
				cr_assert_geq(r->start, tl->runs[x->run0 + k - 1].end,
					      "thread %u: runs overlap or are out of order", x->tid);
			run_ns += r->end - r->start;
		}
		cr_assert_eq(x->run_ns, run_ns);
		for (size_t k = 0; k < x->nsc; k++) {
			cr_assert_eq(tl->sc[x->sc0 + k].thread, i);
			if (k)
				cr_assert_geq(tl->sc[x->sc0 + k].start, tl->sc[x->sc0 + k - 1].start);
		}
		for (size_t k = 0; k < x->nwr; k++) {
			cr_assert_eq(tl->wk[tl->wk_by_wakee[x->wr0 + k]].wakee, i);
			if (k)
				cr_assert_gt(tl->wk_by_wakee[x->wr0 + k], tl->wk_by_wakee[x->wr0 + k - 1]);
		}
		for (size_t k = 0; k < x->nws; k++) {
			cr_assert_eq(tl->wk[tl->wk_by_waker[x->ws0 + k]].waker, i);
			if (k)
				cr_assert_gt(tl->wk_by_waker[x->ws0 + k], tl->wk_by_waker[x->ws0 + k - 1]);
		}
	}
	cr_assert_eq(total, tl->nruns);
	/* one CPU runs one thread at a time */
	byc = malloc((tl->nruns + 1) * sizeof(*byc));
	if (tl->nruns)
		memcpy(byc, tl->runs, tl->nruns * sizeof(*byc));
	qsort(byc, tl->nruns, sizeof(*byc), by_cpu_start);
	for (size_t i = 1; i < tl->nruns; i++)
		if (byc[i].cpu == byc[i - 1].cpu)
			cr_assert_geq(byc[i].start, byc[i - 1].end, "runs overlap on CPU %u at %llu", byc[i].cpu,
				      (unsigned long long)byc[i].start);
	free(byc);
	/* each CPU's list: its runs, every one once, in time order */
	{
		bool *seen = calloc(tl->nruns + 1, sizeof(*seen));

		cr_assert(tl->runs_by_cpu && tl->cpu_run0 && seen);
		cr_assert_eq(tl->cpu_run0[0], 0);
		cr_assert_eq(tl->cpu_run0[tl->ncpus], tl->nruns);
		for (int c = 0; c < tl->ncpus; c++) {
			for (size_t i = tl->cpu_run0[c]; i < tl->cpu_run0[c + 1]; i++) {
				uint32_t r = tl->runs_by_cpu[i];

				cr_assert_lt(r, tl->nruns);
				cr_assert(!seen[r], "run %u listed twice", r);
				seen[r] = true;
				cr_assert_eq(tl->runs[r].cpu, c, "run %u listed on CPU %d", r, c);
				if (i > tl->cpu_run0[c])
					cr_assert_geq(tl->runs[r].start, tl->runs[tl->runs_by_cpu[i - 1]].end,
						      "CPU %d: runs out of time order", c);
			}
		}
		free(seen);
	}
	for (size_t i = 1; i < tl->nwk; i++)
		cr_assert_geq(tl->wk[i].ts, tl->wk[i - 1].ts);
	for (size_t i = 1; i < tl->nirqs; i++)
		cr_assert_geq(tl->irqs[i].start, tl->irqs[i - 1].start);
	for (size_t i = 1; i < tl->ngaps; i++)
		cr_assert_geq(tl->gaps[i].start, tl->gaps[i - 1].start);
	{
		uint64_t unsure = 0;

		for (size_t i = 0; i < tl->nthreads; i++)
			unsure += tl->threads[i].unsure_ns;
		cr_assert_eq(unsure, tl->unsure_ns, "threads' unsure_ns add up to %llu, the timeline says %llu",
			     (unsigned long long)unsure, (unsigned long long)tl->unsure_ns);
	}
}

/* ---- end states ---- */

Test(timeline, end_state_classification)
{
	static const struct { uint32_t state; bool preempt; uint8_t want; } cases[] = {
		{ S_RUNNING, true, QT_END_PREEMPTED },
		{ S_RUNNING, false, QT_END_PREEMPTED },	/* sched_yield: still runnable */
		{ S_INTERRUPTIBLE, false, QT_END_SLEEP },
		{ S_INTERRUPTIBLE, true, QT_END_PREEMPTED },	/* preempted before it could sleep */
		{ S_UNINTERRUPTIBLE, false, QT_END_BLOCKED },
		{ S_KILLABLE, false, QT_END_BLOCKED },
		{ S_IDLE, false, QT_END_SLEEP },		/* TASK_IDLE: kthreads waiting, not blocked */
		{ S_INTERRUPTIBLE | S_NOLOAD, false, QT_END_SLEEP },
		{ S_DEAD, false, QT_END_EXITED },
		{ S_EXIT_DEAD, false, QT_END_EXITED },
		{ S_EXIT_ZOMBIE, false, QT_END_EXITED },
		{ S_DEAD | S_UNINTERRUPTIBLE, false, QT_END_EXITED },
		{ S_STOPPED, false, QT_END_OTHER },
		{ S_TRACED, false, QT_END_OTHER },
		{ S_PARKED, false, QT_END_OTHER },
		{ S_WAKEKILL | S_STOPPED, false, QT_END_OTHER },
		{ S_RTLOCK_WAIT, false, QT_END_BLOCKED },
		{ 0x8000, false, QT_END_OTHER },
	};
	static const char *const names[] = { "preempted", "sleep", "blocked", "other", "exited", "running",
					      "unknown" };

	for (size_t i = 0; i < N(cases); i++)
		cr_expect_eq(timeline__end_state(cases[i].state, cases[i].preempt), cases[i].want,
			     "state 0x%x preempt %d: %s, want %s", cases[i].state, cases[i].preempt,
			     timeline__end_state_name(timeline__end_state(cases[i].state, cases[i].preempt)),
			     timeline__end_state_name(cases[i].want));
	for (uint8_t e = 0; e < N(names); e++)
		cr_expect_str_eq(timeline__end_state_name(e), names[e]);
	cr_expect_str_eq(timeline__end_state_name(7), "?");
	cr_expect_str_eq(timeline__end_state_name(255), "?");
}

/* The raw state of each switch decides how the run ended. */
Test(timeline, end_states_of_runs)
{
	static const struct { uint32_t state; bool preempt; uint8_t want; } how[] = {
		{ S_RUNNING, false, QT_END_PREEMPTED }, { S_IDLE, false, QT_END_SLEEP },
		{ S_UNINTERRUPTIBLE, false, QT_END_BLOCKED }, { S_STOPPED, false, QT_END_OTHER },
		{ S_INTERRUPTIBLE, true, QT_END_PREEMPTED }, { S_DEAD, false, QT_END_EXITED },
	};
	struct synth *s = synth_new(0, 10000, 1);
	struct timeline *tl;
	struct trace *t;
	uint32_t a;

	synth_thread(s, 10, 10, "a");
	for (size_t i = 0; i < N(how); i++) {
		synth_switch(s, 100 + i * 100, 0, 0, 0, SYN_PREEMPT, 10, 10);
		synth_switch(s, 150 + i * 100, 0, 10, 10, SYN_SLEEP, 0, 0);
		s->t->sw[s->t->nsw - 1].prev_state = how[i].state;
		s->t->sw[s->t->nsw - 1].h.flags = how[i].preempt ? QT_SWITCH_PREEMPT : 0;
	}
	t = synth_finish(s);
	tl = build(t);
	a = th_of(tl, 10);
	cr_assert_eq(tl->threads[a].nrun, N(how));
	for (size_t i = 0; i < N(how); i++)
		EXPECT_RUN(run_of(tl, a, i), 100 + i * 100, 150 + i * 100, 0, how[i].want, 0);
	cr_expect_eq(tl->threads[a].npreempted, 2);
	cr_expect_eq(tl->threads[a].nvoluntary, 2, "sleep and blocked; other and exited are neither");
	check_invariants(tl);
	done(tl, t);
}

/* ---- runs ---- */

/* The picture in timeline.h, plus what the recording's bounds cut. */
Test(timeline, runs_and_cuts)
{
	struct synth *s = synth_new(0, 1000, 3);
	struct timeline *tl;
	struct trace *t;
	uint32_t a, b, c;

	synth_thread(s, 10, 10, "A");
	synth_thread(s, 20, 20, "B");
	synth_thread(s, 30, 30, "C");
	synth_switch(s, 100, 0, 10, 10, SYN_SLEEP, 20, 20);	/* A was running at the start */
	synth_switch(s, 300, 0, 20, 20, SYN_PREEMPT, 10, 10);
	synth_switch(s, 600, 0, 10, 10, SYN_SLEEP, 0, 0);
	synth_switch(s, 0, 1, 0, 0, SYN_PREEMPT, 30, 30);	/* a switch exactly at the start */
	synth_switch(s, 700, 1, 30, 30, SYN_PREEMPT, 20, 20);	/* B runs to the end */
	/* CPU 2: no switch at all, no runs */
	t = synth_finish(s);
	tl = build(t);
	a = th_of(tl, 10);
	b = th_of(tl, 20);
	c = th_of(tl, 30);
	cr_assert_eq(tl->threads[a].nrun, 2);
	EXPECT_RUN(run_of(tl, a, 0), 0, 100, 0, QT_END_SLEEP, TL_RUN_START_CUT);
	EXPECT_RUN(run_of(tl, a, 1), 300, 600, 0, QT_END_SLEEP, 0);
	cr_assert_eq(tl->threads[b].nrun, 2);
	EXPECT_RUN(run_of(tl, b, 0), 100, 300, 0, QT_END_PREEMPTED, 0);
	EXPECT_RUN(run_of(tl, b, 1), 700, 1000, 1, QT_END_TRUNCATED, TL_RUN_END_CUT);
	cr_assert_eq(tl->threads[c].nrun, 1);
	EXPECT_RUN(run_of(tl, c, 0), 0, 700, 1, QT_END_PREEMPTED, 0);
	cr_expect_eq(tl->threads[a].run_ns, 400);
	cr_expect_eq(tl->threads[a].first_run, 0);
	cr_expect_eq(tl->threads[a].last_end, 600);
	cr_expect_eq(tl->threads[a].nvoluntary, 2);
	cr_expect_eq(tl->threads[b].npreempted, 1);
	cr_expect_eq(tl->threads[b].nvoluntary, 0);
	cr_expect_eq(tl->nruns, 5);
	cr_expect_eq(tl->nthreads, 3, "idle is not a thread");
	cr_expect_eq(tl->ngaps, 0);
	cr_expect_eq(tl->broken_chains, 0);
	cr_expect_eq(tl->out_of_order, 1, "the switch at 0 came after the one at 600");
	/* CPU time: C's runtime at its switch-out (700 - 0); A's first run began before the start */
	cr_expect_eq(tl->threads[c].cpu_ns, 700);
	cr_expect_eq(tl->threads[b].cpu_ns, 200, "the run still going at the end is not charged");
	check_invariants(tl);
	done(tl, t);
}

/* cpu_ns comes from the kernel's runtime: exact for every switch-out after the first. */
Test(timeline, cpu_time_from_the_kernel)
{
	struct synth *s = synth_new(0, 10000, 2);
	struct timeline *tl;
	struct trace *t;
	uint32_t a, n;

	synth_thread(s, 10, 10, "A");
	synth_task(s, QT_REC_FORK, 50, 11, 11, 10, 10, "new");
	synth_switch(s, 100, 0, 0, 0, SYN_PREEMPT, 10, 10);
	synth_switch(s, 200, 0, 10, 10, SYN_PREEMPT, 11, 11);
	synth_switch(s, 250, 0, 11, 11, SYN_SLEEP, 10, 10);
	synth_switch(s, 450, 0, 10, 10, SYN_SLEEP, 0, 0);
	synth_switch(s, 500, 1, 0, 0, SYN_PREEMPT, 11, 11);
	synth_switch(s, 800, 1, 11, 11, SYN_EXIT, 0, 0);
	t = synth_finish(s);
	tl = build(t);
	a = th_of(tl, 10);
	n = th_of(tl, 11);
	cr_expect_eq(tl->threads[a].cpu_ns, 300);
	cr_expect_eq(tl->threads[n].cpu_ns, 350);
	cr_expect_eq(tl->threads[n].run_ns, 350);
	cr_expect(tl->threads[n].flags & TT_BORN);
	EXPECT_RUN(run_of(tl, n, 1), 500, 800, 1, QT_END_EXITED, 0);
	check_invariants(tl);
	done(tl, t);
}

/* ---- random schedules, in order and shuffled ---- */

struct sched_opts {
	int ncpus, nthreads, nswitches;
	bool extras;		/* wakeups, syscalls, IRQs */
	uint64_t lost_from, lost_to;	/* a window lost on CPU 1, if lost_to */
};

static struct trace *random_schedule(unsigned long long seed, const struct sched_opts *o)
{
	struct synth *s = synth_new(0, 1, o->ncpus);
	uint32_t *cur = calloc(o->ncpus, sizeof(*cur));
	bool *running = calloc(o->nthreads + 1, sizeof(*running));
	uint64_t ts = 100;

	for (int i = 1; i <= o->nthreads; i++) {
		char name[16];

		snprintf(name, sizeof(name), "t%d", i);
		synth_thread(s, 1000 + i, 1000 + (i - 1) / 3 * 3 + 1, name);
	}
	for (int k = 0; k < o->nswitches; k++) {
		int cpu = tu_rand(&seed) % o->ncpus;
		uint32_t next = 0, prev = cur[cpu];

		ts += 1 + tu_rand(&seed) % 60;
		for (int tries = 0; tries < 4 && !next; tries++) {
			uint32_t cand = 1 + tu_rand(&seed) % o->nthreads;

			if (!running[cand])
				next = cand;
		}
		if (tu_rand(&seed) % 5 == 0)
			next = 0;
		if (next == prev)
			continue;
		synth_switch(s, ts, cpu, prev ? 1000 + prev : 0, prev ? 1000 + (prev - 1) / 3 * 3 + 1 : 0,
			     tu_rand(&seed) % 3, next ? 1000 + next : 0, next ? 1000 + (next - 1) / 3 * 3 + 1 : 0);
		running[prev] = false;
		running[next] = next != 0;
		cur[cpu] = next;
		if (o->extras && tu_rand(&seed) % 3 == 0) {
			uint32_t a = 1 + tu_rand(&seed) % o->nthreads, b = 1 + tu_rand(&seed) % o->nthreads;

			ts++;
			switch (tu_rand(&seed) % 4) {
			case 0: synth_wakeup(s, ts, 1000 + a, 0, 1000 + b, 0, cpu); break;
			case 1: synth_timer_wakeup(s, ts, 1000 + b, 0, cpu); break;
			case 2: synth_syscall(s, ts, ts + tu_rand(&seed) % 500, 1000 + a, 0, tu_rand(&seed) % 300, a, -(int64_t)b); break;
			case 3: synth_irq(s, ts, ts + 3, cpu, 30 + a % 4, a % 2, prev ? 1000 + prev : 0); break;
			}
		}
	}
	s->t->stop_ns = ts + 1000;
	if (o->lost_to) {
		size_t keep = 0;

		for (size_t i = 0; i < s->t->nsw; i++)
			if (s->t->sw[i].h.cpu != 1 || s->t->sw[i].h.ts < o->lost_from || s->t->sw[i].h.ts > o->lost_to)
				s->t->sw[keep++] = s->t->sw[i];
		synth_lost(s, 1, o->lost_from, o->lost_to, s->t->nsw - keep);
		s->t->nsw = keep;
	}
	free(cur);
	free(running);
	return synth_finish(s);
}

/* Shuffles each window of w elements (arrival order: records of CPUs interleave). */
static void shuffle_windows(void *arr, size_t n, size_t elem, size_t w, unsigned long long *seed)
{
	char *a = arr, tmp[256];

	cr_assert_leq(elem, sizeof(tmp));
	for (size_t lo = 0; lo < n; lo += w) {
		size_t len = n - lo < w ? n - lo : w;

		for (size_t i = len; i > 1; i--) {
			size_t j = tu_rand(seed) % i;

			memcpy(tmp, a + (lo + i - 1) * elem, elem);
			memcpy(a + (lo + i - 1) * elem, a + (lo + j) * elem, elem);
			memcpy(a + (lo + j) * elem, tmp, elem);
		}
	}
}

static void expect_same_timeline(const struct timeline *x, const struct timeline *y)
{
	cr_assert_eq(x->nthreads, y->nthreads);
	cr_assert_eq(x->nruns, y->nruns);
	cr_assert_eq(x->nsc, y->nsc);
	cr_assert_eq(x->nwk, y->nwk);
	cr_assert_eq(x->nirqs, y->nirqs);
	cr_assert_eq(x->ngaps, y->ngaps);
	for (size_t i = 0; i < x->nruns; i++)
		cr_assert_eq(memcmp(&x->runs[i], &y->runs[i], sizeof(x->runs[i])), 0, "run %zu differs", i);
	for (size_t i = 0; i < x->nthreads; i++)
		cr_assert_eq(memcmp(&x->threads[i], &y->threads[i], sizeof(x->threads[i])), 0,
			     "thread %zu differs", i);
	/* field by field where structs have padding */
	for (size_t i = 0; i < x->nsc; i++) {
		const struct tl_syscall *a = &x->sc[i], *b = &y->sc[i];

		cr_assert(a->start == b->start && a->end == b->end && a->ret == b->ret && a->arg0 == b->arg0 &&
			  a->thread == b->thread && a->nr == b->nr && a->cpu == b->cpu && a->flags == b->flags,
			  "syscall %zu differs", i);
	}
	cr_assert_eq(memcmp(x->wk, y->wk, x->nwk * sizeof(*x->wk)), 0);
	for (size_t i = 0; i < x->nirqs; i++) {
		const struct tl_irq *a = &x->irqs[i], *b = &y->irqs[i];

		cr_assert(a->start == b->start && a->end == b->end && a->num == b->num &&
			  a->thread == b->thread && a->cpu == b->cpu && a->soft == b->soft && a->ret == b->ret,
			  "irq %zu differs", i);
	}
	for (size_t i = 0; i < x->ngaps; i++) {
		const struct tl_gap *a = &x->gaps[i], *b = &y->gaps[i];

		cr_assert(a->start == b->start && a->end == b->end && a->count == b->count && a->cpu == b->cpu &&
			  a->kind == b->kind, "gap %zu differs", i);
	}
	{
		/* the index lists hold the wakeups that have a wakee / a waker thread */
		size_t nwr = 0, nws = 0;

		for (size_t i = 0; i < x->nthreads; i++) {
			nwr += x->threads[i].nwr;
			nws += x->threads[i].nws;
		}
		cr_assert_eq(memcmp(x->wk_by_wakee, y->wk_by_wakee, nwr * sizeof(uint32_t)), 0);
		cr_assert_eq(memcmp(x->wk_by_waker, y->wk_by_waker, nws * sizeof(uint32_t)), 0);
	}
	cr_assert_eq(x->broken_chains, y->broken_chains);
}

Test(timeline, out_of_order_records_give_the_same_timeline)
{
	struct sched_opts o = { .ncpus = 4, .nthreads = 12, .nswitches = 3000, .extras = true };

	for (unsigned long long seed = 1; seed <= 10; seed++) {
		struct trace *t1 = random_schedule(seed, &o), *t2 = random_schedule(seed, &o);
		unsigned long long sh = seed * 7919;
		struct timeline *x, *y;

		shuffle_windows(t2->sw, t2->nsw, sizeof(*t2->sw), 2 + seed % 9, &sh);
		shuffle_windows(t2->wk, t2->nwk, sizeof(*t2->wk), 5, &sh);
		shuffle_windows(t2->sc, t2->nsc, sizeof(*t2->sc), 5, &sh);
		shuffle_windows(t2->irq, t2->nirq, sizeof(*t2->irq), 5, &sh);
		x = build(t1);
		y = build(t2);
		cr_expect_eq(x->out_of_order, 0);
		cr_expect_gt(y->out_of_order, 0, "seed %llu: the shuffle did nothing", seed);
		cr_expect_eq(x->broken_chains, 0, "seed %llu", seed);
		expect_same_timeline(x, y);
		check_invariants(x);
		/* every switch-out is charged exactly: all runs began with a recorded switch */
		for (size_t i = 0; i < x->nthreads; i++) {
			const struct tl_thread *th = &x->threads[i];
			uint64_t charged = 0;

			for (size_t k = 0; k < th->nrun; k++)
				if (!(x->runs[th->run0 + k].flags & TL_RUN_END_CUT))
					charged += x->runs[th->run0 + k].end - x->runs[th->run0 + k].start;
			cr_expect_eq(th->cpu_ns, charged, "seed %llu thread %u", seed, th->tid);
		}
		done(x, t1);
		done(y, t2);
	}
}

/*
 * A wakeup that knows only the wakee's last CPU gets the CPU of the
 * wakee's next run, checked against a scan of all its runs; records that
 * arrive late and wakees woken after their last run included.
 */
Test(timeline, wakeup_target_cpu_is_the_next_runs)
{
	struct sched_opts o = { .ncpus = 3, .nthreads = 6, .nswitches = 2000, .extras = true };
	size_t resolved = 0, at_start = 0, after_last = 0, unchanged = 0;

	for (unsigned long long seed = 1; seed <= 20; seed++) {
		struct trace *t = random_schedule(seed, &o);
		unsigned long long s2 = seed * 7919;
		struct timeline *tl;

		for (size_t i = 0; i < t->nwk; i++) {
			t->wk[i].target_cpu = 99;
			if (tu_rand(&s2) % 4)
				t->wk[i].h.flags |= QT_WAKE_CPU_PREV;
			if (tu_rand(&s2) % 3 == 0)	/* at the switch before it: a run may start then */
				t->wk[i].h.ts--;
			if (tu_rand(&s2) % 50 == 0)	/* arrives late */
				t->wk[i].h.ts -= tu_rand(&s2) % 2000;
		}
		tl = build(t);
		for (size_t i = 0; i < tl->nwk; i++) {
			const struct tl_wakeup *w = &tl->wk[i];
			const struct tl_thread *x;
			int want = 99;

			if (w->wakee == TL_NONE)
				continue;
			x = &tl->threads[w->wakee];
			if (w->flags & QT_WAKE_CPU_PREV)
				for (size_t k = x->run0; k < x->run0 + x->nrun && want == 99; k++)
					if (tl->runs[k].start >= w->ts) {
						want = tl->runs[k].cpu;
						at_start += tl->runs[k].start == w->ts;
					}
			cr_assert_eq(w->target_cpu, want, "seed %llu wakeup %zu at %llu", seed, i,
				     (unsigned long long)w->ts);
			if (!(w->flags & QT_WAKE_CPU_PREV))
				unchanged++;
			else if (want == 99)
				after_last++;
			else
				resolved++;
		}
		done(tl, t);
	}
	cr_expect_gt(resolved, 1000);
	cr_expect_gt(at_start, 10);
	cr_expect_gt(after_last, 0);
	cr_expect_gt(unchanged, 100);
}

/* The next run from a cursor, asked in time order or from the first run, against a scan. */
Test(timeline, next_run_from_a_cursor_is_the_scans)
{
	struct sched_opts o = { .ncpus = 2, .nthreads = 5, .nswitches = 3000 };
	unsigned long long seed = 11;
	struct trace *t = random_schedule(seed, &o);
	struct timeline *tl = build(t);
	size_t asked = 0;

	for (size_t th = 0; th < tl->nthreads; th++) {
		const struct tl_thread *x = &tl->threads[th];
		size_t end = x->run0 + x->nrun, r = x->run0;
		uint64_t ts = 0;

		while (ts < tl->end + 100) {
			size_t want = x->run0;

			ts += tu_rand(&seed) % 3 ? tu_rand(&seed) % 40 : tu_rand(&seed) % 400;
			while (want < end && tl->runs[want].start < ts)
				want++;
			r = timeline__next_run(tl, x, r, ts);
			cr_assert_eq(r, want, "thread %zu ts %llu (cursor)", th, (unsigned long long)ts);
			cr_assert_eq(timeline__next_run(tl, x, x->run0, ts), want, "thread %zu ts %llu (first)", th,
				     (unsigned long long)ts);
			asked++;
		}
	}
	cr_expect_gt(asked, 1000);
	done(tl, t);
}

/*
 * Built consuming the trace's records (report, export): the same timeline,
 * with lost windows and every kind of record, and the records are gone
 * afterwards while the counts by type and the task records stay.
 */
Test(timeline, consuming_build_gives_the_same_timeline)
{
	struct sched_opts o = { .ncpus = 4, .nthreads = 12, .nswitches = 3000, .extras = true,
				.lost_from = 5000, .lost_to = 9000 };

	for (unsigned long long seed = 1; seed <= 5; seed++) {
		struct trace *t1 = random_schedule(seed, &o), *t2 = random_schedule(seed, &o);
		struct timeline_opts to = { 0 };
		struct timeline *x, *y;
		uint64_t by_switch = t2->by_type[QT_REC_SWITCH];

		cr_assert_gt(t2->nsw, 0);
		cr_assert_gt(t2->nwk + t2->nsc + t2->nirq, 0);
		x = build(t1);
		cr_assert_eq(timeline__build_consuming(t2, &to, &y), 0);
		expect_same_timeline(x, y);
		check_invariants(y);
		cr_assert(!t2->sw && !t2->wk && !t2->sc && !t2->irq, "seed %llu: records kept", seed);
		cr_assert_eq(t2->nsw + t2->nwk + t2->nsc + t2->nirq, 0);
		cr_assert_eq(t2->by_type[QT_REC_SWITCH], by_switch);
		cr_assert_eq(t2->ntask, t1->ntask);
		cr_assert_gt(t1->nsw, 0, "the plain build keeps them");
		done(x, t1);
		done(y, t2);
	}
}

/* ---- lost records ---- */

/*
 * CPU 0 loses the switches at 300 and 400 (window [280, 420]); CPU 1 loses
 * nothing. No run on CPU 0 may overlap the window; CPU 1 is untouched; the
 * CPU time of A and B is still exact, from the kernel's cumulative runtime.
 */
Test(timeline, lost_window)
{
	struct synth *s = synth_new(0, 1000, 2);
	struct timeline *tl;
	struct trace *t;
	uint32_t a, b, c;
	size_t keep = 0;

	synth_thread(s, 10, 10, "A");
	synth_thread(s, 20, 20, "B");
	synth_thread(s, 30, 30, "C");
	synth_switch(s, 100, 0, 0, 0, SYN_PREEMPT, 10, 10);
	synth_switch(s, 200, 0, 10, 10, SYN_PREEMPT, 20, 20);
	synth_switch(s, 250, 0, 20, 20, SYN_PREEMPT, 10, 10);
	synth_switch(s, 300, 0, 10, 10, SYN_PREEMPT, 20, 20);	/* lost */
	synth_switch(s, 400, 0, 20, 20, SYN_PREEMPT, 10, 10);	/* lost */
	synth_switch(s, 500, 0, 10, 10, SYN_PREEMPT, 20, 20);
	synth_switch(s, 600, 0, 20, 20, SYN_SLEEP, 0, 0);
	synth_switch(s, 150, 1, 0, 0, SYN_PREEMPT, 30, 30);
	synth_switch(s, 350, 1, 30, 30, SYN_SLEEP, 0, 0);
	synth_switch(s, 700, 1, 0, 0, SYN_PREEMPT, 30, 30);
	for (size_t i = 0; i < s->t->nsw; i++)
		if (!(s->t->sw[i].h.cpu == 0 && s->t->sw[i].h.ts >= 280 && s->t->sw[i].h.ts <= 420))
			s->t->sw[keep++] = s->t->sw[i];
	s->t->nsw = keep;
	synth_lost(s, 0, 280, 420, 2);
	t = synth_finish(s);
	tl = build(t);
	a = th_of(tl, 10);
	b = th_of(tl, 20);
	c = th_of(tl, 30);
	for (size_t i = 0; i < tl->nruns; i++)
		cr_expect(tl->runs[i].cpu != 0 || tl->runs[i].end <= 280 || tl->runs[i].start > 420,
			  "run [%llu, %llu) overlaps the lost window", (unsigned long long)tl->runs[i].start,
			  (unsigned long long)tl->runs[i].end);
	cr_assert_eq(tl->threads[a].nrun, 1);
	EXPECT_RUN(run_of(tl, a, 0), 100, 200, 0, QT_END_PREEMPTED, 0);
	cr_assert_eq(tl->threads[b].nrun, 2);
	EXPECT_RUN(run_of(tl, b, 0), 200, 250, 0, QT_END_PREEMPTED, 0);
	EXPECT_RUN(run_of(tl, b, 1), 500, 600, 0, QT_END_SLEEP, 0);
	cr_assert_eq(tl->threads[c].nrun, 2);
	EXPECT_RUN(run_of(tl, c, 0), 150, 350, 1, QT_END_SLEEP, 0);
	EXPECT_RUN(run_of(tl, c, 1), 700, 1000, 1, QT_END_TRUNCATED, TL_RUN_END_CUT);
	/* A ran 100 + 50 + 100, B 50 + 100 + 100: the kernel's totals */
	cr_expect_eq(tl->threads[a].cpu_ns, 250);
	cr_expect_eq(tl->threads[b].cpu_ns, 250);
	cr_expect_eq(tl->threads[c].cpu_ns, 200);
	cr_expect_eq(tl->runs_dropped, 1, "A's run [250, 500) spans the loss");
	cr_assert_eq(tl->ngaps, 1);
	cr_expect_eq(tl->gaps[0].kind, TL_GAP_LOST);
	cr_expect_eq(tl->gaps[0].cpu, 0);
	cr_expect_eq(tl->gaps[0].start, 280);
	cr_expect_eq(tl->gaps[0].end, 421);
	cr_expect_eq(tl->gaps[0].count, 2);
	cr_expect_eq(tl->broken_chains, 0, "A -> B at 500 chains with B -> A at 250");
	cr_expect(timeline__missing(tl, 0, 300, 310));
	cr_expect(timeline__missing(tl, -1, 300, 310));
	cr_expect_not(timeline__missing(tl, 1, 300, 310));
	cr_expect_not(timeline__missing(tl, 0, 100, 200));
	check_invariants(tl);
	done(tl, t);
}

/* A loss that breaks the chain: nothing is assumed, the CPU time is still charged. */
Test(timeline, lost_window_breaking_the_chain)
{
	struct synth *s = synth_new(0, 1000, 1);
	struct timeline *tl;
	struct trace *t;
	size_t keep = 0;

	synth_thread(s, 10, 10, "A");
	synth_thread(s, 20, 20, "B");
	synth_switch(s, 100, 0, 0, 0, SYN_PREEMPT, 10, 10);
	synth_switch(s, 200, 0, 10, 10, SYN_PREEMPT, 20, 20);
	synth_switch(s, 300, 0, 20, 20, SYN_PREEMPT, 10, 10);	/* lost */
	synth_switch(s, 400, 0, 10, 10, SYN_PREEMPT, 20, 20);
	synth_switch(s, 450, 0, 20, 20, SYN_SLEEP, 0, 0);
	for (size_t i = 0; i < s->t->nsw; i++)
		if (s->t->sw[i].h.ts != 300)
			s->t->sw[keep++] = s->t->sw[i];
	s->t->nsw = keep;
	synth_lost(s, 0, 290, 310, 1);
	t = synth_finish(s);
	tl = build(t);
	/* A -> B at 400 follows A -> B at 200: broken, but records were lost */
	cr_expect_eq(tl->broken_chains, 1);
	cr_expect_eq(tl->unsure_runs, 0);
	cr_expect_eq(tl->threads[th_of(tl, 10)].nrun, 1);
	cr_expect_eq(tl->threads[th_of(tl, 10)].cpu_ns, 200, "100 before, 100 in the window");
	cr_expect_eq(tl->threads[th_of(tl, 20)].nrun, 1, "B [400, 450); [200, 300) spans the loss");
	/*
	 * B's first switch-out was lost, so its first known runtime includes
	 * time from before the recording: only the run seen counts.
	 */
	cr_expect_eq(tl->threads[th_of(tl, 20)].cpu_ns, 50);
	cr_assert_eq(tl->ngaps, 1);
	cr_expect_eq(tl->gaps[0].kind, TL_GAP_LOST);
	check_invariants(tl);
	done(tl, t);
}

/*
 * Nothing lost, but the switch A -> B at 200 was not reported (a kernel that
 * filters the tracepoint): B's run is kept, as long as the kernel charged it
 * and flagged unsure, and [100, 200) becomes a gap: from 200 on the kernel's
 * charge says B ran, so A can only have run unseen before. A's run from 330
 * has no earlier charge: the whole window [260, 400) stays a gap.
 */
Test(timeline, unreported_switch)
{
	struct synth *s = synth_new(0, 1000, 2);
	struct timeline *tl;
	struct trace *t;
	uint32_t a, b, c;
	size_t keep = 0;

	synth_thread(s, 10, 10, "A");
	synth_thread(s, 20, 20, "B");
	synth_thread(s, 30, 30, "C");
	synth_switch(s, 10, 1, 0, 0, SYN_PREEMPT, 20, 20);	/* B ran 30 on CPU 1 before */
	synth_switch(s, 40, 1, 20, 20, SYN_SLEEP, 0, 0);
	synth_switch(s, 100, 0, 0, 0, SYN_PREEMPT, 10, 10);
	synth_switch(s, 200, 0, 10, 10, SYN_SLEEP, 20, 20);	/* not reported */
	synth_switch(s, 260, 0, 20, 20, SYN_SLEEP, 30, 30);
	synth_switch(s, 300, 0, 30, 30, SYN_SLEEP, 0, 0);	/* not reported */
	synth_switch(s, 330, 0, 0, 0, SYN_PREEMPT, 10, 10);	/* not reported */
	synth_switch(s, 400, 0, 10, 10, SYN_SLEEP, 0, 0);
	for (size_t i = 0; i < s->t->nsw; i++)
		if (s->t->sw[i].h.ts != 200 && s->t->sw[i].h.ts != 300 && s->t->sw[i].h.ts != 330)
			s->t->sw[keep++] = s->t->sw[i];
	s->t->nsw = keep;
	t = synth_finish(s);
	tl = build(t);
	a = th_of(tl, 10);
	b = th_of(tl, 20);
	c = th_of(tl, 30);
	cr_expect_eq(tl->broken_chains, 2);
	cr_assert_eq(tl->threads[b].nrun, 2);
	EXPECT_RUN(run_of(tl, b, 0), 10, 40, 1, QT_END_SLEEP, 0);
	EXPECT_RUN(run_of(tl, b, 1), 200, 260, 0, QT_END_SLEEP, TL_RUN_START_UNSURE);
	/* A's second run: its first charge is unknown, so the whole window [260, 400) */
	cr_assert_eq(tl->threads[a].nrun, 1);
	EXPECT_RUN(run_of(tl, a, 0), 260, 400, 0, QT_END_SLEEP, TL_RUN_START_UNSURE);
	cr_expect_eq(tl->threads[c].nrun, 0, "C's switch out was not reported: its run is unknown");
	cr_expect_eq(tl->unsure_runs, 2);
	cr_expect_eq(tl->threads[b].unsure_ns, 60);
	cr_expect_eq(tl->threads[a].unsure_ns, 140);
	cr_expect_eq(tl->unsure_ns, 200, "the runs' total span");
	cr_expect_eq(tl->threads[b].cpu_ns, 90);
	cr_assert_eq(tl->ngaps, 2);
	cr_expect(tl->gaps[0].kind == TL_GAP_BROKEN && tl->gaps[0].cpu == 0 && tl->gaps[0].start == 100 &&
		  tl->gaps[0].end == 200, "gap [%llu, %llu)", (unsigned long long)tl->gaps[0].start,
		  (unsigned long long)tl->gaps[0].end);
	cr_expect(tl->gaps[1].kind == TL_GAP_BROKEN && tl->gaps[1].start == 260 && tl->gaps[1].end == 400);
	cr_expect_eq(tl->gaps[0].hidden, 10, "A was switched in at 100 and its switch out went unreported");
	cr_expect_eq(tl->gaps[1].hidden, 30);
	cr_expect(timeline__missing(tl, 0, 150, 160));
	cr_expect(timeline__missing(tl, 0, 199, 199));
	cr_expect_not(timeline__missing(tl, 0, 200, 259), "B ran then, the kernel's charge says");
	cr_expect_not(timeline__missing(tl, 1, 150, 160));
	check_invariants(tl);
	done(tl, t);
}

/*
 * Which threads' switches out went unreported, most often first: A's
 * three times, C's once, idle's once, as `info` and the report name them.
 */
Test(timeline, hidden_threads_named)
{
	struct synth *s = synth_new(0, 1000, 1);
	static const uint64_t dropped[] = { 200, 300, 420, 520, 620 };
	struct timeline *tl;
	struct trace *t;
	char buf[160];
	size_t keep = 0;

	synth_thread(s, 10, 10, "A");
	synth_thread(s, 20, 20, "B");
	synth_thread(s, 30, 30, "C");
	synth_switch(s, 100, 0, 0, 0, SYN_PREEMPT, 10, 10);
	synth_switch(s, 200, 0, 10, 10, SYN_SLEEP, 20, 20);	/* dropped: out of A */
	synth_switch(s, 260, 0, 20, 20, SYN_SLEEP, 30, 30);
	synth_switch(s, 300, 0, 30, 30, SYN_SLEEP, 20, 20);	/* dropped: out of C */
	synth_switch(s, 360, 0, 20, 20, SYN_SLEEP, 10, 10);
	synth_switch(s, 420, 0, 10, 10, SYN_SLEEP, 20, 20);	/* dropped: out of A */
	synth_switch(s, 480, 0, 20, 20, SYN_SLEEP, 10, 10);
	synth_switch(s, 520, 0, 10, 10, SYN_SLEEP, 0, 0);	/* dropped: out of A */
	synth_switch(s, 560, 0, 0, 0, SYN_PREEMPT, 0, 0);
	synth_switch(s, 580, 0, 0, 0, SYN_PREEMPT, 0, 0);
	synth_switch(s, 600, 0, 0, 0, SYN_PREEMPT, 20, 20);
	synth_switch(s, 610, 0, 20, 20, SYN_SLEEP, 0, 0);
	synth_switch(s, 620, 0, 0, 0, SYN_PREEMPT, 30, 30);	/* dropped: out of idle */
	synth_switch(s, 700, 0, 30, 30, SYN_SLEEP, 0, 0);
	for (size_t i = 0; i < s->t->nsw; i++) {
		bool drop = false;

		for (size_t k = 0; k < sizeof(dropped) / sizeof(dropped[0]); k++)
			drop |= s->t->sw[i].h.ts == dropped[k];
		if (!drop)
			s->t->sw[keep++] = s->t->sw[i];
	}
	s->t->nsw = keep;
	t = synth_finish(s);
	tl = build(t);
	cr_expect_eq(tl->broken_chains, 5);
	cr_expect_eq(timeline__hidden_threads(tl, buf, sizeof(buf)), 3);
	cr_expect_str_eq(buf, "A/10 (3), idle/0 (1), C/30 (1)");
	/* a short buffer is cut, never overrun */
	cr_expect_eq(timeline__hidden_threads(tl, buf, 8), 3);
	cr_expect_str_eq(buf, "A/10 (3");
	done(tl, t);
}

/* ---- wakeups, syscalls, IRQs ---- */

Test(timeline, wakeups)
{
	struct synth *s = synth_new(0, 1000, 2);
	struct timeline *tl;
	struct trace *t;
	uint32_t a, b, c;
	const struct tl_thread *tb;

	synth_thread(s, 10, 10, "A");
	synth_thread(s, 20, 20, "B");
	synth_thread(s, 30, 30, "C");
	synth_wakeup(s, 100, 10, 10, 20, 20, 1);	/* A wakes B */
	synth_timer_wakeup(s, 200, 20, 20, 0);		/* a timer wakes B */
	synth_wakeup(s, 300, 10, 10, 20, 20, 0);	/* a softirq running on A's time wakes B */
	s->t->wk[s->t->nwk - 1].h.flags = QT_WAKE_SOFTIRQ;
	s->t->wk[s->t->nwk - 1].waker_irq = 3;
	synth_wakeup(s, 400, 0, 0, 30, 30, 0);		/* the idle task wakes C */
	synth_wakeup(s, 500, 20, 20, 30, 30, 1);	/* B wakes C: first run of a new thread */
	s->t->wk[s->t->nwk - 1].h.type = QT_REC_WAKEUP_NEW;
	s->t->wk[s->t->nwk - 1].waking_ts = 490;
	synth_wakeup(s, 150, 30, 30, 20, 20, 1);	/* out of order: C wakes B */
	t = synth_finish(s);
	tl = build(t);
	a = th_of(tl, 10);
	b = th_of(tl, 20);
	c = th_of(tl, 30);
	cr_assert_eq(tl->nwk, 6);
	cr_expect_eq(tl->wk[0].waker, a);
	cr_expect_eq(tl->wk[0].wakee, b);
	cr_expect_eq(tl->wk[1].ts, 150);
	cr_expect_eq(tl->wk[1].waker, c);
	cr_expect_eq(tl->wk[2].waker, TL_NONE, "an interrupt wakes for nobody");
	cr_expect_eq(tl->wk[2].flags, QT_WAKE_HARDIRQ);
	cr_expect_eq(tl->wk[2].irq, QT_IRQ_TIMER);
	cr_expect_eq(tl->wk[3].waker, TL_NONE, "a softirq neither");
	cr_expect_eq(tl->wk[3].irq, 3);
	cr_expect_eq(tl->wk[4].waker, TL_NONE, "nor the idle task");
	cr_expect_eq(tl->wk[4].wakee, c);
	cr_expect_eq(tl->wk[5].waker, b);
	cr_expect(tl->wk[5].is_new);
	cr_expect_not(tl->wk[4].is_new);
	cr_expect_eq(tl->wk[5].waking_ts, 490);
	cr_expect_eq(tl->wk[5].target_cpu, 1);
	tb = &tl->threads[b];
	cr_assert_eq(tb->nwr, 4);
	cr_expect_eq(tl->wk_by_wakee[tb->wr0 + 0], 0);
	cr_expect_eq(tl->wk_by_wakee[tb->wr0 + 1], 1);
	cr_expect_eq(tl->wk_by_wakee[tb->wr0 + 2], 2);
	cr_expect_eq(tl->wk_by_wakee[tb->wr0 + 3], 3);
	cr_assert_eq(tb->nws, 1);
	cr_expect_eq(tl->wk_by_waker[tb->ws0], 5);
	cr_expect_eq(tl->threads[a].nws, 1, "the softirq's wakeup is not A's");
	cr_expect_eq(tl->threads[a].nwr, 0);
	cr_expect_eq(tl->threads[c].nwr, 2);
	cr_expect_eq(tl->threads[c].nws, 1);
	check_invariants(tl);
	done(tl, t);
}

Test(timeline, syscalls_grouped_by_thread)
{
	struct synth *s = synth_new(0, 1000, 1);
	struct timeline *tl;
	struct trace *t;
	uint32_t a, b;
	const struct tl_syscall *sc;

	synth_thread(s, 10, 10, "A");
	synth_thread(s, 20, 20, "B");
	synth_syscall(s, 300, 350, 10, 10, 0, 3, 100);		/* read(3) = 100 */
	synth_syscall(s, 100, 120, 20, 20, 1, 1, -EAGAIN);
	synth_syscall(s, 200, 900, 10, 10, 7, 0, 1);		/* poll, reported in end order */
	synth_syscall(s, 50, 60, 20, 20, 60, 0, 0);
	synth_syscall(s, 70, 80, 0, 0, 1, 0, 0);			/* the idle task: not kept */
	s->t->sc[1].h.cpu = 0;
	s->t->sc[0].h.flags = QT_SYS_NORETURN;
	t = synth_finish(s);
	tl = build(t);
	a = th_of(tl, 10);
	b = th_of(tl, 20);
	cr_expect_eq(tl->nsc, 4);
	cr_assert_eq(tl->threads[a].nsc, 2);
	sc = &tl->sc[tl->threads[a].sc0];
	cr_expect(sc[0].start == 200 && sc[0].end == 900 && sc[0].nr == 7 && sc[0].ret == 1);
	cr_expect(sc[1].start == 300 && sc[1].end == 350 && sc[1].nr == 0 && sc[1].arg0 == 3 &&
		  sc[1].ret == 100 && sc[1].flags == QT_SYS_NORETURN);
	cr_assert_eq(tl->threads[b].nsc, 2);
	sc = &tl->sc[tl->threads[b].sc0];
	cr_expect(sc[0].start == 50 && sc[0].nr == 60);
	cr_expect(sc[1].start == 100 && sc[1].ret == -EAGAIN);
	check_invariants(tl);
	done(tl, t);
}

Test(timeline, irqs)
{
	struct synth *s = synth_new(0, 1000, 2);
	struct timeline *tl;
	struct trace *t;

	synth_thread(s, 10, 10, "A");
	synth_irq(s, 300, 310, 1, 24, 0, 10);
	synth_irq(s, 100, 104, 0, 3, 1, 0);	/* NET_RX softirq over the idle task */
	t = synth_finish(s);
	tl = build(t);
	cr_assert_eq(tl->nirqs, 2);
	cr_expect(tl->irqs[0].start == 100 && tl->irqs[0].end == 104 && tl->irqs[0].soft &&
		  tl->irqs[0].num == 3 && tl->irqs[0].thread == TL_NONE && tl->irqs[0].cpu == 0);
	cr_expect(tl->irqs[1].start == 300 && !tl->irqs[1].soft && tl->irqs[1].num == 24 &&
		  tl->irqs[1].thread == th_of(tl, 10) && tl->irqs[1].cpu == 1);
	done(tl, t);
}

/* ---- threads ---- */

/* A tid reused during the recording is two threads, each with its own runs. */
Test(timeline, tid_reuse)
{
	struct synth *s = synth_new(0, 1000, 1);
	struct timeline *tl;
	struct trace *t;
	uint32_t first = TL_NONE, second = TL_NONE;

	synth_thread(s, 100, 100, "old");
	synth_switch(s, 100, 0, 0, 0, SYN_PREEMPT, 100, 100);
	synth_switch(s, 200, 0, 100, 100, SYN_SLEEP, 0, 0);
	synth_switch(s, 300, 0, 0, 0, SYN_PREEMPT, 100, 100);
	synth_task(s, QT_REC_EXIT, 390, 100, 100, 0, 0, "old");
	synth_switch(s, 400, 0, 100, 100, SYN_EXIT, 0, 0);
	synth_task(s, QT_REC_FORK, 500, 100, 100, 1, 1, "new");
	synth_switch(s, 600, 0, 0, 0, SYN_PREEMPT, 100, 100);
	synth_switch(s, 700, 0, 100, 100, SYN_SLEEP, 0, 0);
	s->t->sw[s->t->nsw - 1].prev_runtime = 100;	/* the new thread's own (synth counts per tid) */
	t = synth_finish(s);
	tl = build(t);
	cr_assert_eq(tl->nthreads, 2);
	for (uint32_t i = 0; i < 2; i++) {
		cr_assert_eq(tl->threads[i].tid, 100);
		if (tl->threads[i].flags & TT_BORN)
			second = i;
		else
			first = i;
	}
	cr_assert(first != TL_NONE && second != TL_NONE);
	cr_expect(tl->threads[first].flags & TT_DIED);
	cr_assert_eq(tl->threads[first].nrun, 2);
	EXPECT_RUN(run_of(tl, first, 1), 300, 400, 0, QT_END_EXITED, 0);
	cr_assert_eq(tl->threads[second].nrun, 1);
	EXPECT_RUN(run_of(tl, second, 0), 600, 700, 0, QT_END_SLEEP, 0);
	cr_expect_str_eq(timeline__comm_at(tl, first, 150), "old");
	cr_expect_str_eq(timeline__comm_at(tl, second, 650), "new");
	cr_expect_str_eq(timeline__comm_at(tl, TL_NONE, 650), "-");
	cr_expect_str_eq(timeline__comm_at(tl, 99, 650), "-");
	cr_expect_eq(tl->threads[second].cpu_ns, 100);
	check_invariants(tl);
	done(tl, t);
}

/* Names change with exec; a thread never named is shown by its tid. */
Test(timeline, names)
{
	struct synth *s = synth_new(0, 1000, 1);
	struct timeline *tl;
	struct trace *t;
	uint32_t a, g;

	synth_thread(s, 10, 10, "sh");
	synth_task(s, QT_REC_EXEC, 200, 10, 10, 0, 0, "gst-launch");
	synth_switch(s, 100, 0, 10, 10, SYN_PREEMPT, 77, 77);	/* 77: never seen anywhere else */
	synth_switch(s, 300, 0, 77, 77, SYN_PREEMPT, 10, 10);
	t = synth_finish(s);
	tl = build(t);
	a = th_of(tl, 10);
	g = th_of(tl, 77);
	cr_expect_str_eq(timeline__comm_at(tl, a, 100), "sh");
	cr_expect_str_eq(timeline__comm_at(tl, a, 250), "gst-launch");
	cr_expect_str_eq(tl->threads[a].comm, "gst-launch");
	cr_expect_str_eq(tl->threads[g].comm, "<77>");
	cr_expect(tl->threads[g].flags & TT_GUESSED);
	cr_expect_str_eq(timeline__comm_at(tl, g, 150), "<77>");
	done(tl, t);
}

Test(timeline, targets_and_the_recorder)
{
	struct synth *s = synth_new(0, 1000, 1);
	struct timeline *tl;
	struct trace *t;

	synth_targets(s, "100,150");
	tf_kv_set(&s->t->meta, TF_META_RECORDER, "300");
	synth_thread(s, 100, 100, "app");
	synth_thread(s, 101, 100, "app:worker");
	synth_thread(s, 150, 150, "other target");
	synth_thread(s, 200, 200, "bystander");
	synth_thread(s, 300, 300, "qostrace");
	synth_task(s, QT_REC_FORK, 10, 400, 400, 100, 100, "child");	/* a process of a target */
	synth_task(s, QT_REC_FORK, 20, 401, 400, 400, 400, "child:thr");	/* its thread */
	synth_task(s, QT_REC_FORK, 30, 500, 500, 401, 400, "grandchild");
	synth_task(s, QT_REC_FORK, 40, 600, 600, 200, 200, "not a target");
	synth_task(s, QT_REC_FORK, 50, 301, 300, 300, 300, "qostrace:wr");
	synth_task(s, QT_REC_FORK, 60, 102, 100, 101, 100, "app:new");	/* a new thread */
	t = synth_finish(s);
	tl = build(t);
	cr_expect(tl->threads[th_of(tl, 100)].flags & TL_TARGET);
	cr_expect(tl->threads[th_of(tl, 101)].flags & TL_TARGET);
	cr_expect(tl->threads[th_of(tl, 102)].flags & TL_TARGET);
	cr_expect(tl->threads[th_of(tl, 150)].flags & TL_TARGET);
	cr_expect(tl->threads[th_of(tl, 400)].flags & TL_TARGET);
	cr_expect(tl->threads[th_of(tl, 401)].flags & TL_TARGET);
	cr_expect(tl->threads[th_of(tl, 500)].flags & TL_TARGET);
	cr_expect_not(tl->threads[th_of(tl, 200)].flags & TL_TARGET);
	cr_expect_not(tl->threads[th_of(tl, 600)].flags & TL_TARGET);
	cr_expect_eq(tl->threads[th_of(tl, 300)].flags & (TL_TARGET | TL_RECORDER), TL_RECORDER);
	cr_expect_eq(tl->threads[th_of(tl, 301)].flags & (TL_TARGET | TL_RECORDER), TL_RECORDER);
	cr_expect_eq(tl->threads[th_of(tl, 100)].flags & TL_RECORDER, 0);
	done(tl, t);

	/* --all: everyone but the recorder */
	s = synth_new(0, 1000, 1);
	tf_kv_set(&s->t->meta, TF_META_RECORDER, "300");
	synth_thread(s, 200, 200, "bystander");
	synth_thread(s, 300, 300, "qostrace");
	t = synth_finish(s);
	tl = build(t);
	cr_expect(tl->threads[th_of(tl, 200)].flags & TL_TARGET);
	cr_expect_eq(tl->threads[th_of(tl, 300)].flags & (TL_TARGET | TL_RECORDER), TL_RECORDER);
	done(tl, t);
}

/* ---- the stream and missing data ---- */

struct ref_ev {
	uint64_t ts;
	int kind;
	size_t idx;
};

static int cmp_ref_ev(const void *a, const void *b)
{
	const struct ref_ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool in_spans(uint64_t ts, const struct tl_span *sp, size_t nsp)
{
	if (!sp)
		return true;
	for (size_t i = 0; i < nsp; i++)
		if (sp[i].start <= ts && ts <= sp[i].end)
			return true;
	return false;
}

/*
 * Every run, syscall, wakeup, IRQ and gap inside the spans (all without)
 * once, in the order of a qsort of (time, kind, index); lower_bound
 * against a scan.
 */
static void check_stream_in(const struct timeline *tl, const struct tl_span *sp, size_t nsp)
{
	struct tl_event *ev;
	struct ref_ev *ref;
	size_t n, k = 0;

	cr_assert_eq(timeline__stream(tl, sp, nsp, &ev, &n), 0);
	ref = malloc((tl->nruns + tl->nsc + tl->nwk + tl->nirqs + tl->ngaps + 1) * sizeof(*ref));
#define REF(count, tsexpr, kind)						\
	for (size_t i = 0; i < (count); i++)					\
		if (in_spans((tsexpr), sp, nsp))				\
			ref[k++] = (struct ref_ev){ (tsexpr), (kind), i }
	REF(tl->nruns, tl->runs[i].start, TL_EV_RUN);
	REF(tl->nsc, tl->sc[i].start, TL_EV_SYSCALL);
	REF(tl->nwk, tl->wk[i].ts, TL_EV_WAKEUP);
	REF(tl->nirqs, tl->irqs[i].start, TL_EV_IRQ);
	REF(tl->ngaps, tl->gaps[i].start, TL_EV_GAP);
#undef REF
	cr_assert_eq(n, k, "%zu events, want %zu (%zu spans)", n, k, nsp);
	qsort(ref, n, sizeof(*ref), cmp_ref_ev);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(ev[i].kind, ref[i].kind, "event %zu", i);
		cr_assert_eq(ev[i].idx, ref[i].idx, "event %zu", i);
		cr_assert_eq(ev[i].ts, ref[i].ts, "event %zu", i);
	}
	for (uint64_t q = 0; q < tl->end + 100; q += 37) {
		size_t want = 0;

		while (want < n && ev[want].ts < q)
			want++;
		cr_assert_eq(timeline__lower_bound(ev, n, q), want);
	}
	cr_expect_eq(timeline__lower_bound(ev, 0, 5), 0);
	free(ref);
	free(ev);
}

/* The whole stream, then random sets of spans: unsorted, overlapping, nested, inverted, none. */
static void check_stream(const struct timeline *tl)
{
	unsigned long long seed = 4242;
	struct tl_span sp[40];

	check_stream_in(tl, NULL, 0);
	check_stream_in(tl, sp, 0);
	for (int round = 0; round < 30; round++) {
		size_t nsp = 1 + tu_rand(&seed) % 40;

		for (size_t i = 0; i < nsp; i++) {
			uint64_t a = tu_rand(&seed) % (tl->end + 50), len = tu_rand(&seed) % (tl->end / 8 + 2);

			sp[i] = (struct tl_span){ a, a + len };
			if (i && tu_rand(&seed) % 4 == 0)	/* inside the one before */
				sp[i] = (struct tl_span){ sp[i - 1].start + len / 4, sp[i - 1].start + len / 3 };
			if (tu_rand(&seed) % 10 == 0)	/* inverted: empty */
				sp[i] = (struct tl_span){ a + 5, a };
			if (tu_rand(&seed) % 10 == 0)	/* one instant */
				sp[i] = (struct tl_span){ a, a };
		}
		check_stream_in(tl, sp, nsp);
	}
}

Test(timeline, stream_is_sorted_and_complete)
{
	struct sched_opts o = { .ncpus = 3, .nthreads = 8, .nswitches = 2000, .extras = true,
				.lost_from = 5000, .lost_to = 6000 };
	struct trace *t = random_schedule(99, &o);
	struct timeline *tl;

	tl = build(t);
	cr_assert(tl->nsc > 0 && tl->nwk > 0 && tl->nirqs > 0 && tl->ngaps > 0);
	check_stream(tl);
	/* kinds absent between present ones: runs, wakeups, gaps only */
	{
		size_t nsc = tl->nsc, nirqs = tl->nirqs;

		tl->nsc = tl->nirqs = 0;
		check_stream(tl);
		tl->nsc = nsc;
		tl->nirqs = nirqs;
	}
	done(tl, t);
}

Test(timeline, empty_trace)
{
	struct synth *s = synth_new(100, 200, 2);
	struct timeline *tl;
	struct trace *t;
	struct tl_event *ev;
	size_t n = 7;

	synth_thread(s, 5, 5, "idle app");
	t = synth_finish(s);
	tl = build(t);
	cr_expect_eq(tl->nruns, 0);
	cr_expect_eq(tl->nthreads, 1);
	cr_expect_eq(tl->threads[0].nrun, 0);
	cr_expect_eq(tl->threads[0].run_ns, 0);
	cr_assert_eq(timeline__stream(tl, NULL, 0, &ev, &n), 0);
	cr_expect_eq(n, 0);
	free(ev);
	cr_expect_not(timeline__missing(tl, -1, 0, UINT64_MAX));
	done(tl, t);
}

/* Half-open intervals: [start, end) meets a gap [g.start, g.end) only if they share time. */
Test(timeline, missing_boundaries)
{
	struct synth *s = synth_new(0, 1000, 2);
	struct timeline *tl;
	struct trace *t;

	synth_lost(s, 0, 250, 350, 4);		/* the gap [250, 351) */
	synth_lost(s, 1, 600, 600, 1);		/* [600, 601) */
	t = synth_finish(s);
	tl = build(t);
	cr_assert_eq(tl->ngaps, 2);
	cr_expect_not(timeline__missing(tl, 0, 100, 250), "ends where the gap begins");
	cr_expect(timeline__missing(tl, 0, 100, 251));
	cr_expect(timeline__missing(tl, 0, 350, 351));
	cr_expect_not(timeline__missing(tl, 0, 351, 400), "begins where the gap ends");
	cr_expect(timeline__missing(tl, 0, 0, 1000));
	cr_expect(timeline__missing(tl, 0, 300, 300), "an instant inside");
	cr_expect(timeline__missing(tl, 0, 250, 250));
	cr_expect_not(timeline__missing(tl, 0, 351, 351));
	cr_expect_not(timeline__missing(tl, 0, 249, 249));
	cr_expect_not(timeline__missing(tl, 1, 250, 351));
	cr_expect(timeline__missing(tl, -1, 250, 351));
	cr_expect(timeline__missing(tl, -1, 600, 600));
	cr_expect(timeline__missing(tl, 1, 590, 601));
	cr_expect_not(timeline__missing(tl, -1, 601, 700));
	cr_expect_not(timeline__missing(tl, 0, 600, 700));
	done(tl, t);
}

/* A trace whose records name CPUs beyond its CPU count (hand-made, or a bad header). */
Test(timeline, cpu_beyond_the_count)
{
	struct synth *s = synth_new(0, 1000, 1);
	struct timeline *tl;
	struct trace *t;

	synth_thread(s, 10, 10, "A");
	synth_switch(s, 100, 3, 0, 0, SYN_PREEMPT, 10, 10);
	synth_switch(s, 200, 3, 10, 10, SYN_SLEEP, 0, 0);
	synth_lost(s, 5, 300, 400, 1);
	t = synth_finish(s);
	tl = build(t);
	cr_expect_geq(tl->ncpus, 6);
	cr_assert_eq(tl->nruns, 1);
	EXPECT_RUN(&tl->runs[0], 100, 200, 3, QT_END_SLEEP, 0);
	cr_expect(timeline__missing(tl, 5, 350, 360));
	check_invariants(tl);
	done(tl, t);
}

/* Many CPUs, long random schedules: only the invariants, but on a lot of data. */
Test(timeline, random_schedules_invariants)
{
	struct sched_opts o = { .ncpus = 8, .nthreads = 40, .nswitches = 20000, .extras = true };

	for (unsigned long long seed = 100; seed < 104; seed++) {
		struct trace *t = random_schedule(seed, &o);
		struct timeline *tl = build(t);

		check_invariants(tl);
		cr_expect_eq(tl->broken_chains, 0);
		done(tl, t);
	}
	/* with a lost window on CPU 1: nothing there, everything else as before */
	o.lost_from = 20000;
	o.lost_to = 40000;
	for (unsigned long long seed = 100; seed < 104; seed++) {
		struct trace *t = random_schedule(seed, &o);
		struct timeline *tl = build(t);

		check_invariants(tl);
		for (size_t i = 0; i < tl->nruns; i++)
			cr_assert(tl->runs[i].cpu != 1 || tl->runs[i].end <= o.lost_from ||
				  tl->runs[i].start > o.lost_to, "a run overlaps the lost window");
		cr_expect_eq(tl->unsure_runs, 0, "a loss is not an unreported switch");
		done(tl, t);
	}
}
