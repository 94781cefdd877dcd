// SPDX-License-Identifier: MIT
/*
 * A recording's data records as the data-flow graph's input; see
 * src/dataflow/input.h. Objects and processes are numbered by sorting
 * their keys once and looking each call's up (O(n log n), no hash table).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file/dataobj.h"
#include "file/syscall_names.h"
#include "input.h"

#define QT_AF_UNIX 1
#define QT_SOCK_STREAM 1

/* What a data call does, by its name (docs/ALGORITHMS.md §9.2's table). */
static int op_kind_of(const char *name)
{
	static const struct {
		const char *name;
		uint8_t kind;
	} calls[] = {
		{ "read", DF_OP_READ }, { "readv", DF_OP_READ }, { "pread64", DF_OP_READ },
		{ "preadv", DF_OP_READ }, { "preadv2", DF_OP_READ }, { "recvfrom", DF_OP_READ },
		{ "recvmsg", DF_OP_READ }, { "recv", DF_OP_READ },
		{ "write", DF_OP_WRITE }, { "writev", DF_OP_WRITE }, { "pwrite64", DF_OP_WRITE },
		{ "pwritev", DF_OP_WRITE }, { "pwritev2", DF_OP_WRITE }, { "sendto", DF_OP_WRITE },
		{ "sendmsg", DF_OP_WRITE }, { "send", DF_OP_WRITE },
		{ "splice", DF_OP_TRANSFER }, { "copy_file_range", DF_OP_TRANSFER },
		{ "sendfile", DF_OP_TRANSFER }, { "sendfile64", DF_OP_TRANSFER },
		{ "tee", DF_OP_TEE },
		{ "open", DF_OP_TRUNC }, { "openat", DF_OP_TRUNC }, { "creat", DF_OP_TRUNC },
		{ "ftruncate", DF_OP_TRUNC }, { "ftruncate64", DF_OP_TRUNC },
	};

	for (size_t i = 0; name && i < sizeof(calls) / sizeof(calls[0]); i++)
		if (!strcmp(name, calls[i].name))
			return calls[i].kind;
	return -1;
}

/*
 * The key of the object a call reads (writing false) or writes: a
 * connected AF_UNIX socket is keyed by its direction, writer's end first.
 */
static struct df_key key_of(const struct qt_data_obj *o, bool writing)
{
	struct df_key k = { .ino = o->ino, .dev = o->dev, .mode = o->mode & QT_DATA_MODE_FMT };

	if (k.mode == S_IFSOCK) {
		k.mode = o->mode;
		if (QT_DATA_MODE_FAMILY(o->mode) == QT_AF_UNIX && o->peer) {
			k.ino = writing ? o->ino : o->peer;
			k.peer = writing ? o->peer : o->ino;
		}
	}
	return k;
}

/* §9.2: what the object is, from its key. */
static struct df_obj obj_of(const struct df_key *k)
{
	unsigned int fmt = k->mode & QT_DATA_MODE_FMT;

	switch (fmt) {
	case S_IFREG:
		return (struct df_obj){ .kind = DF_CONTENT, .regular = true };
	case S_IFBLK:
		return (struct df_obj){ .kind = DF_CONTENT };
	case S_IFIFO:
		return (struct df_obj){ .kind = DF_STREAM };
	case S_IFSOCK:
		if (!k->peer)	/* a socket without a known peer */
			return (struct df_obj){ .kind = DF_EXTERNAL };
		return (struct df_obj){ .kind = QT_DATA_MODE_SOCK_TYPE(k->mode) == QT_SOCK_STREAM ?
						DF_STREAM : DF_MESSAGE };
	default:
		return (struct df_obj){ .kind = DF_EXTERNAL };
	}
}

static int cmp_key(const void *x, const void *y)
{
	const struct df_key *a = x, *b = y;

	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->peer != b->peer)
		return a->peer < b->peer ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return (a->mode > b->mode) - (a->mode < b->mode);
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return (a > b) - (a < b);
}

