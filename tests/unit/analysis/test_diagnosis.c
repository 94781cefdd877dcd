// SPDX-License-Identifier: MIT
/*
 * The Diagnosis (src/analysis/diagnosis.h) over stage results made by
 * hand: which downstream breaks follow the upstream actor's and which are
 * their own, the culprit that cost the worst breaks the most (not the one
 * seen most), threads of one name counting together, a holdup naming what
 * a weaker culprit cannot, a late release, the patterns quoted, and the
 * cases with no answer. A few checks of the text report's sentences at
 * the end: the rendering of those fields.
 */
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "analysis/analysis.h"
#include "analysis/diagnosis.h"
#include "critical/critical.h"
#include "lib/log.h"
#include "patterns/patterns.h"
#include "summary_text.h"
#include "synth_trace.h"
#include "testutil.h"
#include "timeline/timeline.h"

#define MS 1000000ll
#define US 1000ll
#define T0 (1000 * MS)
#define NB 8			/* breaks of the upstream actor */

/* Threads of the recording, by tid; two named hog. */
enum { SRC = 1, SINK = 2, HOG_A = 3, HOG_B = 4, KWORKER = 5, MID = 6, NTHREADS = 6 };
static const char *const comms[NTHREADS + 1] = { NULL, "src", "sink", "hog", "hog", "kworker", "mid" };

struct fix {
	struct trace *t;
	struct timeline *tl;
	uint32_t th[NTHREADS + 1];	/* timeline thread of each tid */
	struct actor v[4];
	struct actor_break ub[NB];	/* the upstream actor's (v[0]) breaks */
	struct actor_edge e[4];
	struct actors_result ar;
	struct crit_break cb[NB];	/* worst first: cb[i] is ub[i] */
	struct critical_result cr;
	struct pattern p[3];
	struct patterns_result pr;
	struct analysis a;
	struct diagnosis *d;
};

static struct trace *names_trace(void)
{
	struct synth *s = synth_new(T0, T0 + 100 * MS, 1);
	uint32_t prev = 0;

	for (uint32_t tid = 1; tid <= NTHREADS; tid++) {
		synth_thread(s, tid, tid, comms[tid]);
		synth_switch(s, T0 + tid * MS, 0, prev, prev, SYN_SLEEP, tid, tid);
		prev = tid;
	}
	return synth_finish(s);
}

/*
 * src (v[0], 10 ms period) breaks NB times, the worst first: break i is
 * late by (NB - i) ms; on the critical-path list in that order, each
 * blaming nothing yet. No other actor, no pattern result.
 */
static void fix_open(struct fix *f)
{
	log_level = LOG_QUIET;
	memset(f, 0, sizeof(*f));
	f->t = names_trace();
	cr_assert_eq(timeline__build(f->t, NULL, &f->tl), 0);
	for (uint32_t i = 0; i < f->tl->nthreads; i++)
		if (f->tl->threads[i].tid <= NTHREADS)
			f->th[f->tl->threads[i].tid] = i;
	for (uint32_t tid = 1; tid <= NTHREADS; tid++)
		cr_assert_eq(f->tl->threads[f->th[tid]].tid, tid);
	for (size_t i = 0; i < NB; i++) {
		f->ub[i] = (struct actor_break){ .before = 10 * i, .late = 10 * i + 1,
						 .start_ns = T0 + (int64_t)i * 100 * MS,
						 .end_ns = T0 + (int64_t)i * 100 * MS + 10 * MS + (NB - i) * MS,
						 .lateness_ns = (NB - (int64_t)i) * MS };
		f->cb[i] = (struct crit_break){ .actor = 0, .brk = i, .lateness_ns = f->ub[i].lateness_ns };
		f->cb[i].path.end_ns = f->ub[i].end_ns;
	}
	f->v[0] = (struct actor){ .name = "src/1", .comm = "src", .thread = f->th[SRC], .breaks = f->ub, .nbreaks = NB,
				  .breaking = true, .worst_lateness_ns = NB * MS, .min_late_ns = MS };
	f->v[0].st.period_ns = 10 * MS;
	f->v[0].st.periodic = true;
	f->ar = (struct actors_result){ .v = f->v, .n = 1, .edges = f->e, .upstream = 0,
					.min_late = { .frac = ACTORS_DEFAULT_MIN_LATE } };
	f->cr = (struct critical_result){ .breaks = f->cb, .nbreaks = NB };
	analysis_opts_default(&f->a.opts);
	f->a.trace = f->t;
	f->a.tl = f->tl;
	f->a.actors = &f->ar;
	f->a.critical = &f->cr;
}

static const struct diagnosis *fix_diagnose(struct fix *f)
{
	diagnosis__free(f->d);
	f->d = NULL;
	cr_assert_eq(diagnosis__compute(&f->a, &f->d), 0);
	return f->d;
}

static void fix_close(struct fix *f)
{
	diagnosis__free(f->d);
	timeline__free(f->tl);
	trace__free(f->t);
}

/* Break i of src blames a thread (tid) for excess_ns: it held the CPU the path waited for. */
static void blame_thread(struct fix *f, size_t i, uint32_t tid, int64_t excess_ns)
{
	f->cb[i].culprit = (struct crit_share){ .thread = f->th[tid], .ns = excess_ns + MS, .held_ns = excess_ns + MS };
	f->cb[i].excess_ns = excess_ns;
}

/* Break i of src blames a kind of wait. */
static void blame_cat(struct fix *f, size_t i, enum crit_cat cat, int64_t excess_ns)
{
	f->cb[i].culprit = (struct crit_share){ .thread = CRIT_NONE, .cat = cat, .ns = excess_ns + MS };
	f->cb[i].excess_ns = excess_ns;
}

