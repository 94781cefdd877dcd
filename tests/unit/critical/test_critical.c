// SPDX-License-Identifier: MIT
/*
 * The critical-path stage on hand-made schedules (tests/lib/synth_trace.h) with
 * exact expected accountings: the pipeline DAG (the path into the sink runs
 * through the long branch), the last input deciding a two-input join,
 * preemption and CPU hand-overs, wakeup confirmation and rejection,
 * interrupt releases, eps auto; random schedules for the invariants; and
 * the Gantt chart input (TV-6 charts, many critical paths).
 */
#include <errno.h>
#include <stdint.h>

#include "actors/actors.h"
#include "critical/critical.h"
#include "file/gantt_csv.h"
#include "ref/critical_ref.h"
#include "report/text_critical.h"
#include "synth_trace.h"
#include "testutil.h"
#include "timeline/timeline.h"

#define MS 1000000ll
#define US 1000ll

/* ---- helpers ---- */

struct fixture {
	struct trace *t;
	struct timeline *tl;
	struct actors_result ar;
	struct critical_result *r;
};

static void fx_timeline(struct fixture *f, struct synth *s)
{
	memset(f, 0, sizeof(*f));
	f->t = synth_finish(s);
	cr_assert_eq(timeline__build(f->t, NULL, &f->tl), 0);
	f->ar.upstream = -1;
}

static void fx_free(struct fixture *f)
{
	for (size_t i = 0; i < f->ar.n; i++) {
		free(f->ar.v[i].inv);
		free(f->ar.v[i].breaks);
	}
	free(f->ar.v);
	critical__free(f->r);
	timeline__free(f->tl);
	trace__free(f->t);
}

static uint32_t th_of(const struct timeline *tl, uint32_t tid)
{
	for (uint32_t i = 0; i < tl->nthreads; i++)
		if (tl->threads[i].tid == tid && tl->threads[i].nruns)
			return i;
	cr_assert_fail("thread %u has no runs", tid);
	return TL_NONE;
}

/*
 * A thread actor whose invocations group the runs separated by less than
 * max_gap (what the actors stage does for these schedules).
 */
static size_t add_actor(struct fixture *f, uint32_t tid, const char *name, int64_t max_gap)
{
	const struct tl_thread *x = &f->tl->threads[th_of(f->tl, tid)];
	struct actor *a;

	f->ar.v = realloc(f->ar.v, (f->ar.n + 1) * sizeof(*f->ar.v));
	a = &f->ar.v[f->ar.n];
	memset(a, 0, sizeof(*a));
	a->kind = ACTOR_THREAD;
	a->thread = th_of(f->tl, tid);
	snprintf(a->name, sizeof(a->name), "%s", name);
	a->inv = calloc(x->nrun, sizeof(*a->inv));
	for (size_t r = x->run0; r < x->run0 + x->nrun; r++) {
		const struct tl_run *run = &f->tl->runs[r];

		if (a->ninv && (int64_t)run->start - a->inv[a->ninv - 1].end_ns < max_gap) {
			a->inv[a->ninv - 1].end_ns = run->end;
			a->inv[a->ninv - 1].last = r;
		} else {
			a->inv[a->ninv++] = (struct actor_invocation){ run->start, run->end, r, r };
		}
	}
	return f->ar.n++;
}

static void add_break(struct fixture *f, size_t actor, size_t late, int64_t period)
{
	struct actor *a = &f->ar.v[actor];
	struct actor_break *b;

	a->breaks = realloc(a->breaks, (a->nbreaks + 1) * sizeof(*a->breaks));
	b = &a->breaks[a->nbreaks++];
	*b = (struct actor_break){ .before = late - 1, .late = late, .start_ns = a->inv[late - 1].start_ns,
				   .end_ns = a->inv[late].start_ns, .kind = BREAK_START };
	b->interval_ns = b->end_ns - b->start_ns;
	b->lateness_ns = b->interval_ns - period;
}

static void run_critical(struct fixture *f, const struct critical_opts *o)
{
	critical__free(f->r);
	f->r = NULL;
	cr_assert_eq(critical__analyse(f->tl, &f->ar, o, &f->r), 0);
}

/* ns of a thread row (by tid) or of a category row in a share table (0 if absent). */
static int64_t row_thread(const struct timeline *tl, const struct crit_share *s, size_t n, uint32_t tid,
			  int64_t *held)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].thread != CRIT_NONE && tl->threads[s[i].thread].tid == tid) {
			if (held)
				*held = s[i].held_ns;
			return s[i].ns;
		}
	if (held)
		*held = 0;
	return 0;
}

static int64_t row_cat(const struct crit_share *s, size_t n, enum crit_cat cat, int sub)
{
	int64_t ns = 0;

	for (size_t i = 0; i < n; i++)
		if (s[i].thread == CRIT_NONE && s[i].cat == cat && (sub < 0 || s[i].sub == sub))
			ns += s[i].ns;
	return ns;
}

static int64_t share_sum(const struct crit_share *s, size_t n)
{
	int64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += s[i].ns;
	return sum;
}

static const struct crit_actor *crit_actor(const struct critical_result *r, size_t actor)
{
	for (size_t i = 0; i < r->nactors; i++)
		if (r->actors[i].actor == actor)
			return &r->actors[i];
	cr_assert_fail("actor %zu not accounted", actor);
	return NULL;
}

/* Segments of a path tile its window, in time order. */
static void assert_tiles(const struct crit_path *p)
{
	if (p->nseg != p->nseg_total)
		return;
	cr_assert_gt(p->nseg, 0);
	cr_assert_eq(p->seg[0].start_ns, p->start_ns);
	cr_assert_eq(p->seg[p->nseg - 1].end_ns, p->end_ns);
	for (size_t i = 1; i < p->nseg; i++)
		cr_assert_eq(p->seg[i - 1].end_ns, p->seg[i].start_ns, "segment %zu", i);
	cr_assert_eq(share_sum(p->share, p->nshare), p->end_ns - p->start_ns);
}

/* ---- the pipeline: src -> dec -> {fx 3 ms, scale 1 ms} -> sink ---- */

enum { SRC = 10, DEC, FX, SCALE, SINK, DIST = 20, NOISE = 30 };

#define PERIOD (10 * MS)
#define T0 (1 * MS)

/*
 * Frame k starts at T = T0 + k * PERIOD (times relative to T, in us):
 *   cpu0: timer wakes src at 0; src runs 10..1010, wakes dec at 1005
 *   cpu1: dec 1020..3020, wakes fx at 3015 and scale at 3016; scale takes
 *         the CPU from dec at 3020 (a hand-over and a wakeup) until 4020
 *   cpu2: fx 3030..6030, wakes sink at 6025
 *   cpu0: sink 6040..7040
 * If sink_first: scale also wakes the sink at 4019; the sink runs
 * 4030..4080 on cpu0 (reads scale's frame) and waits for fx.
 * In frame `disturbed`, the disturber (timer at 500) preempts src on cpu0
 * for 5 ms: src runs 10..500 and 5500..6010, and everything downstream is
 * 5 ms later.
 */
