/*
 * Stable sorting of (key, index) pairs. Trace records arrive almost in time
 * order (a CPU's records are ordered; CPUs interleave with small skew), so a
 * natural merge sort is used: linear on sorted input, n log(runs) otherwise.
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
