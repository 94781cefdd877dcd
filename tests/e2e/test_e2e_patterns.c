/*
 * End-to-end: record the built-in pipeline disturbed at known times (every
 * 0.5 s, 25 ms, on src's CPU) by a distinctively named real-time thread
 * that spins, and separately by one that bursts uname() calls; then the
 * emerging patterns of the most upstream breaking actor must name the
 * disturber (its thread, its syscall) near the top, with high support in
 * the breaks and low support in the kept periods.
 *
 * Two ways to the windows: the whole analysis (actors then patterns, as
 * `qostrace report --actor src` runs it), and the pipeline's own log as
 * ground truth (src's frame starts; an interval is a break when a logged
 * disturbance falls in it), which checks the vocabulary and the miner on a
 * real recording independently of the actors stage.
 *
 * The actor is named by its tid (--actor tid:N, from the pipeline's log):
 * which actor is the most upstream breaking one is the actors stage's
 * question, tested there; on this pipeline the disturber itself is
 * periodic (every 0.5 s) and can be chosen, and on a machine that runs
 * other tests a thread of another pipeline may be named src too (--actor
 * src once studied three, and chose another test's). The pipeline's stages run at SCHED_FIFO 40, under the
 * disturber's FIFO 45: above every program at normal priority and the
 * other tests' workloads (FIFO 5 to 30), so that whatever else runs on
 * the machine (parallel builds, stress-ng, other tests) hardly breaks its
 * period. What still does (the host of a VM stalling its virtual CPUs,
 * another real-time program) is counted and is no failure: the ground
 * truth calls those frames kept periods, and the analysis mines the worst
 * breaks apart, where the disturber's are (severity levels,
 * src/patterns/patterns.h). With real-time hogs above the pipeline on
 * src's CPU (7 ms at random every 85-255 ms: 3 to 12 such frames besides
 * the 9 disturbances, and other engineers' tests at 80k events/s), the
 * disturber still came first, in the 5 to 9 worst breaks. (No canary witnesses the machine's stalls
 * here, as in the other suites: its wakeups, in every window, made the
 * pattern search run out of time.)
 *
 * Needs root and a kernel qostrace can record on; otherwise SKIPPED.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "actors/actors.h"
#include "analysis/analysis.h"
#include "patterns/patterns.h"
#include "record/probe.h"
#include "stats/quartiles.h"
#include "e2eutil.h"
#include "testutil.h"
#include "timeline/timeline.h"
#include "file/trace.h"

/* ---- one recording per suite, shared by its tests ---- */

#define MAXF 1000
#define MAXD 64

struct rec {
	const char *kind;		/* --disturb */
	const char *name;		/* the disturber's thread name */
	char dir[256], trace[300], log[300];
	struct trace *t;
	struct timeline *tl;
	int64_t src_start[MAXF];	/* frame k of src started (log) */
	int nsrc;
	uint32_t src_tid;
	int64_t dist[MAXD][2];		/* logged disturbances */
	int ndist;
	int noise;			/* src's frames late by half a period on no disturbance */
};

static struct rec R;
static char *tmpdir;

static void parse_log(struct rec *r)
{
	FILE *f = fopen(r->log, "r");
	char line[512];

	cr_assert(f, "pipeline log %s missing", r->log);
	while (fgets(line, sizeof(line), f)) {
		char stage[32];
		unsigned k, tid;
		unsigned long long a, b;

		if (sscanf(line, "frame stage=%31s k=%u start=%llu end=%llu", stage, &k, &a, &b) == 4 &&
		    !strcmp(stage, "src") && r->nsrc < MAXF)
			r->src_start[r->nsrc++] = (int64_t)a;
		else if (sscanf(line, "stage name=%31s tid=%u", stage, &tid) == 2 && !strcmp(stage, "src"))
			r->src_tid = tid;
		else if (sscanf(line, "disturb start=%llu end=%llu", &a, &b) == 2 && r->ndist < MAXD) {
			r->dist[r->ndist][0] = (int64_t)a;
			r->dist[r->ndist][1] = (int64_t)b;
			r->ndist++;
		}
	}
	fclose(f);
}

