// SPDX-License-Identifier: MIT
/* qostrace: dispatches to one subcommand per module (src/cmd_*.c). */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "demo/pipeline.h"

#ifdef QOSTRACE_JEMALLOC
#include <jemalloc/jemalloc.h>

/*
 * Read by jemalloc before main(). The analysis walks arrays of hundreds of
 * MB: on huge pages, with memory kept for reuse, a report runs about twice
 * as fast (README.md, Performance). One arena: the analysis is one thread;
 * no separate arena for blocks over 8 MB, whose memory jemalloc would hand
 * back at each free, to fault in and clear again at the next.
 */
const char *malloc_conf = "thp:always,metadata_thp:disabled,narenas:1,oversize_threshold:0";

/*
 * The recorder, which may run on a small box, allocates little once it
 * runs: what it frees goes back to the kernel at once, not after jemalloc's
 * ten seconds of decay (9 MB less resident on this machine).
 */
static void tune_malloc(const char *cmd)
{
	ssize_t zero = 0;

	if (strcmp(cmd, "record") && strcmp(cmd, "watch") && strcmp(cmd, "__pipeline"))
		return;
	mallctl("arena.0.dirty_decay_ms", NULL, NULL, &zero, sizeof(zero));
	mallctl("arena.0.muzzy_decay_ms", NULL, NULL, &zero, sizeof(zero));
}
#else
static void tune_malloc(const char *cmd) { (void)cmd; }
#endif

static const struct command commands[] = {
	{ "demo", cmd_demo, "record a built-in disturbed pipeline and explain it (start here)" },
	{ "record", cmd_record, "record scheduling, wakeups, IRQs and system calls with eBPF" },
	{ "watch", cmd_watch, "watch for hours, keep the seconds around each period break (flight recorder)" },
	{ "info", cmd_info, "what a trace file holds: header, duration, events, threads, losses" },
	{ "dump", cmd_dump, "one event per line, for grep" },
	{ "report", cmd_report, "analyse a trace (text, --json or --html)" },
	{ "export", cmd_export, "write a trace for other viewers (--perfetto: ui.perfetto.dev, chrome://tracing)" },
	{ "__pipeline", cmd_pipeline, NULL },	/* the demo's workload, hidden */
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: qostrace COMMAND [OPTIONS]\n\nCommands:\n");
	for (const struct command *c = commands; c->name; c++)
		if (c->summary)
			fprintf(f, "  %-8s %s\n", c->name, c->summary);
	fprintf(f, "\nRun 'qostrace COMMAND --help' for the options of one command.\n");
}

int main(int argc, char **argv)
{
	if (argc >= 2)
		tune_malloc(argv[1]);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	/* Usage errors exit with 2, and messages name "qostrace COMMAND". */
	argp_err_exit_status = 2;
	for (const struct command *c = commands; c->name; c++) {
		if (!strcmp(argv[1], c->name)) {
			char name[64];

			char **sub = calloc(argc, sizeof(*sub));
			int rc;

			if (!sub)
				return 1;
			/* A copy: argv keeps the command line as typed. */
			snprintf(name, sizeof(name), "qostrace %s", c->name);
			sub[0] = name;
			for (int i = 2; i < argc; i++)
				sub[i - 1] = argv[i];
			rc = c->run(argc - 1, sub, argv);
			free(sub);
			return rc;
		}
	}
	fprintf(stderr, "qostrace: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
