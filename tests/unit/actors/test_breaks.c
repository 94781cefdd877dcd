// SPDX-License-Identifier: MIT
/*
 * The cut between major breaks and jitter (src/actors/actor.h, judged in
 * src/actors/breaks.c) on hand-made schedules through timeline__build()
 * and actors__analyse(): which breaks are major, the counts, the upstream
 * choice, and the verdict the Diagnosis draws from them; then random
 * lateness against a count of every break.
 *
 * The schedule: src (CPU 0) released by its timer every 10 ms for 1 ms,
 * waking sink (CPU 1), which runs 750 us; both as precise as a timer
 * makes them (IQR 0: every late start is a break), late where asked.
 */
#include <math.h>

#include "testutil.h"
#include "actors/actors.h"
#include "analysis/analysis.h"
#include "analysis/diagnosis.h"
#include "synth_trace.h"
#include "timeline/timeline.h"

#define MS 1000000LL
#define US 1000LL
#define T0 (1000 * MS)
#define P (10 * MS)
#define NINV 200

struct late {
	size_t at;		/* invocation index (>= 2: after the rhythm is first kept) */
	int64_t by_ns;		/* released this much after its time; the next one is on time */
};

struct world {
	struct trace *t;
	struct timeline *tl;
	struct actors_result *r;
};

/* The recording of src -> sink with the late releases of late[0..n). */
static void world_open(struct world *w, const struct late *late, size_t n)
{
	struct synth *sy = synth_new(T0, T0 + (NINV + 2) * P, 2);

	memset(w, 0, sizeof(*w));
	synth_thread(sy, 101, 100, "src");
	synth_thread(sy, 102, 100, "sink");
	synth_targets(sy, "100");
	for (size_t k = 0; k < NINV; k++) {
		uint64_t t = T0 + P + k * P;

		for (size_t i = 0; i < n; i++)
			t += late[i].at == k ? late[i].by_ns : 0;
		synth_timer_wakeup(sy, t - 2 * US, 101, 100, 0);
		synth_switch(sy, t, 0, 0, 0, SYN_PREEMPT, 101, 100);
		synth_wakeup(sy, t + MS - 5 * US, 101, 100, 102, 100, 1);
		synth_switch(sy, t + MS, 0, 101, 100, SYN_SLEEP, 0, 0);
		synth_switch(sy, t + MS + 50 * US, 1, 0, 0, SYN_PREEMPT, 102, 100);
		synth_switch(sy, t + MS + 800 * US, 1, 102, 100, SYN_SLEEP, 0, 0);
	}
	w->t = synth_finish(sy);
	cr_assert_eq(timeline__build(w->t, NULL, &w->tl), 0);
}

static void world_analyse(struct world *w, struct actors_cut cut)
{
	struct actors_opts o = { .min_late = cut };

	actors__free(w->r);
	w->r = NULL;
	cr_assert_eq(actors__analyse(w->tl, &o, &w->r), 0);
	cr_assert_eq(w->r->n, 2);
}

static void world_close(struct world *w)
{
	actors__free(w->r);
	timeline__free(w->tl);
	trace__free(w->t);
}

static const struct actor *actor_named(const struct world *w, const char *comm)
{
	for (size_t i = 0; i < w->r->n; i++)
		if (!strcmp(w->r->v[i].comm, comm))
			return &w->r->v[i];
	cr_assert_fail("no actor %s", comm);
	return NULL;
}

/* The verdict of the Diagnosis over the actors alone. */
static enum diag_verdict verdict_of(const struct world *w)
{
	struct analysis a = { .trace = w->t, .tl = w->tl, .actors = w->r };
	struct diagnosis *d;
	enum diag_verdict v;

	analysis_opts_default(&a.opts);
	cr_assert_eq(diagnosis__compute(&a, &d), 0);
	v = d->verdict;
	cr_assert_eq(d->answer == DIAG_UPSTREAM, v == DIAG_BREAKS);
	diagnosis__free(d);
	return v;
}

/* Six late starts of 100 to 600 us: a tenth of the 10 ms period is 1 ms. */
static const struct late jitter6[] = {
	{ 20, 100 * US }, { 40, 200 * US }, { 60, 300 * US }, { 80, 400 * US }, { 100, 500 * US }, { 120, 600 * US },
};

Test(breaks, jitter_alone_keeps_the_rhythm)
{
	struct world w;
	const struct actor *src, *sink;

	world_open(&w, jitter6, 6);
	world_analyse(&w, (struct actors_cut){ 0 });
	cr_expect_float_eq(w.r->min_late.frac, ACTORS_DEFAULT_MIN_LATE, 0, "zeros are the default");
	src = actor_named(&w, "src");
	sink = actor_named(&w, "sink");
	cr_assert(src->st.periodic);
	cr_assert_eq(src->st.period_ns, P);
	cr_assert_eq(src->min_late_ns, MS);
	cr_assert_eq(src->nbreaks, 6, "every late start is a break by the fence (IQR 0)");
	for (size_t i = 0; i < 6; i++) {
		cr_expect_eq(src->breaks[i].lateness_ns, jitter6[i].by_ns);
		cr_expect_not(actor_break_major(src, &src->breaks[i]));
	}
	cr_expect_eq(src->njitter, 6);
	cr_expect_eq(src->nmajor, 0);
	cr_expect_eq(src->worst_jitter_ns, 600 * US);
	cr_expect_eq(src->worst_lateness_ns, 600 * US);
	cr_expect_not(src->breaking, "jitter is no break");
	cr_expect_eq(sink->njitter, 6, "sink follows src's jitter");
	cr_expect_not(sink->breaking);
	cr_expect_eq(w.r->upstream, -1, "no actor breaks: no upstream actor");
	cr_expect_eq(verdict_of(&w), DIAG_KEEPS_RHYTHM);
	world_close(&w);
}

