// SPDX-License-Identifier: MIT
/*
 * The data-flow path of a recording, ready to print; see
 * src/dataflow/stage.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/dataobj.h"
#include "file/missing.h"
#include "file/syscall_names.h"
#include "lib/log.h"
#include "stage.h"

/* At most this many non-critical inputs listed per merge (the closest first). */
#define OTHERS_PER_MERGE 8

const char *dataflow_unavailable(const struct trace *t, char *buf, size_t len)
{
	const char *features = tf_kv_get(&t->meta, TF_META_FEATURES);
	const char *mode = tf_kv_get(&t->meta, TF_META_MODE);

	if (t->format_version < 3)
		snprintf(buf, len, "the file is trace format %u: the objects of reads and writes are "
			 "recorded from format 3 on", t->format_version);
	else if (missing_has(tf_kv_get(&t->meta, TF_META_MISSING), MISSING_DATA))
		snprintf(buf, len, "it was recorded by the tracefs attach path, which cannot read the "
			 "file behind a descriptor (the path of a kernel without BTF, or of --backend "
			 "tracefs; record --btf FILE gives such a kernel the core path)");
	else if (missing_has(features, "data"))
		return NULL;
	else if (!missing_has(features, "syscalls"))
		snprintf(buf, len, "it was recorded with --no-syscalls");
	else if (mode && !strcmp(mode, "all"))
		snprintf(buf, len, "it was recorded with -a, which leaves the objects of reads and "
			 "writes out unless asked: record -a --data");
	else
		snprintf(buf, len, "it was recorded with --no-data");
	return buf;
}

/* The name of thread tid at ts, from the task records and the snapshots ("" if none). */
static void comm_at(const struct trace *t, uint32_t tid, uint64_t ts, char comm[QT_COMM_LEN])
{
	uint64_t best = 0;

	comm[0] = 0;
	for (size_t i = 0; i < t->nthreads_start; i++)
		if (t->threads_start[i].tid == tid)
			snprintf(comm, QT_COMM_LEN, "%s", t->threads_start[i].comm);
	for (size_t i = 0; i < t->ntask; i++) {
		const struct qt_task *k = &t->task[i];

		if (k->tid == tid && k->h.type != QT_REC_EXIT && k->h.ts <= ts && k->h.ts >= best) {
			best = k->h.ts;
			snprintf(comm, QT_COMM_LEN, "%s", k->comm);
		}
	}
	for (size_t i = 0; !comm[0] && i < t->nthreads_end; i++)
		if (t->threads_end[i].tid == tid)
			snprintf(comm, QT_COMM_LEN, "%s", t->threads_end[i].comm);
}

/*
 * The target --data-path names: the latest state of a matching object,
 * by identity (dataobj_parse()) or else by the file name an open gave it
 * (the last component of spec).
 */
static long named_target(const struct dataflow_result *r, const char *spec)
{
	const char *base = strrchr(spec, '/') ? strrchr(spec, '/') + 1 : spec;
	bool by_name = false;
	uint32_t dev;
	uint64_t ino = 0;
	long best = -1;

	if (dataobj_parse(spec, &dev, &ino))
		by_name = true;
	if (by_name && !*base) {
		log_err("--data-path '%s': expected MAJ:MIN:INO (as stat -c '%%Hd:%%Ld:%%i' prints), "
			"pipe:[INO], socket:[INO] or a file's name", spec);
		return -EINVAL;
	}
	for (size_t i = 0; i < r->d.nstates; i++) {
		const struct df_state *s = &r->d.states[i];
		const struct df_key *k = &r->rec.keys[s->obj];

		if (s->kind == DF_S_PRETRACE)
			continue;
		if (by_name ? strcmp(r->rec.names[s->obj], base) :
			      (k->ino != ino && k->peer != ino) || (dev != UINT32_MAX && k->dev != dev))
			continue;
		if (best < 0 || s->t >= r->d.states[best].t)
			best = (long)i;
	}
	if (best < 0) {
		log_err("--data-path %s: no traced call made a version of it%s", spec,
			by_name ? " (a name is that of a file the targets opened during the recording)" : "");
		return -ESRCH;
	}
	return best;
}