static void pipeline(struct synth *s, int frames, int disturbed, bool sink_first)
{
	synth_thread(s, SRC, SRC, "src");
	synth_thread(s, DEC, SRC, "dec");
	synth_thread(s, FX, SRC, "fx");
	synth_thread(s, SCALE, SRC, "scale");
	synth_thread(s, SINK, SRC, "sink");
	synth_thread(s, DIST, DIST, "disturber");
	for (int k = 0; k < frames; k++) {
		int64_t T = T0 + k * PERIOD, d = k == disturbed ? 5 * MS : 0;

		synth_timer_wakeup(s, T, SRC, SRC, 0);
		synth_switch(s, T + 10 * US, 0, 0, 0, SYN_PREEMPT, SRC, SRC);
		if (d) {
			synth_timer_wakeup(s, T + 500 * US, DIST, DIST, 0);
			synth_switch(s, T + 500 * US, 0, SRC, SRC, SYN_PREEMPT, DIST, DIST);
			synth_switch(s, T + 5500 * US, 0, DIST, DIST, SYN_SLEEP, SRC, SRC);
		}
		synth_wakeup(s, T + d + 1005 * US, SRC, SRC, DEC, SRC, 1);
		synth_switch(s, T + d + 1010 * US, 0, SRC, SRC, SYN_SLEEP, 0, 0);
		synth_switch(s, T + d + 1020 * US, 1, 0, 0, SYN_PREEMPT, DEC, SRC);
		synth_wakeup(s, T + d + 3015 * US, DEC, SRC, FX, SRC, 2);
		synth_wakeup(s, T + d + 3016 * US, DEC, SRC, SCALE, SRC, 1);
		synth_switch(s, T + d + 3020 * US, 1, DEC, SRC, SYN_SLEEP, SCALE, SRC);
		synth_switch(s, T + d + 3030 * US, 2, 0, 0, SYN_PREEMPT, FX, SRC);
		if (sink_first)
			synth_wakeup(s, T + d + 4019 * US, SCALE, SRC, SINK, SRC, 0);
		synth_switch(s, T + d + 4020 * US, 1, SCALE, SRC, SYN_SLEEP, 0, 0);
		if (sink_first) {
			synth_switch(s, T + d + 4030 * US, 0, 0, 0, SYN_PREEMPT, SINK, SRC);
			synth_switch(s, T + d + 4080 * US, 0, SINK, SRC, SYN_SLEEP, 0, 0);
		}
		synth_wakeup(s, T + d + 6025 * US, FX, SRC, SINK, SRC, 0);
		synth_switch(s, T + d + 6030 * US, 2, FX, SRC, SYN_SLEEP, 0, 0);
		synth_switch(s, T + d + 6040 * US, 0, 0, 0, SYN_PREEMPT, SINK, SRC);
		synth_switch(s, T + d + 7040 * US, 0, SINK, SRC, SYN_SLEEP, 0, 0);
	}
}

static struct synth *pipeline_synth(int frames, int disturbed, bool sink_first)
{
	struct synth *s = synth_new(0, T0 + frames * PERIOD, 3);

	pipeline(s, frames, disturbed, sink_first);
	return s;
}

Test(critical, pipeline_path_into_sink_runs_through_fx)
{
	const int n = 5;
	struct fixture f;
	const struct crit_actor *ca;
	size_t sink, src;
	int64_t rest;

	fx_timeline(&f, pipeline_synth(n, -1, false));
	src = add_actor(&f, SRC, "src", 2 * MS);
	sink = add_actor(&f, SINK, "sink", 2 * MS);
	run_critical(&f, NULL);

	ca = crit_actor(f.r, sink);
	cr_assert_eq(ca->ninv, n);
	cr_assert_eq(ca->total_ns, T0 + (n - 1) * PERIOD + 7040 * US);
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, FX, NULL), n * 2995 * US);
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, SCALE, NULL), 0);
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, DEC, NULL), n * 1995 * US);
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, SRC, NULL), n * 995 * US);
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, SINK, NULL), n * 1000 * US);
	cr_assert_eq(row_cat(ca->share, ca->nshare, CRIT_CAT_WAKEUP, -1), n * 55 * US);
	rest = T0 + (n - 1) * (PERIOD - 7040 * US);
	cr_assert_eq(row_cat(ca->share, ca->nshare, CRIT_CAT_REL_HARDIRQ, QT_IRQ_TIMER), rest);
	cr_assert_eq(share_sum(ca->share, ca->nshare), ca->total_ns);
	/* The largest row is the long branch. */
	cr_assert_eq(f.tl->threads[ca->share[0].thread].tid, FX);

	ca = crit_actor(f.r, src);
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, SRC, NULL), n * 1000 * US);
	cr_assert_eq(row_cat(ca->share, ca->nshare, CRIT_CAT_WAKEUP, -1), n * 10 * US);
	cr_assert_eq(ca->nshare, 3);

	/* Every proposal of timing alone is checked; the true hand-overs are confirmed. */
	cr_assert(f.r->wakeups);
	cr_assert_eq(f.r->epsilon_ns, 15 * US);
	cr_assert_str_eq(f.r->epsilon_source, "auto");
	cr_assert_eq(f.r->edges.confirmed, n * 4, "confirmed %llu", (unsigned long long)f.r->edges.confirmed);
	/*
	 * Spurious per frame: the waker's fragment after its waking point
	 * (src -> dec, dec -> fx twice, fx -> sink) and dec's first fragment
	 * into scale, which dec woke later.
	 */
	cr_assert_eq(f.r->edges.rejected, n * 5, "rejected %llu", (unsigned long long)f.r->edges.rejected);
	cr_assert_eq(f.r->edges.wakeups_beyond, 0);
	cr_assert_eq(f.r->edges.resource, n);	/* dec -> scale on cpu1 */
	cr_assert_eq(f.r->edges.releases[CRIT_CAT_REL_HARDIRQ], n);
	cr_assert_eq(f.r->unexplained, 0);
	/* Whole recording: into the last sink run, back to the origin. */
	cr_assert_eq(f.r->makespan_ns, T0 + (n - 1) * PERIOD + 7040 * US);
	assert_tiles(&f.r->whole);
	fx_free(&f);
}

/* A join completes with its last input: the sink's run after scale's input is not on the path. */
Test(critical, join_owes_completion_to_last_input)
{
	const int n = 4;
	struct fixture f;
	const struct crit_actor *ca;
	size_t sink;

	fx_timeline(&f, pipeline_synth(n, -1, true));
	sink = add_actor(&f, SINK, "sink", 3 * MS);
	cr_assert_eq(f.ar.v[sink].ninv, n);
	cr_assert_eq(f.ar.v[sink].inv[0].last, f.ar.v[sink].inv[0].first + 1, "two runs per invocation");
	run_critical(&f, NULL);
	ca = crit_actor(f.r, sink);
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, FX, NULL), n * 2995 * US);
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, SCALE, NULL), 0);
	/* Only its last run of each frame. */
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, SINK, NULL), n * 1000 * US);
	cr_assert_eq(share_sum(ca->share, ca->nshare), ca->total_ns);
	fx_free(&f);
}

/* The pipeline with src's CPU held in frame d, and one break of sink's: the one before invocation late. */
static void one_break(struct fixture *f, int n, int d, size_t late)
{
	size_t sink;

	fx_timeline(f, pipeline_synth(n, d, false));
	sink = add_actor(f, SINK, "sink/14", 2 * MS);
	add_break(f, sink, late, PERIOD);
	f->ar.upstream = (long)sink;
	run_critical(f, NULL);
	cr_assert_eq(f->r->nbreaks, 1);
}

/* The critical-path section as the report prints it (caller frees). */
static char *printed(struct fixture *f)
{
	struct analysis an = { .trace = f->t, .tl = f->tl, .actors = &f->ar, .critical = f->r };
	struct report_style st = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	cr_assert_not_null(out);
	text_critical_print(f->r, &an, out, &st);
	fclose(out);
	return buf;
}

/* What delayed the late frame: the disturber held src's CPU; the path shows it. */
Test(critical, break_explained_by_cpu_holder)
{
	const int n = 5, d = 2;
	struct fixture f;
	const struct crit_break *b;
	int64_t held = 0;
	char *buf;

	one_break(&f, n, d, d);
	b = &f.r->breaks[0];
	cr_assert_eq(b->lateness_ns, 5 * MS);
	/* From the start of the invocation before the break. */
	cr_assert_eq(b->path.start_ns, T0 + (d - 1) * PERIOD + 6040 * US);
	cr_assert_eq(b->path.end_ns, T0 + d * PERIOD + 12040 * US);
	assert_tiles(&b->path);
	cr_assert_eq(row_thread(f.tl, b->path.share, b->path.nshare, DIST, &held), 5 * MS);
	cr_assert_eq(held, 5 * MS);
	cr_assert_eq(row_thread(f.tl, b->path.share, b->path.nshare, SRC, NULL), 995 * US);
	cr_assert_eq(row_thread(f.tl, b->path.share, b->path.nshare, FX, NULL), 2995 * US);
	cr_assert_eq(f.tl->threads[b->culprit.thread].tid, DIST);
	/* Against the same windows of every invocation, where the disturber appears once. */
	cr_assert_eq(b->excess_ns, 5 * MS - 5 * MS / (n - 1));
	/* The src run after the preemption is tied to its first by program order, beyond eps. */
	cr_assert_eq(f.r->edges.preempt_beyond, 1);
	cr_assert_eq(f.r->edges.releases[CRIT_CAT_REL_HARDIRQ], n + 1);

	/* The report says it in words. */
	buf = printed(&f);
	cr_assert(strstr(buf, "waited 5 ms for CPU behind disturber/20"), "%s", buf);
	cr_assert(strstr(buf, "Critical paths into the 5 invocations of sink/14"), "%s", buf);
	free(buf);
	fx_free(&f);
}

