// SPDX-License-Identifier: MIT
/*
 * What a periodic actor's breaks are beyond SATM's start breaks: the
 * overruns that explain them and the completion breaks, and which breaks
 * lie over missing data and are not trusted (src/actors/actor.h,
 * "Overruns and completion breaks", "Period and breaks").
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "stats/quartiles.h"

/* First gap that can overlap an interval starting at s (gaps sorted by start). */
static size_t gap_lower(const struct ctx *c, uint64_t s)
{
	const struct timeline *tl = c->tl;
	uint64_t from = s > c->gap_maxlen ? s - c->gap_maxlen : 0;
	size_t lo = 0, hi = tl->ngaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl->gaps[mid].start < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Could the actor's thread have run or called unseen in [s, e]? */
static bool interval_missing(const struct ctx *c, uint32_t tid, uint64_t s, uint64_t e)
{
	const struct timeline *tl = c->tl;

	for (size_t i = gap_lower(c, s); i < tl->ngaps && tl->gaps[i].start <= e; i++) {
		const struct tl_gap *g = &tl->gaps[i];

		if (g->end <= s)
			continue;
		/* An unreported switch hides only the thread it left running (timeline.h). */
		if (g->kind != TL_GAP_BROKEN || g->hidden == TL_NONE || g->hidden == tid)
			return true;
	}
	return false;
}

/* The longest window of missing data bounds what a gap can hide. */
void breaks_measure_gaps(struct ctx *c)
{
	const struct timeline *tl = c->tl;

	for (size_t i = 0; i < tl->ngaps; i++) {
		uint64_t len = tl->gaps[i].end - tl->gaps[i].start;

		if (len > c->gap_maxlen)
			c->gap_maxlen = len;
	}
}

/*
 * Each invocation's overrun into over[] (0: none; actor.h), from its held
 * time: its span less its runs. scratch: ninv int64. Returns how many
 * overran, or -errno.
 */
static long overruns(const struct ctx *c, const struct actor *a, int64_t *over, int64_t *scratch)
{
	const struct tl_run *runs = c->tl->runs;
	int64_t floor_ns = (int64_t)(a->st.period_ns / ACTORS_OVERRUN_DIV), med;
	struct quartiles q;
	long n = 0;
	int err;

	for (size_t k = 0; k < a->ninv; k++) {
		const struct actor_invocation *iv = &a->inv[k];
		int64_t held = iv->end_ns - iv->start_ns;

		for (size_t j = iv->first; j <= iv->last; j++)
			held -= (int64_t)(runs[j].end - runs[j].start);
		over[k] = held > 0 ? held : 0;
	}
	err = quartiles_compute(over, a->ninv, scratch, &q);
	if (err)
		return err;
	med = (q.median_lo + q.median_hi) / 2;
	for (size_t k = 0; k < a->ninv; k++) {
		bool overran = quartiles_is_outlier(over[k], q.q1, q.q3) && over[k] - med >= floor_ns;

		over[k] = overran ? over[k] - med : 0;
		n += overran;
	}
	return n;
}

/*
 * The overruns of a periodic thread actor into its start breaks (their
 * target and overrun), and its completion breaks among them, in window
 * order (actor.h). t and spare: a->ninv int64 of scratch each.
 */
int breaks_add_overruns(const struct ctx *c, struct actor *a, int64_t *t, int64_t *spare)
{
	struct actor_break *v, *sb = a->breaks;
	size_t nsb = a->nbreaks, n = 0, bi = 0;
	long nover;

	if (a->ninv < 3)
		return 0;
	nover = overruns(c, a, t, spare);
	if (nover <= 0)
		return (int)nover;
	v = malloc((nsb + (size_t)nover) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < a->ninv; k++) {
		bool start_here = bi < nsb && sb[bi].before == k;
		/* the break before k, if any, was taken at k - 1 */
		bool started_late = bi > 0 && sb[bi - 1].late == k;

		if (start_here) {
			struct actor_break x = sb[bi++];

			/*
			 * Its path into the overrun that explains it, which may
			 * also be the late invocation of the break before (an
			 * invocation that started late and overran).
			 */
			if (k > 0 && t[k] > 0 && 2 * t[k] >= x.lateness_ns) {
				x.into_before = true;
				x.overrun_ns = t[k];
			} else {
				x.overrun_ns = t[x.late];
			}
			v[n++] = x;
		} else if (k > 0 && k + 1 < a->ninv && t[k] > 0 && !started_late) {
			/* (not the last: what it holds runs to the thread's or the recording's end) */
			const struct actor_invocation *iv = &a->inv[k];

			v[n++] = (struct actor_break){
				.before = k - 1, .late = k, .start_ns = iv->start_ns, .end_ns = iv->end_ns,
				.interval_ns = iv->end_ns - iv->start_ns, .lateness_ns = t[k],
				.kind = BREAK_COMPLETION, .overrun_ns = t[k],
			};
		}
	}
	free(a->breaks);
	a->breaks = v;
	a->nbreaks = n;
	return 0;
}

/*
 * The holdup is found once, here, and kept in the break: every report
 * reads that one answer. So is the cut between major breaks and jitter.
 */
void breaks_judge(const struct ctx *c, struct actor *a, const struct tl_thread *th)
{
	a->min_late_ns = actors_cut_ns(c->r->min_late, a->st.period_ns);
	for (size_t b = 0; b < a->nbreaks; b++) {
		struct actor_break *x = &a->breaks[b];

		x->data_missing = interval_missing(c, th->tid, x->start_ns, x->end_ns);
		holdup__explains(c->tl, a, x, &x->held);
		if (x->data_missing) {
			a->nbreaks_missing++;
			continue;
		}
		if (x->lateness_ns > a->worst_lateness_ns)
			a->worst_lateness_ns = x->lateness_ns;
		if (actor_break_major(a, x)) {
			a->nmajor++;
		} else {
			a->njitter++;
			if (x->lateness_ns > a->worst_jitter_ns)
				a->worst_jitter_ns = x->lateness_ns;
		}
	}
	a->breaking = a->nmajor > 0;
}
