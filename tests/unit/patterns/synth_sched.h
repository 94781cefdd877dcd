/* SPDX-License-Identifier: MIT */
/*
 * A synthetic schedule for the patterns stage's tests: a periodic actor
 * "src" (its sink, noise threads, IRQs and softirqs around it) whose
 * intervals are breaks or kept periods as the test says, with a planted
 * disturbance (usb-storage woken by irq 24, writing) or a second cause
 * (cc1) in the intervals it chooses. sched_build() makes the trace, its
 * timeline and the windows; as_actor() the actor the actors' stage would
 * have made of it.
 */
#ifndef QT_TEST_SYNTH_SCHED_H
#define QT_TEST_SYNTH_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "patterns/patterns.h"
#include "report/json_patterns.h"
#include "report/text_patterns.h"
#include "synth_trace.h"
#include "testutil.h"
#include "timeline/timeline.h"

#define NR_READ 0
#define NR_WRITE 1
#define NR_FUTEX 202

#define P 100000ull		/* the actor's period, ns */
#define T0 1000000ull
#define SRC 100			/* the actor's tid */
#define SINK 101
#define USB 200			/* the disturber */
#define NOISE 300		/* NOISE .. NOISE + 4 */
#define CC1 400			/* another cause of breaks */

enum gev_kind { G_RUN, G_SLEEP, G_SYSCALL, G_WAKE, G_IRQWAKE, G_IRQ, G_SOFTIRQ };

struct gev {
	uint64_t ts;
	int kind, cpu;
	uint32_t a, b;
};

struct sched_cfg {
	int nwin;			/* invocations: windows are nwin + 1 */
	const bool *brk;		/* nwin - 1 flags: interval k is a break */
	const bool *plant;		/* nwin - 1 flags: the disturbance happens in it */
	const bool *plant2;		/* nwin - 1 flags or NULL: cc1 runs in it */
	const bool *no_write;		/* nwin - 1 flags or NULL: the disturber does not write */
	int noise_min, noise_max;	/* noise events per interval */
	unsigned long long seed;
	bool lose_pos, lose_neg;	/* lose records in the first break / a kept period */
};

struct sched {
	struct trace *t;
	struct timeline *tl;
	struct period_window w[256];
	size_t nw;
	uint32_t src;			/* timeline index of the actor */
	/* as_actor(): the invocations and breaks the windows stand for */
	struct actor_invocation inv[256];
	struct actor_break brk[256];
};

struct gen {
	struct synth *s;
	uint32_t cur[2];
	struct gev ev[64];
	int n;
};

static inline void push(struct gen *g, uint64_t ts, int kind, int cpu, uint32_t a, uint32_t b)
{
	cr_assert_lt(g->n, 64);
	g->ev[g->n++] = (struct gev){ ts, kind, cpu, a, b };
}

