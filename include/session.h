/* A trace file opened for a command: the loaded trace and its timeline. */
#ifndef QT_SESSION_H
#define QT_SESSION_H

#include "timeline.h"
#include "trace.h"

struct session {
	struct trace *trace;
	struct timeline *tl;
};

/* Loads and builds; prints why on failure. 0 or a negative errno. */
int session__open(const char *path, struct session *s);
void session__close(struct session *s);

#endif
