/* SPDX-License-Identifier: MIT */
/*
 * What the files of src/patterns/ share and no other folder may use.
 *
 * The stage (patterns.h; stage.c runs it): the windows of one actor shared
 * by its searches (windows.c), the miner runs of one search (thresholds.c),
 * the severity levels (levels.c) and the storage of a result's names
 * (store.c). The miner (miner.h): the state of one search (miner_mine.c
 * runs the passes, miner_search.c expands the nodes, miner_neg.c builds
 * their neg states lazily), the index of the sequences (miner_data.c, its
 * chance counts miner_chance.c), the options and the counts they give
 * (miner_opts.c), and the helpers their inner loops inline.
 */
#ifndef QT_PATTERNS_INTERNAL_H
#define QT_PATTERNS_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "chance.h"
#include "miner.h"
#include "patterns.h"
#include "vocab.h"

/* ---------------------------------------------------------------- helpers */

static inline int64_t patterns_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Grow *p (elements of @size bytes) to hold at least @need: 0 or -ENOMEM (*p kept). */
static inline int patterns_grow(void *p, size_t *cap, size_t need, size_t size)
{
	void **pp = p;
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*pp, n * size);
	if (!q)
		return -ENOMEM;
	*pp = q;
	*cap = n;
	return 0;
}

/* The same with a 32-bit capacity: -ENOMEM beyond UINT32_MAX elements. */
static inline int patterns_grow32(void *p, uint32_t *cap, size_t need, size_t size)
{
	size_t c = *cap;
	int err;

	if (need > UINT32_MAX)
		return -ENOMEM;
	err = patterns_grow(p, &c, need, size);
	if (!err)
		*cap = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
	return err;
}

/* ------------------------------------------------------ the miner's index */

#define MINER_NONE UINT32_MAX

struct miner_data {
	uint32_t nseq[2];	/* [0] pos, [1] neg */
	uint32_t first[2];	/* global index of the first sequence of each side */
	uint32_t nsym;
	uint32_t *ids;		/* dense id -> caller id, ascending */
	uint32_t *sym;		/* all events as dense ids, pos sequences first */
	size_t *off;		/* nseq[0]+nseq[1]+1 offsets into sym */
	uint32_t maxlen[2];	/* longest sequence of each side */
	uint32_t nseq_truncated;
	uint32_t max_seq_len;
	bool lengths;		/* chance set: the windows' lengths control emergence */
	struct chance chance;
	double *symrate;	/* with lengths: per dense id, chance__rate() of its D_neg count */
	bool *longer;		/* with lengths: per dense id, chance__longer_than_kept() of its rate */
};

/*
 * chance__items() of the pattern sym[0..len) (dense ids when @dense, else the
 * caller's) found in neg_count of D_neg, with lengths set; summing stops
 * above stop_above (chance.h). |D_pos|, the strict answer, when there is no
 * memory for the rates of a pattern longer than 16.
 */
double miner_chance_items(const struct miner_data *d, const uint32_t *sym, uint32_t len, bool dense,
			  uint32_t neg_count, double stop_above);
/* Whether sym[0..len) (dense ids) holds an event chance__longer_than_kept() flags; lengths set. */
bool miner_chance_holds_longer(const struct miner_data *d, const uint32_t *sym, uint32_t len);

/* ------------------------------------------------------ a miner's search */

/* Children states of one node on one side: entry k is sequence seq[k] with end
 * positions pos[off[k] .. off[k+1]). Children are laid out one after another. */
struct miner_batch {
	uint32_t *seq, *off, *pos;
	size_t seq_cap, off_cap, pos_cap;
};

struct miner_child {
	uint32_t item;
	uint32_t pos_nseq;	/* pos sequences containing the child */
	uint32_t pos_npos;	/* its end positions in them */
	uint32_t e0;		/* its first entry in the level's pos batch */
	uint32_t wseq, wpos;	/* fill cursors */
};

/* A position in the neg state of one node: chunk, then entry in the chunk
 * (for the root: k is the next neg sequence). */
struct miner_ncursor {
	uint32_t chunk, k;
};

struct miner_nmeta {
	uint32_t e0, n;		/* a child's entries in one chunk */
};

/*
 * Neg states of the children [from, from + nchild) of one node, built lazily
 * in chunks: each chunk processes the next parent entries (in sequence order,
 * as many as all chunks before, at least NEG_CHUNK0) for all those children
 * at once. Readers stop as soon as their question is answered (every
 * candidate exceeds max_neg), so usually only a prefix is ever built.
 */
