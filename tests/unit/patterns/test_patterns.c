// SPDX-License-Identifier: MIT
/*
 * patterns: the emerging-patterns stage on synthetic schedules with a
 * planted disturbance (synth_sched.h), its bounds and status cases, and its
 * renderings. The whole path against an independent brute-force
 * enumeration is test_patterns_brute.c.
 */
#include <errno.h>
#include <stdint.h>

#include "patterns/miner.h"
#include "patterns/patterns.h"
#include "synth_sched.h"
#include "testutil.h"

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
 * The stage mines the major breaks (late by the actors' cut, 10 % of the
 * period by default, or more): a break of jitter (late by 2 % here) is
 * left out of both sides and counted. The cut is the actor's (one notion
 * for the whole analysis): a duration cut reads as one.
 */
Test(patterns, jitter_left_out)
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
	a.min_late_ns = (int64_t)P / 10;
	as_actor(&a, &sc);
	ar.v = &a;
	ar.n = 1;
	ar.upstream = 0;
	ar.min_late.frac = 0.1;
	patterns_opts_default(&o);
	cr_assert_eq(patterns__analyse(sc.tl, &ar, &o, &r), 0);
	cr_assert_eq(r->windows_pos, 5);
	cr_assert_eq(r->minor_breaks, 1);
	cr_assert_eq(r->min_lateness_ns, (int64_t)P / 10);
	cr_assert_float_eq(r->min_lateness, 0.1, 1e-12);
	cr_assert_not(r->min_lateness_fixed);
	cr_assert_eq(r->npos, 4);
	cr_assert_eq(r->nneg, 26);
	cr_assert_str_eq(r->v[0].events[0], "irq 24 xhci_hcd");
	cr_assert_eq(r->v[0].count_pos, 4);
	s = sched_render(r, false, 0);
	cr_assert_not_null(strstr(s, "\n4 breaks (late by 10 % of the period or more) against 26 kept periods; "
				     "left out: 1 break of jitter\n"), "%s", s);
	free(s);
	patterns__free(r);

	/* A cut of 2.5 periods (--min-late as a duration): the breaks late by 2 periods are jitter too. */
	a.min_late_ns = 5 * (int64_t)P / 2;
	ar.min_late = (struct actors_cut){ .ns = a.min_late_ns };
	b[4].lateness_ns = 3 * (int64_t)P;
	cr_assert_eq(patterns__analyse(sc.tl, &ar, &o, &r), 0);
	cr_assert_eq(r->minor_breaks, 4);
	cr_assert_eq(r->npos, 1);
	cr_assert(r->min_lateness_fixed);
	cr_assert_float_eq(r->min_lateness, 2.5, 1e-12);
	s = sched_render(r, false, 0);
	cr_assert_not_null(strstr(s, "\n1 breaks (late by 250 us or more) against 26 kept periods; "
				     "left out: 4 breaks of jitter\n"), "%s", s);
	free(s);
	patterns__free(r);

	/* No cut (--min-late 0): every break is mined. */
	a.min_late_ns = INT64_MIN;
	ar.min_late = (struct actors_cut){ .frac = -1 };
	cr_assert_eq(patterns__analyse(sc.tl, &ar, &o, &r), 0);
	cr_assert_eq(r->minor_breaks, 0);
	cr_assert_eq(r->npos, 5);
	cr_assert_eq(r->min_lateness_ns, 0);
	patterns__free(r);

	/* Every break jitter. */
	a.min_late_ns = (int64_t)P / 10;
	ar.min_late = (struct actors_cut){ .frac = 0.1 };
	for (int i = 0; i < 5; i++)
		b[i].lateness_ns = 1;
	cr_assert_eq(patterns__analyse(sc.tl, &ar, &o, &r), 0);
	cr_assert_eq(r->minor_breaks, 5);
	cr_assert_eq(r->npos, 0);
	cr_assert_str_eq(r->status, "every break is jitter (late by less than --min-late)");
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
	s = sched_render(r, false, 0);
	cr_assert_not_null(strstr(s, "\nall breaks: first patterns at >= 50 % of the breaks, <= 0 % of the periods\n"
				     "the 6 worst, late by more than 30 us (Otsu): first patterns at >= 100 % of "
				     "the breaks, <= 0 % of the periods\n"), "%s", s);
	cr_assert_not_null(strstr(s, "  3. usb-storage switched in  (in 6/6 worst breaks, 0/29 periods; at 100 % / 0 %)\n"),
			   "%s", s);
	cr_assert_not_null(strstr(s, "  5. cc1 switched in  (in 6/12 breaks, 0/29 periods; at 50 % / 0 %)\n"), "%s", s);
	free(s);
	s = sched_render(r, true, 0);
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
	s = sched_render(r, false, 0);
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
	s = sched_render(r, true, 0);
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

	s = sched_render(NULL, true, 0);
	cr_assert_not_null(strstr(s, "\"patterns\": []"), "%s", s);
	cr_assert_not_null(strstr(s, "\"patterns_search\": null"), "%s", s);
	free(s);
	cr_assert_eq(patterns__mine_windows(sc.tl, NULL, 0, TL_NONE, NULL, &r), 0);
	s = sched_render(r, false, 0);
	cr_assert_str_eq(s, "\n== What happens when the period breaks\n"
			    "the period never breaks: no emerging patterns to look for\n");
	free(s);
	patterns__free(r);
	sched_free(&sc);
}