/*
 * A "break" at the invocation after the late one, which came early: no row
 * of its path exceeds its mean (src's run and the disturber fell in the
 * window before), so nothing is blamed. A row at or below its mean is no
 * culprit: the Diagnosis once printed "-3.78 us more than usual".
 */
Test(critical, no_culprit_without_excess)
{
	const int n = 5, d = 2;
	struct fixture f;
	const struct crit_break *b;
	char *buf;

	one_break(&f, n, d, d + 1);
	b = &f.r->breaks[0];
	cr_assert_gt(b->path.nshare, 0);
	cr_assert_eq(b->culprit.ns, 0, "blamed a row of %lld ns, excess %lld", (long long)b->culprit.ns,
		     (long long)b->excess_ns);
	cr_assert_eq(b->excess_ns, 0);
	cr_assert_leq(b->release_excess_ns, 0);

	buf = printed(&f);
	cr_assert(strstr(buf, "nothing on its path took longer than usual"), "%s", buf);
	free(buf);
	fx_free(&f);
}

/*
 * A live source on one CPU, woken by its timer every 10 ms for 100 us. In
 * frame D a hog holds the CPU when the timer fires: the source runs 6 ms
 * late, 50 us, then waits on its clock 750 us and runs 50 us more, all one
 * invocation (it catches up). What made it late is the hog, not the last
 * clock wait: the path into its completion goes back through the wait
 * inside the invocation to its first run.
 */
Test(critical, catch_up_inside_the_late_invocation)
{
	enum { S = 1, HOG = 2, N = 6, D = 3 };
	struct synth *sy = synth_new(0, (N + 1) * PERIOD, 1);
	const struct crit_break *b;
	struct fixture f;
	int64_t held = 0;
	size_t a;
	char *buf;

	synth_thread(sy, S, S, "src");
	synth_thread(sy, HOG, HOG, "hog");
	for (int64_t k = 1; k <= N; k++) {
		int64_t base = k * PERIOD;

		synth_timer_wakeup(sy, base, S, S, 0);
		if (k != D) {
			synth_switch(sy, base + 5 * US, 0, 0, 0, SYN_PREEMPT, S, S);
			synth_switch(sy, base + 105 * US, 0, S, S, SYN_SLEEP, 0, 0);
			continue;
		}
		synth_switch(sy, base - 1 * MS, 0, 0, 0, SYN_PREEMPT, HOG, HOG);
		synth_switch(sy, base + 6 * MS, 0, HOG, HOG, SYN_SLEEP, S, S);
		synth_switch(sy, base + 6050 * US, 0, S, S, SYN_SLEEP, 0, 0);
		synth_timer_wakeup(sy, base + 6800 * US, S, S, 0);
		synth_switch(sy, base + 6800 * US, 0, 0, 0, SYN_PREEMPT, S, S);
		synth_switch(sy, base + 6850 * US, 0, S, S, SYN_SLEEP, 0, 0);
	}
	fx_timeline(&f, sy);
	a = add_actor(&f, S, "src/1", 2 * MS);
	cr_assert_eq(f.ar.v[a].ninv, N);
	add_break(&f, a, D - 1, PERIOD);
	f.ar.upstream = (long)a;
	run_critical(&f, NULL);
	cr_assert_eq(f.r->nbreaks, 1);
	b = &f.r->breaks[0];
	assert_tiles(&b->path);
	cr_assert_eq(b->path.end_ns, D * PERIOD + 6850 * US);
	cr_assert_eq(row_thread(f.tl, b->path.share, b->path.nshare, HOG, &held), 6 * MS);
	cr_assert_eq(held, 6 * MS);
	cr_assert_eq(row_cat(b->path.share, b->path.nshare, CRIT_CAT_OWN_WAIT, -1), 750 * US);
	cr_assert_eq(row_thread(f.tl, b->path.share, b->path.nshare, S, NULL), 100 * US);
	cr_assert_eq(f.tl->threads[b->culprit.thread].tid, HOG);
	cr_assert_gt(b->excess_ns, b->release_excess_ns, "released %lld ns later than usual",
		     (long long)b->release_excess_ns);

	buf = printed(&f);
	cr_assert(strstr(buf, "waited 6 ms for CPU behind hog/2"), "%s", buf);
	cr_assert(strstr(buf, "waits within the invocation 750 us"), "%s", buf);
	free(buf);
	fx_free(&f);
}

/*
 *   cpu0: timer wakes A at 90; A 100..200, wakes B at 150 and C at 190
 *   cpu1: Y 100..240, B 260..300     (B waits behind Y, then 20 us idle)
 *   cpu2: C 195..230
 * (us). Theorem 2's evidence: B's gap is 110, of which Y held 90: 20
 * invisible; C's is 5.
 */
static struct synth *small_synth(void)
{
	struct synth *s = synth_new(0, 400 * US, 3);

	synth_thread(s, 1, 1, "A");
	synth_thread(s, 2, 2, "B");
	synth_thread(s, 3, 3, "Y");
	synth_thread(s, 4, 4, "C");
	synth_timer_wakeup(s, 90 * US, 1, 1, 0);
	synth_switch(s, 100 * US, 0, 0, 0, SYN_PREEMPT, 1, 1);
	synth_switch(s, 100 * US, 1, 0, 0, SYN_PREEMPT, 3, 3);
	synth_wakeup(s, 150 * US, 1, 1, 2, 2, 1);
	synth_wakeup(s, 190 * US, 1, 1, 4, 4, 2);
	synth_switch(s, 195 * US, 2, 0, 0, SYN_PREEMPT, 4, 4);
	synth_switch(s, 200 * US, 0, 1, 1, SYN_SLEEP, 0, 0);
	synth_switch(s, 230 * US, 2, 4, 4, SYN_SLEEP, 0, 0);
	synth_switch(s, 240 * US, 1, 3, 3, SYN_SLEEP, 0, 0);
	synth_switch(s, 260 * US, 1, 0, 0, SYN_PREEMPT, 2, 2);
	synth_switch(s, 300 * US, 1, 2, 2, SYN_SLEEP, 0, 0);
	return s;
}

Test(critical, wakeups_confirm_and_reject)
{
	struct fixture f;
	const struct crit_actor *ca;
	size_t b;
	int64_t held;

	fx_timeline(&f, small_synth());
	b = add_actor(&f, 2, "B", MS);
	run_critical(&f, NULL);
	cr_assert_eq(f.r->epsilon_ns, 20 * US);
	cr_assert_eq(f.r->epsilon_evidence_ns, 20 * US);
	cr_assert_not(f.r->epsilon_capped);
	cr_assert_eq(f.r->ntasks, 6);	/* A split twice */
	cr_assert_eq(f.r->edges.same_thread, 2);
	cr_assert_eq(f.r->edges.cross, 2);
	cr_assert_eq(f.r->edges.confirmed, 1);	/* A -> C, gap 5 */
	cr_assert_eq(f.r->edges.rejected, 1);	/* Y -> B, gap 20: B was woken by A */
	cr_assert_eq(f.r->edges.wakeups_beyond, 1);	/* A -> B, gap 110 */

	ca = crit_actor(f.r, b);
	cr_assert_eq(ca->total_ns, 300 * US);
	cr_assert_eq(row_cat(ca->share, ca->nshare, CRIT_CAT_REL_HARDIRQ, QT_IRQ_TIMER), 90 * US);
	cr_assert_eq(row_cat(ca->share, ca->nshare, CRIT_CAT_WAKEUP, -1), 30 * US);
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, 1, NULL), 50 * US);	/* A until it woke B */
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, 3, &held), 90 * US);
	cr_assert_eq(held, 90 * US);
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, 2, NULL), 40 * US);
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, 4, NULL), 0);
	cr_assert_eq(ca->nshare, 5);
	fx_free(&f);
}

