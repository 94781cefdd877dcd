// SPDX-License-Identifier: MIT
/*
 * The data-flow stage (src/dataflow/stage.c) on recordings built by hand:
 * TV-8.2's path as hops, with the shares and the merge's other input and
 * its slack (docs/ALGORITHMS.md §9.6, §9.7: b.v1, slack 6, inherited
 * through the fork); TV-8.4's versions compressed into one hop per process
 * (the rename left out: the recorder cannot give it); --data-path naming a
 * target; and why a recording has no data records.
 */
#include <errno.h>

#include "dataflow/stage.h"
#include "file/missing.h"
#include "synth_data.h"
#include "testutil.h"

static struct trace *tv82(void)
{
	struct synth *s = synth_new(0, SD_MS(40), 1);

	sd_tv82(s);
	return synth_finish(s);
}

static const char *obj_of(const struct dataflow_result *r, uint32_t obj)
{
	static char b[80];

	return df_recording_obj_name(&r->rec, obj, b, sizeof(b));
}

Test(stage, tv82_hops_shares_and_slack)
{
	struct trace *t = tv82();
	struct dataflow_opts o = { 0 };
	struct dataflow_result *r;
	const struct df_hop *h;
	const struct df_other *x;

	cr_assert_eq(dataflow__analyse(t, NULL, &o, &r), 0);
	cr_assert_not_null(r);
	cr_expect(!r->named);
	cr_assert_eq(r->nhops, 2);
	h = &r->hops[0];
	cr_expect_str_eq(obj_of(r, h->obj), "8:1:11");
	cr_expect_eq(h->tgid, 101);
	cr_expect_str_eq(h->comm, "p1");
	cr_expect_eq(h->v_first, 1);
	cr_expect_eq(h->kind, DF_S_WRITE);
	cr_expect_eq(h->read_at, -1);
	h = &r->hops[1];
	cr_expect_str_eq(obj_of(r, h->obj), "8:1:13");
	cr_expect_eq(h->tgid, 104);
	cr_expect_str_eq(h->comm, "p4");
	cr_expect_eq(h->read_at, (int64_t)SD_MS(14));
	cr_expect_eq(h->waited, (int64_t)SD_MS(2));
	cr_expect_eq(h->in_process, (int64_t)SD_MS(11));
	cr_expect_eq(r->elapsed, (int64_t)SD_MS(13));
	cr_expect_eq(r->waited, (int64_t)SD_MS(2));
	/* P4 did not read b itself: P3 did, before forking it */
	cr_assert_eq(h->nother, 1);
	x = &r->others[h->other0];
	cr_expect_str_eq(obj_of(r, x->obj), "8:1:12");
	cr_expect_eq(x->version, 1);
	cr_expect_eq(x->slack, (int64_t)SD_MS(6));
	cr_expect_eq(r->rec.tgids[x->proc], 102);
	/* shares: P4 11 of 13 ms; P1 made the root */
	cr_assert_geq(r->nshares, 1);
	cr_expect_eq(r->shares[0].tgid, 104);
	cr_expect_eq(r->shares[0].in_process, (int64_t)SD_MS(11));
	dataflow__free(r);
	trace__free(t);
}

/*
 * TV-8.4 without the rename: P writes f twice, Q reads it (v2: the third
 * write had not completed when the read began), truncates it with an
 * open(O_TRUNC) and writes it. Two hops: P: f v1-v2, Q: f v4-v5.
 */
Test(stage, tv84_versions_compressed)
{
	struct synth *s = synth_new(0, SD_MS(20), 1);
	struct dataflow_opts o = { 0 };
	struct dataflow_result *r;
	struct trace *t;

	synth_data_on(s);
	sd_call(s, 1, 2, 1, "write", sd_file(5), SD_NONE, 10);
	sd_call(s, 3, 4, 1, "write", sd_file(5), SD_NONE, 10);
	sd_call(s, 5, 6, 2, "read", sd_file(5), SD_NONE, 10);
	sd_call(s, 5.2, 5.8, 1, "write", sd_file(5), SD_NONE, 10);
	sd_open(s, 7, 7.5, 2, sd_file(5), true, "f");
	sd_call(s, 8, 9, 2, "write", sd_file(5), SD_NONE, 10);
	t = synth_finish(s);
	cr_assert_eq(dataflow__analyse(t, NULL, &o, &r), 0);
	cr_assert_eq(r->nhops, 2);
	cr_expect_eq(r->hops[0].v_first, 1);
	cr_expect_eq(r->hops[0].v_last, 2);
	cr_expect_eq(r->hops[0].t_first, (int64_t)SD_MS(2));
	cr_expect_eq(r->hops[0].t_last, (int64_t)SD_MS(4));
	cr_expect_eq(r->hops[0].tgid, 1);
	cr_expect_eq(r->hops[1].v_first, 4);
	cr_expect_eq(r->hops[1].v_last, 5);
	cr_expect_eq(r->hops[1].kind, DF_S_TRUNC);
	cr_expect_eq(r->hops[1].read_at, (int64_t)SD_MS(6));
	cr_expect_eq(r->hops[1].tgid, 2);
	/* waited 2 (v2 at 4, read at 6); in process 1.5 to v4 at 7.5, then 1.5 to v5 at 9 */
	cr_expect_eq(r->hops[1].waited, (int64_t)SD_MS(2));
	cr_expect_eq(r->hops[1].in_process, (int64_t)SD_MS(3));
	cr_expect_eq(r->elapsed, (int64_t)SD_MS(7));
	dataflow__free(r);
	trace__free(t);
}

