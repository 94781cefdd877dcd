// SPDX-License-Identifier: MIT
/*
 * patterns: the emerging-patterns stage on synthetic schedules with a
 * planted disturbance, its bounds and status cases, its renderings, and the
 * whole path (windows -> symbols -> miner -> names) against an independent
 * brute-force enumeration on random small schedules.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "actors/actors.h"
#include "patterns/miner.h"
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

/* ---- a synthetic schedule ---- */

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

static void push(struct gen *g, uint64_t ts, int kind, int cpu, uint32_t a, uint32_t b)
{
	cr_assert_lt(g->n, 64);
	g->ev[g->n++] = (struct gev){ ts, kind, cpu, a, b };
}

static int by_ts(const void *x, const void *y)
{
	const struct gev *a = x, *b = y;

	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/* Emits the buffered events of one interval in time order. */
static void flush(struct gen *g)
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

static void add_irq_name(struct trace *t, uint32_t irq, const char *name)
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
static void sched_build(struct sched *sc, const struct sched_cfg *c)
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
static void as_actor(struct actor *a, struct sched *sc)
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

static void sched_free(struct sched *sc)
{
	timeline__free(sc->tl);
	trace__free(sc->t);
}

/* A pattern as "a|b|c". */
static const char *pjoin(const struct pattern *p, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (uint32_t k = 0; k < p->len; k++)
		n += snprintf(buf + n, len - n, "%s%s", k ? "|" : "", p->events[k]);
	return buf;
}

static const struct pattern *find(const struct patterns_result *r, const char *joined)
{
	char b[512];

	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(pjoin(&r->v[i], b, sizeof(b)), joined))
			return &r->v[i];
	return NULL;
}

/* ---- renderings ---- */

static char *render(const struct patterns_result *r, bool json, int verbose)
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

/* ---- the disturbance is found ---- */

/* 30 invocations, breaks at intervals 5, 12, 19, 26 with the disturbance in
 * each, and in one kept period (interval 8) too. */
static void thirty(struct sched *sc, bool *brk, bool *plant, unsigned long long seed, bool in_neg,
		   int noise)
{
	struct sched_cfg c = { .nwin = 30, .brk = brk, .plant = plant, .noise_min = noise ? 2 : 0,
			       .noise_max = noise, .seed = seed };

	memset(brk, 0, 29);
	memset(plant, 0, 29);
	brk[5] = brk[12] = brk[19] = brk[26] = true;
	plant[5] = plant[12] = plant[19] = plant[26] = true;
	plant[8] = in_neg;
	sched_build(sc, &c);
}

/* The disturbance only in the breaks: its four symbols emerge at the strict
 * corner, alone, and rank first. */
Test(patterns, planted_disturbance_ranks_first)
{
	bool brk[29], plant[29];
	struct sched sc;
	struct patterns_result *r;
	char b[512];

	thirty(&sc, brk, plant, 7, false, 6);
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, NULL, &r), 0);
	cr_assert_null(r->status, "%s", r->status);
	cr_assert_eq(r->windows_pos, 4);
	cr_assert_eq(r->windows_neg, 27);
	cr_assert_eq(r->npos, 4);
	cr_assert_eq(r->nneg, 27);
	cr_assert_eq(r->excluded_pos + r->excluded_neg, 0);
	cr_assert(r->actor_dropped);
	cr_assert(r->auto_delta && r->auto_alpha);
	cr_assert_eq(r->gap, 2);
	cr_assert(r->found);
	/* the strict corner, and the patterns one break short (3/4) */
	cr_assert_eq(r->runs, 2);
	cr_assert_float_eq(r->delta, 1.0, 1e-9);
	cr_assert_float_eq(r->alpha, 0.0, 1e-9);
	cr_assert_geq(r->n, 4);
	for (int i = 0; i < 4; i++) {
		const struct pattern *p = &r->v[i];

		cr_assert_eq(p->len, 1, "%s", pjoin(p, b, sizeof(b)));
		cr_assert_eq(p->count_pos, 4);
		cr_assert_eq(p->count_neg, 0);
		cr_assert_float_eq(p->support_pos, 1.0, 1e-12);
		cr_assert_float_eq(p->support_neg, 0.0, 1e-12);
		cr_assert_float_eq(p->score, 1.0, 1e-12);
		cr_assert_float_eq(p->delta, 1.0, 1e-12);
		cr_assert_float_eq(p->alpha, 0.0, 1e-12);
	}
	/* In order of first appearance, as the ranking's last key. */
	cr_assert_str_eq(r->v[0].events[0], "irq 24 xhci_hcd");
	cr_assert_eq(r->v[0].kinds[0], VOCAB_IRQ);
	cr_assert_str_eq(r->v[1].events[0], "irq 24 xhci_hcd wakes usb-storage");
	cr_assert_eq(r->v[1].kinds[0], VOCAB_WAKEUP);
	cr_assert_str_eq(r->v[2].events[0], "usb-storage switched in");
	cr_assert_eq(r->v[2].kinds[0], VOCAB_RUN);
	cr_assert_str_eq(r->v[3].events[0], "write by usb-storage");
	cr_assert_eq(r->v[3].kinds[0], VOCAB_SYSCALL);
	/* Nothing of the actor itself. */
	for (size_t i = 0; i < r->n; i++)
		for (uint32_t k = 0; k < r->v[i].len; k++)
			cr_assert_null(strstr(r->v[i].events[k], "src"), "%s", r->v[i].events[k]);
	patterns__free(r);
	sched_free(&sc);
}

/*
 * The disturbance in one kept period too, no noise: nothing emerges at
 * alpha 0. One kept window of the 27 holds it, and they last 37 periods
 * in all (25 of one period, 10 before the first invocation, 2 after the
 * last), so its rate is 1/37 per period (chance.h) and the 4 breaks'
 * windows of 3 periods would hold it 12/37 times by chance, a chance
 * support of 3/37 = 8.1 % (the plain 1/27 is 3.7 %): the search relaxes
 * alpha to 10 %, where the four symbols emerge with 4/4 and 1/27.
 */
