// SPDX-License-Identifier: MIT
/* The data-flow graph call by call: see dataflow_ref.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dataflow_ref.h"

static bool mutation(const struct df_op *op)
{
	return op->kind == DF_OP_WRITE || op->kind == DF_OP_TRUNC || op->kind == DF_OP_RENAME;
}

/* The time of the state call i made. */
static int64_t made_at(const struct df_input *in, uint32_t i)
{
	const struct df_op *op = &in->ops[i];

	if (op->kind == DF_OP_READ)	/* an external read's root */
		return op->e;
	return in->objs[op->obj].kind == DF_STREAM ? op->s : op->e;
}

static int64_t t_of(const struct df_input *in, struct df_ref_who w)
{
	return w.kind == 1 ? made_at(in, w.op) : in->t_start;
}

/* The content mutation of obj completed last at or before t (strictly before if strict), as a who. */
static struct df_ref_who version_at(const struct df_input *in, uint32_t obj, int64_t t, bool strict)
{
	struct df_ref_who w = { .kind = 2, .obj = obj };
	int64_t best = INT64_MIN;

	for (uint32_t i = 0; i < in->nops; i++) {
		const struct df_op *op = &in->ops[i];

		if (!mutation(op) || op->obj != obj || (strict ? op->e >= t : op->e > t) || op->e <= best)
			continue;
		best = op->e;
		w = (struct df_ref_who){ .kind = 1, .op = i, .obj = obj };
	}
	return w;
}

static int64_t at_of(const struct df_op *op)
{
	return op->kind == DF_OP_READ ? op->e : op->s;
}

/*
 * Stream obj byte by byte: the least fill b0 with which no read takes a
 * byte not yet written, then each read's last byte's writer into got.
 */
static int stream(const struct df_input *in, uint32_t obj, struct df_ref_who *got)
{
	uint32_t *ev = malloc((in->nops + 1) * sizeof(*ev)), *owner = NULL;
	size_t n = 0;
	int64_t total = 0;

	for (uint32_t i = 0; ev && i < in->nops; i++) {
		if (in->ops[i].kind == DF_OP_FORK || in->ops[i].obj != obj)
			continue;
		ev[n++] = i;
		total += in->ops[i].bytes;
	}
	/* in time order (the times are distinct): insertion sort */
	for (size_t i = 1; ev && i < n; i++)
		for (size_t j = i; j > 0 && at_of(&in->ops[ev[j]]) < at_of(&in->ops[ev[j - 1]]); j--) {
			uint32_t x = ev[j];

			ev[j] = ev[j - 1];
			ev[j - 1] = x;
		}
	owner = ev ? malloc((2 * total + 1) * sizeof(*owner)) : NULL;
	for (int64_t b0 = 0; owner && b0 <= total; b0++) {
		int64_t nbytes = b0, head = 0;
		bool ok = true;

		for (int64_t k = 0; k < b0; k++)
			owner[k] = UINT32_MAX;
		for (size_t e = 0; e < n && ok; e++) {
			const struct df_op *op = &in->ops[ev[e]];

			if (op->kind == DF_OP_READ) {
				ok = head + op->bytes <= nbytes;
				head += op->bytes;
				if (ok)
					got[ev[e]] = owner[head - 1] == UINT32_MAX ?
						(struct df_ref_who){ .kind = 2, .obj = obj } :
						(struct df_ref_who){ .kind = 1, .op = owner[head - 1], .obj = obj };
			} else {
				for (int64_t k = 0; k < op->bytes; k++)
					owner[nbytes++] = ev[e];
			}
		}
		if (ok)
			break;
	}
	int err = owner ? 0 : -ENOMEM;

	free(ev);
	free(owner);
	return err;
}

/* The state created last that proc read before t, with those its parents read before forking it. */
static struct df_ref_who cand(const struct df_input *in, const struct df_ref_who *got, uint32_t proc, int64_t t)
{
	struct df_ref_who best = { .kind = 0 };
	int64_t best_t = INT64_MIN, best_r = INT64_MAX;

	for (int depth = 0; depth < 64; depth++) {
		uint32_t parent = UINT32_MAX;
		int64_t fork_at = 0;

		for (uint32_t i = 0; i < in->nops; i++) {
			const struct df_op *op = &in->ops[i];
			int64_t gt;

			if (op->kind == DF_OP_FORK && op->child == proc && op->s < t) {
				parent = op->proc;
				fork_at = op->s;
			}
			if (op->kind != DF_OP_READ || op->proc != proc || op->e >= t)
				continue;
			gt = t_of(in, got[i]);
			if (gt > best_t || (gt == best_t && op->e < best_r)) {
				best = got[i];
				best_t = gt;
				best_r = op->e;
			}
		}
		if (parent == UINT32_MAX)
			break;
		proc = parent;
		t = fork_at;
	}
	return best;
}

int dataflow_ref(const struct df_input *in, struct df_ref_who *pred, struct df_ref_who *got)
{
	memset(got, 0, in->nops * sizeof(*got));
	memset(pred, 0, in->nops * sizeof(*pred));
	for (uint32_t i = 0; i < in->nops; i++) {
		const struct df_op *op = &in->ops[i];

		if (op->kind != DF_OP_READ)
			continue;
		if (in->objs[op->obj].kind == DF_CONTENT)
			got[i] = version_at(in, op->obj, op->s, false);
		else if (in->objs[op->obj].kind == DF_EXTERNAL)
			got[i] = (struct df_ref_who){ .kind = 1, .op = i, .obj = op->obj };
	}
	for (uint32_t k = 0; k < in->nobjs; k++)
		if (in->objs[k].kind == DF_STREAM && stream(in, k, got))
			return -ENOMEM;
	for (uint32_t i = 0; i < in->nops; i++) {
		const struct df_op *op = &in->ops[i];
		bool content = in->objs[op->obj].kind == DF_CONTENT;
		struct df_ref_who c, prev = { .kind = 0 };

		if (!mutation(op))
			continue;
		c = cand(in, got, op->proc, op->s);
		if (content && op->kind != DF_OP_TRUNC)
			prev = version_at(in, op->obj, op->e, true);
		if (prev.kind == 2)
			prev.kind = 0;	/* PRETRACE is no previous version */
		pred[i] = c.kind && (!prev.kind || t_of(in, c) > t_of(in, prev)) ? c : prev;
	}
	return 0;
}
