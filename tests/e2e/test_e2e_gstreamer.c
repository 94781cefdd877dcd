/*
 * End-to-end on a real GStreamer pipeline, what qostrace is for: a live
 * audio source of 10 ms buffers (audiotestsrc, 480 samples at 48 kHz)
 * through a queue to a sink that waits on the pipeline clock, run by
 * gst-launch-1.0 at real-time priority 5 on CPU 1, while a disturber of
 * this test's own takes CPU 1 at priority 10 for 25 ms every 500 ms and
 * logs when. GStreamer logs nothing here; the disturber's log is the ground
 * truth:
 *  - audiotestsrc's streaming thread is an actor, its period 10 ms within
 *    1 %; every disturbance while the pipeline ran is inside a break of it,
 *    5 ms late or more, and a break that large is on a disturbance;
 *  - the first to break is a streaming thread of the pipeline: the source's
 *    or the queue's, which the same disturbance delays together. Both are
 *    woken by the clock, neither wakes the other, so the recording cannot
 *    say which feeds which (the source does, through the queue's buffer);
 *  - the critical path of the first one's worst break waited for the CPU
 *    behind the disturber, and `qostrace report` says so in its Diagnosis.
 * The suite e2e_gstreamer_all records the same system-wide (-a), where
 * every thread is a target: the answers are the same, and no kernel thread
 * is an actor (rcu_preempt was once "first to break" in such a recording).
 * SKIPPED with the reason without gst-launch-1.0 and its elements
 * (scripts/install-deps.sh installs them), or where recording is refused.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <time.h>

#include "actors/actors.h"
#include "analysis/analysis.h"
#include "analysis/diagnosis.h"
#include "critical/critical.h"
#include "e2eutil.h"
#include "testutil.h"
#include "timeline/timeline.h"
#include "file/trace.h"

#define PERIOD_NS 10000000LL
#define BUFFERS "300"			/* 3 s of audio */
#define EVERY_NS 500000000LL
#define LENGTH_NS 25000000LL
#define MAXD 32
#define CPU 1

static const char *const gst_launch = "/usr/bin/gst-launch-1.0";

struct span {
	int64_t start, end;
};

static struct {
	int tid;
	struct span d[MAXD];
	size_t n;
} lg;

static struct e2e_scratch scratch;
static char trace_path[256], log_path[256], qostrace[256];
static struct trace *tr;
static struct timeline *tl;
static struct analysis *an;
static const struct actor *src, *first_to_break;
static bool all;			/* record -a */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * The disturber: on CPU 1 at SCHED_FIFO 10, busy for 25 ms every 500 ms
 * until killed; one log line after each. It says "nofifo" and stops when
 * it cannot have the priority (then nothing would be disturbed).
 */
static pid_t start_disturber(void)
{
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0) {
		struct sched_param sp = { .sched_priority = 10 };
		FILE *f = fopen(log_path, "w");
		cpu_set_t set;
		int64_t t0;

		if (!f)
			_exit(1);
		setvbuf(f, NULL, _IOLBF, 0);
		prctl(PR_SET_NAME, "disturber");
		CPU_ZERO(&set);
		CPU_SET(CPU, &set);
		if (sched_setaffinity(0, sizeof(set), &set) || sched_setscheduler(0, SCHED_FIFO, &sp)) {
			fprintf(f, "nofifo errno=%d\n", errno);
			_exit(1);
		}
		fprintf(f, "tid=%d\n", (int)getpid());
		t0 = now_ns();
		for (int64_t k = 1;; k++) {
			int64_t at = t0 + k * EVERY_NS, s;
			struct timespec ts = { .tv_sec = at / 1000000000LL, .tv_nsec = at % 1000000000LL };

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			s = now_ns();
			while (now_ns() < s + LENGTH_NS)
				;
			fprintf(f, "disturb start=%lld end=%lld\n", (long long)s, (long long)now_ns());
		}
	}
	return pid;
}

static void parse_log(void)
{
	FILE *f = fopen(log_path, "r");
	char line[128];

	cr_assert(f, "disturber log %s missing", log_path);
	memset(&lg, 0, sizeof(lg));
	while (fgets(line, sizeof(line), f)) {
		long long s, e;

		cr_assert(strncmp(line, "nofifo", 6), "the disturber could not run at SCHED_FIFO 10: %s", line);
		if (sscanf(line, "tid=%d", &lg.tid) == 1)
			continue;
		if (sscanf(line, "disturb start=%lld end=%lld", &s, &e) == 2 && lg.n < MAXD)
			lg.d[lg.n++] = (struct span){ s, e };
	}
	fclose(f);
	cr_assert(lg.tid, "no tid in the disturber's log");
}

