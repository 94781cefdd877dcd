// SPDX-License-Identifier: MIT
/* The warm-up; see src/watch/learn.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "file/syscall_names.h"
#include "file/trace.h"
#include "history.h"
#include "learn.h"
#include "ring.h"
#include "threads.h"
#include "timeline/timeline.h"
#include "trigger.h"

/* The oldest block to read: the newest ones, up to about max_events. */
static uint64_t first_block(struct ring *r, uint64_t *last, size_t max_events)
{
	struct ring_stats st;
	uint64_t seq, sum = 0, n;

	ring__stats(r, &st);
	if (*last >= st.next_seq)
		*last = st.next_seq ? st.next_seq - 1 : 0;
	for (seq = *last; seq > st.first_seq; seq--) {
		ring__sum(r, seq, seq, NULL, &n);
		sum += n;
		if (sum >= max_events)
			break;
	}
	return seq;
}

/* The ring's blocks [first, last] into b: their records and the times they cover. */
static int read_blocks(struct trace_builder *b, struct ring *r, uint64_t first, uint64_t last, struct ring_copy *c,
		       uint64_t *from)
{
	struct tf_packer *pk;
	int err = tf_packer__new(0, &pk);

	*from = 0;
	for (uint64_t seq = first; seq <= last && !err; seq++) {
		struct tf_block blk = { .type = TF_BLK_EVENTS };
		const uint8_t *data;
		int got = ring__copy(r, seq, c);

		if (got <= 0) {
			err = got;
			continue;
		}
		if (tf_packer__unpack(pk, &c->pk, &data))
			continue;	/* the ring packed it itself: never damaged */
		if (!*from)
			*from = c->pk.base_ts;
		blk.data = data;
		blk.len = c->pk.raw_len;
		blk.count = c->pk.count;
		blk.base_ts = c->pk.base_ts;
		blk.seq = seq;
		err = trace_builder__add_events(b, &blk);
	}
	tf_packer__free(pk);
	return err;
}

/*
 * The ring's blocks [first, last] as a trace: meta the recording's (NULL:
 * none), the thread table as of its first block.
 */
static int blocks_trace(struct ring *r, uint64_t first, uint64_t last, const struct tf_kv *meta, const char *targets,
			const struct threads *threads, struct trace **out)
{
	struct trace_builder *b = trace_builder__new("(memory)");
	struct ring_copy c = { 0 };
	struct tf_thread *th = NULL;
	struct trace *t;
	uint64_t from;
	size_t n = 0;
	int err = 0;

	if (!b)
		return -ENOMEM;
	t = trace_builder__trace(b);
	err = read_blocks(b, r, first, last, &c, &from);
	ring_copy_free(&c);
	if (!err && !from)
		err = -ENODATA;
	for (size_t i = 0; meta && i < meta->n && !err; i++)
		err = tf_kv_set(&t->meta, meta->keys[i], "%s", meta->vals[i]);
	if (!err)
		err = tf_kv_set(&t->meta, TF_META_START, "%llu", (unsigned long long)from);
	if (!err && targets)
		err = tf_kv_set(&t->meta, TF_META_TARGETS, "%s", targets);
	if (!err && threads)
		err = threads__at(threads, from, &th, &n);
	if (!err)
		err = trace_builder__threads(b, th, n, from);
	free(th);
	if (err) {
		trace_builder__free(b);
		return err;
	}
	t->finished = true;	/* no END: the span is the records' */
	*out = trace_builder__finish(b);
	return 0;
}

/* Blocks decoded at a time into the history: a few MB of records, whatever the ring holds. */
#define SEED_BLOCKS 16

int learn_catch_up(struct ring *r, uint64_t first, uint64_t last, struct history *h)
{
	int err = 0;

	for (uint64_t s = first; s <= last && !err; s += SEED_BLOCKS) {
		uint64_t e = last - s >= SEED_BLOCKS ? s + SEED_BLOCKS - 1 : last;
		struct trace *t;

		err = blocks_trace(r, s, e, NULL, NULL, NULL, &t);
		if (err == -ENODATA) {
			err = 0;
			continue;
		}
		if (!err)
			err = learn_seed(t, h);
		if (!err)
			trace__free(t);
	}
	return err;
}

