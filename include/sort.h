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

#endif
