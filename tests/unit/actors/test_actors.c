/*
 * The actors stage on hand-made schedules: synthetic traces (synth_trace.h)
 * through timeline__build() and actors__analyse(), with the ground truth
 * of every invocation and break known.
 */
#include <errno.h>
#include <math.h>

#include "testutil.h"
#include "actors/actors.h"
#include "analysis/analysis.h"
#include "actors/period.h"
#include "lib/workq.h"
#include "report/json_actors.h"
#include "report/style.h"
#include "report/text_actors.h"
#include "synth_actor.h"
#include "synth_lock.h"
#include "synth_writer.h"
#include "synth_trace.h"
#include "timeline/timeline.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MS 1000000LL
#define US 1000LL
#define T0 (1000 * MS)		/* the recordings start at 1 s */
#define NR_WRITE 1		/* x86_64 */
#define NR_READ 0

/* tid -> pid: the tests put threads 101..199 in process 100, 201.. in 200, ... */
static uint32_t pid_of(uint32_t tid)
{
	return tid / 100 * 100;
}

/* ---- a schedule builder: runs per CPU, turned into switch records ---- */

struct srun {
	uint64_t s, e;
	uint32_t tid;
	int cpu;
	enum synth_end how;
};

struct sched {
	struct srun *r;
	size_t n, cap;
};

static void sched_run(struct sched *S, uint32_t tid, int cpu, uint64_t s, uint64_t e, enum synth_end how)
{
	struct srun r = { s, e, tid, cpu, how };

	cr_assert(e > s, "run of %u [%llu, %llu)", tid, (unsigned long long)s, (unsigned long long)e);
	SYNTH_PUSH(S->r, S->n, S->cap, r);
}

static int by_cpu_start(const void *x, const void *y)
{
	const struct srun *a = x, *b = y;

	if (a->cpu != b->cpu)
		return a->cpu - b->cpu;
	return (a->s > b->s) - (a->s < b->s);
}

/*
 * Emits the switches: back-to-back runs on a CPU give one switch prev ->
 * next, otherwise the CPU idles in between. A run starting at the
 * recording's start was already running; one ending at its stop still runs.
 */
static void sched_emit(struct synth *sy, struct sched *S)
{
	uint64_t start = sy->t->start_ns, stop = sy->t->stop_ns;

	qsort(S->r, S->n, sizeof(*S->r), by_cpu_start);
	for (size_t i = 0; i < S->n; i++) {
		const struct srun *r = &S->r[i], *p = i && S->r[i - 1].cpu == r->cpu ? &S->r[i - 1] : NULL;

		cr_assert(!p || p->e <= r->s, "runs overlap on CPU %d at %llu", r->cpu, (unsigned long long)r->s);
		if (p && p->e == r->s) {
			synth_switch(sy, r->s, r->cpu, p->tid, pid_of(p->tid), p->how, r->tid, pid_of(r->tid));
		} else {
			if (p && p->e < stop)
				synth_switch(sy, p->e, p->cpu, p->tid, pid_of(p->tid), p->how, 0, 0);
			if (r->s > start)
				synth_switch(sy, r->s, r->cpu, 0, 0, SYN_PREEMPT, r->tid, pid_of(r->tid));
		}
		if ((i + 1 == S->n || S->r[i + 1].cpu != r->cpu) && r->e < stop)
			synth_switch(sy, r->e, r->cpu, r->tid, pid_of(r->tid), r->how, 0, 0);
	}
	free(S->r);
	memset(S, 0, sizeof(*S));
}

/*
 * One periodic actor from synth_actor.h's fragments on a CPU: preemptions
 * are another thread (hog) taking the CPU, voluntary pauses leave it idle.
 * Returns the number of fragments; inv_first/inv_start as synth_actor_gen.
 */
static size_t add_actor(struct sched *S, uint32_t tid, uint32_t hog, int cpu, const struct synth_actor_cfg *c,
			uint64_t seed, size_t *inv_first, int64_t *inv_start)
{
	struct invoc_fragment *f = malloc(synth_actor_max_frags(c) * sizeof(*f));
	uint64_t s = seed * 0x9e3779b97f4a7c15ULL;
	size_t nf;

	cr_assert(f);
	nf = synth_actor_gen(c, &s, f, inv_first, inv_start);
	for (size_t j = 0; j < nf; j++) {
		sched_run(S, tid, cpu, f[j].start_ns, f[j].end_ns, f[j].continues ? SYN_PREEMPT : SYN_SLEEP);
		if (f[j].continues)
			sched_run(S, hog, cpu, f[j].end_ns, f[j + 1].start_ns, SYN_SLEEP);
	}
	free(f);
	return nf;
}

struct world {
	struct trace *t;
	struct timeline *tl;
	struct actors_result *r;
};

static void world_build(struct world *w, struct synth *sy)
{
	memset(w, 0, sizeof(*w));
	w->t = synth_finish(sy);
	cr_assert_eq(timeline__build(w->t, NULL, &w->tl), 0);
}

static int world_analyse(struct world *w, const char *const *specs, size_t nspecs, const struct actors_opts *ao)
{
	struct actors_opts o = ao ? *ao : (struct actors_opts){ 0 };

	o.actor_specs = specs;
	o.n_actor_specs = nspecs;
	o.jobs = workq_cpus_usable() > 1 ? 2 : 1;	/* as the analysis runs it */
	actors__free(w->r);
	w->r = NULL;
	return actors__analyse(w->tl, &o, &w->r);
}

static void world_free(struct world *w)
{
	actors__free(w->r);
	timeline__free(w->tl);
	trace__free(w->t);
}

/*
 * actor_windows() into a malloc'd array, checked against period_split()
 * over the invocation times and the actor's quartiles (docs/ALGORITHMS.md
 * §3.3, all negative without a period): the same windows.
 */
static struct period_window *windows_of(const struct world *w, const struct actor *a)
{
	struct period_window *v = malloc((a->nwindows + 1) * sizeof(*v)), *ref;
	int64_t *t = malloc((a->ninv + 1) * sizeof(*t));
	size_t m = 0;

	cr_assert(v && t);
	cr_assert_eq(a->nwindows, a->ninv ? a->ninv + 1 : 0);
	actor_windows(a, w->tl, v);
	ref = malloc((a->nwindows + 1) * sizeof(*ref));
	for (size_t k = 0; k < a->ninv; k++)
		t[k] = a->inv[k].start_ns;
	cr_assert_eq(period_split(t, a->ninv, &a->st,
				  a->ninv && (int64_t)w->tl->start > t[0] ? t[0] : (int64_t)w->tl->start,
				  a->ninv && (int64_t)w->tl->end < t[a->ninv - 1] ? t[a->ninv - 1] : (int64_t)w->tl->end,
				  ref, &m), 0);
	cr_assert_eq(m, a->nwindows);
	/* ... but for the completion breaks, whose window is their invocation's */
	for (size_t b = 0; b < a->nbreaks; b++)
		if (a->breaks[b].kind == BREAK_COMPLETION)
			ref[actor_break_window(&a->breaks[b]) + 1].positive = true;
	for (size_t k = 0; k < m; k++)
		cr_assert(v[k].start_ns == ref[k].start_ns && v[k].end_ns == ref[k].end_ns &&
			  v[k].end_closed == ref[k].end_closed && v[k].before == ref[k].before &&
			  v[k].positive == (ref[k].positive && a->st.periodic),
			  "%s: window %zu", a->name, k);
	free(ref);
	free(t);
	return v;
}

static void same_actor(const struct world *w, const struct actor *x, const struct actor *y)
{
	struct period_window *wx, *wy;

	cr_assert_str_eq(x->name, y->name);
	cr_assert(x->kind == y->kind && x->thread == y->thread && x->ninv == y->ninv && x->nbreaks == y->nbreaks &&
		  x->nwindows == y->nwindows && x->noccurrences == y->noccurrences && x->ncut == y->ncut,
		  "%s", x->name);
	cr_assert(x->st.period_ns == y->st.period_ns && x->st.q1_ns == y->st.q1_ns && x->st.q3_ns == y->st.q3_ns &&
		  x->st.periodic == y->st.periodic && x->st.n_breaks == y->st.n_breaks, "%s: period", x->name);
	cr_assert(!memcmp(x->inv, y->inv, x->ninv * sizeof(*x->inv)), "%s: invocations", x->name);
	for (size_t k = 0; k < x->nbreaks; k++)
		cr_assert(x->breaks[k].before == y->breaks[k].before && x->breaks[k].start_ns == y->breaks[k].start_ns &&
			  x->breaks[k].end_ns == y->breaks[k].end_ns &&
			  x->breaks[k].lateness_ns == y->breaks[k].lateness_ns &&
			  x->breaks[k].data_missing == y->breaks[k].data_missing && x->breaks[k].kind == y->breaks[k].kind &&
			  x->breaks[k].into_before == y->breaks[k].into_before,
			  "%s: break %zu", x->name, k);
	wx = windows_of(w, x);
	wy = windows_of(w, y);
	for (size_t k = 0; k < x->nwindows; k++)
		cr_assert(wx[k].start_ns == wy[k].start_ns && wx[k].end_ns == wy[k].end_ns &&
			  wx[k].positive == wy[k].positive && wx[k].before == wy[k].before,
			  "%s: window %zu", x->name, k);
	free(wx);
	free(wy);
}

/*
 * The stage studies candidates on two threads when told it has two CPUs:
 * the same actors, skips, edges and upstream actor as one thread gives, in
 * the same order.
 */
