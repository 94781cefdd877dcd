// SPDX-License-Identifier: MIT
/*
 * One candidate studied: its invocations, period and breaks (the rules are
 * in src/actors/actor.h); and every candidate so, on two threads.
 *
 * The clustering (invocations.h) is SATM's with the QCoD guard, plus two
 * rules against the guard's known failures (docs/ALGORITHMS.md §1.5 and the
 * notes of test_invocations.c), both with ACTORS_MAX_GAP_FRAC = 0.5:
 *  - invocations_opts.max_gap_frac: an item the Otsu candidate merges
 *    starts an invocation after all when its gap exceeds half the median
 *    gap in front of the candidate's starts. It repairs the zero-padding
 *    merges of items 2 and n and short recurring breaks.
 *  - the split rule (here, split_periodic): when the segments alone, every
 *    voluntary pause a boundary, are already periodic (QCoD below --qcod),
 *    no invocation may span a pause longer than half their median
 *    interval. A disturbance that recurs regularly and is long against the
 *    period (25 ms every 200 ms at a 10 ms period) makes the breaks Otsu's
 *    high class: the "invocations" of 20 periods are then very regular,
 *    the guard takes them, and the median gap in front of them (35 ms)
 *    is too long for max_gap_frac to object. The segments' own period
 *    (10 ms) is not.
 * Measured with synth_actor.h on 100 seeds per scenario (exact invocations;
 * SATM exactly / max_gap_frac 0.5 alone / both): one run per period, no
 * break 42/100/100; recurring 4 ms breaks 0/100/100; recurring 25 ms
 * breaks 0/0/100, also with preemption 0/0/100; recurring 100 ms breaks
 * 0/0/100; 6 isolated breaks, preemption, 5 % jitter, half of the
 * invocations blocking (pauses up to 10 % of the period) 99 to 100 in all;
 * pauses up to 20 % 68/69/69, 30 % 0/0/0; a sixth of the invocations with
 * pauses up to 30 % 94/100/100. Alone, a fraction of 0.7 fails the isolated
 * breaks (78/100) and 0.3 the 20 % pauses (0 to 7/100); with the split rule
 * they differ only on the pauses, where 0.5 does best. On 11
 * recordings of the built-in pipeline under a loaded machine, against its
 * log (55 stage-actors, 10 778 frames with a pause in front): frames not
 * found 1624 with SATM exactly, 1016 with both rules (the gap is in the
 * stages that fall behind); invocations matching no frame 201 vs 196;
 * periodic stages 30 vs 31. The source stage came out the same either way.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/syscall_names.h"
#include "file/trace.h"
#include "internal.h"
#include "lib/workq.h"
#include "stats/quartiles.h"

/* What studying one candidate gave: an actor, or the reason it was skipped. */
struct studied {
	struct actor a;
	bool have;
	const char *skip;
	size_t skip_count;
};

