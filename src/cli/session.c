// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"
#include "session.h"
#include "file/tracefile.h"

static int open_trace(const char *path, struct session *s, bool keep_records)
{
	struct trace_load_opts lo = { .progress = true };
	struct timeline_opts to = { .progress = true };
	char err[512];
	int e;

	memset(s, 0, sizeof(*s));
	e = trace__load(path, &lo, &s->trace, err, sizeof(err));
	if (e) {
		log_err("%s", err);
		return e;
	}
	e = keep_records ? timeline__build(s->trace, &to, &s->tl) :
			   timeline__build_consuming(s->trace, &to, &s->tl);
	if (e) {
		log_err("%s: cannot build the timeline: %s", path, strerror(-e));
		trace__free(s->trace);
		s->trace = NULL;
		return e;
	}
	return 0;
}

int session__open(const char *path, struct session *s)
{
	return open_trace(path, s, true);
}

/* A trace file starts with its magic; anything else named *.csv is a Gantt chart. */
static bool is_trace(const char *path)
{
	char magic[8];
	FILE *f = fopen(path, "rb");
	bool yes;

	if (!f)
		return true;	/* the trace loader says why it cannot be read */
	yes = fread(magic, 1, sizeof(magic), f) == sizeof(magic) && !memcmp(magic, TF_MAGIC, 8);
	fclose(f);
	return yes || !strstr(path, ".csv");
}

int session__open_input(const char *path, struct session *s)
{
	char msg[512];
	int e;

	if (is_trace(path))
		return open_trace(path, s, false);
	memset(s, 0, sizeof(*s));
	e = gantt__read(path, NULL, &s->gantt, msg, sizeof(msg));
	if (e)
		log_err("%s", msg);
	return e;
}

int session__analyse(struct session *s, const struct analysis_opts *o)
{
	if (s->gantt)
		return analysis__run_gantt(s->gantt, o, &s->an);
	trace__drop_records(s->trace);
	return analysis__run_trace(s->trace, s->tl, o, &s->an);
}

void session__close(struct session *s)
{
	analysis__free(s->an);
	gantt__free(s->gantt);
	timeline__free(s->tl);
	trace__free(s->trace);
	memset(s, 0, sizeof(*s));
}
