// SPDX-License-Identifier: MIT
/*
 * End-to-end: a periodic thread in a cgroup whose CPU quota its heavy
 * periods outgrow. tests/workloads/qt_periodic (10 ms period, 1 ms of CPU
 * each, 10 ms every 20th) runs in a new cgroup allowed 12 ms of CPU per
 * 100 ms, recorded with the real BPF
 * programs. The kernel's own count (the cgroup's cpu.stat) is the ground
 * truth that it was throttled:
 *  - the thread is the actor that breaks, its period 10 ms;
 *  - its worst breaks are held runnable while the CPU ran nothing, and
 *    the time the holdups tell is no more than the kernel's throttled time;
 *  - the Diagnosis says so and suggests CPU bandwidth throttling.
 * Before, the path said "CPU wait", behind nobody.
 * Beside it, outside the cgroup, a second qt_periodic every 45 ms: an
 * unrelated timer that the breaks' windows (up to 7 periods long) hold
 * far more often than the kept periods. Its events must not emerge by
 * themselves or with one other event as what shows up when the period
 * breaks (chance.h); before, "softirq SCHED -> timer wakes periodic" did,
 * in 28 of 29 breaks against 81 of 485 periods. Longer combinations with
 * bursts of SCHED softirqs (the throttled CPU idles and balances) still
 * can, at looser thresholds: an effect of the break, not a length
 * artefact, and not what this checks.
 * On a busy machine: a quota does not apply to real-time threads, so the
 * workload stays SCHED_OTHER, at nice -20 in a cgroup of the largest
 * weight (cpu.shares, cpu.weight): it preempts every program at the normal
 * priority as soon as it wakes, and its period holds but where the group
 * is throttled (at nice 0, stress-ng made its QCoD 0.22: not periodic).
 * While the group is throttled, the CPU runs whatever else is runnable
 * rather than nothing: the trace then shows the thread waiting behind
 * that program, and the report rightly names it; a break held runnable
 * behind a program outside the workload is explained so. On an idle
 * machine, the CPU runs nothing and the report suggests the quota.
 * Needs the cgroup CPU controller (v1 cpu, or v2 with cpu.max): SKIPPED
 * with the reason where it is missing.
 */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/diagnosis.h"
#include "e2e_analysis.h"
#include "e2eutil.h"
#include "actors/holdup.h"
#include "patterns/patterns.h"
#include "testutil.h"

#define QUOTA_US 12000
#define PERIOD_US 100000

static struct e2e_scratch scratch;
static char trace_path[256], log_path[256], bg_log[256], qostrace[256], cg[128];
static bool cg_v2;
static int64_t throttled_ns;
static int tid, bg_tid;
static struct e2e_analysis ea;
static const struct actor *periodic;

static bool put(const char *dir, const char *file, const char *val)
{
	char path[256];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (!f)
		return false;
	ok = fputs(val, f) >= 0;
	return fclose(f) == 0 && ok;
}

/* A new cgroup with the quota (cg), or false and why. */
static bool cg_make(char *why, size_t len)
{
	char val[64];

	if (!access("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", F_OK)) {
		snprintf(cg, sizeof(cg), "/sys/fs/cgroup/cpu/qostrace-test-%d", (int)getpid());
		if (mkdir(cg, 0755) && errno != EEXIST) {
			snprintf(why, len, "mkdir %s: %s", cg, strerror(errno));
			return false;
		}
		snprintf(val, sizeof(val), "%d", PERIOD_US);
		if (put(cg, "cpu.cfs_period_us", val)) {
			snprintf(val, sizeof(val), "%d", QUOTA_US);
			/* the largest weight: the group preempts the others when it may run */
			if (put(cg, "cpu.cfs_quota_us", val) && put(cg, "cpu.shares", "262144"))
				return true;
		}
		snprintf(why, len, "cannot set the quota of %s", cg);
		return false;
	}
	if (!access("/sys/fs/cgroup/cgroup.controllers", F_OK)) {
		cg_v2 = true;
		/* the CPU controller for the root's children; already on where systemd runs */
		put("/sys/fs/cgroup", "cgroup.subtree_control", "+cpu");
		snprintf(cg, sizeof(cg), "/sys/fs/cgroup/qostrace-test-%d", (int)getpid());
		if (mkdir(cg, 0755) && errno != EEXIST) {
			snprintf(why, len, "mkdir %s: %s", cg, strerror(errno));
			return false;
		}
		snprintf(val, sizeof(val), "%d %d", QUOTA_US, PERIOD_US);
		if (put(cg, "cpu.max", val) && put(cg, "cpu.weight", "10000"))
			return true;
		snprintf(why, len, "cannot write %s/cpu.max (no cpu controller?)", cg);
		return false;
	}
	snprintf(why, len, "no cgroup CPU controller mounted at /sys/fs/cgroup");
	return false;
}

