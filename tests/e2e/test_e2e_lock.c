// SPDX-License-Identifier: MIT
/*
 * End-to-end: a period whose work starts on time and ends late, because
 * another thread held a lock. tests/workloads/qt_lock is recorded with the
 * real BPF programs; its log is the ground truth (the logger's holds, and
 * each time the player waited for the lock):
 *  - the player is the actor that breaks, its period 10 ms;
 *  - each of its lock waits (3 ms or more) is inside the invocation a
 *    trusted break's critical path goes into, the invocation released on
 *    time by its timer: a wait is not the start of an invocation;
 *  - that path ran through the logger, the break's culprit, and the
 *    report's Diagnosis says the critical path ran through the logger.
 * The player and the logger run at SCHED_FIFO 20: no program at normal
 * priority takes their CPUs from user space. This kernel does not preempt
 * a thread in the kernel, though (PREEMPT_NONE), and the host of this VM
 * stalls its virtual CPUs now and then: a canary on each CPU
 * (tests/lib/e2e_canary.h) witnesses those stalls. A lock wait's break
 * that lies on one may cost more to the thread that held the CPU than to
 * the logger: the report then rightly names that thread; the logger
 * stays the culprit of most of them.
 * Before qostrace knew incidental waits and completion breaks, the same
 * recording named the player's timer as released late, at the wrong
 * invocations, and no break had the logger as its culprit.
 */
#include <stdint.h>
#include <string.h>

#include "actors/actors.h"
#include "analysis/analysis.h"
#include "analysis/diagnosis.h"
#include "critical/critical.h"
#include "e2e_analysis.h"
#include "e2e_canary.h"
#include "e2eutil.h"
#include "testutil.h"
#include "timeline/timeline.h"
#include "file/trace.h"

#define MAXW 32

struct wait {
	int64_t start, locked;
};

static struct {
	int player, logger;
	struct wait w[MAXW];
	size_t nw, nholds;
} lg;

static struct e2e_scratch scratch;
static char trace_path[256], log_path[256], qostrace[256];
static struct e2e_analysis ea;
static struct e2e_stalls stalls;
static const struct actor *player;

static void parse_log(void)
{
	FILE *f = fopen(log_path, "r");
	char line[160];

	cr_assert(f, "qt_lock's log %s missing", log_path);
	memset(&lg, 0, sizeof(lg));
	while (fgets(line, sizeof(line), f)) {
		long long s, l;
		int k;

		if (sscanf(line, "player tid=%d", &lg.player) == 1 || sscanf(line, "logger tid=%d", &lg.logger) == 1)
			continue;
		if (!strncmp(line, "hold ", 5))
			lg.nholds++;
		else if (sscanf(line, "wait iteration=%d start=%lld locked=%lld", &k, &s, &l) == 3 && lg.nw < MAXW)
			lg.w[lg.nw++] = (struct wait){ s, l };
	}
	fclose(f);
	cr_assert(lg.player && lg.logger, "no tids in qt_lock's log");
}

static void record(void)
{
	char workload[256];

	require_recording();
	e2e_scratch_open(&scratch);
	snprintf(trace_path, sizeof(trace_path), "%s/lock.qtrace", scratch.dir);
	snprintf(log_path, sizeof(log_path), "%s/lock.log", scratch.dir);
	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	snprintf(workload, sizeof(workload), "%s/workloads/qt_lock", build_dir());
	{
		/*
		 * Player and logger at SCHED_FIFO 20: a program at normal
		 * priority (apt-get, a build) no longer takes their CPUs, which
		 * made a break's path run through it instead of the logger; the
		 * lock is held and waited for the same at any priority.
		 */
		char *argv[] = { qostrace, "record", "-q", "--force", "-o", trace_path, "--", "/usr/bin/chrt", "-f",
				 "20", workload, log_path, NULL };

		e2e_record_witnessed(&scratch, argv, "lock", 60000, &stalls);
	}
	parse_log();
	e2e_analyse(trace_path, &ea);
	player = e2e_thread_actor(&ea, lg.player, "player");
}

static void cleanup(void)
{
	e2e_analysis_free(&ea);
	e2e_scratch_close(&scratch);
}

TestSuite(e2e_lock, .init = record, .fini = cleanup, .timeout = 90);

Test(e2e_lock, the_player_breaks_its_period)
{
	cr_assert(player->st.periodic, "QCoD %g", player->st.qcod);
	cr_assert(llabs((int64_t)player->st.period_ns - 10000000) < 100000, "period %.0f ns", player->st.period_ns);
	cr_assert_eq(ea.an->actors->upstream, player - ea.an->actors->v, "first to break: %s",
		     ea.an->actors->upstream >= 0 ? ea.an->actors->v[ea.an->actors->upstream].name : "none");
}