Test(patterns, alpha_relaxed)
{
	bool brk[29], plant[29];
	struct sched sc;
	struct patterns_result *r;

	thirty(&sc, brk, plant, 7, true, 0);
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, NULL, &r), 0);
	cr_assert(r->found);
	cr_assert_float_eq(r->delta, 1.0, 1e-9);
	cr_assert_float_eq(r->alpha, 0.10, 1e-9);
	cr_assert_eq(r->vocabulary, 4);
	cr_assert_eq(r->n, 4);
	for (int i = 0; i < 4; i++) {
		const struct pattern *p = &r->v[i];

		cr_assert_eq(p->len, 1);
		cr_assert_eq(p->count_pos, 4);
		cr_assert_eq(p->count_neg, 1);
		cr_assert_float_eq(p->support_neg, 1.0 / 27, 1e-12);
		cr_assert_float_eq(p->chance_pos, 12.0 / 37, 1e-9, "%.12g", p->chance_pos);
		cr_assert_float_eq(p->score, 1.0 - 3.0 / 37, 1e-9);
		cr_assert_float_eq(p->delta, 1.0, 1e-12);
		cr_assert_float_eq(p->alpha, 0.10, 1e-12);
	}
	cr_assert_not_null(find(r, "usb-storage switched in"));
	patterns__free(r);
	sched_free(&sc);
}

/*
 * The disturber writes in 9 of the 10 breaks: the search stops at 100 %
 * with its other three symbols; the run 10 points lower adds its write,
 * 9/10, at 90 %.
 */
Test(patterns, one_break_short)
{
	bool brk[39] = { 0 }, plant[39] = { 0 }, nowrite[39] = { 0 };
	struct sched_cfg c = { .nwin = 40, .brk = brk, .plant = plant, .no_write = nowrite, .noise_min = 0,
			       .noise_max = 3, .seed = 21 };
	struct sched sc;
	struct patterns_result *r;
	const struct pattern *p;

	for (int k = 2; k < 32; k += 3)
		brk[k] = plant[k] = true;
	nowrite[8] = true;
	sched_build(&sc, &c);
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, NULL, &r), 0);
	cr_assert_eq(r->npos, 10);
	cr_assert_float_eq(r->delta, 1.0, 1e-12);
	cr_assert_float_eq(r->alpha, 0.0, 1e-12);
	cr_assert_eq(r->runs, 2);
	p = find(r, "usb-storage switched in");
	cr_assert_not_null(p);
	cr_assert_eq(p->count_pos, 10);
	cr_assert_float_eq(p->delta, 1.0, 1e-12);
	p = find(r, "write by usb-storage");
	cr_assert_not_null(p);
	cr_assert_eq(p->count_pos, 9);
	cr_assert_eq(p->count_neg, 0);
	cr_assert_float_eq(p->delta, 0.9, 1e-12);
	cr_assert_float_eq(p->alpha, 0.0, 1e-12);
	cr_assert_float_eq(p->score, 0.9, 1e-12);
	/* ranked after the three perfect ones */
	cr_assert_eq(p, &r->v[3]);
	patterns__free(r);
	sched_free(&sc);
}

/* Given thresholds: one miner run at exactly those; the ranking is the same. */
Test(patterns, fixed_thresholds)
{
	bool brk[29], plant[29];
	struct sched sc;
	struct patterns_opts o;
	struct patterns_result *r;

	thirty(&sc, brk, plant, 7, true, 6);
	patterns_opts_default(&o);
	o.delta = 1.0;
	o.alpha = 0.0;
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, &o, &r), 0);
	cr_assert_eq(r->runs, 1);
	cr_assert(!r->auto_delta && !r->auto_alpha);
	/* The single symbols are in kept period 8 too; their pairs with the
	 * noise around them are not, and some of those are in every break. */
	for (size_t i = 0; i < r->n; i++) {
		cr_assert_eq(r->v[i].count_neg, 0);
		cr_assert_eq(r->v[i].count_pos, 4);
		cr_assert_geq(r->v[i].len, 2);
		cr_assert_float_eq(r->v[i].delta, 1.0, 1e-12);
		cr_assert_float_eq(r->v[i].alpha, 0.0, 1e-12);
	}
	patterns__free(r);

	/* The single symbols' chance support is 3/37 (alpha_relaxed): at 5 %
	 * they do not emerge, at 10 % they do, and rank first. */
	o.delta = 0.75;
	o.alpha = 0.05;
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, &o, &r), 0);
	cr_assert_eq(r->runs, 1);
	for (size_t i = 0; i < r->n; i++)
		cr_assert_geq(r->v[i].len, 2);
	patterns__free(r);
	o.alpha = 0.10;
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, &o, &r), 0);
	cr_assert_eq(r->runs, 1);
	cr_assert_gt(r->n, 0);
	cr_assert_eq(r->v[0].len, 1);
	cr_assert_eq(r->v[0].count_neg, 1);
	cr_assert_float_eq(r->v[0].delta, 0.75, 1e-12);
	cr_assert_float_eq(r->v[0].alpha, 0.10, 1e-12);
	patterns__free(r);

	/*
	 * Only delta given: alpha is searched at delta 100 %. At 0 % nothing
	 * emerges: the pairs above hold events each seen in kept periods,
	 * so windows of 3 periods would hold them all now and then by chance;
	 * the first to emerge are the single symbols, at 10 %.
	 */
	o.delta = 1.0;
	o.alpha = -1;
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, &o, &r), 0);
	cr_assert(!r->auto_delta && r->auto_alpha);
	cr_assert_float_eq(r->alpha, 0.10, 1e-12);
	cr_assert_gt(r->n, 0);
	cr_assert_eq(r->v[0].len, 1);
	patterns__free(r);

	o.delta = 0;
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, &o, &r), -EINVAL);
	o.delta = 1.5;
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, &o, &r), -EINVAL);
	sched_free(&sc);
}