static inline int by_ts(const void *x, const void *y)
{
	const struct gev *a = x, *b = y;

	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/* Emits the buffered events of one interval in time order. */
static inline void flush(struct gen *g)
{
	qsort(g->ev, g->n, sizeof(g->ev[0]), by_ts);
	for (int i = 0; i < g->n; i++) {
		const struct gev *e = &g->ev[i];
		uint32_t prev = g->cur[e->cpu];

		switch (e->kind) {
		case G_RUN:
			synth_switch(g->s, e->ts, e->cpu, prev, prev, SYN_PREEMPT, e->a, e->a);
			g->cur[e->cpu] = e->a;
			break;
		case G_SLEEP:
			synth_switch(g->s, e->ts, e->cpu, prev, prev, SYN_SLEEP, 0, 0);
			g->cur[e->cpu] = 0;
			break;
		case G_SYSCALL:
			if (prev)
				synth_syscall(g->s, e->ts, e->ts + 1, prev, prev, e->a, 0, 0);
			break;
		case G_WAKE:
			synth_wakeup(g->s, e->ts, e->a, e->a, e->b, e->b, e->cpu);
			break;
		case G_IRQWAKE:
			synth_wakeup(g->s, e->ts, 0, 0, e->b, e->b, e->cpu);
			g->s->t->wk[g->s->t->nwk - 1].h.flags = QT_WAKE_HARDIRQ;
			g->s->t->wk[g->s->t->nwk - 1].waker_irq = e->a;
			break;
		case G_IRQ:
			synth_irq(g->s, e->ts, e->ts + 2, e->cpu, e->a, 0, prev);
			break;
		case G_SOFTIRQ:
			synth_irq(g->s, e->ts, e->ts + 2, e->cpu, e->a, 1, prev);
			break;
		}
	}
	g->n = 0;
}

static inline void add_irq_name(struct trace *t, uint32_t irq, const char *name)
{
	t->irqn = trace__grow_records(t->irqn, t->nirqn + 1, sizeof(*t->irqn));
	cr_assert(t->irqn);
	memset(&t->irqn[t->nirqn], 0, sizeof(*t->irqn));
	t->irqn[t->nirqn].irq = irq;
	snprintf(t->irqn[t->nirqn].name, sizeof(t->irqn[0].name), "%s", name);
	t->nirqn++;
}

/*
 * The actor src runs at every invocation (switch in, write, wakes sink,
 * sleeps) on CPU 0; noise threads run, call read/write/futex, and take
 * SCHED softirqs and IRQ 30 (eth0) on CPU 1. Where cfg->plant says so, the
 * disturbance: IRQ 24 (xhci_hcd) on CPU 0, which wakes usb-storage, which
 * runs and writes. A break interval is 3 periods long.
 */
static inline void sched_build(struct sched *sc, const struct sched_cfg *c)
{
	uint64_t t = T0, stop;
	unsigned long long seed = c->seed;
	struct gen g = { 0 };
	int64_t inv[256];
	bool lost_pos = false, lost_neg = false;

	cr_assert_lt(c->nwin, 250);
	for (int k = 0; k < c->nwin; k++) {
		inv[k] = (int64_t)t;
		t += k + 1 < c->nwin && c->brk[k] ? 3 * P : P;
	}
	stop = t + P;
	g.s = synth_new(0, stop, 2);
	synth_thread(g.s, SRC, SRC, "src");
	synth_thread(g.s, SINK, SINK, "sink");
	synth_thread(g.s, USB, USB, "usb-storage");
	synth_thread(g.s, CC1, CC1, "cc1");
	for (int j = 0; j < 5; j++) {
		char name[16];

		snprintf(name, sizeof(name), "noise%d", j);
		synth_thread(g.s, NOISE + j, NOISE + j, name);
	}
	for (int k = 0; k < c->nwin; k++) {
		uint64_t a = (uint64_t)inv[k], b = k + 1 < c->nwin ? (uint64_t)inv[k + 1] : stop;
		uint64_t x = 0;
		int nn = (int)tu_rand_range(&seed, c->noise_min, c->noise_max);

		push(&g, a, G_RUN, 0, SRC, 0);
		push(&g, a + 10, G_SYSCALL, 0, NR_WRITE, 0);
		push(&g, a + 20, G_WAKE, 0, SRC, SINK);
		push(&g, a + 30, G_SLEEP, 0, 0, 0);
		if (k + 1 < c->nwin && c->plant[k]) {
			x = a + P / 2 + (uint64_t)tu_rand_range(&seed, 0, P / 4);
			push(&g, x, G_IRQ, 0, 24, 0);
			push(&g, x + 5, G_IRQWAKE, 0, 24, USB);
			push(&g, x + 10, G_RUN, 0, USB, 0);
			if (!c->no_write || !c->no_write[k])
				push(&g, x + 15, G_SYSCALL, 0, NR_WRITE, 0);
			push(&g, x + 20, G_SLEEP, 0, 0, 0);
		}
		if (k + 1 < c->nwin && c->plant2 && c->plant2[k]) {
			push(&g, a + P / 4, G_RUN, 0, CC1, 0);
			push(&g, a + P / 4 + 5, G_SYSCALL, 0, NR_READ, 0);
			push(&g, a + P / 4 + 10, G_SLEEP, 0, 0, 0);
		}
		for (int i = 0; i < nn; i++) {
			uint64_t ts;
			int what = (int)tu_rand_range(&seed, 0, 4);

			do
				ts = a + 100 + (uint64_t)tu_rand_range(&seed, 0, (long long)(b - a - 200));
			while (x && ts + 2 >= x && ts <= x + 25);
			switch (what) {
			case 0:
			case 1:
				push(&g, ts, G_RUN, 1, NOISE + (uint32_t)tu_rand_range(&seed, 0, 4), 0);
				break;
			case 2: {
				static const uint32_t nrs[] = { NR_READ, NR_WRITE, NR_FUTEX };

				push(&g, ts, G_SYSCALL, 1, nrs[tu_rand_range(&seed, 0, 2)], 0);
				break;
			}
			case 3:
				push(&g, ts, G_SOFTIRQ, 1, 7, 0);
				break;
			default:
				push(&g, ts, G_IRQ, 1, 30, 0);
			}
		}
		flush(&g);
		/* Lost records: the ring buffer overflowed on CPU 1 in this interval. */
		if (k + 1 < c->nwin && c->lose_pos && c->brk[k] && !lost_pos) {
			synth_lost(g.s, 1, a + 50, a + 60, 7);
			lost_pos = true;
		} else if (k + 1 < c->nwin && c->lose_neg && !c->brk[k] && k > 0 && !lost_neg) {
			synth_lost(g.s, 1, a + 50, a + 60, 3);
			lost_neg = true;
		}
	}
	sc->t = synth_finish(g.s);
	add_irq_name(sc->t, 24, "xhci_hcd");
	add_irq_name(sc->t, 30, "eth0");
	cr_assert_eq(timeline__build(sc->t, NULL, &sc->tl), 0);
	/* The windows of docs/ALGORITHMS.md §3.3: before the first invocation, between
	 * invocations, after the last (closed). */
	sc->nw = 0;
	sc->w[sc->nw++] = (struct period_window){ 0, inv[0], false, false, SIZE_MAX };
	for (int k = 0; k + 1 < c->nwin; k++)
		sc->w[sc->nw++] = (struct period_window){ inv[k], inv[k + 1], false, c->brk[k], (size_t)k };
	sc->w[sc->nw++] = (struct period_window){ inv[c->nwin - 1], (int64_t)stop, true, false,
						  (size_t)c->nwin - 1 };
	sc->src = TL_NONE;
	for (size_t i = 0; i < sc->tl->nthreads; i++)
		if (sc->tl->threads[i].tid == SRC)
			sc->src = (uint32_t)i;
	cr_assert_neq(sc->src, TL_NONE);
}

/*
 * a as the actors stage would have made it of the scenario: its
 * invocations start the windows, and its breaks (unless the test gives its
 * own, with their lateness) are the positive ones. The stage derives the
 * windows from those again (actor_windows): they must be the scenario's.
 */
static inline void as_actor(struct actor *a, struct sched *sc)
{
	struct period_window got[256];

	a->kind = ACTOR_THREAD;
	a->thread = sc->src;
	snprintf(a->name, sizeof(a->name), "src/%d", SRC);
	a->ninv = sc->nw - 1;
	a->nwindows = sc->nw;
	for (size_t k = 0; k < a->ninv; k++)
		sc->inv[k] = (struct actor_invocation){ .start_ns = sc->w[k + 1].start_ns,
							.end_ns = sc->w[k + 1].start_ns };
	a->inv = sc->inv;
	if (!a->breaks) {
		a->nbreaks = 0;
		for (size_t k = 1; k + 1 < sc->nw; k++)
			if (sc->w[k].positive)
				sc->brk[a->nbreaks++] = (struct actor_break){ .before = k - 1, .late = k };
		a->breaks = sc->brk;
	}
	actor_windows(a, sc->tl, got);
	for (size_t k = 0; k < sc->nw; k++)
		cr_assert((k == 0 || got[k].start_ns == sc->w[k].start_ns) && got[k].end_ns == sc->w[k].end_ns &&
			  got[k].end_closed == sc->w[k].end_closed && got[k].positive == sc->w[k].positive &&
			  got[k].before == sc->w[k].before, "window %zu", k);
}

static inline void sched_free(struct sched *sc)
{
	timeline__free(sc->tl);
	trace__free(sc->t);
}

/* The result as the text report (json false, at -v verbose) or the JSON one prints it; free() it. */
static inline char *sched_render(const struct patterns_result *r, bool json, int verbose)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct report_style st = { .color = false, .verbose = verbose };

	cr_assert(f);
	if (json) {
		json_writer_t *w = jsonw_new(f, true);

		jsonw_start_object(w);
		json_patterns_write(r, w);
		jsonw_end_object(w);
		jsonw_destroy(&w);
	} else {
		text_patterns_print(r, f, &st);
	}
	fclose(f);
	return buf;
}

/* A pattern as "a|b|c". */
static inline const char *pjoin(const struct pattern *p, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (uint32_t k = 0; k < p->len; k++)
		n += snprintf(buf + n, len - n, "%s%s", k ? "|" : "", p->events[k]);
	return buf;
}

static inline const struct pattern *find(const struct patterns_result *r, const char *joined)
{
	char b[512];

	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(pjoin(&r->v[i], b, sizeof(b)), joined))
			return &r->v[i];
	return NULL;
}

#endif
