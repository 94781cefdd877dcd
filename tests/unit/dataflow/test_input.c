// SPDX-License-Identifier: MIT
/*
 * A recording's data records as the data-flow graph's input
 * (src/dataflow/input.c): objects numbered by their identity (a socket
 * pair one object per direction, a socket without a peer external), the
 * calls' kinds by name, processes by tgid with the forks between them;
 * and, through dataflow_compute(), the answers of docs/ALGORITHMS.md
 * TV-8.2 and TV-8.3 from records as the recorder writes them.
 */
#include "dataflow/input.h"
#include "synth_data.h"
#include "testutil.h"

static struct trace *tv82(void)
{
	struct synth *s = synth_new(0, SD_MS(40), 1);

	sd_tv82(s);
	return synth_finish(s);
}

/* The number of the object named name ("8:1:11", ...); the test fails if none. */
static uint32_t obj_named(const struct df_recording *r, const char *name)
{
	char b[80];

	for (uint32_t i = 0; i < r->in.nobjs; i++)
		if (!strcmp(df_recording_obj_name(r, i, b, sizeof(b)), name))
			return i;
	cr_assert_fail("no object %s", name);
	return 0;
}

Test(input, tv82_numbering_and_answer)
{
	struct trace *t = tv82();
	struct df_recording r;
	struct dataflow d;
	const struct df_state *tg, *p;

	cr_assert_eq(df_recording_build(t, &r), 0);
	cr_expect_eq(r.in.nobjs, 4);
	cr_expect_eq(r.in.nprocs, 4);
	cr_expect_eq(r.in.nops, 7);
	cr_expect_eq(r.unresolved, 0);
	cr_expect_eq(r.objs[obj_named(&r, "8:1:11")].kind, DF_CONTENT);
	cr_expect(r.objs[obj_named(&r, "8:1:13")].regular);
	cr_expect_eq(r.objs[obj_named(&r, "0:25:4")].kind, DF_EXTERNAL);
	cr_expect(!r.objs[obj_named(&r, "0:25:4")].regular);
	for (size_t i = 0; i < r.in.nops; i++) {
		const struct df_op *op = &r.in.ops[i];

		if (op->kind == DF_OP_FORK) {
			cr_expect_eq(r.tgids[op->proc], 103);
			cr_expect_eq(r.tgids[op->child], 104);
			cr_expect_eq(r.op_rec[i], -1);
			cr_expect_eq(op->s, (int64_t)SD_MS(17));
		} else {
			cr_expect_eq(r.tgids[op->proc], t->data[r.op_rec[i]].tgid);
			cr_expect_eq(r.op_tid[i], t->data[r.op_rec[i]].tid);
		}
	}
	cr_assert_eq(dataflow_compute(&r.in, &d), 0);
	/* §9.7 TV-8.2: out.v1 (25, P4) <- a.v1 (12, P1), read by P3 at 14 and inherited at the fork */
	cr_assert_geq(d.target, 0);
	tg = &d.states[d.target];
	cr_expect_eq(tg->obj, obj_named(&r, "8:1:13"));
	cr_expect_eq(tg->t, (int64_t)SD_MS(25));
	cr_expect_eq(r.tgids[tg->proc], 104);
	cr_assert_geq(tg->pred, 0);
	p = &d.states[tg->pred];
	cr_expect_eq(p->obj, obj_named(&r, "8:1:11"));
	cr_expect_eq(p->t, (int64_t)SD_MS(12));
	cr_expect_eq(tg->pred_read_at, (int64_t)SD_MS(14));
	cr_expect_eq(p->pred, -1);
	dataflow_release(&d);
	df_recording_release(&r);
	trace__free(t);
}

