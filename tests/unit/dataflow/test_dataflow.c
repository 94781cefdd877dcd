/*
 * The data-flow critical path's graph (src/dataflow/dataflow.h) on the
 * test vectors of docs/ALGORITHMS.md §9.7 (TV-8), exactly: the paper's
 * MERGE example, a merge across files and a fork, a pipe with bytes queued
 * before the recording, and file versions with a concurrent write, O_TRUNC
 * and a rename. Times in the vectors are seconds: ms here, exact.
 */
#include <errno.h>

#include "testutil.h"
#include "dataflow/dataflow.h"
#include "ref/dataflow_ref.h"

#define MS(v) ((int64_t)((v) * 1000000.0 + 0.5))

struct vec {
	struct df_obj objs[16];
	struct df_op ops[32];
	size_t nobjs, nops, nprocs;
};

static uint32_t obj(struct vec *v, uint8_t kind, bool regular)
{
	v->objs[v->nobjs] = (struct df_obj){ .kind = kind, .regular = regular };
	return (uint32_t)v->nobjs++;
}

static void op(struct vec *v, uint32_t proc, uint8_t kind, uint32_t o, double s, double e, int64_t bytes)
{
	v->ops[v->nops++] = (struct df_op){ .s = MS(s), .e = MS(e), .proc = proc, .kind = kind, .obj = o, .bytes = bytes };
	if (proc + 1 > v->nprocs)
		v->nprocs = proc + 1;
}

static void compute(struct vec *v, struct dataflow *d)
{
	struct df_input in = { .objs = v->objs, .nobjs = v->nobjs, .nprocs = v->nprocs, .ops = v->ops,
			       .nops = v->nops, .t_start = 0 };

	cr_assert_eq(dataflow_compute(&in, d), 0);
}

/* "o.vN@t" for each state of the path into target, root first, then the steps' waited/in-process. */
static void expect_path(const struct dataflow *d, long target, const char *const names[], const char *want,
			const char *want_steps)
{
	struct df_step *st;
	size_t n, o = 0, o2 = 0;
	char buf[512], buf2[512];

	cr_assert_eq(dataflow_path(d, target, &st, &n), 0);
	buf[0] = buf2[0] = 0;
	for (size_t i = 0; i <= n; i++) {
		const struct df_state *s = &d->states[i < n ? st[i].from : target];

		o += snprintf(buf + o, sizeof(buf) - o, "%s%s.v%u@%g", i ? " " : "", names[s->obj], s->version,
			      s->t / 1e6);
		if (i < n)
			o2 += snprintf(buf2 + o2, sizeof(buf2) - o2, "%s%g/%g", i ? " " : "", st[i].waited / 1e6,
				       st[i].in_process / 1e6);
	}
	cr_expect_str_eq(buf, want);
	cr_expect_str_eq(buf2, want_steps);
	free(st);
}

/*
 * TV-8.1, the paper's Fig. 6: A (1:00) feeds B, C, D (6 s after A) and E
 * (2 s after A); F (1:08) merges D and E. Each state is a file written by a
 * process that read the one before. The critical input of F is D, the one
 * created last: A B C D F, 8 s in steps of 2 s (a longest path by elapsed
 * time could not choose: A E F lasts 8 s too).
 */
