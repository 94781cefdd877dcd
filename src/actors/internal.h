/* SPDX-License-Identifier: MIT */
/*
 * What the files of the actors' stage share, and no one else may use.
 *
 *   stage.c     the stage: options, the steps in order (actors.h is its
 *               public header, and the types of its result)
 *   spec.c      --actor SPEC: parsing, and which threads it names
 *   choose.c    the candidates: the named actors and the default set
 *   gather.c    one candidate's fragments, and the waits that continue them
 *   study.c     one candidate studied: invocations, period, breaks; all of
 *               them, on two threads
 *   breaks.c    overruns and completion breaks; breaks over missing data
 *   upstream.c  the wakeup edges and the most upstream breaking actor
 *   result.c    the result as the steps fill it (arrays grown, threads
 *               skipped), and freed
 *   actor.c     one actor's windows, and its release
 */
#ifndef QT_ACTORS_INTERNAL_H
#define QT_ACTORS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actors.h"

/* ---- spec.c ---- */

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

/* Parses text into *sp (which points to text): 0, or -EINVAL with a message in msg[len]. */
int spec_parse(const char *text, struct spec *sp, char *msg, size_t len);
/* Does the thread selector of sp name th? (SEL_AUTO names none.) */
bool spec_matches(const struct spec *sp, const struct tl_thread *th);
/* Are s[0..n) all decimal digits (and n > 0)? */
bool spec_all_digits(const char *s, size_t n);

/* ---- the stage's state ---- */

/* A thread or one of its system calls that may become an actor. */
struct cand {
	enum actor_kind kind;
	uint32_t thread;
	uint32_t nr;
	bool has_arg0;
	uint64_t arg0;
	bool from_spec;
};

/* What every step reads. The steps write r one after another; study_all's workers only read. */
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
 * arrays are the invocations workspace's own, lent (invocations_ws__lend).
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

/* Is sc a call of system call nr (with first argument arg0, if has_arg0)? */
static inline bool call_of(const struct tl_syscall *sc, uint32_t nr, bool has_arg0, uint64_t arg0)
{
	return sc->nr == nr && (!has_arg0 || sc->arg0 == arg0);
}

/* ---- result.c ---- */

/*
 * Grows *p (of *cap elements of size bytes) to hold need: 0 or -ENOMEM
 * (then *p and *cap are as they were).
 */
int actors_grow(void **p, size_t *cap, size_t need, size_t size);
/* Lists thread in c->r->skipped with reason (a static string): 0 or -ENOMEM. */
int actors_skip(struct ctx *c, uint32_t thread, const char *reason, size_t count);

/* ---- choose.c ---- */

/*
 * The candidates, in the order their actors are listed: *out (malloc'd,
 * the caller frees it) and *nout. Threads the default set leaves out go
 * to c->r->skipped. 0, -ENOMEM, or -EINVAL after a message for a spec
 * that does not parse or names nothing.
 */
int choose_candidates(struct ctx *c, const struct actors_opts *o, struct cand **out, size_t *nout);

/* ---- gather.c ---- */

/* c->futex_nr: the futex calls' numbers in the recording's ABI. */
void gather_find_futex(struct ctx *c);
/*
 * The fragments of cd into w->frag (and w->idx for syscalls; w has room
 * for all of the thread's runs or calls). Returns their number; *ncut
 * gets the runs left out at the start, w->nincidental the waits marked
 * as continuing.
 */
size_t gather_fragments(const struct ctx *c, struct work *w, const struct cand *cd, size_t *ncut);
/* Which run (THREAD) or syscall (SYSCALL) of the timeline fragment j is. */
static inline size_t gather_occurrence(const struct work *w, const struct cand *cd, size_t j)
{
	return cd->kind == ACTOR_THREAD ? w->idx0 + j : w->idx[j];
}

/* ---- study.c ---- */

/*
 * Every candidate studied, in candidate order, into c->r (its actor or
 * its skip). 0 or -ENOMEM.
 */
int study_all(struct ctx *c, const struct cand *cands, size_t n);

/* ---- breaks.c ---- */

/* c->gap_maxlen: the longest window of missing data. */
void breaks_measure_gaps(struct ctx *c);
/*
 * The overruns of a periodic thread actor into its start breaks and its
 * completion breaks (actor.h). t and spare: a->ninv int64 of scratch
 * each. 0 or -ENOMEM.
 */
int breaks_add_overruns(const struct ctx *c, struct actor *a, int64_t *t, int64_t *spare);
/*
 * Each break of a (of thread th) flagged data_missing or not, with its
 * holdup; a's cut between major breaks and jitter (c->r->min_late), then
 * its trusted-break summary (nbreaks_missing, worst_lateness_ns, nmajor,
 * njitter, worst_jitter_ns, breaking).
 */
void breaks_judge(const struct ctx *c, struct actor *a, const struct tl_thread *th);

/* ---- upstream.c ---- */

/* The kept wakeup edges between c->r's actors into c->r->edges. 0 or -ENOMEM. */
int upstream_edges(struct ctx *c);
/* c->r->upstream, and each breaking actor's fed flag. 0 or -ENOMEM. */
int upstream_find(struct ctx *c);

/* ---- actor.c ---- */

/* Frees what a holds (its invocations and breaks); a itself is the caller's. */
void actor_release(struct actor *a);

#endif