/* Intervals of src (its own log) late by half a median period or more, with no disturbance in them. */
static int unexplained_late_frames(const struct rec *r)
{
	int64_t iv[MAXF], sorted[MAXF], median;
	int n = r->nsrc - 1, late = 0;
	struct quartiles q;

	if (n < 2)
		return 0;
	for (int k = 0; k < n; k++)
		sorted[k] = iv[k] = r->src_start[k + 1] - r->src_start[k];
	cr_assert_eq(quartiles_compute_inplace(sorted, n, &q), 0);
	median = q.median_hi;
	for (int k = 0; k < n; k++) {
		bool disturbed = false;

		for (int d = 0; d < r->ndist; d++)
			disturbed |= r->dist[d][0] >= r->src_start[k] - median && r->dist[d][0] < r->src_start[k + 1];
		late += !disturbed && 2 * iv[k] >= 3 * median;
	}
	return late;
}

/*
 * Records once per binary run: the first test of the suite records into
 * the runner's scratch directory (QOSTRACE_TEST_TMP), the others reuse it.
 */
static void record(const char *kind, const char *name)
{
	const char *scratch = getenv("QOSTRACE_TEST_TMP");
	char qostrace[256], done[320], err[256];

	require_recording();
	memset(&R, 0, sizeof(R));
	R.kind = kind;
	R.name = name;
	if (scratch && *scratch) {
		snprintf(R.dir, sizeof(R.dir), "%s", scratch);
	} else {
		tmpdir = tu_tmpdir();
		snprintf(R.dir, sizeof(R.dir), "%s", tmpdir);
	}
	snprintf(R.trace, sizeof(R.trace), "%s/pl-%s.qtrace", R.dir, kind);
	snprintf(R.log, sizeof(R.log), "%s/pl-%s.log", R.dir, kind);
	snprintf(done, sizeof(done), "%s/pl-%s.done", R.dir, kind);
	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	if (access(done, F_OK)) {
		char *argv[] = { qostrace, "record", "-q", "--force", "-o", R.trace, "--", qostrace, "__pipeline",
				 "--frames", "500", "--every", "500ms", "--disturb", (char *)kind, "--name",
				 (char *)name, "--log", R.log, "--priority", "40", NULL };
		int status = e2e_run(argv, NULL, false, 60000);

		cr_assert(status != -1, "the recording did not finish within 60 s");
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "qostrace record failed: status %d", status);
		close(open(done, O_CREAT | O_WRONLY, 0600));
	}
	parse_log(&R);
	cr_assert_eq(R.nsrc, 500, "pipeline log: %d src frames", R.nsrc);
	cr_assert_neq(R.src_tid, 0, "pipeline log: no tid of src");
	cr_assert_geq(R.ndist, 5, "pipeline log: %d disturbances", R.ndist);
	/*
	 * The ground truth is the pipeline's own log: its disturbances. What
	 * else made frames late (the host stalling this VM's CPUs, another
	 * real-time program) is counted, not a failure: the ground-truth
	 * windows call those frames kept periods, where the disturber is not,
	 * and the analysis mines the worst breaks apart (severity levels,
	 * src/patterns/patterns.h), where the disturber's 25 ms are.
	 */
	R.noise = unexplained_late_frames(&R);
	fprintf(stderr, "  pipeline log: %d disturbances, %d frames late by half a period or more besides\n", R.ndist,
		R.noise);
	cr_assert_eq(trace__load(R.trace, NULL, &R.t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(timeline__build(R.t, NULL, &R.tl), 0);
}

static void cleanup(void)
{
	timeline__free(R.tl);
	trace__free(R.t);
	if (tmpdir) {
		tu_rmdir(tmpdir);
		free(tmpdir);
		tmpdir = NULL;
	}
}

static void record_thread(void)
{
	record("thread", "usb-storage");
}

static void record_syscalls(void)
{
	record("syscalls", "flusher");
}

static void print_top(const struct patterns_result *r, const char *what)
{
	fprintf(stderr, "  %s: %u breaks, %u periods, %u symbols, %s, mined in %.1f ms\n", what, r->npos,
		r->nneg, r->vocabulary, r->bounds_text[0] ? r->bounds_text : "exact", r->mine_ns / 1e6);
	for (size_t i = 0; i < r->n && i < 5; i++) {
		fprintf(stderr, "    %zu.", i + 1);
		for (uint32_t k = 0; k < r->v[i].len; k++)
			fprintf(stderr, "%s %s", k ? " ->" : "", r->v[i].events[k]);
		fprintf(stderr, "  (%u/%u%s, %u/%u)\n", r->v[i].count_pos, r->v[i].breaks,
			r->v[i].level ? " worst" : "", r->v[i].count_neg, r->nneg);
	}
}

/* The best-ranked pattern (within the first @top) with an event containing @needle. */
static const struct pattern *ranked(const struct patterns_result *r, const char *needle, size_t top,
				    size_t *rank)
{
	for (size_t i = 0; i < r->n && i < top; i++)
		for (uint32_t k = 0; k < r->v[i].len; k++)
			if (strstr(r->v[i].events[k], needle)) {
				*rank = i + 1;
				return &r->v[i];
			}
	return NULL;
}

/* The whole analysis, as `report` runs it. */
static void check_analysis(const char *needle, size_t top)
{
	char spec[32];
	const char *specs[] = { spec };
	struct analysis_opts o;
	struct analysis *a;
	const struct patterns_result *r;
	const struct pattern *p;
	size_t rank = 0;

	snprintf(spec, sizeof(spec), "tid:%u", R.src_tid);
	analysis_opts_default(&o);
	o.actor_specs = specs;
	o.n_actor_specs = 1;
	cr_assert_eq(analysis__run_trace(R.t, R.tl, &o, &a), 0);
	cr_assert_not_null(a->actors);
	cr_assert_geq(a->actors->upstream, 0, "no upstream breaking actor");
	cr_assert_eq(R.tl->threads[a->actors->v[a->actors->upstream].thread].tid, R.src_tid, "upstream actor %s",
		     a->actors->v[a->actors->upstream].name);
	r = a->patterns;
	cr_assert_not_null(r);
	print_top(r, "analysis");
	cr_assert_null(r->status, "%s", r->status);
	cr_assert_geq(r->npos, (uint32_t)R.ndist - 2);
	cr_assert_geq(r->nneg, 300);
	p = ranked(r, needle, top, &rank);
	cr_assert_not_null(p, "no pattern with '%s' in the first %zu", needle, top);
	cr_assert_geq(p->support_pos, 0.6, "'%s' (rank %zu) in %u/%u breaks", needle, rank, p->count_pos, r->npos);
	cr_assert_leq(p->support_neg, 0.02, "'%s' (rank %zu) in %u/%u periods", needle, rank, p->count_neg,
		      r->nneg);
	cr_assert_lt(r->elapsed_ns, 10000000000LL);
	analysis__free(a);
}

/*
 * Ground truth: src's invocations from the log, an interval is a break
 * when a disturbance started in it. The actor's own activity is left out.
 */
static void check_ground_truth(const char *needle, size_t top)
{
	static struct period_window w[MAXF + 1];
	struct patterns_opts o;
	struct patterns_result *r;
	const struct pattern *p;
	uint32_t src = TL_NONE;
	size_t n = 0, rank = 0;
	int npos = 0;

	for (size_t i = 0; i < R.tl->nthreads; i++)
		if (R.tl->threads[i].tid == R.src_tid)
			src = (uint32_t)i;
	cr_assert_neq(src, TL_NONE);
	w[n++] = (struct period_window){ (int64_t)R.tl->start, R.src_start[0], false, false, SIZE_MAX };
	for (int k = 0; k + 1 < R.nsrc; k++) {
		bool pos = false;

		for (int d = 0; d < R.ndist; d++)
			pos |= R.dist[d][0] >= R.src_start[k] && R.dist[d][0] < R.src_start[k + 1];
		npos += pos;
		w[n++] = (struct period_window){ R.src_start[k], R.src_start[k + 1], false, pos, (size_t)k };
	}
	w[n++] = (struct period_window){ R.src_start[R.nsrc - 1], (int64_t)R.tl->end, true, false,
					 (size_t)R.nsrc - 1 };
	cr_assert_eq(npos, R.ndist);
	/*
	 * Every window whole: on a busy machine (80k events/s of other
	 * tests), 38 windows had more than the default 2000 symbols, and the
	 * disturber, which starts inside its window, fell off the end of 3 of
	 * 9 (the report says so: "subtraces ... cut to their beginning").
	 */
	patterns_opts_default(&o);
	o.vocab.max_len = 0;
	cr_assert_eq(patterns__mine_windows(R.tl, w, n, src, &o, &r), 0);
	print_top(r, "ground truth");
	cr_assert(r->found, "%s", r->status);
	p = ranked(r, needle, top, &rank);
	cr_assert_not_null(p, "no pattern with '%s' in the first %zu", needle, top);
	cr_assert_geq(p->support_pos, 0.8, "'%s' (rank %zu) in %u/%u breaks", needle, rank, p->count_pos, r->npos);
	cr_assert_leq(p->support_neg, 0.02, "'%s' (rank %zu) in %u/%u periods", needle, rank, p->count_neg,
		      r->nneg);
	patterns__free(r);
}

/*
 * `qostrace report` prints the section: its first pattern names the
 * disturber (@first), and @needle is among the patterns shown.
 */
static void check_report_command(const char *first_needle, const char *needle)
{
	char qostrace[256], out[320], buf[65536], spec[32];
	char *argv[] = { qostrace, "report", "-q", "--color", "never", "--actor", spec, R.trace, NULL };
	FILE *f;
	size_t n;
	int status;
	char *sec, *first;

	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	snprintf(spec, sizeof(spec), "tid:%u", R.src_tid);
	snprintf(out, sizeof(out), "%s/report-%s.txt", R.dir, R.kind);
	status = e2e_run(argv, out, false, 60000);
	cr_assert(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "report failed: %d", status);
	f = fopen(out, "r");
	cr_assert(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	sec = strstr(buf, "== What happens when src/");
	cr_assert_not_null(sec, "no patterns section in:\n%s", buf);
	cr_assert_not_null(strstr(sec, needle), "%s", sec);
	first = strstr(sec, "  1. ");
	cr_assert_not_null(first, "%s", sec);
	*strchrnul(first, '\n') = '\0';
	cr_assert_not_null(strstr(first, first_needle), "%s", sec);
}

TestSuite(e2e_patterns_thread, .init = record_thread, .fini = cleanup, .timeout = 120);

Test(e2e_patterns_thread, disturber_thread_emerges)
{
	check_analysis("usb-storage", 3);
}

Test(e2e_patterns_thread, ground_truth_windows)
{
	check_ground_truth("usb-storage", 3);
}

Test(e2e_patterns_thread, report_command)
{
	check_report_command("usb-storage", "usb-storage");
}

TestSuite(e2e_patterns_syscalls, .init = record_syscalls, .fini = cleanup, .timeout = 120);

Test(e2e_patterns_syscalls, disturbing_syscall_emerges)
{
	check_analysis("uname by flusher", 5);
}

Test(e2e_patterns_syscalls, ground_truth_windows)
{
	check_ground_truth("uname by flusher", 5);
}

Test(e2e_patterns_syscalls, report_command)
{
	check_report_command("flusher", "uname by flusher");
}

/* The thresholds are read before any file is opened: no recording needed. */
Test(e2e_patterns_options, thresholds_say_how_to_write_them)
{
	static const struct { const char *args, *says; int rc; } cases[] = {
		{ "--delta 80", "--delta '80': a share of the breaks in (0, 1] or a percentage", 2 },
		{ "--delta 0", "e.g. 0.8 or 80%", 2 },
		{ "--alpha 10", "--alpha '10': a share of the kept periods in [0, 1] or a percentage", 2 },
		{ "--alpha 10%x", "e.g. 0.1 or 10%", 2 },
		{ "--delta 80% --alpha 0.1", "/no/such/file", 1 },
	};
	char cmd[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s/qostrace report %s /no/such/file.qtrace", build_dir(),
			 cases[i].args);
		e2e_sh_says(cmd, cases[i].rc, cases[i].says);
	}
}
