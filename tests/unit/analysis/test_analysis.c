// SPDX-License-Identifier: MIT
/*
 * The analysis driver: every stage runs over a hand-made recording, and the
 * critical-path stage and the pattern search give the same report whether
 * they run side by side (jobs = 2) or one after the other (jobs = 1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "analysis/analysis.h"
#include "analysis/diagnosis.h"
#include "critical/critical.h"
#include "report/perfetto.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "patterns/patterns.h"
#include "report/report.h"
#include "summary_text.h"
#include "synth_lock.h"
#include "synth_trace.h"
#include "testutil.h"
#include "timeline/timeline.h"
#include "lib/workq.h"

#define MS 1000000ull
#define US 1000ull
#define T0 (1000 * MS)
#define PERIODS 200

enum { SRC = 101, SINK = 102, HOG = 201 };

/*
 * One CPU. Every 10 ms a timer wakes src, which runs 2 ms, wakes sink 1.5 ms
 * in and sleeps; sink runs 1 ms. Every 13th period hog runs 6 ms first, in
 * a system call, so src starts late: breaks with hog on their critical
 * path and hog's system call as the pattern that emerges with them. With
 * fresh_hogs each disturbance is a process of its own named hog, as the
 * children of a shell loop are.
 */
static struct trace *world_of(bool fresh_hogs)
{
	struct synth *s = synth_new(T0, T0 + (PERIODS + 1) * 10 * MS, 1);

	synth_thread(s, SRC, 100, "src");
	synth_thread(s, SINK, 100, "sink");
	synth_thread(s, HOG, 200, "hog");
	for (uint32_t k = 1; fresh_hogs && k <= PERIODS / 13; k++)
		synth_thread(s, HOG + k, 200 + k, "hog");
	synth_targets(s, "100");
	for (uint64_t k = 0; k < PERIODS; k++) {
		uint64_t base = T0 + k * 10 * MS, st = base + MS / 20;
		uint32_t hog = fresh_hogs ? HOG + (uint32_t)(k / 13) : HOG, hog_pid = hog - HOG + 200;

		synth_timer_wakeup(s, base, SRC, 100, 0);
		if (k % 13 == 7) {
			synth_switch(s, base, 0, 0, 0, SYN_PREEMPT, hog, hog_pid);
			synth_syscall(s, base + MS / 10, base + 5 * MS, hog, hog_pid, 42, 0, 0);
			st = base + 6 * MS;
			synth_switch(s, st, 0, hog, hog_pid, SYN_SLEEP, SRC, 100);
		} else {
			synth_switch(s, st, 0, 0, 0, SYN_PREEMPT, SRC, 100);
		}
		synth_syscall(s, st + MS / 10, st + MS / 5, SRC, 100, 7, 0, 0);
		synth_wakeup(s, st + 3 * MS / 2, SRC, 100, SINK, 100, 0);
		synth_switch(s, st + 2 * MS, 0, SRC, 100, SYN_SLEEP, SINK, 100);
		synth_switch(s, st + 3 * MS, 0, SINK, 100, SYN_SLEEP, 0, 0);
	}
	return synth_finish(s);
}

static struct trace *world(void)
{
	return world_of(false);
}

