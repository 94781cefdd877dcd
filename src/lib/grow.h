/* SPDX-License-Identifier: MIT */
/*
 * A growing array's capacity: the one rule the small tables of watch
 * share (its thread table, its break log and window queue).
 */
#ifndef QT_GROW_H
#define QT_GROW_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

/*
 * Makes *v (of *cap elements of elem bytes) hold at least need elements,
 * doubling from 16; *v and *cap change only on success. 0 or -ENOMEM.
 */
static inline int grow_array(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > (size_t)-1 / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (c > (size_t)-1 / elem)
		return -ENOMEM;
	p = realloc(*v, c * elem);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

#endif
