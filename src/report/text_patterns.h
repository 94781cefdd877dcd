/* SPDX-License-Identifier: MIT */
/* The emerging patterns (patterns/patterns.h) in the terminal report. */
#ifndef QT_TEXT_PATTERNS_H
#define QT_TEXT_PATTERNS_H

#include <stdio.h>

#include "patterns/patterns.h"
#include "style.h"

/*
 * The report's section on @f: the search in two lines, then the top
 * patterns (all of them with st->verbose, else five). Nothing when @r is
 * NULL.
 */
void text_patterns_print(const struct patterns_result *r, FILE *f, const struct report_style *st);

#endif
