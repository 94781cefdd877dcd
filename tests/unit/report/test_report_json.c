// SPDX-License-Identifier: MIT
/*
 * report --json's "diagnosis" (src/report/json_diagnosis.c) on the small
 * synthetic recording of tests/lib/synth_views.h: struct diagnosis field
 * for field, with names beside the indices; null for a Gantt chart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnosis.h"
#include "file/gantt_csv.h"
#include "report/report.h"
#include "synth_views.h"
#include "testutil.h"

static char *json_of(const struct analysis *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(report_json(a, f), 0);
	fclose(f);
	return buf;
}

/* The "diagnosis" object, up to the next top-level field (the caller frees it). */
static char *diagnosis_of(const char *doc)
{
	const char *a = strstr(doc, "\n  \"diagnosis\": "), *b;

	cr_assert_not_null(a, "%s", doc);
	b = strstr(a + 1, "\n  \"");
	cr_assert_not_null(b);
	return strndup(a, (size_t)(b - a));
}

Test(report_json, the_diagnosis_of_a_break)
{
	struct sv_scene sc;
	char *doc, *d;

	sv_open(&sc, true);
	doc = json_of(&sc.an);
	/* the answers first, right after the version: the verdict, then the Diagnosis */
	cr_assert(strstr(doc, "\"qostrace_report\": \"1\",\n  \"verdict\": \"breaks\",\n  \"diagnosis\": {"),
		  "%s", doc);
	d = diagnosis_of(doc);
	cr_expect(strstr(d, "\"answer\": \"upstream_breaks\",\n    \"actors\": 1,\n    \"periodic\": 1,\n"
			    "    \"qcod_threshold\": 0.1,\n    \"min_late_fraction\": 0.1,\n    \"min_late_ns\": null,\n"
			    "    \"rhythm\": [\n      {\n        \"index\": 0,\n        \"name\": \"src/100\",\n"
			    "        \"tid\": 100,\n        \"comm\": \"src\",\n        \"period_ns\": 10000000,\n"
			    "        \"worst_lateness_ns\": 4000000,\n        \"share\": 0.4,\n        \"major_breaks\": 1,\n"
			    "        \"jitter\": 0\n      }\n    ],\n"), "%s", d);
	cr_expect(strstr(d, "\"upstream\": {\n      \"index\": 0,\n      \"name\": \"src/100\",\n      \"tid\": 100,\n"
			    "      \"comm\": \"src\",\n      \"period_ns\": 10000000,\n      \"breaks\": 1,\n"
			    "      \"worst_lateness_ns\": 4000000,\n      \"jitter\": 0,\n      \"worst_jitter_ns\": 0\n    },\n"
			    "    \"downstream_checked\": true,\n"), "%s", d);
	cr_expect(strstr(d, "\"breaking\": [\n      {\n        \"index\": 0,\n        \"name\": \"src/100\",\n"
			    "        \"tid\": 100,\n        \"comm\": \"src\",\n        \"breaks\": 1,\n"
			    "        \"jitter\": 0,\n        \"worst_jitter_ns\": 0,\n        \"downstream\": false,\n        \"after_upstream\": 0,\n        \"own\": 0,\n"
			    "        \"own_major\": 0,\n        \"own_worst_ns\": 0,\n        \"on_its_own\": false\n      }\n"
			    "    ],\n    \"on_its_own_worst\": null,\n"), "%s", d);
	/* noise held src's CPU through [51, 55) ms: what the scene makes certain */
	cr_expect(strstr(d, "\"cause\": {\n      \"kind\": \"culprit\",\n      \"worst_breaks\": [\n        0\n      ],\n"
			    "      \"breaks\": 1,\n"), "%s", d);
	cr_expect(strstr(d, "\"how\": \"cpu_wait_behind\",\n      \"tid\": 200,\n      \"name\": \"noise\",\n"
			    "      \"threads\": 1\n    },\n    \"patterns\": null\n  },"), "%s", d);
	cr_expect_eq(sc.an.diagnosis->cause.min_ns, sc.an.diagnosis->cause.total_ns);
	free(d);
	free(doc);
	sv_close(&sc);
}

Test(report_json, no_actor_is_an_answer_too)
{
	struct sv_scene sc;
	char *doc, *d;

	sv_open(&sc, false);
	doc = json_of(&sc.an);
	d = diagnosis_of(doc);
	cr_expect_str_eq(d, "\n  \"diagnosis\": {\n    \"answer\": \"no_actor\",\n    \"actors\": 0,\n"
			    "    \"periodic\": 0,\n    \"qcod_threshold\": 0.1,\n    \"min_late_fraction\": 0.1,\n"
			    "    \"min_late_ns\": null,\n    \"rhythm\": [],\n    \"upstream\": null\n  },");
	cr_expect(strstr(doc, "\"qostrace_report\": \"1\",\n  \"verdict\": null,\n"), "nothing to judge: %s", doc);
	free(d);
	free(doc);
	sv_close(&sc);
}

Test(report_json, a_gantt_chart_has_no_diagnosis)
{
	static const char csv[] = "task,actor,start_ns,end_ns\nscan,scanner,1000,2000\nprint,printer,2000,4000\n";
	struct gantt *g;
	struct analysis *a;
	struct analysis_opts o;
	char err[256], *doc;
	FILE *f = fmemopen((void *)csv, sizeof(csv) - 1, "r");

	cr_assert_not_null(f);
	cr_assert_eq(gantt__parse(f, "chart.csv", NULL, &g, err, sizeof(err)), 0, "%s", err);
	fclose(f);
	analysis_opts_default(&o);
	cr_assert_eq(analysis__run_gantt(g, &o, &a), 0);
	cr_assert_null(a->diagnosis);
	doc = json_of(a);
	cr_expect(strstr(doc, "\"qostrace_report\": \"1\",\n  \"verdict\": null,\n  \"diagnosis\": null,\n"), "%s", doc);
	free(doc);
	analysis__free(a);
	gantt__free(g);
}