/* Timing alone: Y's end is the only thing within eps of B's start: the spurious path. */
Test(critical, timing_only_keeps_unchecked_edges)
{
	struct fixture f;
	const struct crit_actor *ca;
	struct critical_opts o;
	size_t b;

	fx_timeline(&f, small_synth());
	b = add_actor(&f, 2, "B", MS);
	critical_opts_default(&o);
	o.timing_only = true;
	run_critical(&f, &o);
	cr_assert_not(f.r->wakeups);
	cr_assert_str_eq(f.r->epsilon_source, "auto");	/* the wakeups still tell which eps */
	cr_assert_eq(f.r->epsilon_ns, 20 * US);
	cr_assert_eq(f.r->ntasks, 4);
	cr_assert_eq(f.r->edges.cross, 1);
	cr_assert_eq(f.r->edges.unchecked, 1);
	cr_assert_eq(f.r->edges.confirmed, 0);
	ca = crit_actor(f.r, b);
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, 3, NULL), 140 * US);
	cr_assert_eq(row_cat(ca->share, ca->nshare, CRIT_CAT_GAP, -1), 20 * US);
	cr_assert_eq(row_cat(ca->share, ca->nshare, CRIT_CAT_REL_START, -1), 100 * US);
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, 2, NULL), 40 * US);
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, 1, NULL), 0);
	fx_free(&f);
}

Test(critical, epsilon_given_and_capped)
{
	struct fixture f;
	struct critical_opts o;

	fx_timeline(&f, small_synth());
	critical_opts_default(&o);
	o.epsilon_cap_ns = 10 * US;
	run_critical(&f, &o);
	cr_assert_eq(f.r->epsilon_ns, 10 * US);
	cr_assert(f.r->epsilon_capped);
	cr_assert_eq(f.r->epsilon_evidence_ns, 20 * US);
	/* Y -> B is no longer proposed; A -> B still holds, from the wakeup. */
	cr_assert_eq(f.r->edges.rejected, 0);
	cr_assert_eq(f.r->edges.confirmed, 1);
	cr_assert_eq(f.r->edges.wakeups_beyond, 1);
	o.epsilon_ns = 200 * US;
	run_critical(&f, &o);
	cr_assert_str_eq(f.r->epsilon_source, "given");
	cr_assert_eq(f.r->epsilon_evidence_ns, 20 * US);
	cr_assert_eq(f.r->epsilon_ns, 200 * US);
	cr_assert_eq(f.r->edges.confirmed, 2);
	cr_assert_eq(f.r->edges.wakeups_beyond, 0);
	fx_free(&f);
}

/* An IRQ release is named by its source; a kernel wakeup without a thread too. */
Test(critical, interrupt_releases)
{
	struct synth *s = synth_new(0, 100 * US, 1);
	struct fixture f;
	struct critical_opts o;
	const struct crit_actor *ca;
	size_t a;
	char buf[64];

	synth_thread(s, 1, 1, "net");
	synth_wakeup(s, 20 * US, 0, 0, 1, 1, 0);
	s->t->wk[s->t->nwk - 1].h.flags = QT_WAKE_HARDIRQ;
	s->t->wk[s->t->nwk - 1].waker_irq = 24;
	synth_switch(s, 25 * US, 0, 0, 0, SYN_PREEMPT, 1, 1);
	synth_switch(s, 30 * US, 0, 1, 1, SYN_SLEEP, 0, 0);
	synth_wakeup(s, 50 * US, 0, 0, 1, 1, 0);
	s->t->wk[s->t->nwk - 1].h.flags = QT_WAKE_SOFTIRQ;
	s->t->wk[s->t->nwk - 1].waker_irq = 3;
	synth_switch(s, 60 * US, 0, 0, 0, SYN_PREEMPT, 1, 1);
	synth_switch(s, 70 * US, 0, 1, 1, SYN_SLEEP, 0, 0);
	fx_timeline(&f, s);
	a = add_actor(&f, 1, "net", 1);
	critical_opts_default(&o);
	o.epsilon_ns = 0;
	run_critical(&f, &o);
	ca = crit_actor(f.r, a);
	cr_assert_eq(ca->ninv, 2);
	cr_assert_eq(row_cat(ca->share, ca->nshare, CRIT_CAT_REL_HARDIRQ, 24), 20 * US);
	cr_assert_eq(row_cat(ca->share, ca->nshare, CRIT_CAT_REL_SOFTIRQ, 3), 20 * US);
	cr_assert_eq(row_cat(ca->share, ca->nshare, CRIT_CAT_WAKEUP, -1), 15 * US);
	cr_assert_eq(row_thread(f.tl, ca->share, ca->nshare, 1, NULL), 15 * US);
	cr_assert_str_eq(critical_cat_name(CRIT_CAT_REL_HARDIRQ, 24, f.t, buf, sizeof(buf)), "irq 24 ?");
	cr_assert_str_eq(critical_cat_name(CRIT_CAT_REL_SOFTIRQ, 3, f.t, buf, sizeof(buf)), "softirq NET_RX");
	cr_assert_str_eq(critical_cat_name(CRIT_CAT_REL_HARDIRQ, QT_IRQ_TIMER, f.t, buf, sizeof(buf)), "timer");
	cr_assert_eq(f.r->edges.releases[CRIT_CAT_REL_HARDIRQ], 1);
	cr_assert_eq(f.r->edges.releases[CRIT_CAT_REL_SOFTIRQ], 1);
	fx_free(&f);
}

/*
 * A sender's sendto() on CPU 0 raises NET_RX, which wakes the receiver on
 * CPU 1 (a datagram on loopback), every 10 ms; the third time a hog keeps
 * the sender off its CPU 4 ms. The receiver's late invocation has the
 * sender, and the hog behind it, on its path, and the hop says it went
 * through the kernel.
 */
Test(critical, a_hop_through_a_softirq_is_marked)
{
	enum { SENDER = 1, RECEIVER = 2, HOG = 3 };
	struct synth *s = synth_new(0, 60 * MS, 2);
	const struct crit_break *b;
	const struct crit_seg *via = NULL;
	struct fixture f;
	size_t recv;
	int64_t held = 0;
	char name[64], *buf;

	synth_thread(s, SENDER, SENDER, "sender");
	synth_thread(s, RECEIVER, RECEIVER, "receiver");
	synth_thread(s, HOG, HOG, "hog");
	for (int k = 0; k < 5; k++) {
		int64_t t = k * 10 * MS, go = t + 10 * US;

		if (k == 3) {
			synth_timer_wakeup(s, t - 100 * US, HOG, HOG, 0);
			synth_switch(s, t - 100 * US, 0, 0, 0, SYN_PREEMPT, HOG, HOG);
			go = t + 4 * MS;
		}
		synth_timer_wakeup(s, t, SENDER, SENDER, 0);
		synth_switch(s, go, 0, k == 3 ? HOG : 0, k == 3 ? HOG : 0, SYN_SLEEP, SENDER, SENDER);
		synth_raise(s, go + 500 * US, 0, 3, QT_RAISE_SYSCALL, 0, SENDER, SENDER);
		synth_irq(s, go + 510 * US, go + 530 * US, 0, 3, 1, SENDER);
		synth_softirq_wakeup(s, go + 520 * US, 0, 3, SENDER, SENDER, RECEIVER, RECEIVER, 1);
		synth_switch(s, go + 600 * US, 1, 0, 0, SYN_PREEMPT, RECEIVER, RECEIVER);
		synth_switch(s, go + 900 * US, 1, RECEIVER, RECEIVER, SYN_SLEEP, 0, 0);
		synth_switch(s, go + 1 * MS, 0, SENDER, SENDER, SYN_SLEEP, 0, 0);
	}
	fx_timeline(&f, s);
	cr_assert_eq(f.tl->softirq_by_thread, 5);
	recv = add_actor(&f, RECEIVER, "receiver/2", 2 * MS);
	add_break(&f, recv, 3, 10 * MS);
	f.ar.upstream = (long)recv;
	run_critical(&f, NULL);
	cr_assert_eq(f.r->nbreaks, 1);
	b = &f.r->breaks[0];
	cr_assert_gt(row_thread(f.tl, b->path.share, b->path.nshare, SENDER, NULL), 0);
	cr_assert_gt(row_thread(f.tl, b->path.share, b->path.nshare, HOG, &held), 3 * MS);
	cr_assert_gt(held, 3 * MS);
	/* the wait after the raise: "wakeup latency via NET_RX", 100 us each time */
	for (size_t i = 0; i < b->path.nseg; i++)
		if (b->path.seg[i].kind == CRIT_SEG_WAIT && b->path.seg[i].cat == CRIT_CAT_WAKEUP)
			via = &b->path.seg[i];
	cr_assert_not_null(via);
	cr_assert_eq(via->sub, 3 + 1);
	cr_assert_eq(f.tl->threads[via->thread].tid, RECEIVER);
	cr_assert_eq(via[-1].kind, CRIT_SEG_RUN);
	cr_assert_eq(f.tl->threads[via[-1].thread].tid, SENDER);
	cr_assert_eq(via->end_ns - via->start_ns, 100 * US);
	cr_assert_eq(row_cat(b->path.share, b->path.nshare, CRIT_CAT_WAKEUP, 3 + 1), 100 * US);
	cr_assert_str_eq(critical_cat_name(CRIT_CAT_WAKEUP, 3 + 1, f.t, name, sizeof(name)), "wakeup latency via NET_RX");
	cr_assert_str_eq(critical_cat_name(CRIT_CAT_WAKEUP, 0, f.t, name, sizeof(name)), "wakeup latency");
	buf = printed(&f);
	cr_assert(strstr(buf, "through the kernel: sender/1 -> receiver/2 via NET_RX"), "%s", buf);
	free(buf);
	fx_free(&f);
}

