/*
 * A recording, or a Gantt chart, opened for a command; with its analysis
 * once session__analyse() has run.
 */
#ifndef QT_SESSION_H
#define QT_SESSION_H

#include "analysis/analysis.h"
#include "file/gantt_csv.h"
#include "timeline/timeline.h"
#include "file/trace.h"

struct session {
	struct trace *trace;
	struct timeline *tl;
	struct gantt *gantt;		/* a Gantt chart instead of trace and tl */
	struct analysis *an;
};

/* Loads a trace and builds its timeline; prints why on failure. 0 or a negative errno. */
int session__open(const char *path, struct session *s);

/*
 * What report and export read: a trace file, or a Gantt chart when the file
 * is not a trace and its name ends in .csv. A trace's switch, wakeup,
 * syscall and IRQ records are freed as its timeline is built
 * (timeline__build_consuming): the analysis reads the timeline alone.
 * Prints why on failure.
 */
int session__open_input(const char *path, struct session *s);

/*
 * Runs every analysis stage into s->an. A trace's switch, wakeup, syscall
 * and IRQ records are freed first if they are still there: the timeline
 * holds what the stages read.
 */
int session__analyse(struct session *s, const struct analysis_opts *o);

void session__close(struct session *s);

#endif