struct miner_nbatch {
	bool active, complete;
	uint32_t from, nchild;
	struct miner_batch b;	/* append-only; chunk after chunk */
	uint32_t nentries, npos;
	struct miner_nmeta *meta;	/* nchunks * nchild */
	size_t meta_cap;
	uint32_t nchunks;
	struct miner_ncursor src; /* how far the parent's neg state was read */
	uint32_t nsrc;
	uint32_t *gather;	/* parent entries of the chunk being built */
	size_t gather_cap;
};

struct miner_level {
	struct miner_child *ch;	/* children of this node: candidates, then the
				 * non-emerging ones still to explore */
	uint32_t nch, ch_cap, cur;
	struct miner_batch b;	/* pos states of the children */
	struct miner_nbatch nb;	/* neg states of the children */
	uint32_t *ban;		/* items this node banned (its emerging children) */
	uint32_t nban, ban_cap;
};

/* A node's pos state; root = every position of every pos sequence. */
struct miner_view {
	bool root;
	uint32_t n;		/* entries */
	const uint32_t *seq, *off, *pos;
	uint32_t e0;
};

struct miner_scratch {
	uint32_t *cnt, *nseq, *slot;
	uint64_t *stamp;
	uint32_t *touched, ntouched;
	uint32_t *live, nlive;
};

struct miner_record {
	uint32_t off, len, pos, neg, next;
};

struct miner_recset {
	struct miner_record *rec;
	uint32_t nrec, rec_cap;
	uint32_t *rsym;		/* their items (dense ids) */
	size_t nrsym, rsym_cap;
};

struct miner_ctx {
	const struct miner_data *d;
	struct miner_opts o;
	uint32_t min_pos, max_neg;
	double chance_bound;	/* with lengths: most D_pos windows a pattern may be in by chance */
	bool chance_prune;	/* lengths at alpha 0: see chance_only() in miner_search.c */
	uint32_t max_depth;	/* longest pattern ever explored */
	uint32_t depth_limit;	/* longest pattern explored by this pass */
	bool limit_binds;	/* depth_limit is below the longest pos sequence */
	struct miner_level *lv;	/* max_depth + 1 levels */
	uint32_t *path;
	struct miner_scratch sc[3];	/* pos passes, neg decisions, neg chunk builds */
	uint32_t *ban;		/* per item: > 0 when banned on the current path */
	uint8_t *mark;		/* per item: candidate of the neg decision pass */
	uint32_t *negcnt;	/* per candidate: neg sequences seen (decision pass) */
	uint32_t *jbuf;		/* masked positions of one sequence */
	uint64_t stampctr;
	struct miner_recset rs;	/* emerging patterns recorded by the current pass */
	struct miner_recset saved; /* those of the last complete deepening pass */
	uint32_t *bucket;	/* per item: first record ending with it */
	uint32_t nfreq_root;
	unsigned bounds;	/* of this pass */
	bool stop;
	uint64_t nodes, work;
	uint64_t node_base;	/* nodes before this phase: budgets are per phase */
	int64_t t0;
};

/*
 * Masked positions of sequence @t after the ends @ends[0..nends), increasing,
 * into c->jbuf: the positions j where P·T[j] has a g-valid occurrence ending
 * at j. @ends == NULL: every position (the root). Returns their number.
 */
static inline uint32_t miner_window(struct miner_ctx *c, uint32_t t, const uint32_t *ends, uint32_t nends)
{
	uint32_t len = (uint32_t)(c->d->off[t + 1] - c->d->off[t]), n = 0;
	uint64_t next = 0;	/* first position not emitted yet */

	if (!ends) {
		for (uint32_t j = 0; j < len; j++)
			c->jbuf[j] = j;
		c->work += len;
		return len;
	}
	/* The windows [i+gmin+1, i+g+1] of increasing ends i have increasing
	 * bounds, so merging them only needs the first position not yet emitted. */
	for (uint32_t q = 0; q < nends; q++) {
		uint64_t i = ends[q];
		uint64_t lo = i + c->o.gap_min + 1, hi = i + (uint64_t)c->o.gap_max + 1;

		if (lo >= len)
			break;
		if (hi >= len)
			hi = len - 1;
		if (lo < next)
			lo = next;
		for (uint64_t j = lo; j <= hi; j++)
			c->jbuf[n++] = (uint32_t)j;
		if (hi + 1 > next)
			next = hi + 1;
	}
	c->work += n + nends;
	return n;
}

