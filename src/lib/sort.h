/*
 * Stable sorting of (key, index) pairs. Trace records arrive almost in time
 * order (a CPU's records are ordered; CPUs interleave with small skew): with
 * few ascending runs a natural merge sort takes log2(runs) passes; with many
 * (the CPUs' streams interleaved, keys grouped by thread) an LSD radix sort
 * over the bits the keys span takes about 4 (11-bit digits, 40-bit span).
 * Either is linear on sorted input and needs n pairs of scratch memory.
 */
#ifndef QT_SORT_H
#define QT_SORT_H

#include <stddef.h>
#include <stdint.h>

struct sort_pair {
	uint64_t key;
	uint64_t idx;
};

/* Sorts by key, keeping the input order of equal keys. 0 or -ENOMEM. */
int sort_pairs(struct sort_pair *a, size_t n);

#define SORT_RADIX_BITS 11
#define SORT_RADIX_SIZE (1u << SORT_RADIX_BITS)

/*
 * Stable LSD radix sorts on bits [lo_bit, hi_bit) of the word (the key),
 * SORT_RADIX_BITS per pass, moving between a and tmp (n each); they return
 * the one holding the result. A pass where every key falls into one bucket
 * is skipped. jobs threads (at most WORKQ_MAX_JOBS) count and scatter a
 * share of the records each, from 256 K records on; cnt holds jobs *
 * SORT_RADIX_SIZE counters.
 */
uint64_t *sort_radix_u64(uint64_t *a, uint64_t *tmp, uint32_t n, unsigned lo_bit, unsigned hi_bit,
			 uint32_t *cnt, int jobs);
struct sort_pair *sort_radix_pairs(struct sort_pair *a, struct sort_pair *tmp, uint32_t n, unsigned lo_bit,
				   unsigned hi_bit, uint32_t *cnt, int jobs);

typedef uint64_t (*sort_key_fn)(const void *arr, size_t i);

/*
 * The order of n records by key(arr, i), stably, as indices: *out gets
 * n indices (malloc'd, caller frees). A recording's records arrive from a
 * shared ring buffer in commit order: the ones at or above the running
 * maximum are already in order, and a record is late only where another
 * CPU committed first, a few in a thousand. Those are sorted apart
 * (sort_pairs) and merged in backwards, so the memory is 4 bytes per record
 * plus 32 per late one, where sorting pairs of all costs 32 per record.
 * When more than a quarter are late, all are sorted as pairs. 0, -E2BIG
 * (more than UINT32_MAX records) or -ENOMEM.
 */
int sort_order(size_t n, sort_key_fn key, const void *arr, uint32_t **out);

#endif