/* Break i of src: its late invocation was held told_ns in call nr (or as why says). */
static void hold(struct fix *f, size_t i, enum holdup_why why, uint32_t nr, int64_t told_ns)
{
	f->ub[i].held = (struct holdup){ .why = why, .call_nr = nr, .told_ns = told_ns,
					 .call_blocked_ns = why == HOLDUP_IN_CALL ? told_ns : 0 };
}

/* ---- the first answer ---- */

/* Actor k, periodic, with the default cut (a tenth of its period) as the actors' stage sets it. */
static void set_actor(struct fix *f, size_t k, const char *name, uint32_t tid, struct actor_break *b, size_t nb,
		      int64_t period_ns)
{
	int64_t worst = 0;

	f->v[k] = (struct actor){ .thread = f->th[tid], .breaks = b, .nbreaks = nb, .min_late_ns = period_ns / 10 };
	snprintf(f->v[k].name, sizeof(f->v[k].name), "%s/%u", name, tid);
	snprintf(f->v[k].comm, sizeof(f->v[k].comm), "%s", name);
	f->v[k].st.period_ns = (double)period_ns;
	f->v[k].st.periodic = true;
	for (size_t i = 0; i < nb; i++) {
		if (b[i].data_missing)
			continue;
		worst = b[i].lateness_ns > worst ? b[i].lateness_ns : worst;
		f->v[k].breaking = f->v[k].breaking || actor_break_major(&f->v[k], &b[i]);
	}
	f->v[k].worst_lateness_ns = worst;
}

/*
 * Which downstream breaks are the upstream actor's delay. src 25 ms late
 * twice; sink, three stages down, 25.9 ms late 7.2 ms after src's first
 * late start and 28.9 ms late 10.2 ms after its second (queueing adds to a
 * delay as it passes down: the demo's numbers), both propagated; and
 * 50 ms late on its own, half a second from any break of src.
 */
Test(diagnosis, a_delay_propagates_within_two_periods_and_one_period_more)
{
	struct actor_break ub[3] = {
		{ .start_ns = 0, .end_ns = 35000000, .lateness_ns = 25000000 },
		{ .start_ns = 1000000000, .end_ns = 1035100000, .lateness_ns = 25100000 },
		{ .start_ns = 1035100000, .end_ns = 1050000000, .lateness_ns = 4900000 },
	};
	struct actor_break yb[3] = {
		{ .start_ns = 6300000, .end_ns = 42200000, .lateness_ns = 25900000 },
		{ .start_ns = 500000000, .end_ns = 560000000, .lateness_ns = 50000000 },
		{ .start_ns = 1006300000, .end_ns = 1045300000, .lateness_ns = 28900000 },
	};
	struct actor v[2] = { { .name = "src/1", .comm = "src", .breaks = ub, .nbreaks = 3, .breaking = true,
				.worst_lateness_ns = 25100000 },
			      { .name = "sink/2", .comm = "sink", .breaks = yb, .nbreaks = 3, .breaking = true,
				.worst_lateness_ns = 50000000 } };
	struct actor_edge e = { .from = 0, .to = 1, .invocations = 100 };
	struct actors_result ar = { .v = v, .n = 2, .edges = &e, .nedges = 1, .upstream = 0 };
	struct analysis a = { .actors = &ar };
	struct diagnosis *d;
	const struct diag_actor *sink;
	char *text;

	v[0].st.period_ns = v[1].st.period_ns = 10000000;
	v[0].st.periodic = v[1].st.periodic = true;
	cr_assert_eq(diagnosis__compute(&a, &d), 0);
	cr_assert_eq(d->answer, DIAG_UPSTREAM);
	cr_assert_eq(d->upstream, 0);
	cr_expect_eq(d->breaks, 3);
	cr_expect_eq(d->worst_ns, 25100000);
	cr_assert(d->downstream_checked);
	cr_assert_eq(d->nrows, 2);
	cr_expect_eq(d->rows[0].actor, 0);
	cr_expect_not(d->rows[0].downstream, "the upstream actor is not downstream of itself");
	sink = &d->rows[1];
	cr_expect_eq(sink->actor, 1);
	cr_expect(sink->downstream);
	cr_expect_eq(sink->breaks, 3);
	cr_expect_eq(sink->after, 2);
	cr_expect_eq(sink->own, 1);
	cr_expect_eq(sink->own_major, 1);
	cr_expect_eq(sink->own_worst_ns, 50000000);
	cr_expect(sink->on_its_own);
	cr_expect_eq(d->own_worst, 1);
	cr_expect_eq(d->cause.kind, DIAG_CAUSE_NOT_ANALYSED);
	cr_expect_eq(d->patterns.kind, DIAG_PATTERNS_NOT_ANALYSED);
	diagnosis__free(d);
	/* late by more than one period beyond src's: its own */
	yb[2].lateness_ns = 35200000;
	cr_assert_eq(diagnosis__compute(&a, &d), 0);
	cr_expect_eq(d->rows[1].after, 1);
	cr_expect_eq(d->rows[1].own, 2);
	cr_expect_eq(d->rows[1].own_major, 2);
	cr_expect_eq(d->rows[1].own_worst_ns, 50000000);
	diagnosis__free(d);
	/* the sentences */
	yb[2].lateness_ns = 28900000;
	text = summary_text(&a);
	cr_expect(strstr(text, "the delay propagates to sink (2 of its 3 breaks);\n"
			       "   breaking on their own too (not after its breaks): sink 1 time; the worst 50 ms late "
			       "(sink).\n"), "%s", text);
	free(text);
	yb[2].lateness_ns = 35200000;
	text = summary_text(&a);
	cr_expect(strstr(text, "the delay propagates to sink (1 of its 3 breaks);\n"
			       "   breaking on their own too (not after its breaks): sink 2 times;"), "%s", text);
	free(text);
}

/*
 * src -> mid -> sink over wakeup edges, kworker apart. mid breaks after
 * src (and once over missing data, which counts nowhere, and once by
 * jitter, counted apart); sink, two stages down, is late on its own,
 * later than src's worst but by less than a tenth of its 100 ms period:
 * jitter, so it does not break at all; kworker is not downstream. A break
 * of mid right after a jitter of src is mid's own: jitter is no delay.
 */
