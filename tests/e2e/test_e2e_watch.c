// SPDX-License-Identifier: MIT
/*
 * End-to-end: `qostrace watch` on the built-in pipeline (qostrace
 * __pipeline: src -> dec -> {fx, scale} -> sink every 20 ms, at real-time
 * priority 40, CPU 1 shared with a disturber of priority 45), recording
 * with the real BPF programs. The test: a 60 ms disturbance every
 * 5 s gives one window per disturbance (the pipeline's log says when each
 * was), each a trace file whose report finds the break and names the
 * disturber; the same pipeline undisturbed gives no window. Shortened from
 * 60 s to 30 s (six disturbances, the first in the warm-up): the claim is
 * per disturbance, and the suite runs twice 30 s instead of twice 60 s. On
 * every window written, live or replayed from a recording of the same
 * pipeline, the detector and the report agree both ways: the report's
 * major breaks are exactly those the window lists (replayed also with the
 * default cut, a tenth of the period). Also: the warm-up's lines, the
 * memory bound, the alerts, SIGUSR1's window, the status line on a
 * terminal, Ctrl-C's summary, bad options.
 *
 * A busy machine: priority 40 puts the pipeline above the other real-time
 * workloads the suites run (priorities 5 and 10) and above every ordinary
 * thread; --late 20ms, because a 20 ms stage still starts a few ms late
 * now and then (interrupts, a virtual CPU descheduled: a tenth of the
 * period is 2 ms), which would make windows of their own. Under a heavy
 * load a stage is still 20 ms late now and then (a virtual CPU
 * descheduled, another process's exec holding CPU 1 on this
 * non-preemptible kernel): a window led by a break at no planned
 * disturbance passes when the report proves it a real break (it finds
 * exactly the window's breaks), blamed on the disturber only when a
 * disturbance joined it; each disturbance must still be in a window that
 * names the disturber, and lead at most one; the test says so. Needs root and a
 * kernel qostrace can record on; otherwise every test is SKIPPED with the
 * reason.
 */
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "actors/actors.h"
#include "analysis/analysis.h"
#include "analysis/diagnosis.h"
#include "e2eutil.h"
#include "testutil.h"
#include "timeline/timeline.h"
#include "file/trace.h"
#include "watch/trigger.h"

#define EVERY "5s"
#define FRAMES "1500"		/* 30 s of 20 ms frames */
#define PRIO "40"
#define MAX_FILES 32

static char qostrace[256];

struct disturb {
	long long start, end;
};

/* The disturbances the pipeline logged: the ground truth. */
static size_t parse_log(const char *path, struct disturb *d, size_t max, int *src_tid)
{
	FILE *f = fopen(path, "r");
	char line[256], name[32];
	size_t n = 0;
	int tid;

	cr_assert(f, "pipeline log %s missing", path);
	while (fgets(line, sizeof(line), f)) {
		if (n < max && sscanf(line, "disturb start=%lld end=%lld", &d[n].start, &d[n].end) == 2)
			n++;
		else if (sscanf(line, "stage name=%31s tid=%d", name, &tid) == 2 && !strcmp(name, "src"))
			*src_tid = tid;
	}
	fclose(f);
	return n;
}

struct window {
	char path[600];
	long long at, late;
	unsigned long long from, to;	/* the span asked for */
	bool disturber_named;		/* the Diagnosis blames the thread named disturber */
	char cause[64];			/* what its Diagnosis blames, for the messages */
	size_t breaks;
	long long big_at[64];		/* the listed breaks at least 20 ms late: when */
	size_t nbig;
};

/*
 * One window: a trace file (0600, finished) whose report, with the actors
 * watched and the same cut, finds exactly the major breaks it lists; and
 * what its Diagnosis blames.
 */
