// SPDX-License-Identifier: MIT
/*
 * Where a wakeup's real cause may be lost besides softirqs (docs/DESIGN.md
 * §3): the wakeups of user threads by kernel threads (kworkers, io_uring's
 * workers, ksoftirqd, ...), and what started the kernel thread's run that
 * did the waking: a wakeup by a user thread (the chain from that thread
 * to the wakee is in the graph), by an interrupt or a softirq (a device's
 * or a timer's), by another kernel thread, or nothing recorded (the
 * worker was already running when the work was queued: the thread that
 * queued it is lost). Beside them, what the softirq wakeups became.
 *
 *   wake_chains FILE...
 *
 * Prints one block per file (scripts/bench-softirq-raise.sh shows how the
 * recordings of the measurement were made).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/trace.h"
#include "lib/log.h"
#include "timeline/timeline.h"

enum { K_KWORKER, K_IOU, K_KSOFTIRQD, K_OTHER, K_N };
enum { C_THREAD, C_IRQ, C_KTHREAD, C_NONE, C_N };

static const char *const kinds[K_N] = { "kworker", "iou-wrk/iou-sqp", "ksoftirqd", "other kernel thread" };
static const char *const causes[C_N] = { "a user thread", "an interrupt or softirq", "a kernel thread",
					 "nothing recorded" };

static int kind_of(const char *comm)
{
	if (!strncmp(comm, "kworker", 7))
		return K_KWORKER;
	if (!strncmp(comm, "iou-", 4))
		return K_IOU;
	if (!strncmp(comm, "ksoftirqd", 9))
		return K_KSOFTIRQD;
	return K_OTHER;
}

/*
 * A kernel thread, or io_uring's workers (threads of the user's process);
 * those born during the recording are known by their names.
 */
static bool kthread(const struct timeline *tl, uint32_t th)
{
	return th != TL_NONE && ((tl->threads[th].flags & TT_KTHREAD) || kind_of(tl->threads[th].comm) != K_OTHER);
}

/* The run of th containing t, or the thread's run count when none. */
static size_t run_at(const struct timeline *tl, uint32_t th, uint64_t t)
{
	const struct tl_thread *x = &tl->threads[th];
	size_t r = timeline__next_run(tl, x, x->run0, t + 1);

	if (r > x->run0 && tl->runs[r - 1].start <= t && t <= tl->runs[r - 1].end)
		return r - 1;
	return x->run0 + x->nrun;
}

/* What released th's run r (back over preemptions to where it last slept). */
static int cause_of(const struct timeline *tl, uint32_t th, size_t r)
{
	const struct tl_thread *x = &tl->threads[th];
	uint64_t from;

	while (r > x->run0 && tl->runs[r - 1].end_state == QT_END_PREEMPTED)
		r--;
	from = r > x->run0 ? tl->runs[r - 1].end : 0;
	for (size_t i = x->wr0 + x->nwr; i-- > x->wr0;) {
		const struct tl_wakeup *w = &tl->wk[tl->wk_by_wakee[i]];

		if (w->ts > tl->runs[r].start || w->ts < from)
			continue;
		if (w->waker == TL_NONE)
			return C_IRQ;
		return kthread(tl, w->waker) ? C_KTHREAD : C_THREAD;
	}
	return C_NONE;
}

static void one(const char *path)
{
	uint64_t n[K_N][C_N] = { { 0 } }, users = 0, total = 0;
	struct timeline *tl = NULL;
	struct trace *t = NULL;
	char err[512];

	if (trace__load(path, NULL, &t, err, sizeof(err)) || timeline__build(t, NULL, &tl)) {
		fprintf(stderr, "wake_chains: %s: %s\n", path, err);
		exit(1);
	}
	for (size_t i = 0; i < tl->nwk; i++) {
		const struct tl_wakeup *w = &tl->wk[i];
		size_t r;

		if (kthread(tl, w->wakee) || w->is_new)
			continue;
		users++;
		if (w->waker == TL_NONE || !kthread(tl, w->waker))
			continue;
		total++;
		r = run_at(tl, w->waker, w->waking_ts);
		if (r < tl->threads[w->waker].run0 + tl->threads[w->waker].nrun)
			n[kind_of(tl->threads[w->waker].comm)][cause_of(tl, w->waker, r)]++;
		else
			n[kind_of(tl->threads[w->waker].comm)][C_NONE]++;
	}
	printf("%s: %zu wakeups of user threads; %llu by kernel threads\n", path, (size_t)users,
	       (unsigned long long)total);
	for (int k = 0; k < K_N; k++) {
		uint64_t s = 0;

		for (int c = 0; c < C_N; c++)
			s += n[k][c];
		if (!s)
			continue;
		printf("  by %-20s %6llu: its run was started by", kinds[k], (unsigned long long)s);
		for (int c = 0; c < C_N; c++)
			printf("%s %s %llu", c ? "," : "", causes[c], (unsigned long long)n[k][c]);
		printf("\n");
	}
	printf("  softirq wakeups %llu: raised by a thread %llu, by an interrupt %llu, no recorded cause %llu, "
	       "the tick's and timers' %llu; raises recorded %llu\n", (unsigned long long)tl->softirq_wakeups,
	       (unsigned long long)tl->softirq_by_thread, (unsigned long long)tl->softirq_by_irq,
	       (unsigned long long)tl->softirq_unknown,
	       (unsigned long long)(tl->softirq_wakeups - tl->softirq_by_thread - tl->softirq_by_irq -
				    tl->softirq_unknown),
	       (unsigned long long)t->by_type[QT_REC_SOFTIRQ_RAISE]);
	timeline__free(tl);
	trace__free(t);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: wake_chains FILE...\n");
		return 2;
	}
	log_level = LOG_QUIET;
	for (int i = 1; i < argc; i++)
		one(argv[i]);
	return 0;
}
