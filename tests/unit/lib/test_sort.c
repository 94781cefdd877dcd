// SPDX-License-Identifier: MIT
/*
 * Stable natural merge sort and sort_order against a reference: qsort on (key, original
 * position), which is stable by construction. Random, sorted, reverse,
 * few-runs, nearly sorted, many-duplicates and sawtooth inputs, every size
 * up to 70 and large ones up to 1e6. The radix sorts on one to three
 * threads, below and above the size where they split.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sort.h"
#include "testutil.h"

enum shape { RANDOM, FEW_KEYS, SORTED, REVERSE, FEW_RUNS, NEARLY, EQUAL, SAWTOOTH, NSHAPES };
static const char *const shape_name[] = {
	"random", "few keys", "sorted", "reverse", "few runs", "nearly sorted", "all equal", "sawtooth",
};

static void fill(struct sort_pair *a, size_t n, enum shape s, unsigned long long *seed)
{
	size_t runs = 1 + tu_rand(seed) % 8;

	for (size_t i = 0; i < n; i++) {
		switch (s) {
		case RANDOM: a[i].key = tu_rand(seed); break;
		case FEW_KEYS: a[i].key = tu_rand(seed) % 5; break;
		case SORTED: a[i].key = i / 3; break;
		case REVERSE: a[i].key = n - i / 2; break;
		case FEW_RUNS:	/* up to 8 ascending runs, concatenated, overlapping */
			a[i].key = (i % (n / runs + 1)) * 3 + (i / (n / runs + 1)) * 1000003 % 97;
			break;
		case NEARLY: a[i].key = i * 10 + tu_rand(seed) % 35; break;	/* CPUs skewed by a few */
		case EQUAL: a[i].key = 42; break;
		case SAWTOOTH: a[i].key = i % 17; break;
		default: break;
		}
		/* the payload: something unrelated to the position, as in real use */
		a[i].idx = tu_rand(seed);
	}
	if (s == RANDOM && n > 2)
		a[0].key = UINT64_MAX, a[n - 1].key = 0;
}

struct ref {
	uint64_t key;
	size_t pos;
	uint64_t idx;
};

