/*
 * One analysis of a recording (docs/DESIGN.md §1): the stages run in
 * order over the timeline, each a module with its own result, then the
 * Diagnosis (diagnosis.h) from their results; every rendering
 * (src/report/: text, JSON, HTML and Perfetto) reads the same struct
 * analysis and only renders it. A stage that has nothing to say leaves
 * its result NULL; renderings then print null or an empty list, never
 * invent.
 */
#ifndef QT_ANALYSIS_H
#define QT_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actors/actor.h"
#include "timeline/timeline.h"
#include "file/trace.h"

struct actors_result;
struct critical_result;
struct patterns_result;
struct progress_result;
struct dataflow_result;
struct diagnosis;
struct gantt;

#define ANALYSIS_DEFAULT_BREAK_PATHS 1000

struct analysis_opts {
	/* actors: report --actor SPEC (repeatable), --qcod */
	const char *const *actor_specs;
	size_t n_actor_specs;
	double qcod_threshold;		/* 0: 0.10 */
	/*
	 * --min-late DURATION|PERCENT: the cut between major breaks and
	 * jitter (actor.h), one notion for every stage and report: the
	 * upstream choice, the Diagnosis and the pattern search count the
	 * major breaks. Default a tenth of each actor's period.
	 */
	struct actors_cut min_late;
	/* critical path: --epsilon DURATION|auto */
	int64_t epsilon_ns;		/* < 0: auto (from confirmed edges) */
	bool timing_only;		/* --timing-only: ignore the wakeups (start and end times alone) */
	/*
	 * --break-paths N: the critical paths listed in full in JSON and HTML
	 * are those of the N worst breaks (0: all). A storm has tens of
	 * thousands of breaks; with every path in full its JSON report ran
	 * to 1.2 GB. Every break is still analysed and counted; the
	 * stretches of the others are not kept (critical_opts.seg_breaks),
	 * and the Perfetto export draws the same N.
	 */
	size_t break_paths;
	/* progress graph: --pair A,B (NULL: the default pair) */
	const char *pair;
	/*
	 * data-flow path: --data-path[=OBJECT] asked for it (then a recording
	 * without data records is an error); OBJECT, or NULL: the default
	 * target. Computed whenever the recording has data records.
	 */
	bool data_path;
	const char *data_target;
	/* patterns: --delta, --alpha, --gap, --search-patterns */
	double delta, alpha;		/* < 0: automatic search */
	int gap;			/* < 0: default */
	bool search_patterns;		/* search even where it cannot pay (patterns_cannot_pay()) */
	bool progress;			/* progress lines on a terminal */
	int verbose;
	/*
	 * The critical-path stage and the pattern search read the timeline and
	 * the actors and write only their own results: with 2 (the default
	 * where the process may run on two CPUs, workq_cpus_usable()) they
	 * run side by side, the critical path's graph already beside the
	 * actors' stage; with 1 one after the other. The results are the same.
	 */
	int jobs;
};

struct analysis {
	const struct trace *trace;	/* NULL for a Gantt chart */
	const struct timeline *tl;	/* NULL for a Gantt chart */
	const struct gantt *gantt;	/* NULL for a trace */
	struct analysis_opts opts;

	struct actors_result *actors;	/* actors.h: invocations, periods, breaks (SATM §4) */
	struct critical_result *critical; /* critical.h: precedence graph and critical paths */
	struct patterns_result *patterns; /* patterns.h: emerging patterns (SATM §5) */
	/* progress.h: the two-thread progress graph (Abrams et al.); NULL: no pair */
	struct progress_result *progress;
	/* dataflow/stage.h: the data-flow critical path (Nguyen & Karavanic); NULL: no data records */
	struct dataflow_result *dataflow;
	/* diagnosis.h: the three answers, from the results above (NULL for a Gantt chart) */
	struct diagnosis *diagnosis;
};

void analysis_opts_default(struct analysis_opts *o);

/*
 * Runs every stage over a recording, then the Diagnosis from their
 * results. 0 or a negative errno (after a message): -ESRCH when --pair
 * names a thread the recording does not have; with --data-path, -ENODATA
 * (no data records), -ESRCH (no such object).
 */
int analysis__run_trace(const struct trace *t, const struct timeline *tl,
			const struct analysis_opts *o, struct analysis **out);
/* The critical-path stage alone, over a Gantt chart (report FILE.csv). */
int analysis__run_gantt(const struct gantt *g, const struct analysis_opts *o,
			struct analysis **out);
void analysis__free(struct analysis *a);

#endif
