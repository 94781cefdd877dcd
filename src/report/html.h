/*
 * report --html: one self-contained HTML file (docs/DESIGN.md §9): a zoomable
 * timeline with a lane per thread (run intervals, the actors' invocations,
 * period breaks highlighted, critical tasks outlined in red, missing data
 * shaded), then the actor table, the patterns and the critical path. No
 * network: inline CSS and JS (src/report/html.js, .css, embedded by
 * scripts/gen-html-assets.sh) and the data in two JSON blocks:
 *
 *   <script type="application/json" id="qt-report">  the report --json document
 *   <script type="application/json" id="qt-data">    the timeline, compact:
 *
 *   { "v": 1, "t0": "<origin, CLOCK_MONOTONIC ns, as a string>",
 *     "dur": ns, "cpus": N, "gantt": false,
 *     "states": [ "preempted", "sleep", ... ],     names of the end states
 *     "lanes": [ { "name", "tid", "pid", "target", "kernel", "actor": [i...],
 *                  "run_ns", "n": runs,
 *                  "runs": [ gap, dur, code,  gap, dur, code, ... ] } ],
 *     "gaps": [ cpu, start, end, kind, lost,  ... ],
 *     "actors": [ { "lane", "name", "kind", "periodic", "period_ns", "qcod",
 *                   "inv": [ gap, dur, ... ],
 *                   "breaks": [ before, late, start, end, lateness, missing, ... ] } ],
 *     "upstream": actor index or -1,
 *     "critical": null | { "cats": [ category names ],
 *                          "paths": [ { "name", "actor", "brk", "lateness", "links",
 *                                       "seg": [ lane, start, end, kind, holder, cat, ... ] } ] },
 *     "progress": ... }                           the views of html_views.h
 *
 * Times are integer ns relative to t0. A lane's runs are delta-encoded: gap
 * is the start minus the previous run's end (the first: minus 0), dur the
 * length, code = cpu * 64 + flags * 8 + end_state (TL_RUN_* flags,
 * enum qt_run_end). That is 12 to 20 bytes per run interval in practice.
 * The page decodes them once into typed arrays with a prefix sum of busy
 * time, so any window's busy fraction costs two binary searches: when more
 * runs are visible than pixels, a lane is drawn as per-pixel busy fraction
 * (O(pixels log n)), otherwise as exact intervals of the visible window.
 *
 * Critical paths (critical.h): into the late invocation of every break and
 * into the end of the recording; kind is enum crit_seg_kind (RUN stretches
 * are outlined red, WAIT ones dashed with the lane that held the CPU),
 * consecutive stretches on different lanes are joined by a line.
 *
 * For a Gantt chart the lanes are the actors (sub-lanes where tasks
 * overlap), each run a task, "names" + per-lane "task" and "line" give the
 * task names and CSV lines, and the critical paths are the critical tasks
 * (float 0, "links": false) and the critical paths the stage lists.
 */
#ifndef QT_REPORT_HTML_H
#define QT_REPORT_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"

/* Zero-initialised (or NULL) means the defaults. */
struct report_html_opts {
	const char *title;	/* NULL: "qostrace: " + the input file */
};

struct report_html_stats {
	size_t lanes;
	uint64_t runs;		/* run intervals (or tasks) in the lanes */
	uint64_t data_bytes;	/* of the qt-data block */
	uint64_t bytes;		/* of the whole page */
};

/* Writes the page to f. 0, -ENOMEM, or -EIO when writing failed. */
int report_html(const struct analysis *a, FILE *f, const struct report_html_opts *opts,
		struct report_html_stats *stats);

/* The same into the file at path (created 0644, replaced). */
int report_html_write(const struct analysis *a, const char *path,
		      const struct report_html_opts *opts, struct report_html_stats *stats);

#endif