/* The actor as --actor names it for the judge: its thread by tid, and its call. */
static void spec_of(const struct actor *a, const struct tl_thread *th, const char *arch, char *buf, size_t len)
{
	const char *call;
	char nr[16], arg[32] = "";

	if (a->kind == ACTOR_THREAD) {
		snprintf(buf, len, "tid:%u", th->tid);
		return;
	}
	call = syscall_name(arch, a->syscall_nr);
	if (!call) {
		snprintf(nr, sizeof(nr), "%u", a->syscall_nr);
		call = nr;
	}
	if (a->has_arg0)
		snprintf(arg, sizeof(arg), "(%llu)", (unsigned long long)a->arg0);
	snprintf(buf, len, "%s%s@tid:%u", call, arg, th->tid);
}

static int take(const struct actors_result *ar, const struct timeline *tl, const struct learn_in *in,
		struct learnt *l)
{
	l->v = calloc(ar->n ? ar->n : 1, sizeof(*l->v));
	if (!l->v)
		return -ENOMEM;
	for (size_t i = 0; i < ar->n; i++) {
		const struct actor *a = &ar->v[i];
		const struct tl_thread *th = &tl->threads[a->thread];
		struct learnt_actor *x = &l->v[l->n++];

		spec_of(a, th, trace__arch(tl->trace), x->spec, sizeof(x->spec));
		snprintf(x->name, sizeof(x->name), "%s", a->name);
		memcpy(x->comm, a->comm, sizeof(x->comm));
		x->tid = th->tid;
		x->tgid = th->pid;
		x->kind = a->kind;
		x->periodic = a->st.periodic;
		x->period_ns = a->st.period_ns;
		x->qcod = a->st.qcod;
		x->ninv = a->ninv;
		x->have_rule = !follow_rule_learn(a, tl, watch_cut_ns(a->st.period_ns, in->late_ns), &x->rule);
	}
	l->skipped = ar->nskipped;
	return 0;
}

int learn_from_ring(const struct learn_in *in, struct learnt *out, struct trace **trace)
{
	struct actors_opts ao = { .jobs = 1 };
	struct actors_result *ar = NULL;
	struct timeline *tl = NULL;
	const char **specs = NULL;
	struct trace *t = NULL;
	int err;

	uint64_t last = in->last_seq, first = first_block(in->ring, &last, in->max_events);

	memset(out, 0, sizeof(*out));
	*trace = NULL;
	err = blocks_trace(in->ring, first, last, in->meta, in->targets, in->threads, &t);
	if (!err) {
		out->from = t->start_ns;
		out->to = t->stop_ns;
		out->events = t->events;
		err = timeline__build(t, NULL, &tl);
	}
	/* Only the specs that name a thread already: the others may later (the stage refuses them). */
	if (!err && in->nspecs) {
		specs = calloc(in->nspecs, sizeof(*specs));
		err = specs ? 0 : -ENOMEM;
		for (size_t i = 0; !err && i < in->nspecs; i++) {
			if (actors__spec_names(in->specs[i], tl))
				specs[ao.n_actor_specs++] = in->specs[i];
			else
				out->missing_specs++;
		}
		ao.actor_specs = specs;
		if (!err && !ao.n_actor_specs)
			err = -ENODATA;
	}
	if (!err)
		err = actors__analyse(tl, &ao, &ar);
	if (!err)
		err = take(ar, tl, in, out);
	free(specs);
	actors__free(ar);
	timeline__free(tl);
	if (err) {
		trace__free(t);
		learnt_free(out);
		return err;
	}
	*trace = t;
	return 0;
}

/* Records go to the history a chunk at a time: each add sorts what came. */
#define SEED_CHUNK 4096

int learn_seed(const struct trace *t, struct history *h)
{
	union qt_record *buf = malloc(SEED_CHUNK * sizeof(*buf));
	size_t n = 0;
	int err = 0;

	if (!buf)
		return -ENOMEM;
#define SEED(arr, count, field)                                            	for (size_t i = 0; i < (count) && !err; i++) {                      		memset(&buf[n], 0, sizeof(buf[n]));                         		buf[n++].field = (arr)[i];                                  		if (n == SEED_CHUNK) {                                      			err = history__add(h, buf, n);                      			n = 0;                                              		}                                                           	}
	SEED(t->sw, t->nsw, sw);
	SEED(t->sc, t->nsc, sc);
	SEED(t->task, t->ntask, task);
	SEED(t->lost, t->nlost, lost);
#undef SEED
	if (!err && n)
		err = history__add(h, buf, n);
	free(buf);
	return err;
}

void learnt_free(struct learnt *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