Test(breaks, a_major_break_is_the_answer_and_the_jitter_stays_apart)
{
	struct late l[7];
	struct world w;
	const struct actor *src, *sink;

	memcpy(l, jitter6, sizeof(jitter6));
	l[6] = (struct late){ 150, 3 * MS };
	world_open(&w, l, 7);
	world_analyse(&w, (struct actors_cut){ 0 });
	src = actor_named(&w, "src");
	sink = actor_named(&w, "sink");
	cr_assert_eq(src->nbreaks, 7);
	cr_expect_eq(src->nmajor, 1);
	cr_expect_eq(src->njitter, 6);
	cr_expect(actor_break_major(src, &src->breaks[6]));
	cr_expect_eq(src->breaks[6].late, 150);
	cr_expect_eq(src->worst_lateness_ns, 3 * MS);
	cr_expect_eq(src->worst_jitter_ns, 600 * US);
	cr_expect(src->breaking);
	cr_expect(sink->breaking);
	cr_expect(sink->fed, "src wakes sink");
	cr_expect_str_eq(w.r->v[w.r->upstream].comm, "src");
	cr_expect_eq(verdict_of(&w), DIAG_BREAKS);
	world_close(&w);
}

/*
 * --min-late: a share of the period or a duration; a break exactly at the
 * cut is major; no cut (every break major, SATM's own definition) makes
 * the jitter breaks again.
 */
Test(breaks, the_cut_is_an_option)
{
	static const struct {
		struct actors_cut cut;
		int64_t min_late_ns;
		size_t major;
	} v[] = {
		{ { .frac = 0.05 }, 500 * US, 2 },		/* 500 us is at the cut */
		{ { .frac = 0.0501 }, 501 * US, 1 },
		{ { .ns = 300 * US }, 300 * US, 4 },
		{ { .ns = 2 * MS }, 2 * MS, 0 },
		{ { .frac = 1 }, P, 0 },
		{ { .frac = -1 }, INT64_MIN, 6 },
	};
	struct world w;

	world_open(&w, jitter6, 6);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const struct actor *src;

		world_analyse(&w, v[i].cut);
		src = actor_named(&w, "src");
		cr_expect_eq(src->min_late_ns, v[i].min_late_ns, "cut %zu", i);
		cr_expect_eq(src->nmajor, v[i].major, "cut %zu", i);
		cr_expect_eq(src->njitter, 6 - v[i].major, "cut %zu", i);
		cr_expect_eq(src->breaking, v[i].major > 0, "cut %zu", i);
		cr_expect_eq(w.r->upstream >= 0, v[i].major > 0, "cut %zu", i);
		cr_expect_eq(verdict_of(&w), v[i].major ? DIAG_BREAKS : DIAG_KEEPS_RHYTHM, "cut %zu", i);
	}
	world_close(&w);
}

/*
 * Random late releases and cuts against a count of every break: each
 * break is major exactly when late by the cut or more, the counts and the
 * worst jitter are those of the breaks, and an actor breaks exactly when
 * one of them is major.
 */
Test(breaks, agrees_with_a_count_of_every_break)
{
	uint64_t seed = 12345;

	for (int round = 0; round < 30; round++) {
		struct late l[12];
		size_t n = 1 + (size_t)round % 12;
		struct world w;
		struct actors_cut cut;

		for (size_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			l[i] = (struct late){ 10 + 15 * i, (int64_t)(seed >> 40) % (3 * MS) + 10 * US };
		}
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		cut = round % 3 ? (struct actors_cut){ .frac = (double)(seed >> 44) / (1 << 20) * 0.3 }
				: (struct actors_cut){ .ns = (int64_t)(seed >> 40) % (3 * MS) + 1 };
		world_open(&w, l, n);
		world_analyse(&w, cut);
		for (size_t k = 0; k < w.r->n; k++) {
			const struct actor *a = &w.r->v[k];
			int64_t want_cut = cut.ns > 0 ? cut.ns : (int64_t)(cut.frac * a->st.period_ns);
			size_t major = 0, jitter = 0;
			int64_t worst = 0;

			cr_assert_eq(a->min_late_ns, want_cut, "round %d", round);
			for (size_t b = 0; b < a->nbreaks; b++) {
				const struct actor_break *x = &a->breaks[b];

				cr_assert_eq(actor_break_major(a, x), x->lateness_ns >= want_cut);
				if (x->data_missing)
					continue;
				if (x->lateness_ns >= want_cut) {
					major++;
				} else {
					jitter++;
					worst = x->lateness_ns > worst ? x->lateness_ns : worst;
				}
			}
			cr_assert_eq(a->nmajor, major, "round %d", round);
			cr_assert_eq(a->njitter, jitter, "round %d", round);
			cr_assert_eq(a->worst_jitter_ns, worst, "round %d", round);
			cr_assert_eq(a->breaking, major > 0, "round %d", round);
		}
		cr_assert_eq(w.r->upstream >= 0, w.r->v[0].breaking || w.r->v[1].breaking);
		world_close(&w);
	}
}