static void check_side_by_side(const struct world *w, const char *const *specs, size_t nspecs)
{
	struct actors_result *r[2];
	struct actors_opts o = { .actor_specs = specs, .n_actor_specs = nspecs };

	for (int j = 0; j < 2; j++) {
		o.jobs = j + 1;
		cr_assert_eq(actors__analyse(w->tl, &o, &r[j]), 0);
	}
	cr_assert_eq(r[0]->n, r[1]->n);
	for (size_t i = 0; i < r[0]->n; i++)
		same_actor(w, &r[0]->v[i], &r[1]->v[i]);
	cr_assert_eq(r[0]->nskipped, r[1]->nskipped);
	for (size_t i = 0; i < r[0]->nskipped; i++)
		cr_assert(r[0]->skipped[i].thread == r[1]->skipped[i].thread &&
			  r[0]->skipped[i].count == r[1]->skipped[i].count &&
			  !strcmp(r[0]->skipped[i].reason, r[1]->skipped[i].reason), "skip %zu", i);
	cr_assert_eq(r[0]->nedges, r[1]->nedges);
	cr_assert(!memcmp(r[0]->edges, r[1]->edges, r[0]->nedges * sizeof(*r[0]->edges)));
	cr_assert_eq(r[0]->upstream, r[1]->upstream);
	actors__free(r[0]);
	actors__free(r[1]);
}

static const struct actor *actor_by_name(const struct actors_result *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].name, name))
			return &r->v[i];
	cr_assert_fail("no actor %s", name);
	return NULL;
}

static long index_of(const struct actors_result *r, const char *name)
{
	return actor_by_name(r, name) - r->v;
}

static struct synth_actor_cfg cfg10ms(void)
{
	return (struct synth_actor_cfg){
		.t0_ns = T0 + 20 * MS,
		.period_ns = 10 * MS,
		.n_inv = 200,
		.jitter = 0.02,
		.run_min_ns = 1 * MS, .run_max_ns = 3 * MS,
		.preempt_wait_min_ns = 20 * US, .preempt_wait_max_ns = 500 * US,
		.sleep_min_ns = 100 * US, .sleep_max_ns = 500 * US,
	};
}

/* Every invocation exactly (first run, start) and the breaks at the known places. */
static void check_actor(const struct world *w, const struct actor *a, const struct synth_actor_cfg *c,
			const size_t *inv_first, const int64_t *inv_start, const char *what)
{
	const struct tl_thread *th = &w->tl->threads[a->thread];

	cr_assert_eq(a->ninv, c->n_inv, "%s: %zu invocations, want %zu", what, a->ninv, c->n_inv);
	for (size_t k = 0; k < a->ninv; k++) {
		cr_assert_eq(a->inv[k].first, th->run0 + inv_first[k], "%s: invocation %zu starts at run %zu, want %zu",
			     what, k, a->inv[k].first - th->run0, inv_first[k]);
		cr_assert_eq(a->inv[k].start_ns, inv_start[k], "%s: invocation %zu", what, k);
		cr_assert_eq(a->inv[k].last + 1, k + 1 < a->ninv ? a->inv[k + 1].first : th->run0 + th->nrun);
		cr_assert_eq(a->inv[k].end_ns, (int64_t)w->tl->runs[a->inv[k].last].end);
	}
	cr_assert(a->st.periodic, "%s: QCoD %g", what, a->st.qcod);
	cr_assert_eq(a->nbreaks, c->n_breaks, "%s: %zu breaks, want %zu", what, a->nbreaks, c->n_breaks);
	for (size_t b = 0; b < a->nbreaks; b++) {
		cr_assert_eq(a->breaks[b].late, c->break_at[b], "%s: break %zu at %zu, want %zu", what, b,
			     a->breaks[b].late, c->break_at[b]);
		cr_assert_eq(a->breaks[b].before + 1, a->breaks[b].late);
		cr_assert_eq(a->breaks[b].start_ns, inv_start[c->break_at[b] - 1]);
		cr_assert_eq(a->breaks[b].end_ns, inv_start[c->break_at[b]]);
		cr_assert_eq(a->breaks[b].interval_ns, a->breaks[b].end_ns - a->breaks[b].start_ns);
		/* the delay on top of the period, give or take the jitter of two releases */
		cr_assert(llabs(a->breaks[b].lateness_ns - c->break_delay_ns) <= 2 * c->jitter * c->period_ns + 1,
			  "%s: break %zu late by %lld", what, b, (long long)a->breaks[b].lateness_ns);
		cr_assert(!a->breaks[b].data_missing);
	}
	cr_assert(fabs(a->st.period_ns - c->period_ns) < 0.01 * c->period_ns, "%s: period %g", what, a->st.period_ns);
	/* D_pos / D_neg: one window per interval plus the two ends */
	cr_assert_eq(a->nwindows, a->ninv + 1);
	struct period_window *win = windows_of(w, a);
	size_t pos = 0;

	for (size_t k = 0; k < a->nwindows; k++)
		pos += win[k].positive;
	cr_assert_eq(pos, a->nbreaks);
	free(win);
}

static const size_t six_breaks[] = { 37, 90, 91, 150, 170, 188 };

/* Runs the scenario for a few seeds. */
static void scenario(struct synth_actor_cfg c, const char *what, unsigned int seeds)
{
	size_t *first = malloc(c.n_inv * sizeof(*first));
	int64_t *start = malloc(c.n_inv * sizeof(*start));

	for (uint64_t seed = 1; seed <= seeds; seed++) {
		struct synth *sy = synth_new(T0, T0 + 3000 * MS, 2);
		struct sched S = { 0 };
		struct world w;
		char label[96];

		synth_thread(sy, 101, 100, "src");
		synth_thread(sy, 201, 200, "hog");
		synth_targets(sy, "100");
		add_actor(&S, 101, 201, 0, &c, seed, first, start);
		sched_emit(sy, &S);
		world_build(&w, sy);
		cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);
		cr_assert_eq(w.r->n, 1, "only the target thread is an actor by default");
		snprintf(label, sizeof(label), "%s, seed %llu", what, (unsigned long long)seed);
		check_actor(&w, &w.r->v[0], &c, first, start, label);
		cr_assert_eq(w.r->upstream, c.n_breaks ? 0 : -1);
		world_free(&w);
	}
	free(first);
	free(start);
}

Test(actors, periodic_with_preemption_and_breaks)
{
	struct synth_actor_cfg c = cfg10ms();

	c.max_preempt = 4;
	c.break_at = six_breaks;
	c.n_breaks = N(six_breaks);
	c.break_delay_ns = 4 * MS;
	scenario(c, "preempted 1-5 fragments", 10);
}

Test(actors, intra_invocation_blocking)
{
	struct synth_actor_cfg c = cfg10ms();

	c.max_preempt = 2;
	c.max_blocks = 2;
	c.block_prob = 0.5;
	c.break_at = six_breaks;
	c.n_breaks = N(six_breaks);
	c.break_delay_ns = 4 * MS;
	scenario(c, "half the invocations block 1-2 times", 10);
	c.block_prob = 1.0;
	scenario(c, "every invocation blocks", 10);
}

Test(actors, jitter_without_breaks)
{
	struct synth_actor_cfg c = cfg10ms();

	c.jitter = 0.05;
	c.max_preempt = 2;
	scenario(c, "5 % jitter, no break", 10);
}

/*
 * A disturbance every 20 periods (25 ms), one run per period: SATM's
 * clustering alone makes Otsu's high class exactly the breaks and the guard
 * accepts one "invocation" per break; the split rule keeps every period.
 */
static void recurring_breaks(unsigned int max_preempt, unsigned int max_blocks, const char *what)
{
	static size_t every20[9];
	struct synth_actor_cfg c = cfg10ms();
	/* collapsed to one invocation per break: 11, fewer than a default actor needs */
	struct actors_opts satm = { .max_gap_frac = -1, .min_invocations = 2 };
	size_t first[200];
	int64_t start[200];

	for (size_t i = 0; i < N(every20); i++)
		every20[i] = 10 + 20 * i;
	c.break_at = every20;
	c.n_breaks = N(every20);
	c.break_delay_ns = 25 * MS;
	c.max_preempt = max_preempt;
	c.max_blocks = max_blocks;
	c.block_prob = max_blocks ? 0.5 : 0;
	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct synth *sy = synth_new(T0, T0 + 3000 * MS, 2);
		struct sched S = { 0 };
		struct world w;

		synth_thread(sy, 101, 100, "src");
		synth_targets(sy, "100");
		add_actor(&S, 101, 0, 0, &c, seed, first, start);
		sched_emit(sy, &S);
		world_build(&w, sy);
		cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);
		check_actor(&w, &w.r->v[0], &c, first, start, what);
		cr_assert_eq(w.r->v[0].info.rule, INVOC_RULE_OTSU);
		cr_assert_eq(w.r->v[0].nsplit, 190, "seed %llu: %zu splits", (unsigned long long)seed,
			     w.r->v[0].nsplit);
		/* The same actor with docs/ALGORITHMS.md §1.4 exactly: one invocation per break. */
		cr_assert_eq(world_analyse(&w, NULL, 0, &satm), 0);
		cr_assert_eq(w.r->v[0].ninv, 1 + N(every20), "seed %llu", (unsigned long long)seed);
		world_free(&w);
	}
}

Test(actors, recurring_breaks_do_not_collapse)
{
	recurring_breaks(0, 0, "recurring breaks");
}

/*
 * The same with invocations of several fragments (preemptions, short
 * blocking pauses): the split rewrites the invocations in place, moving
 * each by the splits before it; every invocation's first and last run and
 * its times must come out exact.
 */