static int ref_cmp(const void *x, const void *y)
{
	const struct ref *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static uint64_t pair_key(const void *arr, size_t i)
{
	return ((const struct sort_pair *)arr)[i].key;
}

/* sort_order on the same keys: the positions the reference sorted them to. */
static void check_order(const struct sort_pair *a, const struct ref *r, size_t n, const char *what,
			unsigned long long seed)
{
	uint32_t *o;

	cr_assert_eq(sort_order(n, pair_key, a, &o), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(o[i], r[i].pos, "sort_order, %s, n = %zu, seed %llu: position %zu is %u, want %zu",
			     what, n, seed, i, o[i], r[i].pos);
	free(o);
}

static void check(struct sort_pair *a, size_t n, const char *what, unsigned long long seed)
{
	struct ref *r = malloc((n ? n : 1) * sizeof(*r));

	cr_assert(r);
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ref){ a[i].key, i, a[i].idx };
	qsort(r, n, sizeof(*r), ref_cmp);
	check_order(a, r, n, what, seed);
	cr_assert_eq(sort_pairs(a, n), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert(a[i].key == r[i].key && a[i].idx == r[i].idx,
			  "%s, n = %zu, seed %llu: position %zu differs", what, n, seed, i);
	free(r);
}

Test(sort, empty_and_single)
{
	struct sort_pair one = { 5, 9 };

	cr_expect_eq(sort_pairs(NULL, 0), 0);
	cr_expect_eq(sort_pairs(&one, 1), 0);
	cr_expect(one.key == 5 && one.idx == 9);
}

Test(sort, two_elements)
{
	struct sort_pair a[2] = { { 2, 0 }, { 1, 1 } }, b[2] = { { 1, 0 }, { 1, 1 } };

	cr_assert_eq(sort_pairs(a, 2), 0);
	cr_expect(a[0].key == 1 && a[0].idx == 1 && a[1].key == 2 && a[1].idx == 0);
	cr_assert_eq(sort_pairs(b, 2), 0);
	cr_expect(b[0].idx == 0 && b[1].idx == 1, "equal keys keep their order");
}

Test(sort, every_small_size_every_shape)
{
	struct sort_pair a[70];

	for (unsigned long long seed = 1; seed <= 40; seed++) {
		for (size_t n = 0; n <= 70; n++) {
			for (int s = 0; s < NSHAPES; s++) {
				unsigned long long st = seed * 1000003 + n * 31 + s;

				fill(a, n, s, &st);
				check(a, n, shape_name[s], seed);
			}
		}
	}
}

Test(sort, large_inputs, .timeout = 120)
{
	static const size_t sizes[] = { 1000, 4097, 100000, 1000000 };
	struct sort_pair *a = malloc(1000000 * sizeof(*a));

	cr_assert(a);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (int s = 0; s < NSHAPES; s++) {
			unsigned long long seed = 77 + k * 13 + s;

			fill(a, sizes[k], s, &seed);
			check(a, sizes[k], shape_name[s], 77 + k * 13 + s);
		}
	}
	free(a);
}

/* Trace-like input: several CPUs' ordered streams interleaved with skew. */
Test(sort, interleaved_cpu_streams)
{
	enum { NCPU = 8, PER = 50000 };
	struct sort_pair *a = malloc(NCPU * PER * sizeof(*a));
	uint64_t ts[NCPU] = { 0 };
	size_t left[NCPU], n = 0;
	unsigned long long seed = 5150;

	for (int c = 0; c < NCPU; c++)
		left[c] = PER;
	while (n < NCPU * PER) {
		int c = tu_rand(&seed) % NCPU;

		if (!left[c])
			continue;
		ts[c] += 1 + tu_rand(&seed) % 2000;
		a[n].key = ts[c];
		a[n++].idx = c;
		left[c]--;
	}
	check(a, n, "interleaved", 5150);
	free(a);
}

/*
 * A timeline's stream before sorting: each thread's events in time order,
 * the threads one after another, their times interleaved and often equal
 * (ties across threads keep the concatenation's order), 1 to 300 threads.
 */
Test(sort, grouped_by_thread)
{
	static const size_t nthreads[] = { 1, 2, 3, 17, 300 };
	enum { N = 60000 };
	struct sort_pair *a = malloc(N * sizeof(*a));

	cr_assert(a);
	for (size_t k = 0; k < sizeof(nthreads) / sizeof(nthreads[0]); k++) {
		unsigned long long seed = 31337 + k;
		size_t n = 0;

		for (size_t th = 0; th < nthreads[k]; th++) {
			size_t len = N / nthreads[k] - tu_rand(&seed) % (N / nthreads[k] / 2 + 1);
			uint64_t ts = tu_rand(&seed) % 100;

			for (size_t i = 0; i < len; i++, n++) {
				ts += tu_rand(&seed) % 4;	/* a quarter of the steps are ties */
				a[n] = (struct sort_pair){ ts, th };
			}
		}
		check(a, n, "grouped by thread", seed);
	}
	free(a);
}

/*
 * Sizes and spans that take the radix path (many runs, at least 2048 pairs):
 * keys spanning 1 to 64 bits, so the last digit is partial or the only one,
 * with duplicates so that stability is seen.
 */
Test(sort, many_runs_every_span)
{
	static const size_t sizes[] = { 2047, 2048, 2049, 5000, 30011 };
	struct sort_pair *a = malloc(30011 * sizeof(*a));

	cr_assert(a);
	for (unsigned bits = 1; bits <= 64; bits++) {
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			unsigned long long seed = bits * 7919 + k;
			uint64_t base = tu_rand(&seed) << 20, mask = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;

			for (size_t i = 0; i < sizes[k]; i++) {
				a[i].key = bits == 64 ? tu_rand(&seed) : base + (tu_rand(&seed) & mask);
				a[i].idx = i;
			}
			check(a, sizes[k], "many runs", seed);
			/* stable: equal keys keep ascending positions */
			for (size_t i = 1; i < sizes[k]; i++)
				cr_assert(a[i - 1].key < a[i].key || a[i - 1].idx < a[i].idx,
					  "bits %u, n %zu: equal keys reordered at %zu", bits, sizes[k], i);
		}
	}
	free(a);
}

/*
 * What a shared ring buffer gives: records in commit order, a few late by
 * less than another CPU's commit, ties included. sort_order merges the late
 * ones in (under a quarter late) or sorts all (over); both against the
 * reference, around the threshold.
 */