/* The report with its run-time measurements (which differ run to run) zeroed. */
static char *report_of(const struct trace *t, const struct timeline *tl, int jobs, size_t break_paths,
		       size_t *nbreaks)
{
	static const char *const timings[] = { "\"build_ns\":", "\"cpa_ns\":", "\"account_ns\":",
					       "\"elapsed_ns\":", "\"mine_ns\":" };
	struct analysis_opts o;
	struct analysis *a;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	analysis_opts_default(&o);
	o.jobs = jobs;
	o.break_paths = break_paths;
	cr_assert_eq(analysis__run_trace(t, tl, &o, &a), 0);
	cr_assert_not_null(a->actors);
	cr_assert_not_null(a->critical, "jobs %d: no critical-path result", jobs);
	cr_assert_not_null(a->patterns, "jobs %d: no pattern result", jobs);
	/* both stages found something, so that equal reports say something */
	cr_assert_geq(a->critical->nbreaks, PERIODS / 13, "jobs %d: %zu breaks", jobs, a->critical->nbreaks);
	cr_assert(a->patterns->npos > 0 && a->patterns->symbols > 0, "jobs %d: nothing mined", jobs);
	*nbreaks = a->critical->nbreaks;
	f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	cr_assert_eq(report_json(a, f), 0);
	fclose(f);
	analysis__free(a);
	for (size_t i = 0; i < sizeof(timings) / sizeof(timings[0]); i++) {
		for (char *p = strstr(buf, timings[i]); p; p = strstr(p, timings[i])) {
			char *d = p + strlen(timings[i]) + strspn(p + strlen(timings[i]), " ");
			size_t nd = strspn(d, "0123456789");

			cr_assert_gt(nd, 0, "%s without a number", timings[i]);
			memmove(d, d + nd - 1, strlen(d + nd - 1) + 1);
			*d = '0';
			p = d;
		}
	}
	return buf;
}

Test(analysis, side_by_side_same_report)
{
	struct trace *t = world();
	struct timeline *tl;
	char *one, *two;
	size_t nb;

	log_level = LOG_QUIET;
	cr_assert_eq(timeline__build(t, NULL, &tl), 0);
	one = report_of(t, tl, 1, 0, &nb);
	two = report_of(t, tl, 2, 0, &nb);
	cr_assert(strstr(one, "\"hog\""), "hog appears nowhere in the report");
	cr_assert_str_eq(one, two);
	free(one);
	free(two);
	timeline__free(tl);
	trace__free(t);
}

/*
 * With two jobs the critical path's graph is being built while the actors'
 * stage fails on an --actor that names nothing: the analysis fails with the
 * actors' error, and the graph is dropped (the SAN build checks that
 * nothing leaks).
 */
Test(analysis, actors_failing_beside_the_graph)
{
	static const char *const specs[] = { "nosuch" };
	struct trace *t = world();
	struct timeline *tl;
	struct analysis_opts o;
	struct analysis *a = NULL;

	log_level = LOG_QUIET;
	cr_assert_eq(timeline__build(t, NULL, &tl), 0);
	for (int jobs = 1; jobs <= 2; jobs++) {
		analysis_opts_default(&o);
		o.jobs = jobs;
		o.actor_specs = specs;
		o.n_actor_specs = 1;
		cr_expect_eq(analysis__run_trace(t, tl, &o, &a), -EINVAL, "jobs %d", jobs);
		cr_expect_null(a, "jobs %d", jobs);
	}
	timeline__free(tl);
	trace__free(t);
}

/* A world analysed with the default options, for the Diagnosis tests to edit and read. */
struct diag {
	struct trace *t;
	struct timeline *tl;
	struct analysis *a;
};

static void diag_open_trace(struct diag *d, struct trace *t)
{
	struct analysis_opts o;

	log_level = LOG_QUIET;
	d->t = t;
	cr_assert_eq(timeline__build(d->t, NULL, &d->tl), 0);
	analysis_opts_default(&o);
	cr_assert_eq(analysis__run_trace(d->t, d->tl, &o, &d->a), 0);
	cr_assert(d->a->actors->upstream >= 0);
}

static void diag_open(struct diag *d, bool fresh_hogs)
{
	diag_open_trace(d, world_of(fresh_hogs));
}

/*
 * The next of the upstream actor's breaks on the critical-path list from
 * *i on, *i then past it; NULL after the last. The tests rewrite them.
 */
static struct crit_break *next_upstream_break(const struct diag *d, size_t *i)
{
	const struct critical_result *cr = d->a->critical;

	for (; *i < cr->nbreaks; ++*i)
		if ((long)cr->breaks[*i].actor == d->a->actors->upstream)
			return &cr->breaks[(*i)++];
	return NULL;
}

/* The Diagnosis as the report prints it (the caller frees it). */
static char *diag_print(const struct diag *d)
{
	return summary_text(d->a);
}

/* The Diagnosis of the world as it is now (the tests edit the stages' results). */
static const struct diagnosis *diag_of(struct diag *d)
{
	return diagnosis_fresh(d->a);
}