/* The cgroup's throttled time, ns, as the kernel counts it. */
static int64_t cg_throttled(void)
{
	char path[256], key[64];
	long long v;
	FILE *f;
	int64_t ns = -1;

	snprintf(path, sizeof(path), "%s/cpu.stat", cg);
	f = fopen(path, "r");
	cr_assert(f, "%s: %s", path, strerror(errno));
	while (fscanf(f, "%63s %lld", key, &v) == 2) {
		if (!cg_v2 && !strcmp(key, "throttled_time"))
			ns = v;
		if (cg_v2 && !strcmp(key, "throttled_usec"))
			ns = v * 1000;
	}
	fclose(f);
	cr_assert_geq(ns, 0, "no throttled time in %s", path);
	return ns;
}

/*
 * Records into the suite's scratch directory once: each test runs in a
 * process of its own, so a kept directory holds the recording and the
 * kernel's throttled time of its cgroup for the next ones.
 */
static void record(void)
{
	char workload[256], script[2048], why[256], done[300], stat[300];
	FILE *f;

	require_recording();
	e2e_scratch_open(&scratch);
	snprintf(trace_path, sizeof(trace_path), "%s/throttle.qtrace", scratch.dir);
	snprintf(log_path, sizeof(log_path), "%s/throttle.log", scratch.dir);
	snprintf(bg_log, sizeof(bg_log), "%s/timer.log", scratch.dir);
	snprintf(done, sizeof(done), "%s/throttle.done", scratch.dir);
	snprintf(stat, sizeof(stat), "%s/throttle.stat", scratch.dir);
	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	snprintf(workload, sizeof(workload), "%s/workloads/qt_periodic", build_dir());
	if (!scratch.keep || access(done, F_OK)) {
		if (!cg_make(why, sizeof(why))) {
			fprintf(stderr, "SKIPPED: %s\n", why);
			cr_skip_test("%s", why);
		}
		/*
		 * The timer starts outside; an inner shell moves itself into the
		 * cgroup, then becomes the workload; both are waited for, so the
		 * timer's log is complete when the recording ends.
		 */
		snprintf(script, sizeof(script),
			 "%s 45000 100 66 %s & sh -c 'echo $$ > %s/cgroup.procs && exec nice -n -20 %s 10000 1000 300 %s "
			 "20 10000'; wait",
			 workload, bg_log, cg, workload, log_path);
		{
			char *argv[] = { qostrace, "record", "-q", "--force", "-o", trace_path, "--", "/bin/sh", "-c",
					 script, NULL };

			e2e_record_once(&scratch, argv, "throttle.done", 60000);
		}
		throttled_ns = cg_throttled();
		/* now, not at the end: a failing test leaves its cgroup otherwise */
		rmdir(cg);
		cg[0] = 0;
		f = fopen(stat, "w");
		cr_assert(f, "%s: %s", stat, strerror(errno));
		fprintf(f, "%lld\n", (long long)throttled_ns);
		fclose(f);
	} else {
		long long v;

		f = fopen(stat, "r");
		cr_assert(f && fscanf(f, "%lld", &v) == 1, "%s: no throttled time", stat);
		fclose(f);
		throttled_ns = v;
	}
	f = fopen(log_path, "r");
	cr_assert(f, "%s missing", log_path);
	cr_assert_eq(fscanf(f, "periodic tid=%d", &tid), 1, "no tid in %s", log_path);
	fclose(f);
	f = fopen(bg_log, "r");
	cr_assert(f, "%s missing", bg_log);
	cr_assert_eq(fscanf(f, "periodic tid=%d", &bg_tid), 1, "no tid in %s", bg_log);
	fclose(f);
	e2e_analyse(trace_path, &ea);
	periodic = e2e_thread_actor(&ea, tid, "periodic thread");
}

static void cleanup(void)
{
	e2e_analysis_free(&ea);
	e2e_scratch_close(&scratch);
	if (cg[0])
		rmdir(cg);
}