Test(actors, recurring_breaks_split_multi_fragment_invocations)
{
	recurring_breaks(3, 0, "recurring breaks, several fragments each");
}

Test(actors, non_periodic_actor)
{
	unsigned long long seed = 7;
	uint64_t t = T0 + 10 * MS;
	struct synth *sy = synth_new(T0, T0 + 5000 * MS, 2);
	struct sched S = { 0 };
	struct world w;
	size_t n = 0;

	synth_thread(sy, 101, 100, "irregular");
	synth_targets(sy, "100");
	while (t + 40 * MS < T0 + 5000 * MS) {
		sched_run(&S, 101, 1, t, t + 1 * MS, SYN_SLEEP);
		t += tu_rand_range(&seed, 2, 40) * MS;
		n++;
	}
	sched_emit(sy, &S);
	world_build(&w, sy);
	cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);
	cr_assert_eq(w.r->n, 1);
	/* the clustering may join the runs that came 2-3 ms apart */
	cr_assert(w.r->v[0].ninv <= n && w.r->v[0].ninv > n / 2, "%zu of %zu", w.r->v[0].ninv, n);
	cr_assert(!w.r->v[0].st.periodic, "QCoD %g", w.r->v[0].st.qcod);
	cr_assert(w.r->v[0].st.qcod > 0.2, "QCoD %g", w.r->v[0].st.qcod);
	cr_assert_eq(w.r->v[0].nbreaks, 0, "no break without a period");
	cr_assert(!w.r->v[0].breaking);
	cr_assert_eq(w.r->upstream, -1);
	{
		struct period_window *win = windows_of(&w, &w.r->v[0]);

		for (size_t k = 0; k < w.r->v[0].nwindows; k++)
			cr_assert(!win[k].positive, "window %zu of an actor without a period", k);
		free(win);
	}
	world_free(&w);
}

/* ---- upstream order ---- */

/*
 * src (timer, CPU 0) -> dec (CPU 1) -> sink (CPU 1), period 10 ms; src is
 * held off its CPU at the frames in `late` for `delay`, and the delay
 * carries on downstream (every later frame is shifted, SATM §3).
 */
struct pl_cfg {
	const size_t *late;
	size_t nlate;
	int64_t delay;
	size_t frames;
	bool back_pressure;	/* dec wakes src every 4th frame (a full queue) */
	size_t dec_late_at;	/* dec alone starts 5 ms late at this frame (0: never) */
};

static void add_pipeline(struct synth *sy, struct sched *S, const struct pl_cfg *p, int64_t *src_start)
{
	int64_t shift = 0;
	size_t b = 0;

	synth_thread(sy, 101, 100, "src");
	synth_thread(sy, 102, 100, "dec");
	synth_thread(sy, 103, 100, "sink");
	synth_thread(sy, 201, 200, "disturber");
	for (size_t k = 0; k < p->frames; k++) {
		int64_t rel = T0 + 20 * MS + (int64_t)k * 10 * MS, t;

		if (b < p->nlate && p->late[b] == k) {
			shift += p->delay;
			/* the disturber holds src's CPU when src should run */
			sched_run(S, 201, 0, rel + shift - p->delay, rel + shift, SYN_SLEEP);
			b++;
		}
		t = rel + shift;
		src_start[k] = t;
		synth_timer_wakeup(sy, t - 5 * US, 101, 100, 0);
		sched_run(S, 101, 0, t, t + 1 * MS, SYN_SLEEP);
		synth_wakeup(sy, t + 1 * MS - 10 * US, 101, 100, 102, 100, 1);
		if (p->dec_late_at && k == p->dec_late_at)
			t += 5 * MS;
		sched_run(S, 102, 1, t + 1 * MS + 20 * US, t + 3 * MS, SYN_SLEEP);
		synth_wakeup(sy, t + 3 * MS - 10 * US, 102, 100, 103, 100, 1);
		sched_run(S, 103, 1, t + 3 * MS, t + 3 * MS + 500 * US, SYN_SLEEP);
		if (p->back_pressure && k % 4 == 3) {
			/* dec wakes src: src's next invocation carries that wakeup */
			synth_wakeup(sy, t + 2 * MS, 102, 100, 101, 100, 0);
		}
	}
}

Test(actors, pipeline_most_upstream_is_the_source)
{
	static const size_t late[] = { 50, 120 };
	struct pl_cfg p = { late, N(late), 15 * MS, 200, false, 0 };
	struct synth *sy = synth_new(T0, T0 + 2500 * MS, 2);
	struct sched S = { 0 };
	int64_t src_start[200];
	struct world w;
	long src, dec, sink;

	synth_targets(sy, "100");
	add_pipeline(sy, &S, &p, src_start);
	sched_emit(sy, &S);
	world_build(&w, sy);
	cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);
	cr_assert_eq(w.r->n, 3, "src, dec, sink (the disturber is not a target)");
	src = index_of(w.r, "src/101");
	dec = index_of(w.r, "dec/102");
	sink = index_of(w.r, "sink/103");
	for (long i = 0; i < 3; i++) {
		const struct actor *a = &w.r->v[i];

		cr_assert_eq(a->ninv, 200, "%s: %zu invocations", a->name, a->ninv);
		cr_assert(a->st.periodic);
		cr_assert_eq(a->st.period_ns, 10 * MS);
		cr_assert_eq(a->nbreaks, 2, "%s", a->name);
		cr_assert_eq(a->breaks[0].late, 50);
		cr_assert_eq(a->breaks[1].late, 120);
		cr_assert_eq(a->breaks[0].lateness_ns, 15 * MS);
		cr_assert_eq(a->worst_lateness_ns, 15 * MS);
		cr_assert(a->breaking);
	}
	cr_assert_eq(w.r->v[src].breaks[0].start_ns, src_start[49]);
	cr_assert_eq(w.r->v[src].breaks[0].end_ns, src_start[50]);
	/* src wakes dec for every frame, dec wakes sink; nothing wakes src */
	cr_assert_eq(w.r->nedges, 2);
	cr_assert_eq(w.r->edges[0].from, src);
	cr_assert_eq(w.r->edges[0].to, dec);
	cr_assert_eq(w.r->edges[0].invocations, 200);
	cr_assert_eq(w.r->edges[1].from, dec);
	cr_assert_eq(w.r->edges[1].to, sink);
	cr_assert_eq(w.r->upstream, src);
	cr_assert(!w.r->v[src].fed && w.r->v[dec].fed && w.r->v[sink].fed);

	/* Named actors only: the same answer, the upstream order learnt from dec and sink alone. */
	static const char *const only_down[] = { "dec", "sink" };

	cr_assert_eq(world_analyse(&w, only_down, 2, NULL), 0);
	cr_assert_eq(w.r->n, 2);
	cr_assert_str_eq(w.r->v[w.r->upstream].name, "dec/102");
	check_side_by_side(&w, only_down, 2);
	world_free(&w);
}

/*
 * dec wakes src every 4th frame (back-pressure: 50 of src's 200
 * invocations, above the noise floor). Without the dominance rule that
 * would make a cycle, and the earliest first break would decide: dec is
 * once late on its own at frame 20, before src's first break at 50.
 */
Test(actors, back_pressure_does_not_make_a_cycle)
{
	static const size_t late[] = { 50, 120 };
	struct pl_cfg p = { late, N(late), 15 * MS, 200, true, 20 };
	struct synth *sy = synth_new(T0, T0 + 2500 * MS, 2);
	struct sched S = { 0 };
	int64_t src_start[200];
	struct world w;
	long src, dec;

	synth_targets(sy, "100");
	add_pipeline(sy, &S, &p, src_start);
	sched_emit(sy, &S);
	world_build(&w, sy);
	cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);
	src = index_of(w.r, "src/101");
	dec = index_of(w.r, "dec/102");
	cr_assert_eq(w.r->v[dec].breaks[0].late, 20);
	cr_assert(w.r->v[dec].breaks[0].start_ns < w.r->v[src].breaks[0].start_ns);
	cr_assert_eq(w.r->nedges, 2, "dec -> src (50 of 200) is dominated by src -> dec (200)");
	cr_assert_eq(w.r->edges[0].from, src);
	cr_assert_eq(w.r->edges[0].to, dec);
	cr_assert_eq(w.r->upstream, src);
	cr_assert(w.r->v[dec].fed);
	check_side_by_side(&w, NULL, 0);
	world_free(&w);
}

/* Two unrelated periodic threads: the earliest first break wins. */
Test(actors, unrelated_actors_earliest_break)
{
	struct synth *sy = synth_new(T0, T0 + 2500 * MS, 2);
	struct sched S = { 0 };
	struct world w;
	int64_t ta = T0 + 5 * MS, tb = T0 + 7 * MS;

	synth_thread(sy, 101, 100, "a");
	synth_thread(sy, 102, 100, "b");
	synth_targets(sy, "100");
	for (size_t k = 0; k < 200; k++) {
		if (k == 90)
			ta += 12 * MS;	/* a breaks at 90 */
		if (k == 60)
			tb += 12 * MS;	/* b breaks earlier, at 60 */
		sched_run(&S, 101, 0, ta, ta + 2 * MS, SYN_SLEEP);
		sched_run(&S, 102, 1, tb, tb + 2 * MS, SYN_SLEEP);
		ta += 10 * MS;
		tb += 10 * MS;
	}
	sched_emit(sy, &S);
	world_build(&w, sy);
	cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);
	cr_assert_eq(w.r->nedges, 0);
	cr_assert_eq(w.r->upstream, index_of(w.r, "b/102"));
	cr_assert(!w.r->v[0].fed && !w.r->v[1].fed);
	check_side_by_side(&w, NULL, 0);
	world_free(&w);
}

