// SPDX-License-Identifier: MIT
/*
 * The paths into the invocations of every actor and into every break of a
 * recording (critical.h).
 *
 * Per actor (docs/DESIGN.md §10): the path into invocation k completes
 * where k completes (the end of its last run interval, or the end of its
 * system call for a syscall actor) and reaches back to the completion of
 * k - 1 (invocation 0: to the origin). The shares of all invocations are
 * summed: they partition the time from the origin to the last completion,
 * and say how much of the time leading to its invocations each thread and
 * category accounts for. A thread that wakes on one input and then waits
 * for a second one completes after the second: its last run's wakeup is the
 * one from the second input, so its earlier runs are not on that path. A
 * release inside the invocation (a timeout it set, an interrupt it waited
 * for) does not end the path there: until the release the time goes to the
 * invocation's own waits (OWN_WAIT), and the path goes on into its earlier
 * task, back to its first, whose cause is what its start waited for (a
 * live source kept off its CPU catches up in one invocation with short
 * clock waits: the last of them did not make it late).
 *
 * Per break: the path into the late invocation, from the start of the
 * invocation before it (the whole late interval) to the late one's
 * completion. What delayed it is the row whose time there exceeds its mean
 * over the same windows of every invocation (start of the one before to
 * completion) the most, so that what every period holds cancels out.
 * Releases are kept apart: a chain released late means its input came
 * late, which the upstream actor's breaks explain. The path into an
 * invocation, its window and, for a late one, the break's path follow the
 * same binding edges back from the same completion: one walk accounts all
 * three, each from its own horizon.
 *
 * Cost O(n) at worst: the windows of one actor are disjoint (the reference
 * windows of its breaks overlap once more), and a path visits only tasks
 * inside its window.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "internal.h"
#include "lib/workq.h"

/*
 * The first task of invocation k of a thread actor, where the path into it
 * may stop at a release; CRIT_NONE (every release stops it) otherwise.
 */
static uint32_t first_task(const struct model *m, const struct actor *a, size_t k)
{
	if (a->kind != ACTOR_THREAD || a->inv[k].first >= m->tl->nruns)
		return CRIT_NONE;
	return m->run_first[a->inv[k].first];
}

/* The task where invocation k of actor a completes, and when (relative). */
static uint32_t completion(const struct model *m, const struct actor *a, size_t k, int64_t *end)
{
	const struct actor_invocation *inv = &a->inv[k];
	uint32_t v;
	int64_t t;

	if (a->kind == ACTOR_THREAD) {
		if (inv->last >= m->tl->nruns || m->run_first[inv->last] == CRIT_NONE)
			return CRIT_NONE;
		v = m->run_first[inv->last];
		while (v + 1 < m->n && m->src[v + 1] == inv->last)
			v++;
		t = inv->end_ns < m->tasks[v].end_ns ? inv->end_ns : m->tasks[v].end_ns;
	} else {
		const struct tl_syscall *sc;

		if (inv->last >= m->tl->nsc)
			return CRIT_NONE;
		sc = &m->tl->sc[inv->last];
		t = (int64_t)sc->end;
		v = model_task_at(m, sc->thread, t);
		if (v == CRIT_NONE) {
			/* Ended while not running as the trace saw it: the last task before. */
			uint32_t lo = m->thr_first[sc->thread], hi = m->thr_first[sc->thread + 1];

			while (lo < hi && m->tasks[hi - 1].end_ns > t)
				hi--;
			if (hi == lo)
				return CRIT_NONE;
			v = hi - 1;
			t = m->tasks[v].end_ns;
		}
	}
	*end = t - m->t0;
	return v;
}

/* Worst (latest) first, then by actor and break: the order of res->breaks. */
static int break_order(int64_t la, size_t aa, size_t ba, int64_t lb, size_t ab, size_t bb)
{
	if (la != lb)
		return la > lb ? -1 : 1;
	if (aa != ab)
		return aa < ab ? -1 : 1;
	return (ba > bb) - (ba < bb);
}

static int cmp_break(const void *x, const void *y)
{
	const struct crit_break *a = x, *b = y;

	return break_order(a->lateness_ns, a->actor, a->brk, b->lateness_ns, b->actor, b->brk);
}

struct brk_key {
	int64_t lateness_ns;
	size_t actor, brk, slot;
};

static int cmp_brk_key(const void *x, const void *y)
{
	const struct brk_key *a = x, *b = y;

	return break_order(a->lateness_ns, a->actor, a->brk, b->lateness_ns, b->actor, b->brk);
}

/*
 * The row of a break's path that exceeds its mean in the reference windows
 * the most. A row at or below its mean delayed nothing: a break whose rows
 * all are has no culprit (culprit.ns == 0), as a release not later than
 * usual has none.
 */