static void check_window(const char *path, struct window *w)
{
	struct analysis_opts o;
	struct analysis *an;
	struct timeline *tl;
	struct trace *t;
	struct stat st;
	char err[512], *specs_buf, *specs[16];
	const char *listed, *v;
	size_t nspecs = 0, found = 0, nlisted = 0;
	uint64_t cut = 0, u;
	bool trigger = false;

	memset(w, 0, sizeof(*w));
	snprintf(w->path, sizeof(w->path), "%s", path);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600, "%s", path);
	cr_assert_eq(trace__load(path, NULL, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert(t->finished, "%s has its END", path);
	cr_assert_not_null(tf_kv_get(&t->meta, TF_META_WATCH), "%s: a watch window", path);
	tf_kv_get_u64(&t->meta, TF_META_WATCH_CUT, &cut);
	cr_assert(!tf_kv_get_u64(&t->meta, TF_META_WATCH_AT, &u));
	w->at = (long long)u;
	tf_kv_get_u64(&t->meta, TF_META_WATCH_LATE, &u);
	w->late = (long long)u;
	cr_assert_eq(sscanf(tf_kv_get(&t->meta, TF_META_WATCH_WINDOW), "%llu-%llu", &w->from, &w->to), 2);
	specs_buf = strdup(tf_kv_get(&t->meta, TF_META_WATCH_ACTORS));
	for (char *s = strtok(specs_buf, " "); s && nspecs < 16; s = strtok(NULL, " "))
		specs[nspecs++] = s;
	listed = tf_kv_get(&t->meta, TF_META_WATCH_BREAKS);
	for (v = listed; v && *v; v = strchr(v + 1, ' ') ? strchr(v + 1, ' ') : v + strlen(v)) {
		unsigned int tid;
		long long at, late;

		nlisted++;
		if (sscanf(v, " %u:%lld:%lld:", &tid, &at, &late) == 3 && late >= 20000000 && w->nbig < 64)
			w->big_at[w->nbig++] = at;
	}
	cr_assert_eq(timeline__build(t, NULL, &tl), 0);
	analysis_opts_default(&o);
	o.actor_specs = (const char *const *)specs;
	o.n_actor_specs = nspecs;
	o.jobs = 1;
	cr_assert_eq(analysis__run_trace(t, tl, &o, &an), 0);
	for (size_t i = 0; i < an->actors->n; i++) {
		const struct actor *a = &an->actors->v[i];

		for (size_t k = 0; a->st.periodic && k < a->nbreaks; k++) {
			const struct actor_break *b = &a->breaks[k];
			char key[64];

			if (b->data_missing || !watch_major(b->lateness_ns, a->st.period_ns, (int64_t)cut))
				continue;
			snprintf(key, sizeof(key), "%u:%lld:", tl->threads[a->thread].tid,
				 (long long)(b->kind == BREAK_COMPLETION ? b->start_ns : b->end_ns));
			cr_assert(strstr(listed, key), "%s: the report's break %s of %s (%lld ns late) is not the "
				  "detector's: %s", path, key, a->name, (long long)b->lateness_ns, listed);
			found++;
			trigger |= (long long)(b->kind == BREAK_COMPLETION ? b->start_ns : b->end_ns) == w->at;
		}
	}
	/*
	 * Every major break of the report is the detector's (above), and the
	 * break that opened the window is the report's. The detector may list
	 * more: after a long break a stage catching up starts an invocation
	 * the online cut calls late where the report's clustering of the
	 * whole window joins it to the one before (seen once in 8 runs: scale
	 * 6.0 ms late 26 ms after its 54 ms break).
	 */
	cr_assert(trigger, "%s: the break at %lld that opened the window is no major break of the report: %s", path,
		  w->at, listed);
	if (found != nlisted)
		cr_log_info("%s: the detector lists %zu breaks, the report finds %zu of them: %s", path, nlisted, found,
			    listed);
	cr_assert_geq(found * 4, nlisted * 3, "%s: the detector lists %zu breaks, the report finds %zu of them", path,
		      nlisted, found);
	w->breaks = found;
	snprintf(w->cause, sizeof(w->cause), "no culprit named (answer %d, cause %d)", an->diagnosis->answer,
		 an->diagnosis->cause.kind);
	if (an->diagnosis->answer == DIAG_UPSTREAM && an->diagnosis->cause.kind == DIAG_CAUSE_CULPRIT &&
	    an->diagnosis->cause.thread != UINT32_MAX) {
		uint32_t c = an->diagnosis->cause.thread;
		const char *comm = timeline__comm_at(tl, c, an->diagnosis->cause.named_at_ns);

		w->disturber_named = !strcmp(comm, "disturber");
		snprintf(w->cause, sizeof(w->cause), "behind %s/%u", comm, tl->threads[c].tid);
	}
	analysis__free(an);
	timeline__free(tl);
	trace__free(t);
	free(specs_buf);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The windows in dir, checked, in file order; nothing half written left. */
static size_t windows_in(const char *dir, struct window *w, size_t max)
{
	DIR *d = opendir(dir);
	char *names[MAX_FILES];
	struct dirent *e;
	size_t n = 0;

	cr_assert(d, "%s", dir);
	while ((e = readdir(d))) {
		cr_assert(!strstr(e->d_name, ".part"), "%s left behind", e->d_name);
		if (strstr(e->d_name, ".qtrace") && n < max)
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char p[600];

		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		check_window(p, &w[i]);
		free(names[i]);
	}
	return n;
}

/* qostrace watch ARGS -- chrt -f PRIO qostrace __pipeline ...; its output in out. */
static int watch_pipeline(const char *dir, const char *disturb, const char *out, const char *log)
{
	char *argv[48];
	int n = 0;

	argv[n++] = qostrace;
	argv[n++] = "watch";
	argv[n++] = "-o";
	argv[n++] = (char *)dir;
	argv[n++] = "--before";
	argv[n++] = "2s";
	argv[n++] = "--after";
	argv[n++] = "1s";
	argv[n++] = "--late";
	argv[n++] = "20ms";
	argv[n++] = "--";
	if (!access("/usr/bin/chrt", X_OK)) {
		argv[n++] = "/usr/bin/chrt";
		argv[n++] = "-f";
		argv[n++] = PRIO;
	}
	argv[n++] = qostrace;
	argv[n++] = "__pipeline";
	argv[n++] = "--frames";
	argv[n++] = FRAMES;
	argv[n++] = "--period";
	argv[n++] = "20ms";
	argv[n++] = "--priority";
	argv[n++] = PRIO;
	argv[n++] = "--disturb";
	argv[n++] = (char *)disturb;
	argv[n++] = "--every";
	argv[n++] = EVERY;
	argv[n++] = "--length";
	argv[n++] = "60ms";
	argv[n++] = "--cpu";
	argv[n++] = "1";
	argv[n++] = "--log";
	argv[n++] = (char *)log;
	argv[n] = NULL;
	return e2e_run(argv, out, true, 600000);
}

static void setup(struct e2e_scratch *s)
{
	require_recording();
	e2e_scratch_open(s);
	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
}

/*
 * The planned disturbance a break whose late invocation started at `at`
 * is at, or -1: within it, right after it, or up to a period before it
 * (an invocation the disturber preempted finishes late).
 */
static long at_disturbance(long long at, const struct disturb *d, size_t nd)
{
	for (size_t i = 0; i < nd; i++)
		if (at >= d[i].start - 25000000ll && at <= d[i].end + 100000000ll)
			return (long)i;
	return -1;
}

/* Does window w list a break of 20 ms or more at disturbance i? */
static bool lists_disturbance(const struct window *w, size_t i, const struct disturb *d, size_t nd)
{
	for (size_t k = 0; k < w->nbig; k++)
		if (at_disturbance(w->big_at[k], d, nd) == (long)i)
			return true;
	return false;
}

/*
 * Every disturbance is in a window: one that lists its break (20 ms late
 * or more) and whose report names the disturber; and the detector opened
 * at most one window per disturbance (a window led by its break). A busy
 * machine may break the pipeline elsewhere too (another process's exec
 * holding CPU 1 on this non-preemptible kernel, the virtual CPU
 * descheduled): such a window is a real break (check_window proved the
 * report finds exactly its breaks); a disturbance that follows within
 * --after joins it, and then its report names the disturber; otherwise
 * it must not. Returns how many windows the disturbances did not lead.
 */
static size_t one_window_per_disturbance(const struct window *w, size_t nw, const struct disturb *d, size_t nd)
{
	char what[4096];
	size_t len = 0, led[32] = { 0 }, other = 0;

	for (size_t i = 0; i < nw && len < sizeof(what) - 200; i++)
		len += snprintf(what + len, sizeof(what) - len, "\n  %s: at %lld, %lld ns late, %s", w[i].path, w[i].at,
				w[i].late, w[i].cause);
	for (size_t i = 0; i < nd && len < sizeof(what) - 100; i++)
		len += snprintf(what + len, sizeof(what) - len, "\n  disturbance %lld .. %lld", d[i].start, d[i].end);
	cr_assert_leq(nd, 32);
	for (size_t k = 0; k < nw; k++) {
		long i = at_disturbance(w[k].at, d, nd);
		bool holds_one = false;

		if (i >= 0) {
			led[i]++;
			cr_assert_geq(w[k].late, 20000000, "%s: %lld ns late", w[k].path, w[k].late);
			cr_assert(w[k].disturber_named, "%s: the report does not name the disturber:%s", w[k].path, what);
			continue;
		}
		other++;
		for (size_t j = 0; j < nd; j++)
			holds_one |= lists_disturbance(&w[k], j, d, nd);
		cr_assert(!w[k].disturber_named || holds_one, "%s blames the disturber but holds no disturbance:%s",
			  w[k].path, what);
	}
	for (size_t i = 0; i < nd; i++) {
		bool captured = false;

		cr_assert_leq(led[i], 1, "%zu windows led by the disturbance at %lld:%s", led[i], d[i].start, what);
		for (size_t k = 0; k < nw && !captured; k++)
			captured = lists_disturbance(&w[k], i, d, nd) && w[k].disturber_named;
		cr_assert(captured, "the disturbance at %lld is in no window that names the disturber:%s", d[i].start,
			  what);
	}
	/* info, not warn: Criterion exits non-zero on a warning, and these windows are no failure */
	if (other)
		cr_log_info("%zu window(s) led by breaks at no planned disturbance, real breaks the busy machine "
			    "made:%s", other, what);
	return other;
}

Test(e2e_watch, a_window_per_disturbance_none_undisturbed, .timeout = 900)
{
	struct e2e_scratch s;
	struct window w[MAX_FILES];
	struct disturb d[32];
	char dir[512], out[512], log[512], *text;
	size_t nd, nw, alerts = 0, named = 0;
	int src = 0, st;

	setup(&s);
	snprintf(dir, sizeof(dir), "%s/drops", s.dir);
	snprintf(out, sizeof(out), "%s/watch.out", s.dir);
	snprintf(log, sizeof(log), "%s/pl.log", s.dir);
	st = watch_pipeline(dir, "thread", out, log);
	cr_assert(st != -1, "watch did not finish");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "qostrace watch failed: status %d", st);
	nd = parse_log(log, d, 32, &src);
	cr_assert_eq(nd, 6, "%zu disturbances in 30 s", nd);
	nw = windows_in(dir, w, MAX_FILES);
	one_window_per_disturbance(w, nw, d, nd);
	/* what a person read: the warm-up, one alert per window, the summary */
	text = e2e_slurp(out);
	cr_assert(strstr(text, "src/"), "%s", text);
	cr_assert(strstr(text, ": period 20 ms, watching"), "%s", text);
	cr_assert(strstr(text, "qostrace: memory: at most "), "the memory bound, stated: %s", text);
	for (const char *p = strstr(text, " -> "); p; p = strstr(p + 1, " -> ")) {
		alerts++;
		/* an alert whose analysis finished names the disturber (one still running at the end says so) */
		if (strstr(p - 200 > text ? p - 200 : text, "disturber"))
			named++;
	}
	cr_assert_eq(alerts, nw, "%s", text);
	cr_assert_gt(named, 0, "%s", text);
	cr_assert(strstr(text, "windows written to"), "%s", text);
	cr_assert(strstr(text, "stopped: command exited"), "%s", text);
	free(text);

	/* undisturbed: nothing to write but the real breaks a busy machine makes (proved by their reports) */
	snprintf(dir, sizeof(dir), "%s/none", s.dir);
	st = watch_pipeline(dir, "none", out, log);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "qostrace watch failed: status %d", st);
	parse_log(log, d, 32, &src);
	nw = windows_in(dir, w, MAX_FILES);
	one_window_per_disturbance(w, nw, d, 0);
	text = e2e_slurp(out);
	cr_assert(nw || strstr(text, "0 windows written"), "%s", text);
	free(text);
	e2e_scratch_close(&s);
}

