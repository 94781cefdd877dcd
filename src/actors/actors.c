// SPDX-License-Identifier: MIT
/*
 * The actors stage: which actors, their invocations, periods and breaks,
 * and the most upstream breaking actor. The rules are in src/actors/actors.h;
 * this file says why where it is not obvious.
 *
 * The clustering (invocations.h) is SATM's with the QCoD guard, plus two
 * rules against the guard's known failures (ALGORITHMS.md §1.5 and the
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
#include <fnmatch.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "actors.h"
#include "lib/log.h"
#include "stats/quartiles.h"
#include "file/syscall_names.h"
#include "file/trace.h"
#include "lib/workq.h"

/* ---- actor specs ---- */

enum sel_kind { SEL_AUTO, SEL_COMM, SEL_TID, SEL_PID };

struct spec {
	const char *text;
	enum sel_kind sel;
	char pattern[64];	/* SEL_COMM: a shell glob on the thread's name */
	uint32_t id;		/* SEL_TID, SEL_PID */
	bool syscall;
	char call[40];		/* the syscall's name (or number) */
	bool has_arg0;
	uint64_t arg0;
};

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static int parse_id(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!all_digits(s, strlen(s)))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || v > UINT32_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

static int spec_error(char *msg, size_t len, const char *text, const char *why)
{
	if (msg && len)
		snprintf(msg, len, "--actor '%s': %s", text, why);
	return -EINVAL;
}

static int spec_parse(const char *text, struct spec *sp, char *msg, size_t len)
{
	const char *thr = text, *at;

	memset(sp, 0, sizeof(*sp));
	sp->text = text;
	if (!text || !*text)
		return spec_error(msg, len, text ? text : "", "empty");
	if (!strcmp(text, "auto")) {
		sp->sel = SEL_AUTO;
		return 0;
	}
	at = strchr(text, '@');
	if (at) {
		const char *paren = memchr(text, '(', at - text);
		size_t n = (paren ? paren : at) - text;

		if (!n || n >= sizeof(sp->call))
			return spec_error(msg, len, text, "a system call name before '@', e.g. write@sink");
		for (size_t i = 0; i < n; i++) {
			char ch = text[i];

			if (!(ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			      (ch >= '0' && ch <= '9')))
				return spec_error(msg, len, text, "a system call name is letters, digits and _");
		}
		memcpy(sp->call, text, n);
		sp->call[n] = 0;
		if (paren) {
			char buf[32], *end;
			size_t an = at - paren - 1;

			if (an < 2 || paren[an] != ')' || an - 1 >= sizeof(buf))
				return spec_error(msg, len, text, "the first argument in parentheses, e.g. write(1)@sink");
			memcpy(buf, paren + 1, an - 1);
			buf[an - 1] = 0;
			errno = 0;
			sp->arg0 = strtoull(buf, &end, 0);
			if (errno || *end || buf[0] == '-' || buf[0] == '+' || buf[0] == ' ')
				return spec_error(msg, len, text, "the first argument must be a number, e.g. write(1)@sink");
			sp->has_arg0 = true;
		}
		sp->syscall = true;
		thr = at + 1;
	}
	if (!*thr)
		return spec_error(msg, len, text, "which thread? a name, a tid, tid:N, pid:N or comm:NAME");
	if (!strncmp(thr, "tid:", 4) || !strncmp(thr, "pid:", 4)) {
		sp->sel = thr[0] == 't' ? SEL_TID : SEL_PID;
		if (parse_id(thr + 4, &sp->id))
			return spec_error(msg, len, text, "tid:/pid: take a positive number");
		return 0;
	}
	if (all_digits(thr, strlen(thr))) {
		sp->sel = SEL_TID;
		if (parse_id(thr, &sp->id))
			return spec_error(msg, len, text, "a thread id must be a positive 32-bit number");
		return 0;
	}
	if (!strncmp(thr, "comm:", 5))
		thr += 5;
	if (!*thr || strlen(thr) >= sizeof(sp->pattern))
		return spec_error(msg, len, text, "a thread name (or glob) of 1 to 63 characters");
	sp->sel = SEL_COMM;
	strcpy(sp->pattern, thr);
	return 0;
}

int actors__check_spec(const char *spec, char *msg, size_t len)
{
	struct spec sp;

	return spec_parse(spec, &sp, msg, len);
}

static bool spec_matches(const struct spec *sp, const struct tl_thread *th)
{
	switch (sp->sel) {
	case SEL_TID:
		return th->tid == sp->id;
	case SEL_PID:
		return th->pid == sp->id;
	case SEL_COMM:
		return fnmatch(sp->pattern, th->comm, 0) == 0;
	default:
		return false;
	}
}

/* ---- building ---- */

struct cand {
	enum actor_kind kind;
	uint32_t thread;
	uint32_t nr;
	bool has_arg0;
	uint64_t arg0;
	bool from_spec;
};