/* Ping-pong: a wakes b, b wakes a within a's invocation; a cycle, both break: the earlier wins. */
Test(actors, ping_pong_cycle)
{
	struct synth *sy = synth_new(T0, T0 + 2500 * MS, 2);
	struct sched S = { 0 };
	struct world w;
	int64_t t = T0 + 5 * MS;
	long a, b;

	synth_thread(sy, 101, 100, "a");
	synth_thread(sy, 102, 100, "b");
	synth_targets(sy, "100");
	for (size_t k = 0; k < 200; k++) {
		if (k == 70 || k == 150)
			t += 8 * MS;
		synth_timer_wakeup(sy, t - 2 * US, 101, 100, 0);
		sched_run(&S, 101, 0, t, t + 1 * MS, SYN_SLEEP);
		synth_wakeup(sy, t + 1 * MS - 5 * US, 101, 100, 102, 100, 1);
		sched_run(&S, 102, 1, t + 1 * MS + 50 * US, t + 1800 * US, SYN_SLEEP);
		synth_wakeup(sy, t + 1800 * US - 5 * US, 102, 100, 101, 100, 0);
		sched_run(&S, 101, 0, t + 1900 * US, t + 2200 * US, SYN_SLEEP);
		t += 10 * MS;
	}
	sched_emit(sy, &S);
	world_build(&w, sy);
	cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);
	a = index_of(w.r, "a/101");
	b = index_of(w.r, "b/102");
	cr_assert_eq(w.r->v[a].ninv, 200, "a's second run is part of its invocation: %zu", w.r->v[a].ninv);
	cr_assert_eq(w.r->v[b].ninv, 200);
	cr_assert_eq(w.r->nedges, 2, "both ways: a cycle");
	cr_assert_eq(w.r->edges[0].invocations, 200);
	cr_assert_eq(w.r->edges[1].invocations, 200);
	cr_assert(w.r->v[a].breaking && w.r->v[b].breaking);
	cr_assert(!w.r->v[a].fed && !w.r->v[b].fed, "in a cycle neither feeds the other");
	cr_assert_eq(w.r->upstream, a);
	check_side_by_side(&w, NULL, 0);
	world_free(&w);
}

/* ---- missing data ---- */

static void one_timer_actor(struct sched *S, size_t n, size_t late_at, int64_t delay, int cpu)
{
	int64_t t = T0 + 10 * MS;

	for (size_t k = 0; k < n; k++) {
		if (k == late_at)
			t += delay;
		sched_run(S, 101, cpu, t, t + 1 * MS, SYN_SLEEP);
		t += 10 * MS;
	}
}

Test(actors, break_over_lost_data_is_not_trusted)
{
	struct synth *sy = synth_new(T0, T0 + 1200 * MS, 2);
	struct sched S = { 0 };
	struct world w;
	const struct actor *a;

	synth_thread(sy, 101, 100, "src");
	synth_targets(sy, "100");
	one_timer_actor(&S, 100, 40, 20 * MS, 0);
	sched_emit(sy, &S);
	/* records lost on the other CPU while src was late: src might have run there */
	synth_lost(sy, 1, T0 + 400 * MS, T0 + 405 * MS, 50);
	world_build(&w, sy);
	cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);
	a = &w.r->v[0];
	cr_assert_eq(a->nbreaks, 1);
	cr_assert_eq(a->breaks[0].late, 40);
	cr_assert(a->breaks[0].data_missing);
	cr_assert_eq(a->nbreaks_missing, 1);
	cr_assert(!a->breaking, "a break over lost data does not make a breaking actor");
	cr_assert_eq(a->worst_lateness_ns, 0);
	cr_assert_eq(w.r->upstream, -1);
	world_free(&w);
}

/* The player of synth_lock.h with the logger's lock every 30 periods, folding period 60 into 61. */
static struct lock_cfg lock30(void)
{
	return (struct lock_cfg){ .periods = 120, .every = 30, .hold_ns = 5 * MS, .fold_at = 60,
				  .wait_nr = LOCK_NR_FUTEX, .syscalls = true };
}

/* The actor of the thread named `name` in t (w owns t), studied alone. */
static const struct actor *only_actor(struct world *w, struct trace *t, const char *name)
{
	const char *spec[] = { name };

	memset(w, 0, sizeof(*w));
	w->t = t;
	cr_assert_eq(timeline__build(w->t, NULL, &w->tl), 0);
	cr_assert_eq(world_analyse(w, spec, 1, NULL), 0);
	cr_assert_eq(w->r->n, 1);
	return &w->r->v[0];
}

static const struct actor *player_of(struct world *w, const struct lock_cfg *c)
{
	return only_actor(w, lock_trace(c), "player");
}

/*
 * A wait for a lock another thread held is inside the invocation: each
 * period is one invocation from its timer release, the lock periods end
 * late (completion breaks: their starts are all on time), and the period
 * whose wait outlasted the next due time is a start break whose path goes
 * into the overrunning invocation before it.
 */
Test(actors, a_lock_held_by_another_thread_is_inside_the_invocation)
{
	struct lock_cfg c = lock30();
	struct world w;
	const struct actor *a = player_of(&w, &c);
	struct period_window *win;
	size_t b = 0;

	cr_assert_eq(a->ninv, c.periods - 1, "%zu invocations", a->ninv);
	for (size_t k = 0; k < a->ninv; k++) {
		size_t period = k <= c.fold_at ? k : k + 1;

		cr_assert_eq(a->inv[k].start_ns, (int64_t)(lock_due(period) + 10 * US), "invocation %zu", k);
	}
	cr_assert_eq(a->nincidental, 5, "%zu incidental waits", a->nincidental);
	cr_assert(a->st.periodic);
	cr_assert_eq(a->nbreaks, 5, "%zu breaks", a->nbreaks);
	for (size_t k = 0; k < a->ninv; k++) {
		size_t period = k <= c.fold_at ? k : k + 1;
		const struct actor_break *x;

		if (!lock_period(&c, period))
			continue;
		x = &a->breaks[b++];
		if (period == c.fold_at) {
			cr_assert_eq(x->kind, BREAK_START);
			cr_assert(x->before == k && x->late == k + 1 && x->into_before);
			cr_assert(actor_break_target(x) == k && actor_break_window(x) == k);
			cr_assert_eq(x->lateness_ns, 10 * MS);
			/* held off the CPU: the wait and 10 us of wakeup latency */
			cr_assert_eq(x->overrun_ns, (int64_t)LOCK_FOLD_HOLD + 10 * US);
		} else {
			cr_assert_eq(x->kind, BREAK_COMPLETION, "period %zu", period);
			cr_assert(x->before == k - 1 && x->late == k && !x->into_before);
			cr_assert(actor_break_target(x) == k && actor_break_window(x) == k);
			cr_assert_eq(x->start_ns, a->inv[k].start_ns);
			cr_assert_eq(x->end_ns, a->inv[k].end_ns);
			cr_assert_eq(x->lateness_ns, 5 * MS + 10 * US);
			cr_assert_eq(x->interval_ns, 6 * MS + 30 * US);
		}
		cr_assert(!x->data_missing);
	}
	cr_assert_eq(a->worst_lateness_ns, 10 * MS);
	cr_assert(a->breaking);
	/* each break marks the window that holds the lock's wait */
	win = windows_of(&w, a);
	for (size_t k = 0; k < a->ninv; k++) {
		size_t period = k <= c.fold_at ? k : k + 1;

		cr_assert_eq(win[k + 1].positive, lock_period(&c, period), "window of invocation %zu", k);
	}
	free(win);
	world_free(&w);
}

/*
 * The fold period also starts 2 ms late: the break before it and the one
 * after it both go into it, where the logger held the player.
 */
Test(actors, a_late_start_and_an_overrun_share_their_target)
{
	struct lock_cfg c = lock30();
	struct world w;
	const struct actor *a;
	const struct actor_break *x = NULL;

	c.fold_late_ns = 2 * MS;
	a = player_of(&w, &c);
	cr_assert_eq(a->ninv, c.periods - 1);
	cr_assert_eq(a->nbreaks, 6, "%zu breaks", a->nbreaks);
	for (size_t b = 0; b + 1 < a->nbreaks && !x; b++)
		if (a->breaks[b].late == c.fold_at)
			x = &a->breaks[b];
	cr_assert_not_null(x, "no break before the fold period");
	cr_assert(x->kind == BREAK_START && !x->into_before && x->lateness_ns == 2 * MS);
	cr_assert(x[1].kind == BREAK_START && x[1].before == c.fold_at && x[1].into_before);
	cr_assert_eq(x[1].lateness_ns, 8 * MS);
	cr_assert_eq(actor_break_target(x), c.fold_at);
	cr_assert_eq(actor_break_target(&x[1]), c.fold_at);
	world_free(&w);
}

/* A site with a tenth of the waits or more is how the thread is released, not a pause. */
Test(actors, a_frequent_wait_is_a_release)
{
	struct lock_cfg c = lock30();
	struct world w;
	const struct actor *a;

	c.every = 5;
	c.fold_at = SIZE_MAX;
	a = player_of(&w, &c);
	/* the times alone decide, as without the rule */
	cr_assert_eq(a->nincidental, 0);
	cr_assert_eq(a->noccurrences, c.periods + c.periods / c.every);
	world_free(&w);
}

