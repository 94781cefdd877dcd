// SPDX-License-Identifier: MIT
/*
 * qostrace demo: records the built-in pipeline (src/demo/pipeline.h) with a
 * disturber at known moments, then prints the report, so that a person who
 * has never seen the tool sees what it finds and how to read it.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "commands.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "demo/pipeline.h"
#include "record/probe.h"
#include "record/recorder.h"
#include "report/report.h"
#include "session.h"

struct demo_args {
	const char *path;
	const char *frames;
	const char *disturb;
	bool json;
};

static const struct argp_option options[] = {
	{ "output", 'o', "FILE", 0, "Keep the recording in FILE (default: a temporary file, removed)", 0 },
	{ "frames", 'n', "N", 0, "Frames of 10 ms to run (default 400: 4 s)", 0 },
	{ "disturb", 'd', "KIND", 0, "What disturbs the pipeline: thread (default), syscalls, none", 0 },
	{ "json", 'j', NULL, 0, "Print the JSON report instead of the text one", 0 },
	{ 0 },
};

static const char doc[] =
	"Record a small built-in streaming pipeline that is disturbed at known moments,\n"
	"and explain what broke its rhythm.\n"
	"\n"
	"USAGE: qostrace demo [OPTIONS]\n"
	"\v"
	"The pipeline: src --> dec --> fx (3 ms) and scale (1 ms) --> sink, one frame\n"
	"every 10 ms, at a real-time priority. Every half second a thread of higher\n"
	"priority named 'disturber' takes src's CPU for 25 ms. The report should name src as the first stage to break its period,\n"
	"the disturber as what delayed it, and the disturber's activity as the pattern\n"
	"that shows up whenever the period breaks. Needs root (it records with eBPF).";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct demo_args *a = state->input;
	uint64_t v;

	switch (key) {
	case 'o':
		a->path = arg;
		break;
	case 'n':
		if (parse_u64(arg, 10, 100000, &v))
			argp_error(state, "--frames '%s': a number from 10 to 100000", arg);
		a->frames = arg;
		break;
	case 'd':
		if (strcmp(arg, "thread") && strcmp(arg, "syscalls") && strcmp(arg, "none"))
			argp_error(state, "--disturb '%s': thread, syscalls or none", arg);
		a->disturb = arg;
		break;
	case 'j':
		a->json = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "demo takes no file: use -o FILE to keep the recording");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_demo(int argc, char **argv, char *const *whole)
{
	struct demo_args a = { .frames = "400", .disturb = "thread" };
	struct argp argp = { options, parse_opt, NULL, doc, NULL, NULL, NULL };
	char self[PATH_MAX], tmp[] = "/tmp/qostrace-demo-XXXXXX", path[PATH_MAX];
	struct recorder_opts ro = { 0 };
	struct recorder_summary sum;
	struct analysis_opts ao;
	struct report_style st = { 0 };
	struct session s;
	char msg[512];
	ssize_t n;
	int err;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return 2;
	if (recorder_missing()) {
		log_err("the demo records with eBPF, and this qostrace was built without its BPF programs (%s)",
			recorder_missing());
		return 1;
	}
	if (probe_recording(msg, sizeof(msg))) {
		log_err("the demo records with eBPF: %s", msg);
		return 1;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		log_err("cannot find my own executable: %s", strerror(errno));
		return 1;
	}
	self[n] = 0;
	if (a.path) {
		snprintf(path, sizeof(path), "%s", a.path);
	} else {
		if (!mkdtemp(tmp)) {
			log_err("cannot create a temporary directory: %s", strerror(errno));
			return 1;
		}
		snprintf(path, sizeof(path), "%s/demo.qtrace", tmp);
	}
	{
		char *pargv[] = { self, "__pipeline", "--frames", (char *)a.frames, "--disturb",
				  (char *)a.disturb, "--every", "500ms", NULL };

		ro.mode = REC_MODE_COMMAND;
		ro.argv = pargv;
		ro.path = path;
		ro.force = a.path != NULL;
		ro.ring_bytes = 32u << 20;
		ro.poll_ms = 100;
		ro.zlevel = 1;
		ro.cmdline = "qostrace demo";
		fprintf(stderr, "qostrace demo: recording the built-in pipeline for %.1f s "
			"(src -> dec -> fx|scale -> sink every 10 ms; disturbed: %s)\n",
			atoi(a.frames) / 100.0, a.disturb);
		err = recorder_run(&ro, &sum);
	}
	if (err)
		goto out;
	fprintf(stderr, "qostrace demo: %llu events recorded, %llu lost; analysing %s\n",
		(unsigned long long)sum.events, (unsigned long long)sum.lost, path);
	err = session__open_input(path, &s);
	if (err)
		goto out;
	analysis_opts_default(&ao);
	ao.progress = log_is_tty();
	err = session__analyse(&s, &ao);
	if (!err) {
		st.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
		err = a.json ? report_json(s.an, stdout) : report_text(s.an, stdout, &st);
	}
	if (!err && !a.json)
		printf("\nThe recording was %s. Try: qostrace report --json, qostrace info, qostrace dump "
		       "on a recording of your own: qostrace record -o run.qtrace -- ./your-pipeline\n",
		       a.path ? a.path : "temporary (use -o FILE to keep it)");
	session__close(&s);
out:
	if (!a.path) {
		unlink(path);
		rmdir(tmp);
	}
	return err ? 1 : 0;
}