Test(diagnosis, downstream_is_transitive_and_jitter_is_no_news)
{
	struct fix f;
	struct actor_break mb[4], sb[1], kb[1];
	const struct diagnosis *d;

	fix_open(&f);
	/* src's first break: [T0, T0 + 18 ms], 8 ms late; its last [T0 + 700 ms, T0 + 711 ms], 1 ms late */
	mb[0] = (struct actor_break){ .start_ns = T0 + 2 * MS, .end_ns = T0 + 21 * MS, .lateness_ns = 9 * MS };
	mb[1] = (struct actor_break){ .start_ns = T0 + 40 * MS, .end_ns = T0 + 90 * MS, .lateness_ns = 40 * MS,
				      .data_missing = true };
	mb[2] = (struct actor_break){ .start_ns = T0 + 302 * MS, .end_ns = T0 + 312 * MS + 500 * US,
				      .lateness_ns = 500 * US };
	mb[3] = (struct actor_break){ .start_ns = T0 + 711 * MS, .end_ns = T0 + 723 * MS, .lateness_ns = 2 * MS };
	sb[0] = (struct actor_break){ .start_ns = T0 + 1900 * MS, .end_ns = T0 + 2009 * MS, .lateness_ns = 9 * MS };
	kb[0] = (struct actor_break){ .start_ns = T0 + 3 * MS, .end_ns = T0 + 22 * MS, .lateness_ns = 9 * MS };
	set_actor(&f, 1, "mid", MID, mb, 4, 10 * MS);
	set_actor(&f, 2, "sink", SINK, sb, 1, 100 * MS);
	set_actor(&f, 3, "kworker", KWORKER, kb, 1, 10 * MS);
	f.e[0] = (struct actor_edge){ .from = 0, .to = 1, .invocations = 50 };
	f.e[1] = (struct actor_edge){ .from = 1, .to = 2, .invocations = 50 };
	f.ar.n = 4;
	f.ar.nedges = 2;
	cr_assert_not(f.v[2].breaking, "9 ms on 100 ms is jitter: sink does not break");
	d = fix_diagnose(&f);
	cr_expect_eq(d->verdict, DIAG_BREAKS);
	cr_expect_eq(d->breaks, NB);
	cr_expect_eq(d->jitter, 0);
	cr_assert_eq(d->nrows, 3, "a row per breaking actor");
	cr_expect_eq(d->rows[1].actor, 1);
	cr_expect(d->rows[1].downstream);
	cr_expect_eq(d->rows[1].breaks, 2, "the break over missing data is not trusted, the jitter apart");
	cr_expect_eq(d->rows[1].jitter, 1);
	cr_expect_eq(d->rows[1].worst_jitter_ns, 500 * US);
	cr_expect_eq(d->rows[1].after, 2);
	cr_expect_eq(d->rows[1].own, 0);
	cr_expect_eq(d->rows[2].actor, 3);
	cr_expect_not(d->rows[2].downstream);
	cr_expect_eq(d->rows[2].after + d->rows[2].own, 0, "kworker's breaks are not looked at");
	cr_expect_eq(d->own_worst, -1);
	/* src's 1 ms becomes jitter (a cut of 1.5 ms): mid's break right after it is its own */
	f.v[0].min_late_ns = 1500 * US;
	d = fix_diagnose(&f);
	cr_expect_eq(d->breaks, NB - 1);
	cr_expect_eq(d->jitter, 1);
	cr_expect_eq(d->worst_jitter_ns, MS);
	cr_expect_eq(d->rows[1].after, 1);
	cr_expect_eq(d->rows[1].own, 1);
	cr_expect_eq(d->rows[1].own_major, 1);
	cr_expect_eq(d->rows[1].own_worst_ns, 2 * MS);
	cr_expect_not(d->rows[1].on_its_own, "2 ms, not later than src's worst (8 ms)");
	f.v[0].min_late_ns = MS;
	/* a major break of sink's own, later than src's worst: news */
	sb[0].lateness_ns = 12 * MS;
	set_actor(&f, 2, "sink", SINK, sb, 1, 100 * MS);
	d = fix_diagnose(&f);
	cr_assert_eq(d->nrows, 4);
	cr_expect(d->rows[2].downstream, "sink is two stages down");
	cr_expect_eq(d->rows[2].after, 0);
	cr_expect(d->rows[2].on_its_own);
	cr_expect_eq(d->rows[2].own_major, 1);
	cr_expect_eq(d->own_worst, 2);
	/* major, but not later than src's worst (8 ms): no news either */
	sb[0].lateness_ns = 8 * MS;
	set_actor(&f, 2, "sink", SINK, sb, 1, 10 * MS);
	d = fix_diagnose(&f);
	cr_expect_eq(d->rows[2].own_major, 1);
	cr_expect_not(d->rows[2].on_its_own);
	fix_close(&f);
}