/*
 * Only futex waits can be incidental: a stage joining two inputs waits in
 * read() for the second only when it is the later one, and that read is
 * its release. Nor can waits whose calls were not recorded.
 */
Test(actors, a_rare_read_or_an_unknown_wait_is_no_pause)
{
	struct lock_cfg c = lock30();
	struct world w;
	const struct actor *a;

	c.wait_nr = LOCK_NR_READ;
	a = player_of(&w, &c);
	cr_assert_eq(a->nincidental, 0);
	cr_assert_gt(a->ninv, c.periods - 1);
	world_free(&w);
	c = lock30();
	c.syscalls = false;
	a = player_of(&w, &c);
	cr_assert_eq(a->nincidental, 0);
	cr_assert_gt(a->ninv, c.periods - 1);
	world_free(&w);
}

/* A run lost in a gap makes a long interval: it is flagged, never invented. */
Test(actors, run_lost_in_a_gap_is_flagged)
{
	struct synth *sy = synth_new(T0, T0 + 1200 * MS, 2);
	struct sched S = { 0 };
	struct world w;
	const struct actor *a;

	synth_thread(sy, 101, 100, "src");
	synth_targets(sy, "100");
	one_timer_actor(&S, 100, SIZE_MAX, 0, 0);
	sched_emit(sy, &S);
	/* invocation 50 runs in [T0 + 510 ms, +1 ms): its records are lost */
	synth_lost(sy, 0, T0 + 509 * MS, T0 + 512 * MS, 2);
	{
		size_t j = 0;

		for (size_t i = 0; i < sy->t->nsw; i++)
			if (sy->t->sw[i].h.ts < T0 + 509 * MS || sy->t->sw[i].h.ts > T0 + 512 * MS)
				sy->t->sw[j++] = sy->t->sw[i];
		cr_assert_eq(sy->t->nsw - j, 2, "the switch in and out of invocation 50");
		sy->t->nsw = j;
	}
	world_build(&w, sy);
	cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);
	a = &w.r->v[0];
	cr_assert_eq(a->ninv, 99);
	cr_assert_eq(a->nbreaks, 1);
	cr_assert_eq(a->breaks[0].interval_ns, 20 * MS);
	cr_assert(a->breaks[0].data_missing);
	cr_assert_eq(w.r->upstream, -1);
	world_free(&w);
}

/*
 * Unreported switches (TL_GAP_BROKEN): the window hides the run of the
 * thread switched in at its start. Another thread's window does not make
 * src's break untrusted; a window hiding src's own run does.
 */
Test(actors, unreported_switch_flags_only_the_hidden_thread)
{
	for (int own = 0; own <= 1; own++) {
		struct synth *sy = synth_new(T0, T0 + 1200 * MS, 2);
		struct sched S = { 0 };
		struct world w;
		const struct actor *a;
		uint32_t hidden = own ? 101 : 301;

		synth_thread(sy, 101, 100, "src");
		synth_thread(sy, 301, 300, "filtered");
		synth_thread(sy, 302, 300, "other");
		synth_targets(sy, "100");
		one_timer_actor(&S, 100, 40, 20 * MS, 0);
		sched_emit(sy, &S);
		/* CPU 1: idle -> hidden at 400 ms; its switch out is missing; other -> idle at 404 ms */
		synth_switch(sy, T0 + 400 * MS, 1, 0, 0, SYN_PREEMPT, hidden, pid_of(hidden));
		synth_switch(sy, T0 + 404 * MS, 1, 302, 300, SYN_SLEEP, 0, 0);
		world_build(&w, sy);
		cr_assert_eq(w.tl->ngaps, 1);
		cr_assert_eq(w.tl->gaps[0].kind, TL_GAP_BROKEN);
		cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);
		a = actor_by_name(w.r, "src/101");
		cr_assert_eq(a->nbreaks, 1);
		cr_assert_eq(a->breaks[0].data_missing, own, "hidden thread %u", hidden);
		cr_assert_eq(a->breaking, !own);
		world_free(&w);
	}
}

/* ---- cut runs ---- */

Test(actors, runs_cut_by_the_recording)
{
	struct synth *sy = synth_new(T0, T0 + 1000 * MS, 2);
	struct sched S = { 0 };
	struct world w;
	const struct actor *a;
	const struct tl_thread *th;
	int64_t t = T0 + 10 * MS;

	synth_thread(sy, 101, 100, "src");
	synth_thread(sy, 201, 200, "hog");
	synth_targets(sy, "100");
	/* running at the start, preempted twice: one invocation of unknown start */
	sched_run(&S, 101, 0, T0, T0 + 1 * MS, SYN_PREEMPT);
	sched_run(&S, 201, 0, T0 + 1 * MS, T0 + 2 * MS, SYN_SLEEP);
	sched_run(&S, 101, 0, T0 + 2 * MS, T0 + 3 * MS, SYN_PREEMPT);
	sched_run(&S, 201, 0, T0 + 3 * MS, T0 + 4 * MS, SYN_SLEEP);
	sched_run(&S, 101, 0, T0 + 4 * MS, T0 + 5 * MS, SYN_SLEEP);
	while (t < T0 + 990 * MS) {
		sched_run(&S, 101, 0, t, t + 1 * MS, SYN_SLEEP);
		t += 10 * MS;
	}
	/* the last one still runs at the stop */
	sched_run(&S, 101, 0, t, T0 + 1000 * MS, SYN_SLEEP);
	sched_emit(sy, &S);
	world_build(&w, sy);
	th = &w.tl->threads[w.tl->runs[0].thread];
	cr_assert(w.tl->runs[th->run0].flags & TL_RUN_START_CUT);
	cr_assert(w.tl->runs[th->run0 + th->nrun - 1].flags & TL_RUN_END_CUT);
	cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);
	a = actor_by_name(w.r, "src/101");
	cr_assert_eq(a->ncut, 3);
	cr_assert_eq(a->noccurrences, th->nrun - 3);
	cr_assert_eq(a->ninv, 99, "98 whole invocations and the one cut at the end");
	cr_assert_eq(a->inv[0].start_ns, T0 + 10 * MS);
	cr_assert_eq(a->inv[98].start_ns, t);
	cr_assert_eq(a->inv[98].end_ns, T0 + 1000 * MS);
	cr_assert(a->st.periodic);
	cr_assert_eq(a->st.period_ns, 10 * MS);
	cr_assert_eq(a->nbreaks, 0);
	world_free(&w);
}

/* A thread born in the recording: its set-up run is not an invocation (nor its gap to the loop a break). */
Test(actors, set_up_of_a_born_thread)
{
	struct synth *sy = synth_new(T0, T0 + 1000 * MS, 2);
	struct sched S = { 0 };
	struct world w;
	const struct actor *a;

	synth_thread(sy, 101, 100, "main");
	synth_targets(sy, "100");
	synth_task(sy, QT_REC_FORK, T0 + 5 * MS, 102, 100, 101, 100, "worker");
	/* set-up: preempted once, then sleeps until the loop starts 50 ms later */
	sched_run(&S, 102, 1, T0 + 6 * MS, T0 + 7 * MS, SYN_PREEMPT);
	sched_run(&S, 102, 1, T0 + 8 * MS, T0 + 9 * MS, SYN_SLEEP);
	for (int64_t t = T0 + 60 * MS; t < T0 + 990 * MS; t += 10 * MS)
		sched_run(&S, 102, 1, t, t + 2 * MS, SYN_SLEEP);
	sched_emit(sy, &S);
	world_build(&w, sy);
	cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);
	a = actor_by_name(w.r, "worker/102");
	cr_assert_eq(a->ncut, 2);
	cr_assert_eq(a->ninv, 93);
	cr_assert_eq(a->inv[0].start_ns, T0 + 60 * MS);
	cr_assert_eq(a->nbreaks, 0, "no break from the set-up");
	world_free(&w);
}

/* queue0:src/102, forked by gst-launch-1.0 at 5 ms: its set-up run. */
static struct synth *streaming_born(struct sched *S)
{
	struct synth *sy = synth_new(T0, T0 + 1000 * MS, 2);

	synth_thread(sy, 101, 100, "gst-launch");
	synth_targets(sy, "100");
	synth_task(sy, QT_REC_FORK, T0 + 5 * MS, 102, 100, 101, 100, "queue0:src");
	sched_run(S, 102, 1, T0 + 6 * MS, T0 + 7 * MS, SYN_SLEEP);
	return sy;
}

/*
 * Its stop, woken 40 ms after its last buffer at `last`, and exit; the
 * world analysed, queue0:src's actor returned.
 */
static const struct actor *streaming_gone(struct world *w, struct synth *sy, struct sched *S, int64_t last)
{
	sched_run(S, 102, 1, last + 40 * MS, last + 40 * MS + 100 * US, SYN_SLEEP);
	sched_run(S, 102, 1, last + 41300 * US, last + 41400 * US, SYN_EXIT);
	synth_task(sy, QT_REC_EXIT, last + 41400 * US, 102, 100, 0, 0, "queue0:src");
	sched_emit(sy, S);
	world_build(w, sy);
	cr_assert_eq(world_analyse(w, NULL, 0, NULL), 0);
	return actor_by_name(w->r, "queue0:src/102");
}

/*
 * A streaming thread's life as a GStreamer pipeline's: born, set up,
 * prerolls (three short invocations), waits 30 ms for the clock, runs every
 * 10 ms, and when the pipeline stops is woken 40 ms after its last buffer
 * and exits. Neither the preroll nor the stop is its loop: no break there,
 * and the invocations are exactly the loop's.
 */
