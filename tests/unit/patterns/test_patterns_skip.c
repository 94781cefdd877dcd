// SPDX-License-Identifier: MIT
/*
 * patterns: when a search cannot pay (patterns_cannot_pay(), patterns.h).
 * The rule on its edges, then the stage on an actor made as the actors'
 * stage would: a storm-like one (a 40 us period broken 1,250 times) is not
 * searched and says why in text and JSON, unless forced; media-like ones
 * (a 10 ms period broken as often, or a 40 us loop broken a few times) are
 * searched as before.
 */
#include <errno.h>
#include <stdint.h>

#include "patterns/patterns.h"
#include "synth_sched.h"
#include "testutil.h"

#define NINV 2500

Test(patterns_skip, rule_edges)
{
	/* The storms measured: 47 us, 1,841 breaks; 48 us, 3,356. */
	cr_assert_not_null(patterns_cannot_pay(47059, 1841));
	cr_assert_not_null(patterns_cannot_pay(48022, 3356));
	cr_assert_not_null(patterns_cannot_pay(PATTERNS_MEDIA_PERIOD_NS - 1, PATTERNS_STORM_BREAKS));
	/* A media period, however many breaks: AES67's 125 us packets, a 10 ms source. */
	cr_assert_null(patterns_cannot_pay(PATTERNS_MEDIA_PERIOD_NS, 100000));
	cr_assert_null(patterns_cannot_pay(125000, 5000));
	cr_assert_null(patterns_cannot_pay(10e6, 5000));
	/* A fast loop with fewer breaks (a hang to explain), or none. */
	cr_assert_null(patterns_cannot_pay(47059, PATTERNS_STORM_BREAKS - 1));
	cr_assert_null(patterns_cannot_pay(47059, 0));
	/* No period: never judged. */
	cr_assert_null(patterns_cannot_pay(0, 5000));
	cr_assert_null(patterns_cannot_pay(-1, 5000));
	/* The status names the constants it applies. */
	cr_assert_not_null(strstr(patterns_cannot_pay(1, PATTERNS_STORM_BREAKS), "under 100 us broken 1000 times"));
	cr_assert_eq(PATTERNS_MEDIA_PERIOD_NS, 100000);
	cr_assert_eq(PATTERNS_STORM_BREAKS, 1000);
}

/*
 * NINV invocations period_ns apart from the timeline's start, every other
 * interval a break late by a fifth of the period (major at the default cut
 * of a tenth), or only the first nbrk of them.
 */
static void storm_actor(struct actor *a, struct actor_invocation *inv, struct actor_break *b,
			const struct sched *sc, int64_t period_ns, size_t nbrk)
{
	memset(a, 0, sizeof(*a));
	a->kind = ACTOR_THREAD;
	a->thread = sc->src;
	snprintf(a->name, sizeof(a->name), "src/%d", SRC);
	for (size_t k = 0; k < NINV; k++)
		inv[k] = (struct actor_invocation){ .start_ns = (int64_t)sc->tl->start + (int64_t)k * period_ns,
						    .end_ns = (int64_t)sc->tl->start + (int64_t)k * period_ns + 1 };
	a->inv = inv;
	a->ninv = NINV;
	a->nwindows = NINV + 1;
	for (size_t k = 1; k + 1 < NINV && a->nbreaks < nbrk; k += 2)
		b[a->nbreaks++] = (struct actor_break){ .before = k, .late = k + 1, .lateness_ns = period_ns / 5 };
	a->breaks = b;
	a->st.period_ns = (double)period_ns;
	a->st.periodic = true;
	a->min_late_ns = period_ns / 10;
}

/*
 * What the stage reads: the schedule (its events are those of a 100 us
 * actor; only the windows' counts matter here), one actor, the defaults
 * with a 2 s budget.
 */
struct fx {
	struct sched sc;
	struct actor a;
	struct actors_result ar;
	struct patterns_opts o;
	struct actor_invocation inv[NINV];
	struct actor_break b[NINV];
};

static struct fx *fx_open(void)
{
	static bool brk[29], plant[29];
	struct sched_cfg c = { .nwin = 30, .brk = brk, .plant = plant, .noise_min = 1, .noise_max = 3, .seed = 3 };
	struct fx *x = calloc(1, sizeof(*x));