static int push_other(struct dataflow_result *r, const struct df_other *o)
{
	struct df_other *v;

	if (r->nothers % 16 == 0) {
		v = realloc(r->others, (r->nothers + 16) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->others = v;
	}
	r->others[r->nothers++] = *o;
	return 0;
}

static int cmp_slack(const void *x, const void *y)
{
	const struct df_other *a = x, *b = y;

	return (a->slack > b->slack) - (a->slack < b->slack);
}

/*
 * The calls by process in order of their ends, and by end alone: a path's
 * hops look up their reads and merges there, in time proportional to the
 * calls around them rather than to the recording (a path of thousands of
 * hops over a million calls).
 */
struct op_index {
	const struct df_input *in;
	uint32_t *byproc;	/* op indices by (proc, end) */
	size_t *pstart;		/* process p's calls: byproc[pstart[p] .. pstart[p + 1]) */
	uint32_t *byend;	/* op indices by end */
	long *forked_by;	/* per process: the fork that made it (-1: none) */
};

static int cmp_proc_end(const void *x, const void *y, void *in)
{
	const struct df_op *ops = ((const struct df_input *)in)->ops;
	const struct df_op *a = &ops[*(const uint32_t *)x], *b = &ops[*(const uint32_t *)y];

	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	if (a->e != b->e)
		return a->e < b->e ? -1 : 1;
	return (*(const uint32_t *)x > *(const uint32_t *)y) - (*(const uint32_t *)x < *(const uint32_t *)y);
}

static int cmp_end(const void *x, const void *y, void *in)
{
	const struct df_op *ops = ((const struct df_input *)in)->ops;
	const struct df_op *a = &ops[*(const uint32_t *)x], *b = &ops[*(const uint32_t *)y];

	return (a->e > b->e) - (a->e < b->e);
}

static void index_free(struct op_index *x)
{
	free(x->byproc);
	free(x->pstart);
	free(x->byend);
	free(x->forked_by);
}

static int index_build(const struct df_input *in, struct op_index *x)
{
	*x = (struct op_index){ .in = in };
	x->byproc = malloc((in->nops + 1) * sizeof(*x->byproc));
	x->byend = malloc((in->nops + 1) * sizeof(*x->byend));
	x->pstart = calloc(in->nprocs + 2, sizeof(*x->pstart));
	x->forked_by = malloc((in->nprocs + 1) * sizeof(*x->forked_by));
	if (!x->byproc || !x->byend || !x->pstart || !x->forked_by) {
		index_free(x);
		return -ENOMEM;
	}
	for (size_t p = 0; p < in->nprocs; p++)
		x->forked_by[p] = -1;
	for (uint32_t i = 0; i < in->nops; i++) {
		x->byproc[i] = x->byend[i] = i;
		x->pstart[in->ops[i].proc + 1]++;
		if (in->ops[i].kind == DF_OP_FORK && x->forked_by[in->ops[i].child] < 0)
			x->forked_by[in->ops[i].child] = i;
	}
	for (size_t p = 0; p < in->nprocs; p++)
		x->pstart[p + 1] += x->pstart[p];
	qsort_r(x->byproc, in->nops, sizeof(*x->byproc), cmp_proc_end, (void *)in);
	qsort_r(x->byend, in->nops, sizeof(*x->byend), cmp_end, (void *)in);
	return 0;
}

/* In process proc's calls, the position after the last one that ended at or before t. */
static size_t proc_upto(const struct op_index *x, uint32_t proc, int64_t t)
{
	size_t lo = x->pstart[proc], hi = x->pstart[proc + 1];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->in->ops[x->byproc[mid]].e <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The latest mutation (write, truncation) of proc that ended by `until`, but for call skip: its end. */
static int64_t last_mutation(const struct op_index *x, uint32_t proc, int64_t until, uint32_t skip)
{
	for (size_t k = proc_upto(x, proc, until); k-- > x->pstart[proc];) {
		const struct df_op *o = &x->in->ops[x->byproc[k]];

		if (x->byproc[k] != skip && (o->kind == DF_OP_WRITE || o->kind == DF_OP_TRUNC))
			return o->e;
	}
	return INT64_MIN;
}

/* Adds the traced state g as another input of hop (once), its slack against the critical pred_t. */
static int add_other(struct dataflow_result *r, size_t hop, size_t first, long g, int64_t pred_t)
{
	const struct df_state *s = &r->d.states[g];

	for (size_t k = first; k < r->nothers; k++)
		if (r->others[k].obj == s->obj && r->others[k].version == s->version)
			return 0;
	return push_other(r, &(struct df_other){ .hop = hop, .obj = s->obj, .version = s->version,
						  .proc = s->proc, .t = s->t, .slack = pred_t - s->t });
}

/*
 * The other inputs of state s (made by a write of its process, its pred
 * through a read): the states the process read since its previous
 * mutation and before the call began; a process forked since then
 * inherits its parent's reads up to the fork (docs/ALGORITHMS.md §9.2's
 * cand), so those of the parent count too. Traced states only: what was
 * there before the recording (a library, a configuration) is left out.
 */
static int merge_others(struct dataflow_result *r, const struct op_index *x, size_t hop, long s)
{
	const struct df_state *st = &r->d.states[s];
	const struct df_input *in = &r->rec.in;
	int64_t until = in->ops[st->op].s, pred_t = r->d.states[st->pred].t;
	uint32_t proc = in->ops[st->op].proc, skip = st->op;
	size_t first = r->nothers;
	int err = 0;

	for (int depth = 0; depth < 16 && !err; depth++) {
		int64_t since = last_mutation(x, proc, until, skip);
		long f;

		for (size_t k = proc_upto(x, proc, until); k-- > x->pstart[proc] && !err;) {
			const struct df_op *o = &in->ops[x->byproc[k]];
			long g = r->d.got[x->byproc[k]];

			if (o->e <= since)
				break;
			if (o->kind == DF_OP_READ && g >= 0 && g != st->pred && o->e < until &&
			    r->d.states[g].kind != DF_S_PRETRACE)
				err = add_other(r, hop, first, g, pred_t);
		}
		f = x->forked_by[proc];
		if (f < 0 || in->ops[f].s <= since)
			break;
		proc = in->ops[f].proc;
		until = in->ops[f].s;
		skip = UINT32_MAX;
	}
	if (err)
		return err;
	if (r->nothers > first)	/* r->others is NULL until a first one */
		qsort(r->others + first, r->nothers - first, sizeof(*r->others), cmp_slack);
	if (r->nothers - first > OTHERS_PER_MERGE)
		r->nothers = first + OTHERS_PER_MERGE;
	r->hops[hop].other0 = first;
	r->hops[hop].nother = r->nothers - first;
	return 0;
}

/*
 * The call by which s's process obtained pred (the first read that did,
 * at s's pred_read_at), or the transfer that made s; -1 if none.
 */
static long read_call(const struct dataflow_result *r, const struct op_index *x, long pred, long s)
{
	const struct df_state *st = &r->d.states[s];
	const struct df_input *in = &r->rec.in;
	size_t lo = 0, hi = in->nops;

	if (st->op != UINT32_MAX && (in->ops[st->op].kind == DF_OP_TRANSFER || in->ops[st->op].kind == DF_OP_TEE))
		return st->op;
	while (lo < hi) {	/* the first call that ended at pred_read_at */
		size_t mid = lo + (hi - lo) / 2;

		if (in->ops[x->byend[mid]].e < st->pred_read_at)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < in->nops && in->ops[x->byend[lo]].e == st->pred_read_at; lo++)
		if (r->d.got[x->byend[lo]] == pred && in->ops[x->byend[lo]].kind == DF_OP_READ)
			return (long)x->byend[lo];
	return -1;
}

/* The hop of state s (its first), into r->hops[r->nhops]. */
static void hop_start(struct dataflow_result *r, const struct op_index *x, long s, const struct df_step *step)
{
	const struct df_state *st = &r->d.states[s];
	struct df_hop *h = &r->hops[r->nhops];

	*h = (struct df_hop){ .obj = st->obj, .proc = st->proc, .v_first = st->version,
			      .v_last = st->version, .t_first = st->t, .t_last = st->t, .kind = st->kind,
			      .read_at = step ? st->pred_read_at : -1, .read_op = -1, .made_op = -1 };
	if (!step)
		return;
	h->waited = step->waited;
	h->in_process = step->in_process;
	h->read_op = read_call(r, x, step->from, s);
}

/* The thread and name of the hop's last call. */
static void hop_who(struct dataflow_result *r, const struct trace *t, struct df_hop *h, long s)
{
	const struct df_state *st = &r->d.states[s];

	if (st->op == UINT32_MAX) {	/* PRETRACE: nobody (tgid 0) */
		h->tgid = h->tid = 0;
		h->comm[0] = 0;
		return;
	}
	h->made_op = st->op;
	h->tid = r->rec.op_tid[st->op];
	h->tgid = st->proc < r->rec.in.nprocs ? r->rec.tgids[st->proc] : 0;
	comm_at(t, h->tid, (uint64_t)st->t, h->comm);
}

/* Compresses the steps into hops (§9.6), with the merges' other inputs. */
static int make_hops(struct dataflow_result *r, const struct trace *t, const struct df_step *v, size_t n)
{
	struct op_index x;
	long last = r->target;
	int err = 0;

	r->hops = calloc(n + 1, sizeof(*r->hops));
	if (!r->hops)
		return -ENOMEM;
	if (index_build(&r->rec.in, &x))
		return -ENOMEM;
	hop_start(r, &x, n ? v[0].from : r->target, NULL);
	r->nhops = 1;
	for (size_t i = 0; i < n && !err; i++) {
		const struct df_state *to = &r->d.states[v[i].to];
		struct df_hop *h = &r->hops[r->nhops - 1];

		if (to->proc == h->proc && to->obj == h->obj && to->pred_read_at < 0) {
			h->v_last = to->version;
			h->t_last = to->t;
			h->in_process += v[i].in_process;
			h->waited += v[i].waited;
		} else {
			hop_who(r, t, h, v[i].from);
			hop_start(r, &x, v[i].to, &v[i]);
			r->nhops++;
			if (to->pred_read_at >= 0 && to->op != UINT32_MAX &&
			    r->rec.in.ops[to->op].kind != DF_OP_TRANSFER && r->rec.in.ops[to->op].kind != DF_OP_TEE)
				err = merge_others(r, &x, r->nhops - 1, v[i].to);
		}
	}
	hop_who(r, t, &r->hops[r->nhops - 1], last);
	index_free(&x);
	return err;
}

static int cmp_share(const void *x, const void *y)
{
	const struct df_share *a = x, *b = y;

	if (a->in_process != b->in_process)
		return a->in_process < b->in_process ? 1 : -1;
	return (a->tgid > b->tgid) - (a->tgid < b->tgid);
}

/*
 * Per process, the in-process time of its hops; the waits summed. A
 * process is named by its leader thread (tid = tgid) at its last hop: the
 * threads of one process share its data.
 */
static int make_shares(struct dataflow_result *r, const struct trace *t)
{
	r->shares = calloc(r->nhops + 1, sizeof(*r->shares));
	if (!r->shares)
		return -ENOMEM;
	for (size_t i = 0; i < r->nhops; i++) {
		const struct df_hop *h = &r->hops[i];
		size_t k;

		r->waited += h->waited;
		if (h->proc == UINT32_MAX)
			continue;
		for (k = 0; k < r->nshares && r->shares[k].proc != h->proc; k++)
			;
		if (k == r->nshares) {
			r->shares[k] = (struct df_share){ .proc = h->proc, .tgid = h->tgid };
			r->nshares++;
		}
		comm_at(t, h->tgid, (uint64_t)h->t_last, r->shares[k].comm);
		if (!r->shares[k].comm[0])
			memcpy(r->shares[k].comm, h->comm, sizeof(h->comm));
		r->shares[k].in_process += h->in_process;
	}
	qsort(r->shares, r->nshares, sizeof(*r->shares), cmp_share);
	return 0;
}

static int path_of(struct dataflow_result *r, const struct trace *t)
{
	struct df_step *v;
	size_t n;
	int err;

	if (r->target < 0)
		return 0;
	err = dataflow_path(&r->d, r->target, &v, &n);
	if (err)
		return err;
	r->elapsed = r->d.states[r->target].t - r->d.states[n ? v[0].from : r->target].t;
	err = make_hops(r, t, v, n);
	free(v);
	return err ? err : make_shares(r, t);
}

/* The targets' renames (system calls): the graph lacks them, and the report says so. */
static size_t count_renames(const struct trace *t, const struct timeline *tl)
{
	const char *arch = trace__arch(t);
	const int nr[3] = { syscall_number(arch, "rename"), syscall_number(arch, "renameat"),
			    syscall_number(arch, "renameat2") };
	size_t n = 0;

	for (size_t i = 0; tl && i < tl->nsc; i++)
		n += (int)tl->sc[i].nr == nr[0] || (int)tl->sc[i].nr == nr[1] || (int)tl->sc[i].nr == nr[2];
	return n;
}

int dataflow__analyse(const struct trace *t, const struct timeline *tl, const struct dataflow_opts *o,
		      struct dataflow_result **out)
{
	struct dataflow_result *r;
	char why[256];
	int err;

	*out = NULL;
	if (dataflow_unavailable(t, why, sizeof(why))) {
		if (!o->asked)
			return 0;
		log_err("--data-path: this recording has no data-flow records: %s", why);
		return -ENODATA;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->target = -1;
	err = df_recording_build(t, &r->rec);
	if (!err)
		err = dataflow_compute(&r->rec.in, &r->d);
	if (!err) {
		r->nops = r->rec.in.nops;
		r->renames = count_renames(t, tl);
		r->lost = t->lost_events > 0;
		r->target = r->d.target;
		if (o->target) {
			r->target = named_target(r, o->target);
			r->named = true;
			err = r->target < 0 ? (int)r->target : 0;
		}
	}
	if (!err)
		err = path_of(r, t);
	if (err) {
		dataflow__free(r);
		return err;
	}
	*out = r;
	return 0;
}

void dataflow__free(struct dataflow_result *r)
{
	if (!r)
		return;
	df_recording_release(&r->rec);
	dataflow_release(&r->d);
	free(r->hops);
	free(r->others);
	free(r->shares);
	free(r);
}

const char *dataflow_proc_name(const struct dataflow_result *r, uint32_t proc, char *buf, size_t len)
{
	for (size_t i = r->nhops; i-- > 0;) {
		if (r->hops[i].proc == proc) {
			snprintf(buf, len, "%s/%u", r->hops[i].comm, r->hops[i].tgid);
			return buf;
		}
	}
	if (proc < r->rec.in.nprocs)
		snprintf(buf, len, "pid %u", r->rec.tgids[proc]);
	else
		snprintf(buf, len, "nobody traced");
	return buf;
}
