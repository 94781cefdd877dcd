// SPDX-License-Identifier: MIT
/*
 * The two orders the sorted scan of the precedence graph's build walks
 * (precedence.c): the tasks by (start, end, id), the topological order, and
 * by (end, id), where the window of a target's candidates is found.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "internal.h"
#include "lib/prefault.h"
#include "lib/sort.h"
#include "lib/workq.h"

static inline int64_t key_of(const struct prec_task *t, bool by_end)
{
	return by_end ? t->end_ns : t->start_ns;
}

static unsigned bits_for(uint64_t v)
{
	return v ? 64 - (unsigned)__builtin_clzll(v) : 0;
}

static int cmp_end_id(const void *pa, const void *pb, void *ctx)
{
	const struct prec_task *t = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	if (t[a].end_ns != t[b].end_ns)
		return t[a].end_ns < t[b].end_ns ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* (start, id) order -> (start, end, id) order: fix the runs of equal starts. */
static void fix_start_ties(const struct build_ctx *bc, uint32_t *order)
{
	const struct prec_task *t = bc->tasks;
	uint32_t n = bc->n;

	for (uint32_t i = 0; i < n;) {
		uint32_t j = i + 1;
		bool sorted = true;

		while (j < n && t[order[j]].start_ns == t[order[i]].start_ns) {
			if (cmp_end_id(&order[j - 1], &order[j], (void *)t) > 0)
				sorted = false;
			j++;
		}
		if (!sorted)
			qsort_r(order + i, j - i, sizeof(*order), cmp_end_id,
				(void *)t);
		i = j;
	}
}

/* Scratch memory of the sorts, reused from one sort to the next. */
struct sort_buf {
	void *a, *tmp;
	size_t bytes;		/* of each of a and tmp */
	struct prefault *pf;
	uint32_t cnt[PREC_MAX_JOBS * SORT_RADIX_SIZE];	/* a share's counters per thread */
};

static int sort_buf_get(struct sort_buf *sb, size_t bytes)
{
	if (sb->bytes >= bytes)
		return 0;
	prefault__stop(sb->pf);
	sb->pf = NULL;
	free(sb->a);
	free(sb->tmp);
	sb->a = malloc(bytes);
	sb->tmp = malloc(bytes);
	sb->bytes = sb->a && sb->tmp ? bytes : 0;
	if (sb->bytes)
		sb->pf = prefault__start_all((void *[]){ sb->a, sb->tmp }, (size_t[]){ bytes, bytes }, 2);
	return sb->bytes ? 0 : -ENOMEM;
}

static void sort_buf_free(struct sort_buf *sb)
{
	if (!sb)
		return;
	prefault__stop(sb->pf);
	free(sb->a);
	free(sb->tmp);
	free(sb);
}

/*
 * One thread's share [lo, hi) of the ids: packing their keys and ids into
 * words, or taking the ids back out of the sorted words.
 */
struct pack_share {
	const struct build_ctx *bc;
	bool by_end;
	uint64_t *a;
	uint32_t *out;
	int64_t kmin;
	unsigned ibits;
	uint32_t lo, hi;
};

static void *pack_keys(void *arg)
{
	const struct pack_share *p = arg;

	for (uint32_t i = p->lo; i < p->hi; i++)
		p->a[i] = (((uint64_t)key_of(&p->bc->tasks[i], p->by_end) - (uint64_t)p->kmin) << p->ibits) | i;
	return NULL;
}

static void *unpack_ids(void *arg)
{
	const struct pack_share *p = arg;

	for (uint32_t i = p->lo; i < p->hi; i++)
		p->out[i] = (uint32_t)(p->a[i] & ((1ULL << p->ibits) - 1));
	return NULL;
}

/*
 * out = the ids ordered by (key, id). Traces usually arrive nearly or fully
 * sorted, so a sorted input costs one pass. Otherwise the key (relative to
 * its minimum) and the id are packed into one 64-bit word when they fit
 * (16 bytes per task while sorting), else sorted as 16-byte pairs.
 */
static int order_by(const struct build_ctx *bc, bool by_end, struct sort_buf *sb,
		    uint32_t *out)
{
	const struct prec_task *t = bc->tasks;
	uint32_t n = bc->n;
	int64_t kmin, kmax;
	bool sorted = true;
	unsigned kbits, ibits;

	if (!n)
		return 0;
	kmin = kmax = key_of(&t[0], by_end);
	for (uint32_t i = 1; i < n; i++) {
		int64_t k = key_of(&t[i], by_end);

		if (k < key_of(&t[i - 1], by_end))
			sorted = false;
		if (k < kmin)
			kmin = k;
		if (k > kmax)
			kmax = k;
	}
	if (sorted) {
		for (uint32_t i = 0; i < n; i++)
			out[i] = i;
		return 0;
	}
	kbits = bits_for((uint64_t)kmax - (uint64_t)kmin);
	ibits = bits_for(n - 1);
	if (kbits + ibits <= 64) {
		struct pack_share sh[PREC_MAX_JOBS];
		uint64_t *a;
		int jobs;

		if (sort_buf_get(sb, (size_t)n * sizeof(uint64_t)))
			return -ENOMEM;
		jobs = 1 + workq_spare(bc->jobs - 1);
		for (int j = 0; j < jobs; j++)
			sh[j] = (struct pack_share){ .bc = bc, .by_end = by_end, .a = sb->a, .out = out, .kmin = kmin,
						     .ibits = ibits, .lo = workq_share(n, j, jobs),
						     .hi = workq_share(n, j + 1, jobs) };
		workq_parts(jobs, pack_keys, sh, sizeof(sh[0]));
		/* The id bits are already in order: a stable sort keeps them. */
		a = sort_radix_u64(sb->a, sb->tmp, n, ibits, ibits + kbits, sb->cnt, jobs);
		for (int j = 0; j < jobs; j++)
			sh[j].a = a;
		workq_parts(jobs, unpack_ids, sh, sizeof(sh[0]));
		workq_busy(1 - jobs);
	} else {
		struct sort_pair *a, *tmp;
		int jobs;

		if (sort_buf_get(sb, (size_t)n * sizeof(*a)))
			return -ENOMEM;
		a = sb->a;
		tmp = sb->tmp;
		for (uint32_t i = 0; i < n; i++) {
			a[i].key = (uint64_t)key_of(&t[i], by_end) - (uint64_t)kmin;
			a[i].idx = i;
		}
		jobs = 1 + workq_spare(bc->jobs - 1);
		a = sort_radix_pairs(a, tmp, n, 0, kbits, sb->cnt, jobs);
		workq_busy(1 - jobs);
		for (uint32_t i = 0; i < n; i++)
			out[i] = (uint32_t)a[i].idx;
	}
	return 0;
}

int prec_sort_both(const struct build_ctx *bc, uint32_t *order, uint32_t *byend)
{
	struct sort_buf *sb = calloc(1, sizeof(*sb));
	int err;

	if (!sb)
		return -ENOMEM;
	err = order_by(bc, false, sb, order);
	if (!err) {
		fix_start_ties(bc, order);
		err = order_by(bc, true, sb, byend);
	}
	sort_buf_free(sb);
	return err;
}