/* Over DIAG_MAX_FOLLOWED actors the propagation is not looked at (and says so). */
Test(diagnosis, propagation_over_too_many_actors_is_not_checked)
{
	size_t n = DIAG_MAX_FOLLOWED + 1;
	struct actor *v = calloc(n, sizeof(*v));
	struct actor_break b[2] = {
		{ .start_ns = 0, .end_ns = 15 * MS, .lateness_ns = 5 * MS },
		{ .start_ns = 1 * MS, .end_ns = 16 * MS, .lateness_ns = 5 * MS },
	};
	struct actor_edge e = { .from = 0, .to = 1, .invocations = 100 };
	struct actors_result ar = { .v = v, .n = n, .edges = &e, .nedges = 1, .upstream = 0 };
	struct analysis a = { .actors = &ar };
	struct diagnosis *d;

	cr_assert_not_null(v);
	for (size_t i = 0; i < n; i++) {
		v[i].st.period_ns = 10 * MS;
		v[i].st.periodic = true;
	}
	v[0] = (struct actor){ .breaks = &b[0], .nbreaks = 1, .breaking = true, .worst_lateness_ns = 5 * MS,
			       .st = v[1].st };
	v[1].breaks = &b[1];
	v[1].nbreaks = 1;
	v[1].breaking = true;
	cr_assert_eq(diagnosis__compute(&a, &d), 0);
	cr_expect_eq(d->nperiodic, n);
	cr_expect_not(d->downstream_checked);
	cr_assert_eq(d->nrows, 2);
	cr_expect_not(d->rows[1].downstream);
	cr_expect_eq(d->rows[1].after, 0);
	cr_expect_eq(d->rows[1].breaks, 1);
	diagnosis__free(d);
	ar.n = DIAG_MAX_FOLLOWED;
	cr_assert_eq(diagnosis__compute(&a, &d), 0);
	cr_expect(d->downstream_checked);
	cr_expect(d->rows[1].downstream);
	cr_expect_eq(d->rows[1].after, 1);
	diagnosis__free(d);
	free(v);
}

/* ---- the second answer ---- */

/*
 * By cost, not by count: hog in one break (5 ms over the usual), sink in
 * two (100 us each), a wakeup latency in two (50 us each).
 */
Test(diagnosis, the_culprit_is_the_costliest_not_the_most_seen)
{
	struct fix f;
	const struct diag_cause *c;

	fix_open(&f);
	blame_thread(&f, 0, HOG_A, 5 * MS);
	blame_thread(&f, 1, SINK, 100 * US);
	blame_thread(&f, 2, SINK, 100 * US);
	blame_cat(&f, 3, CRIT_CAT_WAKEUP, 50 * US);
	blame_cat(&f, 4, CRIT_CAT_WAKEUP, 50 * US);
	c = &fix_diagnose(&f)->cause;
	cr_assert_eq(c->kind, DIAG_CAUSE_CULPRIT);
	cr_expect_eq(c->nworst, 5);
	for (size_t i = 0; i < 5; i++)
		cr_expect_eq(c->worst[i], i);
	cr_expect_eq(c->thread, f.th[HOG_A]);
	cr_expect_eq(c->how, DIAG_CPU_BEHIND);
	cr_expect_eq(c->count, 1);
	cr_expect_eq(c->total_ns, 5 * MS);
	cr_expect_eq(c->min_ns, 5 * MS);
	cr_expect_eq(c->max_ns, 5 * MS);
	cr_expect_eq(c->threads, 1);
	cr_expect_eq(c->named_at_ns, f.cb[0].path.end_ns);
	/* the same cost spread over the two sink breaks wins */
	blame_thread(&f, 1, SINK, 2600 * US);
	blame_thread(&f, 2, SINK, 2500 * US);
	c = &fix_diagnose(&f)->cause;
	cr_expect_eq(c->thread, f.th[SINK]);
	cr_expect_eq(c->count, 2);
	cr_expect_eq(c->total_ns, 5100 * US);
	cr_expect_eq(c->min_ns, 2500 * US);
	cr_expect_eq(c->max_ns, 2600 * US);
	fix_close(&f);
}

/*
 * A disturber started anew for each disturbance: two threads named hog
 * (1 ms in three breaks) against sink (1.2 ms in two). By name, hog cost
 * the most; had the third been a kworker, sink would have.
 */
Test(diagnosis, threads_of_one_name_count_together)
{
	struct fix f;
	const struct diag_cause *c;

	fix_open(&f);
	blame_thread(&f, 0, HOG_A, MS);
	blame_thread(&f, 1, SINK, 1200 * US);
	blame_thread(&f, 2, HOG_B, MS);
	blame_thread(&f, 3, SINK, 1200 * US);
	blame_thread(&f, 4, HOG_A, MS);
	c = &fix_diagnose(&f)->cause;
	cr_assert_eq(c->kind, DIAG_CAUSE_CULPRIT);
	cr_expect_str_eq(timeline__comm_at(f.tl, c->thread, c->named_at_ns), "hog");
	cr_expect_eq(c->count, 3);
	cr_expect_eq(c->total_ns, 3 * MS);
	cr_expect_eq(c->threads, 2, "hog/3 and hog/4");
	blame_thread(&f, 2, KWORKER, MS);
	c = &fix_diagnose(&f)->cause;
	cr_expect_eq(c->thread, f.th[SINK]);
	cr_expect_eq(c->count, 2);
	cr_expect_eq(c->threads, 1);
	fix_close(&f);
}

/* The path through a thread that ran (not one that held the CPU), and a kind of wait. */
Test(diagnosis, how_the_path_met_its_culprit)
{
	struct fix f;
	const struct diag_cause *c;

	fix_open(&f);
	for (size_t i = 0; i < 5; i++)
		blame_thread(&f, i, HOG_A, MS);
	f.cb[0].culprit.run_ns = f.cb[0].culprit.held_ns;
	c = &fix_diagnose(&f)->cause;
	cr_expect_eq(c->how, DIAG_RAN_THROUGH, "the culprit of the worst break ran as long as it held the CPU");
	f.cb[0].culprit.run_ns = 0;
	cr_expect_eq(fix_diagnose(&f)->cause.how, DIAG_CPU_BEHIND);
	for (size_t i = 0; i < 5; i++)
		blame_cat(&f, i, CRIT_CAT_OWN_WAIT, MS);
	c = &fix_diagnose(&f)->cause;
	cr_expect_eq(c->how, DIAG_WAITED_ON);
	cr_expect_eq(c->thread, CRIT_NONE);
	cr_expect_eq(c->cat, CRIT_CAT_OWN_WAIT);
	cr_expect_eq(c->count, 5);
	fix_close(&f);
}