/* Same CPU, exact: a hand-over is kept without a wakeup; across CPUs it needs one. */
Test(critical, same_cpu_handover)
{
	struct synth *s = synth_new(0, 100 * US, 2);
	struct fixture f;
	struct critical_opts o;

	synth_thread(s, 1, 1, "P");
	synth_thread(s, 2, 2, "Q");
	synth_thread(s, 3, 3, "R");
	synth_switch(s, 10 * US, 0, 0, 0, SYN_PREEMPT, 1, 1);
	synth_switch(s, 20 * US, 0, 1, 1, SYN_SLEEP, 2, 2);	/* P -> Q on cpu0 */
	synth_switch(s, 20 * US, 1, 0, 0, SYN_PREEMPT, 3, 3);	/* R starts on cpu1 when P ends */
	synth_switch(s, 40 * US, 0, 2, 2, SYN_SLEEP, 0, 0);
	synth_switch(s, 40 * US, 1, 3, 3, SYN_SLEEP, 0, 0);
	fx_timeline(&f, s);
	critical_opts_default(&o);
	o.epsilon_ns = 0;
	run_critical(&f, &o);
	cr_assert(f.r->wakeups == false);	/* no wakeups in this trace */
	cr_assert_eq(f.r->edges.resource, 1);
	cr_assert_eq(f.r->edges.unchecked, 1);	/* P -> R: exact but on another CPU, timing only */
	fx_free(&f);
}

/* Nothing ran: an empty result, not an error. */
Test(critical, empty_trace)
{
	struct fixture f;

	fx_timeline(&f, synth_new(0, 100 * US, 2));
	run_critical(&f, NULL);
	cr_assert_eq(f.r->ntasks, 0);
	cr_assert_eq(f.r->nedges, 0);
	cr_assert_eq(f.r->makespan_ns, 0);
	cr_assert_eq(f.r->whole_last, CRIT_NONE);
	cr_assert_eq(f.r->whole.nshare, 0);
	cr_assert_str_eq(f.r->epsilon_source, "default");
	fx_free(&f);
}

/* ---- invariants on random schedules ---- */

/*
 * On random schedules (random_schedule below): shares of every path sum to
 * its window, segments tile it, the whole path ends with the last run, for
 * both modes and several eps; two accounting threads give what one gives;
 * counting the proposals within eps gives what judging each one gives.
 */
static void assert_same_shares(const struct crit_share *a, size_t na, const struct crit_share *b, size_t nb,
			       const char *what)
{
	cr_assert_eq(na, nb, "%s: %zu rows against %zu", what, na, nb);
	for (size_t i = 0; i < na; i++)
		cr_assert(a[i].thread == b[i].thread && a[i].cat == b[i].cat && a[i].sub == b[i].sub &&
			  a[i].ns == b[i].ns && a[i].run_ns == b[i].run_ns && a[i].held_ns == b[i].held_ns,
			  "%s: row %zu differs", what, i);
}

/* Accounting on two threads (jobs 2) gives what one thread gives. */
static void assert_same_result(const struct critical_result *a, const struct critical_result *b,
			       unsigned long long seed)
{
	char what[64];

	cr_assert_eq(a->nactors, b->nactors, "seed %llu", seed);
	for (size_t i = 0; i < a->nactors; i++) {
		snprintf(what, sizeof(what), "seed %llu actor %zu", seed, i);
		cr_assert(a->actors[i].ninv == b->actors[i].ninv && a->actors[i].total_ns == b->actors[i].total_ns,
			  "%s", what);
		assert_same_shares(a->actors[i].share, a->actors[i].nshare, b->actors[i].share,
				   b->actors[i].nshare, what);
	}
	cr_assert_eq(a->nbreaks, b->nbreaks, "seed %llu", seed);
	for (size_t i = 0; i < a->nbreaks; i++) {
		const struct crit_break *x = &a->breaks[i], *y = &b->breaks[i];

		snprintf(what, sizeof(what), "seed %llu break %zu", seed, i);
		cr_assert(x->actor == y->actor && x->brk == y->brk && x->lateness_ns == y->lateness_ns &&
			  x->excess_ns == y->excess_ns && x->culprit.thread == y->culprit.thread &&
			  x->path.nseg == y->path.nseg && x->path.ntasks == y->path.ntasks, "%s", what);
		assert_same_shares(x->path.share, x->path.nshare, y->path.share, y->path.nshare, what);
		for (size_t k = 0; k < x->path.nseg; k++)
			cr_assert(x->path.seg[k].start_ns == y->path.seg[k].start_ns &&
				  x->path.seg[k].holder == y->path.seg[k].holder &&
				  x->path.seg[k].held_ns == y->path.seg[k].held_ns, "%s segment %zu", what, k);
	}
}

/*
 * Threads pinned to CPUs; each CPU runs a random sequence of its threads
 * with random idle gaps; a run after a sleep is woken by a random thread
 * that runs at that moment (else by the timer). Every thread with enough
 * runs is an actor with one break. With lost, one CPU lost records for a
 * while (the analysis sees missing data there).
 */