TestSuite(e2e_throttle, .init = record, .fini = cleanup, .timeout = 90);

Test(e2e_throttle, the_kernel_throttled_it_and_it_breaks)
{
	cr_assert_gt(throttled_ns, 50000000, "the kernel throttled the cgroup %.1f ms only", throttled_ns / 1e6);
	cr_assert(periodic->st.periodic, "QCoD %g", periodic->st.qcod);
	cr_assert(llabs((int64_t)periodic->st.period_ns - 10000000) < 100000, "period %.0f ns", periodic->st.period_ns);
	cr_assert_eq(ea.an->actors->upstream, periodic - ea.an->actors->v, "first to break: %s",
		     ea.an->actors->upstream >= 0 ? ea.an->actors->v[ea.an->actors->upstream].name : "none");
}

/* Did the break wait for the CPU behind a thread of another program (the report's CPU_BEHIND)? */
static bool behind_another_program(const struct crit_break *b)
{
	const struct crit_share *c = &b->culprit;

	return c->thread != CRIT_NONE && c->held_ns > c->run_ns &&
	       ea.tl->threads[c->thread].pid != ea.tl->threads[periodic->thread].pid;
}

Test(e2e_throttle, its_breaks_are_held_beside_an_idle_cpu)
{
	const struct critical_result *cr = ea.an->critical;
	size_t worst = 0, idle = 0, behind = 0;
	int64_t told = 0;
	/* two breaks can go into one invocation: count each invocation once */
	bool *seen = calloc(periodic->ninv, 1);

	cr_assert_not_null(cr);
	for (size_t i = 0; i < cr->nbreaks; i++) {
		struct holdup h;

		if (cr->breaks[i].actor != (size_t)(periodic - ea.an->actors->v))
			continue;
		if (critical__break_holdup(ea.an->actors, &cr->breaks[i], &h) && h.why == HOLDUP_CPU_IDLE) {
			size_t target = actor_break_target(&periodic->breaks[cr->breaks[i].brk]);

			told += seen[target] ? 0 : h.told_ns;
			seen[target] = true;
			idle += worst < 5;
		} else if (worst < 5 && behind_another_program(&cr->breaks[i])) {
			behind++;
			fprintf(stderr, "  a worst break waited behind %s: the CPU was not idle while throttled\n",
				ea.tl->threads[cr->breaks[i].culprit.thread].comm);
		}
		worst++;
	}
	fprintf(stderr, "  throttled %.1f ms (cpu.stat); of the 5 worst breaks %zu held beside an idle CPU (the "
		"invocations they hold %.1f ms), %zu behind another program\n", throttled_ns / 1e6, idle,
		told / 1e6, behind);
	free(seen);
	cr_assert_geq(idle + behind, 3, "%zu of the 5 worst breaks held beside an idle CPU, %zu behind another "
		      "program", idle, behind);
	/* the idle time a holdup tells is time the kernel throttled the group */
	cr_assert_leq(told, throttled_ns + throttled_ns / 10 + 5000000, "holdups %.1f ms, throttled %.1f ms",
		      told / 1e6, throttled_ns / 1e6);
}

/*
 * "it was runnable while its CPU ran nothing ...: CPU bandwidth
 * throttling?": the Diagnosis's holdup beside an idle CPU, which the text
 * report renders with the suggestion (tests/unit/analysis/test_diagnosis.c).
 */
Test(e2e_throttle, the_report_suggests_throttling)
{
	const struct diag_cause *c = &ea.an->diagnosis->cause;

	/* the CPU ran another program while throttled: the report names it (see the top) */
	if (c->kind == DIAG_CAUSE_CULPRIT && c->how == DIAG_CPU_BEHIND && c->thread != CRIT_NONE &&
	    ea.tl->threads[c->thread].pid != ea.tl->threads[periodic->thread].pid) {
		fprintf(stderr, "  the Diagnosis: it waited for the CPU behind %s, not idle while throttled\n",
			timeline__comm_at(ea.tl, c->thread, c->named_at_ns));
		return;
	}
	cr_expect_eq(c->kind, DIAG_CAUSE_HELD, "the Diagnosis names no holdup (%d)", c->kind);
	cr_expect_eq(c->why, HOLDUP_CPU_IDLE);
	cr_expect_str_eq(c->state ? c->state : "", "throttled");
}