/* The culprit's name, as the Diagnosis names it. */
static const char *culprit_name(const struct diag *d, const struct diag_cause *c)
{
	return timeline__comm_at(d->tl, c->thread, c->named_at_ns);
}

/* Both ends of the cause's range print as want ("5.55 ms"): one value. */
static void expect_range_reads(const struct diag_cause *c, const char *want)
{
	char lo[32], hi[32];

	cr_expect_str_eq(fmt_duration(lo, sizeof(lo), c->min_ns), want);
	cr_expect_str_eq(fmt_duration(hi, sizeof(hi), c->max_ns), want);
}

static void diag_close(struct diag *d)
{
	analysis__free(d->a);
	timeline__free(d->tl);
	trace__free(d->t);
}

/*
 * The Diagnosis names what delayed the upstream actor's worst breaks also
 * when that is a kind of wait, whose name is a constant rather than written
 * into the caller's buffer: the world's culprit (hog) is made a wakeup
 * latency here, and the sentence must say so.
 */
Test(analysis, diagnosis_names_a_category_culprit)
{
	struct diag d;
	struct crit_break *b;
	const struct diag_cause *c;
	size_t changed = 0;
	char *buf;

	diag_open(&d, false);
	for (size_t i = 0; (b = next_upstream_break(&d, &i));) {
		if (b->culprit.thread == CRIT_NONE)
			continue;
		b->culprit = (struct crit_share){ .thread = CRIT_NONE, .cat = CRIT_CAT_WAKEUP, .ns = MS };
		changed++;
	}
	cr_assert_gt(changed, 0, "no break of the upstream actor blamed a thread");
	c = &diag_of(&d)->cause;
	cr_expect_eq(c->kind, DIAG_CAUSE_CULPRIT);
	cr_expect_eq(c->how, DIAG_WAITED_ON);
	cr_expect_eq(c->thread, CRIT_NONE);
	cr_expect_eq(c->cat, CRIT_CAT_WAKEUP);
	/* the rendering names the kind of wait */
	buf = diag_print(&d);
	cr_expect(strstr(buf, "the path waited on wakeup latency"), "%s", buf);
	free(buf);
	diag_close(&d);
}

/*
 * The excess over the usual is a range over the breaks the culprit
 * delayed; one that prints the same at both ends ("24.1 ms to 24.1 ms",
 * seen on a real pipeline) is one value.
 */
Test(analysis, diagnosis_range_printed_once_when_its_ends_read_the_same)
{
	struct diag d;
	struct crit_break *b;
	const struct diag_cause *c;
	size_t k = 0;
	char *buf;

	diag_open(&d, false);
	for (size_t i = 0; (b = next_upstream_break(&d, &i));)
		if (b->culprit.thread != CRIT_NONE)
			b->excess_ns = 24100000 + 10000 * (int64_t)k++;
	cr_assert_gt(k, 1, "%zu breaks of the upstream actor blame a thread", k);
	c = &diag_of(&d)->cause;
	cr_expect_eq(c->kind, DIAG_CAUSE_CULPRIT);
	cr_expect_eq(c->min_ns, 24100000);
	/* the worst five are the first five rewritten */
	cr_expect_eq(c->max_ns, 24100000 + 10000 * (int64_t)((k < 5 ? k : 5) - 1));
	/* the rendering: a range whose ends read the same is one value */
	buf = diag_print(&d);
	cr_expect(strstr(buf, "behind hog (24.1 ms more than usual)."), "%s", buf);
	free(buf);
	for (size_t i = 0; (b = next_upstream_break(&d, &i));)
		if (b->excess_ns == 24100000)
			b->excess_ns = 30 * MS;
	c = &diag_of(&d)->cause;
	cr_expect_eq(c->min_ns, 24110000);
	cr_expect_eq(c->max_ns, 30 * MS);
	buf = diag_print(&d);
	cr_expect(strstr(buf, "behind hog (24.1 ms to 30 ms more than usual)."), "%s", buf);
	free(buf);
	diag_close(&d);
}