Test(actors, set_up_and_teardown_of_a_streaming_thread)
{
	struct sched S = { 0 };
	struct synth *sy = streaming_born(&S);
	struct world w;
	const struct actor *a;
	int64_t t, last = 0;

	for (int k = 0; k < 3; k++)
		sched_run(&S, 102, 1, T0 + 7500 * US + k * 500 * US, T0 + 7700 * US + k * 500 * US, SYN_SLEEP);
	for (t = T0 + 40 * MS; t < T0 + 940 * MS; t += 10 * MS) {
		sched_run(&S, 102, 1, t, t + 1 * MS, SYN_SLEEP);
		last = t;
	}
	a = streaming_gone(&w, sy, &S, last);
	cr_assert(a->st.periodic);
	cr_expect_eq(a->st.period_ns, 10 * MS);
	cr_expect_eq(a->nbreaks, 0, "%zu breaks, the first late by %lld ns", a->nbreaks,
		     a->nbreaks ? (long long)a->breaks[0].lateness_ns : 0LL);
	cr_expect_eq(a->ninv, 90);
	cr_expect_eq(a->inv[0].start_ns, T0 + 40 * MS);
	cr_expect_eq(a->inv[a->ninv - 1].start_ns, last);
	cr_expect_eq(a->ncut, 1 + 3 + 2, "the set-up run, the preroll, the stop and the exit");
	cr_expect_eq(a->nwindows, a->ninv + 1);
	world_free(&w);
}

/*
 * A system call of a born thread has its set-up too: two writes (a read
 * between them) 34 ms before its loop of two every 10 ms (a read between)
 * are not a break of write@queue0:src, and they are the 2 occurrences cut.
 */
Test(actors, set_up_of_a_syscall_actor)
{
	static const char *const spec[] = { "write@queue0:src" };
	struct sched S = { 0 };
	struct synth *sy = streaming_born(&S);
	struct world w;
	const struct actor *a;
	int64_t t;

	synth_syscall(sy, T0 + 6200 * US, T0 + 6300 * US, 102, 100, NR_WRITE, 5, 8);
	synth_syscall(sy, T0 + 6400 * US, T0 + 6500 * US, 102, 100, NR_READ, 4, 8);
	synth_syscall(sy, T0 + 6600 * US, T0 + 6700 * US, 102, 100, NR_WRITE, 5, 8);
	for (t = T0 + 40 * MS; t < T0 + 940 * MS; t += 10 * MS) {
		sched_run(&S, 102, 1, t, t + 1 * MS, SYN_SLEEP);
		synth_syscall(sy, t + 200 * US, t + 300 * US, 102, 100, NR_WRITE, 5, 8);
		synth_syscall(sy, t + 400 * US, t + 500 * US, 102, 100, NR_READ, 4, 8);
		synth_syscall(sy, t + 600 * US, t + 700 * US, 102, 100, NR_WRITE, 5, 8);
	}
	sched_emit(sy, &S);
	world_build(&w, sy);
	cr_assert_eq(world_analyse(&w, spec, 1, NULL), 0);
	a = &w.r->v[0];
	cr_assert_eq(a->kind, ACTOR_SYSCALL);
	cr_assert(a->st.periodic);
	cr_assert_eq(a->nbreaks, 0, "%zu breaks, the first late by %lld ns", a->nbreaks,
		     a->nbreaks ? (long long)a->breaks[0].lateness_ns : 0LL);
	cr_assert_eq(a->ninv, 90);
	cr_assert_eq(a->inv[0].start_ns, T0 + 40200 * US);
	cr_assert_eq(a->noccurrences, 2 + 2 * 90);
	cr_assert_eq(a->ncut, 2, "%zu occurrences cut", a->ncut);
	world_free(&w);
}

/*
 * Set-up lasts until the rhythm is first kept: a live queue's second buffer
 * came 12 ms late as the pipeline went from paused to playing, and one
 * thread's last buffer 15 ms late as it stopped; both are its life's ends,
 * not breaks. A late buffer between regular ones stays a break.
 */
Test(actors, late_start_and_end_before_and_after_the_rhythm)
{
	struct sched S = { 0 };
	struct synth *sy = streaming_born(&S);
	struct world w;
	const struct actor *a;
	int64_t t, last = 0;

	sched_run(&S, 102, 1, T0 + 40 * MS, T0 + 41 * MS, SYN_SLEEP);
	for (t = T0 + 62 * MS; t < T0 + 900 * MS; t += t == T0 + 502 * MS ? 15 * MS : 10 * MS) {
		sched_run(&S, 102, 1, t, t + 1 * MS, SYN_SLEEP);
		last = t;
	}
	last += 25 * MS;
	sched_run(&S, 102, 1, last, last + 1 * MS, SYN_SLEEP);
	a = streaming_gone(&w, sy, &S, last);
	cr_assert(a->st.periodic);
	cr_expect_eq(a->st.period_ns, 10 * MS);
	cr_expect_eq(a->inv[0].start_ns, T0 + 62 * MS, "the late second buffer is set-up");
	cr_expect_eq(a->inv[a->ninv - 1].start_ns, last - 25 * MS, "the late last buffer is teardown");
	cr_assert_eq(a->nbreaks, 1);
	cr_expect_eq(a->breaks[0].end_ns - a->breaks[0].start_ns, 15 * MS, "the break in its loop stays");
	cr_expect_eq(a->ncut, 1 + 1 + 1 + 2, "set-up, late start, late end, the stop and the exit");
	world_free(&w);
}

/* ---- syscall actors and specs ---- */

static void sink_world(struct world *w)
{
	struct synth *sy = synth_new(T0, T0 + 1200 * MS, 2);
	struct sched S = { 0 };
	int64_t t = T0 + 10 * MS;

	synth_thread(sy, 101, 100, "sink");
	synth_thread(sy, 102, 100, "ts_record");
	synth_thread(sy, 111, 110, "other");
	synth_targets(sy, "100");
	for (size_t k = 0; k < 100; k++) {
		if (k == 30 || k == 60)
			t += 7 * MS;
		sched_run(&S, 101, 0, t, t + 1 * MS, SYN_SLEEP);
		/* a frame: one write to fd 1, and a small log write to fd 2 every other frame */
		synth_syscall(sy, t + 100 * US, t + 200 * US, 101, 100, NR_WRITE, 1, 4096);
		if (k % 2)
			synth_syscall(sy, t + 300 * US, t + 310 * US, 101, 100, NR_WRITE, 2, 10);
		synth_syscall(sy, t + 400 * US, t + 410 * US, 101, 100, NR_READ, 5, 1);
		/* ts_record writes twice per frame, 50 us apart: one invocation */
		sched_run(&S, 102, 1, t + 2 * MS, t + 3 * MS, SYN_SLEEP);
		synth_syscall(sy, t + 2100 * US, t + 2150 * US, 102, 100, NR_WRITE, 3, 188);
		synth_syscall(sy, t + 2200 * US, t + 2250 * US, 102, 100, NR_WRITE, 3, 188);
		sched_run(&S, 111, 1, t + 5 * MS, t + 6 * MS, SYN_SLEEP);
		t += 10 * MS;
	}
	sched_emit(sy, &S);
	world_build(w, sy);
}

Test(actors, syscall_actors)
{
	static const char *const specs[] = { "write(1)@sink", "write@ts_record", "write@101" };
	struct world w;
	const struct actor *a;

	sink_world(&w);
	cr_assert_eq(world_analyse(&w, specs, N(specs), NULL), 0);
	cr_assert_eq(w.r->n, 3, "only the named actors");

	a = actor_by_name(w.r, "write(1)@sink/101");
	cr_assert_eq(a->kind, ACTOR_SYSCALL);
	cr_assert(a->from_spec && a->has_arg0 && a->arg0 == 1);
	cr_assert_eq(a->noccurrences, 100);
	cr_assert_eq(a->ninv, 100);
	for (size_t k = 0; k < a->ninv; k++) {
		const struct tl_syscall *sc = &w.tl->sc[a->inv[k].first];

		cr_assert_eq(a->inv[k].first, a->inv[k].last);
		cr_assert(sc->nr == NR_WRITE && sc->arg0 == 1 && (int64_t)sc->start == a->inv[k].start_ns);
		cr_assert_eq(a->inv[k].end_ns, (int64_t)sc->end);
	}
	cr_assert(a->st.periodic);
	cr_assert_eq(a->st.period_ns, 10 * MS);
	cr_assert_eq(a->nbreaks, 2);
	cr_assert_eq(a->breaks[0].late, 30);
	cr_assert_eq(a->breaks[1].late, 60);
	cr_assert_eq(a->breaks[0].lateness_ns, 7 * MS);

	/* two writes per frame: clustered into one invocation per frame */
	a = actor_by_name(w.r, "write@ts_record/102");
	cr_assert_eq(a->noccurrences, 200);
	cr_assert_eq(a->ninv, 100);
	cr_assert_eq(a->nbreaks, 2);

	/* all writes of sink: 150 calls, 1 or 2 per frame: still one invocation per frame */
	a = actor_by_name(w.r, "write@sink/101");
	cr_assert_eq(a->noccurrences, 150);
	cr_assert_eq(a->ninv, 100);
	cr_assert(a->st.periodic);
	check_side_by_side(&w, specs, N(specs));
	world_free(&w);
}