static void find_culprit(struct crit_break *b, const struct crit_share *ref, size_t nref, size_t nwin)
{
	b->excess_ns = b->release_excess_ns = 0;
	b->culprit = (struct crit_share){ .thread = CRIT_NONE };
	for (size_t i = 0; i < b->path.nshare; i++) {
		const struct crit_share *r = &b->path.share[i];
		int64_t mean = 0, x;

		for (size_t j = 0; j < nref; j++) {
			const struct crit_share *q = &ref[j];

			if (q->thread == r->thread && (r->thread != CRIT_NONE ||
						       (q->cat == r->cat && q->sub == r->sub))) {
				mean = nwin ? q->ns / (int64_t)nwin : 0;
				break;
			}
		}
		x = r->ns - mean;
		/*
		 * A release is when the chain began, not a delay on it: a late
		 * one says the input came late (look upstream), kept apart.
		 */
		if (r->thread == CRIT_NONE && r->cat >= CRIT_CAT_REL_HARDIRQ) {
			if (x > b->release_excess_ns) {
				b->release_excess_ns = x;
				b->release = *r;
			}
			continue;
		}
		if (x > b->excess_ns) {
			b->excess_ns = x;
			b->culprit = *r;
		}
	}
}

/*
 * The windows of the per-actor accounting partition the time: invocation
 * k from the completion of k - 1. A break is about a late start, so its
 * path is accounted from the start of the invocation before it; the
 * culprit is then measured against the same windows of every invocation
 * (from the start of the one before to its completion), so that what a
 * normal period holds (a timer, the actor's own work) cancels out.
 *
 * The path into break k of actor a: into task v, completed at end, of its
 * target invocation (the late one, or the one before that overran:
 * actors.h), from the horizon h (the start of the invocation before the
 * target). False when the break has no path (that invocation's end was
 * not recorded).
 */
static bool break_window(const struct model *m, const struct actor *a, size_t k, uint32_t *v, int64_t *end,
			 int64_t *h)
{
	const struct actor_break *ab = &a->breaks[k];
	size_t target = actor_break_target(ab);
	int64_t from;

	if (target >= a->ninv)
		return false;
	*v = completion(m, a, target, end);
	from = target ? a->inv[target - 1].start_ns : ab->start_ns;
	*h = from - m->t0 < 0 ? 0 : from - m->t0;
	return *v != CRIT_NONE && *end > *h;
}

/* How many stretches the path of break slot keeps (mark_kept; keep NULL: all). */
static size_t break_segs(const uint8_t *keep, size_t slot)
{
	return keep && !keep[slot] ? 0 : CRIT_MAX_SEGS;
}

static int accs_init(struct accs *ac, struct acc *inv, size_t nowners)
{
	int err;

	ac->inv = inv;
	err = acc_init(&ac->ref, nowners);
	if (!err)
		err = acc_init(&ac->brk, nowners);
	return err;
}

static void accs_free(struct accs *ac)
{
	acc_free(&ac->ref);
	acc_free(&ac->brk);
}

/*
 * The breaks of actor a into res->breaks[slot .. slot + a->nbreaks): a break
 * without a path leaves its slot with actor = CRIT_NONE, for the caller to
 * squeeze out. With keep, only the breaks it marks keep their segments.
 * The paths of those walked with their reference window (actor set) are
 * there already; each break gets its culprit against the windows' means.
 */
static int account_actor_breaks(struct critical_result *res, const struct walker *w, const struct actor *a,
				size_t ai, size_t slot, const uint8_t *keep, struct accs *ac, size_t nwin)
{
	const struct model *m = w->m;
	struct crit_share *ref = NULL;
	size_t nref = 0;
	int err;

	err = acc_take(&ac->ref, &ref, &nref);
	for (size_t k = 0; k < a->nbreaks && !err; k++) {
		struct crit_break *b = &res->breaks[slot + k];
		int64_t end, h;
		uint32_t v;

		if (b->actor == CRIT_NONE) {
			if (!break_window(m, a, k, &v, &end, &h))
				continue;
			b->actor = ai;
			b->brk = k;
			b->lateness_ns = a->breaks[k].lateness_ns;
			err = path_into(w, v, end, h, &ac->brk, break_segs(keep, slot + k), &b->path);
		}
		if (!err)
			find_culprit(b, ref, nref, nwin);
	}
	free(ref);
	return err;
}

/* The walk into the invocation's completion from horizon, into acc (and acc2 from h2) and sb. */
static size_t walk_into(const struct inv_walk *iw, int64_t horizon, struct acc *acc, struct acc *acc2, int64_t h2,
			struct segbuf *sb)
{
	return walk_path(iw->w, iw->v, iw->end, horizon, &(struct sink){ .acc = acc, .acc2 = acc2, .h2 = h2, .sb = sb,
									.own_lo = iw->own_lo, .own_hi = iw->own_hi });
}

