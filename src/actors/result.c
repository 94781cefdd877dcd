// SPDX-License-Identifier: MIT
/*
 * The stage's result as its steps fill it: arrays grown, threads listed as
 * skipped; and the result freed (src/actors/actors.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

int actors_grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if (n > SIZE_MAX / size)
		return -ENOMEM;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

int actors_skip(struct ctx *c, uint32_t thread, const char *reason, size_t count)
{
	struct actors_result *r = c->r;
	int err = actors_grow((void **)&r->skipped, &c->cap_skip, r->nskipped + 1, sizeof(*r->skipped));

	if (err)
		return err;
	r->skipped[r->nskipped++] = (struct actor_skip){ .thread = thread, .reason = reason, .count = count };
	return 0;
}

void actors__free(struct actors_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		actor_release(&r->v[i]);
	free(r->v);
	free(r->skipped);
	free(r->edges);
	free(r);
}