static void random_schedule(struct fixture *f, unsigned long long *rsp, bool lost)
{
	unsigned long long rs = *rsp;
	int ncpu = (int)tu_rand_range(&rs, 1, 4), nth = (int)tu_rand_range(&rs, 2, 9);
	struct synth *s = synth_new(0, 100 * MS, ncpu);
	struct { int64_t start, end; int cpu; uint32_t tid; int sleep; } run[400];
	int nrun = 0;

	for (int t = 0; t < nth; t++) {
		char name[16];

		snprintf(name, sizeof(name), "t%d", t);
		synth_thread(s, 100 + t, 100 + t, name);
	}
	/* Runs per CPU, threads t with t % ncpu == cpu. */
	for (int c = 0; c < ncpu; c++) {
		int64_t now = tu_rand_range(&rs, 0, 50) * US;

		while (nrun < 400 && now < 80 * MS) {
			int t = (int)tu_rand_range(&rs, 0, nth - 1);

			if (t % ncpu != c)
				continue;
			if (nrun && run[nrun - 1].cpu == c && run[nrun - 1].tid == (uint32_t)(100 + t) &&
			    run[nrun - 1].end == now)
				now += US;
			run[nrun].start = now;
			now += tu_rand_range(&rs, 1, 400) * US;
			run[nrun].end = now;
			run[nrun].cpu = c;
			run[nrun].tid = 100 + t;
			run[nrun].sleep = (int)(tu_rand(&rs) % 3 != 0);
			nrun++;
			if (tu_rand(&rs) & 1)
				now += tu_rand_range(&rs, 0, 300) * US;
		}
	}
	/* Wakeups before each run whose thread's previous run slept. */
	for (int i = 0; i < nrun; i++) {
		int prev = -1, w = -1;

		for (int j = 0; j < nrun; j++)
			if (run[j].tid == run[i].tid && run[j].end <= run[i].start &&
			    (prev < 0 || run[j].end > run[prev].end))
				prev = j;
		if (prev >= 0 && !run[prev].sleep)
			continue;
		for (int j = 0; j < nrun && w < 0; j++) {
			int64_t lo = prev >= 0 ? run[prev].end : 0;

			if (run[j].tid != run[i].tid && run[j].start < run[i].start &&
			    run[j].end > lo && run[j].start + 1 < run[j].end &&
			    (tu_rand(&rs) % 4))
				w = j;
		}
		if (w >= 0) {
			int64_t lo = prev >= 0 && run[prev].end > run[w].start ? run[prev].end : run[w].start;
			int64_t hi = run[w].end < run[i].start ? run[w].end : run[i].start;

			if (hi > lo + 1) {
				int64_t at = lo + 1 + (int64_t)(tu_rand(&rs) % (uint64_t)(hi - lo - 1));

				synth_wakeup(s, at, run[w].tid, run[w].tid, run[i].tid, run[i].tid, run[i].cpu);
				continue;
			}
		}
		if (run[i].start > 0 && tu_rand(&rs) % 2)
			synth_timer_wakeup(s, run[i].start - 1, run[i].tid, run[i].tid, run[i].cpu);
	}
	/* Switch records in time order per CPU. */
	for (int c = 0; c < ncpu; c++) {
		uint32_t cur = 0;

		for (int i = 0; i < nrun; i++) {
			if (run[i].cpu != c)
				continue;
			if (cur)
				synth_switch(s, run[i].start, c, cur, cur, SYN_SLEEP, run[i].tid, run[i].tid);
			else
				synth_switch(s, run[i].start, c, 0, 0, SYN_PREEMPT, run[i].tid, run[i].tid);
			cur = run[i].tid;
			if (i + 1 < nrun && run[i + 1].cpu == c && run[i + 1].start == run[i].end)
				continue;
			synth_switch(s, run[i].end, c, cur, cur, run[i].sleep ? SYN_SLEEP : SYN_PREEMPT, 0, 0);
			cur = 0;
		}
	}
	/* The hand-over above always says SLEEP: fix the state of preempted ones. */
	for (size_t k = 0; k < s->t->nsw; k++) {
		struct qt_switch *sw = &s->t->sw[k];

		for (int i = 0; i < nrun; i++)
			if (run[i].tid == sw->prev_tid && run[i].end == (int64_t)sw->h.ts && !run[i].sleep) {
				sw->prev_state = 0;
				sw->h.flags = QT_SWITCH_PREEMPT;
			}
	}
	if (lost) {
		int64_t at = tu_rand_range(&rs, 5, 70) * MS;

		synth_lost(s, (int)tu_rand_range(&rs, 0, ncpu - 1), at, at + tu_rand_range(&rs, 100, 3000) * US, 9);
	}
	fx_timeline(f, s);
	for (int t = 0; t < nth; t++) {
		size_t a;
		bool has = false;

		for (uint32_t i = 0; i < f->tl->nthreads; i++)
			has |= f->tl->threads[i].tid == (uint32_t)(100 + t) && f->tl->threads[i].nruns;
		if (!has)
			continue;
		a = add_actor(f, 100 + t, "t", 1);
		if (f->ar.v[a].ninv > 3)
			add_break(f, a, 2, 0);
	}
	*rsp = rs;
}

Test(critical, random_schedules_account_exactly)
{
	int waits = 0;
	size_t parallel_checked = 0;

	for (unsigned long long seed = 1; seed <= 60; seed++) {
		unsigned long long rs = seed * 0x9E3779B97F4A7C15ULL;
		struct fixture f;

		random_schedule(&f, &rs, false);
		for (int mode = 0; mode < 4; mode++) {
			struct critical_opts o;
			int64_t last_end = 0;

			critical_opts_default(&o);
			o.timing_only = mode & 1;
			o.epsilon_ns = mode & 2 ? tu_rand_range(&rs, 0, 500) * US : -1;
			run_critical(&f, &o);
			{
				struct critical_result *two = NULL;

				o.jobs = 2;
				cr_assert_eq(critical__analyse(f.tl, &f.ar, &o, &two), 0);
				assert_same_result(f.r, two, seed);
				critical__free(two);
				parallel_checked += f.r->nbreaks;
			}
			for (size_t i = 0; i < f.tl->nruns; i++)
				if ((int64_t)f.tl->runs[i].end > last_end)
					last_end = (int64_t)f.tl->runs[i].end;
			cr_assert_eq(f.r->origin_ns + f.r->makespan_ns, last_end,
				     "seed %llu mode %d: non-delay end %lld, trace %lld", seed, mode,
				     (long long)(f.r->origin_ns + f.r->makespan_ns), (long long)last_end);
			cr_assert_eq(share_sum(f.r->whole.share, f.r->whole.nshare), f.r->makespan_ns,
				     "seed %llu mode %d", seed, mode);
			for (size_t i = 0; i < f.r->nactors; i++)
				cr_assert_eq(share_sum(f.r->actors[i].share, f.r->actors[i].nshare),
					     f.r->actors[i].total_ns, "seed %llu mode %d actor %zu", seed, mode, i);
			for (size_t i = 0; i < f.r->nbreaks; i++) {
				const struct crit_path *p = &f.r->breaks[i].path;

				assert_tiles(p);
				/* The CPU holders of every wait, against a scan of all runs. */
				for (size_t k = 0; k < p->nseg; k++) {
					const struct crit_seg *sg = &p->seg[k];
					int64_t held = 0;

					if (sg->kind != CRIT_SEG_WAIT || sg->cpu == UINT16_MAX)
						continue;
					for (size_t j = 0; j < f.tl->nruns; j++) {
						const struct tl_run *q = &f.tl->runs[j];
						int64_t a = (int64_t)q->start > sg->start_ns ? (int64_t)q->start : sg->start_ns;
						int64_t b = (int64_t)q->end < sg->end_ns ? (int64_t)q->end : sg->end_ns;

						if (q->cpu == sg->cpu && q->thread != sg->thread && b > a)
							held += b - a;
					}
					cr_assert_eq(sg->held_ns, held, "seed %llu mode %d: held %lld, scan %lld", seed,
						     mode, (long long)sg->held_ns, (long long)held);
					waits++;
				}
			}
		}
		fx_free(&f);
	}
	cr_assert_gt(waits, 100, "only %d waits checked", waits);
	cr_assert_gt(parallel_checked, 100, "only %zu breaks compared on two threads", parallel_checked);
}

/*
 * With wakeups, the proposals within eps are counted, not visited: the
 * statistics and every path must be those of judging each proposal (the
 * reference), with eps up to several runs long and records lost on a CPU,
 * so that every kind (same thread, confirmed, missing data, rejected)
 * occurs.
 */
Test(critical, eps_counting_matches_enumeration)
{
	uint64_t seen_missing = 0, seen_rejected = 0, seen_redundant = 0, seen_confirmed = 0;

	for (unsigned long long seed = 1; seed <= 80; seed++) {
		unsigned long long rs = seed * 0xD1B54A32D192ED03ULL;
		struct fixture f;

		random_schedule(&f, &rs, seed % 2 == 0);
		for (int k = 0; k < 3; k++) {
			struct critical_opts o;
			struct critical_result *ref = NULL;
			const struct crit_edge_stats *a, *b;

			critical_opts_default(&o);
			o.epsilon_ns = k == 0 ? -1 : tu_rand_range(&rs, 1, k == 1 ? 500 : 5000) * US;
			/* Counted in two halves side by side on every other seed. */
			o.jobs = 1 + (int)(seed % 2);
			run_critical(&f, &o);
			o.jobs = 1;
			cr_assert_eq(critical_ref_analyse(f.tl, &f.ar, &o, CRITICAL_REF_EPS_EACH, &ref), 0);
			a = &f.r->edges;
			b = &ref->edges;
			cr_assert(!memcmp(a, b, sizeof(*a)),
				  "seed %llu eps %lld: counted %llu/%llu/%llu/%llu/%llu/%llu, judged "
				  "%llu/%llu/%llu/%llu/%llu/%llu (candidates/same/confirmed/rejected/missing/redundant)",
				  seed, (long long)o.epsilon_ns, (unsigned long long)a->candidates,
				  (unsigned long long)a->same_thread, (unsigned long long)a->confirmed,
				  (unsigned long long)a->rejected, (unsigned long long)a->missing_data,
				  (unsigned long long)a->redundant, (unsigned long long)b->candidates,
				  (unsigned long long)b->same_thread, (unsigned long long)b->confirmed,
				  (unsigned long long)b->rejected, (unsigned long long)b->missing_data,
				  (unsigned long long)b->redundant);
			cr_assert(f.r->nedges == ref->nedges && f.r->ntasks == ref->ntasks &&
				  f.r->makespan_ns == ref->makespan_ns, "seed %llu", seed);
			assert_same_shares(f.r->whole.share, f.r->whole.nshare, ref->whole.share, ref->whole.nshare,
					   "whole recording");
			assert_same_result(f.r, ref, seed);
			seen_missing += b->missing_data;
			seen_rejected += b->rejected;
			seen_redundant += b->redundant;
			seen_confirmed += b->confirmed;
			critical__free(ref);
		}
		fx_free(&f);
	}
	cr_assert(seen_missing > 0 && seen_rejected > 100 && seen_redundant > 100 && seen_confirmed > 100,
		  "kinds seen: missing %llu, rejected %llu, redundant %llu, confirmed %llu",
		  (unsigned long long)seen_missing, (unsigned long long)seen_rejected,
		  (unsigned long long)seen_redundant, (unsigned long long)seen_confirmed);
}