/*
 * A disturber started anew for each disturbance has a thread per break:
 * the Diagnosis counts the breaks its name delayed (the 5 worst, by 5
 * threads), as it counts those of one thread that did it every time.
 */
static void expect_hog_in_5_of_5(const char *range, size_t threads, bool fresh_hogs)
{
	struct diag d;
	const struct diag_cause *c;

	diag_open(&d, fresh_hogs);
	c = &d.a->diagnosis->cause;
	/* "in 5 of its 5 worst breaks, it waited for the CPU behind hog (... more than usual)." */
	cr_expect_eq(c->kind, DIAG_CAUSE_CULPRIT);
	cr_expect_eq(c->how, DIAG_CPU_BEHIND);
	cr_expect_eq(c->nworst, 5);
	cr_expect_eq(c->count, 5);
	cr_expect_str_eq(culprit_name(&d, c), "hog");
	cr_expect_eq(c->threads, threads, "%zu threads of that name", c->threads);
	expect_range_reads(c, range);
	diag_close(&d);
}

Test(analysis, diagnosis_groups_a_disturber_by_name)
{
	expect_hog_in_5_of_5("5.55 ms", 1, false);
	expect_hog_in_5_of_5("5.97 ms", 5, true);
}

/* The rendering of threads of one name. */
Test(analysis, diagnosis_says_how_many_threads_of_that_name)
{
	char *one, *fresh;
	struct diag d;

	diag_open(&d, false);
	one = diag_print(&d);
	diag_close(&d);
	diag_open(&d, true);
	fresh = diag_print(&d);
	diag_close(&d);
	cr_expect(strstr(one, "in 5 of its 5 worst breaks, it waited for the CPU behind hog (5.55 ms more than usual)."),
		  "%s", one);
	cr_expect_null(strstr(one, "threads of that name"), "%s", one);
	cr_expect(strstr(fresh, "in 5 of its 5 worst breaks, it waited for the CPU behind hog "
				"(5 threads of that name; 5.97 ms more than usual)."), "%s", fresh);
	free(one);
	free(fresh);
}

/*
 * A player whose work waits for a lock a logger holds (synth_lock.h): its
 * late completions and the period it lost are explained by the logger,
 * the holder, on the critical path into the invocation that waited, not
 * by its timer, which released it on time.
 */
static void lock_holder_is_the_culprit(uint64_t fold_late_ns, size_t nbreaks)
{
	struct lock_cfg c = { .periods = 120, .every = 30, .hold_ns = 5 * MS, .fold_at = 60,
			      .wait_nr = LOCK_NR_FUTEX, .syscalls = true, .fold_late_ns = fold_late_ns };
	struct diag d;
	const struct actor *up;
	struct crit_break *b;
	size_t i = 0, n = 0, completion = 0;
	const struct diag_cause *dc;

	diag_open_trace(&d, lock_trace(&c));
	up = &d.a->actors->v[d.a->actors->upstream];
	cr_assert_str_eq(up->comm, "player");
	while ((b = next_upstream_break(&d, &i))) {
		const struct actor_break *ab = &up->breaks[b->brk];

		cr_assert_neq(b->culprit.thread, CRIT_NONE, "break at invocation %zu", ab->late);
		cr_assert_eq(d.tl->threads[b->culprit.thread].tid, LOCK_LOGGER, "break at invocation %zu", ab->late);
		cr_assert_eq(b->release_excess_ns, 0, "the timer released it on time");
		/* the path goes back to the start of the invocation before the one that waited */
		cr_assert_eq(b->path.start_ns, up->inv[actor_break_target(ab) - 1].start_ns);
		cr_assert_eq(b->path.end_ns, up->inv[actor_break_target(ab)].end_ns);
		completion += ab->kind == BREAK_COMPLETION;
		n++;
	}
	cr_assert_eq(n, nbreaks);
	cr_assert_eq(completion, 4);
	/* "in 5 of its 5 worst breaks, the critical path ran through logger" */
	dc = &d.a->diagnosis->cause;
	cr_expect_eq(dc->kind, DIAG_CAUSE_CULPRIT);
	cr_expect_eq(dc->how, DIAG_RAN_THROUGH);
	cr_expect_eq(dc->nworst, 5);
	cr_expect_eq(dc->count, 5);
	cr_expect(dc->thread != CRIT_NONE && d.tl->threads[dc->thread].tid == LOCK_LOGGER, "%s",
		  culprit_name(&d, dc));
	diag_close(&d);
}

