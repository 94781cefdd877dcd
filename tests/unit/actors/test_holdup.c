// SPDX-License-Identifier: MIT
/*
 * The holdup of an invocation: a recorder's writer whose writev() the
 * kernel holds (tests/lib/synth_writer.h) is held in that call, blocked, for
 * exactly the time the construction keeps it off its CPU; asleep or
 * preempted instead, the holdup says so or leaves the story to the
 * critical path; and on random runs and calls it agrees with a
 * nanosecond-by-nanosecond count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "analysis/analysis.h"
#include "analysis/diagnosis.h"
#include "critical/critical.h"
#include "actors/holdup.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "report/report.h"
#include "summary_text.h"
#include "synth_writer.h"
#include "testutil.h"
#include "timeline/timeline.h"

struct world {
	struct trace *t;
	struct timeline *tl;
	struct analysis *a;
	const struct actor *writer;
};

static void world_open(struct world *w, const struct writer_cfg *c)
{
	struct analysis_opts o;

	log_level = LOG_QUIET;
	memset(w, 0, sizeof(*w));
	w->t = writer_trace(c);
	cr_assert_eq(timeline__build(w->t, NULL, &w->tl), 0);
	analysis_opts_default(&o);
	cr_assert_eq(analysis__run_trace(w->t, w->tl, &o, &w->a), 0);
	for (size_t i = 0; i < w->a->actors->n; i++)
		if (!strcmp(w->a->actors->v[i].comm, "writer"))
			w->writer = &w->a->actors->v[i];
	cr_assert_not_null(w->writer, "the writer is not an actor");
}

static void world_close(struct world *w)
{
	analysis__free(w->a);
	timeline__free(w->tl);
	trace__free(w->t);
}

/* The writer's row in the Diagnosis (it breaks), and how many rows say the delay propagates. */
static const struct diag_actor *writer_row(const struct world *w, size_t *propagating)
{
	const struct diagnosis *d = w->a->diagnosis;
	const struct diag_actor *row = NULL;

	*propagating = 0;
	for (size_t i = 0; i < d->nrows; i++) {
		if (d->rows[i].actor == (size_t)(w->writer - w->a->actors->v))
			row = &d->rows[i];
		*propagating += d->rows[i].downstream && d->rows[i].after;
	}
	cr_assert_not_null(row, "the writer has no row in the Diagnosis");
	return row;
}

/* The construction's off-CPU time inside a stall that starts its run at a. */
static int64_t stall_off_ns(const struct writer_cfg *c, uint64_t a)
{
	uint64_t w = a + 100 * WR_US + c->stall_ns, t = a + 200 * WR_US;
	int64_t off = 0;

	while (t + 2 * WR_MS + 10 * WR_US < w) {
		off += 2 * WR_MS;
		t += 2 * WR_MS + 10 * WR_US;
	}
	return off + (int64_t)(w - t);
}

/* The stall period whose run starts at a, or SIZE_MAX. */
static size_t stall_at(const struct writer_cfg *c, int64_t a)
{
	for (size_t k = 0; k < c->periods; k++)
		if (writer_stall(c, k) && (int64_t)(writer_woken(c, k) + 10 * WR_US) == a)
			return k;
	return SIZE_MAX;
}

static const struct writer_cfg blocked_cfg = {
	.periods = 120, .every = 20, .stall_ns = 22 * WR_MS, .how = SYN_BLOCK, .syscalls = true,
};

Test(holdup, a_held_writev_is_named_with_its_exact_time)
{
	struct world w;
	size_t told = 0;

	world_open(&w, &blocked_cfg);
	cr_assert_gt(w.writer->nbreaks, 0);
	for (size_t i = 0; i < w.writer->nbreaks; i++) {
		const struct actor_break *b = &w.writer->breaks[i];
		const struct actor_invocation *inv = &w.writer->inv[actor_break_target(b)];
		struct holdup h;
		size_t k = stall_at(&blocked_cfg, inv->start_ns);
		uint64_t a = (uint64_t)inv->start_ns;
		char desc[64];

		cr_assert_neq(k, SIZE_MAX, "break %zu goes into invocation %zu at %ld, not a stall", i,
			      actor_break_target(b), (long)inv->start_ns);
		cr_assert(holdup__explains(w.tl, w.writer, b, &h), "break %zu", i);
		cr_assert_eq(h.call_nr, WR_NR_WRITEV);
		cr_assert_eq(h.call_arg0, WR_FD);
		cr_assert_eq(h.call_start_ns, (int64_t)(a + 100 * WR_US));
		cr_assert_eq(h.call_end_ns, (int64_t)(a + 100 * WR_US + blocked_cfg.stall_ns));
		cr_assert_eq(h.call_blocked_ns, stall_off_ns(&blocked_cfg, a));
		cr_assert_eq(h.call_off_ns, h.call_blocked_ns);
		cr_assert_eq(h.call_sleep_ns, 0);
		cr_assert_eq(h.off_ns, h.blocked_ns, "off %ld blocked %ld asleep %ld runnable %ld", (long)h.off_ns,
			     (long)h.blocked_ns, (long)h.sleep_ns, (long)h.runnable_ns);
		cr_assert_eq(h.blocked_ns, h.call_blocked_ns, "no off-CPU time outside the call");
		cr_assert_str_eq(holdup__state(&h), "blocked");
		holdup__describe(&h, "x86_64", desc, sizeof(desc));
		cr_assert(strstr(desc, "blocked in writev()"), "%s", desc);
		told++;
	}
	cr_assert_eq(told, 6, "%zu breaks told, one per stall", told);
	world_close(&w);
}

