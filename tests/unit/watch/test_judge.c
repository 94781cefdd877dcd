// SPDX-License-Identifier: MIT
/*
 * The judge (src/watch/judge.h) against the report's own stage: on random
 * schedules of a small simulated machine (tests/lib/synth_watch.h:
 * periodic actors, a disturber taking their CPU, background threads
 * preempting them, a lock they are held on now and then, windows of lost
 * records), judging one actor on its thread's records alone gives exactly
 * what actors__analyse() gives for it on the whole trace: the same
 * periodicity and period, the same invocations counted, the same breaks
 * (times, lateness, kind, data missing). That is the claim the judge rests
 * on: the other threads' switches can stand as the idle task.
 */
#include <errno.h>

#include "actors/actors.h"
#include "synth_watch.h"
#include "testutil.h"
#include "timeline/timeline.h"
#include "watch/history.h"
#include "watch/judge.h"

/* What the report's stage says of thread tid over the whole trace. */
static void report_actor(const struct timeline *tl, uint32_t tid, struct judge_out *out)
{
	char spec[32];
	const char *specs[1] = { spec };
	struct actors_opts ao = { .actor_specs = specs, .n_actor_specs = 1, .jobs = 1 };
	struct actors_result *ar;
	const struct actor *a;

	snprintf(spec, sizeof(spec), "tid:%u", tid);
	cr_assert_eq(actors__analyse(tl, &ao, &ar), 0);
	cr_assert_eq(ar->n, 1);
	a = &ar->v[0];
	memset(out, 0, sizeof(*out));
	cr_assert_eq(judge_out_of(a, out), 0);
	actors__free(ar);
}

/* The thread's records, as the watcher keeps them (history.h), and the losses. */
static struct history *history_of(const struct trace *t, uint32_t tid)
{
	struct history *h = history__new(1 << 22);
	union qt_record x;

	history__track(h, tid);
	for (size_t i = 0; i < t->nsw; i++) {
		memset(&x, 0, sizeof(x));
		x.sw = t->sw[i];
		history__add(h, &x, 1);
	}
	for (size_t i = 0; i < t->nsc; i++) {
		memset(&x, 0, sizeof(x));
		x.sc = t->sc[i];
		history__add(h, &x, 1);
	}
	for (size_t i = 0; i < t->nlost; i++) {
		memset(&x, 0, sizeof(x));
		x.lost = t->lost[i];
		history__add(h, &x, 1);
	}
	return h;
}

static int compared, with_breaks, with_missing;

static void check_seed(unsigned long long seed)
{
	unsigned long long r = seed * 7919 + 1;
	struct sw_cfg c = sw_default(seed);
	struct timeline *tl;
	struct trace *t;

	c.len = 6000000000ull;
	c.nactors = 1 + tu_rand(&r) % 3;
	for (int i = 0; i < c.nactors; i++) {
		c.a[i].period = 4000000 + tu_rand(&r) % 16000000;
		c.a[i].work = c.a[i].period / 10 + tu_rand(&r) % (c.a[i].period / 4);
		c.a[i].jitter = c.a[i].work / 20;
		c.a[i].cpu = i % 2;
		c.a[i].prio = 5 - (int)(tu_rand(&r) % 2) * 4;	/* some below nothing, some among the background */
		c.a[i].lock_p = tu_rand(&r) % 3 ? 0.03 : 0;
		c.a[i].lock_ns = c.a[i].period / 5;
	}
	c.nbg = tu_rand(&r) % 4;
	c.ndisturb = tu_rand(&r) % 6;
	c.disturb_cpu = tu_rand(&r) % 2;
	c.disturb_ns = 5000000 + tu_rand(&r) % 60000000;
	for (int i = 0; i < c.ndisturb; i++)
		c.disturb_at[i] = c.start + 500000000ull + tu_rand(&r) % (c.len - 1000000000ull);
	/* sorted: the disturber takes them in order */
	for (int i = 1; i < c.ndisturb; i++)
		for (int k = i; k > 0 && c.disturb_at[k] < c.disturb_at[k - 1]; k--) {
			uint64_t x = c.disturb_at[k];

			c.disturb_at[k] = c.disturb_at[k - 1];
			c.disturb_at[k - 1] = x;
		}
	c.nlosses = tu_rand(&r) % 3;
	for (int i = 0; i < c.nlosses; i++)
		c.loss_at[i] = c.start + tu_rand(&r) % c.len;
	t = sw_run(&c);
	cr_assert_eq(timeline__build(t, NULL, &tl), 0);
	for (int i = 0; i < c.nactors; i++) {
		uint32_t tid = SW_PID + 1 + i;
		struct history *h = history_of(t, tid);
		char spec[32], comm[16];
		struct judge_out want, got;
		struct judge_in in = {
			.spec = spec, .tid = tid, .tgid = SW_PID, .comm = comm, .arch = "x86_64", .ncpus = c.ncpus,
			.from = t->start_ns, .to = t->stop_ns,
		};

		snprintf(spec, sizeof(spec), "tid:%u", tid);
		snprintf(comm, sizeof(comm), "stage%d", i);
		in.recs = history__of(h, tid, &in.nrecs);
		in.losses = history__losses(h, &in.nlosses);
		report_actor(tl, tid, &want);
		cr_assert_eq(judge_actor(&in, &got), 0, "seed %llu", seed);
		cr_assert(got.studied);
		cr_assert_eq(got.periodic, want.periodic, "seed %llu actor %d", seed, i);
		cr_assert_eq(got.period_ns, want.period_ns, "seed %llu actor %d", seed, i);
		cr_assert_eq(got.ninv, want.ninv, "seed %llu actor %d: %zu invocations, the report %zu", seed, i,
			     got.ninv, want.ninv);
		cr_assert_eq(got.nbreaks, want.nbreaks, "seed %llu actor %d", seed, i);
		for (size_t k = 0; k < got.nbreaks; k++) {
			cr_assert_eq(memcmp(&got.breaks[k], &want.breaks[k], sizeof(got.breaks[k])), 0,
				     "seed %llu actor %d break %zu: at %lld late %lld, the report's at %lld late %lld", seed,
				     i, k, (long long)got.breaks[k].late_ns, (long long)got.breaks[k].lateness_ns,
				     (long long)want.breaks[k].late_ns, (long long)want.breaks[k].lateness_ns);
			with_missing += got.breaks[k].data_missing;
		}
		compared++;
		with_breaks += got.nbreaks > 0;
		cr_assert(got.have_rule || !got.periodic);
		judge_out_free(&got);
		judge_out_free(&want);
		history__free(h);
	}
	timeline__free(tl);
	trace__free(t);
}

Test(judge, one_thread_alone_judges_as_the_whole_trace, .timeout = 120)
{
	for (unsigned long long seed = 1; seed <= 40; seed++)
		check_seed(seed);
	cr_log_info("%d actors compared, %d with breaks, %d breaks over lost data", compared, with_breaks, with_missing);
	cr_assert_gt(with_breaks, compared / 3, "the disturbances make breaks: %d of %d", with_breaks, compared);
	cr_assert_gt(with_missing, 0, "losses make untrusted breaks");
}

/* A thread that never ran in the span is not studied, and says nothing. */
Test(judge, a_thread_without_runs)
{
	struct judge_in in = { .spec = "tid:77", .tid = 77, .tgid = 77, .comm = "x", .from = 0, .to = 1000000 };
	struct judge_out got;

	cr_assert_eq(judge_actor(&in, &got), -ENOENT, "quietly: nothing to judge");
	cr_assert_not(got.studied);
}
