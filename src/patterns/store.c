// SPDX-License-Identifier: MIT
/*
 * What a result of the stage owns behind its public pointers: the store of
 * its patterns' names (filled by thresholds.c and levels.c), and the result
 * freed (patterns.h).
 */
#include <stdlib.h>

#include "internal.h"

struct patterns_store *patterns_store_new(size_t nev, size_t nchar)
{
	struct patterns_store *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->names = malloc((nev ? nev : 1) * sizeof(*st->names));
	st->kinds = malloc((nev ? nev : 1) * sizeof(*st->kinds));
	st->text = malloc(nchar ? nchar : 1);
	if (!st->names || !st->kinds || !st->text) {
		patterns_store_free(st);
		return NULL;
	}
	return st;
}

void patterns_store_free(struct patterns_store *st)
{
	if (!st)
		return;
	free(st->names);
	free(st->kinds);
	free(st->text);
	free(st);
}

void patterns__free(struct patterns_result *r)
{
	if (!r)
		return;
	patterns_store_free(r->store);
	free(r->v);
	free(r);
}