Test(holdup, the_break_text_and_the_diagnosis_name_the_call)
{
	struct world w;
	size_t told = 0;

	world_open(&w, &blocked_cfg);
	for (size_t i = 0; i < w.a->critical->nbreaks; i++) {
		struct holdup h;
		char desc[64];

		if (critical__break_holdup(w.a->actors, &w.a->critical->breaks[i], &h)) {
			holdup__describe(&h, trace__arch(w.a->trace), desc, sizeof(desc));
			cr_assert(strstr(desc, "blocked in writev()"), "%s", desc);
			told++;
		}
	}
	cr_assert_eq(told, 6);
	{
		/* the Diagnosis: "it was blocked in writev() (21.x ms ...)" */
		const struct diag_cause *c = &w.a->diagnosis->cause;
		char b[32];

		cr_expect_eq(c->kind, DIAG_CAUSE_HELD);
		cr_expect_eq(c->why, HOLDUP_IN_CALL);
		cr_expect_eq(c->call_nr, WR_NR_WRITEV);
		cr_expect_str_eq(c->state, "blocked");
		cr_expect(!strncmp(fmt_duration(b, sizeof(b), c->min_ns), "21.", 3), "%s", b);
	}
	world_close(&w);
}

Test(holdup, asleep_in_the_call_is_said_so)
{
	struct writer_cfg c = blocked_cfg;
	struct world w;
	struct holdup h;

	c.how = SYN_SLEEP;
	world_open(&w, &c);
	cr_assert_gt(w.writer->nbreaks, 0);
	cr_assert(holdup__explains(w.tl, w.writer, &w.writer->breaks[0], &h));
	cr_assert_eq(h.call_nr, WR_NR_WRITEV);
	cr_assert_eq(h.call_blocked_ns, 0);
	cr_assert_gt(h.call_sleep_ns, 20 * WR_MS);
	cr_assert_str_eq(holdup__state(&h), "asleep");
	world_close(&w);
}

/* Blocked with no call recorded: the kernel held it, and that is all one can say. */
Test(holdup, blocked_outside_a_recorded_call)
{
	struct writer_cfg c = blocked_cfg;
	struct world w;
	struct holdup h;
	char desc[64];

	c.syscalls = false;
	world_open(&w, &c);
	cr_assert_gt(w.writer->nbreaks, 0);
	cr_assert(holdup__explains(w.tl, w.writer, &w.writer->breaks[0], &h));
	cr_assert_eq(h.call_nr, HOLDUP_NO_CALL);
	cr_assert_gt(h.blocked_ns, 20 * WR_MS);
	holdup__describe(&h, "x86_64", desc, sizeof(desc));
	cr_assert(strstr(desc, "blocked in the kernel"), "%s", desc);
	world_close(&w);
}

/* Preempted inside the call: a CPU wait, which the critical path explains (the hog). */
Test(holdup, a_cpu_wait_is_left_to_the_critical_path)
{
	struct writer_cfg c = blocked_cfg;
	struct world w;

	c.how = SYN_PREEMPT;
	world_open(&w, &c);
	cr_assert_gt(w.writer->nbreaks, 0);
	for (size_t i = 0; i < w.writer->nbreaks; i++) {
		struct holdup h;

		cr_assert_not(holdup__explains(w.tl, w.writer, &w.writer->breaks[i], &h), "break %zu", i);
		if (w.writer->breaks[i].overrun_ns > 0)
			cr_assert_gt(h.runnable_ns, 20 * WR_MS);
	}
	world_close(&w);
}