/* TV-8.3: a pipe with 30 bytes queued before the recording, matched FIFO. */
Test(input, tv83_pipe_from_records)
{
	struct synth *s = synth_new(0, SD_MS(10), 1);
	struct df_recording r;
	struct dataflow d;
	struct df_step *st;
	size_t n;
	struct trace *t;

	/* §9.7's table: W (1) and R (2); pipe 7, files 21 (in) and 22 (out) */
	static const struct {
		double s, e;
		uint32_t pid;
		const char *call;
		bool pipe;
		uint64_t ino;
		int64_t bytes;
	} calls[] = {
		{ 0.2, 0.8, 1, "read", false, 21, 500 }, { 1, 2, 1, "write", true, 7, 100 },
		{ 3, 4, 1, "write", true, 7, 50 }, { 5, 9, 1, "write", true, 7, 50 },
		{ 0, 0.5, 2, "read", true, 7, 30 }, { 3.5, 4.5, 2, "readv", true, 7, 120 },
		{ 6, 7, 2, "read", true, 7, 80 }, { 8, 9, 2, "write", false, 22, 80 },
	};

	synth_data_on(s);
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		sd_call(s, calls[i].s, calls[i].e, calls[i].pid, calls[i].call,
			calls[i].pipe ? sd_pipe(calls[i].ino) : sd_file(calls[i].ino), SD_NONE, calls[i].bytes);
	t = synth_finish(s);
	cr_assert_eq(df_recording_build(t, &r), 0);
	cr_expect_eq(r.objs[obj_named(&r, "pipe:[7]")].kind, DF_STREAM);
	cr_assert_eq(dataflow_compute(&r.in, &d), 0);
	cr_expect_eq(d.b0_total, 30);
	cr_assert_eq(dataflow_path(&d, d.target, &st, &n), 0);
	cr_assert_eq(n, 2);
	/* in.v0 (0) -> W reads it at 0.8 -> p.v3 (5) -> R reads it at 7 -> out.v1 (9) */
	cr_expect_eq(d.states[st[0].from].obj, obj_named(&r, "8:1:21"));
	cr_expect_eq(d.states[st[0].from].version, 0);
	cr_expect_eq(d.states[st[0].to].obj, obj_named(&r, "pipe:[7]"));
	cr_expect_eq(d.states[st[0].to].version, 3);
	cr_expect_eq(st[0].waited, (int64_t)SD_MS(0.8));
	cr_expect_eq(st[0].in_process, (int64_t)SD_MS(4.2));
	cr_expect_eq(d.states[st[1].to].obj, obj_named(&r, "8:1:22"));
	cr_expect_eq(st[1].waited, (int64_t)SD_MS(2));
	cr_expect_eq(st[1].in_process, (int64_t)SD_MS(2));
	free(st);
	dataflow_release(&d);
	df_recording_release(&r);
	trace__free(t);
}

/*
 * A socket pair is one object per direction: A's writes are what B
 * reads, B's writes another object; a datagram pair is a message object;
 * a TCP socket (no peer known) is external.
 */
Test(input, sockets_by_direction)
{
	struct synth *s = synth_new(0, SD_MS(20), 1);
	struct df_recording r;
	struct trace *t;
	uint32_t ab, ba;

	synth_data_on(s);
	sd_call(s, 1, 2, 1, "sendmsg", sd_sock(500, 501, 1, 1), SD_NONE, 100);	/* A -> B */
	sd_call(s, 3, 4, 2, "recvfrom", sd_sock(501, 500, 1, 1), SD_NONE, 100);	/* B reads it */
	sd_call(s, 5, 6, 2, "write", sd_sock(501, 500, 1, 1), SD_NONE, 10);	/* B -> A */
	sd_call(s, 7, 8, 1, "sendto", sd_sock(600, 601, 1, 2), SD_NONE, 10);	/* datagram C -> D */
	sd_call(s, 9, 10, 2, "recvmsg", sd_sock(601, 600, 1, 2), SD_NONE, 10);
	sd_call(s, 11, 12, 1, "sendto", sd_sock(700, 0, 2, 2), SD_NONE, 10);	/* UDP */
	t = synth_finish(s);
	cr_assert_eq(df_recording_build(t, &r), 0);
	cr_expect_eq(r.in.nobjs, 4, "A->B, B->A, C->D, the UDP socket: %zu objects", r.in.nobjs);
	ab = obj_named(&r, "unix stream:[500]->[501]");
	ba = obj_named(&r, "unix stream:[501]->[500]");
	cr_expect_eq(r.in.ops[0].obj, ab);
	cr_expect_eq(r.in.ops[1].obj, ab);
	cr_expect_eq(r.in.ops[2].obj, ba);
	cr_expect_eq(r.objs[ab].kind, DF_STREAM);
	cr_expect_eq(r.objs[obj_named(&r, "unix dgram:[600]->[601]")].kind, DF_MESSAGE);
	cr_expect_eq(r.in.ops[3].obj, r.in.ops[4].obj);
	cr_expect_eq(r.objs[obj_named(&r, "socket:[700]")].kind, DF_EXTERNAL);
	df_recording_release(&r);
	trace__free(t);
}