/* Keeping the actor's activity: its symbols are in every window, so they
 * never emerge alone, but they are in the vocabulary. */
Test(patterns, keep_actor)
{
	bool brk[29], plant[29];
	struct sched sc;
	struct patterns_opts o;
	struct patterns_result *r, *r2;

	thirty(&sc, brk, plant, 7, true, 6);
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, NULL, &r), 0);
	patterns_opts_default(&o);
	o.keep_actor = true;
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, &o, &r2), 0);
	cr_assert(!r2->actor_dropped);
	/* src switched in, write by src, src wakes sink */
	cr_assert_eq(r2->vocabulary, r->vocabulary + 3);
	cr_assert_eq(r2->symbols, r->symbols + 3 * 30);
	cr_assert_eq(r2->stream_events, r->stream_events);
	for (size_t i = 0; i < r2->n; i++)
		cr_assert(r2->v[i].len > 1 || !strstr(r2->v[i].events[0], "src"));
	patterns__free(r);
	patterns__free(r2);
	sched_free(&sc);
}

/* ---- status, exclusions, bounds ---- */

Test(patterns, missing_data_excluded)
{
	bool brk[29], plant[29];
	struct sched sc;
	struct sched_cfg c = { .nwin = 30, .brk = brk, .plant = plant, .noise_min = 2, .noise_max = 4,
			       .seed = 3, .lose_pos = true, .lose_neg = true };
	struct patterns_result *r;

	memset(brk, 0, sizeof(brk));
	memset(plant, 0, sizeof(plant));
	brk[5] = brk[12] = brk[19] = brk[26] = true;
	plant[5] = plant[12] = plant[19] = plant[26] = true;
	sched_build(&sc, &c);
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, NULL, &r), 0);
	cr_assert_eq(r->windows_pos, 4);
	cr_assert_eq(r->excluded_pos, 1);
	cr_assert_eq(r->excluded_neg, 1);
	cr_assert_eq(r->npos, 3);
	cr_assert_eq(r->nneg, 26);
	cr_assert_not_null(find(r, "usb-storage switched in"));
	cr_assert_eq(find(r, "usb-storage switched in")->count_pos, 3);
	patterns__free(r);
	sched_free(&sc);
}

Test(patterns, nothing_to_mine)
{
	bool brk[29] = { 0 }, plant[29] = { 0 };
	struct sched sc;
	struct sched_cfg c = { .nwin = 30, .brk = brk, .plant = plant, .noise_min = 1, .noise_max = 3,
			       .seed = 5, .lose_pos = true };
	struct patterns_result *r;
	struct actors_result ar = { 0 };
	struct actor a = { 0 };
	struct patterns_opts o;

	sched_build(&sc, &c);
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, NULL, &r), 0);
	cr_assert_str_eq(r->status, "the period never breaks");
	cr_assert_eq(r->n, 0);
	cr_assert_eq(r->nneg, 31);
	patterns__free(r);
	cr_assert_eq(patterns__mine_windows(sc.tl, NULL, 0, TL_NONE, NULL, &r), 0);
	cr_assert_str_eq(r->status, "the period never breaks");
	patterns__free(r);
	/* The only break lost data. */
	sched_free(&sc);
	brk[4] = true;
	plant[4] = true;
	sched_build(&sc, &c);
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, NULL, &r), 0);
	cr_assert_str_eq(r->status, "every break overlaps missing data");
	cr_assert_eq(r->excluded_pos, 1);
	patterns__free(r);

	/* The stage: no actors, no upstream actor, then one. */
	patterns_opts_default(&o);
	cr_assert_eq(patterns__analyse(sc.tl, NULL, &o, &r), 0);
	cr_assert_str_eq(r->status, "no actor was studied");
	cr_assert_eq(r->actor, -1);
	patterns__free(r);
	ar.v = &a;
	ar.n = 1;
	ar.upstream = -1;
	cr_assert_eq(patterns__analyse(sc.tl, &ar, &o, &r), 0);
	cr_assert_str_eq(r->status, "no periodic actor breaks its period");
	patterns__free(r);
	sched_free(&sc);

	thirty(&sc, brk, plant, 7, true, 6);
	as_actor(&a, &sc);
	ar.upstream = 0;
	o.gap = 1;
	cr_assert_eq(patterns__analyse(sc.tl, &ar, &o, &r), 0);
	cr_assert_null(r->status);
	cr_assert_eq(r->actor, 0);
	cr_assert_str_eq(r->actor_name, "src/100");
	cr_assert_eq(r->gap, 1);
	cr_assert(r->actor_dropped);
	cr_assert_eq(r->npos, 4);
	patterns__free(r);
	sched_free(&sc);
}

/*
 * The stage mines the breaks late by 10 % of the period or more: a break
 * of jitter (late by 2 % here) is left out of both sides and counted.
 */