/*
 * Preempted with nothing else to run (a cgroup's CPU quota spent): the
 * CPU idles while the writer waits for it, which is what the holdup says,
 * to the nanosecond; the Diagnosis suggests throttling.
 */
Test(holdup, runnable_beside_an_idle_cpu_is_throttling)
{
	struct writer_cfg c = blocked_cfg;
	struct world w;
	size_t told = 0;
	const struct diag_cause *dc;
	char *buf, dur[32];

	c.how = SYN_PREEMPT;
	c.throttled = true;
	c.syscalls = false;
	world_open(&w, &c);
	for (size_t i = 0; i < w.writer->nbreaks; i++) {
		const struct actor_break *b = &w.writer->breaks[i];
		const struct actor_invocation *inv = &w.writer->inv[actor_break_target(b)];
		struct holdup h;
		char desc[96];

		cr_assert(holdup__explains(w.tl, w.writer, b, &h), "break %zu", i);
		cr_assert_eq(h.why, HOLDUP_CPU_IDLE);
		cr_assert_eq(h.runnable_idle_ns, stall_off_ns(&c, (uint64_t)inv->start_ns));
		cr_assert_eq(h.runnable_idle_ns, h.runnable_ns);
		cr_assert_str_eq(holdup__state(&h), "throttled");
		holdup__describe(&h, "x86_64", desc, sizeof(desc));
		cr_assert(strstr(desc, "runnable on an idle CPU (CPU quota throttling?)"), "%s", desc);
		told++;
	}
	cr_assert_eq(told, 6);
	dc = &w.a->diagnosis->cause;
	cr_expect_eq(dc->kind, DIAG_CAUSE_HELD);
	cr_expect_eq(dc->why, HOLDUP_CPU_IDLE);
	cr_expect_str_eq(dc->state, "throttled");
	cr_expect(!strncmp(fmt_duration(dur, sizeof(dur), dc->min_ns), "21.", 3), "%s", dur);
	/* and as the report says it */
	buf = summary_text(w.a);
	cr_expect(strstr(buf, "it was runnable while its CPU ran nothing (21."), "%s", buf);
	cr_expect(strstr(buf, "CPU bandwidth throttling"), "%s", buf);
	free(buf);
	world_close(&w);
}

/*
 * A camera 400 us late every 7th period (jitter on 10 ms) feeds the
 * writer, whose stalls are major: the writer is the one to explain, and the
 * camera's jitter does not propagate to it: the camera does not break its
 * period at all, its jitter counted apart.
 */
Test(holdup, a_writer_stalling_after_a_jittery_source_is_the_answer)
{
	struct writer_cfg c = blocked_cfg;
	struct world w;
	const struct actors_result *ar;
	const struct actor *cam = NULL;
	const struct diagnosis *d;
	size_t propagating;

	c.camera = true;
	world_open(&w, &c);
	ar = w.a->actors;
	for (size_t i = 0; i < ar->n; i++)
		if (!strcmp(ar->v[i].comm, "camera"))
			cam = &ar->v[i];
	cr_assert_not_null(cam);
	cr_assert_gt(cam->njitter, 0, "the camera's jitter makes breaks");
	cr_assert_eq(cam->nmajor, 0);
	cr_assert_eq(cam->nbreaks, cam->njitter + cam->nbreaks_missing);
	cr_assert_lt(cam->worst_jitter_ns * 10, (int64_t)cam->st.period_ns, "all jitter");
	cr_assert_eq(cam->worst_jitter_ns, cam->worst_lateness_ns);
	cr_assert_eq(cam->min_late_ns, (int64_t)(ACTORS_DEFAULT_MIN_LATE * cam->st.period_ns), "the default cut");
	cr_assert_not(cam->breaking, "jitter is no break");
	cr_assert_not(w.writer->fed, "no breaking actor feeds the writer");
	cr_assert_str_eq(ar->v[ar->upstream].comm, "writer");
	/* "1. writer/101 is the first to break", no "the delay propagates" */
	d = w.a->diagnosis;
	cr_expect_eq(d->answer, DIAG_UPSTREAM);
	cr_expect_str_eq(ar->v[d->upstream].name, "writer/101");
	writer_row(&w, &propagating);
	cr_expect_eq(propagating, 0);
	world_close(&w);
}

/*
 * Random runs of one thread and random calls between them against a count
 * of every nanosecond: each gap's time goes to its kind, and to the call it
 * lies in; the call with the most is the one named.
 */