struct ctx {
	const struct timeline *tl;
	struct actors_result *r;
	struct invocations_opts inv_opts;
	struct period_opts popts;
	size_t min_runs, min_inv;
	int jobs;

	/* missing data */
	uint64_t gap_maxlen;
	uint32_t futex_nr[2];		/* futex and futex_time64 in the recording's ABI; UINT32_MAX: none */

	size_t cap_v, cap_skip;
};

/* A site where a thread waited, and how many of its waits were there. */
struct wait_site {
	uint64_t key;
	size_t count;
};

/*
 * Distinct sites followed per thread: more, and none is the usual one
 * (waits are then left as they are). The table stays under half full.
 */
#define ACTORS_SITES_MAX 1024
#define ACTORS_SITES_SLOTS 2048

/*
 * One worker's scratch, grown to its largest actor. A busy thread has
 * millions of runs and two are studied at once: what is touched per run
 * here is most of the analysis's peak memory on a storm, so the int64
 * arrays are the invocations workspace's own, lent (invocations_ws_lend).
 */
struct work {
	size_t cap;
	struct invoc_fragment *frag;
	size_t *idx;		/* SYSCALL: fragment -> index into tl->sc */
	size_t idx0;		/* THREAD: fragment j is run idx0 + j of tl->runs */
	struct period_break *pb;
	struct invocations_ws *ws;
	struct wait_site *sites;	/* ACTORS_SITES_SLOTS: the waits of a thread actor */
	size_t nwaits, nincidental;
};

/* What studying one candidate gave: an actor, or the reason it was skipped. */
struct studied {
	struct actor a;
	bool have;
	const char *skip;
	size_t skip_count;
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if (n > SIZE_MAX / size)
		return -ENOMEM;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

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

static int add_skip(struct ctx *c, uint32_t thread, const char *reason, size_t count)
{
	struct actors_result *r = c->r;
	int err = grow((void **)&r->skipped, &c->cap_skip, r->nskipped + 1, sizeof(*r->skipped));

	if (err)
		return err;
	r->skipped[r->nskipped++] = (struct actor_skip){ .thread = thread, .reason = reason, .count = count };
	return 0;
}

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
static void measure_gaps(struct ctx *c)
{
	const struct timeline *tl = c->tl;

	for (size_t i = 0; i < tl->ngaps; i++) {
		uint64_t len = tl->gaps[i].end - tl->gaps[i].start;

		if (len > c->gap_maxlen)
			c->gap_maxlen = len;
	}
}

/* Is sc a call of system call nr (with first argument arg0, if has_arg0)? */
static bool call_of(const struct tl_syscall *sc, uint32_t nr, bool has_arg0, uint64_t arg0)
{
	return sc->nr == nr && (!has_arg0 || sc->arg0 == arg0);
}

/*
 * Where a thread waited on a futex: its address. Only futex waits can be
 * incidental: a rare wait in read() or poll() is as likely a release (a
 * stage joining two inputs that blocks on the second only when it is the
 * later one) as a pause in the work.
 */
static bool futex_wait(const struct ctx *c, const struct tl_syscall *sc)
{
	return sc && (sc->nr == c->futex_nr[0] || sc->nr == c->futex_nr[1]);
}

/* The site's slot in w->sites (open addressing); NULL when the table is full. */
static struct wait_site *site_slot(struct work *w, uint64_t key, size_t *nsites)
{
	size_t mask = ACTORS_SITES_SLOTS - 1, i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & mask;

	for (;; i = (i + 1) & mask) {
		struct wait_site *s = &w->sites[i];

		if (s->count && s->key == key)
			return s;
		if (!s->count) {
			if (*nsites >= ACTORS_SITES_MAX)
				return NULL;
			++*nsites;
			s->key = key;
			return s;
		}
	}
}

/* Does fragment j end in a wait (the thread left its CPU for good, and not by exiting)? */
static bool ends_in_wait(const struct work *w, const struct tl_run *runs, size_t j)
{
	return !w->frag[j].continues && runs[j].end_state != QT_END_EXITED;
}

/* Is a site with count of the thread's waits incidental (rare)? */
static bool site_rare(const struct work *w, size_t count)
{
	return count * ACTORS_WAIT_RARE_DIV < w->nwaits;
}

/*
 * The waits that end fragments [0, m) (not the last: no run follows it):
 * counted in w->nwaits and, on a futex, at their sites in w->sites (mark
 * false: returns the number of sites), or marked as continuing where their
 * site is incidental (mark true: returns how many). SIZE_MAX: more than
 * ACTORS_SITES_MAX sites. runs are the thread's from the first fragment;
 * its calls are in time order and do not overlap.
 */
static size_t wait_sites(const struct ctx *c, const struct tl_thread *th, const struct tl_run *runs, size_t m,
			 struct work *w, bool mark)
{
	const struct tl_syscall *sc = c->tl->sc + th->sc0, *sc_end = sc + th->nsc;
	size_t nsites = 0, bad = 0;