/*
 * A recording of the pipeline replayed through watch: the same agreement
 * and windows with --late 20ms; with the default cut (a tenth of the
 * period, 2 ms) the agreement on every window, and each disturbance in
 * one of them.
 */
Test(e2e_watch, replaying_a_recording_agrees_with_the_report, .timeout = 900)
{
	struct e2e_scratch s;
	struct window w[MAX_FILES];
	struct disturb d[32];
	char trace[512], dir[512], log[512];
	size_t nd, nw;
	int src = 0, st;

	setup(&s);
	snprintf(trace, sizeof(trace), "%s/pl.qtrace", s.dir);
	snprintf(log, sizeof(log), "%s/pl-rec.log", s.dir);
	{
		char *argv[] = { qostrace, "record", "-q", "-o", trace, "--force", "--", "/usr/bin/chrt", "-f", PRIO,
				 qostrace, "__pipeline", "--frames", "800", "--period", "20ms", "--priority", PRIO,
				 "--disturb", "thread", "--every", EVERY, "--length", "60ms", "--cpu", "1", "--log", log,
				 NULL };

		if (access(argv[7], X_OK))
			memmove(&argv[7], &argv[10], 19 * sizeof(*argv));
		st = e2e_run(argv, NULL, true, 300000);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "qostrace record failed: status %d", st);
	}
	nd = parse_log(log, d, 32, &src);
	cr_assert_eq(nd, 4, "%zu disturbances in 16 s", nd);
	for (int cut = 0; cut < 2; cut++) {
		char *argv[] = { qostrace, "watch", "--replay", trace, "-o", dir, "--before", "2s", "--after", "1s",
				 "--no-diagnosis", "--late", "20ms", NULL };

		snprintf(dir, sizeof(dir), "%s/replayed-%s", s.dir, cut ? "tenth" : "20ms");
		if (cut)
			argv[11] = NULL;	/* a tenth of the period */
		st = e2e_run(argv, NULL, true, 300000);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "qostrace watch --replay failed: status %d", st);
		nw = windows_in(dir, w, MAX_FILES);
		if (!cut) {
			one_window_per_disturbance(w, nw, d, nd);
			continue;
		}
		for (size_t i = 0; i < nd; i++) {
			bool in = false;

			for (size_t k = 0; k < nw && !in; k++)
				in = (long long)w[k].from <= d[i].start && (long long)w[k].to >= d[i].end;
			cr_assert(in, "the disturbance at %lld is in none of the %zu windows of the default cut", d[i].start,
				  nw);
		}
		cr_log_info("replayed with a tenth of the period: %zu windows for %zu disturbances", nw, nd);
	}
	e2e_scratch_close(&s);
}

