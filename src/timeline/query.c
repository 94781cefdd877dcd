// SPDX-License-Identifier: MIT
/* Questions asked of a built timeline; see src/timeline/timeline.h. */
#include <stdio.h>

#include "internal.h"

size_t timeline__next_run(const struct timeline *tl, const struct tl_thread *x, size_t from, uint64_t ts)
{
	return next_run(tl, x, from, ts);
}

const char *timeline__comm_at(const struct timeline *tl, uint32_t thread, uint64_t ts)
{
	const char *c;

	if (thread == TL_NONE || thread >= tl->nthreads)
		return "-";
	c = threadtab__comm_at(tl->tt, thread, ts);
	return c && *c ? c : tl->threads[thread].comm;
}

/* The name of the thread with this tid that ran last (the tid may have been reused). */
static const char *tid_name(const struct timeline *tl, uint32_t tid)
{
	const char *name = NULL;

	if (!tid)
		return "idle";
	for (size_t i = 0; i < tl->nthreads; i++)
		if (tl->threads[i].tid == tid && (!name || tl->threads[i].nruns))
			name = tl->threads[i].comm;
	return name ? name : "?";
}

size_t timeline__hidden_threads(const struct timeline *tl, char *buf, size_t len)
{
	struct hidden_count { uint32_t tid; uint64_t n; } v[64];
	size_t nv = 0, more = 0, off = 0;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < tl->ngaps; i++) {
		const struct tl_gap *g = &tl->gaps[i];
		size_t k = 0;

		if (g->kind != TL_GAP_BROKEN || g->hidden == TL_NONE)
			continue;
		while (k < nv && v[k].tid != g->hidden)
			k++;
		if (k == nv) {
			if (nv == sizeof(v) / sizeof(v[0])) {
				more++;
				continue;
			}
			v[nv++] = (struct hidden_count){ g->hidden, 0 };
		}
		v[k].n++;
	}
	/* Most often first, then by tid: a few entries, an insertion sort. */
	for (size_t i = 1; i < nv; i++)
		for (size_t j = i; j && (v[j].n > v[j - 1].n || (v[j].n == v[j - 1].n && v[j].tid < v[j - 1].tid)); j--) {
			struct hidden_count t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	for (size_t i = 0; i < nv && i < 3 && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s/%u (%llu)", i ? ", " : "", tid_name(tl, v[i].tid),
					v[i].tid, (unsigned long long)v[i].n);
	if (nv > 3 && off < len)
		snprintf(buf + off, len - off, " and %zu more", nv - 3 + more);
	return nv + more;
}

bool timeline__missing(const struct timeline *tl, int cpu, uint64_t start, uint64_t end)
{
	/* Half-open: a gap that begins at end does not overlap [start, end). */
	if (end <= start)
		end = start + 1;	/* the instant start */
	for (size_t i = 0; i < tl->ngaps && tl->gaps[i].start < end; i++)
		if ((cpu < 0 || tl->gaps[i].cpu == cpu) && tl->gaps[i].end > start)
			return true;
	return false;
}

size_t timeline__lower_bound(const struct tl_event *ev, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ev[mid].ts < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
