// SPDX-License-Identifier: MIT
/* The time-ordered event stream for pattern mining; see src/timeline/timeline.h. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sort.h"
#include "timeline.h"

static int cmp_span(const void *a, const void *b)
{
	const struct tl_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The spans sorted and merged where they overlap, in place; returns how many are left. */
static size_t merge_spans(struct tl_span *s, size_t n)
{
	size_t k = 0;

	qsort(s, n, sizeof(*s), cmp_span);
	for (size_t i = 0; i < n; i++) {
		if (s[i].end < s[i].start)
			continue;
		if (k && s[i].start <= s[k - 1].end)
			s[k - 1].end = s[i].end > s[k - 1].end ? s[i].end : s[k - 1].end;
		else
			s[k++] = s[i];
	}
	return k;
}

/* First span that ends at or after t. */
static size_t span_from(const struct tl_span *s, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].end < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The records of one array (count of them, the time at byte offset `at`
 * of each stride-byte record) whose time is inside the merged spans, as
 * pairs (time, place + i) into p[k..]; with p NULL only counted. Returns
 * the new k. The arrays are a few ascending runs (runs and system calls
 * one per thread): the span cursor moves forward within one and is
 * searched again where the next begins.
 */
static size_t add_events(struct sort_pair *p, size_t k, const void *arr, size_t count, size_t stride,
			 size_t at, size_t place, const struct tl_span *sp, size_t nsp)
{
	const char *b = (const char *)arr + at;
	uint64_t prev = 0;
	size_t r = 0;

	for (size_t i = 0; i < count; i++) {
		uint64_t ts;

		memcpy(&ts, b + i * stride, sizeof(ts));
		if (sp) {
			if (!i || ts < prev)
				r = span_from(sp, nsp, ts);
			prev = ts;
			while (r < nsp && sp[r].end < ts)
				r++;
			if (r == nsp || ts < sp[r].start)
				continue;
		}
		if (p)
			p[k] = (struct sort_pair){ ts, place + i };
		k++;
	}
	return k;
}

/*
 * The events' times and places in the concatenation runs, syscalls,
 * wakeups, IRQs, gaps are sorted as pairs; each sorted pair is then
 * turned into its event in place (both are 16 bytes), so the stream costs
 * one array and the sort's buffer, not three arrays.
 */
int timeline__stream(const struct timeline *tl, const struct tl_span *spans, size_t nspans,
		     struct tl_event **out, size_t *n)
{
	const struct {
		const void *arr;
		size_t count, stride, at;
	} src[] = {
		{ tl->runs, tl->nruns, sizeof(*tl->runs), offsetof(struct tl_run, start) },
		{ tl->sc, tl->nsc, sizeof(*tl->sc), offsetof(struct tl_syscall, start) },
		{ tl->wk, tl->nwk, sizeof(*tl->wk), offsetof(struct tl_wakeup, ts) },
		{ tl->irqs, tl->nirqs, sizeof(*tl->irqs), offsetof(struct tl_irq, start) },
		{ tl->gaps, tl->ngaps, sizeof(*tl->gaps), offsetof(struct tl_gap, start) },
	};
	static const uint8_t kinds[] = { TL_EV_RUN, TL_EV_SYSCALL, TL_EV_WAKEUP, TL_EV_IRQ, TL_EV_GAP };
	size_t first[6] = { 0 }, total = 0, nsp = 0;
	struct tl_span *sp = NULL;
	struct sort_pair *p = NULL;
	struct tl_event *ev;

	_Static_assert(sizeof(struct tl_event) == sizeof(struct sort_pair), "converted in place");
	*out = NULL;
	*n = 0;
	for (int k = 0; k < 5; k++)
		first[k + 1] = first[k] + src[k].count;
	if (spans) {
		sp = malloc((nspans ? nspans : 1) * sizeof(*sp));
		if (!sp)
			return -ENOMEM;
		memcpy(sp, spans, nspans * sizeof(*sp));
		nsp = merge_spans(sp, nspans);
	}
	/* with spans, counted first: the pairs are sized to what is kept */
	total = first[5];
	if (sp) {
		total = 0;
		for (int k = 0; k < 5; k++)
			total = add_events(NULL, total, src[k].arr, src[k].count, src[k].stride, src[k].at,
					   first[k], sp, nsp);
	}
	p = malloc((total ? total : 1) * sizeof(*p));
	if (!p) {
		free(sp);
		return -ENOMEM;
	}
	for (size_t k = 0, j = 0; k < 5; k++)
		j = add_events(p, j, src[k].arr, src[k].count, src[k].stride, src[k].at, first[k], sp, nsp);
	free(sp);
	if (sort_pairs(p, total)) {
		free(p);
		return -ENOMEM;
	}
	ev = (struct tl_event *)p;
	for (size_t i = 0; i < total; i++) {
		struct sort_pair x;
		int kind = 4;

		memcpy(&x, &p[i], sizeof(x));
		while (x.idx < first[kind])
			kind--;
		ev[i] = (struct tl_event){ .ts = x.key, .idx = (uint32_t)(x.idx - first[kind]), .kind = kinds[kind] };
	}
	*out = ev;
	*n = total;
	return 0;
}
