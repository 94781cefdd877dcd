/* SPDX-License-Identifier: MIT */
/*
 * The Diagnosis of an analysis as the text report prints it (the caller
 * frees the string), for the tests of its rendering; the tests of what it
 * says read the fields of struct diagnosis (diagnosis_fresh). Both compute
 * it afresh from a's stage results, which a test may have edited since the
 * analysis ran.
 */
#ifndef QT_SUMMARY_TEXT_H
#define QT_SUMMARY_TEXT_H

#include <stdio.h>

#include "analysis/analysis.h"
#include "analysis/diagnosis.h"
#include "report/report.h"
#include "testutil.h"

/* a's diagnosis recomputed in place (a->diagnosis replaced); returns it. */
static inline const struct diagnosis *diagnosis_fresh(struct analysis *a)
{
	diagnosis__free(a->diagnosis);
	a->diagnosis = NULL;
	cr_assert_eq(diagnosis__compute(a, &a->diagnosis), 0);
	return a->diagnosis;
}

static inline char *summary_text(const struct analysis *a)
{
	struct report_style st = { 0 };
	struct analysis copy = *a;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(diagnosis__compute(a, &copy.diagnosis), 0);
	report_summary(&copy, f, &st);
	diagnosis__free(copy.diagnosis);
	fclose(f);
	return buf;
}

#endif