Test(actors, spec_syntax)
{
	static const char *const good[] = {
		"src", "dec*", "1234", "tid:5", "pid:77", "comm:1234", "write@sink", "write(1)@sink",
		"write(0x10)@tid:5", "read@pid:9", "auto", "kworker/0:1", "x@comm:a@b",
	};
	static const char *const bad[] = {
		"", "@sink", "write@", "wr-ite@x", "write(@x", "write()@x", "write(1@x", "write(a)@x",
		"write(-1)@x", "tid:", "tid:abc", "pid:0", "99999999999", "comm:",
	};
	char msg[256];

	for (size_t i = 0; i < N(good); i++)
		cr_expect_eq(actors__check_spec(good[i], msg, sizeof(msg)), 0, "'%s': %s", good[i], msg);
	for (size_t i = 0; i < N(bad); i++) {
		msg[0] = 0;
		cr_expect_eq(actors__check_spec(bad[i], msg, sizeof(msg)), -EINVAL, "'%s' accepted", bad[i]);
		cr_expect(strstr(msg, "--actor '") == msg, "'%s': message '%s'", bad[i], msg);
	}
}

Test(actors, spec_matching)
{
	struct world w;

	sink_world(&w);
	{
		static const char *const s[] = { "s*" };	/* glob: sink only (ts_record does not start with s) */

		cr_assert_eq(world_analyse(&w, s, 1, NULL), 0);
		cr_assert_eq(w.r->n, 1);
		cr_assert_str_eq(w.r->v[0].name, "sink/101");
		cr_assert(w.r->v[0].from_spec);
	}
	{
		static const char *const s[] = { "pid:100" };

		cr_assert_eq(world_analyse(&w, s, 1, NULL), 0);
		cr_assert_eq(w.r->n, 2);
	}
	{
		/* auto (the targets) plus a non-target by tid; sink twice is one actor */
		static const char *const s[] = { "auto", "111", "sink", "tid:101" };

		cr_assert_eq(world_analyse(&w, s, N(s), NULL), 0);
		cr_assert_eq(w.r->n, 3);
		cr_assert_str_eq(w.r->v[0].name, "sink/101");
		cr_assert(w.r->v[0].from_spec);
		cr_assert_str_eq(w.r->v[1].name, "ts_record/102");
		cr_assert(!w.r->v[1].from_spec);
		cr_assert_str_eq(w.r->v[2].name, "other/111");
	}
	{
		static const char *const bad[][1] = {
			{ "nosuch" }, { "4242" }, { "pid:999" }, { "frobnicate@sink" }, { "write@other" },
			{ "write(7)@sink" }, { "write@" },
		};

		for (size_t i = 0; i < N(bad); i++)
			cr_expect_eq(world_analyse(&w, bad[i], 1, NULL), -EINVAL, "'%s'", bad[i][0]);
		cr_expect_null(w.r);
	}
	world_free(&w);
}

/*
 * A compiler that blocked on its headers 8 times, 44 ms apart but for one
 * 135 ms wait, looked periodic on its 7 intervals and, 2 periods late, was
 * "the first to break its period" ahead of the pipeline it disturbed. A
 * default actor needs ACTORS_MIN_INVOCATIONS: the compiler is skipped and
 * the streaming thread is the upstream actor; with 12 invocations the same
 * rhythm is studied.
 */
Test(actors, a_short_regular_life_is_no_period)
{
	for (size_t ninv = 8; ninv <= 12; ninv += 4) {
		struct synth *sy = synth_new(T0, T0 + 1000 * MS, 2);
		struct sched S = { 0 };
		struct world w;
		int64_t t = T0 + 10 * MS;
		long cc = -1, src = -1;

		synth_thread(sy, 101, 100, "src");
		synth_thread(sy, 102, 100, "cc1");
		synth_targets(sy, "100");
		for (size_t k = 0; k < 95; k++, t += 10 * MS)
			sched_run(&S, 101, 0, t + (k == 50 ? 4 * MS : 0), t + (k == 50 ? 5 : 1) * MS, SYN_SLEEP);
		t = T0 + 20 * MS;
		for (size_t k = 0; k < ninv; k++, t += (k == 3 ? 135 : 44) * MS)
			sched_run(&S, 102, 1, t, t + 20 * MS, SYN_SLEEP);
		sched_emit(sy, &S);
		world_build(&w, sy);
		cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);
		for (size_t i = 0; i < w.r->n; i++) {
			if (!strcmp(w.r->v[i].name, "cc1/102"))
				cc = (long)i;
			if (!strcmp(w.r->v[i].name, "src/101"))
				src = (long)i;
		}
		cr_assert_geq(src, 0);
		cr_assert(w.r->v[src].breaking, "the source's 4 ms late run is a break");
		if (ninv == 8) {
			cr_assert_eq(cc, -1, "%zu invocations: not studied", ninv);
			cr_assert_eq(w.r->nskipped, 1);
			cr_assert_str_eq(w.r->skipped[0].reason, "too few invocations");
			cr_assert_eq(w.r->skipped[0].count, ninv);
			cr_assert_eq(w.r->upstream, src);
		} else {
			cr_assert_geq(cc, 0, "%zu invocations: studied", ninv);
			cr_assert(w.r->v[cc].st.periodic);
			cr_assert_eq(w.r->v[cc].st.period_ns, 44 * MS);
			cr_assert(w.r->v[cc].breaking, "its 135 ms wait");
			cr_assert_eq(w.r->upstream, cc, "2.1 periods late against the source's 0.4");
		}
		world_free(&w);
	}
}

/*
 * With -a every thread is a target, kernel threads too: rcu_preempt runs
 * every few ms while a grace period lasts, then not for a second, and was
 * "first to break its 8 ms period" beside a pipeline. Kernel threads (of
 * the snapshot, or forked by kthreadd during the recording) are not
 * default actors; named, they are.
 */
Test(actors, kernel_threads_are_no_default_actors)
{
	struct synth *sy = synth_new(T0, T0 + 2000 * MS, 2);
	struct tf_thread rcu = { .tid = 15, .tgid = 15, .flags = TF_THREAD_KTHREAD, .comm = "rcu_preempt" };
	struct sched S = { 0 };
	struct world w;
	int64_t t = T0 + 10 * MS;

	SYNTH_PUSH(sy->t->threads_start, sy->t->nthreads_start, sy->cap_thr, rcu);
	synth_thread(sy, 101, 100, "src");
	tf_kv_set(&sy->t->meta, TF_META_MODE, "all");
	synth_task(sy, QT_REC_FORK, T0 + 5 * MS, 300, 300, 2, 2, "kworker/1:2");
	for (size_t k = 0; k < 190; k++, t += 10 * MS) {
		sched_run(&S, 101, 0, t, t + 1 * MS, SYN_SLEEP);
		sched_run(&S, 300, 1, t + 2 * MS, t + 3 * MS, SYN_SLEEP);
		/* grace periods of 16 periods, a second apart */
		if (k % 100 < 16)
			sched_run(&S, 15, 1, t + 4 * MS + (k % 3) * 100 * US, t + 4500 * US, SYN_SLEEP);
	}
	sched_emit(sy, &S);
	world_build(&w, sy);
	cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);
	cr_assert_eq(w.r->n, 1);
	cr_assert_str_eq(w.r->v[0].name, "src/101");
	cr_assert_eq(w.r->nskipped, 2);
	for (size_t i = 0; i < w.r->nskipped; i++)
		cr_expect_str_eq(w.r->skipped[i].reason, "kernel thread", "%s",
				 w.tl->threads[w.r->skipped[i].thread].comm);

	static const char *const named[] = { "rcu_preempt" };

	cr_assert_eq(world_analyse(&w, named, 1, NULL), 0);
	cr_assert_eq(w.r->n, 1);
	cr_assert_str_eq(w.r->v[0].name, "rcu_preempt/15");
	world_free(&w);
}

Test(actors, skipped_threads_and_why)
{
	struct synth *sy = synth_new(T0, T0 + 1000 * MS, 2);
	struct sched S = { 0 };
	struct world w;
	int64_t t = T0 + 10 * MS;

	synth_thread(sy, 101, 100, "busy");
	synth_thread(sy, 102, 100, "rare");
	synth_thread(sy, 103, 100, "bursty");
	synth_thread(sy, 151, 150, "qostrace");
	synth_thread(sy, 201, 200, "not_target");
	synth_thread(sy, 202, 200, "hog");
	synth_targets(sy, "100");
	tf_kv_set(&sy->t->meta, TF_META_RECORDER, "150");
	for (size_t k = 0; k < 90; k++, t += 10 * MS) {
		sched_run(&S, 101, 0, t, t + 1 * MS, SYN_SLEEP);
		sched_run(&S, 151, 1, t + 2 * MS, t + 3 * MS, SYN_SLEEP);
		sched_run(&S, 201, 1, t + 4 * MS, t + 5 * MS, SYN_SLEEP);
		if (k < 3)
			sched_run(&S, 102, 0, t + 2 * MS, t + 3 * MS, SYN_SLEEP);
	}
	/* 12 runs, preempted in chains of 4: 3 invocations */
	for (size_t b = 0; b < 3; b++) {
		for (size_t j = 0; j < 4; j++) {
			int64_t s = T0 + (100 + 300 * b) * MS + 2 * MS + j * 400 * US;

			sched_run(&S, 103, 0, s, s + 200 * US, j < 3 ? SYN_PREEMPT : SYN_SLEEP);
			if (j < 3)
				sched_run(&S, 202, 0, s + 200 * US, s + 400 * US, SYN_SLEEP);
		}
	}
	sched_emit(sy, &S);
	world_build(&w, sy);
	cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);
	cr_assert_eq(w.r->n, 1);
	cr_assert_str_eq(w.r->v[0].name, "busy/101");
	cr_assert_eq(w.r->nskipped, 3);
	for (size_t i = 0; i < w.r->nskipped; i++) {
		const struct actor_skip *sk = &w.r->skipped[i];
		const char *comm = w.tl->threads[sk->thread].comm;

		if (!strcmp(comm, "rare")) {
			cr_expect_str_eq(sk->reason, "too few runs");
			cr_expect_eq(sk->count, 3);
		} else if (!strcmp(comm, "bursty")) {
			cr_expect_str_eq(sk->reason, "too few invocations");
			cr_expect_eq(sk->count, 3);
		} else {
			cr_expect_str_eq(comm, "qostrace");
			cr_expect_str_eq(sk->reason, "qostrace itself");
		}
	}
	/* Named, a thread is studied whatever its activity. */
	static const char *const s[] = { "rare", "bursty", "qostrace*" };

	cr_assert_eq(world_analyse(&w, s, 2, NULL), 0);
	cr_assert_eq(w.r->n, 2);
	cr_assert_str_eq(w.r->v[0].name, "rare/102");
	cr_assert_eq(w.r->v[0].ninv, 3);
	cr_assert(w.r->v[0].st.periodic, "two equal intervals");
	cr_assert_eq(w.r->v[0].st.period_ns, 10 * MS);
	cr_assert_eq(w.r->v[1].ninv, 3);
	cr_assert_eq(w.r->v[1].noccurrences, 12);
	cr_assert_eq(w.r->nskipped, 0);
	cr_assert_eq(world_analyse(&w, s + 2, 1, NULL), -EINVAL, "a glob does not pick qostrace's threads");
	check_side_by_side(&w, NULL, 0);
	world_free(&w);
}