	for (size_t j = 0; j + 1 < m; j++) {
		uint64_t e = runs[j].end;
		struct wait_site *s;

		if (!ends_in_wait(w, runs, j))
			continue;
		w->nwaits += !mark;
		while (sc < sc_end && sc->end < e)
			sc++;
		if (sc == sc_end || sc->start > e || !futex_wait(c, sc))
			continue;
		s = site_slot(w, sc->arg0, &nsites);
		if (!s)
			return SIZE_MAX;
		if (!mark) {
			s->count++;
			continue;
		}
		if (site_rare(w, s->count)) {
			w->frag[j].continues = true;
			bad++;
		}
	}
	return mark ? bad : nsites;
}

/*
 * The incidental waits of a thread actor (actors.h) continue their
 * invocation: marked in w->frag as a preemption is. Returns how many.
 */
static size_t mark_incidental(const struct ctx *c, const struct tl_thread *th, const struct tl_run *runs,
			      size_t m, struct work *w)
{
	size_t rare = 0;

	if (!th->nsc || m < 3 || c->futex_nr[0] == UINT32_MAX)
		return 0;
	memset(w->sites, 0, ACTORS_SITES_SLOTS * sizeof(*w->sites));
	w->nwaits = 0;
	if (wait_sites(c, th, runs, m, w, false) == SIZE_MAX)
		return 0;
	for (size_t i = 0; i < ACTORS_SITES_SLOTS; i++)
		if (w->sites[i].count && site_rare(w, w->sites[i].count))
			rare += w->sites[i].count;
	/* Most waits must be the usual ones: else no site is a release, or every one is. */
	if (rare * ACTORS_WAIT_USUAL_DIV > w->nwaits)
		return 0;
	return rare ? wait_sites(c, th, runs, m, w, true) : 0;
}

/*
 * The uninterruptible sleeps between fragments [0, m) continue their
 * invocation (actors.h) when they are at most 1/ACTORS_WAIT_USUAL_DIV of
 * the thread's waits. Returns how many were marked.
 */
static size_t mark_blocked(const struct tl_run *runs, size_t m, struct work *w)
{
	size_t waits = 0, blocked = 0;

	for (size_t j = 0; j + 1 < m; j++) {
		if (!ends_in_wait(w, runs, j))
			continue;
		waits++;
		blocked += runs[j].end_state == QT_END_BLOCKED;
	}
	if (!blocked || blocked * ACTORS_WAIT_USUAL_DIV > waits)
		return 0;
	for (size_t j = 0; j + 1 < m; j++)
		if (runs[j].end_state == QT_END_BLOCKED)
			w->frag[j].continues = true;
	return blocked;
}

/*
 * The fragments of a candidate into w->frag (and w->idx for syscalls).
 * Returns their number; *ncut gets the runs left out at the start.
 */
static size_t gather(const struct ctx *c, struct work *w, const struct cand *cd, size_t *ncut)
{
	const struct timeline *tl = c->tl;
	const struct tl_thread *th = &tl->threads[cd->thread];
	size_t m = 0;

	*ncut = 0;
	if (cd->kind == ACTOR_THREAD) {
		const struct tl_run *runs = tl->runs + th->run0;
		size_t j = 0;

		/*
		 * The invocation under way at the start began at an unknown
		 * time; the first segment of a thread born (or of a program
		 * started) in the recording is its set-up, not its loop (its
		 * "interval" to the first real invocation would be a break in
		 * every pipeline that starts).
		 */
		if (th->nrun && ((runs[0].flags & TL_RUN_START_CUT) || (th->flags & (TT_BORN | TT_EXECED)))) {
			/* a program's set-up also blocks, reading its libraries from disk */
			while (j < th->nrun && (runs[j].end_state == QT_END_PREEMPTED ||
						runs[j].end_state == QT_END_BLOCKED))
				j++;
			j = j < th->nrun ? j + 1 : j;
			*ncut = j;
		}
		w->idx0 = th->run0 + j;
		for (; j < th->nrun; j++) {
			int64_t s = runs[j].start;

			/* An uncertain start is an estimate; keep the order exact. */
			if (m && s < w->frag[m - 1].start_ns)
				s = w->frag[m - 1].start_ns;
			w->frag[m].start_ns = s;
			w->frag[m].end_ns = (int64_t)runs[j].end > s ? (int64_t)runs[j].end : s;
			w->frag[m].continues = runs[j].end_state == QT_END_PREEMPTED;
			m++;
		}
		w->nincidental = mark_blocked(runs + (w->idx0 - th->run0), m, w);
		w->nincidental += mark_incidental(c, th, runs + (w->idx0 - th->run0), m, w);
	} else {
		for (size_t j = th->sc0; j < th->sc0 + th->nsc; j++) {
			const struct tl_syscall *sc = &tl->sc[j];

			if (!call_of(sc, cd->nr, cd->has_arg0, cd->arg0))
				continue;
			w->frag[m].start_ns = sc->start;
			w->frag[m].end_ns = sc->end > sc->start ? (int64_t)sc->end : (int64_t)sc->start;
			w->frag[m].continues = false;
			w->idx[m] = j;
			m++;
		}
	}
	return m;
}

/* Which run (THREAD) or syscall (SYSCALL) of the timeline fragment j is. */
static size_t occurrence(const struct work *w, const struct cand *cd, size_t j)
{
	return cd->kind == ACTOR_THREAD ? w->idx0 + j : w->idx[j];
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

static void actor_release(struct actor *a)
{
	free(a->inv);
	free(a->breaks);
	a->inv = NULL;
	a->breaks = NULL;
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

	invocations_ws_lend(w->ws, &seg, &nseg, &at);
	err = period_analyze(seg, nseg, &c->popts, &st, NULL, at);
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
		err = period_analyze(t + lo, hi - lo, &c->popts, &a->st, w->pb, spare);
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
	return lo == lo1 && hi == hi1 ? 0 : period_analyze(t, a->ninv, &c->popts, &a->st, w->pb, spare);
}

/*
 * Each invocation's overrun into over[] (0: none; actors.h), from its held
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
 * order (actors.h). t and spare: a->ninv int64 of scratch each.
 */
static int add_overruns(const struct ctx *c, struct actor *a, int64_t *t, int64_t *spare)
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
	n = gather(c, w, cd, &ncut);
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
	invocations_ws_lend(w->ws, &t, &nseg, &spare);
	for (size_t k = 0; k < ninv; k++) {
		struct invocation iv = built[k];

		((struct actor_invocation *)kept)[k] = (struct actor_invocation){
			.start_ns = iv.start_ns, .end_ns = iv.end_ns,
			.first = occurrence(w, cd, iv.first), .last = occurrence(w, cd, iv.last) };
		t[k] = iv.start_ns;
	}
	/* Shrunk in place: the slots beyond ninv go back. */
	a.inv = ninv < n ? realloc(kept, (ninv ? ninv : 1) * sizeof(*a.inv)) : kept;
	a.inv = a.inv ? a.inv : kept;
	a.ninv = ninv;
	err = period_analyze(t, ninv, &c->popts, &a.st, w->pb, spare);
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
		err = add_overruns(c, &a, t, spare);
	if (err)
		goto fail;
	for (size_t b = 0; b < a.nbreaks; b++) {
		struct actor_break *x = &a.breaks[b];

		x->data_missing = interval_missing(c, th->tid, x->start_ns, x->end_ns);
		holdup__explains(tl, &a, x, &x->held);
		if (x->data_missing)
			a.nbreaks_missing++;
		else if (x->lateness_ns > a.worst_lateness_ns)
			a.worst_lateness_ns = x->lateness_ns;
	}
	a.breaking = a.nbreaks > a.nbreaks_missing;
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
		return add_skip(c, cd->thread, s->skip, s->skip_count);
	if (!s->have)
		return 0;
	err = grow((void **)&r->v, &c->cap_v, r->n + 1, sizeof(*r->v));
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
	invocations_ws_free(w->ws);
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

	sw->w.ws = invocations_ws_new();
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
static int study_all(struct ctx *c, const struct cand *cands, size_t n)
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

/*
 * period_split() over the invocations, with the breaks for its positive
 * windows: they are the intervals it would mark, and only a periodic
 * actor has them.
 */
void actor_windows(const struct actor *a, const struct timeline *tl, struct period_window *out)
{
	const struct actor_invocation *inv = a->inv;
	size_t n = a->ninv, b = 0;

	if (!n)
		return;
	out[0] = (struct period_window){
		.start_ns = (int64_t)tl->start < inv[0].start_ns ? (int64_t)tl->start : inv[0].start_ns,
		.end_ns = inv[0].start_ns,
		.before = SIZE_MAX,
	};
	for (size_t k = 0; k + 1 < n; k++) {
		while (b < a->nbreaks && actor_break_window(&a->breaks[b]) < k)
			b++;
		out[k + 1] = (struct period_window){
			.start_ns = inv[k].start_ns,
			.end_ns = inv[k + 1].start_ns,
			.positive = b < a->nbreaks && actor_break_window(&a->breaks[b]) == k,
			.before = k,
		};
	}
	out[n] = (struct period_window){
		.start_ns = inv[n - 1].start_ns,
		.end_ns = (int64_t)tl->end > inv[n - 1].start_ns ? (int64_t)tl->end : inv[n - 1].start_ns,
		.end_closed = true,
		.before = n - 1,
	};
}

/* ---- choosing the actors ---- */

static bool cand_same(const struct cand *x, const struct cand *y)
{
	return x->kind == y->kind && x->thread == y->thread && x->nr == y->nr &&
	       x->has_arg0 == y->has_arg0 && x->arg0 == y->arg0;
}

static int cand_add(struct cand **v, size_t *n, size_t *cap, const struct cand *cd)
{
	int err;

	for (size_t i = 0; i < *n; i++) {
		if (cand_same(&(*v)[i], cd)) {
			(*v)[i].from_spec |= cd->from_spec;
			return 0;
		}
	}
	err = grow((void **)v, cap, *n + 1, sizeof(**v));
	if (!err)
		(*v)[(*n)++] = *cd;
	return err;
}

/*
 * Thread actors come first in thread order; for a thread's spec matches,
 * cand_add's linear dedupe is over the few candidates of the specs only.
 */
static int choose(struct ctx *c, const struct analysis_opts *o, struct cand **out, size_t *nout)
{
	const struct timeline *tl = c->tl;
	const char *arch = trace__arch(tl->trace);
	struct cand *v = NULL, *sv = NULL;
	size_t n = 0, cap = 0, sn = 0, scap = 0;
	bool want_default = o->n_actor_specs == 0;
	char msg[256];
	int err = 0;

	for (size_t i = 0; i < o->n_actor_specs; i++) {
		struct spec sp;
		size_t matched = 0, with_calls = 0;
		uint32_t last = 0;
		int nr = -1;

		if (spec_parse(o->actor_specs[i], &sp, msg, sizeof(msg))) {
			log_err("%s", msg);
			err = -EINVAL;
			goto out;
		}
		if (sp.sel == SEL_AUTO) {
			want_default = true;
			continue;
		}
		if (sp.syscall) {
			nr = all_digits(sp.call, strlen(sp.call)) ? atoi(sp.call) : syscall_number(arch, sp.call);
			if (nr < 0) {
				log_err("--actor '%s': no system call '%s' on %s", sp.text, sp.call,
					arch ? arch : "x86_64");
				err = -EINVAL;
				goto out;
			}
		}
		for (uint32_t th = 0; th < tl->nthreads; th++) {
			const struct tl_thread *x = &tl->threads[th];
			struct cand cd = { .thread = th, .from_spec = true };
			size_t calls = 0;

			if (!spec_matches(&sp, x) || (!x->nrun && !x->nsc))
				continue;
			/* A glob naming qostrace's own threads is rarely meant; a tid is. */
			if ((x->flags & TL_RECORDER) && sp.sel == SEL_COMM &&
			    strpbrk(sp.pattern, "*?["))
				continue;
			matched++;
			last = th;
			if (!sp.syscall) {
				if (!x->nrun)
					continue;
				cd.kind = ACTOR_THREAD;
			} else {
				for (size_t j = x->sc0; j < x->sc0 + x->nsc; j++)
					calls += call_of(&tl->sc[j], (uint32_t)nr, sp.has_arg0, sp.arg0);
				if (!calls)
					continue;
				cd.kind = ACTOR_SYSCALL;
				cd.nr = nr;
				cd.has_arg0 = sp.has_arg0;
				cd.arg0 = sp.arg0;
			}
			with_calls++;
			err = cand_add(&sv, &sn, &scap, &cd);
			if (err)
				goto out;
		}
		if (!matched) {
			char what[96];

			if (sp.sel == SEL_COMM)
				snprintf(what, sizeof(what), "named '%s'", sp.pattern);
			else
				snprintf(what, sizeof(what), "%s %u", sp.sel == SEL_TID ? "with tid" : "in process",
					 sp.id);
			log_err("--actor '%s': no thread %s ran in this recording (the report's thread "
				"list names them)", sp.text, what);
			err = -EINVAL;
			goto out;
		}
		if (!with_calls) {
			char who[64], arg[32] = "";

			if (matched == 1)
				snprintf(who, sizeof(who), "%s/%u", tl->threads[last].comm, tl->threads[last].tid);
			else
				snprintf(who, sizeof(who), "none of the %zu matching threads", matched);
			if (sp.has_arg0)
				snprintf(arg, sizeof(arg), " with first argument %llu", (unsigned long long)sp.arg0);
			if (sp.syscall)
				log_err("--actor '%s': %s made no %s call%s", sp.text, who, sp.call, arg);
			else
				log_err("--actor '%s': %s ran in this recording", sp.text,
					matched == 1 ? "that thread never" : "none of the matching threads");
			err = -EINVAL;
			goto out;
		}
	}
	if (want_default) {
		for (uint32_t th = 0; th < tl->nthreads; th++) {
			const struct tl_thread *x = &tl->threads[th];
			struct cand cd = { .kind = ACTOR_THREAD, .thread = th };

			if (!x->nrun)
				continue;
			if (x->flags & TL_RECORDER) {
				err = add_skip(c, th, "qostrace itself", x->nrun);
				if (err)
					goto out;
				continue;
			}
			if (!(x->flags & TL_TARGET))
				continue;
			/*
			 * With -a every thread is a target, and rcu_preempt, which
			 * runs every few ms while a grace period lasts and then
			 * not for a second, was "first to break its 8 ms period"
			 * beside a pipeline. A kernel thread's work is what
			 * disturbs the program, not a rhythm of its own: a cause
			 * and a pattern, and an actor only when named.
			 */
			if (x->flags & TT_KTHREAD) {
				err = add_skip(c, th, "kernel thread", x->nrun);
				if (err)
					goto out;
				continue;
			}
			err = grow((void **)&v, &cap, n + 1, sizeof(*v));
			if (err)
				goto out;
			v[n++] = cd;
		}
	}
	/* Named thread actors that the default set has already: mark them. */
	for (size_t i = 0; i < sn; i++) {
		bool dup = false;

		for (size_t k = 0; k < n && sv[i].kind == ACTOR_THREAD; k++) {
			if (cand_same(&v[k], &sv[i])) {
				v[k].from_spec = true;
				dup = true;
				break;
			}
		}
		if (dup)
			continue;
		err = grow((void **)&v, &cap, n + 1, sizeof(*v));
		if (err)
			goto out;
		v[n++] = sv[i];
	}
out:
	free(sv);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*nout = n;
	return 0;
}

/* ---- upstream order ---- */

static int cmp_edge(const void *x, const void *y)
{
	const struct actor_edge *a = x, *b = y;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return (a->to > b->to) - (a->to < b->to);
}

/* Does the syscall actor a have an invocation containing ts? */
static bool in_invocation(const struct actor *a, int64_t ts)
{
	size_t lo = 0, hi = a->ninv;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->inv[mid].start_ns <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && ts <= a->inv[lo - 1].end_ns;
}

/* End of the thread's last run that starts before ts (its previous wait began there); 0 if none. */
static uint64_t run_before_end(const struct timeline *tl, const struct tl_thread *th, size_t run, uint64_t ts)
{
	size_t lo = th->run0, hi = th->run0 + th->nrun;

	if (run == SIZE_MAX) {
		/* the run containing ts: the last one starting at or before it */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (tl->runs[mid].start <= ts)
				lo = mid + 1;
			else
				hi = mid;
		}
		run = lo > th->run0 ? lo - 1 : th->run0;
	}
	return run > th->run0 ? tl->runs[run - 1].end : 0;
}

/*
 * The wakeups thread th received with ts > lo_ts: index into its
 * wk_by_wakee slice, known to be at least from. A thread's invocations ask
 * in time order, so the answer is a few wakeups on from the last one:
 * galloping forward finds it without a search over all of them (a busy
 * thread's million invocations each cost a score of cache misses so).
 */
static size_t wake_lower(const struct timeline *tl, const struct tl_thread *th, uint64_t lo_ts, size_t from)
{
	size_t lo = from, hi, step = 1;

	for (;;) {
		hi = lo + step - 1;
		if (hi >= th->nwr) {
			hi = th->nwr;
			break;
		}
		if (tl->wk[tl->wk_by_wakee[th->wr0 + hi]].ts > lo_ts)
			break;
		lo = hi + 1;
		step *= 2;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl->wk[tl->wk_by_wakee[th->wr0 + mid]].ts <= lo_ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Counts, for every pair of actors, the invocations of B that A woke (each
 * invocation counted once per waker). Per B, a counter per actor and the
 * list of those touched: linear in the wakeups, no sort of the pairs.
 */
static int collect_edges(struct ctx *c, struct actor_edge **out, size_t *nout)
{
	const struct timeline *tl = c->tl;
	struct actors_result *r = c->r;
	size_t na = r->n, ne = 0, cap = 0, ntouched;
	long *head = malloc((tl->nthreads ? tl->nthreads : 1) * sizeof(*head));
	long *next = malloc((na ? na : 1) * sizeof(*next));
	uint64_t *stamp = calloc(na ? na : 1, sizeof(*stamp));
	size_t *count = calloc(na ? na : 1, sizeof(*count));
	size_t *touched = malloc((na ? na : 1) * sizeof(*touched));
	struct actor_edge *e = NULL;
	uint64_t cur = 0;
	int err = 0;

	if (!head || !next || !stamp || !count || !touched) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < tl->nthreads; i++)
		head[i] = -1;
	for (size_t i = na; i-- > 0;) {
		next[i] = head[r->v[i].thread];
		head[r->v[i].thread] = i;
	}
	for (size_t b = 0; b < na; b++) {
		const struct actor *B = &r->v[b];
		const struct tl_thread *th = &tl->threads[B->thread];
		uint64_t prev = 0;

		ntouched = 0;
		for (size_t k = 0, from = 0; k < B->ninv; k++) {
			const struct actor_invocation *iv = &B->inv[k];
			uint64_t lo = B->kind == ACTOR_THREAD ?
				run_before_end(tl, th, iv->first, 0) :
				run_before_end(tl, th, SIZE_MAX, iv->start_ns);

			cur++;
			/* runs with an uncertain start may go back in time: search from the start */
			from = wake_lower(tl, th, lo, lo < prev ? 0 : from);
			prev = lo;
			for (size_t j = from; j < th->nwr; j++) {
				const struct tl_wakeup *w = &tl->wk[tl->wk_by_wakee[th->wr0 + j]];
				int64_t wt = w->waking_ts && w->waking_ts <= w->ts ? w->waking_ts : w->ts;

				if ((int64_t)w->ts > iv->end_ns)
					break;
				if (w->is_new || w->waker == TL_NONE || w->waker == B->thread)
					continue;
				for (long a = head[w->waker]; a >= 0; a = next[a]) {
					if (stamp[a] == cur)
						continue;
					if (r->v[a].kind == ACTOR_SYSCALL && !in_invocation(&r->v[a], wt))
						continue;
					stamp[a] = cur;
					if (!count[a]++)
						touched[ntouched++] = a;
				}
			}
		}
		for (size_t i = 0; i < ntouched; i++) {
			size_t a = touched[i];

			err = grow((void **)&e, &cap, ne + 1, sizeof(*e));
			if (err)
				goto out;
			e[ne++] = (struct actor_edge){ .from = a, .to = b, .invocations = count[a] };
			count[a] = 0;
		}
	}
	if (ne)
		qsort(e, ne, sizeof(*e), cmp_edge);
out:
	free(head);
	free(next);
	free(stamp);
	free(count);
	free(touched);
	if (err) {
		free(e);
		return err;
	}
	*out = e;
	*nout = ne;
	return 0;
}

static size_t edge_count(const struct actor_edge *e, size_t n, size_t from, size_t to)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e[mid].from < from || (e[mid].from == from && e[mid].to < to))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && e[lo].from == from && e[lo].to == to ? e[lo].invocations : 0;
}

