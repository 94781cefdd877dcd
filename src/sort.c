// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"

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

int sort_pairs(struct sort_pair *a, size_t n)
{
	struct sort_pair *tmp, *src, *dst;
	size_t *bounds, nb = 0;

	if (n < 2 || run_end(a, 0, n) == n)
		return 0;
	bounds = malloc((n + 1) * sizeof(*bounds));
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