/*
 * Starts argv on a new pseudo-terminal (stdout and stderr): a person's
 * terminal, where watch shows its status line. *master reads it.
 */
static pid_t spawn_on_terminal(char *const argv[], int *master)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	pid_t pid;

	cr_assert(m >= 0 && !grantpt(m) && !unlockpt(m), "a pseudo-terminal: %s", strerror(errno));
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		int slave;

		setsid();
		slave = open(ptsname(m), O_RDWR);
		dup2(slave, STDOUT_FILENO);
		dup2(slave, STDERR_FILENO);
		close(m);
		execv(argv[0], argv);
		_exit(127);
	}
	*master = m;
	return pid;
}

/* Reads the terminal for ms milliseconds (so that the child never blocks on a full terminal), appending to buf. */
static void read_terminal(int m, int ms, char *buf, size_t cap, size_t *len)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = m, .events = POLLIN };
		int left;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = ms - (int)((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || poll(&p, 1, left) <= 0)
			return;
		n = read(m, buf + *len, cap - 1 - *len);
		if (n <= 0)
			return;	/* EIO: the child's side is closed */
		*len += (size_t)n;
		buf[*len] = 0;
		if (*len >= cap - 1)
			*len = 0;	/* keep reading; the checks look at the end */
	}
}

/*
 * On a terminal: the status line every second; SIGUSR1 writes a window of
 * the last --before seconds; Ctrl-C ends it with the summary.
 */
