// SPDX-License-Identifier: MIT
/* The watched actors: followed, judged, forgotten; see src/watch/internal.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "internal.h"
#include "judge.h"
#include "lib/log.h"
#include "window.h"

/* An actor is judged at most this often for its follower's flags. */
#define JUDGE_GAP (NS / 2)

static uint64_t settle_ns(const struct watched *x)
{
	/* The clustering looks two invocations ahead; a completion break needs the next one. */
	uint64_t s = 4 * (uint64_t)x->a.period_ns;

	return s < 50 * MS ? 50 * MS : s;
}

static void feed(struct watch *w, struct watched *x, uint64_t until)
{
	size_t n, lo = 0, hi;
	const union qt_record *r = history__of(w->hist, x->a.tid, &n);
	uint64_t last = x->fed_until;

	/* The first record not fed yet: the history is sorted. */
	for (hi = n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].h.ts <= x->fed_until)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < n && r[i].h.ts <= until; i++) {
		uint64_t flag = follow__feed(&x->f, &r[i]);

		/*
		 * A judgement reads the thread's whole last seconds: flags
		 * that follow within JUDGE_GAP wait for one together (a
		 * thread of a 100 us period flags every few invocations).
		 */
		if (flag && !x->judge_at)
			x->judge_at = flag + settle_ns(x) > x->last_judged + JUDGE_GAP ? flag + settle_ns(x) :
				      x->last_judged + JUDGE_GAP;
		if (r[i].h.type == QT_REC_EXIT && r[i].task.tid == x->a.tid)
			x->gone = true;
		last = r[i].h.ts;
	}
	x->fed_until = last > until ? until : last;
}

static void confirmed(struct watch *w, const struct watched *x, const struct judge_out *jo, const struct judge_break *b)
{
	struct trig_break tb = {
		.tid = x->a.tid, .at_ns = b->late_ns, .lateness_ns = b->lateness_ns, .period_ns = jo->period_ns,
		.kind = b->kind, .online = true,
	};

	snprintf(tb.actor, sizeof(tb.actor), "%s", x->a.name);
	memcpy(tb.comm, x->a.comm, sizeof(tb.comm));
	w->breaks++;
	if (trigger__break(w->trig, &tb))
		watch_say(w, "qostrace: warning: out of memory: a break of %s is not written", x->a.name);
}

/* Why the judge leaves a break, for -vv (NULL: it is taken). */
static const char *left_why(const struct watch *w, const struct watched *x, const struct judge_out *jo,
			    const struct judge_break *b, uint64_t limit)
{
	if (b->data_missing)
		return "data missing";
	if (!watch_major(b->lateness_ns, jo->period_ns, w->o.late_ns))
		return "minor";
	if (b->late_ns <= (int64_t)x->judged_until)
		return "decided before";
	if (b->late_ns > (int64_t)limit)
		return "not settled";
	return NULL;
}

/*
 * Judges the actor on [to - hist_ns, to] and takes its major breaks in
 * (judged_until, limit]: the seconds before a break are its context, as
 * in a window.
 */
/* The judge's input for x over [from, to] from its history: false when it has no record before to. */
static bool judge_in_of(struct watch *w, struct history *h, const struct watched *x, uint64_t from, uint64_t to,
			struct judge_in *in)
{
	*in = (struct judge_in){
		.spec = x->a.spec, .tid = x->a.tid, .tgid = x->a.tgid, .comm = x->a.comm, .arch = w->arch,
		.ncpus = w->ncpus, .from = from, .to = to, .late_ns = w->o.late_ns,
		.syscall = x->a.kind == ACTOR_SYSCALL, .nr = x->a.rule.nr, .has_arg0 = x->a.rule.has_arg0,
		.arg0 = x->a.rule.arg0,
	};
	in->recs = history__of(h, x->a.tid, &in->nrecs);
	in->losses = history__losses(h, &in->nlosses);
	if (!in->nrecs || in->recs[0].h.ts >= to)
		return false;
	if (in->from < in->recs[0].h.ts)
		in->from = in->recs[0].h.ts;
	return true;
}

