// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>

#include "log.h"
#include "session.h"

int session__open(const char *path, struct session *s)
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
	e = timeline__build(s->trace, &to, &s->tl);
	if (e) {
		log_err("%s: cannot build the timeline: %s", path, strerror(-e));
		trace__free(s->trace);
		s->trace = NULL;
		return e;
	}
	return 0;
}

void session__close(struct session *s)
{
	timeline__free(s->tl);
	trace__free(s->trace);
	memset(s, 0, sizeof(*s));
}
