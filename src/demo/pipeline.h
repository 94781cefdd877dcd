/*
 * A small streaming pipeline of known behaviour: what `qostrace demo`
 * records, and the ground truth of the analysis tests.
 *
 *              +--> fx (long branch) --+
 *   src --> dec                        +--> sink --> write(/dev/null)
 *              +--> scale (short) -----+
 *
 * src runs every period on an absolute timer; every stage spins a known
 * CPU time and hands the frame on through a pipe (one wakeup per hand-over).
 * A disturber, pinned with src to one CPU at a real-time priority, takes
 * that CPU at known moments (a thread that spins, or a burst of uname()
 * calls), so src misses its period there and the delay propagates.
 *
 * The log (one line per fact, CLOCK_MONOTONIC ns) is the ground truth:
 *   stage name=N tid=T
 *   frame stage=N k=K start=NS end=NS
 *   disturb start=NS end=NS kind=thread|syscalls
 */
#ifndef QT_PIPELINE_H
#define QT_PIPELINE_H

#include <stdint.h>

enum pipeline_stage { PL_SRC, PL_DEC, PL_FX, PL_SCALE, PL_SINK, PL_NSTAGES };

enum pipeline_disturb {
	PL_DISTURB_NONE,
	PL_DISTURB_THREAD,	/* a real-time thread spins on src's CPU */
	PL_DISTURB_SYSCALLS,	/* a real-time thread bursts uname() calls there */
};

struct pipeline_opts {
	unsigned int frames;		/* default 300 */
	uint64_t period_ns;		/* default 10 ms */
	uint64_t work_ns[PL_NSTAGES];	/* default src 1, dec 2, fx 3, scale 1, sink 1 ms */
	enum pipeline_disturb disturb;
	const char *disturber_name;	/* thread name, default "disturber" */
	uint64_t disturb_every_ns;	/* default 1 s, first at 0.55 s */
	uint64_t disturb_ns;		/* default 25 ms */
	int cpu;			/* src and the disturber share it; default 0 */
	int rt_priority;		/* SCHED_FIFO priority of the stages, like a media
					 * pipeline's; the disturber gets rt_priority + 5;
					 * 0: normal scheduling. Default 5 */
	const char *log;		/* NULL: no log */
};

extern const char *const pipeline_stage_names[PL_NSTAGES];

void pipeline_opts_default(struct pipeline_opts *o);
/* Runs the pipeline in this process; returns 0 or a negative errno. */
int pipeline_run(const struct pipeline_opts *o);

/* The hidden "qostrace __pipeline" command the demo and the tests start. */
int cmd_pipeline(int argc, char **argv, char *const *whole);

#endif