/* ---- renderings ---- */

static char *render_json(const struct actors_result *r, const struct timeline *tl)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_writer_t *jw = jsonw_new(f, false);

	jsonw_start_object(jw);
	json_actors_write(r, tl, jw);
	jsonw_end_object(jw);
	jsonw_destroy(&jw);
	fclose(f);
	return buf;
}

Test(actors, json_and_text)
{
	static const size_t late[] = { 50, 120 };
	struct pl_cfg p = { late, N(late), 15 * MS, 200, false, 0 };
	struct synth *sy = synth_new(T0, T0 + 2500 * MS, 2);
	struct report_style st = { 0 };
	struct sched S = { 0 };
	int64_t src_start[200];
	struct world w;
	char *s, *txt = NULL, want[128];
	size_t len = 0;
	FILE *f;

	synth_targets(sy, "100");
	add_pipeline(sy, &S, &p, src_start);
	sched_emit(sy, &S);
	world_build(&w, sy);
	cr_assert_eq(world_analyse(&w, NULL, 0, NULL), 0);

	s = render_json(w.r, w.tl);
	cr_assert(strstr(s, "\"actors\":[{"), "%s", s);
	cr_assert(strstr(s, "\"upstream_actor\":{\"index\":0,\"name\":\"src/101\",\"tid\":101,\"comm\":\"src\""), "%s", s);
	snprintf(want, sizeof(want), "\"breaks\":[{\"start_ns\":%lld,\"end_ns\":%lld,\"interval_ns\":%lld,"
		 "\"lateness_ns\":%lld", (long long)src_start[49], (long long)src_start[50],
		 (long long)(src_start[50] - src_start[49]), 15 * MS);
	cr_assert(strstr(s, want), "%s", want);
	cr_assert(strstr(s, "\"period_ns\":10000000"));
	cr_assert(strstr(s, "\"woken_by\":[{\"index\":0,\"name\":\"src/101\",\"tid\":101,\"comm\":\"src\",\"invocations\":200}]"));
	free(s);

	/* Nothing to say: still the keys, empty */
	s = render_json(NULL, NULL);
	cr_assert_str_eq(s, "{\"actors\":[],\"actors_skipped\":[],\"upstream_actor\":null}\n");
	free(s);

	f = open_memstream(&txt, &len);
	text_actors_print(w.r, w.tl, f, &st);
	fclose(f);
	cr_assert(strstr(txt, "src/101                     10.00 ms    0.0%    200       2   +15.00 ms  most upstream breaking"),
		  "%s", txt);
	cr_assert(strstr(txt, "Most upstream actor that breaks its period: src/101, period 10.00 ms, 2 breaks"), "%s", txt);
	cr_assert(strstr(txt, "wakes dec/102"), "%s", txt);
	cr_assert(!strchr(txt, '\033'), "no colour unless asked");
	free(txt);
	world_free(&w);
}

/* ---- through the analysis framework ---- */

Test(actors, analysis_runs_the_stage)
{
	static const char *const bad[] = { "nosuch" };
	struct analysis_opts o;
	struct analysis *an = NULL;
	struct world w;

	sink_world(&w);
	analysis_opts_default(&o);
	cr_assert_eq(analysis__run_trace(w.t, w.tl, &o, &an), 0);
	cr_assert_not_null(an->actors);
	cr_assert_eq(an->actors->n, 2);
	analysis__free(an);
	o.actor_specs = bad;
	o.n_actor_specs = 1;
	an = NULL;
	cr_assert_eq(analysis__run_trace(w.t, w.tl, &o, &an), -EINVAL);
	cr_assert_null(an);
	world_free(&w);
}

/* The writer of synth_writer.h, studied alone. */
static const struct actor *writer_of(struct world *w, const struct writer_cfg *c)
{
	return only_actor(w, writer_trace(c), "writer");
}

/* The periods the writer of c runs (those due while it is held are skipped). */
static size_t writer_periods(const struct writer_cfg *c, uint64_t *start, uint64_t *end, size_t max)
{
	size_t n = 0, k = 0;

	while (k < c->periods) {
		uint64_t a = writer_woken(c, k) + 10 * WR_US, b = a + WR_MS;

		if (writer_stall(c, k))
			b = a + 100 * WR_US + c->stall_ns + WR_MS;
		if (n < max) {
			start[n] = a;
			end[n] = b;
		}
		n++;
		for (k++; k < c->periods && writer_due(k) < b + 50 * WR_US; k++)
			;
	}
	return n;
}

/* a's invocations are the periods of c, each spanning its stall. */
static void assert_writer_periods(const struct writer_cfg *c, const struct actor *a)
{
	uint64_t start[120], end[120];
	size_t n = writer_periods(c, start, end, 120);

	cr_assert_eq(a->ninv, n, "%zu invocations for %zu periods", a->ninv, n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(a->inv[i].start_ns, (int64_t)start[i], "invocation %zu", i);
		cr_assert_eq(a->inv[i].end_ns, (int64_t)end[i], "invocation %zu", i);
	}
}

/*
 * A write the kernel holds 22 ms, waking the writer every 8 ms (a gap as
 * long as those between periods): blocked, the gaps are inside the
 * invocation, which spans the whole stall; asleep (interruptible), they
 * are taken for releases, as a thread's usual waits are.
 */
Test(actors, an_uninterruptible_sleep_continues_the_invocation)
{
	struct writer_cfg c = { .periods = 120, .every = 20, .stall_ns = 22 * WR_MS, .how = SYN_BLOCK,
				.wake_ns = 8 * WR_MS };
	uint64_t start[120], end[120];
	size_t n = writer_periods(&c, start, end, 120);
	struct world w;
	const struct actor *a = writer_of(&w, &c);

	assert_writer_periods(&c, a);
	cr_assert_eq(a->nincidental, 6 * 3, "%zu", a->nincidental);
	world_free(&w);
	c.how = SYN_SLEEP;
	a = writer_of(&w, &c);
	cr_assert_gt(a->ninv, n, "asleep: %zu invocations", a->ninv);
	cr_assert_eq(a->nincidental, 0);
	world_free(&w);
}

/*
 * The same write woken every 500 us by its I/O completions (writeback
 * under other programs' load: a recorder's fdatasync() woke and blocked
 * again dozens of times per call): 44 blocked sleeps a stall, 264 in all
 * against 100 timer waits. One call blocked again and again is one wait:
 * the 6 stretches are incidental, and the invocations span the stalls.
 */
Test(actors, sleeps_blocked_one_after_another_are_one_wait)
{
	struct writer_cfg c = { .periods = 120, .every = 20, .stall_ns = 22 * WR_MS, .how = SYN_BLOCK,
				.wake_ns = 500 * WR_US };
	struct world w;
	const struct actor *a = writer_of(&w, &c);

	assert_writer_periods(&c, a);
	cr_assert_gt(a->nincidental, 6 * 40, "%zu", a->nincidental);
	world_free(&w);
}

/*
 * The traced command's first thread exists before the recording, then
 * starts its program and sets up before its loop, blocked once on the
 * way: that segment (two runs) is no invocation, so the first interval,
 * 15 ms, is no break.
 */
Test(actors, the_set_up_of_a_program_started_in_the_recording_is_cut)
{
	struct writer_cfg c = { .periods = 60, .every = 1000, .how = SYN_BLOCK, .exec_setup_ns = 15 * WR_MS };
	struct world w;
	const struct actor *a = writer_of(&w, &c);

	cr_assert_eq(a->ncut, 2);
	cr_assert_eq(a->inv[0].start_ns, (int64_t)(writer_due(0) + 10 * WR_US));
	cr_assert_eq(a->nbreaks, 0, "a break at %.3f ms", a->nbreaks ? a->breaks[0].start_ns / 1e6 : 0.0);
	world_free(&w);
}