static int work_reserve(struct work *w, size_t n)
{
	size_t cap = w->cap ? w->cap : 64;
	void *p;

	if (n <= w->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	/*
	 * Nothing in them outlives a study: fresh blocks, not realloc, whose
	 * copy would touch (make resident) pages a thread actor never uses.
	 */
	w->cap = 0;
#define RE(field)                                                    \
	do {                                                         \
		free(w->field);                                      \
		p = malloc(cap * sizeof(*w->field));                 \
		w->field = p;                                        \
		if (!p)                                              \
			return -ENOMEM;                              \
	} while (0)
	RE(frag);
	RE(idx);
	RE(pb);
#undef RE
	w->cap = cap;
	return 0;
}

static size_t cand_size(const struct ctx *c, const struct cand *cd)
{
	const struct tl_thread *th = &c->tl->threads[cd->thread];

	return cd->kind == ACTOR_THREAD ? th->nrun : th->nsc;
}

static void actor_name(const struct timeline *tl, const struct cand *cd, char *buf, size_t len)
{
	const struct tl_thread *th = &tl->threads[cd->thread];
	const char *arch = trace__arch(tl->trace);
	const char *call;
	char nrbuf[16];

	if (cd->kind == ACTOR_THREAD) {
		snprintf(buf, len, "%s/%u", th->comm, th->tid);
		return;
	}
	call = syscall_name(arch, cd->nr);
	if (!call) {
		snprintf(nrbuf, sizeof(nrbuf), "%u", cd->nr);
		call = nrbuf;
	}
	if (cd->has_arg0)
		snprintf(buf, len, "%s(%llu)@%s/%u", call, (unsigned long long)cd->arg0, th->comm, th->tid);
	else
		snprintf(buf, len, "%s@%s/%u", call, th->comm, th->tid);
}

/*
 * The split rule (see the top of this file): when the segments alone (every
 * voluntary pause a boundary) already make a periodic actor, no invocation
 * may span a pause longer than max_gap_frac x their median interval.
 * Rewrites out[0..*m) (room for n); returns the number of splits or -errno.
 */
static long split_periodic(const struct ctx *c, struct work *w, size_t n, struct invocation *out, size_t *m)
{
	struct period_stats st;
	int64_t *seg, *at;	/* the segments' starts; the fragments a split falls before */
	size_t nseg, splits = 0, si = 1;
	double limit;
	int err;

	invocations_ws__lend(w->ws, &seg, &nseg, &at);
	err = period_analyse(seg, nseg, &c->popts, &st, NULL, at);
	if (err)
		return err;
	if (!st.periodic)
		return 0;
	limit = c->inv_opts.max_gap_frac * st.period_ns;
	/* Walk invocations and segment starts together, as invocations_build does. */
	for (size_t k = 0, j = 1; k < *m; k++) {
		for (; j < n && j <= out[k].last; j++) {
			if (w->frag[j - 1].continues)
				continue;
			if (j > out[k].first && (double)(seg[si] - seg[si - 1]) > limit)
				at[splits++] = (int64_t)j;
			si++;
		}
	}
	/*
	 * In place, from the back: invocation k and its pieces move up by the
	 * splits in it and before it, never below k, so nothing is written
	 * over before it is read (a copy would touch 32 bytes more per run).
	 */
	for (size_t k = *m, d = *m + splits, s = splits; k-- > 0;) {
		struct invocation inv = out[k];

		while (s > 0 && (size_t)at[s - 1] > inv.first) {
			size_t j = (size_t)at[--s];

			out[--d] = (struct invocation){ .first = j, .last = inv.last,
							   .start_ns = w->frag[j].start_ns,
							   .end_ns = inv.end_ns };
			inv.last = j - 1;
			inv.end_ns = w->frag[j - 1].end_ns;
		}
		out[--d] = inv;
	}
	*m += splits;
	return (long)splits;
}

/* The occurrences of an invocation: its runs, or its calls of the actor's syscall among the thread's. */
static size_t occurrences_in(const struct ctx *c, const struct actor *a, const struct actor_invocation *iv)
{
	size_t n = 0;

	if (a->kind == ACTOR_THREAD)
		return iv->last - iv->first + 1;
	for (size_t j = iv->first; j <= iv->last; j++)
		n += call_of(&c->tl->sc[j], a->syscall_nr, a->has_arg0, a->arg0);
	return n;
}

/*
 * What a thread born in the recording did in its first period is its
 * set-up, and what one that exited did in its last is its teardown (woken
 * to stop by whoever stops it, then gone), not its loop. Those invocations
 * are left out and the period found again. Every recording of a command
 * that starts and ends had breaks there: a GStreamer queue's thread 30 ms
 * "late" after prerolling, the source's woken by gst-launch-1.0 40 ms
 * after its last buffer. At least keep_min invocations stay. t holds the
 * invocations' starts. The same for a system call of such a thread (a
 * born player's clock_nanosleep@player first slept 100 ms until its loop).
 */
static int trim_life_ends(const struct ctx *c, struct work *w, const struct tl_thread *th, size_t keep_min,
			  struct actor *a, int64_t *t, int64_t *spare)
{
	const struct tl_run *runs = c->tl->runs + th->run0;
	int64_t p = (int64_t)a->st.period_ns;
	bool born = th->flags & TT_BORN;
	bool gone = (th->flags & TT_DIED) && th->nrun && runs[th->nrun - 1].end_state == QT_END_EXITED;
	size_t lo = 0, hi = a->ninv, lo1, hi1;
	int err;

	if (!th->nrun || (!born && !gone))
		return 0;
	if (born)
		while (hi - lo > keep_min && a->inv[lo].start_ns < (int64_t)runs[0].start + p)
			lo++;
	if (gone)
		while (hi - lo > keep_min && a->inv[hi - 1].start_ns > (int64_t)runs[th->nrun - 1].end - p)
			hi--;
	/* a->st is the caller's, of all the invocations, until a first period is cut */
	if (lo != 0 || hi != a->ninv) {
		err = period_analyse(t + lo, hi - lo, &c->popts, &a->st, w->pb, spare);
		if (err)
			return err;
	}
	lo1 = lo;
	hi1 = hi;
	/*
	 * Set-up lasts until the rhythm is first kept: late intervals before
	 * the first regular one are still the start (a live pipeline's queue
	 * 12 ms late on its second buffer, as it goes from paused to
	 * playing), and late ones after the last regular one the end.
	 */
	if (born)
		while (hi - lo > keep_min && quartiles_is_outlier(t[lo + 1] - t[lo], a->st.q1_ns, a->st.q3_ns))
			lo++;
	if (gone)
		while (hi - lo > keep_min &&
		       quartiles_is_outlier(t[hi - 1] - t[hi - 2], a->st.q1_ns, a->st.q3_ns))
			hi--;
	if (lo == 0 && hi == a->ninv)
		return 0;
	for (size_t k = 0; k < a->ninv; k++)
		if (k < lo || k >= hi)
			a->ncut += occurrences_in(c, a, &a->inv[k]);
	memmove(a->inv, a->inv + lo, (hi - lo) * sizeof(*a->inv));
	memmove(t, t + lo, (hi - lo) * sizeof(*t));
	a->ninv = hi - lo;
	/* the stats above are of the same invocations unless the late ends moved */
	return lo == lo1 && hi == hi1 ? 0 : period_analyse(t, a->ninv, &c->popts, &a->st, w->pb, spare);
}

/*
 * Studies one candidate with the scratch w: an actor into *out, or why a
 * default actor with too little activity is skipped. Reads c only, so
 * candidates can be studied side by side. 0 or -ENOMEM.
 */
static int study(const struct ctx *c, struct work *w, const struct cand *cd, struct studied *out)
{
	const struct timeline *tl = c->tl;
	const struct tl_thread *th = &tl->threads[cd->thread];
	struct actor a = { 0 };
	size_t n, ninv = 0, ncut, nseg;
	int64_t *t, *spare;
	struct invocation *built;
	void *kept;
	int err;

	memset(out, 0, sizeof(*out));
	if (!cd->from_spec && th->nrun < c->min_runs) {
		*out = (struct studied){ .skip = "too few runs", .skip_count = th->nrun };
		return 0;
	}
	err = work_reserve(w, cand_size(c, cd) + 1);
	if (err)
		return err;
	n = gather_fragments(c, w, cd, &ncut);
	/*
	 * The invocations are built where the actor keeps them and turned
	 * into its own form in place, slot by slot (same size): a busy
	 * thread's are tens of MB, and a scratch copy would be resident
	 * beside them.
	 */
	_Static_assert(sizeof(struct invocation) == sizeof(struct actor_invocation), "converted in place");
	kept = malloc((n ? n : 1) * sizeof(struct invocation));
	if (!kept)
		return -ENOMEM;
	built = kept;
	err = invocations_build(w->frag, n, &c->inv_opts, w->ws, built, &ninv, &a.info);
	if (!err && c->inv_opts.max_gap_frac > 0) {
		long s = split_periodic(c, w, n, built, &ninv);

		err = s < 0 ? (int)s : 0;
		a.nsplit = s < 0 ? 0 : s;
	}
	if (err) {
		free(kept);
		return err;
	}
	if (!cd->from_spec && ninv < c->min_inv) {
		free(kept);
		*out = (struct studied){ .skip = "too few invocations", .skip_count = ninv };
		return 0;
	}

	a.kind = cd->kind;
	a.thread = cd->thread;
	a.syscall_nr = cd->kind == ACTOR_SYSCALL ? cd->nr : 0;
	a.has_arg0 = cd->has_arg0;
	a.arg0 = cd->arg0;
	a.from_spec = cd->from_spec;
	memcpy(a.comm, th->comm, sizeof(a.comm));
	actor_name(tl, cd, a.name, sizeof(a.name));
	a.noccurrences = n;
	a.ncut = ncut;
	a.nincidental = cd->kind == ACTOR_THREAD ? w->nincidental : 0;
	/* The segments' starts are no longer needed: the invocations' go there. */
	invocations_ws__lend(w->ws, &t, &nseg, &spare);
	for (size_t k = 0; k < ninv; k++) {
		struct invocation iv = built[k];

		((struct actor_invocation *)kept)[k] = (struct actor_invocation){
			.start_ns = iv.start_ns, .end_ns = iv.end_ns,
			.first = gather_occurrence(w, cd, iv.first), .last = gather_occurrence(w, cd, iv.last) };
		t[k] = iv.start_ns;
	}
	/* Shrunk in place: the slots beyond ninv go back. */
	a.inv = ninv < n ? realloc(kept, (ninv ? ninv : 1) * sizeof(*a.inv)) : kept;
	a.inv = a.inv ? a.inv : kept;
	a.ninv = ninv;
	err = period_analyse(t, ninv, &c->popts, &a.st, w->pb, spare);
	if (!err && a.st.period_ns > 0)
		err = trim_life_ends(c, w, th, cd->from_spec || c->min_inv < 2 ? 2 : c->min_inv, &a, t, spare);
	if (err)
		goto fail;
	a.breaks = malloc((a.st.periodic && a.st.n_breaks ? a.st.n_breaks : 1) * sizeof(*a.breaks));
	if (!a.breaks) {
		err = -ENOMEM;
		goto fail;
	}
	/* SATM looks for breaks only once the actor is known to be periodic. */
	for (size_t b = 0; a.st.periodic && b < a.st.n_breaks; b++) {
		const struct period_break *pb = &w->pb[b];
		struct actor_break *x = &a.breaks[a.nbreaks++];

		x->before = pb->before;
		x->late = pb->late;
		x->start_ns = t[pb->before];
		x->end_ns = t[pb->late];
		x->interval_ns = pb->interval_ns;
		x->lateness_ns = (int64_t)(pb->lateness_ns + (pb->lateness_ns < 0 ? -0.5 : 0.5));
		x->kind = BREAK_START;
		x->into_before = false;
		x->overrun_ns = 0;
	}
	/* The starts are no longer needed: t and spare are the overruns' scratch. */
	if (cd->kind == ACTOR_THREAD && a.st.periodic)
		err = breaks_add_overruns(c, &a, t, spare);
	if (err)
		goto fail;
	breaks_judge(c, &a, th);
	a.nwindows = a.ninv ? a.ninv + 1 : 0;
	out->a = a;
	out->have = true;
	return 0;
fail:
	actor_release(&a);
	return err;
}

/* The candidate's actor or skip into the result, in candidate order. */
static int keep_studied(struct ctx *c, const struct cand *cd, struct studied *s)
{
	struct actors_result *r = c->r;
	int err;

	if (s->skip)
		return actors_skip(c, cd->thread, s->skip, s->skip_count);
	if (!s->have)
		return 0;
	err = actors_grow((void **)&r->v, &c->cap_v, r->n + 1, sizeof(*r->v));
	if (err)
		return err;
	r->v[r->n++] = s->a;
	s->have = false;
	return 0;
}

static void work_free(struct work *w)
{
	free(w->frag);
	free(w->idx);
	free(w->pb);
	free(w->sites);
	invocations_ws__free(w->ws);
}

struct study_job {
	const struct ctx *c;
	const struct cand *cands;
	struct studied *res;
	struct workq q;			/* the candidates */
};

struct study_worker {
	struct study_job *job;
	struct work w;
	int err;
};

static int study_one(void *ctx, size_t i)
{
	struct study_worker *sw = ctx;
	struct study_job *j = sw->job;

	return study(j->c, &sw->w, &j->cands[i], &j->res[i]);
}

/* Takes the next candidate until none is left or a worker failed. */
static void *study_work(void *arg)
{
	struct study_worker *sw = arg;

	sw->w.ws = invocations_ws__new();
	sw->w.sites = malloc(ACTORS_SITES_SLOTS * sizeof(*sw->w.sites));
	if (!sw->w.ws || !sw->w.sites) {
		sw->err = -ENOMEM;
		workq_fail(&sw->job->q);
		return NULL;
	}
	sw->err = workq_each(&sw->job->q, study_one, sw);
	return NULL;
}

/*
 * Every candidate studied, on two threads where there are two CPUs and two
 * candidates (a storm's busy threads are a million runs each, and each is
 * studied alone), kept in candidate order whatever finished first.
 */
int study_all(struct ctx *c, const struct cand *cands, size_t n)
{
	struct study_job job = { .c = c, .cands = cands, .q.n = n };
	struct study_worker wk[2] = { { .job = &job }, { .job = &job } };
	pthread_t th;
	bool two = false;
	int err;

	job.res = calloc(n ? n : 1, sizeof(*job.res));
	if (!job.res)
		return -ENOMEM;
	if (c->jobs > 1 && n > 1)
		two = !pthread_create(&th, NULL, study_work, &wk[1]);
	workq_busy(two);
	study_work(&wk[0]);
	if (two)
		pthread_join(th, NULL);
	workq_busy(-two);
	err = wk[0].err ? wk[0].err : wk[1].err;
	for (size_t i = 0; i < n && !err; i++)
		err = keep_studied(c, &cands[i], &job.res[i]);
	for (size_t i = 0; i < n; i++)
		if (job.res[i].have)
			actor_release(&job.res[i].a);
	work_free(&wk[0].w);
	work_free(&wk[1].w);
	free(job.res);
	return err;
}
