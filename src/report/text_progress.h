/* SPDX-License-Identifier: MIT */
/* The two-thread progress graph in the text report. */
#ifndef QT_REPORT_TEXT_PROGRESS_H
#define QT_REPORT_TEXT_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct analysis;
struct report_style;

/*
 * The "Two threads" section into f from a->progress: which pair and why,
 * the blocks (who waited for whom, how often, how long), the steady cycle
 * with its period, the departures from it (the 5 costliest, all in time
 * order with st->verbose) with the period breaks they fall in, and the
 * time the model does not see; with st->verbose also the first blocks one
 * by one. Nothing when a->progress is NULL.
 */
void text_progress_print(const struct analysis *a, FILE *f, const struct report_style *st);

/*
 * "read(fd 3)", "futex(0x7f..)", "clock_nanosleep": a call as the progress
 * graph's labels show it (arch: the recording's), into buf; "-" for nr < 0.
 */
const char *text_progress_call(const char *arch, int32_t nr, uint64_t arg0, char *buf, size_t len);

#endif