static int build_edges(struct ctx *c)
{
	struct actors_result *r = c->r;
	struct actor_edge *all = NULL;
	size_t nall = 0;
	int err = collect_edges(c, &all, &nall);

	if (err)
		return err;
	r->edges = malloc((nall ? nall : 1) * sizeof(*r->edges));
	if (!r->edges) {
		free(all);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nall; i++) {
		const struct actor_edge *e = &all[i];
		size_t back = edge_count(all, nall, e->to, e->from);

		if (e->invocations < ACTORS_EDGE_MIN || e->invocations * 10 < r->v[e->to].ninv ||
		    back > 2 * e->invocations)
			continue;
		r->edges[r->nedges++] = *e;
	}
	free(all);
	return 0;
}

/* Earlier first trusted break: start, then end, then index. */
static bool breaks_earlier(const struct actors_result *r, size_t x, size_t y)
{
	const struct actor_break *bx = NULL, *by = NULL;

	for (size_t i = 0; i < r->v[x].nbreaks && !bx; i++)
		if (!r->v[x].breaks[i].data_missing)
			bx = &r->v[x].breaks[i];
	for (size_t i = 0; i < r->v[y].nbreaks && !by; i++)
		if (!r->v[y].breaks[i].data_missing)
			by = &r->v[y].breaks[i];
	if (bx->start_ns != by->start_ns)
		return bx->start_ns < by->start_ns;
	if (bx->end_ns != by->end_ns)
		return bx->end_ns < by->end_ns;
	return x < y;
}

