// SPDX-License-Identifier: MIT
/* The views of the other papers in the page's qt-data; the layout is in html_views.h. */
#include <inttypes.h>

#include "analysis/analysis.h"
#include "html_views.h"
#include "progress/progress.h"

static int64_t lane(const struct analysis *a, const uint32_t *lane_of, uint32_t thread)
{
	return thread < a->tl->nthreads && lane_of[thread] != UINT32_MAX ? (int64_t)lane_of[thread] : -1;
}

void html_views_progress(FILE *f, const struct analysis *a, const uint32_t *lane_of, int64_t t0)
{
	const struct progress_result *r = a->progress;
	const struct progress *p;
	size_t n;

	if (!r) {
		fputs(",\n\"progress\":null", f);
		return;
	}
	p = &r->pg;
	n = p->nrays < HTML_PROGRESS_RAYS ? p->nrays : HTML_PROGRESS_RAYS;
	fprintf(f, ",\n\"progress\":{\"x\":%" PRId64 ",\"y\":%" PRId64 ",\"n\":%zu,\"cut\":%s,\"rays\":[",
		lane(a, lane_of, r->thread[0]), lane(a, lane_of, r->thread[1]), p->nrays,
		n < p->nrays ? "true" : "false");
	for (size_t i = 0; i < n; i++) {
		const struct pg_ray *y = &p->rays[i];

		fprintf(f, "%s%u,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%d", i ? "," : "",
			y->kind, y->t0 - t0, y->x0, y->y0, y->x1, y->y1,
			y->block == UINT32_MAX ? (int64_t)-1 : (int64_t)y->block, (y->open ? 1 : 0) | (y->dead ? 2 : 0));
	}
	fputs("]}", f);
}