/*
 * Three breaks waited within their invocation (0.5 ms over the usual
 * each), held 10 ms in fdatasync() by the kernel; two blame hog, 2 ms
 * each. hog cost more than the kind of wait, but the holdup tells 30 ms:
 * the call is the answer. Told 1 ms each, the holdup is weaker than hog,
 * who stays the answer.
 */
Test(diagnosis, a_holdup_wins_over_a_weaker_culprit)
{
	struct fix f;
	const struct diag_cause *c;

	fix_open(&f);
	for (size_t i = 0; i < 3; i++) {
		blame_cat(&f, i, CRIT_CAT_OWN_WAIT, 500 * US);
		hold(&f, i, HOLDUP_IN_CALL, 75, 10 * MS + (int64_t)i * MS);
	}
	blame_thread(&f, 3, HOG_A, 2 * MS);
	blame_thread(&f, 4, HOG_A, 2 * MS);
	/* hog's own breaks do not tell their holdup: another thread is to blame */
	hold(&f, 3, HOLDUP_IN_CALL, 75, 50 * MS);
	c = &fix_diagnose(&f)->cause;
	cr_assert_eq(c->kind, DIAG_CAUSE_HELD);
	cr_expect_eq(c->why, HOLDUP_IN_CALL);
	cr_expect_eq(c->call_nr, 75);
	cr_expect_str_eq(c->state, "blocked");
	cr_expect_eq(c->nworst, 5);
	cr_expect_eq(c->count, 3);
	cr_expect_eq(c->total_ns, 33 * MS);
	cr_expect_eq(c->min_ns, 10 * MS);
	cr_expect_eq(c->max_ns, 12 * MS);
	for (size_t i = 0; i < 3; i++)
		hold(&f, i, HOLDUP_IN_CALL, 75, MS);
	c = &fix_diagnose(&f)->cause;
	cr_assert_eq(c->kind, DIAG_CAUSE_CULPRIT);
	cr_expect_eq(c->thread, f.th[HOG_A]);
	cr_expect_eq(c->count, 2);
	cr_expect_eq(c->total_ns, 4 * MS);
	/* the actor's own thread as the culprit: the holdup says more, however small */
	blame_thread(&f, 3, SRC, 2 * MS);
	blame_thread(&f, 4, SRC, 2 * MS);
	hold(&f, 3, HOLDUP_NONE, 0, 0);
	c = &fix_diagnose(&f)->cause;
	cr_expect_eq(c->kind, DIAG_CAUSE_HELD);
	cr_expect_eq(c->count, 3);
	fix_close(&f);
}

/*
 * Of the holdups, the call that tells the most time in all; one beside an
 * idle CPU is "throttled"; outside a call, the kernel.
 */
Test(diagnosis, the_holdup_that_tells_the_most)
{
	struct fix f;
	const struct diag_cause *c;

	fix_open(&f);
	hold(&f, 0, HOLDUP_IN_CALL, 1, 9 * MS);
	hold(&f, 1, HOLDUP_KERNEL, HOLDUP_NO_CALL, 4 * MS);
	hold(&f, 2, HOLDUP_KERNEL, HOLDUP_NO_CALL, 4 * MS);
	hold(&f, 3, HOLDUP_KERNEL, HOLDUP_NO_CALL, 4 * MS);
	c = &fix_diagnose(&f)->cause;
	cr_assert_eq(c->kind, DIAG_CAUSE_HELD);
	cr_expect_eq(c->why, HOLDUP_KERNEL);
	cr_expect_eq(c->call_nr, HOLDUP_NO_CALL);
	cr_expect_str_eq(c->state, "blocked");
	cr_expect_eq(c->count, 3);
	cr_expect_eq(c->total_ns, 12 * MS);
	hold(&f, 4, HOLDUP_CPU_IDLE, HOLDUP_NO_CALL, 13 * MS);
	c = &fix_diagnose(&f)->cause;
	cr_expect_eq(c->why, HOLDUP_CPU_IDLE);
	cr_expect_str_eq(c->state, "throttled");
	cr_expect_eq(c->count, 1);
	cr_expect_eq(c->min_ns, 13 * MS);
	fix_close(&f);
}

/* No culprit and no holdup: the release that came late, or nothing to say. */
Test(diagnosis, a_late_release_or_nothing)
{
	struct fix f;
	const struct diag_cause *c;

	fix_open(&f);
	c = &fix_diagnose(&f)->cause;
	cr_expect_eq(c->kind, DIAG_CAUSE_NONE);
	cr_expect_eq(c->nworst, 5);
	f.cb[0].release_excess_ns = 474 * US;
	f.cb[0].release = (struct crit_share){ .thread = CRIT_NONE, .cat = CRIT_CAT_REL_HARDIRQ, .sub = 24 };
	f.cb[1].release_excess_ns = 900 * US;	/* not the worst break: not the answer */
	c = &fix_diagnose(&f)->cause;
	cr_assert_eq(c->kind, DIAG_CAUSE_RELEASE);
	cr_expect_eq(c->total_ns, 474 * US);
	cr_expect_eq(c->count, 1);
	cr_expect_eq(c->cat, CRIT_CAT_REL_HARDIRQ);
	cr_expect_eq(c->sub, 24);
	/* a culprit, however small, comes first */
	blame_thread(&f, 2, HOG_A, 10 * US);
	cr_expect_eq(fix_diagnose(&f)->cause.kind, DIAG_CAUSE_CULPRIT);
	fix_close(&f);
}

/*
 * Breaks over missing data are listed but not trusted: neither counted by
 * the first answer nor weighed by the second. The worst two are so, and
 * blame a wakeup latency heavily: hog, from the others, is the answer.
 */