/*
 * The walk into completion v of invocation k, from the earlier of the two
 * horizons: the invocation's (the previous completion, if inv) and its
 * reference window's (the start of invocation k - 1, if win), which
 * usually reaches further back along the same binding edges. A break whose
 * window is that reference window (the usual case: late invocation k, the
 * one before k - 1) is the same walk with segments: its path is taken here
 * and added to the reference windows.
 */
int per_actor_walk_invocation(const struct inv_walk *iw)
{
	const struct walker *w = iw->w;
	struct accs *ac = iw->ac;
	struct acc *inv = iw->inv ? ac->inv : NULL;
	struct segbuf sb = { 0 };
	struct crit_break *b;
	int64_t be, bh;
	size_t ntasks;
	uint32_t bv;

	if (iw->win && iw->h > iw->horizon && inv) {
		/* the invocation's path reaches further back: acc is its */
		walk_into(iw, iw->horizon, inv, &ac->ref, iw->h, NULL);
		return 0;
	}
	if (!iw->win) {
		if (inv)
			walk_into(iw, iw->horizon, inv, NULL, 0, NULL);
		return 0;
	}
	if (iw->brk == SIZE_MAX || !break_window(w->m, iw->a, iw->brk, &bv, &be, &bh) || bv != iw->v ||
	    be != iw->end || bh != iw->h) {
		walk_into(iw, iw->h, &ac->ref, inv, iw->horizon, NULL);
		return 0;
	}
	b = &iw->res->breaks[iw->slot + iw->brk];
	b->actor = iw->ai;
	b->brk = iw->brk;
	b->lateness_ns = iw->a->breaks[iw->brk].lateness_ns;
	sb.limit = break_segs(iw->keep, iw->slot + iw->brk);
	ntasks = walk_into(iw, iw->h, &ac->brk, inv, iw->horizon, &sb);
	acc_add(&ac->ref, &ac->brk);
	return path_take(w, &sb, ntasks, iw->end, iw->h, &ac->brk, &b->path);
}

/*
 * Actor i: the path into every invocation, then its breaks. With breaks,
 * the reference windows too (the start of the invocation before to the
 * completion: find_culprit's means), in the same walks (w->walk_invocation).
 */
static int account_actor(struct critical_result *res, const struct walker *w, const struct actors_result *ar,
			 size_t i, size_t slot, const uint8_t *keep, struct accs *ac)
{
	const struct actor *a = &ar->v[i];
	struct crit_actor *ca = &res->actors[i];
	int64_t horizon = 0;
	size_t nwin = 0, bi = 0, ninv = 0;
	int err = 0;

	ca->actor = i;
	ca->thread = a->thread;
	for (size_t k = 0; k < a->nbreaks; k++)
		res->breaks[slot + k].actor = CRIT_NONE;
	for (size_t k = 0; k < a->ninv && !err; k++) {
		int64_t end, h = k ? a->inv[k - 1].start_ns - w->m->t0 : -1;
		uint32_t v = completion(w->m, a, k, &end), own;
		bool inv, win;

		if (v == CRIT_NONE)
			continue;
		inv = end > horizon;
		win = a->nbreaks && h >= 0 && end > h;
		while (bi < a->nbreaks && actor_break_target(&a->breaks[bi]) < k)
			bi++;
		own = first_task(w->m, a, k);
		err = w->walk_invocation(&(struct inv_walk){
			.res = res, .w = w, .a = a, .ai = i, .slot = slot, .keep = keep, .ac = ac, .v = v, .end = end,
			.horizon = horizon, .h = h, .inv = inv, .win = win,
			.brk = bi < a->nbreaks && actor_break_target(&a->breaks[bi]) == k ? bi : SIZE_MAX,
			.own_lo = own, .own_hi = own == CRIT_NONE ? 0 : v });
		nwin += win;
		if (inv) {
			ninv++;
			horizon = end;
		}
	}
	/* Written once: the other worker's actor may share the line. */
	ca->ninv = ninv;
	ca->total_ns = horizon;
	if (!err)
		err = acc_take(ac->inv, &ca->share, &ca->nshare);
	if (!err && a->nbreaks)
		err = account_actor_breaks(res, w, a, i, slot, keep, ac, nwin);
	return err;
}

/*
 * Accounting threads: each takes the next actor not yet taken, with its own
 * accumulator and CPU search hints; the actors' results go to their own
 * slots, so the result does not depend on who did which.
 */
struct acct_job {
	struct critical_result *res;
	const struct actors_result *ar;
	const size_t *slot;		/* [ar->n] first break slot of each actor */
	const uint8_t *keep;		/* [breaks] keep the segments of this slot's path; NULL: all */
	struct workq q;			/* the actors */
};