/* The JSON report with its holdups matches the schema, and says "throttled". */
Test(e2e_throttle, the_json_report_matches_the_schema_with_its_holdups)
{
	char *doc = e2e_validated_report(trace_path, &scratch);
	/* the breaks' holdups are in the critical section; the diagnosis, before it, has a "state" too */
	const char *crit = strstr(doc, "\n  \"critical\": {");

	const struct critical_result *cr = ea.an->critical;
	bool idle = false;

	cr_assert_not_null(crit, "no critical section");
	for (size_t i = 0; i < cr->nbreaks && !idle; i++) {
		struct holdup h;

		idle = critical__break_holdup(ea.an->actors, &cr->breaks[i], &h) && h.why == HOLDUP_CPU_IDLE;
	}
	/* a break held beside an idle CPU (none where the CPU ran other programs while throttled) */
	cr_expect_eq(!!strstr(crit, "\"state\": \"throttled\""), idle, "the holdups in JSON are not the analysis's");
	if (ea.an->diagnosis->cause.kind == DIAG_CAUSE_HELD)
		cr_expect(strstr(doc, "\"holdup\": \"cpu_idle\""), "the diagnosis names no idle CPU");
	else	/* the CPU ran another program while throttled (the_report_suggests_throttling) */
		cr_expect(strstr(doc, "\"how\": \"cpu_wait_behind\""), "the diagnosis names neither");
	free(doc);
}

/* Whether the timer thread starts a run in [a, b). */
static bool timer_runs_in(uint32_t bg, int64_t a, int64_t b)
{
	const struct tl_thread *th = &ea.tl->threads[bg];

	for (size_t i = th->run0; i < th->run0 + th->nrun; i++) {
		int64_t s = (int64_t)ea.tl->runs[i].start;

		if (s >= a && s < b)
			return true;
	}
	return false;
}

Test(e2e_throttle, a_timer_beside_it_does_not_emerge)
{
	const struct patterns_result *pr = ea.an->patterns;
	uint32_t bg = TL_NONE;
	size_t brk = 0, brk_in = 0, kept = 0, kept_in = 0;

	for (size_t i = 0; i < ea.tl->nthreads; i++)
		if (ea.tl->threads[i].tid == (uint32_t)bg_tid)
			bg = (uint32_t)i;
	cr_assert_neq(bg, TL_NONE, "the timer thread %d is not in the recording", bg_tid);
	/* The windows mined: the breaks late by a tenth of the period or more, the kept periods. */
	for (size_t b = 0; b < periodic->nbreaks; b++) {
		const struct actor_break *x = &periodic->breaks[b];

		if (x->kind != BREAK_START || x->data_missing || x->lateness_ns * 10 < (int64_t)periodic->st.period_ns)
			continue;
		brk++;
		brk_in += timer_runs_in(bg, x->start_ns, x->end_ns);
	}
	for (size_t k = 0; k + 1 < periodic->ninv; k++) {
		int64_t len = periodic->inv[k + 1].start_ns - periodic->inv[k].start_ns;

		if ((double)len > periodic->st.fence_ns)
			continue;
		kept++;
		kept_in += timer_runs_in(bg, periodic->inv[k].start_ns, periodic->inv[k + 1].start_ns);
	}
	fprintf(stderr, "  the 45 ms timer runs in %zu of %zu breaks' windows, %zu of %zu kept periods\n", brk_in, brk,
		kept_in, kept);
	/* within the search's reach by plain counts: in half the breaks or more (its delta floor),
	 * in a quarter of the kept periods or fewer (its alpha ceiling) */
	cr_assert_geq(brk, 5);
	cr_assert_geq(brk_in * 2, brk, "%zu of %zu breaks", brk_in, brk);
	cr_assert_leq(kept_in * 4, kept, "%zu of %zu kept periods", kept_in, kept);
	cr_assert_not_null(pr);
	/* the actor's own activity is left out: "periodic" there is the timer's */
	for (size_t i = 0; i < pr->n; i++)
		for (uint32_t k = 0; k < pr->v[i].len && pr->v[i].len <= 2; k++)
			cr_expect_null(strstr(pr->v[i].events[k], "periodic"), "pattern %zu holds %s (in %u/%u, %u/%u)",
				       i + 1, pr->v[i].events[k], pr->v[i].count_pos, pr->v[i].breaks,
				       pr->v[i].count_neg, pr->nneg);
}