	cr_assert(x);
	brk[5] = brk[12] = true;
	plant[5] = plant[12] = true;
	sched_build(&x->sc, &c);
	x->ar = (struct actors_result){ .v = &x->a, .n = 1, .upstream = 0, .min_late = { .frac = 0.1 } };
	patterns_opts_default(&x->o);
	x->o.time_budget_ns = 2000000000;
	return x;
}

static void fx_close(struct fx *x)
{
	sched_free(&x->sc);
	free(x);
}

/* The stage on x: 0 and the result, which the caller frees. */
static struct patterns_result *fx_analyse(struct fx *x)
{
	struct patterns_result *r;

	cr_assert_eq(patterns__analyse(x->sc.tl, &x->ar, &x->o, &r), 0);
	return r;
}

Test(patterns_skip, storm_not_searched_unless_forced)
{
	struct fx *x = fx_open();
	struct patterns_result *r;
	char *s;

	storm_actor(&x->a, x->inv, x->b, &x->sc, 40000, SIZE_MAX);
	cr_assert_eq(x->a.nbreaks, NINV / 2 - 1);
	r = fx_analyse(x);
	cr_assert(r->skipped);
	cr_assert_str_eq(r->status, patterns_cannot_pay(40000, x->a.nbreaks));
	cr_assert_eq(strncmp(r->status, "not searched:", 13), 0);
	cr_assert_eq(r->actor, 0);
	cr_assert_eq(r->windows_pos, x->a.nbreaks);
	cr_assert_eq(r->windows_neg, NINV + 1 - x->a.nbreaks);
	cr_assert_eq(r->npos, 0);
	cr_assert_eq(r->nlevels, 0);
	cr_assert_eq(r->runs, 0);
	cr_assert_eq(r->n, 0);
	cr_assert_float_eq(r->period_ns, 40000, 1e-9);
	s = sched_render(r, false, 0);
	cr_assert_not_null(strstr(s, "\nperiod 40 us, 1249 breaks late by 4 us or more: not searched: "), "%s", s);
	cr_assert_not_null(strstr(s, "--search-patterns"), "%s", s);
	free(s);
	s = sched_render(r, true, 0);
	cr_assert_not_null(strstr(s, "\"status\": \"not searched: "), "%s", s);
	cr_assert_not_null(strstr(s, "\"levels\": []"), "%s", s);
	free(s);
	patterns__free(r);

	/* Forced (report --search-patterns): the search runs over the same breaks. */
	x->o.search_always = true;
	r = fx_analyse(x);
	cr_assert_not(r->skipped);
	cr_assert(!r->status || strncmp(r->status, "not searched:", 13), "%s", r->status);
	cr_assert_eq(r->windows_pos, x->a.nbreaks);
	cr_assert_geq(r->nlevels, 1);
	cr_assert_eq(r->npos + r->excluded_pos + r->unsampled_pos, x->a.nbreaks);
	patterns__free(r);
	fx_close(x);
}

Test(patterns_skip, media_like_searched)
{
	struct fx *x = fx_open();
	struct patterns_result *r;

	/* A 10 ms period broken as often as the storm: searched. */
	storm_actor(&x->a, x->inv, x->b, &x->sc, 10000000, SIZE_MAX);
	r = fx_analyse(x);
	cr_assert_not(r->skipped);
	cr_assert_geq(r->nlevels, 1);
	cr_assert_eq(r->windows_pos, NINV / 2 - 1);
	patterns__free(r);
	/* A 40 us loop broken 20 times: searched. */
	storm_actor(&x->a, x->inv, x->b, &x->sc, 40000, 20);
	r = fx_analyse(x);
	cr_assert_not(r->skipped);
	cr_assert_geq(r->nlevels, 1);
	cr_assert_eq(r->windows_pos, 20);
	patterns__free(r);
	fx_close(x);
}

/* The schedule's own actor (100 us, 2 breaks with a planted cause, no cut): found as before. */
Test(patterns_skip, planted_cause_still_found)
{
	struct fx *x = fx_open();
	struct patterns_result *r;

	as_actor(&x->a, &x->sc);
	x->a.st.period_ns = P;
	x->a.min_late_ns = INT64_MIN;
	x->ar.min_late = (struct actors_cut){ .frac = -1 };
	r = fx_analyse(x);
	cr_assert_not(r->skipped);
	cr_assert_null(r->status, "%s", r->status);
	cr_assert_eq(r->npos, 2);
	cr_assert_not_null(find(r, "usb-storage switched in"));
	patterns__free(r);
	fx_close(x);
}