Test(holdup, agrees_with_a_count_of_every_nanosecond)
{
	srand(7);
	for (int round = 0; round < 200; round++) {
		struct timeline tl = { 0 };
		struct tl_thread th = { 0 };
		struct tl_run runs[12];
		struct tl_syscall sc[12];
		size_t nr = 2 + (size_t)rand() % 10, ns = 0;
		uint64_t t = 1000;
		int64_t kind[3] = { 0, 0, 0 }, best = 0, per[12] = { 0 }, per_bl[12] = { 0 }, per_sl[12] = { 0 };
		long best_call = -1;
		struct holdup h;

		for (size_t i = 0; i < nr; i++) {
			runs[i] = (struct tl_run){ .start = t, .end = t + 1 + (uint64_t)(rand() % 50),
						   .end_state = (uint8_t)(rand() % 3) };
			t = runs[i].end + (uint64_t)(rand() % 4 ? rand() % 100 : 0);
		}
		/* calls: from inside a run to inside a later (or the same) run, never nested */
		for (size_t i = 0; i < nr && ns < 12; i++) {
			size_t j = i + (size_t)rand() % 3;

			if (rand() % 2 || j >= nr)
				continue;
			sc[ns] = (struct tl_syscall){ .start = runs[i].start + (runs[i].end - runs[i].start) / 2,
						      .end = runs[j].start + (runs[j].end - runs[j].start) / 2,
						      .nr = (uint32_t)ns, .arg0 = ns };
			if (sc[ns].end <= sc[ns].start)
				sc[ns].end = sc[ns].start + 1;
			ns++;
			i = j;
		}
		th.sc0 = 0;
		th.nsc = ns;
		tl.threads = &th;
		tl.nthreads = 1;
		tl.runs = runs;
		tl.nruns = nr;
		tl.sc = sc;
		tl.nsc = ns;
		for (size_t i = 0; i + 1 < nr; i++) {
			for (uint64_t x = runs[i].end; x < runs[i + 1].start; x++) {
				uint8_t st = runs[i].end_state;

				kind[st == QT_END_PREEMPTED ? 0 : st == QT_END_BLOCKED ? 2 : 1]++;
				for (size_t c = 0; c < ns; c++) {
					if (sc[c].start <= runs[i].end && x < sc[c].end) {
						per[c]++;
						per_bl[c] += st == QT_END_BLOCKED;
						per_sl[c] += st == QT_END_SLEEP;
					}
				}
			}
		}
		for (size_t c = 0; c < ns; c++)
			if (per[c] > best) {
				best = per[c];
				best_call = (long)c;
			}
		holdup__of_runs(&tl, 0, nr - 1, &h);
		cr_assert_eq(h.runnable_ns, kind[0], "round %d", round);
		cr_assert_eq(h.sleep_ns, kind[1], "round %d", round);
		cr_assert_eq(h.blocked_ns, kind[2], "round %d", round);
		cr_assert_eq(h.off_ns, kind[0] + kind[1] + kind[2], "round %d", round);
		if (best_call < 0) {
			cr_assert_eq(h.call_nr, HOLDUP_NO_CALL, "round %d", round);
			continue;
		}
		cr_assert_eq(h.call_off_ns, best, "round %d", round);
		/* ties between calls: the first one reaching the most is named */
		cr_assert_eq(per[h.call_nr], best, "round %d", round);
		cr_assert_eq(h.call_blocked_ns, per_bl[h.call_nr], "round %d", round);
		cr_assert_eq(h.call_sleep_ns, per_sl[h.call_nr], "round %d", round);
	}
}

/*
 * Both break for real (the camera 2 ms late, 20 % of its period): the
 * writer breaks after each of the camera's breaks, and on its own when it
 * stalls. The report says both, with the counts.
 */
Test(holdup, a_downstream_actor_breaking_on_its_own_too_is_said_so)
{
	struct writer_cfg c = blocked_cfg;
	struct world w;
	const struct actor *cam;
	const struct diag_actor *row;
	size_t cam_breaks = 0, propagating;
	char dur[32];

	c.camera = true;
	c.cam_jitter_ns = 2 * WR_MS;
	world_open(&w, &c);
	cam = &w.a->actors->v[w.a->actors->upstream];
	cr_assert_str_eq(cam->comm, "camera");
	for (size_t k = 0; k < c.periods; k++)
		cam_breaks += camera_late(&c, k) > 0;
	row = writer_row(&w, &propagating);
	/* every camera break is followed by one of the writer, but the ones the writer's stalls swallowed */
	cr_expect(row->downstream && row->after > 0 && row->own > 0, "after %zu, own %zu", row->after, row->own);
	cr_expect_eq(propagating, 1);
	/* "breaking on their own too (not after its breaks): writer 6 times; the worst 2..." */
	cr_expect(row->on_its_own);
	cr_expect_eq(row->own_major, 6);
	cr_expect_eq(w.a->diagnosis->own_worst, row - w.a->diagnosis->rows);
	cr_expect_eq(fmt_duration(dur, sizeof(dur), row->own_worst_ns)[0], '2', "%s", dur);
	cr_expect_geq(cam->nbreaks, cam_breaks - 2, "camera: %zu breaks of %zu late periods", cam->nbreaks, cam_breaks);
	world_close(&w);
}