static void judge_span(struct watch *w, struct watched *x, uint64_t to, uint64_t limit)
{
	struct judge_in in;
	struct judge_out jo;

	/* A thread that did not run there has nothing to decide there. */
	if (!judge_in_of(w, w->hist, x, to > w->hist_ns ? to - w->hist_ns : 0, to, &in) || judge_actor(&in, &jo)) {
		if (limit > x->judged_until)
			x->judged_until = limit;
		return;
	}
	for (size_t k = 0; k < jo.nbreaks && jo.periodic; k++) {
		const struct judge_break *b = &jo.breaks[k];
		const char *why = left_why(w, x, &jo, b, limit);

		log_debug("%s on [%.3f, %.3f] s: break at %.3f s, %lld ns late%s%s", x->a.name,
			  (in.from - w->start_ts) / 1e9, (to - w->start_ts) / 1e9, (b->late_ns - (int64_t)w->start_ts) / 1e9,
			  (long long)b->lateness_ns, why ? ": left, " : ": major", why ? why : "");
		if (!why)
			confirmed(w, x, &jo, b);
	}
	if (limit > x->judged_until)
		x->judged_until = limit;
	if (jo.have_rule && jo.periodic)
		follow_relearn(&x->f, &jo.rule);
	judge_out_free(&jo);
}

/*
 * Decides the actor's breaks up to until (less what has not settled),
 * in steps of half the history when it is far behind (a warm-up's
 * seconds, a detector that was held up).
 */
static void judge(struct watch *w, struct watched *x, uint64_t until, bool final)
{
	uint64_t step = w->hist_ns / 2 > NS ? w->hist_ns / 2 : NS, settle = settle_ns(x);

	x->judge_at = 0;
	x->last_judged = until;
	while (x->judged_until + (final ? 0 : settle) < until) {
		uint64_t to = x->judged_until + settle + step < until ? x->judged_until + settle + step : until;
		uint64_t before = x->judged_until;

		judge_span(w, x, to, final && to == until ? to : to - settle);
		if (x->judged_until == before)
			break;
	}
}

/* The actors whose thread exited are judged one last time and forgotten; none left: learn again. */
static void forget_gone(struct watch *w, uint64_t now)
{
	size_t k = 0;

	for (size_t i = 0; i < w->n; i++) {
		struct watched *x = &w->v[i];

		/* Kept while a window to write may hold its records: the window's verdict judges it. */
		if (x->gone && x->judged_until >= x->fed_until && trigger__keep_from(w->trig) > x->fed_until) {
			watch_say(w, "%s exited: no longer watched", x->a.name);
			history__untrack(w->hist, x->a.tid);
			continue;
		}
		w->v[k++] = *x;
	}
	if (k == w->n)
		return;
	w->n = k;
	{
		uint32_t tids[256];
		size_t nt = 0;

		for (size_t i = 0; i < w->n && nt < 256; i++)
			tids[nt++] = w->v[i].a.tid;
		tap__set_tids(w->tap, tids, nt);
	}
	if (!w->n) {
		w->ls = L_WAIT;
		w->learn_at = now + w->o.before_ns;
	}
}

/*
 * Each actor is judged when its follower flags something, at least every
 * sweep, once more when its thread is gone, and as soon as a window
 * waits for its breaks.
 */
void watched_step(struct watch *w, uint64_t until, bool final)
{
	uint64_t window_end = trigger__next_end(w->trig);

	for (size_t i = 0; i < w->n; i++) {
		struct watched *x = &w->v[i];
		bool window = window_end != UINT64_MAX && x->judged_until < window_end + w->o.lag_ns &&
			      until >= window_end + w->o.lag_ns + settle_ns(x);

		feed(w, x, until);
		if (final || window || (x->judge_at && until >= x->judge_at) || until - x->last_judged >= w->sweep_ns ||
		    (x->gone && x->judged_until < x->fed_until))
			judge(w, x, until, final || x->gone);
	}
	forget_gone(w, until);
}