Test(patterns, minor_breaks_left_out)
{
	bool brk[29], plant[29];
	struct sched sc;
	struct patterns_result *r;
	struct actors_result ar = { 0 };
	struct actor a = { 0 };
	struct actor_break b[5] = { 0 };
	struct patterns_opts o;
	static const size_t at[5] = { 2, 5, 12, 19, 26 };
	char *s;

	thirty(&sc, brk, plant, 7, false, 6);
	for (int i = 0; i < 5; i++) {
		b[i].before = at[i];
		b[i].late = at[i] + 1;
		b[i].lateness_ns = i ? 2 * (int64_t)P : (int64_t)P / 50;
	}
	sc.w[1 + 2].positive = true;	/* windows[0] is before the first invocation */
	a.breaks = b;
	a.nbreaks = 5;
	a.st.period_ns = P;
	as_actor(&a, &sc);
	ar.v = &a;
	ar.n = 1;
	ar.upstream = 0;
	patterns_opts_default(&o);
	cr_assert_eq(patterns__analyse(sc.tl, &ar, &o, &r), 0);
	cr_assert_eq(r->windows_pos, 5);
	cr_assert_eq(r->minor_breaks, 1);
	cr_assert_eq(r->min_lateness_ns, (int64_t)P / 10);
	cr_assert_eq(r->npos, 4);
	cr_assert_eq(r->nneg, 26);
	cr_assert_str_eq(r->v[0].events[0], "irq 24 xhci_hcd");
	cr_assert_eq(r->v[0].count_pos, 4);
	s = render(r, false, 0);
	cr_assert_not_null(strstr(s, "\n4 breaks (late by 10 % of the period or more) against 26 kept periods; "
				     "left out: 1 minor breaks\n"), "%s", s);
	free(s);
	patterns__free(r);

	/* Every break minor. */
	for (int i = 0; i < 5; i++)
		b[i].lateness_ns = 1;
	cr_assert_eq(patterns__analyse(sc.tl, &ar, &o, &r), 0);
	cr_assert_eq(r->minor_breaks, 5);
	cr_assert_eq(r->npos, 0);
	cr_assert_str_eq(r->status, "every break is minor (late by less than min_lateness)");
	patterns__free(r);
	sched_free(&sc);
}

/*
 * Two causes: 6 breaks late by 3 periods with the disturbance, 6 late by
 * 0.3 period with cc1. Over all 12 breaks each cause is in half; the worst
 * 6 (Otsu on the lateness) are the disturber's, 6/6 against 0: those rank
 * first, then cc1's from the first level.
 */
Test(patterns, severity_levels)
{
	bool brk[39] = { 0 }, plant[39] = { 0 }, plant2[39] = { 0 };
	struct sched_cfg c = { .nwin = 40, .brk = brk, .plant = plant, .plant2 = plant2, .seed = 1 };
	struct sched sc;
	struct patterns_result *r;
	struct actors_result ar = { 0 };
	struct actor a = { 0 };
	struct actor_break b[12] = { 0 };
	struct patterns_opts o;
	const struct pattern *p;
	size_t nb = 0;
	char *s;

	for (int k = 2; k < 38; k += 3) {
		brk[k] = true;
		plant[k] = nb % 2 == 0;
		plant2[k] = nb % 2 == 1;
		b[nb].before = (size_t)k;
		b[nb].late = (size_t)k + 1;
		b[nb].lateness_ns = plant[k] ? 3 * (int64_t)P : 3 * (int64_t)P / 10;
		nb++;
	}
	cr_assert_eq(nb, 12);
	sched_build(&sc, &c);
	a.breaks = b;
	a.nbreaks = nb;
	a.st.period_ns = P;
	as_actor(&a, &sc);
	ar.v = &a;
	ar.n = 1;
	ar.upstream = 0;
	patterns_opts_default(&o);
	cr_assert_eq(patterns__analyse(sc.tl, &ar, &o, &r), 0);
	cr_assert_eq(r->npos, 12);
	cr_assert_eq(r->nneg, 29);
	cr_assert_eq(r->nlevels, 2);
	cr_assert_eq(r->levels[0].breaks, 12);
	cr_assert_eq(r->levels[0].late_above_ns, -1);
	cr_assert(r->levels[0].found);
	cr_assert_float_eq(r->levels[0].delta, 0.5, 1e-12);
	cr_assert_eq(r->levels[1].breaks, 6);
	cr_assert_eq(r->levels[1].late_above_ns, 3 * (int64_t)P / 10);
	cr_assert_eq(r->levels[1].left_out, 6);
	cr_assert_float_eq(r->levels[1].delta, 1.0, 1e-12);
	cr_assert_float_eq(r->levels[1].alpha, 0.0, 1e-12);
	/* 4 symbols of the disturbance at level 1, 2 of cc1 at level 0, once each */
	cr_assert_eq(r->n, 6);
	cr_assert_eq(r->total, 6);
	for (int i = 0; i < 4; i++) {
		p = &r->v[i];
		cr_assert_eq(p->level, 1);
		cr_assert_eq(p->breaks, 6);
		cr_assert_eq(p->count_pos, 6);
		cr_assert_eq(p->count_neg, 0);
		cr_assert_float_eq(p->score, 1.0, 1e-12);
		cr_assert_float_eq(p->delta, 1.0, 1e-12);
	}
	cr_assert_str_eq(r->v[2].events[0], "usb-storage switched in");
	for (int i = 4; i < 6; i++) {
		p = &r->v[i];
		cr_assert_eq(p->level, 0);
		cr_assert_eq(p->breaks, 12);
		cr_assert_eq(p->count_pos, 6);
		cr_assert_float_eq(p->score, 0.5, 1e-12);
		cr_assert_not_null(strstr(p->events[0], "cc1"), "%s", p->events[0]);
	}
	s = render(r, false, 0);
	cr_assert_not_null(strstr(s, "\nall breaks: first patterns at >= 50 % of the breaks, <= 0 % of the periods\n"
				     "the 6 worst, late by more than 30 us (Otsu): first patterns at >= 100 % of "
				     "the breaks, <= 0 % of the periods\n"), "%s", s);
	cr_assert_not_null(strstr(s, "  3. usb-storage switched in  (in 6/6 worst breaks, 0/29 periods; at 100 % / 0 %)\n"),
			   "%s", s);
	cr_assert_not_null(strstr(s, "  5. cc1 switched in  (in 6/12 breaks, 0/29 periods; at 50 % / 0 %)\n"), "%s", s);
	free(s);
	s = render(r, true, 0);
	cr_assert_not_null(strstr(s, "\"level\": 1,"), "%s", s);
	cr_assert_not_null(strstr(s, "\"breaks\": 6,"), "%s", s);
	cr_assert_not_null(strstr(s, "\"late_above_ns\": 30000,"), "%s", s);
	free(s);
	patterns__free(r);

	/* Without severity levels: all breaks only. */
	patterns_opts_default(&o);
	o.no_severity = true;
	cr_assert_eq(patterns__analyse(sc.tl, &ar, &o, &r), 0);
	cr_assert_eq(r->nlevels, 1);
	cr_assert_eq(r->n, 6);
	cr_assert_eq(r->v[0].level, 0);
	cr_assert_float_eq(r->v[0].score, 0.5, 1e-12);
	patterns__free(r);

	sched_free(&sc);
}