Test(e2e_lock, each_lock_wait_is_inside_a_break_blamed_on_the_logger)
{
	size_t long_waits = 0, found = 0, stalled = 0;

	cr_assert_not_null(ea.an->critical);
	for (size_t i = 0; i < lg.nw; i++) {
		const struct wait *w = &lg.w[i];
		const struct actor_break *hit = NULL;
		const struct crit_break *cb;
		size_t b;

		if (w->locked - w->start < 3000000)
			continue;
		long_waits++;
		for (b = 0; b < player->nbreaks && !hit; b++) {
			const struct actor_break *x = &player->breaks[b];
			const struct actor_invocation *iv = &player->inv[actor_break_target(x)];

			if (!x->data_missing && iv->start_ns <= w->start && iv->end_ns >= w->locked)
				hit = x;
		}
		cr_assert_not_null(hit, "the wait at %.3f s (%.2f ms) is in no break's invocation",
				   (w->start - (int64_t)ea.tl->start) / 1e9, (w->locked - w->start) / 1e6);
		/* released on time: the wait is inside, it did not start an invocation */
		cr_assert_lt(w->start - player->inv[actor_break_target(hit)].start_ns, 1000000);
		cb = e2e_break_path(&ea, player, b - 1);
		cr_assert_not_null(cb, "the break at %.3f s has no critical path", (w->start - (int64_t)ea.tl->start) / 1e9);
		if (cb->culprit.thread != CRIT_NONE && ea.tl->threads[cb->culprit.thread].tid == (uint32_t)lg.logger) {
			found++;
			continue;
		}
		/* the machine stalled there: what held the CPU may have cost more than the lock */
		cr_assert(e2e_stalled(&stalls, -1, hit->start_ns, hit->end_ns), "the break at %.3f s blames %s",
			  (w->start - (int64_t)ea.tl->start) / 1e9,
			  cb->culprit.thread != CRIT_NONE ? ea.tl->threads[cb->culprit.thread].comm : "a kind of wait");
		fprintf(stderr, "  the break at %.3f s blames %s, on a stall of the machine\n",
			(w->start - (int64_t)ea.tl->start) / 1e9,
			cb->culprit.thread != CRIT_NONE ? ea.tl->threads[cb->culprit.thread].comm : "a kind of wait");
		stalled++;
	}
	fprintf(stderr, "  %zu holds, %zu lock waits of 3 ms or more, each in a break blamed on the logger: %zu, "
		"on a stall of the machine: %zu (%zu stalls, the worst %.2f ms)\n", lg.nholds, long_waits, found,
		stalled, stalls.n, stalls.worst_ns / 1e6);
	cr_assert_geq(long_waits, 8, "the player waited for the lock %zu times", long_waits);
	cr_assert_gt(found * 2, long_waits, "the logger is the culprit of %zu of %zu waits' breaks", found, long_waits);
}

Test(e2e_lock, the_report_names_the_logger)
{
	char *argv[] = { qostrace, "report", "-v", trace_path, NULL };
	char *txt = e2e_output(argv, &scratch, "report.txt");
	const struct diag_cause *c = &ea.an->diagnosis->cause;

	/* the Diagnosis: "the critical path ran through logger" */
	cr_expect_eq(c->kind, DIAG_CAUSE_CULPRIT, "the Diagnosis names no culprit (%d)", c->kind);
	if (c->kind == DIAG_CAUSE_CULPRIT && (c->thread == CRIT_NONE ||
					      ea.tl->threads[c->thread].tid != (uint32_t)lg.logger)) {
		/* another cause cost the worst breaks more: only where the machine stalled */
		for (size_t i = 0; i < c->nworst; i++) {
			const struct crit_break *b = &ea.an->critical->breaks[c->worst[i]];

			if (b->culprit.thread == c->thread && b->excess_ns > 0)
				cr_expect(e2e_stalled(&stalls, -1, b->path.start_ns, b->path.end_ns),
					  "the Diagnosis blames %s, not on a stall of the machine",
					  timeline__comm_at(ea.tl, c->thread, c->named_at_ns));
		}
		fprintf(stderr, "  the Diagnosis blames %s, on stalls of the machine\n",
			timeline__comm_at(ea.tl, c->thread, c->named_at_ns));
	} else {
		cr_expect_eq(c->how, DIAG_RAN_THROUGH);
	}
	/* the 6 ms holds: the work ended late; the 12 ms ones: the next period's ran late */
	cr_expect(strstr(txt, "started on time, finished late"), "%s", txt);
	cr_expect(strstr(txt, "overran"), "%s", txt);
	free(txt);
}
