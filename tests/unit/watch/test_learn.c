// SPDX-License-Identifier: MIT
/*
 * The warm-up (src/watch/learn.h) on a simulated recording put into a
 * ring as the recorder would: the actors the report studies, with their
 * period; --actor specs that name no thread yet left out and counted;
 * the events read bounded; the watched threads' records read back from
 * every block, once each.
 */
#include <errno.h>

#include "lib/log.h"
#include "synth_watch.h"
#include "watch_ring_fx.h"
#include "testutil.h"
#include "watch/history.h"
#include "watch/learn.h"
#include "watch/ring.h"
#include "watch/sink.h"
#include "watch/tap.h"
#include "watch/threads.h"

/* A 6 s simulated recording, its blocks in a ring. */
static void setup(struct watch_ring_fx *f)
{
	watch_ring_fx_open(f, 4, 6000000000ull, 64u << 20);
}

static struct learn_in input(struct watch_ring_fx *f, const char *const *specs, size_t n)
{
	struct ring_stats st;

	ring__stats(f->ring, &st);
	return (struct learn_in){ .ring = f->ring, .last_seq = st.next_seq - 1, .meta = &f->meta, .threads = f->th,
				  .max_events = 1 << 22, .specs = specs, .nspecs = n };
}

static const struct learnt_actor *named(const struct learnt *l, const char *comm)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].comm, comm))
			return &l->v[i];
	return NULL;
}

Test(learn, the_actors_report_studies)
{
	struct watch_ring_fx f;
	struct learn_in in;
	struct learnt l;
	struct trace *t;
	const struct learnt_actor *a;

	setup(&f);
	in = input(&f, NULL, 0);
	cr_assert_eq(learn_from_ring(&in, &l, &t), 0);
	a = named(&l, "stage0");
	cr_assert_not_null(a);
	cr_assert(a->periodic);
	cr_assert_float_eq(a->period_ns, 10e6, 50e3);
	cr_assert_str_eq(a->spec, "tid:1001");
	cr_assert(a->have_rule);
	cr_assert_eq(a->rule.cut_ns, 1000000);
	cr_assert(a->rule.release_ns >= 5000000 && a->rule.release_ns < 10000000, "%lld",
		  (long long)a->rule.release_ns);
	cr_assert_not_null(named(&l, "stage1"));
	cr_assert_eq(l.events, f.t->nsw + f.t->nsc + f.t->nlost + f.t->ntask);
	trace__free(t);
	learnt_free(&l);
	watch_ring_fx_close(&f);
}

Test(learn, specs_that_name_no_thread_wait)
{
	static const char *const one[] = { "stage1", "no-such-thread" }, *const none[] = { "no-such-thread" };
	struct watch_ring_fx f;
	struct learn_in in;
	struct learnt l;
	struct trace *t;

	setup(&f);
	in = input(&f, one, 2);
	cr_assert_eq(learn_from_ring(&in, &l, &t), 0);
	cr_assert_eq(l.n, 1);
	cr_assert_str_eq(l.v[0].comm, "stage1");
	cr_assert_eq(l.missing_specs, 1);
	trace__free(t);
	learnt_free(&l);
	in = input(&f, none, 1);
	cr_assert_eq(learn_from_ring(&in, &l, &t), -ENODATA);
	cr_assert_null(t);
	watch_ring_fx_close(&f);
}

Test(learn, reads_at_most_about_max_events)
{
	struct watch_ring_fx f;
	struct learn_in in;
	struct learnt l;
	struct trace *t;

	setup(&f);
	in = input(&f, NULL, 0);
	in.max_events = 5000;
	cr_assert_eq(learn_from_ring(&in, &l, &t), 0);
	cr_assert_lt(l.events, 5000 + 3000, "%llu events", (unsigned long long)l.events);
	cr_assert_geq(l.events, 5000);
	cr_assert_gt(l.from, f.t->start_ns + 1500000000ull, "the newest blocks: from %llu, the recording %llu",
		     (unsigned long long)l.from, (unsigned long long)f.t->start_ns);
	cr_assert_lt(l.events, f.t->nsw + f.t->nsc);
	trace__free(t);
	learnt_free(&l);
	watch_ring_fx_close(&f);
}

Test(learn, catch_up_reads_every_block_once)
{
	struct watch_ring_fx f;
	struct history *h = history__new(1 << 22);
	struct ring_stats st;
	size_t n, want = 0;

	setup(&f);
	history__track(h, 1002);
	ring__stats(f.ring, &st);
	/* twice, overlapping: each record once */
	cr_assert_eq(learn_catch_up(f.ring, st.first_seq, st.next_seq - 1, h), 0);
	cr_assert_eq(learn_catch_up(f.ring, st.first_seq + 2, st.next_seq - 1, h), 0);
	for (size_t i = 0; i < f.t->nsw; i++)
		want += f.t->sw[i].prev_tid == 1002 || f.t->sw[i].next_tid == 1002;
	for (size_t i = 0; i < f.t->nsc; i++)
		want += f.t->sc[i].tid == 1002;
	history__of(h, 1002, &n);
	cr_assert_eq(n, want);
	history__free(h);
	watch_ring_fx_close(&f);
}
