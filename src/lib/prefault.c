// SPDX-License-Identifier: MIT
/* Faulting memory in ahead of its writer; see src/lib/prefault.h. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prefault.h"
#include "workq.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/*
 * One request to the kernel: two huge pages. Small enough that a stop
 * waits little, large enough that the requests cost nothing beside the
 * clearing.
 */
#define STEP (4u << 20)

/* Whole pages. */
struct pf_range {
	char *base;
	size_t len;
};

struct prefault {
	struct pf_range r[PREFAULT_MAX_RANGES];
	int nr;
	size_t len;		/* of all ranges, one after the other */
	size_t page;
	size_t ahead;
	size_t limit;		/* the helper may go up to here; written by the writer, under mu */
	size_t pos;		/* faulted in up to here; under mu */
	bool stop;		/* under mu */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
};

static void *helper(void *arg)
{
	struct prefault *pf = arg;

	pthread_mutex_lock(&pf->mu);
	for (;;) {
		size_t end, at;
		int i, r;

		while (!pf->stop && pf->pos >= pf->limit)
			pthread_cond_wait(&pf->cv, &pf->mu);
		if (pf->stop)
			break;
		end = pf->limit - pf->pos > STEP ? pf->pos + STEP : pf->limit;
		/* pos is in the ranges one after the other: not past the one it is in. */
		for (i = 0, at = pf->pos; at >= pf->r[i].len; i++)
			at -= pf->r[i].len;
		if (end - pf->pos > pf->r[i].len - at)
			end = pf->pos + (pf->r[i].len - at);
		pthread_mutex_unlock(&pf->mu);
		r = madvise(pf->r[i].base + at, end - pf->pos, MADV_POPULATE_WRITE);
		pthread_mutex_lock(&pf->mu);
		/*
		 * An old kernel (EINVAL) or no memory to be had now: the writer
		 * faults the rest in itself, and meets the same shortage there.
		 */
		if (r)
			break;
		pf->pos = end;
	}
	pthread_mutex_unlock(&pf->mu);
	return NULL;
}

/* The limit for a writer at done: whole pages, never past the end. */
static size_t limit_at(const struct prefault *pf, size_t done)
{
	size_t l;

	if (pf->ahead == PREFAULT_ALL || done >= pf->len || pf->ahead >= pf->len - done)
		return pf->len;
	l = done + pf->ahead;
	return l - l % pf->page;
}

static struct prefault *start(void *const p[], const size_t len[], int n, size_t ahead)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), total = 0;
	struct prefault *pf;

	if (n < 1 || n > PREFAULT_MAX_RANGES)
		return NULL;
	for (int i = 0; i < n; i++)
		total += p[i] ? len[i] : 0;
	if (total < PREFAULT_MIN || workq_cpus_usable() < 2)
		return NULL;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return NULL;
	pf->page = page;
	for (int i = 0; i < n; i++) {
		uintptr_t lo = ((uintptr_t)p[i] + page - 1) / page * page;
		uintptr_t hi = ((uintptr_t)p[i] + len[i]) / page * page;

		if (!p[i] || hi <= lo)
			continue;
		pf->r[pf->nr++] = (struct pf_range){ (char *)lo, hi - lo };
		pf->len += hi - lo;
	}
	if (!pf->len) {
		free(pf);
		return NULL;
	}
	pf->ahead = ahead;
	pf->limit = limit_at(pf, 0);
	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->cv, NULL);
	if (pthread_create(&pf->th, NULL, helper, pf)) {
		pthread_cond_destroy(&pf->cv);
		pthread_mutex_destroy(&pf->mu);
		free(pf);
		return NULL;
	}
	return pf;
}

struct prefault *prefault__start(void *p, size_t len, size_t ahead)
{
	return start(&p, &len, 1, ahead);
}

struct prefault *prefault__start_all(void *const p[], const size_t len[], int n)
{
	return start(p, len, n, PREFAULT_ALL);
}

void prefault__reach(struct prefault *pf, size_t done)
{
	size_t l;

	if (!pf)
		return;
	/* done counts from p, the helper from the first whole page: close enough. */
	l = limit_at(pf, done);
	/* Only the writer changes limit, so it may read it unlocked. */
	if (l < pf->limit + STEP && l != pf->len)
		return;
	if (l <= pf->limit)
		return;
	pthread_mutex_lock(&pf->mu);
	pf->limit = l;
	pthread_cond_signal(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
}

void prefault__stop(struct prefault *pf)
{
	if (!pf)
		return;
	pthread_mutex_lock(&pf->mu);
	pf->stop = true;
	pthread_cond_signal(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	pthread_join(pf->th, NULL);
	pthread_cond_destroy(&pf->cv);
	pthread_mutex_destroy(&pf->mu);
	free(pf);
}

size_t prefault__done(struct prefault *pf)
{
	size_t d;

	if (!pf)
		return 0;
	pthread_mutex_lock(&pf->mu);
	d = pf->pos;
	pthread_mutex_unlock(&pf->mu);
	return d;
}