Test(e2e_watch, terminal_status_sigusr1_and_ctrl_c, .timeout = 300)
{
	struct e2e_scratch s;
	/* breaks of 200 ms only: a busy machine may delay the pipeline's stages, not that much */
	char dir[512], log[512], *argv[] = { qostrace, "watch", "-o", dir, "--before", "2s", "--late", "200ms",
					     "--no-diagnosis", "--", qostrace, "__pipeline", "--frames", "100000",
					     "--period", "20ms", "--disturb", "none", "--log", log, NULL };
	static char text[1 << 20];
	size_t len = 0;
	DIR *d;
	struct dirent *e;
	int manual = 0, st, m;
	pid_t pid;

	setup(&s);
	snprintf(dir, sizeof(dir), "%s/usr1", s.dir);
	snprintf(log, sizeof(log), "%s/usr1.log", s.dir);
	pid = spawn_on_terminal(argv, &m);
	read_terminal(m, 3500, text, sizeof(text), &len);
	cr_assert_eq(kill(pid, SIGUSR1), 0);
	read_terminal(m, 3500, text, sizeof(text), &len);
	cr_assert_eq(kill(pid, SIGINT), 0);
	read_terminal(m, 60000, text, sizeof(text), &len);
	close(m);
	st = e2e_wait(pid, 60000);
	cr_assert(st != -1, "watch did not end on SIGINT");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	d = opendir(dir);
	cr_assert(d);
	while ((e = readdir(d)))
		manual += strstr(e->d_name, "-manual.qtrace") != NULL;
	closedir(d);
	cr_assert_eq(manual, 1, "one window on demand");
	/* the status line, redrawn in place: elapsed, events/s, actors, breaks, files */
	cr_assert(strstr(text, "\r\033[Kwatching 0:00:0"), "no status line on the terminal: %s", text);
	cr_assert(strstr(text, " events/s  "), "%s", text);
	cr_assert(strstr(text, " break") && strstr(text, "  1 file  lost "), "the window in the status line: %s", text);
	cr_assert(strstr(text, "(Ctrl-C stops)"), "%s", text);
	cr_assert(strstr(text, "window on demand (SIGUSR1) -> "), "%s", text);
	cr_assert(strstr(text, "qostrace: watched "), "%s", text);
	cr_assert(strstr(text, "1 window written"), "%s", text);
	cr_assert(strstr(text, "stopped: interrupted (SIGINT)"), "%s", text);
	e2e_scratch_close(&s);
}

