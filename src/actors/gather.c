// SPDX-License-Identifier: MIT
/*
 * One candidate's fragments (its runs, or its calls of one system call),
 * and the waits between runs that continue an invocation rather than end
 * it: the rules are in src/actors/actor.h ("Occurrences", "Waits inside an
 * invocation").
 */
#include <stdint.h>
#include <string.h>

#include "file/syscall_names.h"
#include "file/trace.h"
#include "internal.h"

/* The futex calls' numbers in the recording's ABI (UINT32_MAX: not in it). */
void gather_find_futex(struct ctx *c)
{
	const char *arch = trace__arch(c->tl->trace);
	int a = syscall_number(arch, "futex"), b = syscall_number(arch, "futex_time64");

	c->futex_nr[0] = a < 0 ? UINT32_MAX : (uint32_t)a;
	c->futex_nr[1] = b < 0 ? c->futex_nr[0] : (uint32_t)b;
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
 * The incidental waits of a thread actor (actor.h) continue their
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
 * invocation (actor.h) when they are at most 1/ACTORS_WAIT_USUAL_DIV of
 * the thread's waits, sleeps blocked one after another counting as one
 * wait (a call woken by each completion of its I/O and blocked again:
 * under other programs' writeback a recorder's fdatasync() did so dozens
 * of times a call). Returns how many sleeps were marked.
 */
static size_t mark_blocked(const struct tl_run *runs, size_t m, struct work *w)
{
	size_t waits = 0, blocked = 0;

	for (size_t j = 0, prev = SIZE_MAX; j + 1 < m; j++) {
		bool b;

		if (!ends_in_wait(w, runs, j))
			continue;
		b = runs[j].end_state == QT_END_BLOCKED;
		if (!(b && prev != SIZE_MAX && runs[prev].end_state == QT_END_BLOCKED)) {
			waits++;
			blocked += b;
		}
		prev = j;
	}
	if (!blocked || blocked * ACTORS_WAIT_USUAL_DIV > waits)
		return 0;
	blocked = 0;
	for (size_t j = 0; j + 1 < m; j++)
		if (runs[j].end_state == QT_END_BLOCKED) {
			w->frag[j].continues = true;
			blocked++;
		}
	return blocked;
}

/*
 * The fragments of a candidate into w->frag (and w->idx for syscalls).
 * Returns their number; *ncut gets the runs left out at the start.
 */
size_t gather_fragments(const struct ctx *c, struct work *w, const struct cand *cd, size_t *ncut)
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