/* Clears the counts a pass left in @s. */
static inline void miner_scratch_reset(struct miner_scratch *s)
{
	for (uint32_t i = 0; i < s->ntouched; i++) {
		uint32_t y = s->touched[i];

		s->cnt[y] = 0;
		s->nseq[y] = 0;
	}
	s->ntouched = 0;
	s->nlive = 0;
}

/* Is a[0..na) an ordinary subsequence of b[0..nb)? */
static inline bool miner_is_subseq(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
	uint32_t i = 0;

	for (uint32_t j = 0; j < nb && i < na; j++)
		if (a[i] == b[j])
			i++;
	return i == na;
}

/*
 * The search of one pass (miner_mine.c sets its limit and budgets): expands
 * the root and then depth first, recording the emerging patterns in c->rs,
 * until done or c->stop. 0 or -ENOMEM.
 */
int miner_search(struct miner_ctx *c);

/*
 * Neg counts of the candidates lv[depth].ch[0..nch) into c->negcnt, exact for
 * those within max_neg (miner_neg.c). 0 or -ENOMEM.
 */
int miner_neg_decide(struct miner_ctx *c, uint32_t depth);

/* --------------------------------------------------------------- the stage */

/* What the result owns behind its public pointers. */
struct patterns_store {
	const char **names;	/* all patterns' events, one after another */
	unsigned *kinds;
	char *text;		/* the names' characters */
};

/* A store for nev names of nchar characters in all (NUL included); NULL when memory runs out. */
struct patterns_store *patterns_store_new(size_t nev, size_t nchar);
/* Frees a store and its names; NULL is fine. */
void patterns_store_free(struct patterns_store *st);

/*
 * What all the searches over one actor's windows share: the event stream,
 * the vocabulary, whether each window overlaps missing data, and each
 * window's symbols, computed the first time a search mines the window.
 */
struct windows {
	const struct timeline *tl;
	const struct period_window *w;
	size_t n;
	struct patterns_opts o;		/* vocab.drop_thread set */
	struct vocab *v;
	struct vocab_seq seq;		/* the symbolised windows, one after another */
	size_t *off;			/* per window: into seq.sym, SIZE_MAX until symbolised */
	uint32_t *len;
	uint64_t *events;		/* stream events read for the window */
	bool *cut;			/* cut to vocab.max_len */
	bool *missing;
};

/*
 * The n windows w[0..n) of thread actor_thread (TL_NONE: none), none
 * symbolised yet; p->o is @o with vocab.drop_thread set unless o->keep_actor.
 * w must outlive p. Returns 0, -EINVAL (a window ending before it starts) or
 * -ENOMEM; windows__free() in every case.
 */
int windows__init(struct windows *p, const struct timeline *tl, const struct period_window *w, size_t n,
		  uint32_t actor_thread, const struct patterns_opts *o);
void windows__free(struct windows *p);

/*
 * One search: the windows of p, positive ones only where @pos_sel (NULL:
 * all) says so; the others are not part of this search at all. Symbolises
 * the windows it mines that are not yet, samples, runs the miner with
 * p->o's thresholds and bounds (thresholds_mine()). *out is a result of one
 * level, its status set when nothing was mined; 0, -E2BIG or -ENOMEM.
 */
int windows__mine(struct windows *p, const bool *pos_sel, struct patterns_result **out);

/*
 * Runs the miner on @d with @o's thresholds, fixed or searched (patterns.h),
 * and fills r's search fields and its patterns, ranked and named by @v.
 * r->npos, r->nneg, r->gap, r->auto_delta and r->auto_alpha are set. 0 or
 * -ENOMEM (r then holds what was allocated, for patterns__free()).
 */
int thresholds_mine(struct patterns_result *r, const struct miner_data *d, const struct patterns_opts *o,
		    const struct vocab *v);

/*
 * The late class of breaks of log lateness x[0..n) (sorted in place): the
 * number of breaks in it (*severe, 0: no split) and the lateness they exceed
 * (*above, ns). 0 or otsu_threshold()'s error.
 */
int levels_split(double *x, size_t n, int64_t *above, size_t *severe);

/*
 * Replaces lv[0]'s patterns by those of all nlv levels, one per distinct
 * event sequence, ranked together; keeps the first @keep (0: all). 0 or
 * -ENOMEM.
 */
int levels_merge(struct patterns_result **lv, uint32_t nlv, uint32_t keep);

#endif
