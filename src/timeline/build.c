// SPDX-License-Identifier: MIT
/* Building the timeline from a loaded trace; see src/timeline/timeline.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lib/log.h"
#include "lib/sort.h"

/* ---- a small set of u32 (target processes) ---- */

static bool set_has(const struct u32set *s, uint32_t v)
{
	if (!s->cap || !v)
		return false;
	for (size_t i = (v * 2654435761u) & (s->cap - 1); s->k[i]; i = (i + 1) & (s->cap - 1))
		if (s->k[i] == v)
			return true;
	return false;
}

static int set_add(struct u32set *s, uint32_t v)
{
	size_t i;

	if (!v || set_has(s, v))
		return 0;
	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct u32set ns = { calloc(cap, sizeof(uint32_t)), cap, 0 };

		if (!ns.k)
			return -ENOMEM;
		for (size_t j = 0; j < s->cap; j++)
			if (s->k[j])
				set_add(&ns, s->k[j]);
		free(s->k);
		*s = ns;
	}
	for (i = (v * 2654435761u) & (s->cap - 1); s->k[i]; i = (i + 1) & (s->cap - 1))
		;
	s->k[i] = v;
	s->n++;
	return 0;
}

static uint64_t key_task(const void *a, size_t i) { return ((const struct qt_task *)a)[i].h.ts; }
static uint64_t key_sc(const void *a, size_t i) { return ((const struct qt_syscall *)a)[i].h.ts; }
static uint64_t key_wk(const void *a, size_t i) { return ((const struct qt_wakeup *)a)[i].h.ts; }
static uint64_t key_irq(const void *a, size_t i) { return ((const struct qt_irq *)a)[i].h.ts; }
static uint64_t key_gap(const void *a, size_t i) { return ((const struct tl_gap *)a)[i].start; }

/* Thread table from the start snapshot and the lifecycle records, in time order. */
static int build_threadtab(struct builder *b)
{
	const struct trace *t = b->t;
	uint32_t *order;
	const char *v;
	int err;

	b->tl->tt = threadtab__new();
	if (!b->tl->tt)
		return -ENOMEM;
	err = threadtab__snapshot(b->tl->tt, t->threads_start, t->nthreads_start,
				  t->threads_start_ts, false);
	if (err)
		return err;
	v = tf_kv_get(&t->meta, TF_META_MODE);
	b->all = v && !strcmp(v, "all");
	for (v = tf_kv_get(&t->meta, TF_META_TARGETS); v && *v;) {
		err = set_add(&b->targets, strtoul(v, NULL, 10));
		if (err)
			return err;
		v = strchr(v, ',');
		v = v ? v + 1 : NULL;
	}
	tf_kv_get_u64(&t->meta, TF_META_RECORDER, &b->recorder);

	err = sort_order(t->ntask, key_task, t->task, &order);
	if (err)
		return err;
	for (size_t k = 0; k < t->ntask && !err; k++) {
		const struct qt_task *r = &t->task[order[k]];

		switch (r->h.type) {
		case QT_REC_FORK:
			/* A process started by a target is a target (the kernel side agrees). */
			if (r->tgid != r->parent_tgid && set_has(&b->targets, r->parent_tgid))
				err = set_add(&b->targets, r->tgid);
			if (!err)
				err = threadtab__fork(b->tl->tt, r->h.ts, r->tid, r->tgid, r->parent_tgid, r->comm);
			break;
		case QT_REC_EXEC:
			err = threadtab__exec(b->tl->tt, r->h.ts, r->tid, r->tgid, r->comm);
			break;
		case QT_REC_RENAME:
			err = threadtab__rename(b->tl->tt, r->h.ts, r->tid, r->tgid, r->comm);
			break;
		case QT_REC_EXIT:
			err = threadtab__exit(b->tl->tt, r->h.ts, r->tid, r->tgid, r->comm);
			break;
		}
	}
	free(order);
	return err;
}

