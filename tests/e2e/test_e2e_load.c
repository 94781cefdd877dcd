/*
 * End-to-end under overload: storms at rising rates recorded with a small
 * ring buffer, so that the kernel must drop records. What was dropped must
 * be counted exactly and located in time, and the timeline must not invent
 * run intervals across the windows where data is missing.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "e2eutil.h"
#include "testutil.h"
#include "record/probe.h"
#include "timeline/timeline.h"
#include "file/trace.h"

/* Recording, and the storm generators. */
static void require_storms(void)
{
	require_recording();
	if (access("/usr/bin/stress-ng", X_OK) || access("/usr/bin/perf", X_OK)) {
		fprintf(stderr, "SKIPPED: stress-ng or perf missing (scripts/install-deps.sh installs them)\n");
		cr_skip_test("stress-ng or perf missing");
	}
}

static int run(char *const argv[])
{
	int status;
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0) {
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execv(argv[0], argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	return status;
}

struct load_result {
	uint64_t lost, located, gaps_lost, runs_across;
};

/* Records the command with the given buffer and checks the accounting. */
static void record_storm(char *const cmd[], const char *buffer, struct load_result *res)
{
	char qostrace[256], path[300];
	char *d = tu_tmpdir();
	char *argv[32];
	struct trace *t;
	struct timeline *tl;
	char err[512];
	int n = 0, status;

	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	snprintf(path, sizeof(path), "%s/load.qtrace", d);
	argv[n++] = qostrace;
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = "-a";
	argv[n++] = "--no-syscalls";
	argv[n++] = "--buffer-size";
	argv[n++] = (char *)buffer;
	argv[n++] = "--poll";
	argv[n++] = "200";
	argv[n++] = "-o";
	argv[n++] = path;
	argv[n++] = "--";
	for (int i = 0; cmd[i] && n < 31; i++)
		argv[n++] = cmd[i];
	argv[n] = NULL;
	status = run(argv);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "record failed: %d", status);
	cr_assert_eq(trace__load(path, NULL, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert(t->finished);
	cr_assert_eq(timeline__build(t, NULL, &tl), 0);
	memset(res, 0, sizeof(*res));
	res->lost = t->lost_events;
	for (size_t i = 0; i < t->nlost; i++)
		res->located += t->lost[i].count;
	for (size_t i = 0; i < tl->ngaps; i++)
		res->gaps_lost += tl->gaps[i].kind == TL_GAP_LOST;
	/* No run interval may overlap a loss window on its own CPU. */
	for (size_t k = 0; k < tl->nruns; k++) {
		const struct tl_run *r = &tl->runs[k];

		for (size_t g = 0; g < tl->ngaps; g++) {
			const struct tl_gap *x = &tl->gaps[g];

			if (x->kind == TL_GAP_LOST && x->cpu == r->cpu && x->start < r->end && x->end > r->start)
				res->runs_across++;
		}
	}
	fprintf(stderr, "  %-40s buffer %5s: %8zu switches, lost %llu (located %llu in %llu windows)\n",
		cmd[1], buffer, t->nsw, (unsigned long long)res->lost, (unsigned long long)res->located,
		(unsigned long long)res->gaps_lost);
	timeline__free(tl);
	trace__free(t);
	tu_rmdir(d);
	free(d);
}

static void check(const struct load_result *r)
{
	cr_expect_eq(r->located, r->lost, "lost %llu counted by the kernel, %llu located in the file",
		     (unsigned long long)r->lost, (unsigned long long)r->located);
	cr_expect_eq(r->runs_across, 0, "%llu run intervals cross a loss window", (unsigned long long)r->runs_across);
	if (r->lost)
		cr_expect_gt(r->gaps_lost, 0, "losses without a gap in the timeline");
}

Test(e2e_load, stress_switch_at_rising_rates, .timeout = 240)
{
	static const char *const rates[] = { "20000", "100000", "0" };
	uint64_t total_lost = 0;

	require_storms();
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		char *cmd[] = { "/usr/bin/stress-ng", "--switch", "2", "--switch-freq", (char *)rates[i], "-t", "3", "-q", NULL };
		struct load_result r;

		record_storm(cmd, "64K", &r);
		check(&r);
		total_lost += r.lost;
	}
	/* The small buffer must have overflowed at the top rate, or the test tests nothing. */
	cr_expect_gt(total_lost, 0, "no loss even with a 64 KiB buffer: the storm was too weak");
}

Test(e2e_load, hackbench, .timeout = 240)
{
	char *cmd[] = { "/usr/bin/perf", "bench", "sched", "messaging", "-g", "8", "-l", "300", NULL };
	struct load_result r;

	require_storms();
	record_storm(cmd, "64K", &r);
	check(&r);
}

/* The default buffer keeps up with a saturating storm on this machine. */
Test(e2e_load, default_buffer_loses_nothing, .timeout = 240)
{
	char *cmd[] = { "/usr/bin/stress-ng", "--switch", "2", "-t", "3", "-q", NULL };
	struct load_result r;

	require_storms();
	record_storm(cmd, "32M", &r);
	check(&r);
	cr_expect_eq(r.lost, 0, "the default 32 MiB buffer lost %llu records", (unsigned long long)r.lost);
}

/*
 * Threads created and dying by thousands: every thread that ran has a name
 * and a process, tids reused during the recording are distinct threads, and
 * the target's descendants stay targets.
 */
Test(e2e_load, thread_churn, .timeout = 240)
{
	char qostrace[256], path[300];
	char *d;
	struct trace *t;
	struct timeline *tl;
	char err[512];
	size_t ran = 0, named = 0, born = 0, died = 0, targets = 0, born_cmd = 0, targets_cmd = 0;
	int status;

	require_storms();
	d = tu_tmpdir();
	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	snprintf(path, sizeof(path), "%s/churn.qtrace", d);
	{
		char *argv[] = { qostrace, "record", "-q", "-o", path, "--", "/usr/bin/stress-ng", "--pthread", "2",
				 "--pthread-max", "64", "-t", "3", "-q", NULL };

		status = run(argv);
	}
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "record failed: %d", status);
	cr_assert_eq(trace__load(path, NULL, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(timeline__build(t, NULL, &tl), 0);
	for (size_t i = 0; i < tl->nthreads; i++) {
		const struct tl_thread *x = &tl->threads[i];

		if (!x->nruns)
			continue;
		ran++;
		named += x->comm[0] && x->comm[0] != '<';
		born += !!(x->flags & TT_BORN);
		died += !!(x->flags & TT_DIED);
		targets += !!(x->flags & TL_TARGET);
		/* the command's: other programs of the machine may fork meanwhile */
		if ((x->flags & TT_BORN) && !strncmp(x->comm, "stress-ng", 9)) {
			born_cmd++;
			targets_cmd += !!(x->flags & TL_TARGET);
		}
	}
	fprintf(stderr, "  %zu threads ran: %zu named, %zu born, %zu died, %zu targets; %zu forks, lost %llu\n", ran,
		named, born, died, targets, t->ntask, (unsigned long long)t->lost_events);
	cr_expect_gt(born, 1000, "only %zu threads were born: not a churn", born);
	cr_expect_eq(named, ran, "%zu threads without a name", ran - named);
	cr_expect_gt(born_cmd, 1000, "only %zu threads of stress-ng were born", born_cmd);
	cr_expect_eq(targets_cmd, born_cmd, "%zu of the command's %zu new threads are not targets",
		     born_cmd - targets_cmd, born_cmd);
	cr_expect_eq(t->lost_events, 0);
	timeline__free(tl);
	trace__free(t);
	tu_rmdir(d);
	free(d);
}