Test(diagnosis, breaks_over_missing_data_are_left_out)
{
	struct fix f;
	const struct diagnosis *d;

	fix_open(&f);
	for (size_t i = 0; i < NB; i++)
		blame_thread(&f, i, HOG_A, MS);
	for (size_t i = 0; i < 2; i++) {
		f.ub[i].data_missing = true;
		blame_cat(&f, i, CRIT_CAT_WAKEUP, 50 * MS);
	}
	f.v[0].worst_lateness_ns = f.ub[2].lateness_ns;
	d = fix_diagnose(&f);
	cr_expect_eq(d->breaks, NB - 2);
	cr_expect_eq(d->worst_ns, f.ub[2].lateness_ns);
	cr_expect_eq(d->cause.nworst, 5);
	for (size_t i = 0; i < 5; i++)
		cr_expect_eq(d->cause.worst[i], i + 2);
	cr_expect_eq(d->cause.kind, DIAG_CAUSE_CULPRIT);
	cr_expect_eq(d->cause.thread, f.th[HOG_A]);
	cr_expect_eq(d->cause.count, 5);
	/* fewer than five trusted: those */
	for (size_t i = 2; i < NB - 1; i++)
		f.ub[i].data_missing = true;
	d = fix_diagnose(&f);
	cr_expect_eq(d->breaks, 1);
	cr_expect_eq(d->cause.nworst, 1);
	cr_expect_eq(d->cause.worst[0], NB - 1);
	fix_close(&f);
}

/* Breaks of other actors on the critical-path list are not the upstream actor's. */
Test(diagnosis, only_the_upstream_actors_breaks_are_weighed)
{
	struct fix f;
	struct actor_break kb[1] = { { .start_ns = T0, .end_ns = T0 + 25 * MS, .lateness_ns = 15 * MS } };
	const struct diag_cause *c;

	fix_open(&f);
	set_actor(&f, 1, "kworker", KWORKER, kb, 1, 10 * MS);
	f.ar.n = 2;
	f.cb[0].actor = 1;
	f.cb[0].brk = 0;
	blame_thread(&f, 0, SINK, 40 * MS);
	for (size_t i = 1; i < NB; i++)
		blame_thread(&f, i, HOG_A, MS);
	c = &fix_diagnose(&f)->cause;
	cr_expect_eq(c->nworst, 5);
	cr_expect_eq(c->worst[0], 1);
	cr_expect_eq(c->thread, f.th[HOG_A]);
	fix_close(&f);
}

/*
 * Nor is its jitter: with a cut of 5.5 ms, src's breaks late by 5 ms and
 * less are jitter, and only its three major ones (8, 7 and 6 ms) are
 * weighed, though hog delayed every jitter more.
 */
Test(diagnosis, jitter_is_not_weighed)
{
	struct fix f;
	const struct diagnosis *d;
	char *text;

	fix_open(&f);
	f.v[0].min_late_ns = 5500 * US;
	blame_thread(&f, 0, SINK, 3 * MS);
	blame_thread(&f, 1, SINK, 2 * MS);
	blame_thread(&f, 2, HOG_A, MS);
	for (size_t i = 3; i < NB; i++)
		blame_thread(&f, i, HOG_A, 4 * MS);
	d = fix_diagnose(&f);
	cr_expect_eq(d->breaks, 3);
	cr_expect_eq(d->jitter, NB - 3);
	cr_expect_eq(d->worst_jitter_ns, 5 * MS);
	cr_expect_eq(d->cause.nworst, 3);
	cr_expect_eq(d->cause.kind, DIAG_CAUSE_CULPRIT);
	cr_expect_eq(d->cause.thread, f.th[SINK], "sink cost the major breaks 5 ms, hog 1 ms");
	cr_expect_eq(d->cause.count, 2);
	text = summary_text(&f.a);
	cr_expect(strstr(text, "1. src/1 is the first to break its 10 ms period: 3 breaks (+5 jitter, at most 5 ms), "
			       "the worst 8 ms late.\n2. What delayed it: in 2 of its 3 worst breaks,"), "%s", text);
	free(text);
	fix_close(&f);
}

Test(diagnosis, no_critical_path_no_second_answer)
{
	struct fix f;

	fix_open(&f);
	f.a.critical = NULL;
	cr_expect_eq(fix_diagnose(&f)->cause.kind, DIAG_CAUSE_NOT_ANALYSED);
	f.a.critical = &f.cr;
	f.cr.nbreaks = 0;
	cr_expect_eq(fix_diagnose(&f)->cause.kind, DIAG_CAUSE_NONE);
	cr_expect_eq(f.d->cause.nworst, 0);
	fix_close(&f);
}

/* ---- the third answer ---- */

static const char *const ev_a[] = { "timer wakes hog" }, *const ev_b[] = { "hog switched in", "write by hog" };

Test(diagnosis, the_first_two_patterns_are_quoted)
{
	struct fix f;
	const struct diag_patterns *p;

	fix_open(&f);
	f.p[0] = (struct pattern){ .len = 1, .events = ev_a, .count_pos = 7, .breaks = 8, .level = 1 };
	f.p[1] = (struct pattern){ .len = 2, .events = ev_b, .count_pos = 3, .count_neg = 2, .breaks = 3 };
	f.p[2] = f.p[1];
	f.pr.v = f.p;
	f.pr.n = 3;
	f.pr.nneg = 319;
	f.a.patterns = &f.pr;
	p = &fix_diagnose(&f)->patterns;
	cr_expect_eq(p->kind, DIAG_PATTERNS_FOUND);
	cr_expect(p->searched);
	cr_expect_eq(p->nshown, 2);
	cr_expect_eq(p->shown[0], 0);
	cr_expect_eq(p->shown[1], 1);
	cr_expect_eq(p->periods, 319);
	f.pr.n = 1;
	cr_expect_eq(fix_diagnose(&f)->patterns.nshown, 1);
	f.pr.n = 0;
	p = &fix_diagnose(&f)->patterns;
	cr_expect_eq(p->kind, DIAG_PATTERNS_NONE);
	cr_expect(p->searched);
	cr_expect_eq(p->nshown, 0);
	f.pr.status = "no break with complete data";
	cr_expect_not(fix_diagnose(&f)->patterns.searched);
	fix_close(&f);
}