/*
 * What is left out: a descriptor not resolved (ino 0) is counted; a
 * truncation of something not a file (open O_TRUNC of /dev/null) makes
 * no version; a transfer needs both objects; other calls are no ops.
 */
Test(input, unresolved_and_irrelevant)
{
	struct synth *s = synth_new(0, SD_MS(20), 1);
	struct df_recording r;
	struct trace *t;

	synth_data_on(s);
	sd_call(s, 1, 2, 1, "read", SD_NONE, SD_NONE, 10);
	sd_open(s, 2, 3, 1, sd_chr(3), true, NULL);
	sd_call(s, 3, 4, 1, "splice", sd_pipe(9), SD_NONE, 10);
	sd_call(s, 4, 5, 1, "getpid", sd_file(1), SD_NONE, 1);
	sd_open(s, 5, 6, 1, sd_file(30), true, "thirty");
	sd_open(s, 5.5, 6, 1, sd_file(32), false, "thirty-two");	/* names it only */
	sd_call(s, 6, 7, 1, "splice", sd_pipe(9), sd_file(31), 10);
	sd_call(s, 7, 8, 1, "tee", sd_pipe(9), sd_pipe(10), 10);
	t = synth_finish(s);
	cr_assert_eq(df_recording_build(t, &r), 0);
	cr_expect_eq(r.unresolved, 3);
	cr_assert_eq(r.in.nops, 3);
	cr_expect_eq(r.in.ops[0].kind, DF_OP_TRUNC);
	cr_expect_eq(r.in.ops[1].kind, DF_OP_TRANSFER);
	cr_expect_eq(r.in.ops[1].obj, obj_named(&r, "pipe:[9]"));
	cr_expect_eq(r.in.ops[1].out, obj_named(&r, "8:1:31"));
	cr_expect_eq(r.in.ops[2].kind, DF_OP_TEE);
	cr_expect_eq(r.in.ops[2].out, obj_named(&r, "pipe:[10]"));
	/* the objects of the graph are named by their opens; one only opened is no object */
	cr_expect_str_eq(r.names[obj_named(&r, "8:1:30")], "thirty");
	cr_expect_str_eq(r.names[obj_named(&r, "pipe:[9]")], "");
	{
		char b[80];

		cr_expect_str_eq(df_recording_obj_label(&r, obj_named(&r, "8:1:30"), b, sizeof(b)), "thirty (8:1:30)");
		cr_expect_str_eq(df_recording_obj_label(&r, obj_named(&r, "pipe:[9]"), b, sizeof(b)), "pipe:[9]");
	}
	for (uint32_t i = 0; i < r.in.nobjs; i++) {
		char b[80];

		cr_expect_str_neq(df_recording_obj_name(&r, i, b, sizeof(b)), "8:1:32");
	}
	df_recording_release(&r);
	trace__free(t);
}

/* A recording without data records: an input with nothing in it. */
Test(input, empty)
{
	struct synth *s = synth_new(SD_MS(5), SD_MS(20), 1);
	struct df_recording r;
	struct trace *t;

	synth_data_on(s);
	t = synth_finish(s);
	cr_assert_eq(df_recording_build(t, &r), 0);
	cr_expect_eq(r.in.nops, 0);
	cr_expect_eq(r.in.nobjs, 0);
	cr_expect_eq(r.in.t_start, (int64_t)SD_MS(5));
	df_recording_release(&r);
	trace__free(t);
}