/*
 * A reference comparison: random schedules (records lost on one CPU in
 * every lost_every-th) analysed in three modes — eps from the wakeups, a
 * given eps, timing-only — once as shipped and once with the references
 * refs (tests/ref/critical_ref.h), both with the options set(o, seed)
 * makes; check() compares the two and returns what it counted, summed
 * over all.
 */
typedef void (*ref_set_fn)(struct critical_opts *o, unsigned long long seed);
typedef size_t (*ref_check_fn)(const struct critical_result *r, const struct critical_result *ref,
			       unsigned long long seed, int mode);

static size_t against_reference(unsigned long long mul, unsigned lost_every, unsigned refs, ref_set_fn set,
				ref_check_fn check)
{
	size_t counted = 0;

	for (unsigned long long seed = 1; seed <= 60; seed++) {
		unsigned long long rs = seed * mul;
		struct fixture f;

		random_schedule(&f, &rs, seed % lost_every == 0);
		for (int k = 0; k < 3; k++) {
			struct critical_opts o;
			struct critical_result *ref = NULL;

			critical_opts_default(&o);
			o.timing_only = k == 2;
			o.epsilon_ns = k == 1 ? tu_rand_range(&rs, 1, 2000) * US : -1;
			set(&o, seed);
			run_critical(&f, &o);
			cr_assert_eq(critical_ref_analyse(f.tl, &f.ar, &o, refs, &ref), 0, "seed %llu mode %d", seed, k);
			assert_same_result(f.r, ref, seed);
			counted += check(f.r, ref, seed, k);
			critical__free(ref);
		}
		fx_free(&f);
	}
	return counted;
}

/*
 * The task model's CPU index from the timeline's runs by CPU against the
 * sort it replaces (a timeline without the lists): the same results on
 * random schedules, with lost records and in every mode.
 */
Test(critical, cpu_index_from_runs_matches_the_sort)
{
	size_t held = 0;

	for (unsigned long long seed = 1; seed <= 40; seed++) {
		unsigned long long rs = seed * 104729;
		struct fixture f;

		random_schedule(&f, &rs, seed % 4 == 0);
		cr_assert_not_null(f.tl->runs_by_cpu);
		for (int k = 0; k < 3; k++) {
			struct critical_opts o;
			struct critical_result *ref = NULL;
			uint32_t *lists = f.tl->runs_by_cpu;

			critical_opts_default(&o);
			o.timing_only = k == 2;
			o.epsilon_ns = k == 1 ? tu_rand_range(&rs, 1, 2000) * US : -1;
			run_critical(&f, &o);
			((struct timeline *)f.tl)->runs_by_cpu = NULL;
			cr_assert_eq(critical__analyse(f.tl, &f.ar, &o, &ref), 0, "seed %llu mode %d", seed, k);
			((struct timeline *)f.tl)->runs_by_cpu = lists;
			assert_same_result(f.r, ref, seed);
			for (size_t i = 0; i < f.r->whole.nshare; i++)
				held += f.r->whole.share[i].held_ns > 0;
			critical__free(ref);
		}
		fx_free(&f);
	}
	cr_assert_gt(held, 0, "no path waited for a CPU: the index was never asked");
}

static void set_nothing(struct critical_opts *o, unsigned long long seed)
{
	(void)o;
	(void)seed;
}

static size_t check_observed(const struct critical_result *r, const struct critical_result *ref,
			     unsigned long long seed, int k)
{
	cr_assert(r->ntasks == ref->ntasks && r->nedges == ref->nedges && r->makespan_ns == ref->makespan_ns &&
		  r->ncritical == ref->ncritical && r->whole_last == ref->whole_last,
		  "seed %llu mode %d: %u critical of %u, Algorithm 1 %u", seed, k, (unsigned)r->ncritical,
		  (unsigned)r->ntasks, (unsigned)ref->ncritical);
	cr_assert_eq(r->whole.ntasks, ref->whole.ntasks, "seed %llu mode %d", seed, k);
	assert_same_shares(r->whole.share, r->whole.nshare, ref->whole.share, ref->whole.nshare, "whole recording");
	return ref->ncritical;
}

/*
 * A recording's earliest starts are read off the observed ones
 * (cpa__observed): Algorithm 1 in full must give the same critical tasks,
 * makespan, binding edges and so every path, at every eps, timing-only
 * included, with records lost on a CPU.
 */
Test(critical, observed_starts_match_algorithm1)
{
	size_t critical_seen = against_reference(0x94D049BB133111EBULL, 3, CRITICAL_REF_FULL_CPA, set_nothing,
						 check_observed);

	cr_assert_gt(critical_seen, 1000, "only %zu critical tasks compared", critical_seen);
}

static void set_jobs(struct critical_opts *o, unsigned long long seed)
{
	o->jobs = 1 + (int)(seed % 2);
}

static size_t check_breaks(const struct critical_result *r, const struct critical_result *ref,
			   unsigned long long seed, int k)
{
	for (size_t i = 0; i < ref->nbreaks; i++)
		cr_assert(r->breaks[i].release_excess_ns == ref->breaks[i].release_excess_ns,
			  "seed %llu mode %d break %zu", seed, k, i);
	return ref->nbreaks;
}

/*
 * An invocation's path, its reference window and a break's path are
 * accounted in one walk (they follow the same edges back from the same
 * completion): every actor's shares and every break's path, excess and
 * culprit must be those of walking them one after the other, at every
 * eps, timing-only included, on one accounting thread and on two.
 */
Test(critical, shared_walk_matches_separate_walks)
{
	size_t breaks = against_reference(0xBF58476D1CE4E5B9ULL, 4, CRITICAL_REF_SEPARATE_WALKS, set_jobs,
					  check_breaks);

	cr_assert_gt(breaks, 100, "only %zu breaks compared", breaks);
}

/*
 * seg_breaks N: the N worst breaks keep their stretches, the others are
 * accounted alike without them (same order, shares, culprit, counts).
 */
Test(critical, seg_breaks_keeps_the_worst)
{
	size_t cut = 0;

	for (unsigned long long seed = 1; seed <= 40; seed++) {
		unsigned long long rs = seed * 0x9E3779B97F4A7C15ULL;
		struct critical_result *all = NULL;
		struct critical_opts o;
		struct fixture f;
		size_t n;

		random_schedule(&f, &rs, false);
		critical_opts_default(&o);
		cr_assert_eq(critical__analyse(f.tl, &f.ar, &o, &all), 0);
		n = all->nbreaks / 2;
		o.seg_breaks = n ? n : 1;
		run_critical(&f, &o);
		cr_assert_eq(f.r->nbreaks, all->nbreaks);
		for (size_t i = 0; i < all->nbreaks; i++) {
			const struct crit_break *x = &all->breaks[i], *y = &f.r->breaks[i];

			cr_assert(x->actor == y->actor && x->brk == y->brk && x->excess_ns == y->excess_ns &&
				  x->culprit.thread == y->culprit.thread &&
				  x->path.nseg_total == y->path.nseg_total && x->path.ntasks == y->path.ntasks,
				  "seed %llu break %zu", seed, i);
			assert_same_shares(x->path.share, x->path.nshare, y->path.share, y->path.nshare, "break");
			if (i < o.seg_breaks) {
				cr_assert_eq(y->path.nseg, x->path.nseg, "seed %llu break %zu", seed, i);
				for (size_t k = 0; k < x->path.nseg; k++) {
					const struct crit_seg *g = &x->path.seg[k], *h = &y->path.seg[k];

					/* field by field: the padding is not set */
					cr_assert(g->start_ns == h->start_ns && g->end_ns == h->end_ns &&
						  g->thread == h->thread && g->holder == h->holder &&
						  g->holder_ns == h->holder_ns && g->held_ns == h->held_ns &&
						  g->cpu == h->cpu && g->kind == h->kind && g->cat == h->cat &&
						  g->sub == h->sub, "seed %llu break %zu segment %zu", seed, i, k);
				}
			} else {
				cr_assert_eq(y->path.nseg, 0, "seed %llu break %zu kept %zu segments", seed, i,
					     y->path.nseg);
				cut += x->path.nseg > 0;
			}
		}
		critical__free(all);
		fx_free(&f);
	}
	cr_assert_gt(cut, 20, "only %zu paths left without their stretches", cut);
}

