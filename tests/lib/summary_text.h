/* SPDX-License-Identifier: MIT */
/* The report's Diagnosis of an analysis as a string (the caller frees it), for the tests that read it. */
#ifndef QT_SUMMARY_TEXT_H
#define QT_SUMMARY_TEXT_H

#include <stdio.h>

#include "analysis/analysis.h"
#include "report/report.h"
#include "testutil.h"

static inline char *summary_text(const struct analysis *a)
{
	struct report_style st = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	report_summary(a, f, &st);
	fclose(f);
	return buf;
}

#endif