/*
 * Two breaks a million periods late (a hang) with nothing planted, 6 with
 * the disturbance (3 periods late), 6 with cc1 (0.3): the hangs alone are
 * too few to mine, so they are set aside and the rest split again; the
 * level mined is the disturbance's breaks and the hangs, 8.
 */
Test(patterns, extreme_breaks_set_aside)
{
	bool brk[39] = { 0 }, plant[39] = { 0 }, plant2[39] = { 0 };
	struct sched_cfg c = { .nwin = 40, .brk = brk, .plant = plant, .plant2 = plant2, .seed = 2 };
	struct sched sc;
	struct patterns_result *r;
	struct actors_result ar = { 0 };
	struct actor a = { 0 };
	struct actor_break b[14] = { 0 };
	struct patterns_opts o;
	const struct pattern *p;
	size_t nb = 0;

	for (int k = 1; k < 39 && nb < 14; k += 2) {
		brk[k] = true;
		plant[k] = nb < 6;
		plant2[k] = nb >= 6 && nb < 12;
		b[nb].before = (size_t)k;
		b[nb].late = (size_t)k + 1;
		b[nb].lateness_ns = nb < 6 ? 3 * (int64_t)P : nb < 12 ? 3 * (int64_t)P / 10 : 1000000 * (int64_t)P;
		nb++;
	}
	sched_build(&sc, &c);
	a.breaks = b;
	a.nbreaks = nb;
	a.st.period_ns = P;
	as_actor(&a, &sc);
	ar.v = &a;
	ar.n = 1;
	ar.upstream = 0;
	patterns_opts_default(&o);
	cr_assert_eq(patterns__analyse(sc.tl, &ar, &o, &r), 0);
	cr_assert_eq(r->npos, 14);
	cr_assert_geq(r->nlevels, 2);
	cr_assert(!r->levels[0].found);
	cr_assert_eq(r->levels[1].breaks, 8);
	cr_assert_eq(r->levels[1].late_above_ns, 3 * (int64_t)P / 10);
	cr_assert(r->levels[1].found);
	p = &r->v[0];
	cr_assert_eq(p->level, 1);
	cr_assert_eq(p->count_pos, 6);
	cr_assert_eq(p->breaks, 8);
	cr_assert_eq(p->count_neg, 0);
	cr_assert_not_null(find(r, "usb-storage switched in"));
	patterns__free(r);
	sched_free(&sc);
}

/* More kept periods than max_subtraces: an even sample, counted. */
Test(patterns, sampling)
{
	bool brk[29], plant[29];
	struct sched sc;
	struct patterns_opts o;
	struct patterns_result *r;

	thirty(&sc, brk, plant, 7, true, 6);
	patterns_opts_default(&o);
	o.max_subtraces = 9;
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, &o, &r), 0);
	cr_assert_eq(r->npos, 4);
	cr_assert_eq(r->nneg, 9);
	cr_assert_eq(r->unsampled_pos, 0);
	cr_assert_eq(r->unsampled_neg, 18);
	patterns__free(r);
	sched_free(&sc);
}

/* Each bound that bites is named; a search stopped by time says so. */
Test(patterns, bounds_reported)
{
	bool brk[29], plant[29];
	struct sched sc;
	struct patterns_opts o;
	struct patterns_result *r;

	thirty(&sc, brk, plant, 11, true, 6);
	patterns_opts_default(&o);
	o.time_budget_ns = 1;
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, &o, &r), 0);
	cr_assert(r->bounds & MINER_BOUND_TIME);
	cr_assert_not_null(strstr(r->bounds_text, "time budget 0.000 s"), "%s", r->bounds_text);
	cr_assert(!r->found);
	cr_assert_str_eq(r->status, "no pattern separates breaks from kept periods");
	patterns__free(r);

	patterns_opts_default(&o);
	o.delta = 0.25;
	o.alpha = 0.01;	/* above 0: at 0 the chance-only branches are not searched */
	o.max_nodes = 3;
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, &o, &r), 0);
	cr_assert(r->bounds & MINER_BOUND_NODES);
	cr_assert_not_null(strstr(r->bounds_text, "node budget 3"), "%s", r->bounds_text);
	patterns__free(r);

	patterns_opts_default(&o);
	o.vocab.max_len = 5;
	o.keep = 2;
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, &o, &r), 0);
	cr_assert_geq(r->truncated, 4);
	cr_assert_eq(r->longest, 5);
	cr_assert_leq(r->n, 2);
	cr_assert_geq(r->total, r->n);
	patterns__free(r);
	sched_free(&sc);
}