/* ---- Gantt charts ---- */

static struct gantt *chart(const char *csv)
{
	FILE *in = fmemopen((void *)csv, strlen(csv), "r");
	struct gantt *g = NULL;
	char err[256];

	cr_assert(in);
	cr_assert_eq(gantt__parse(in, "test.csv", NULL, &g, err, sizeof(err)), 0, "%s", err);
	fclose(in);
	return g;
}

static struct critical_result *gantt_run(const struct gantt *g, int64_t eps)
{
	struct critical_opts o;
	struct critical_result *r = NULL;

	critical_opts_default(&o);
	o.epsilon_ns = eps;
	cr_assert_eq(critical__analyse_gantt(g, &o, &r), 0);
	return r;
}

static void assert_names(const struct gantt *g, const uint32_t *v, size_t n, const char *want)
{
	char got[256] = "";

	for (size_t i = 0; i < n; i++) {
		strcat(got, i ? " " : "");
		strcat(got, g->names[g->name[v[i]]]);
	}
	cr_assert_str_eq(got, want);
}

/* TV-6.2: the Fig. 1 chart; one critical path A C E, floats B, D, F = 4. */
Test(critical, gantt_tv62)
{
	struct gantt *g = chart("task,actor,start_ns,end_ns\nA,R1,0,1\nB,R2,1,3\nC,R1,1,6\nD,R2,3,4\n"
				"F,R3,3,4\nE,R1,6,8\n");
	struct critical_result *r = gantt_run(g, -1);

	cr_assert_str_eq(r->epsilon_source, "default");
	cr_assert_eq(r->epsilon_ns, 0);
	cr_assert_eq(r->makespan_ns, 8);
	cr_assert_eq(r->nedges, 5);
	assert_names(g, r->critical, r->ncritical, "A C E");
	cr_assert_eq(r->npaths, 1);
	cr_assert_eq(r->npaths_listed, 1);
	assert_names(g, r->paths[0], r->path_len[0], "A C E");
	assert_names(g, r->common, r->ncommon, "A C E");
	cr_assert_eq(r->lst[1] - r->est[1], 4);	/* B */
	cr_assert_eq(r->lst[3] - r->est[3], 4);	/* D */
	cr_assert_eq(r->lst[4] - r->est[4], 4);	/* F */
	cr_assert_eq(r->nmismatch, 0);
	/* The path by actor: R1 ran all of it. */
	cr_assert_eq(r->whole.nshare, 1);
	cr_assert_eq(r->whole.share[0].thread, 0);
	cr_assert_eq(r->whole.share[0].ns, 8);
	critical__free(r);
	gantt__free(g);
}

/* TV-6.3, origin = earliest start: eps 0 leaves C and E unexplained; eps 1 explains all. */
Test(critical, gantt_tv63)
{
	struct gantt *g = chart("task,actor,start_ns,end_ns\nA,R1,1,2\nB,R2,2,4\nC,R1,3,8\nF,R2,4,5\n"
				"D,R2,5,6\nE,R1,9,11\n");
	struct critical_result *r = gantt_run(g, 0);

	cr_assert_eq(r->origin_ns, 1);
	cr_assert_eq(r->makespan_ns, 5);
	cr_assert_eq(r->npaths, 2);
	cr_assert_eq(r->npaths_listed, 2);
	assert_names(g, r->mismatch, r->nmismatch, "C E");
	cr_assert_eq(r->ncommon, 0);
	critical__free(r);

	r = gantt_run(g, 1);
	cr_assert_str_eq(r->epsilon_source, "given");
	cr_assert_eq(r->makespan_ns, 10);
	assert_names(g, r->critical, r->ncritical, "A C E");
	cr_assert_eq(r->npaths, 1);
	assert_names(g, r->paths[0], r->path_len[0], "A C E");
	cr_assert_eq(r->nmismatch, 0);
	cr_assert_eq(r->edges.releases[CRIT_CAT_INIT], 1);	/* init(->B), not critical */
	cr_assert_eq(r->lst[1] - r->est[1], 5);	/* B */
	/* The path: A 1, control 1, C 5, control 1, E 2. */
	cr_assert_eq(row_cat(r->whole.share, r->whole.nshare, CRIT_CAT_GAP, -1), 2);
	cr_assert_eq(share_sum(r->whole.share, r->whole.nshare), 10);
	cr_assert_eq(r->whole.share[0].ns, 8);	/* R1 */
	assert_tiles(&r->whole);
	critical__free(r);
	gantt__free(g);
}

/* Six parallel critical paths: beyond CRIT_MAX_PATHS the common sub-path speaks. */
Test(critical, gantt_many_paths_common)
{
	struct gantt *g = chart("task,actor,start_ns,end_ns\nS,a,0,10\nX,b,10,20\nX,c,10,20\nX,d,10,20\n"
				"X,e,10,20\nX,f,10,20\nX,g,10,20\nE,a,20,25\nlate,h,30,31\n");
	struct critical_result *r = gantt_run(g, -1);

	cr_assert_eq(r->makespan_ns, 25);
	cr_assert_eq(r->npaths, 6);
	cr_assert_eq(r->npaths_listed, CRIT_MAX_PATHS);
	assert_names(g, r->common, r->ncommon, "S E");
	cr_assert_eq(r->common_joined[1], 0, "S and E are not adjacent");
	assert_names(g, r->mismatch, r->nmismatch, "late");
	cr_assert_eq(r->ncritical, 8);
	{
		/* The text says so without citing the paper's section to the user. */
		struct analysis an = { .gantt = g, .critical = r };
		struct report_style st = { 0 };
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);

		cr_assert_not_null(out);
		text_critical_print(r, &an, out, &st);
		fclose(out);
		cr_assert(strstr(buf, "6 critical paths; on all of them (certainly critical): S ... E\n"), "%s", buf);
		cr_assert_null(strstr(buf, "§"), "%s", buf);
		free(buf);
	}
	critical__free(r);
	gantt__free(g);
}

/* Per actor of a chart: each task an invocation, windows in non-delay time. */
Test(critical, gantt_actors)
{
	struct gantt *g = chart("task,actor,start_ns,end_ns\np,src,0,2\nq,snk,2,5\np,src,5,7\nq,snk,7,10\n");
	struct critical_result *r = gantt_run(g, -1);
	const struct crit_actor *snk = &r->actors[1];

	cr_assert_eq(r->nactors, 2);
	cr_assert_eq(snk->ninv, 2);
	cr_assert_eq(snk->total_ns, 10);
	cr_assert_eq(share_sum(snk->share, snk->nshare), 10);
	cr_assert_eq(snk->share[0].ns, 6);	/* snk itself */
	cr_assert_eq(snk->share[1].ns, 4);	/* src */
	critical__free(r);
	gantt__free(g);
}

Test(critical, gantt_empty_and_budget)
{
	struct gantt *g = chart("task,actor,start_ns,end_ns\n");
	struct critical_result *r = gantt_run(g, -1);
	struct critical_opts o;

	cr_assert_eq(r->ntasks, 0);
	cr_assert_eq(r->makespan_ns, 0);
	cr_assert_eq(r->npaths, 0);
	critical__free(r);
	gantt__free(g);

	g = chart("task,actor,start_ns,end_ns\na,x,0,1\nb,x,1,2\nc,x,1,2\nd,x,2,3\n");
	critical_opts_default(&o);
	o.epsilon_ns = 5;
	o.max_edges = 2;
	r = NULL;
	cr_assert_eq(critical__analyse_gantt(g, &o, &r), -E2BIG);
	cr_assert_null(r);
	gantt__free(g);
}