Test(analysis, a_lock_holder_is_the_culprit)
{
	lock_holder_is_the_culprit(0, 5);
}

/* The period that waited also started late: both its breaks go into it, and blame the holder. */
Test(analysis, a_lock_holder_is_the_culprit_of_two_breaks_into_one_invocation)
{
	lock_holder_is_the_culprit(2 * MS, 6);
}

/*
 * A break over missing data is listed but not trusted: the Diagnosis's
 * first answer does not count it, nor does its second blame what its path
 * shows. The world's worst breaks are marked so, their culprit made a
 * wakeup latency: the sentence must still name hog, from the others.
 */
Test(analysis, diagnosis_leaves_out_breaks_over_missing_data)
{
	struct diag d;
	struct crit_break *b;
	const struct diagnosis *dg;
	const struct actor *up;
	size_t marked = 0, trusted;

	diag_open(&d, false);
	up = &d.a->actors->v[d.a->actors->upstream];
	trusted = up->nbreaks;
	for (size_t i = 0; marked < 3 && (b = next_upstream_break(&d, &i));) {
		d.a->actors->v[b->actor].breaks[b->brk].data_missing = true;
		b->culprit = (struct crit_share){ .thread = CRIT_NONE, .cat = CRIT_CAT_WAKEUP, .ns = MS };
		marked++;
	}
	cr_assert_eq(marked, 3);
	dg = diag_of(&d);
	cr_expect_eq(dg->breaks, trusted - 3, "the first answer counts %zu breaks", dg->breaks);
	/* "in 5 of its 5 worst breaks, it waited for the CPU behind hog", no wakeup latency */
	cr_expect_eq(dg->cause.kind, DIAG_CAUSE_CULPRIT);
	cr_expect_eq(dg->cause.how, DIAG_CPU_BEHIND);
	cr_expect_eq(dg->cause.nworst, 5);
	cr_expect_eq(dg->cause.count, 5);
	cr_expect_str_eq(culprit_name(&d, &dg->cause), "hog");
	for (size_t k = 0; k < dg->cause.nworst; k++) {
		b = &d.a->critical->breaks[dg->cause.worst[k]];
		cr_expect_not(up->breaks[b->brk].data_missing, "worst break %zu is over missing data", k);
		cr_expect_neq(b->culprit.thread, CRIT_NONE, "worst break %zu blames a kind of wait", k);
	}
	diag_close(&d);
}

/*
 * The cause named is the one that cost the worst breaks the most, not the
 * one seen in most of them: hog in one (5.55 ms), sink in two (100 us
 * each), a wakeup latency in two (50 us each). Counting named sink.
 */
Test(analysis, diagnosis_names_the_costliest_cause)
{
	struct diag d;
	struct crit_break *b;
	size_t seen = 0;
	uint32_t sink = TL_NONE;
	const struct diag_cause *c;

	diag_open(&d, false);
	for (uint32_t i = 0; i < d.tl->nthreads; i++)
		if (d.tl->threads[i].tid == SINK)
			sink = i;
	cr_assert_neq(sink, TL_NONE);
	for (size_t i = 0; seen < 5 && (b = next_upstream_break(&d, &i));) {
		if (seen == 1 || seen == 2) {
			b->culprit = (struct crit_share){ .thread = sink, .ns = 100 * US, .run_ns = 100 * US };
			b->excess_ns = 100 * US;
		} else if (seen > 2) {
			b->culprit = (struct crit_share){ .thread = CRIT_NONE, .cat = CRIT_CAT_WAKEUP, .ns = 50 * US };
			b->excess_ns = 50 * US;
		}
		seen++;
	}
	cr_assert_eq(seen, 5);
	/* "in 1 of its 5 worst breaks, it waited for the CPU behind hog (5.55 ms more than usual)" */
	c = &diag_of(&d)->cause;
	cr_expect_eq(c->kind, DIAG_CAUSE_CULPRIT);
	cr_expect_eq(c->how, DIAG_CPU_BEHIND);
	cr_expect_eq(c->nworst, 5);
	cr_expect_eq(c->count, 1);
	cr_expect_str_eq(culprit_name(&d, c), "hog");
	expect_range_reads(c, "5.55 ms");
	diag_close(&d);
}