/* ---- no answer ---- */

Test(diagnosis, no_actor_none_periodic_none_breaks)
{
	struct actor v[3] = { { .name = "a/1" }, { .name = "b/2" }, { .name = "c/3" } };
	struct actors_result ar = { .v = v, .n = 0, .upstream = -1 };
	struct analysis a = { 0 };
	struct diagnosis *d;

	analysis_opts_default(&a.opts);
	cr_assert_eq(diagnosis__compute(&a, &d), 0);
	cr_expect_eq(d->answer, DIAG_NO_ACTOR, "no actors result");
	cr_expect_eq(d->nrows, 0);
	cr_expect_eq(d->cause.kind, DIAG_CAUSE_NOT_ANALYSED);
	cr_expect_eq(d->patterns.kind, DIAG_PATTERNS_NOT_ANALYSED);
	diagnosis__free(d);
	a.actors = &ar;
	cr_assert_eq(diagnosis__compute(&a, &d), 0);
	cr_expect_eq(d->answer, DIAG_NO_ACTOR, "no actor");
	diagnosis__free(d);
	ar.n = 3;
	cr_assert_eq(diagnosis__compute(&a, &d), 0);
	cr_expect_eq(d->answer, DIAG_NONE_PERIODIC);
	cr_expect_eq(d->nactors, 3);
	cr_expect_eq(d->nperiodic, 0);
	cr_expect_eq(d->qcod_threshold, 0.10);
	cr_expect_eq(d->verdict, DIAG_VERDICT_NONE, "nothing to judge");
	diagnosis__free(d);
	v[0].st.periodic = v[2].st.periodic = true;
	v[0].st.period_ns = v[2].st.period_ns = 10 * MS;
	v[0].worst_lateness_ns = 500 * US;
	v[2].worst_lateness_ns = 900 * US;
	cr_assert_eq(diagnosis__compute(&a, &d), 0);
	cr_expect_eq(d->answer, DIAG_NONE_BREAKS);
	cr_expect_eq(d->verdict, DIAG_KEEPS_RHYTHM);
	cr_expect_eq(d->nperiodic, 2);
	cr_expect_eq(d->nrows, 0);
	cr_assert_eq(d->nrhythm, 2, "every periodic actor");
	cr_expect_eq(d->rhythm[0].actor, 2, "the latest first");
	cr_expect_eq(d->rhythm[0].worst_ns, 900 * US);
	cr_expect_float_eq(d->rhythm[0].share, 0.09, 1e-12);
	cr_expect_eq(d->rhythm[1].actor, 0);
	diagnosis__free(d);
}

/* The verdict: keeps_rhythm with jitter alone, breaks from the first major break. */
Test(diagnosis, the_verdict_follows_the_major_breaks)
{
	struct actor_break b[3] = {
		{ .start_ns = 0, .end_ns = 10200 * US, .lateness_ns = 200 * US },
		{ .start_ns = 100 * MS, .end_ns = 110900 * US, .lateness_ns = 900 * US },
		{ .start_ns = 200 * MS, .end_ns = 212 * MS, .lateness_ns = 2 * MS, .data_missing = true },
	};
	struct actor v[1] = { { .name = "src/1", .comm = "src", .breaks = b, .nbreaks = 3, .min_late_ns = MS,
				.worst_lateness_ns = 900 * US } };
	struct actors_result ar = { .v = v, .n = 1, .upstream = -1, .min_late = { .frac = 0.1 } };
	struct analysis a = { .actors = &ar };
	struct diagnosis *d;

	v[0].st.periodic = true;
	v[0].st.period_ns = 10 * MS;
	cr_assert_eq(diagnosis__compute(&a, &d), 0);
	cr_expect_eq(d->verdict, DIAG_KEEPS_RHYTHM, "jitter, and a major break over missing data");
	cr_assert_eq(d->nrhythm, 1);
	cr_expect_eq(d->rhythm[0].jitter, 2);
	cr_expect_eq(d->rhythm[0].major, 0, "the break over missing data is not trusted");
	cr_expect_eq(d->rhythm[0].worst_ns, 900 * US);
	diagnosis__free(d);
	/* the actors' stage names an upstream actor as soon as one has a major break */
	b[1].lateness_ns = MS;
	v[0].worst_lateness_ns = MS;
	v[0].breaking = true;
	ar.upstream = 0;
	cr_assert_eq(diagnosis__compute(&a, &d), 0);
	cr_expect_eq(d->verdict, DIAG_BREAKS);
	cr_expect_eq(d->breaks, 1);
	cr_expect_eq(d->jitter, 1);
	cr_expect_eq(d->worst_jitter_ns, 200 * US);
	cr_expect_eq(d->rhythm[0].major, 1);
	diagnosis__free(d);
}

/* ---- the text report's sentences, from the fields ---- */

