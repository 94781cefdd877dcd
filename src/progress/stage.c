// SPDX-License-Identifier: MIT
/*
 * The progress graph over a recording: the pair (pair.c), its input from
 * the timeline, progress_compute(), and each departure from the steady
 * cycle placed against the period breaks of the pair's actors.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "internal.h"
#include "timeline/timeline.h"

struct thread_in {
	struct pg_run *runs;
	struct pg_wake *wakes;
	struct pg_call *calls;
};

static uint8_t end_of(uint8_t end_state)
{
	switch (end_state) {
	case QT_END_PREEMPTED:
		return PG_END_PREEMPTED;
	case QT_END_SLEEP:
	case QT_END_BLOCKED:
	case QT_END_OTHER:
		return PG_END_WAIT;
	case QT_END_EXITED:
		return PG_END_EXIT;
	case QT_END_TRUNCATED:
		return PG_END_RUNNING;
	default:
		return PG_END_UNKNOWN;
	}
}

/* Thread x of the pair (partner p) as the computation's input; the arrays are in ti. */
static int thread_input(const struct timeline *tl, uint32_t x, uint32_t p, struct thread_in *ti,
			struct pg_thread_in *in)
{
	const struct tl_thread *th = &tl->threads[x];
	const struct tt_thread *tt = threadtab__get(tl->tt, x);
	int64_t prev = 0;

	ti->runs = malloc((th->nrun ? th->nrun : 1) * sizeof(*ti->runs));
	ti->wakes = malloc((th->nwr ? th->nwr : 1) * sizeof(*ti->wakes));
	ti->calls = malloc((th->nsc ? th->nsc : 1) * sizeof(*ti->calls));
	if (!ti->runs || !ti->wakes || !ti->calls)
		return -ENOMEM;
	in->origin = tt && tt->birth > tl->start ? (int64_t)tt->birth : (int64_t)tl->start;
	in->nruns = 0;
	for (size_t i = th->run0; i < th->run0 + th->nrun; i++) {
		const struct tl_run *r = &tl->runs[i];
		int64_t s = (int64_t)r->start, e = (int64_t)r->end;

		/* a run whose switch-in went unreported may reach back over the one before */
		if (s < prev)
			s = prev;
		if (e < s)
			e = s;
		if (!in->nruns && s < in->origin)
			in->origin = s;
		ti->runs[in->nruns++] = (struct pg_run){ .s = s, .e = e, .end = end_of(r->end_state) };
		prev = e;
	}
	in->runs = ti->runs;
	in->nwakes = 0;
	for (size_t i = th->wr0; i < th->wr0 + th->nwr; i++) {
		const struct tl_wakeup *w = &tl->wk[tl->wk_by_wakee[i]];

		ti->wakes[in->nwakes++] = (struct pg_wake){ .t = (int64_t)w->ts,
							    .by_partner = w->waker == p && !w->is_new };
	}
	in->wakes = ti->wakes;
	for (size_t i = 0; i < th->nsc; i++) {
		const struct tl_syscall *c = &tl->sc[th->sc0 + i];

		ti->calls[i] = (struct pg_call){ .s = (int64_t)c->start, .e = (int64_t)c->end, .nr = (int32_t)c->nr,
						 .arg0 = c->arg0 };
	}
	in->calls = ti->calls;
	in->ncalls = th->nsc;
	return 0;
}

/*
 * Each departure against the breaks of the actors of the pair's threads:
 * the break whose window [start_ns, end_ns] overlaps it the most. The
 * departures come in time order, and so do an actor's breaks: the breaks
 * that ended before a departure starts are skipped for the later ones too
 * (a storm has tens of thousands of both). 0 or -ENOMEM.
 */
static int place_departures(const struct actors_result *ar, const uint32_t th[2], struct progress *pg)
{
	size_t *from = ar ? calloc(ar->n + 1, sizeof(*from)) : NULL;

	if (ar && !from)
		return -ENOMEM;
	for (size_t d = 0; ar && d < pg->ndep; d++) {
		struct pg_departure *dp = &pg->dep[d];
		int64_t best = -1;

		for (size_t a = 0; a < ar->n; a++) {
			const struct actor *ac = &ar->v[a];

			if (ac->thread != th[0] && ac->thread != th[1])
				continue;
			while (from[a] < ac->nbreaks && ac->breaks[from[a]].end_ns < dp->start)
				from[a]++;
			for (size_t b = from[a]; b < ac->nbreaks; b++) {
				const struct actor_break *br = &ac->breaks[b];
				int64_t lo = br->start_ns > dp->start ? br->start_ns : dp->start;
				int64_t hi = br->end_ns < dp->end ? br->end_ns : dp->end;

				if (br->start_ns > dp->end)
					break;
				if (hi >= lo && hi - lo > best) {
					best = hi - lo;
					dp->actor = (long)a;
					dp->brk = b;
				}
			}
		}
	}
	free(from);
	return 0;
}

int progress__analyse(const struct timeline *tl, const struct actors_result *ar, const struct progress_opts *o,
		      struct progress_result **out)
{
	struct progress_result *r = calloc(1, sizeof(*r));
	struct thread_in ti[2] = { 0 };
	struct pg_input in = { .t_end = (int64_t)tl->end };
	int err = 0;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	if (o && o->pair) {
		r->how = PG_PAIR_NAMED;
		err = pair_named(tl, o->pair, r->thread);
	} else {
		err = pair_default(tl, ar, r->thread, &r->how, &r->wakeups);
		if (err == 0)
			err = 1;	/* no pair: nothing to say */
		else if (err == 1)
			err = 0;
	}
	for (int k = 0; k < 2 && !err; k++)
		err = thread_input(tl, r->thread[k], r->thread[!k], &ti[k], &in.th[k]);
	if (!err)
		err = progress_compute(&in, &r->pg);
	for (int k = 0; k < 2; k++) {
		free(ti[k].runs);
		free(ti[k].wakes);
		free(ti[k].calls);
	}
	if (err) {
		free(r);
		return err == 1 ? 0 : err;
	}
	err = place_departures(ar, r->thread, &r->pg);
	if (err) {
		progress__free(r);
		return err;
	}
	*out = r;
	return 0;
}

void progress__free(struct progress_result *r)
{
	if (!r)
		return;
	progress_release(&r->pg);
	free(r);
}