Test(dataflow, tv81_paper_merge)
{
	static struct vec v;
	static const char *const names[] = { "A", "B", "C", "D", "E", "F" };
	uint32_t f[6];
	struct dataflow d;

	for (int i = 0; i < 6; i++)
		f[i] = obj(&v, DF_CONTENT, true);
	op(&v, 0, DF_OP_WRITE, f[0], 59.5, 60, 1);
	op(&v, 1, DF_OP_READ, f[0], 60.1, 60.2, 1);
	op(&v, 1, DF_OP_WRITE, f[1], 61.5, 62, 1);
	op(&v, 2, DF_OP_READ, f[1], 62.1, 62.2, 1);
	op(&v, 2, DF_OP_WRITE, f[2], 63.5, 64, 1);
	op(&v, 3, DF_OP_READ, f[2], 64.1, 64.2, 1);
	op(&v, 3, DF_OP_WRITE, f[3], 65.5, 66, 1);
	op(&v, 4, DF_OP_READ, f[0], 60.1, 60.2, 1);
	op(&v, 4, DF_OP_WRITE, f[4], 61.5, 62, 1);
	op(&v, 5, DF_OP_READ, f[4], 62.5, 63, 1);
	op(&v, 5, DF_OP_READ, f[3], 66.5, 67, 1);
	op(&v, 5, DF_OP_WRITE, f[5], 67.5, 68, 1);
	compute(&v, &d);
	cr_assert_geq(d.target, 0);
	cr_expect_eq(d.states[d.target].obj, f[5], "the default target is F");
	cr_expect_eq(d.states[d.states[d.target].pred].obj, f[3], "pred(F) = D (66 > 62)");
	expect_path(&d, d.target, names, "A.v1@60 B.v1@62 C.v1@64 D.v1@66 F.v1@68",
		    "0.2/1.8 0.2/1.8 0.2/1.8 1/1");
	dataflow_release(&d);
}

/*
 * TV-8.2: P3 reads a (made at 12) then b (made at 6, read later): a stays
 * its candidate; its child P4 inherits it and writes out. The tty write is
 * later but no regular file; a and b were read: the target is out.v1, and
 * the path a.v1 -> out.v1, 13 s: waited 2, in process 11.
 */
Test(dataflow, tv82_merge_across_files_and_fork)
{
	static struct vec v;
	static const char *const names[] = { "a", "b", "out", "tty" };
	uint32_t a, b, out, tty;
	struct dataflow d;

	a = obj(&v, DF_CONTENT, true);
	b = obj(&v, DF_CONTENT, true);
	out = obj(&v, DF_CONTENT, true);
	tty = obj(&v, DF_EXTERNAL, false);
	op(&v, 1, DF_OP_WRITE, a, 10, 12, 1);
	op(&v, 2, DF_OP_WRITE, b, 5, 6, 1);
	op(&v, 3, DF_OP_READ, a, 13, 14, 1);
	op(&v, 3, DF_OP_READ, b, 15, 16, 1);
	v.ops[v.nops++] = (struct df_op){ .s = MS(17), .e = MS(17), .proc = 3, .kind = DF_OP_FORK, .child = 4 };
	v.nprocs = 5;
	op(&v, 4, DF_OP_WRITE, out, 20, 25, 1);
	op(&v, 2, DF_OP_WRITE, tty, 30, 31, 1);
	compute(&v, &d);
	cr_assert_geq(d.target, 0);
	cr_expect_eq(d.states[d.target].obj, out);
	expect_path(&d, d.target, names, "a.v1@12 out.v1@25", "2/11");
	dataflow_release(&d);
}

/*
 * TV-8.3: a pipe with 30 bytes in it before the recording (B0 = 30),
 * matched FIFO: read 1 gets them (PRETRACE), read 2 ends in p.v2, read 3
 * in p.v3 (made at its write's start, 5, before read 3 ended at 7). Path
 * in.v0 -> p.v3 -> out.v1, 9 s: waits 0.8 and 2, in process 4.2 and 2.
 */
Test(dataflow, tv83_pipe_with_bytes_queued)
{
	static struct vec v;
	static const char *const names[] = { "p", "in", "out" };
	uint32_t p, in, out;
	struct dataflow d;

	p = obj(&v, DF_STREAM, false);
	in = obj(&v, DF_CONTENT, true);
	out = obj(&v, DF_CONTENT, true);
	op(&v, 0, DF_OP_READ, in, 0.2, 0.8, 500);
	op(&v, 0, DF_OP_WRITE, p, 1, 2, 100);
	op(&v, 0, DF_OP_WRITE, p, 3, 4, 50);
	op(&v, 0, DF_OP_WRITE, p, 5, 9, 50);
	op(&v, 1, DF_OP_READ, p, 0, 0.5, 30);
	op(&v, 1, DF_OP_READ, p, 3.5, 4.5, 120);
	op(&v, 1, DF_OP_READ, p, 6, 7, 80);
	op(&v, 1, DF_OP_WRITE, out, 8, 9, 80);
	compute(&v, &d);
	cr_expect_eq(d.b0_total, 30);
	cr_assert_geq(d.target, 0);
	cr_expect_eq(d.states[d.target].obj, out);
	expect_path(&d, d.target, names, "in.v0@0 p.v3@5 out.v1@9", "0.8/4.2 2/2");
	dataflow_release(&d);
}