Test(diagnosis_text, the_no_answer_sentences)
{
	struct actor v[3] = { { .name = "a/1" }, { .name = "b/2" }, { .name = "c/3" } };
	struct actor_break jitter[3] = {
		{ .lateness_ns = 150 * US }, { .lateness_ns = 191 * US }, { .lateness_ns = 5 * MS, .data_missing = true },
	};
	struct actors_result ar = { .v = v, .n = 0, .upstream = -1 };
	struct analysis a = { .actors = &ar };
	char *text;

	analysis_opts_default(&a.opts);
	text = summary_text(&a);
	cr_expect_str_eq(text, "\n== Diagnosis\nNo thread did enough to judge a period (see --actor to choose one).\n");
	free(text);
	ar.n = 3;
	a.opts.qcod_threshold = 0.125;
	text = summary_text(&a);
	cr_expect(strstr(text, "None of the 3 actors is periodic (QCoD below 12 %): choose one with --actor, "
			       "or allow more dispersion with --qcod.\n"), "%s", text);
	free(text);
	/* the rhythm kept: each periodic actor's worst lateness as a share of its period */
	v[1].st.periodic = true;
	v[1].st.period_ns = 10 * MS;
	ar.min_late.frac = 0.1;
	text = summary_text(&a);
	cr_expect(strstr(text, "\nThe pipeline keeps its rhythm: its periodic actor is never late by 10 % of its "
			       "period or more (2 other actors are not periodic).\nWorst lateness, as a share of the "
			       "period: b/2 no break.\n"), "%s", text);
	free(text);
	v[2].st.periodic = true;
	v[2].st.period_ns = 9187578;
	snprintf(v[2].comm, sizeof(v[2].comm), "src");
	v[2].worst_lateness_ns = 191 * US;
	v[2].breaks = jitter;
	v[2].nbreaks = 3;
	v[2].min_late_ns = 918757;
	text = summary_text(&a);
	cr_expect(strstr(text, "\nThe pipeline keeps its rhythm: none of its 2 periodic actors is late by 10 % of its "
			       "period or more (1 other actor is not periodic).\nWorst lateness, as a share of the period: src 2.1 % (191 us of 9.19 ms, "
			       "2 jitter), b/2 no break.\n"), "%s", text);
	free(text);
	/* a cut given as a duration, or none */
	ar.min_late = (struct actors_cut){ .ns = 2 * MS };
	text = summary_text(&a);
	cr_expect(strstr(text, "none of its 2 periodic actors is late by 2 ms or more (1 other"), "%s", text);
	free(text);
	ar.min_late = (struct actors_cut){ .frac = -1 };
	text = summary_text(&a);
	cr_expect(strstr(text, "none of its 2 periodic actors breaks its period (1 other actor is not periodic).\n"),
		  "%s", text);
	free(text);
	/* no diagnosis (a Gantt chart): no section */
	a.diagnosis = NULL;
	text = NULL;
	{
		size_t len = 0;
		struct report_style st = { 0 };
		FILE *f = open_memstream(&text, &len);

		report_summary(&a, f, &st);
		fclose(f);
	}
	cr_expect_str_eq(text, "");
	free(text);
}

Test(diagnosis_text, the_three_answers)
{
	struct fix f;
	char *text;

	fix_open(&f);
	for (size_t i = 0; i < 3; i++)
		hold(&f, i, HOLDUP_CPU_IDLE, HOLDUP_NO_CALL, 21500 * US + (int64_t)i * MS);
	f.p[0] = (struct pattern){ .len = 1, .events = ev_a, .count_pos = 7, .breaks = 8, .level = 1 };
	f.p[1] = (struct pattern){ .len = 2, .events = ev_b, .count_pos = 3, .count_neg = 2, .breaks = 3 };
	f.pr.v = f.p;
	f.pr.n = 2;
	f.pr.nneg = 319;
	f.a.patterns = &f.pr;
	text = summary_text(&f.a);
	cr_expect_str_eq(text, "\n== Diagnosis\n"
			 "1. src/1 is the first to break its 10 ms period: 8 breaks, the worst 8 ms late.\n"
			 "2. What delayed it: in 3 of its 5 worst breaks, it was runnable while its CPU ran nothing "
			 "(21.5 ms to 23.5 ms): CPU bandwidth throttling (a cgroup's CPU quota spent)?\n"
			 "3. What shows up when it breaks: \"timer wakes hog\" (in 7/8 worst breaks, 0/319 periods); "
			 "\"hog switched in -> write by hog\" (in 3/3 breaks, 2/319 periods).\n");
	free(text);
	/* a held call, a culprit of two names' worth, a release, no pattern */
	for (size_t i = 0; i < 3; i++)
		hold(&f, i, HOLDUP_IN_CALL, 75, 13 * MS);
	f.pr.n = 0;
	text = summary_text(&f.a);
	cr_expect(strstr(text, "2. What delayed it: in 3 of its 5 worst breaks, it was blocked in fdatasync() (13 ms).\n"
			       "3. No pattern of activity sets its breaks apart from the periods that hold "
			       "(see the patterns section).\n"), "%s", text);
	free(text);
	for (size_t i = 0; i < NB; i++)
		hold(&f, i, HOLDUP_NONE, 0, 0);
	blame_thread(&f, 0, HOG_A, 5 * MS);
	blame_thread(&f, 1, HOG_B, 4 * MS);
	f.pr.status = "no break with complete data";
	text = summary_text(&f.a);
	cr_expect(strstr(text, "2. What delayed it: in 2 of its 5 worst breaks, it waited for the CPU behind hog "
			       "(2 threads of that name; 4 ms to 5 ms more than usual).\n"
			       "3. No pattern of activity sets its breaks apart from the periods that hold.\n"), "%s", text);
	free(text);
	/* Skipped (patterns_cannot_pay()): it says so, and claims no search. */
	f.pr.status = patterns_cannot_pay(40000, 5000);
	f.pr.skipped = true;
	text = summary_text(&f.a);
	cr_expect(strstr(text, "3. Its breaks were not searched for patterns: its period is too short for a media "
			       "period (see the patterns section).\n"), "%s", text);
	cr_expect_null(strstr(text, "No pattern of activity"), "%s", text);
	free(text);
	f.pr.skipped = false;
	blame_thread(&f, 0, HOG_A, 0);
	blame_thread(&f, 1, HOG_B, 0);
	f.cb[0].release_excess_ns = 474 * US;
	f.cb[0].release = (struct crit_share){ .thread = CRIT_NONE, .cat = CRIT_CAT_REL_HARDIRQ, .sub = QT_IRQ_TIMER };
	text = summary_text(&f.a);
	cr_expect(strstr(text, "2. What delayed it: its worst late invocation was released 474 us later than usual "
			       "(timer).\n"), "%s", text);
	free(text);
	fix_close(&f);
}