/* Sorts v (n items) and drops the repeats; the count left. */
static size_t sort_unique(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	size_t k = 0;

	if (!n)
		return 0;
	qsort(v, n, size, cmp);
	for (size_t i = 1; i < n; i++)
		if (cmp((char *)v + k * size, (char *)v + i * size))
			memmove((char *)v + ++k * size, (char *)v + i * size, size);
	return k + 1;
}

/* An op still keyed (objects by df_key, processes by tgid) before the numbering. */
struct pending {
	struct df_key obj, out;
	uint32_t tgid, child_tgid;
};

/* The ops of the data records into r, their keys into p; how many. */
static size_t data_ops(const struct trace *t, struct df_recording *r, struct pending *p)
{
	const char *arch = trace__arch(t);
	size_t n = 0;

	for (size_t i = 0; i < t->ndata; i++) {
		const struct qt_data *d = &t->data[i];
		int kind = op_kind_of(syscall_name(arch, d->nr));
		struct df_op *op = &r->ops[n];
		bool two = kind == DF_OP_TRANSFER || kind == DF_OP_TEE;

		if (kind < 0 || !d->obj[0].ino || (two && !d->obj[1].ino) || d->end_ts < d->h.ts) {
			r->unresolved++;
			continue;
		}
		/* an open that only names its file; a truncation makes a version of a file only (§9.2) */
		if (kind == DF_OP_TRUNC && (!(d->h.flags & QT_DATA_TRUNC) ||
		    obj_of(&(struct df_key){ .mode = d->obj[0].mode }).kind != DF_CONTENT))
			continue;
		*op = (struct df_op){ .s = (int64_t)d->h.ts, .e = (int64_t)d->end_ts, .kind = kind,
				      .bytes = d->bytes };
		p[n] = (struct pending){ .obj = key_of(&d->obj[0], kind != DF_OP_READ && !two),
					 .tgid = d->tgid };
		if (two)
			p[n].out = key_of(&d->obj[1], true);
		r->op_tid[n] = d->tid;
		r->op_rec[n++] = (long)i;
	}
	return n;
}

/* New processes (a fork whose child is the leader of another tgid) as DF_OP_FORK. */
static size_t fork_ops(const struct trace *t, struct df_recording *r, struct pending *p, size_t n)
{
	for (size_t i = 0; i < t->ntask; i++) {
		const struct qt_task *k = &t->task[i];

		if (k->h.type != QT_REC_FORK || k->tgid == k->parent_tgid || !k->parent_tgid)
			continue;
		r->ops[n] = (struct df_op){ .s = (int64_t)k->h.ts, .e = (int64_t)k->h.ts, .kind = DF_OP_FORK };
		p[n] = (struct pending){ .tgid = k->parent_tgid, .child_tgid = k->tgid };
		r->op_tid[n] = k->tid;
		r->op_rec[n++] = -1;
	}
	return n;
}

static uint32_t find_key(const struct df_recording *r, const struct df_key *k)
{
	const struct df_key *f = bsearch(k, r->keys, r->in.nobjs, sizeof(*k), cmp_key);

	return (uint32_t)(f - r->keys);
}

static uint32_t find_tgid(const struct df_recording *r, uint32_t tgid)
{
	const uint32_t *f = bsearch(&tgid, r->tgids, r->in.nprocs, sizeof(tgid), cmp_u32);

	return (uint32_t)(f - r->tgids);
}