/*
 * TV-8.4: one file. Q's read began before v3 was complete: it sees v2.
 * O_TRUNC (v4) takes no edge from v3, only what Q read; v5 follows v4,
 * the rename v6 follows v5. Path v1 v2 (read by Q at 6) v4 v5 v6, 8.5 s;
 * v3 is a dead end.
 */
Test(dataflow, tv84_versions_trunc_rename)
{
	static struct vec v;
	static const char *const names[] = { "f" };
	uint32_t f;
	struct dataflow d;

	f = obj(&v, DF_CONTENT, true);
	op(&v, 0, DF_OP_WRITE, f, 1, 2, 1);
	op(&v, 0, DF_OP_WRITE, f, 3, 4, 1);
	op(&v, 1, DF_OP_READ, f, 5, 6, 1);
	op(&v, 0, DF_OP_WRITE, f, 5.2, 5.8, 1);
	op(&v, 1, DF_OP_TRUNC, f, 7, 7.5, 0);
	op(&v, 1, DF_OP_WRITE, f, 8, 9, 1);
	op(&v, 1, DF_OP_RENAME, f, 10, 10.5, 0);
	compute(&v, &d);
	cr_assert_geq(d.target, 0);
	cr_expect_eq(d.states[d.target].version, 6, "the default target is v6");
	expect_path(&d, d.target, names, "f.v1@2 f.v2@4 f.v4@7.5 f.v5@9 f.v6@10.5", "0/2 2/1.5 0/1.5 0/1.5");
	for (size_t i = 0; i < d.nstates; i++)
		if (d.states[i].version == 3)
			cr_expect_eq(d.states[i].pred, (long)(i - 1), "v3 follows v2, and leads nowhere");
	dataflow_release(&d);
}

/* ---- against the reference ---- */

/* What main's state s is, as the reference names states. */
static struct df_ref_who who_of(const struct dataflow *d, long s)
{
	if (s < 0)
		return (struct df_ref_who){ .kind = 0 };
	if (d->states[s].kind == DF_S_PRETRACE)
		return (struct df_ref_who){ .kind = 2, .obj = d->states[s].obj };
	return (struct df_ref_who){ .kind = 1, .op = d->states[s].op, .obj = d->states[s].obj };
}

static bool same(struct df_ref_who a, struct df_ref_who b)
{
	return a.kind == b.kind && (a.kind != 1 || a.op == b.op) && (a.kind != 2 || a.obj == b.obj);
}

/*
 * Random calls of 4 processes (the last one forked by another before its
 * first call) on 2 files, 2 pipes and a terminal, every time distinct:
 * what each read obtained and each new state's critical input are the
 * reference's.
 */