/* gst-launch-1.0 and the four elements, or SKIPPED saying what is missing. */
static void require_gstreamer(void)
{
	static const char *const elements[] = { "audiotestsrc", "queue", "audioconvert", "fakesink" };
	char inspect[] = "/usr/bin/gst-inspect-1.0";

	if (access(gst_launch, X_OK) || access(inspect, X_OK)) {
		fprintf(stderr, "SKIPPED: no %s (scripts/install-deps.sh installs GStreamer)\n", gst_launch);
		cr_skip_test("no %s", gst_launch);
	}
	for (size_t i = 0; i < sizeof(elements) / sizeof(elements[0]); i++) {
		char *argv[] = { inspect, (char *)elements[i], NULL };

		if (e2e_run(argv, NULL, true, 30000)) {
			fprintf(stderr, "SKIPPED: no GStreamer element %s (gstreamer1.0-plugins-base)\n", elements[i]);
			cr_skip_test("no GStreamer element %s", elements[i]);
		}
	}
}

/*
 * Is the break on a disturbance (a period either side: the buffer after a
 * late one may come early or late too)?
 */
static bool on_disturbance(const struct actor_break *x)
{
	for (size_t d = 0; d < lg.n; d++)
		if (x->start_ns <= lg.d[d].end + PERIOD_NS && x->end_ns >= lg.d[d].start - PERIOD_NS)
			return true;
	return false;
}

/*
 * Breaks of the source 5 ms late or more, on no disturbance, while its CPU
 * ran less than a millisecond in all from when it was due until a
 * millisecond before it ran: the machine's host did not deliver its timer
 * (seen on this VM: both streaming threads' timed waits returned 7.6 ms
 * late together, CPU 1 idle). Any run at all there hid such a stall from
 * an earlier version of this check, which wanted none (a break 5.07 ms
 * late on no disturbance failed a run; its recording was not kept). The
 * disturber's log cannot know of them; such a recording is made again.
 */
static size_t host_stalls(void)
{
	size_t n = 0;

	for (size_t b = 0; b < src->nbreaks; b++) {
		const struct actor_break *x = &src->breaks[b];
		int64_t due = x->start_ns + PERIOD_NS, late = x->end_ns - 1000000, busy = 0;

		if (x->kind != BREAK_START || x->lateness_ns < PERIOD_NS / 2 || on_disturbance(x) ||
		    (int)tl->ncpus <= CPU)
			continue;
		for (size_t i = tl->cpu_run0[CPU]; i < tl->cpu_run0[CPU + 1]; i++) {
			const struct tl_run *r = &tl->runs[tl->runs_by_cpu[i]];
			int64_t s = (int64_t)r->start > due ? (int64_t)r->start : due;
			int64_t e = (int64_t)r->end < late ? (int64_t)r->end : late;

			busy += e > s ? e - s : 0;
		}
		n += busy < 1000000;
	}
	return n;
}