struct acct_worker {
	struct acct_job *job;
	struct walker w;
	struct accs ac;
	int err;
};

static int acct_one(void *ctx, size_t i)
{
	struct acct_worker *wk = ctx;
	struct acct_job *j = wk->job;

	return account_actor(j->res, &wk->w, j->ar, i, j->slot[i], j->keep, &wk->ac);
}

static void *acct_work(void *arg)
{
	struct acct_worker *wk = arg;

	wk->err = workq_each(&wk->job->q, acct_one, wk);
	return NULL;
}

/*
 * Which break slots keep their path's segments: those of the max worst
 * breaks that will have a path, in the order res->breaks ends up in. The
 * rest are accounted alike (shares, culprit) without their stretches: a
 * storm has 10^5 breaks, whose segments were a fifth of a report's peak
 * memory, and only the worst are shown. *keep is NULL when all are kept.
 */
static int mark_kept(const struct model *m, const struct actors_result *ar, const size_t *slot, size_t nb,
		     size_t max, uint8_t **keep)
{
	struct brk_key *key;
	size_t n = 0;
	uint32_t v;
	int64_t end, h;

	*keep = NULL;
	if (!max || nb <= max)
		return 0;
	key = malloc(nb * sizeof(*key));
	*keep = calloc(nb, 1);
	if (!key || !*keep) {
		free(key);
		free(*keep);
		*keep = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < ar->n; i++)
		for (size_t k = 0; k < ar->v[i].nbreaks; k++)
			if (break_window(m, &ar->v[i], k, &v, &end, &h))
				key[n++] = (struct brk_key){ ar->v[i].breaks[k].lateness_ns, i, k, slot[i] + k };
	qsort(key, n, sizeof(*key), cmp_brk_key);
	for (size_t i = 0; i < n && i < max; i++)
		(*keep)[key[i].slot] = 1;
	free(key);
	return 0;
}

int per_actor_account(struct critical_result *res, const struct walker *w, const struct actors_result *ar,
		      struct acc *acc, int jobs, size_t nowners, size_t seg_breaks)
{
	struct acct_job job = { .res = res, .ar = ar, .q.n = ar->n };
	struct acct_worker main_wk = { .job = &job, .w = *w, .ac.inv = acc }, side = { .job = &job, .w = *w };
	struct acc side_acc = { 0 };
	size_t *slot, nb = 0, k = 0;
	uint8_t *keep = NULL;
	pthread_t th;
	bool two = false;
	int err;

	res->actors = calloc(ar->n ? ar->n : 1, sizeof(*res->actors));
	slot = malloc((ar->n ? ar->n : 1) * sizeof(*slot));
	if (!res->actors || !slot) {
		free(slot);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ar->n; i++) {
		slot[i] = nb;
		nb += ar->v[i].nbreaks;
	}
	res->breaks = calloc(nb ? nb : 1, sizeof(*res->breaks));
	if (!res->breaks) {
		free(slot);
		return -ENOMEM;
	}
	/* Every slot is freed by critical__free, filled or not, until squeezed. */
	res->nactors = ar->n;
	res->nbreaks = nb;
	job.slot = slot;
	err = mark_kept(w->m, ar, slot, nb, seg_breaks, &keep);
	if (err) {
		free(slot);
		return err;
	}
	job.keep = keep;
	side.w.hint = NULL;	/* its own, or none */
	/* A second thread is worth it with a second actor; without one, this thread does all. */
	if (jobs > 1 && ar->n > 1 && !acc_init(&side_acc, nowners) && !accs_init(&side.ac, &side_acc, nowners)) {
		side.w.hint = workq_calloc(w->m->ncpu ? w->m->ncpu : 1, sizeof(*side.w.hint));
		two = side.w.hint && !pthread_create(&th, NULL, acct_work, &side);
	}
	workq_busy(two);
	main_wk.err = accs_init(&main_wk.ac, acc, nowners);
	if (!main_wk.err)
		acct_work(&main_wk);
	if (two)
		pthread_join(th, NULL);
	workq_busy(-two);
	free(side.w.hint);
	acc_free(&side_acc);
	accs_free(&side.ac);
	accs_free(&main_wk.ac);
	free(slot);
	free(keep);
	err = main_wk.err ? main_wk.err : side.err;
	if (err)
		return err;
	for (size_t i = 0; i < nb; i++)
		if (res->breaks[i].actor != CRIT_NONE)
			res->breaks[k++] = res->breaks[i];
	res->nbreaks = k;
	qsort(res->breaks, res->nbreaks, sizeof(*res->breaks), cmp_break);
	return 0;
}