static void gen(unsigned long long *seed, struct vec *v)
{
	static int64_t tick[64];
	size_t n = (size_t)tu_rand_range(seed, 4, 24);
	int64_t first_child = INT64_MAX;

	memset(v, 0, sizeof(*v));
	obj(v, DF_CONTENT, true);
	obj(v, DF_CONTENT, true);
	obj(v, DF_STREAM, false);
	obj(v, DF_STREAM, false);
	obj(v, DF_EXTERNAL, false);
	v->nprocs = 4;
	for (size_t i = 0; i < 2 * n; i++) {	/* distinct multiples of 4 ms: a fork goes 1 ms before */
		bool dup;

		do {
			tick[i] = 4 * tu_rand_range(seed, 1, 200);
			dup = false;
			for (size_t j = 0; j < i; j++)
				dup |= tick[j] == tick[i];
		} while (dup);
	}
	for (size_t i = 0; i < n; i++) {
		struct df_op *op = &v->ops[v->nops++];
		int64_t a = tick[2 * i], b = tick[2 * i + 1];
		unsigned k = tu_rand(seed) % 10;

		*op = (struct df_op){ .s = MS(a < b ? a : b), .e = MS(a < b ? b : a), .proc = tu_rand(seed) % 4,
				      .obj = tu_rand(seed) % 5, .bytes = tu_rand_range(seed, 1, 5) };
		op->kind = k < 5 ? DF_OP_READ : k < 8 || op->obj >= 2 ? DF_OP_WRITE : k < 9 ? DF_OP_TRUNC : DF_OP_RENAME;
		if (op->proc == 3 && op->s < first_child)
			first_child = op->s;
	}
	if (first_child != INT64_MAX)
		v->ops[v->nops++] = (struct df_op){ .s = first_child - MS(1), .e = first_child - MS(1),
						    .proc = tu_rand(seed) % 3, .kind = DF_OP_FORK, .child = 3 };
}

Test(dataflow, random_calls_match_the_reference)
{
	static struct vec v;
	size_t preds = 0, roots = 0, pipes = 0, pretrace = 0, forks = 0;

	for (unsigned long long s = 1; s <= 4000; s++) {
		unsigned long long seed = s * 104729;
		struct df_ref_who pred[32], got[32];
		struct dataflow d;
		struct df_input in;

		gen(&seed, &v);
		in = (struct df_input){ .objs = v.objs, .nobjs = v.nobjs, .nprocs = v.nprocs, .ops = v.ops,
					.nops = v.nops };
		cr_assert_eq(dataflow_compute(&in, &d), 0, "seed %llu", s);
		cr_assert_eq(dataflow_ref(&in, pred, got), 0);
		for (size_t i = 0; i < d.nstates; i++) {
			const struct df_state *st = &d.states[i];

			if (st->kind == DF_S_PRETRACE || st->kind == DF_S_EXTERNAL)
				continue;
			cr_assert(same(who_of(&d, st->pred), pred[st->op]), "seed %llu: the input of call %u's state",
				  s, st->op);
			preds += st->pred >= 0;
			roots += st->pred < 0;
			pipes += st->pred >= 0 && v.objs[d.states[st->pred].obj].kind == DF_STREAM;
		}
		for (uint32_t i = 0; i < v.nops; i++) {
			if (v.ops[i].kind == DF_OP_FORK)
				forks++;
			if (v.ops[i].kind != DF_OP_READ)
				continue;
			cr_assert(same(who_of(&d, d.got[i]), got[i]), "seed %llu: what read %u obtained", s, i);
			pretrace += got[i].kind == 2;
		}
		dataflow_release(&d);
	}
	fprintf(stderr, "random calls: %zu inputs (%zu through pipes), %zu roots, %zu PRETRACE reads, %zu forks\n",
		preds, pipes, roots, pretrace, forks);
	cr_expect_gt(pipes, 1000);
	cr_expect_gt(pretrace, 1000);
	cr_expect_gt(forks, 1000);
	cr_expect_gt(roots, 1000);
}

Test(dataflow, bad_input)
{
	static struct vec v;
	struct dataflow d;
	struct df_input in;

	obj(&v, DF_CONTENT, true);
	op(&v, 0, DF_OP_WRITE, 0, 2, 1, 1);
	in = (struct df_input){ .objs = v.objs, .nobjs = v.nobjs, .nprocs = v.nprocs, .ops = v.ops, .nops = v.nops };
	cr_expect_eq(dataflow_compute(&in, &d), -EINVAL, "an end before its start");
	v.ops[0].e = MS(3);
	v.ops[0].obj = 7;
	cr_expect_eq(dataflow_compute(&in, &d), -EINVAL, "an object out of range");
	in.nops = 0;
	cr_assert_eq(dataflow_compute(&in, &d), 0, "nothing at all");
	cr_expect(d.nstates == 0 && d.target == -1);
	dataflow_release(&d);
}