Test(patterns, renderings)
{
	bool brk[29], plant[29];
	struct sched sc;
	struct patterns_opts o;
	struct patterns_result *r;
	char *s;

	thirty(&sc, brk, plant, 7, true, 6);
	patterns_opts_default(&o);
	o.delta = 1.0;
	o.alpha = 0.10;
	cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, &o, &r), 0);
	snprintf(r->actor_name, sizeof(r->actor_name), "src/100");
	r->actor = 0;
	s = render(r, false, 0);
	cr_assert_not_null(strstr(s, "== What happens when src/100 breaks its period\n"), "%s", s);
	cr_assert_not_null(strstr(s, "\n4 breaks against 27 kept periods\n"), "%s", s);
	cr_assert_not_null(strstr(s, " kinds of event, gap 2, the activity of src/100 itself left out\n"), "%s", s);
	/* breaks' windows of 3 periods, kept ones of 37/27 on average (alpha_relaxed) */
	cr_assert_not_null(strstr(s, "\nthe breaks: patterns in >= 100 % of the breaks, <= 10 % of the periods "
				     "(scaled: the breaks' windows are 2.2x as long)\n"),
			   "%s", s);
	cr_assert_not_null(strstr(s, "  1. "), "%s", s);
	cr_assert_not_null(strstr(s, "usb-storage switched in  (in 4/4 breaks, 0.32 expected by chance; "
				     "1/27 periods; at 100 % / 10 %)\n"),
			   "%s", s);
	free(s);
	s = render(r, true, 0);
	cr_assert_not_null(strstr(s, "\"patterns\": [\n"), "%s", s);
	cr_assert_not_null(strstr(s, "\"usb-storage switched in\"\n"), "%s", s);
	cr_assert_not_null(strstr(s, "\"run\"\n"), "%s", s);
	cr_assert_not_null(strstr(s, "\"support_pos\": 1,"), "%s", s);
	cr_assert_not_null(strstr(s, "\"count_neg\": 1,"), "%s", s);
	cr_assert_not_null(strstr(s, "\"alpha\": 0.1,"), "%s", s);
	cr_assert_not_null(strstr(s, "\"chance_pos\": 0.324324"), "%s", s);
	cr_assert_not_null(strstr(s, "\"window_ratio\": 2.1891"), "%s", s);
	cr_assert_not_null(strstr(s, "\"patterns_search\": {"), "%s", s);
	cr_assert_not_null(strstr(s, "\"subtraces_pos\": 4,"), "%s", s);
	cr_assert_not_null(strstr(s, "\"status\": null,"), "%s", s);
	free(s);
	patterns__free(r);

	s = render(NULL, true, 0);
	cr_assert_not_null(strstr(s, "\"patterns\": []"), "%s", s);
	cr_assert_not_null(strstr(s, "\"patterns_search\": null"), "%s", s);
	free(s);
	cr_assert_eq(patterns__mine_windows(sc.tl, NULL, 0, TL_NONE, NULL, &r), 0);
	s = render(r, false, 0);
	cr_assert_str_eq(s, "\n== What happens when the period breaks\n"
			    "the period never breaks: no emerging patterns to look for\n");
	free(s);
	patterns__free(r);
	sched_free(&sc);
}

/* ---- the whole path against brute force ---- */

/* Independent naming of the stream events, in the words of vocab.h. */
static void naive_name(const struct timeline *tl, const struct tl_event *e, uint32_t drop, char *out,
		       size_t len)
{
	out[0] = '\0';
	switch (e->kind) {
	case TL_EV_RUN:
		if (tl->runs[e->idx].thread != drop)
			snprintf(out, len, "%s switched in", tl->threads[tl->runs[e->idx].thread].comm);
		break;
	case TL_EV_SYSCALL: {
		const struct tl_syscall *s = &tl->sc[e->idx];
		const char *nr = s->nr == NR_READ ? "read" : s->nr == NR_WRITE ? "write" : "futex";

		if (s->thread != drop)
			snprintf(out, len, "%s by %s", nr, tl->threads[s->thread].comm);
		break;
	}
	case TL_EV_WAKEUP: {
		const struct tl_wakeup *w = &tl->wk[e->idx];

		if (w->waker == drop || w->wakee == drop)
			break;
		if (w->flags & QT_WAKE_HARDIRQ)
			snprintf(out, len, "irq %u xhci_hcd wakes %s", w->irq, tl->threads[w->wakee].comm);
		else
			snprintf(out, len, "%s wakes %s", tl->threads[w->waker].comm, tl->threads[w->wakee].comm);
		break;
	}
	case TL_EV_IRQ: {
		const struct tl_irq *q = &tl->irqs[e->idx];

		if (q->soft)
			snprintf(out, len, "softirq SCHED");
		else
			snprintf(out, len, "irq %u %s", q->num, q->num == 24 ? "xhci_hcd" : "eth0");
		break;
	}
	}
}

#define MAXN 64		/* distinct names */
#define MAXL 512	/* events per subtrace */

#define BL_MAX 8

struct naive {
	char names[MAXN][64];
	int nnames;
	int seq[300][MAXL];
	int len[300];
	bool pos[300];
	double ns[300];		/* the window's length */
	int n;
};

static int naive_id(struct naive *nv, const char *s)
{
	for (int i = 0; i < nv->nnames; i++)
		if (!strcmp(nv->names[i], s))
			return i;
	cr_assert_lt(nv->nnames, MAXN);
	snprintf(nv->names[nv->nnames], 64, "%s", s);
	return nv->nnames++;
}