Test(sort, order_of_late_records)
{
	enum { N = 20000 };
	struct sort_pair *a = malloc(N * sizeof(*a));
	struct ref *r = malloc(N * sizeof(*r));
	size_t merged = 0, all = 0;

	cr_assert(a && r);
	for (unsigned long long seed = 1; seed <= 60; seed++) {
		unsigned long long st = seed * 0x9E3779B97F4A7C15ULL;
		/* per mille of records committed late, up to past the quarter */
		unsigned permille = (unsigned)(seed % 6 == 0 ? 200 + tu_rand(&st) % 200 : tu_rand(&st) % 60);
		size_t n = 1 + tu_rand(&st) % N, nlate = 0;
		uint64_t t = 1000, max = 0;

		for (size_t i = 0; i < n; i++) {
			t += tu_rand(&st) % 4;	/* equal timestamps happen */
			a[i].key = t;
			if (tu_rand(&st) % 1000 < permille)
				a[i].key -= tu_rand(&st) % 50;
			a[i].idx = i;
			if (i && a[i].key < max)
				nlate++;
			else
				max = a[i].key;
			r[i] = (struct ref){ a[i].key, i, i };
		}
		qsort(r, n, sizeof(*r), ref_cmp);
		check_order(a, r, n, "late records", seed);
		if (nlate > n / 4)
			all++;
		else if (nlate)
			merged++;
	}
	cr_assert(merged > 20 && all > 3, "merged %zu, sorted all %zu", merged, all);
	free(a);
	free(r);
}

/* The radix sorts on one to three threads against the reference, above and below their threshold. */
static void check_radix(const struct sort_pair *in, size_t n, int jobs, const char *what, unsigned long long seed)
{
	struct sort_pair *p = malloc(n * sizeof(*p)), *ptmp = malloc(n * sizeof(*p)), *pout;
	uint64_t *w = malloc(n * sizeof(*w)), *wtmp = malloc(n * sizeof(*w)), *wout;
	uint32_t *cnt = malloc((size_t)jobs * SORT_RADIX_SIZE * sizeof(*cnt));
	struct ref *r = malloc(n * sizeof(*r));
	uint8_t *seen = malloc(n);
	unsigned ibits = 0;

	cr_assert(p && ptmp && w && wtmp && cnt && r && seen);
	while (((size_t)1 << ibits) < n)
		ibits++;
	for (size_t i = 0; i < n; i++) {
		p[i] = in[i];
		r[i] = (struct ref){ in[i].key, i, in[i].idx };
		/* A 40-bit key above the position, as precedence.c packs them. */
		w[i] = (in[i].key & ((1ULL << 40) - 1)) << ibits | i;
	}
	qsort(r, n, sizeof(*r), ref_cmp);
	pout = sort_radix_pairs(p, ptmp, (uint32_t)n, 0, 64, cnt, jobs);
	for (size_t i = 0; i < n; i++)
		cr_assert(pout[i].key == r[i].key && pout[i].idx == r[i].idx,
			  "pairs, %s, n = %zu, jobs %d, seed %llu: position %zu differs", what, n, jobs, seed, i);
	wout = sort_radix_u64(w, wtmp, (uint32_t)n, ibits, ibits + 40, cnt, jobs);
	/* Ascending and every position once: the words are all there, in order. */
	memset(seen, 0, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t pos = wout[i] & (((uint64_t)1 << ibits) - 1);

		cr_assert(pos < n && !seen[pos], "words, %s, n = %zu, jobs %d: position %zu", what, n, jobs, i);
		seen[pos] = 1;
		cr_assert(!i || wout[i - 1] < wout[i], "words, %s, n = %zu, jobs %d, seed %llu: position %zu",
			  what, n, jobs, seed, i);
	}
	free(seen);
	free(p);
	free(ptmp);
	free(w);
	free(wtmp);
	free(cnt);
	free(r);
}

Test(sort, radix_on_threads, .timeout = 120)
{
	static const size_t sizes[] = { 1, 1000, 262143, 300001 };
	struct sort_pair *a = malloc(300001 * sizeof(*a));

	cr_assert(a);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		for (int s = 0; s < NSHAPES; s++) {
			for (int jobs = 1; jobs <= 3; jobs++) {
				unsigned long long seed = 5 + k * 31 + s, st = seed;

				fill(a, sizes[k], s, &st);
				check_radix(a, sizes[k], jobs, shape_name[s], seed);
			}
		}
	}
	free(a);
}