/* A trusted major break (actors_major). */
static bool is_major(const struct actor *a)
{
	return a->breaking && actors_major(a->worst_lateness_ns, a->st.period_ns);
}

static int find_upstream(struct ctx *c)
{
	struct actors_result *r = c->r;
	size_t na = r->n, nb = 0;
	size_t *first = calloc(na + 1, sizeof(*first));
	size_t *queue = malloc((na ? na : 1) * sizeof(*queue));
	long *bidx = malloc((na ? na : 1) * sizeof(*bidx));
	size_t *brk = malloc((na ? na : 1) * sizeof(*brk));
	uint64_t *seen = calloc(na ? na : 1, sizeof(*seen));
	unsigned char *reach = NULL;
	int err = 0;

	r->upstream = -1;
	if (!first || !queue || !bidx || !brk || !seen) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < na; i++) {
		bidx[i] = r->v[i].breaking ? (long)nb : -1;
		if (r->v[i].breaking)
			brk[nb++] = i;
	}
	if (!nb)
		goto out;
	/* Adjacency: edges are sorted by `from`. */
	for (size_t e = 0; e < r->nedges; e++)
		first[r->edges[e].from + 1]++;
	for (size_t i = 0; i < na; i++)
		first[i + 1] += first[i];
	reach = calloc(nb * nb, 1);
	if (!reach) {
		err = -ENOMEM;
		goto out;
	}
	/* reach[x][y]: breaking actor x reaches breaking actor y (breadth first). */
	for (size_t x = 0; x < nb; x++) {
		size_t qh = 0, qt = 0;

		queue[qt++] = brk[x];
		seen[brk[x]] = x + 1;
		while (qh < qt) {
			size_t u = queue[qh++];

			for (size_t e = first[u]; e < first[u + 1]; e++) {
				size_t v = r->edges[e].to;

				if (seen[v] == x + 1)
					continue;
				seen[v] = x + 1;
				queue[qt++] = v;
				if (bidx[v] >= 0)
					reach[x * nb + bidx[v]] = 1;
			}
		}
	}
	for (size_t y = 0; y < nb; y++)
		for (size_t x = 0; x < nb && !r->v[brk[y]].fed; x++)
			if (x != y && reach[x * nb + y] && !reach[y * nb + x])
				r->v[brk[y]].fed = true;
	/*
	 * Among the unfed: widest reach, then worst relative lateness, then
	 * earliest. Where some actor has a major break, only those compete,
	 * fed among themselves: jitter of a source is no answer when the
	 * writer after it stalls for periods on end.
	 */
	{
		size_t best_reach = 0;
		double best_late = 0;
		bool any_major = false;

		for (size_t y = 0; y < nb; y++)
			any_major = any_major || is_major(&r->v[brk[y]]);
		for (size_t y = 0; y < nb; y++) {
			size_t i = brk[y], n = 0;
			double late;
			bool better, fed = false;

			if (any_major && !is_major(&r->v[i]))
				continue;
			for (size_t x = 0; x < nb && !fed; x++)
				fed = x != y && (!any_major || is_major(&r->v[brk[x]])) && reach[x * nb + y] &&
				      !reach[y * nb + x];
			if (fed)
				continue;
			for (size_t z = 0; z < nb; z++)
				n += z != y && reach[y * nb + z];
			late = r->v[i].st.period_ns > 0 ? r->v[i].worst_lateness_ns / r->v[i].st.period_ns : 0;
			if (r->upstream < 0)
				better = true;
			else if (n != best_reach)
				better = n > best_reach;
			else if (late != best_late)
				better = late > best_late;
			else
				better = breaks_earlier(r, i, r->upstream);
			if (better) {
				r->upstream = i;
				best_reach = n;
				best_late = late;
			}
		}
	}