static void naive_build(struct naive *nv, const struct sched *sc)
{
	nv->n = 0;
	nv->nnames = 0;
	for (size_t k = 0; k < sc->nw; k++) {
		const struct period_window *w = &sc->w[k];
		int *q = nv->seq[nv->n], n = 0, last = -1;

		if (timeline__missing(sc->tl, -1, w->start_ns, w->end_ns))
			continue;
		/* every event kind, in time order: scan the timeline's arrays */
		struct tl_event *ev;
		size_t nev;

		cr_assert_eq(timeline__stream(sc->tl, NULL, 0, &ev, &nev), 0);
		for (size_t i = 0; i < nev; i++) {
			char name[64];
			int id;

			if ((int64_t)ev[i].ts < w->start_ns || (int64_t)ev[i].ts > w->end_ns ||
			    ((int64_t)ev[i].ts == w->end_ns && !w->end_closed))
				continue;
			naive_name(sc->tl, &ev[i], sc->src, name, sizeof(name));
			if (!name[0])
				continue;
			id = naive_id(nv, name);
			if (id == last)
				continue;
			cr_assert_lt(n, MAXL);
			q[n++] = last = id;
		}
		free(ev);
		nv->len[nv->n] = n;
		nv->pos[nv->n] = w->positive;
		nv->ns[nv->n] = (double)(w->end_ns - w->start_ns);
		nv->n++;
	}
}

static bool naive_at(const int *p, int m, const int *t, int n, int i, int g)
{
	if (m == 1)
		return true;
	for (int j = i + 1; j <= i + g + 1 && j < n; j++)
		if (t[j] == p[1] && naive_at(p + 1, m - 1, t, n, j, g))
			return true;
	return false;
}

static bool naive_contains(const int *p, int m, const int *t, int n, int g)
{
	for (int i = 0; i < n; i++)
		if (t[i] == p[0] && naive_at(p, m, t, n, i, g))
			return true;
	return false;
}

