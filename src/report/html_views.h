/* SPDX-License-Identifier: MIT */
/*
 * The qt-data of the page's views from the other papers (src/report/
 * html.h has the rest of the layout), written by src/report/html.c after
 * the critical paths:
 *
 *   "progress": null | { "x": lane, "y": lane, "n": rays, "cut": bool,
 *                        "rays": [ kind, t0, x0, y0, x1, y1, block, flags, ... ] }
 *
 * The two-thread progress graph's rays (src/progress/progress.h), 8
 * integers each: kind (enum pg_ray_kind), t0 relative to the page's t0,
 * the points in ns of progress, the block index (-1: none), flags (1
 * open, 2 dead). At most HTML_PROGRESS_RAYS of them (cut: more there
 * were); x and y are the lanes of the pair's threads (-1: none).
 */
#ifndef QT_REPORT_HTML_VIEWS_H
#define QT_REPORT_HTML_VIEWS_H

#include <stdint.h>
#include <stdio.h>

struct analysis;

#define HTML_PROGRESS_RAYS 200000

/* Writes ,"progress":... into f (lane_of: a thread's lane, UINT32_MAX for none). */
void html_views_progress(FILE *f, const struct analysis *a, const uint32_t *lane_of, int64_t t0);

#endif
