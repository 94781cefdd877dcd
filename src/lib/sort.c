// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"
#include "workq.h"

/* Below this many records a second thread costs more than it saves. */
#define SORT_PARALLEL_MIN 262144

static size_t run_end(const struct sort_pair *a, size_t i, size_t n)
{
	while (i + 1 < n && a[i].key <= a[i + 1].key)
		i++;
	return i + 1;
}

/* Merges the sorted runs [lo, mid) and [mid, hi) of src into dst. */
static void merge(const struct sort_pair *src, struct sort_pair *dst, size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid && j < hi)
		dst[k++] = src[j].key < src[i].key ? src[j++] : src[i++];
	memcpy(dst + k, src + i, (mid - i) * sizeof(*dst));
	k += mid - i;
	memcpy(dst + k, src + j, (hi - j) * sizeof(*dst));
}

/*
 * LSD radix sort on key - lo, DIGIT bits per pass, only over the bits that
 * vary: timestamps of a recording span about 40 bits, so 4 passes whatever
 * the order, where merging runs costs log2(runs) passes and the CPU
 * interleave or a grouping key (thread, start) gives thousands of runs.
 * Counting is stable, so equal keys keep their input order.
 */
#define DIGIT 11
#define NBUCKET (1u << DIGIT)

static int radix(struct sort_pair *a, size_t n, uint64_t lo, unsigned passes)
{
	struct sort_pair *tmp = malloc(n * sizeof(*tmp)), *src = a, *dst;
	size_t (*cnt)[NBUCKET] = calloc(passes, sizeof(*cnt));

	if (!tmp || !cnt) {
		free(tmp);
		free(cnt);
		return -ENOMEM;
	}
	dst = tmp;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = a[i].key - lo;

		for (unsigned p = 0; p < passes; p++)
			cnt[p][(k >> (p * DIGIT)) & (NBUCKET - 1)]++;
	}
	for (unsigned p = 0; p < passes; p++) {
		unsigned shift = p * DIGIT;
		size_t sum = 0;

		/* a digit every key shares moves nothing */
		if (cnt[p][((src[0].key - lo) >> shift) & (NBUCKET - 1)] == n)
			continue;
		for (size_t b = 0; b < NBUCKET; b++) {
			size_t c = cnt[p][b];

			cnt[p][b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[cnt[p][((src[i].key - lo) >> shift) & (NBUCKET - 1)]++] = src[i];
		struct sort_pair *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(tmp);
	free(cnt);
	return 0;
}

/* Natural merge sort: bottom-up merging of the nruns ascending runs. */
static int merge_runs(struct sort_pair *a, size_t n, size_t nruns)
{
	struct sort_pair *tmp, *src, *dst;
	size_t *bounds, nb = 0;

	bounds = malloc((nruns + 1) * sizeof(*bounds));
	tmp = malloc(n * sizeof(*tmp));
	if (!bounds || !tmp) {
		free(bounds);
		free(tmp);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i = run_end(a, i, n))
		bounds[nb++] = i;
	bounds[nb] = n;
	src = a;
	dst = tmp;
	while (nb > 1) {
		size_t k = 0;

		for (size_t r = 0; r < nb; r += 2) {
			if (r + 1 < nb)
				merge(src, dst, bounds[r], bounds[r + 1], bounds[r + 2]);
			else
				memcpy(dst + bounds[r], src + bounds[r],
				       (bounds[r + 1] - bounds[r]) * sizeof(*dst));
			bounds[k++] = bounds[r];
		}
		bounds[k] = n;
		nb = k;
		struct sort_pair *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(bounds);
	free(tmp);
	return 0;
}

int sort_pairs(struct sort_pair *a, size_t n)
{
	uint64_t lo, hi;
	size_t nruns = 1;
	unsigned bits = 0, passes, merges = 0;

	if (n < 2)
		return 0;
	lo = hi = a[0].key;
	for (size_t i = 1; i < n; i++) {
		uint64_t k = a[i].key;

		nruns += k < a[i - 1].key;
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	if (nruns == 1)
		return 0;
	while (bits < 64 && (hi - lo) >> bits)
		bits++;
	passes = (bits + DIGIT - 1) / DIGIT;
	while (((size_t)1 << merges) < nruns)
		merges++;
	/* the radix sort also reads everything once more to count */
	if (merges <= passes || n < NBUCKET)
		return merge_runs(a, n, nruns);
	return radix(a, n, lo, passes);
}

/* All of them as pairs: the input is too far from its order for the merge. */
static int order_all(size_t n, sort_key_fn key, const void *arr, uint32_t *o)
{
	struct sort_pair *p = malloc(n * sizeof(*p));

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		p[i] = (struct sort_pair){ key(arr, i), i };
	if (sort_pairs(p, n)) {
		free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		o[i] = (uint32_t)p[i].idx;
	free(p);
	return 0;
}

int sort_order(size_t n, sort_key_fn key, const void *arr, uint32_t **out)
{
	struct sort_pair *late;
	uint32_t *o;
	size_t nlate = 0, nin = 0, i, j, k;
	uint64_t max = 0;

	*out = NULL;
	if (n > UINT32_MAX)
		return -E2BIG;
	o = malloc((n ? n : 1) * sizeof(*o));
	if (!o)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint64_t k0 = key(arr, i);

		if (i && k0 < max)
			nlate++;
		else
			max = k0;
	}
	if (nlate > n / 4) {
		int err = order_all(n, key, arr, o);

		if (err) {
			free(o);
			return err;
		}
		*out = o;
		return 0;
	}
	late = malloc((nlate ? nlate : 1) * sizeof(*late));
	if (!late) {
		free(o);
		return -ENOMEM;
	}
	/* The in-order ones to the front of o, the late ones apart. */
	for (i = 0, nlate = 0; i < n; i++) {
		uint64_t k0 = key(arr, i);

		if (i && k0 < max) {
			late[nlate++] = (struct sort_pair){ k0, i };
		} else {
			max = k0;
			o[nin++] = (uint32_t)i;
		}
	}
	if (sort_pairs(late, nlate)) {
		free(late);
		free(o);
		return -ENOMEM;
	}
	/*
	 * Merge from the back into o. An in-order record with the key of a
	 * late one came before it (else it would have been late too), so on a
	 * tie the late one goes last.
	 */
	for (i = nin, j = nlate, k = n; j > 0; ) {
		if (i > 0 && key(arr, o[i - 1]) > late[j - 1].key)
			o[--k] = o[--i];
		else
			o[--k] = (uint32_t)late[--j].idx;
	}
	free(late);
	*out = o;
	return 0;
}

/*
 * One thread's share of a radix pass: its slice [lo, hi) of the input, and
 * its own counters, which become where its records of each digit go. The
 * shares' records of one digit go in share order, so the sort stays stable.
 */
#define DEFINE_RADIX(name, type, KEY)						\
struct name##_share {								\
	type *a, *tmp;								\
	uint32_t lo, hi, *cnt;							\
	unsigned sh;								\
};										\
										\
static void *name##_count(void *arg)						\
{										\
	struct name##_share *p = arg;						\
										\
	memset(p->cnt, 0, SORT_RADIX_SIZE * sizeof(*p->cnt));			\
	for (uint32_t i = p->lo; i < p->hi; i++)				\
		p->cnt[(KEY(p->a[i]) >> p->sh) & (SORT_RADIX_SIZE - 1)]++;	\
	return NULL;								\
}										\
										\
static void *name##_scatter(void *arg)						\
{										\
	struct name##_share *p = arg;						\
										\
	for (uint32_t i = p->lo; i < p->hi; i++)				\
		p->tmp[p->cnt[(KEY(p->a[i]) >> p->sh) & (SORT_RADIX_SIZE - 1)]++] = p->a[i]; \
	return NULL;								\
}										\
										\
type *name(type *a, type *tmp, uint32_t n, unsigned lo_bit, unsigned hi_bit,	\
	   uint32_t *cnt, int jobs)						\
{										\
	struct name##_share sp[WORKQ_MAX_JOBS];					\
										\
	jobs = n < SORT_PARALLEL_MIN || jobs < 1 ? 1 :				\
	       jobs > WORKQ_MAX_JOBS ? WORKQ_MAX_JOBS : jobs;			\
	for (unsigned sh = lo_bit; sh < hi_bit; sh += SORT_RADIX_BITS) {	\
		uint32_t sum = 0;						\
		bool trivial = false;						\
		type *t;							\
										\
		for (int j = 0; j < jobs; j++)					\
			sp[j] = (struct name##_share){ a, tmp,			\
				workq_share(n, j, jobs),			\
				workq_share(n, j + 1, jobs),			\
				cnt + (size_t)j * SORT_RADIX_SIZE, sh };	\
		workq_parts(jobs, name##_count, sp, sizeof(sp[0]));		\
		for (uint32_t d = 0; d < SORT_RADIX_SIZE; d++) {		\
			uint32_t all = sum;					\
										\
			for (int j = 0; j < jobs; j++) {			\
				uint32_t c = sp[j].cnt[d];			\
										\
				sp[j].cnt[d] = sum;				\
				sum += c;					\
			}							\
			trivial |= sum - all == n;				\
		}								\
		if (trivial)							\
			continue;						\
		workq_parts(jobs, name##_scatter, sp, sizeof(sp[0]));		\
		t = a;								\
		a = tmp;							\
		tmp = t;							\
	}									\
	return a;								\
}

#define U64_KEY(x) (x)
#define PAIR_KEY(x) ((x).key)
DEFINE_RADIX(sort_radix_u64, uint64_t, U64_KEY)
DEFINE_RADIX(sort_radix_pairs, struct sort_pair, PAIR_KEY)