static void naive_count(const struct naive *nv, const int *p, int m, int g, uint32_t *cp, uint32_t *cn)
{
	*cp = *cn = 0;
	for (int k = 0; k < nv->n; k++)
		if (naive_contains(p, m, nv->seq[k], nv->len[k], g))
			(*(nv->pos[k] ? cp : cn))++;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * chance.h's rate of an activity in cn kept windows, by bisection on
 * sum_j min(1, r l_j) = cn rather than chance.c's closed form.
 */
static double naive_rate(const struct naive *nv, uint32_t cn)
{
	double lo = 0, hi = 1;
	uint32_t nneg = 0;

	for (int k = 0; k < nv->n; k++)
		nneg += !nv->pos[k];
	if (!cn)
		return 0;
	if (cn >= nneg)
		return INFINITY;
	for (int it = 0; it < 200; it++) {
		double mid = (lo + hi) / 2, f = 0;

		for (int k = 0; k < nv->n; k++)
			if (!nv->pos[k])
				f += fmin(1, mid * nv->ns[k]);
		if (f < cn)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* Whether chance alone explains a pattern's count in the breaks at alpha (chance.h, miner.h). */
static bool naive_by_chance(const struct naive *nv, const int *p, int m, uint32_t cn, int g, uint32_t alpha_pct,
			    bool items_only)
{
	uint32_t npos = 0, nneg = 0;
	double r = naive_rate(nv, cn), own = 0, items = 0, rates[BL_MAX], bound;

	for (int k = 0; k < nv->n; k++) {
		npos += nv->pos[k];
		nneg += !nv->pos[k];
	}
	bound = alpha_pct / 100.0 * npos * (1 + 1e-9);
	for (int j = 0; j < m; j++) {
		uint32_t cp1, cn1;

		naive_count(nv, &p[j], 1, g, &cp1, &cn1);
		rates[j] = naive_rate(nv, cn1);
	}
	{
		double kept[300], med, base = 1;
		int nk = 0;

		for (int k = 0; k < nv->n; k++)
			if (!nv->pos[k])
				kept[nk++] = nv->ns[k];
		qsort(kept, nk, sizeof(kept[0]), cmp_dbl);
		med = nk ? (kept[(nk - 1) / 2] + kept[nk / 2]) / 2 : 0;
		for (int j = 0; j < m; j++)
			base *= rates[j] > 0 ? fmin(1, rates[j] * med) : 0;
		for (int k = 0; k < nv->n; k++) {
			double q = 1;

			if (!nv->pos[k])
				continue;
			if (nv->ns[k] > 0)
				own += fmin(1, r * nv->ns[k]);
			for (int j = 0; j < m; j++)
				q *= rates[j] > 0 ? fmin(1, rates[j] * nv->ns[k]) : 0;
			items += fmin(1, (nneg ? fmin(1, (double)cn / nneg) : 0) + fmax(0, q - base));
		}
	}
	own = fmax(own, nneg ? (double)cn * npos / nneg : 0);
	/* the first bounds the counts the search takes as emerging; the second filters its minimal ones */
	return items_only ? m > 1 && items > bound : own > bound;
}

#define BL 4	/* pattern length searched */

struct cand {
	int len;
	int s[BL];
	uint32_t cp, cn;
	bool emerging;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->len != y->len)
		return x->len - y->len;
	for (int i = 0; i < x->len; i++)
		if (x->s[i] != y->s[i])
			return x->s[i] - y->s[i];
	return 0;
}

/* Every g-gap embedding of length <= BL in a D_pos sequence. */
static void enum_from(const int *t, int n, int i, int g, struct cand *cur, struct cand *out, size_t *nout,
		      size_t cap)
{
	cur->s[cur->len++] = t[i];
	cr_assert_lt(*nout, cap);
	out[(*nout)++] = *cur;
	if (cur->len < BL)
		for (int j = i + 1; j <= i + g + 1 && j < n; j++)
			enum_from(t, n, j, g, cur, out, nout, cap);
	cur->len--;
}

static bool cand_emerging(const struct cand *c, size_t nc, const int *p, int m)
{
	struct cand key = { .len = m };
	const struct cand *f;

	memcpy(key.s, p, m * sizeof(int));
	f = bsearch(&key, c, nc, sizeof(*c), cmp_cand);
	return f && f->emerging;
}

Test(patterns, whole_path_equals_brute_force, .timeout = 120)
{
	enum { SEEDS = 1000 };
	static const uint32_t deltas[] = { 50, 75, 100 };
	static const uint32_t alphas[] = { 0, 10, 25 };
	size_t cap = 400000;
	struct cand *c = malloc(cap * sizeof(*c));
	struct naive *nv = malloc(sizeof(*nv));
	unsigned long long rs = 99;
	size_t total = 0, longer = 0, nonempty = 0;

	cr_assert(c && nv);
	for (int seed = 1; seed <= SEEDS; seed++) {
		bool brk[40] = { 0 }, plant[40] = { 0 };
		int nwin = (int)tu_rand_range(&rs, 8, 30);
		struct sched_cfg cfg = { .nwin = nwin, .brk = brk, .plant = plant, .noise_min = 0,
					 .noise_max = (int)tu_rand_range(&rs, 2, 8), .seed = (unsigned long long)seed };
		struct sched sc;
		struct patterns_opts o;
		struct patterns_result *r;
		uint32_t dp = deltas[tu_rand_range(&rs, 0, 2)], ap = alphas[tu_rand_range(&rs, 0, 2)];
		uint32_t npos = 0, nneg = 0, minp, maxn;
		size_t nc = 0, u = 0, nmin = 0;
		int g = (int)tu_rand_range(&rs, 0, 3);
		struct cand cur = { 0 };

		for (int k = 0; k + 1 < nwin; k++) {
			brk[k] = tu_rand_range(&rs, 0, 4) == 0;
			plant[k] = brk[k] ? tu_rand_range(&rs, 0, 5) > 0 : tu_rand_range(&rs, 0, 15) == 0;
		}
		brk[tu_rand_range(&rs, 0, nwin - 2)] = true;
		sched_build(&sc, &cfg);
		naive_build(nv, &sc);

		patterns_opts_default(&o);
		o.delta = dp / 100.0;
		o.alpha = ap / 100.0;
		o.gap = g;
		o.max_len = BL;
		o.keep = 0;
		cr_assert_eq(patterns__mine_windows(sc.tl, sc.w, sc.nw, sc.src, &o, &r), 0);

		for (int k = 0; k < nv->n; k++) {
			npos += nv->pos[k];
			nneg += !nv->pos[k];
			if (nv->pos[k])
				for (int i = 0; i < nv->len[k]; i++)
					enum_from(nv->seq[k], nv->len[k], i, g, &cur, c, &nc, cap);
		}
		cr_assert_eq(r->npos, npos, "seed %d", seed);
		cr_assert_eq(r->nneg, nneg, "seed %d", seed);
		cr_assert_eq(r->vocabulary <= (uint32_t)nv->nnames, true, "seed %d", seed);
		minp = miner_min_pos(PPM_PCT(dp), npos);
		maxn = miner_max_neg(PPM_PCT(ap), nneg);
		qsort(c, nc, sizeof(*c), cmp_cand);
		for (size_t i = 0; i < nc; i++)
			if (!u || cmp_cand(&c[u - 1], &c[i]))
				c[u++] = c[i];
		nc = u;
		for (size_t i = 0; i < nc; i++) {
			naive_count(nv, c[i].s, c[i].len, g, &c[i].cp, &c[i].cn);
			c[i].emerging = c[i].cp >= minp && c[i].cn <= maxn &&
					!naive_by_chance(nv, c[i].s, c[i].len, c[i].cn, g, ap, false);
		}
		/* minimal: no proper subsequence emerging */
		for (size_t i = 0; i < nc; i++) {
			bool minimal = c[i].emerging;

			for (unsigned mask = 1; minimal && mask + 1 < (1u << c[i].len); mask++) {
				int sub[BL], m = 0;

				for (int k = 0; k < c[i].len; k++)
					if (mask & (1u << k))
						sub[m++] = c[i].s[k];
				minimal = !cand_emerging(c, nc, sub, m);
			}
			if (!minimal || naive_by_chance(nv, c[i].s, c[i].len, c[i].cn, g, ap, true))
				continue;
			nmin++;
			longer += c[i].len > 1;
			{
				char joined[512];
				size_t n = 0;
				const struct pattern *p;

				for (int k = 0; k < c[i].len; k++)
					n += snprintf(joined + n, sizeof(joined) - n, "%s%s", k ? "|" : "",
						      nv->names[c[i].s[k]]);
				p = find(r, joined);
				cr_assert_not_null(p, "seed %d: %s [%u/%u] missing", seed, joined, c[i].cp, c[i].cn);
				cr_assert_eq(p->count_pos, c[i].cp, "seed %d: %s", seed, joined);
				cr_assert_eq(p->count_neg, c[i].cn, "seed %d: %s", seed, joined);
			}
		}
		cr_assert_eq(r->n, nmin, "seed %d: %zu patterns, brute force %zu (bounds %s)", seed, r->n, nmin,
			     r->bounds_text);
		cr_assert_eq(r->bounds & ~MINER_BOUND_MAX_LEN, 0, "seed %d: %s", seed, r->bounds_text);
		total += nmin;
		nonempty += nmin > 0;
		/* ranked by score, then shorter */
		for (size_t i = 1; i < r->n; i++)
			cr_assert(r->v[i - 1].score > r->v[i].score - 1e-12, "seed %d", seed);
		patterns__free(r);
		sched_free(&sc);
	}
	/* The instances are not trivial (1000 seeds: 336 have patterns, 1345 in
	 * all, 34 of them longer than one event; without the windows' lengths
	 * 408, 1693 and 157: the noise is placed per window, not per time, so
	 * a break's window of 3 periods holds no more of it, and chance.h's
	 * model takes it for more likely there). */
	cr_assert_gt(nonempty, SEEDS / 4, "%zu", nonempty);
	cr_assert_gt(longer, SEEDS / 50, "%zu of %zu", longer, total);
	free(c);
	free(nv);
}