out:
	free(first);
	free(queue);
	free(bidx);
	free(brk);
	free(seen);
	free(reach);
	return err;
}

/* ---- entry points ---- */

/* The futex calls' numbers in the recording's ABI (UINT32_MAX: not in it). */
static void find_futex(struct ctx *c)
{
	const char *arch = trace__arch(c->tl->trace);
	int a = syscall_number(arch, "futex"), b = syscall_number(arch, "futex_time64");

	c->futex_nr[0] = a < 0 ? UINT32_MAX : (uint32_t)a;
	c->futex_nr[1] = b < 0 ? c->futex_nr[0] : (uint32_t)b;
}

int actors__analyse_opts(const struct timeline *tl, const struct analysis_opts *o,
			 const struct actors_opts *ao, struct actors_result **out)
{
	static const struct actors_opts defaults;
	struct ctx c = { .tl = tl, .jobs = o ? o->jobs : 1 };
	struct cand *cands = NULL;
	size_t ncands = 0;
	int err;

	if (!tl || !o || !out)
		return -EINVAL;
	if (!ao)
		ao = &defaults;
	*out = NULL;
	c.r = calloc(1, sizeof(*c.r));
	if (!c.r) {
		err = -ENOMEM;
		goto out;
	}
	c.r->upstream = -1;
	c.inv_opts.max_gap_frac = ao->max_gap_frac == 0 ? ACTORS_MAX_GAP_FRAC :
				  ao->max_gap_frac < 0 ? 0 : ao->max_gap_frac;
	c.r->inv_opts = c.inv_opts;
	c.popts.qcod_threshold = o->qcod_threshold > 0 ? o->qcod_threshold : PERIOD_DEFAULT_QCOD_THRESHOLD;
	c.min_runs = ao->min_runs ? ao->min_runs : ACTORS_MIN_RUNS;
	c.min_inv = ao->min_invocations ? ao->min_invocations : ACTORS_MIN_INVOCATIONS;

	measure_gaps(&c);
	find_futex(&c);
	err = choose(&c, o, &cands, &ncands);
	if (!err)
		err = study_all(&c, cands, ncands);
	if (!err)
		err = build_edges(&c);
	if (!err)
		err = find_upstream(&c);
out:
	free(cands);
	if (err) {
		actors__free(c.r);
		return err;
	}
	*out = c.r;
	return 0;
}

int actors__analyse(const struct timeline *tl, const struct analysis_opts *o,
		    struct actors_result **out)
{
	return actors__analyse_opts(tl, o, NULL, out);
}

void actors__free(struct actors_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		actor_release(&r->v[i]);
	free(r->v);
	free(r->skipped);
	free(r->edges);
	free(r);
}
