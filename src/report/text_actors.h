/* SPDX-License-Identifier: MIT */
/* The actors' stage in the text report. */
#ifndef QT_REPORT_TEXT_ACTORS_H
#define QT_REPORT_TEXT_ACTORS_H

#include <stdio.h>

#include "actors/actor.h"

struct actors_result;
struct report_style;
struct timeline;

/*
 * The cut between major breaks and jitter (actor.h) as the text report
 * words it, into buf[len]: "2 ms", "10 % of " period ("the period", "its
 * period"), or "any time" where there is no cut. Returns buf.
 */
const char *text_actors_cut(char *buf, size_t len, struct actors_cut c, const char *period);

/*
 * The "Actors" section into f: the table of actors (the upstream actor,
 * the breaking ones, the periodic ones, then the rest; 12 rows unless
 * st->verbose; BREAKS counts the major breaks, jitter is a note), the
 * threads not studied, and the most upstream breaking actor's breaks (the
 * 5 worst, or with st->verbose all in time order).
 * r may be NULL (the stage did not run): the section says there is no
 * thread to study. tl is the timeline r was made on. Write errors are
 * the stream's (ferror).
 */
void text_actors_print(const struct actors_result *r, const struct timeline *tl, FILE *f,
		       const struct report_style *st);

#endif