/* Numbers the objects and processes of the n pending ops. */
static int number(struct df_recording *r, const struct pending *p, size_t n)
{
	size_t nk = 0, nt = 0;

	r->keys = malloc((2 * n + 1) * sizeof(*r->keys));
	r->tgids = malloc((2 * n + 1) * sizeof(*r->tgids));
	if (!r->keys || !r->tgids)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint8_t kind = r->ops[i].kind;

		r->tgids[nt++] = p[i].tgid;
		if (kind == DF_OP_FORK) {
			r->tgids[nt++] = p[i].child_tgid;
			continue;
		}
		r->keys[nk++] = p[i].obj;
		if (kind == DF_OP_TRANSFER || kind == DF_OP_TEE)
			r->keys[nk++] = p[i].out;
	}
	r->in.nobjs = sort_unique(r->keys, nk, sizeof(*r->keys), cmp_key);
	r->in.nprocs = sort_unique(r->tgids, nt, sizeof(*r->tgids), cmp_u32);
	r->objs = malloc((r->in.nobjs + 1) * sizeof(*r->objs));
	if (!r->objs)
		return -ENOMEM;
	for (size_t k = 0; k < r->in.nobjs; k++)
		r->objs[k] = obj_of(&r->keys[k]);
	for (size_t i = 0; i < n; i++) {
		struct df_op *op = &r->ops[i];

		op->proc = find_tgid(r, p[i].tgid);
		if (op->kind == DF_OP_FORK) {
			op->child = find_tgid(r, p[i].child_tgid);
			continue;
		}
		op->obj = find_key(r, &p[i].obj);
		if (op->kind == DF_OP_TRANSFER || op->kind == DF_OP_TEE)
			op->out = find_key(r, &p[i].out);
	}
	return 0;
}

/* Each object's name from the opens that named it (the last one: a file renamed since is named anew). */
static int name_objects(const struct trace *t, struct df_recording *r)
{
	r->names = calloc(r->in.nobjs + 1, sizeof(*r->names));
	if (!r->names)
		return -ENOMEM;
	for (size_t i = 0; i < t->ndata; i++) {
		const struct qt_data *d = &t->data[i];
		struct df_key k = key_of(&d->obj[0], true);
		const struct df_key *f;

		if (!(d->h.flags & QT_DATA_NAMED) || !d->obj[0].ino)
			continue;
		f = bsearch(&k, r->keys, r->in.nobjs, sizeof(k), cmp_key);
		if (f)
			snprintf(r->names[f - r->keys], sizeof(r->names[0]), "%s", d->name);
	}
	return 0;
}

int df_recording_build(const struct trace *t, struct df_recording *r)
{
	size_t cap = t->ndata + t->ntask + 1, n;
	struct pending *p;
	int err;

	memset(r, 0, sizeof(*r));
	r->ops = malloc(cap * sizeof(*r->ops));
	r->op_tid = malloc(cap * sizeof(*r->op_tid));
	r->op_rec = malloc(cap * sizeof(*r->op_rec));
	p = malloc(cap * sizeof(*p));
	if (!r->ops || !r->op_tid || !r->op_rec || !p) {
		free(p);
		df_recording_release(r);
		return -ENOMEM;
	}
	n = data_ops(t, r, p);
	n = fork_ops(t, r, p, n);
	err = number(r, p, n);
	free(p);
	if (err) {
		df_recording_release(r);
		return err;
	}
	r->in = (struct df_input){ .objs = r->objs, .nobjs = r->in.nobjs, .nprocs = r->in.nprocs,
				   .ops = r->ops, .nops = n, .t_start = (int64_t)t->start_ns };
	return name_objects(t, r);
}

void df_recording_release(struct df_recording *r)
{
	free(r->objs);
	free(r->names);
	free(r->keys);
	free(r->tgids);
	free(r->ops);
	free(r->op_tid);
	free(r->op_rec);
	memset(r, 0, sizeof(*r));
}

const char *df_recording_obj_name(const struct df_recording *r, uint32_t obj, char *buf, size_t len)
{
	const struct df_key *k = &r->keys[obj];
	struct qt_data_obj o = { .ino = k->ino, .dev = k->dev, .mode = k->mode };
	char a[48];

	if (!k->peer)
		return dataobj_name(&o, buf, len);
	dataobj_name(&o, a, sizeof(a));
	snprintf(buf, len, "%s->[%" PRIu64 "]", a, k->peer);
	return buf;
}

const char *df_recording_obj_label(const struct df_recording *r, uint32_t obj, char *buf, size_t len)
{
	char id[80];

	df_recording_obj_name(r, obj, id, sizeof(id));
	if (r->names && r->names[obj][0])
		snprintf(buf, len, "%s (%s)", r->names[obj], id);
	else
		snprintf(buf, len, "%s", id);
	return buf;
}