static int build_syscalls(struct builder *b)
{
	const struct trace *t = b->t;
	struct timeline *tl = b->tl;
	uint32_t *order;
	int err;

	err = sort_order(t->nsc, key_sc, t->sc, &order);
	if (err)
		return err;
	tl->sc = malloc((t->nsc ? t->nsc : 1) * sizeof(*tl->sc));
	if (!tl->sc) {
		free(order);
		return -ENOMEM;
	}
	for (size_t k = 0; k < t->nsc; k++) {
		const struct qt_syscall *r = &t->sc[order[k]];
		struct tl_syscall *s = &tl->sc[tl->nsc];

		s->start = r->h.ts;
		s->end = r->end_ts;
		s->ret = r->ret;
		s->arg0 = r->arg0;
		s->nr = r->nr;
		s->cpu = r->h.cpu;
		s->flags = r->h.flags;
		s->thread = threadtab__resolve(tl->tt, r->tid, r->h.ts, r->tgid);
		if (s->thread == TT_NONE)
			continue;
		tl->nsc++;
	}
	free(order);
	return 0;
}

static int build_wakeups(struct builder *b)
{
	const struct trace *t = b->t;
	struct timeline *tl = b->tl;
	uint32_t *order;
	int err;

	err = sort_order(t->nwk, key_wk, t->wk, &order);
	if (err)
		return err;
	tl->wk = malloc((t->nwk ? t->nwk : 1) * sizeof(*tl->wk));
	if (!tl->wk) {
		free(order);
		return -ENOMEM;
	}
	for (size_t k = 0; k < t->nwk; k++) {
		const struct qt_wakeup *r = &t->wk[order[k]];
		struct tl_wakeup *w = &tl->wk[tl->nwk];

		w->ts = r->h.ts;
		w->waking_ts = r->waking_ts;
		w->target_cpu = r->target_cpu;
		w->waker_cpu = r->waker_cpu;
		w->irq = r->waker_irq;
		w->flags = r->h.flags;
		w->is_new = r->h.type == QT_REC_WAKEUP_NEW;
		w->wakee = threadtab__resolve(tl->tt, r->wakee_tid, r->h.ts, r->wakee_tgid);
		if (w->wakee == TT_NONE)
			continue;
		/* An interrupt wakes on behalf of nobody it happened to interrupt. */
		if (r->h.flags & (QT_WAKE_HARDIRQ | QT_WAKE_SOFTIRQ))
			w->waker = TL_NONE;
		else
			w->waker = threadtab__resolve(tl->tt, r->waker_tid, r->waking_ts, r->waker_tgid);
		tl->nwk++;
	}
	free(order);
	return 0;
}

static int build_irqs(struct builder *b)
{
	const struct trace *t = b->t;
	struct timeline *tl = b->tl;
	uint32_t *order;
	int err;

	err = sort_order(t->nirq, key_irq, t->irq, &order);
	if (err)
		return err;
	tl->irqs = malloc((t->nirq ? t->nirq : 1) * sizeof(*tl->irqs));
	if (!tl->irqs) {
		free(order);
		return -ENOMEM;
	}
	for (size_t k = 0; k < t->nirq; k++) {
		const struct qt_irq *r = &t->irq[order[k]];
		struct tl_irq *q = &tl->irqs[tl->nirqs++];

		q->start = r->h.ts;
		q->end = r->end_ts;
		q->num = r->irq;
		q->ret = r->ret;
		q->cpu = r->h.cpu;
		q->soft = r->h.type == QT_REC_SOFTIRQ;
		q->thread = threadtab__resolve(tl->tt, r->tid, r->h.ts, 0);
	}
	free(order);
	return 0;
}

/* The threads of the table, named and flagged; group_threads() gives them their slices. */
static int make_threads(struct builder *b)
{
	struct timeline *tl = b->tl;
	size_t n = threadtab__count(tl->tt);

	threadtab__name_from(tl->tt, b->t->threads_end, b->t->nthreads_end);
	tl->nthreads = n;
	tl->threads = calloc(n ? n : 1, sizeof(*tl->threads));
	if (!tl->threads)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct tt_thread *th = threadtab__get(tl->tt, i);
		struct tl_thread *x = &tl->threads[i];

		x->tid = th->tid;
		x->pid = th->pid;
		x->flags = th->flags;
		memcpy(x->comm, th->comm, sizeof(x->comm));
		if (i < b->rt_cap)
			x->cpu_ns = b->cpu_ns[i];
		if (!x->comm[0])
			snprintf(x->comm, sizeof(x->comm), "<%u>", th->tid);
		if (b->all || set_has(&b->targets, th->pid))
			x->flags |= TL_TARGET;
		if (b->recorder && th->pid == b->recorder) {
			x->flags |= TL_RECORDER;
			x->flags &= ~TL_TARGET;
		}
	}
	return 0;
}

