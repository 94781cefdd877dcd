/* What the end-to-end tests (tests/test_e2e_*.c) share. */
#ifndef QT_E2EUTIL_H
#define QT_E2EUTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "record/probe.h"
#include "record/recorder.h"

/* Where the binaries are: scripts/run-tests.sh says it (SAN builds differ). */
static inline const char *build_dir(void)
{
	const char *b = getenv("QOSTRACE_BUILD");

	return b && *b ? b : "build";
}

/* A test that cannot record says SKIPPED and why; it never passes silently. */
static inline void require_recording(void)
{
	char msg[512];

	if (recorder_missing()) {
		fprintf(stderr, "SKIPPED: this build cannot record: %s\n", recorder_missing());
		cr_skip_test("this build cannot record: %s", recorder_missing());
	}
	if (probe_recording(msg, sizeof(msg))) {
		fprintf(stderr, "SKIPPED: cannot record here: %s\n", msg);
		cr_skip_test("cannot record here: %s", msg);
	}
}

/* Starts argv with stdout to out (NULL: /dev/null), stderr to /dev/null when quiet; its pid. */
static inline pid_t e2e_spawn(char *const argv[], const char *out, bool quiet)
{
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0) {
		int fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(fd, STDOUT_FILENO);
		if (quiet) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, STDERR_FILENO);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Waits up to timeout_ms: the wait status (0: exited with 0), -1 on timeout (killed). */
static inline int e2e_wait(pid_t pid, int timeout_ms)
{
	/*
	 * One blocking wait on a pidfd, not a poll every 10 ms: with -a the
	 * test itself is recorded, and a poller is a 10 ms periodic thread
	 * that the disturbances break (it was once "first to break").
	 */
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), status, ready;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	/* Linux 5.3: every kernel qostrace records on has it */
	cr_assert(fd >= 0, "pidfd_open: %s", strerror(errno));
	do
		ready = poll(&p, 1, timeout_ms);
	while (ready < 0 && errno == EINTR);
	close(fd);
	if (ready > 0 && waitpid(pid, &status, 0) == pid)
		return status;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

/* e2e_spawn, then e2e_wait. */
static inline int e2e_run(char *const argv[], const char *out, bool quiet, int timeout_ms)
{
	return e2e_wait(e2e_spawn(argv, out, quiet), timeout_ms);
}

/*
 * A suite's scratch directory: QOSTRACE_TEST_TMP when set (kept: a suite
 * records there once, to look at or to run its checks again), else a new
 * one, removed by e2e_scratch_close().
 */
struct e2e_scratch {
	char *dir;
	bool keep;
};

static inline void e2e_scratch_open(struct e2e_scratch *s)
{
	const char *env = getenv("QOSTRACE_TEST_TMP");

	s->keep = env && *env;
	s->dir = s->keep ? strdup(env) : tu_tmpdir();
	cr_assert_not_null(s->dir);
}

static inline void e2e_scratch_close(struct e2e_scratch *s)
{
	if (s->dir && !s->keep)
		tu_rmdir(s->dir);
	free(s->dir);
	s->dir = NULL;
}

/*
 * Runs argv (a qostrace record command) that writes into s's directory,
 * unless s is kept and a run of it there already finished (the file
 * `done` in it says so): a kept directory is recorded once.
 */
static inline void e2e_record_once(const struct e2e_scratch *s, char *const argv[], const char *done,
				   int timeout_ms)
{
	char mark[512];
	int status;

	snprintf(mark, sizeof(mark), "%s/%s", s->dir, done);
	if (s->keep && !access(mark, F_OK))
		return;
	status = e2e_run(argv, NULL, false, timeout_ms);
	cr_assert(status != -1, "the recording did not finish within %d s", timeout_ms / 1000);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "qostrace record failed: status %d", status);
	if (s->keep)
		close(open(mark, O_CREAT | O_WRONLY, 0600));
}

/* Runs a shell command; its output (stdout and stderr) in *out. Returns the exit code. */
static inline int e2e_sh(const char *cmd, char **out)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	char full[4096];
	FILE *p;
	int st;

	cr_assert(buf);
	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	p = popen(full, "r");
	cr_assert(p, "cannot run %s", cmd);
	for (;;) {
		size_t n = fread(buf + len, 1, cap - len - 1, p);

		len += n;
		if (len == cap - 1) {
			cap *= 2;
			buf = realloc(buf, cap);
			cr_assert(buf);
		} else if (!n) {
			break;
		}
	}
	buf[len] = 0;
	st = pclose(p);
	if (out)
		*out = buf;
	else
		free(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* A command that must end with @rc and say @says (a refusal and its reason, say). */
static inline void e2e_sh_says(const char *cmd, int rc, const char *says)
{
	char *out;

	cr_assert_eq(e2e_sh(cmd, &out), rc, "%s: %s", cmd, out);
	cr_assert(strstr(out, says), "%s: %s", cmd, out);
	free(out);
}

/* The python3 that has jsonschema: Debian's (python3-jsonschema), else the first in PATH. */
static inline const char *e2e_schema_python(void)
{
	if (e2e_sh("/usr/bin/python3 -c 'import jsonschema'", NULL) == 0)
		return "/usr/bin/python3";
	if (e2e_sh("python3 -c 'import jsonschema'", NULL) == 0)
		return "python3";
	fprintf(stderr, "SKIPPED: python3-jsonschema is missing (scripts/install-deps.sh)\n");
	cr_skip_test("python3-jsonschema is missing");
	return NULL;
}

/*
 * `qostrace report --json` of trace into json, validated against
 * docs/report.schema.json (tests/views/validate_schema.py, which also
 * checks that the schema rejects documents broken on purpose).
 */
static inline void e2e_validate_report(const char *trace, const char *json)
{
	const char *py = e2e_schema_python();
	char cmd[2048], *out;

	snprintf(cmd, sizeof(cmd), "%s/qostrace report -q --json '%s' > '%s'", build_dir(), trace, json);
	cr_assert_eq(e2e_sh(cmd, &out), 0, "report --json failed:\n%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s tests/views/validate_schema.py docs/report.schema.json '%s' --expect trace",
		 py, json);
	cr_assert_eq(e2e_sh(cmd, &out), 0, "%s", out);
	cr_assert(!strncmp(out, "valid trace,threads", 19), "%s", out);
	free(out);
}

/* A whole file as a string (the caller frees it). */
static inline char *e2e_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	cr_assert(f, "%s missing", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, n + 1);
	cr_assert(buf);
	cr_assert_eq(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	return buf;
}

/* e2e_validate_report() into report.json of s's directory; the document (the caller frees it). */
static inline char *e2e_validated_report(const char *trace, const struct e2e_scratch *s)
{
	char json[512];

	snprintf(json, sizeof(json), "%s/report.json", s->dir);
	e2e_validate_report(trace, json);
	return e2e_slurp(json);
}

/* What argv (a qostrace command) printed, through the file name in s's directory; it must succeed. */
static inline char *e2e_output(char *const argv[], const struct e2e_scratch *s, const char *name)
{
	char out[512];

	snprintf(out, sizeof(out), "%s/%s", s->dir, name);
	cr_assert_eq(e2e_run(argv, out, true, 60000), 0, "%s %s failed", argv[0], argv[1]);
	return e2e_slurp(out);
}

#endif