/* Without stalls, every break of the writer follows one of the camera. */
Test(holdup, a_downstream_break_after_the_upstream_one_propagates)
{
	struct writer_cfg c = blocked_cfg;
	struct world w;
	const struct diag_actor *row;
	size_t propagating;

	c.camera = true;
	c.cam_jitter_ns = 3 * WR_MS;
	c.every = SIZE_MAX;
	world_open(&w, &c);
	cr_assert_str_eq(w.a->actors->v[w.a->actors->upstream].comm, "camera");
	/* "the delay propagates to writer.": all of its breaks, and nothing more to say */
	row = writer_row(&w, &propagating);
	cr_expect(row->downstream && row->after > 0);
	cr_expect_eq(row->own, 0);
	cr_expect_eq(propagating, 1);
	cr_expect_eq(w.a->diagnosis->own_worst, -1);
	world_close(&w);
}

/*
 * The idle time of the CPU a preempted thread waits for, on random runs of
 * it and of another thread on that CPU, against a count of every
 * nanosecond.
 */
Test(holdup, idle_cpu_time_agrees_with_a_count_of_every_nanosecond)
{
	srand(11);
	for (int round = 0; round < 200; round++) {
		struct tl_thread th[2] = { { 0 }, { 0 } };
		struct tl_run runs[40];
		uint32_t by_cpu[40];
		size_t cpu_run0[2], n0 = 2 + (size_t)rand() % 10, n = n0, nb = 0;
		struct timeline tl = { 0 };
		uint64_t t = 1000;
		int64_t want = 0;
		struct holdup h;

		for (size_t i = 0; i < n0; i++) {
			runs[i] = (struct tl_run){ .start = t, .end = t + 1 + (uint64_t)(rand() % 50),
						   .end_state = (uint8_t)(rand() % 3) };
			t = runs[i].end + (uint64_t)(rand() % 100);
		}
		/* the other thread runs in some gaps, anywhere inside them */
		for (size_t i = 0; i + 1 < n0 && n < 40; i++) {
			uint64_t g0 = runs[i].end, g1 = runs[i + 1].start;

			while (g1 > g0 + 2 && rand() % 2 && n < 40) {
				uint64_t a = g0 + (uint64_t)rand() % (g1 - g0 - 1), b = a + 1 + (uint64_t)rand() % (g1 - a - 1);

				runs[n++] = (struct tl_run){ .start = a, .end = b, .thread = 1, .end_state = QT_END_SLEEP };
				g0 = b;
			}
		}
		/* by CPU in time order: merge the two threads' (each in time order) */
		for (size_t i = 0, j = n0; i < n0 || j < n;)
			by_cpu[nb++] = (uint32_t)(j >= n || (i < n0 && runs[i].start < runs[j].start) ? i++ : j++);
		cpu_run0[0] = 0;
		cpu_run0[1] = n;
		th[0].run0 = 0;
		th[0].nrun = n0;
		tl.threads = th;
		tl.nthreads = 2;
		tl.runs = runs;
		tl.nruns = n;
		tl.runs_by_cpu = by_cpu;
		tl.cpu_run0 = cpu_run0;
		tl.ncpus = 1;
		for (size_t i = 0; i + 1 < n0; i++) {
			if (runs[i].end_state != QT_END_PREEMPTED)
				continue;
			for (uint64_t x = runs[i].end; x < runs[i + 1].start; x++) {
				bool busy = false;

				for (size_t j = n0; j < n; j++)
					busy = busy || (runs[j].start <= x && x < runs[j].end);
				want += !busy;
			}
		}
		holdup__of_runs(&tl, 0, n0 - 1, &h);
		cr_assert_eq(h.runnable_idle_ns, want, "round %d: %ld, counted %ld", round, (long)h.runnable_idle_ns,
			     (long)want);
	}
}