/* --data-path by the name an open gave the file; the text names it too. */
Test(stage, target_by_name)
{
	struct synth *s = synth_new(0, SD_MS(20), 1);
	struct dataflow_opts o = { .asked = true, .target = "/some/dir/f.out" };
	struct dataflow_result *r;
	struct trace *t;
	char b[80];

	synth_data_on(s);
	sd_open(s, 0.5, 0.6, 1, sd_file(5), true, "f.out");
	sd_call(s, 1, 2, 1, "write", sd_file(5), SD_NONE, 10);
	sd_call(s, 3, 4, 1, "write", sd_file(6), SD_NONE, 10);	/* the default target: written last */
	t = synth_finish(s);
	cr_assert_eq(dataflow__analyse(t, NULL, &o, &r), 0);
	cr_assert_eq(r->nhops, 1);
	cr_expect_str_eq(df_recording_obj_label(&r->rec, r->hops[0].obj, b, sizeof(b)), "f.out (8:1:5)");
	cr_expect_eq(r->hops[0].v_last, 2);
	dataflow__free(r);
	trace__free(t);
}

Test(stage, named_target)
{
	struct trace *t = tv82();
	struct dataflow_opts o = { .asked = true, .target = "8:1:12" };
	struct dataflow_result *r;

	cr_assert_eq(dataflow__analyse(t, NULL, &o, &r), 0);
	cr_expect(r->named);
	cr_assert_eq(r->nhops, 1);
	cr_expect_str_eq(obj_of(r, r->hops[0].obj), "8:1:12");
	cr_expect_eq(r->hops[0].tgid, 102);
	dataflow__free(r);
	o.target = "8:2:12";	/* another device */
	cr_expect_eq(dataflow__analyse(t, NULL, &o, &r), -ESRCH);
	cr_expect_null(r);
	o.target = "12";	/* any device */
	cr_expect_eq(dataflow__analyse(t, NULL, &o, &r), 0);
	dataflow__free(r);
	o.target = "/tmp/";
	cr_expect_eq(dataflow__analyse(t, NULL, &o, &r), -EINVAL);
	o.target = "nosuchfile";
	cr_expect_eq(dataflow__analyse(t, NULL, &o, &r), -ESRCH);
	trace__free(t);
}

/* Why there is nothing: each recording that cannot have data records says its reason. */
Test(stage, unavailable_says_why)
{
	struct synth *s = synth_new(0, SD_MS(20), 1);
	struct dataflow_opts quiet = { 0 }, asked = { .asked = true };
	struct dataflow_result *r = (void *)1;
	struct trace *t;
	char b[256];

	t = synth_finish(s);
	t->format_version = 2;
	cr_expect(strstr(dataflow_unavailable(t, b, sizeof(b)) ?: "", "format 2"));
	cr_expect_eq(dataflow__analyse(t, NULL, &quiet, &r), 0);
	cr_expect_null(r);
	cr_expect_eq(dataflow__analyse(t, NULL, &asked, &r), -ENODATA);
	t->format_version = 3;
	tf_kv_set(&t->meta, TF_META_FEATURES, "sched,wakeup,lifecycle,syscalls,irqs");
	tf_kv_set(&t->meta, TF_META_MODE, "all");
	cr_expect(strstr(dataflow_unavailable(t, b, sizeof(b)) ?: "", "-a --data"));
	tf_kv_set(&t->meta, TF_META_MODE, "command");
	cr_expect(strstr(dataflow_unavailable(t, b, sizeof(b)) ?: "", "--no-data"));
	tf_kv_set(&t->meta, TF_META_FEATURES, "sched,wakeup,lifecycle");
	cr_expect(strstr(dataflow_unavailable(t, b, sizeof(b)) ?: "", "--no-syscalls"));
	tf_kv_set(&t->meta, TF_META_FEATURES, "sched,wakeup,lifecycle,syscalls,data");
	tf_kv_set(&t->meta, TF_META_MISSING, "runtime,%s", MISSING_DATA);
	cr_expect(strstr(dataflow_unavailable(t, b, sizeof(b)) ?: "", "tracefs"));
	tf_kv_set(&t->meta, TF_META_MISSING, "runtime");
	cr_expect_null(dataflow_unavailable(t, b, sizeof(b)));
	/* data recorded, none moved: a result without a target */
	cr_assert_eq(dataflow__analyse(t, NULL, &asked, &r), 0);
	cr_assert_not_null(r);
	cr_expect_eq(r->target, -1);
	cr_expect_eq(r->nhops, 0);
	dataflow__free(r);
	trace__free(t);
}