static int sort_gaps(struct timeline *tl)
{
	uint32_t *order;
	struct tl_gap *g;
	int err = sort_order(tl->ngaps, key_gap, tl->gaps, &order);

	if (err)
		return err;
	g = malloc((tl->ngaps ? tl->ngaps : 1) * sizeof(*g));
	if (!g) {
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < tl->ngaps; i++)
		g[i] = tl->gaps[order[i]];
	free(tl->gaps);
	tl->gaps = g;
	free(order);
	return 0;
}

static int build(const struct trace *t, struct trace *consume, const struct timeline_opts *opts,
		 struct timeline **out)
{
	struct builder b = { .consume = consume };
	struct timeline *tl;
	int err;

	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return -ENOMEM;
	b.tl = tl;
	b.t = t;
	tl->trace = t;
	tl->start = t->start_ns;
	tl->end = t->stop_ns;
	tl->ncpus = t->ncpus > 0 ? t->ncpus : 1;
	/*
	 * Per-CPU state is indexed by the records' CPU: cover every CPU they
	 * name, whatever the header said (trace__load does so for switches; a
	 * trace made another way may not).
	 */
	for (size_t i = 0; i < t->nsw; i++)
		if (t->sw[i].h.cpu >= tl->ncpus)
			tl->ncpus = t->sw[i].h.cpu + 1;
	for (size_t i = 0; i < t->nlost; i++)
		if (t->lost[i].h.cpu >= tl->ncpus)
			tl->ncpus = t->lost[i].h.cpu + 1;

	err = build_threadtab(&b);
	if (!err)
		err = runs_lost_gaps(&b);
	if (!err)
		err = runs_build(&b);
	if (!err && b.consume)
		trace__drop_switches(b.consume);
	if (!err)
		err = build_syscalls(&b);
	if (!err)
		err = build_wakeups(&b);
	if (!err)
		err = build_irqs(&b);
	if (!err)
		err = softirq_causes(&b);
	if (!err && b.consume)
		trace__drop_records(b.consume);
	if (!err)
		err = make_threads(&b);
	if (!err)
		err = group_threads(tl);
	if (!err)
		err = sort_gaps(tl);

	free(b.targets.k);
	free(b.last_rt);
	free(b.cpu_ns);
	free(b.has_rt);
	for (int c = 0; b.cpu_gaps && c < tl->ncpus; c++)
		free(b.cpu_gaps[c]);
	free(b.cpu_gaps);
	free(b.cpu_ngaps);
	free(b.cpu_cursor);
	if (err) {
		timeline__free(tl);
		return err;
	}
	if (tl->unsure_runs)
		log_info("%s: %llu switches were not reported by the kernel; %llu runs have an uncertain "
			 "start (%.3f ms in all)", t->path, (unsigned long long)tl->broken_chains,
			 (unsigned long long)tl->unsure_runs, tl->unsure_ns / 1e6);
	*out = tl;
	return 0;
}

int timeline__build(const struct trace *t, const struct timeline_opts *opts,
		    struct timeline **out)
{
	return build(t, NULL, opts, out);
}

int timeline__build_consuming(struct trace *t, const struct timeline_opts *opts,
			      struct timeline **out)
{
	return build(t, t, opts, out);
}

void timeline__free(struct timeline *tl)
{
	if (!tl)
		return;
	threadtab__free(tl->tt);
	free(tl->threads);
	free(tl->runs);
	free(tl->sc);
	free(tl->wk);
	free(tl->wk_by_wakee);
	free(tl->wk_by_waker);
	free(tl->irqs);
	free(tl->gaps);
	free(tl->runs_by_cpu);
	free(tl->cpu_run0);
	free(tl);
}