/* Critical-path tracks in the Perfetto export with --break-paths N. */
static size_t export_paths(const struct trace *t, const struct timeline *tl, size_t break_paths)
{
	struct analysis_opts o;
	struct perfetto_opts po = { 0 };
	struct perfetto_stats st;
	struct analysis *a;
	char *buf = NULL;
	size_t len = 0, n;
	FILE *f;

	analysis_opts_default(&o);
	o.break_paths = break_paths;
	cr_assert_eq(analysis__run_trace(t, tl, &o, &a), 0);
	f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	cr_assert_eq(export_perfetto(a, f, &po, &st), 0);
	fclose(f);
	n = tu_count(buf, "\"name\":\"critical path into ");
	analysis__free(a);
	free(buf);
	return n;
}

/* --break-paths: the worst N paths listed, every break counted. */
Test(analysis, break_paths_cap_the_listed_paths)
{
	struct trace *t = world();
	struct timeline *tl;
	char *all, *three, want[64];
	size_t nb;

	log_level = LOG_QUIET;
	cr_assert_eq(timeline__build(t, NULL, &tl), 0);
	all = report_of(t, tl, 2, 0, &nb);
	three = report_of(t, tl, 2, 3, &nb);
	cr_assert_gt(nb, 3);
	/* "delayed_by" is a field of a listed break's path only */
	cr_assert_eq(tu_count(all, "\"delayed_by\""), nb);
	cr_assert_eq(tu_count(three, "\"delayed_by\""), 3);
	snprintf(want, sizeof(want), "\"breaks_total\": %zu", nb);
	cr_assert(strstr(all, want) && strstr(three, want), "no %s", want);
	cr_assert(strstr(all, "\"breaks_left_out\": 0"));
	snprintf(want, sizeof(want), "\"breaks_left_out\": %zu", nb - 3);
	cr_assert(strstr(three, want), "no %s", want);
	/* the three listed are the first three of the full list */
	{
		const char *a = strstr(all, "\"critical\":"), *b = strstr(three, "\"critical\":");

		cr_assert(a && b);
		for (int k = 0; k < 3; k++) {
			a = strstr(a + 1, "\"late_invocation\"");
			b = strstr(b + 1, "\"late_invocation\"");
			cr_assert(a && b);
			/* the whole break, its path's stretches included */
			cr_assert_eq(strncmp(a, b, strstr(a, "\"segments_total\"") - a), 0, "listed break %d differs", k);
		}
	}
	free(all);
	free(three);
	/* the Perfetto export draws the same paths: the listed ones and the whole recording's */
	cr_assert_eq(export_paths(t, tl, 0), nb + 1);
	cr_assert_eq(export_paths(t, tl, 3), 3 + 1);
	timeline__free(tl);
	trace__free(t);
}

Test(analysis, default_jobs_follow_the_cpus)
{
	struct analysis_opts o;

	analysis_opts_default(&o);
	cr_assert(o.jobs == 1 || o.jobs == 2);
	cr_assert_eq(o.jobs > 1, sysconf(_SC_NPROCESSORS_ONLN) > 1);
}

/* Stages side by side only where two CPUs are usable: not under `taskset` to one. */
Test(analysis, two_jobs_only_where_two_cpus_are_usable)
{
	struct analysis_opts o;
	cpu_set_t old;

	analysis_opts_default(&o);
	cr_assert_eq(o.jobs, workq_cpus_usable() > 1 ? 2 : 1);
	cr_assert(tu_pin_one_cpu(&old), "cannot restrict this process to one CPU");
	analysis_opts_default(&o);
	cr_assert_eq(sched_setaffinity(0, sizeof(old), &old), 0);
	cr_assert_eq(o.jobs, 1, "%d jobs on one CPU", o.jobs);
}