/* Every break up to this time is decided: the windows that end before it may be written. */
uint64_t watched_decided(const struct watch *w, uint64_t until)
{
	uint64_t d = until;

	if (w->ls == L_CATCHUP)
		return 0;
	for (size_t i = 0; w->ls == L_DONE && i < w->n; i++)
		if (w->v[i].judged_until < d)
			d = w->v[i].judged_until;
	return d;
}


/* Did the detector find tid's break at `at` as it came? */
static bool found_online(const struct trig_break *log, size_t n, uint32_t tid, int64_t at)
{
	for (size_t i = 0; i < n; i++)
		if (log[i].tid == tid && log[i].at_ns == at)
			return true;
	return false;
}

int watched_verdict(struct watch *w, const struct window_plan *p, struct trig_break **out, size_t *n)
{
	/*
	 * Judged on the records the file will hold, not on the histories:
	 * the window's first block may begin before what a history still
	 * holds, and the report of the file would see breaks there that a
	 * verdict from the history could not.
	 */
	struct history *h = history__new(SIZE_MAX / 4);
	struct trig_break *log = NULL, *v = NULL;
	size_t nlog = 0, cap = 0;
	uint64_t from = p->first_ts, to = p->last_ts, first = UINT64_MAX;
	int err = h ? 0 : -ENOMEM;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < w->n && !err; i++)
		err = history__track(h, w->v[i].a.tid);
	if (!err)
		err = window_records(w->ring, p, h, &first);
	if (first < from)
		from = first;
	if (!err)
		err = trigger__breaks_in(w->trig, from, to, &log, &nlog);
	for (size_t i = 0; i < w->n && !err; i++) {
		const struct watched *x = &w->v[i];
		struct judge_in in;
		struct judge_out jo;

		if (!judge_in_of(w, h, x, from, to, &in) || judge_actor(&in, &jo))
			continue;
		log_debug("verdict on [%.3f, %.3f] s: %s judged on [%.3f, %.3f] s, %zu records: %s, period %.0f ns, "
			  "%zu invocations, %zu breaks", (from - w->start_ts) / 1e9, (to - w->start_ts) / 1e9, x->a.name,
			  (in.from - w->start_ts) / 1e9, (in.to - w->start_ts) / 1e9, in.nrecs,
			  jo.periodic ? "periodic" : "not periodic", jo.period_ns, jo.ninv, jo.nbreaks);
		for (size_t k = 0; k < jo.nbreaks && jo.periodic && !err; k++) {
			const struct judge_break *b = &jo.breaks[k];
			struct trig_break *t;

			if (b->data_missing || !watch_major(b->lateness_ns, jo.period_ns, w->o.late_ns) ||
			    b->late_ns < (int64_t)from || b->late_ns > (int64_t)to)
				continue;
			if (*n == cap) {
				cap = cap ? cap * 2 : 16;
				t = realloc(v, cap * sizeof(*v));
				if (!t) {
					err = -ENOMEM;
					break;
				}
				v = t;
			}
			t = &v[(*n)++];
			*t = (struct trig_break){
				.tid = x->a.tid, .at_ns = b->late_ns, .lateness_ns = b->lateness_ns,
				.period_ns = jo.period_ns, .kind = b->kind,
				.online = found_online(log, nlog, x->a.tid, b->late_ns),
			};
			snprintf(t->actor, sizeof(t->actor), "%s", x->a.name);
			memcpy(t->comm, x->a.comm, sizeof(t->comm));
		}
		judge_out_free(&jo);
	}
	free(log);
	history__free(h);
	if (err) {
		free(v);
		*n = 0;
		return err;
	}
	*out = v;
	return 0;
}