/* Records (unless kept from before) and analyses the pipeline into tr, tl, an, src, first_to_break. */
static bool record_and_analyse(const char *done)
{
	char cpu[8], err[512];
	struct analysis_opts o;
	bool recorded = false;
	pid_t dist;
	int status = 0;

	snprintf(cpu, sizeof(cpu), "%d", CPU);
	if (!scratch.keep || access(done, F_OK)) {
		const char *const pipeline[] = { "/usr/bin/chrt", "-f", "5", "/usr/bin/taskset", "-c", NULL,
							gst_launch, "-q", "audiotestsrc", "is-live=true",
							"samplesperbuffer=480", "num-buffers=" BUFFERS, "!",
							"audio/x-raw,rate=48000", "!", "queue", "!", "audioconvert", "!",
							"fakesink", "sync=true" };
		char *argv[8 + sizeof(pipeline) / sizeof(pipeline[0])];
		size_t k = 0;

		argv[k++] = qostrace;
		argv[k++] = "record";
		argv[k++] = "-q";
		argv[k++] = "--force";
		argv[k++] = "-o";
		argv[k++] = trace_path;
		if (all)
			argv[k++] = "-a";
		argv[k++] = "--";
		for (size_t i = 0; i < sizeof(pipeline) / sizeof(pipeline[0]); i++)
			argv[k++] = pipeline[i] ? (char *)pipeline[i] : cpu;
		argv[k] = NULL;

		dist = start_disturber();
		status = e2e_run(argv, NULL, false, 60000);
		kill(dist, SIGKILL);
		waitpid(dist, NULL, 0);
		if (scratch.keep && !status)
			close(open(done, O_CREAT | O_WRONLY, 0600));
		recorded = true;
	}
	cr_assert(status != -1, "the recording did not finish within 60 s");
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "qostrace record failed: status %d", status);
	parse_log();
	cr_assert_eq(trace__load(trace_path, NULL, &tr, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(tr->lost_events, 0, "%llu events lost", (unsigned long long)tr->lost_events);
	cr_assert_eq(timeline__build(tr, NULL, &tl), 0);
	analysis_opts_default(&o);
	cr_assert_eq(analysis__run_trace(tr, tl, &o, &an), 0);
	cr_assert_geq(an->actors->upstream, 0, "no actor breaks its period");
	first_to_break = &an->actors->v[an->actors->upstream];
	src = NULL;
	for (size_t i = 0; i < an->actors->n && !src; i++)
		if (an->actors->v[i].kind == ACTOR_THREAD && !strncmp(an->actors->v[i].comm, "audiotestsrc", 12))
			src = &an->actors->v[i];
	cr_assert_not_null(src, "audiotestsrc's streaming thread is no actor");
	return recorded;
}

static void record_pipeline(void)
{
	char done[300];

	require_recording();
	require_gstreamer();
	e2e_scratch_open(&scratch);
	snprintf(trace_path, sizeof(trace_path), "%s/gst%s.qtrace", scratch.dir, all ? "-all" : "");
	snprintf(log_path, sizeof(log_path), "%s/disturber%s.log", scratch.dir, all ? "-all" : "");
	snprintf(done, sizeof(done), "%s/gst%s.done", scratch.dir, all ? "-all" : "");
	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	/* A recording the host disturbed is made again, once; a second such stands, and the checks say why. */
	for (int attempt = 0;; attempt++) {
		bool recorded = record_and_analyse(done);
		size_t stalls = host_stalls();

		if (!stalls || !recorded || attempt)
			break;
		fprintf(stderr, "  %zu break%s of the source on no disturbance with its CPU idle: the host held its "
			"timer; recording again\n", stalls, stalls == 1 ? "" : "s");
		analysis__free(an);
		timeline__free(tl);
		trace__free(tr);
		an = NULL;
		tl = NULL;
		tr = NULL;
		unlink(done);
	}
}

static void record_command(void)
{
	all = false;
	record_pipeline();
}

static void record_all(void)
{
	all = true;
	record_pipeline();
}

static void cleanup(void)
{
	analysis__free(an);
	timeline__free(tl);
	trace__free(tr);
	e2e_scratch_close(&scratch);
}

TestSuite(e2e_gstreamer, .init = record_command, .fini = cleanup, .timeout = 120);
TestSuite(e2e_gstreamer_all, .init = record_all, .fini = cleanup, .timeout = 120);

/* The source's streaming thread ("audiotestsrc0:src", cut to 15 bytes) runs every 10 ms. */
Test(e2e_gstreamer, source_thread_period)
{
	double err = fabs(src->st.period_ns - PERIOD_NS) / PERIOD_NS;

	fprintf(stderr, "  %s: period %.4f ms (error %.3f%%), QCoD %.4f, %zu invocations, %zu breaks\n", src->name,
		src->st.period_ns / 1e6, 100 * err, src->st.qcod, src->ninv, src->nbreaks);
	cr_assert(src->st.periodic, "QCoD %g", src->st.qcod);
	cr_assert_lt(err, 0.01, "period %.0f ns", src->st.period_ns);
}

/* The first to break is the source's or the queue's streaming thread, in gst-launch-1.0's process. */
static void check_first_to_break(void)
{
	const struct actor *a = first_to_break;
	const struct tl_thread *th = &tl->threads[a->thread];

	fprintf(stderr, "  first to break: %s (worst %.2f ms late)\n", a->name, a->worst_lateness_ns / 1e6);
	cr_assert_eq(a->kind, ACTOR_THREAD);
	cr_assert(!strncmp(th->comm, "audiotestsrc", 12) || !strncmp(th->comm, "queue0:src", 10),
		  "first to break: %s", a->name);
	cr_assert_eq(th->pid, tl->threads[src->thread].pid);
}

Test(e2e_gstreamer, first_to_break_is_a_streaming_thread)
{
	check_first_to_break();
}

Test(e2e_gstreamer_all, first_to_break_is_a_streaming_thread)
{
	check_first_to_break();
}

/* System-wide, kernel threads ran and are targets, but none is an actor. */
Test(e2e_gstreamer_all, no_kernel_thread_is_an_actor)
{
	size_t kernel = 0;

	for (size_t i = 0; i < an->actors->n; i++)
		cr_expect(!(tl->threads[an->actors->v[i].thread].flags & TT_KTHREAD), "%s",
			  an->actors->v[i].name);
	for (size_t i = 0; i < an->actors->nskipped; i++)
		kernel += !strcmp(an->actors->skipped[i].reason, "kernel thread");
	fprintf(stderr, "  %zu actors, %zu kernel threads not studied\n", an->actors->n, kernel);
	cr_assert_gt(kernel, 0, "no kernel thread ran in a system-wide recording");
}

/* When the pipeline played: the source's first and last invocations. */
static void played(int64_t *first, int64_t *last)
{
	cr_assert_gt(src->ninv, 1);
	*first = src->inv[0].start_ns;
	*last = src->inv[src->ninv - 1].start_ns;
}

/*
 * Each disturbance while the pipeline played lies inside a break of the
 * source, late by 5 ms or more (25 ms of a 10 ms period's CPU taken); each
 * break that late lies on a disturbance (on_disturbance).
 */
Test(e2e_gstreamer, breaks_on_the_disturbances)
{
	int64_t first, last;
	size_t inside = 0, matched = 0, big = 0, explained = 0;

	played(&first, &last);
	for (size_t d = 0; d < lg.n; d++) {
		const struct actor_break *hit = NULL;

		if (lg.d[d].start < first + PERIOD_NS || lg.d[d].end > last - PERIOD_NS)
			continue;
		inside++;
		for (size_t b = 0; b < src->nbreaks && !hit; b++)
			if (src->breaks[b].start_ns <= lg.d[d].start && src->breaks[b].end_ns >= lg.d[d].end - 100000)
				hit = &src->breaks[b];
		fprintf(stderr, "  disturbance at %.3f s: %s", (lg.d[d].start - (int64_t)tl->start) / 1e9,
			hit ? "" : "no break\n");
		if (hit) {
			fprintf(stderr, "break late by %.2f ms\n", hit->lateness_ns / 1e6);
			matched += hit->lateness_ns >= PERIOD_NS / 2;
		}
	}
	for (size_t b = 0; b < src->nbreaks; b++) {
		const struct actor_break *x = &src->breaks[b];
		bool on = on_disturbance(x);

		if (x->lateness_ns < PERIOD_NS / 2)
			continue;
		big++;
		explained += on;
		if (!on)
			fprintf(stderr, "  %s break at %.3f s late by %.2f ms is on no disturbance\n",
				x->kind == BREAK_COMPLETION ? "completion" : "start",
				(x->end_ns - (int64_t)tl->start) / 1e9, x->lateness_ns / 1e6);
	}
	fprintf(stderr, "  %zu of %zu disturbances while it played in a break 5 ms late or more; %zu of %zu such "
		"breaks on a disturbance\n", matched, inside, explained, big);
	cr_assert_geq(inside, 3, "the pipeline played through %zu disturbances", inside);
	cr_assert_eq(matched, inside);
	cr_assert_eq(explained, big);
}

/* The first one's worst break waited for CPU 1 behind the disturber; the Diagnosis says it. */
static void check_worst_break(void)
{
	const struct critical_result *cr = an->critical;
	const struct crit_break *worst = NULL;
	const struct diag_cause *c = &an->diagnosis->cause;

	cr_assert_not_null(cr);
	for (size_t i = 0; i < cr->nbreaks && !worst; i++)
		if ((long)cr->breaks[i].actor == an->actors->upstream)
			worst = &cr->breaks[i];
	cr_assert_not_null(worst, "no break of %s on the critical-path list", first_to_break->name);
	cr_assert_neq(worst->culprit.thread, CRIT_NONE, "the worst break's culprit is a kind of wait");
	fprintf(stderr, "  worst break late by %.2f ms: culprit %s/%u, held the CPU %.2f ms, ran %.2f ms\n",
		worst->lateness_ns / 1e6, tl->threads[worst->culprit.thread].comm,
		tl->threads[worst->culprit.thread].tid, worst->culprit.held_ns / 1e6, worst->culprit.run_ns / 1e6);
	cr_assert_eq(tl->threads[worst->culprit.thread].tid, (uint32_t)lg.tid);
	cr_assert_gt(worst->culprit.held_ns, worst->culprit.run_ns);
	cr_assert_gt(worst->culprit.held_ns, LENGTH_NS / 2);

	/* "it waited for the CPU behind disturber" */
	cr_expect_eq(c->kind, DIAG_CAUSE_CULPRIT, "the Diagnosis names no culprit (%d)", c->kind);
	cr_expect_eq(c->how, DIAG_CPU_BEHIND);
	cr_expect_str_eq(timeline__comm_at(tl, c->thread, c->named_at_ns), "disturber");
}

Test(e2e_gstreamer, worst_break_blames_the_disturber)
{
	check_worst_break();
}

Test(e2e_gstreamer_all, worst_break_blames_the_disturber)
{
	check_worst_break();
}