Test(e2e_watch, bad_options_say_why)
{
	struct e2e_scratch s;
	char file[512], cmd[1024];

	setup(&s);
	snprintf(file, sizeof(file), "%s/plain", s.dir);
	close(open(file, O_CREAT | O_WRONLY, 0600));
	static const struct { const char *args, *says; int rc; } cases[] = {
		{ "-a", "-o DIR", 2 },
		{ "-o D", "nothing to watch", 2 },
		{ "-o D -a --late 5", "--late '5'", 2 },
		{ "-o D -a --before 0", "--before '0'", 2 },
		{ "-o D -a --memory 1M", "--memory '1M'", 2 },
		{ "-o D -a --actor 'write@'", "--actor 'write@'", 2 },
		{ "-o D -p 1 -a", "-p does not go with -a", 2 },
		{ "-o FILE -a", "is not a directory", 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char args[256];
		const char *a = cases[i].args;
		size_t k = 0;

		/* D: a directory to make; FILE: a plain file */
		for (; *a && k < sizeof(args) - 200; a++) {
			if (*a == 'D' && (a[1] == ' ' || !a[1]))
				k += snprintf(args + k, sizeof(args) - k, "%s/d%zu", s.dir, i);
			else if (!strncmp(a, "FILE", 4))
				k += snprintf(args + k, sizeof(args) - k, "%s", file), a += 3;
			else
				args[k++] = *a;
		}
		args[k] = 0;
		snprintf(cmd, sizeof(cmd), "%s watch %s", qostrace, args);
		e2e_sh_says(cmd, cases[i].rc, cases[i].says);
	}
	e2e_scratch_close(&s);
}
