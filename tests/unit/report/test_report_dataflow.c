// SPDX-License-Identifier: MIT
/*
 * The data-flow path as the text and JSON reports print it
 * (src/report/text_dataflow.c, json_dataflow.c), from the stage's result
 * on recordings built by hand: TV-8.2 (docs/ALGORITHMS.md §9.7) with its
 * hops, waits, the merge's other input and the shares; a long path cut
 * to its root and last hops unless -v; a recording whose data calls moved
 * nothing; and none at all.
 */
#include <stdio.h>

#include "analysis/analysis.h"
#include "dataflow/stage.h"
#include "report/json_dataflow.h"
#include "report/style.h"
#include "report/text_dataflow.h"
#include "synth_data.h"
#include "testutil.h"

/* TV-8.2, file a named by an open of P1's (one that does not truncate it) */
static struct trace *tv82(void)
{
	struct synth *s = synth_new(0, SD_MS(40), 1);

	sd_tv82(s);
	sd_open(s, 1, 2, 101, sd_file(11), false, "a");
	return synth_finish(s);
}

/* The text section of t's path (verbose: -v), in a malloc'd string. */
static char *text_of(const struct trace *t, int verbose)
{
	struct analysis a = { .trace = t };
	struct dataflow_opts o = { 0 };
	struct report_style st = { .verbose = verbose };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(dataflow__analyse(t, NULL, &o, &a.dataflow), 0);
	text_dataflow_print(&a, f, &st);
	fclose(f);
	dataflow__free(a.dataflow);
	return buf;
}

Test(report_dataflow, text_tv82)
{
	static const char *const want[] = {
		"== Data path",
		"into 8:1:13 v1 at 0.025000 s, the last file written that nothing read",
		"13 ms after its root, through 1 hop",
		/* the root: a's first version, written by p1 at 12 ms; its name from the open */
		"    0.012000  p1/101                   a (8:1:11) v1",
		/* p4 wrote out 11 ms after p3 read a (2 ms after it was ready) */
		"    0.025000  p4/104                   8:1:13 v1 ",
		" 2 ms      11 ms\n",
		"other input 8:1:12 v1 (by pid 102, at 0.006000 s) was ready 6 ms before the critical one",
		/* the root's process did nothing in the path's time */
		"time: p4/104 84.6 %; 15.4 % waiting to be read",
	};
	struct trace *t = tv82();
	char *s = text_of(t, 0);

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect(strstr(s, want[i]), "no '%s' in:\n%s", want[i], s);
	free(s);
	trace__free(t);
}

/* A pipe ping-pong of 40 messages: the root, a line for what is left out, the last 15; -v all. */
Test(report_dataflow, long_path_cut_unless_verbose)
{
	struct synth *s = synth_new(0, SD_MS(1000), 1);
	struct trace *t;
	char *cut, *all;
	size_t lines_cut = 0, lines_all = 0;

	synth_data_on(s);
	for (int k = 0; k < 40; k++) {
		uint32_t from = k % 2 ? 2 : 1, to = k % 2 ? 1 : 2;

		sd_call(s, 10 * k + 1, 10 * k + 2, from, "write", sd_pipe(7 + k % 2), SD_NONE, 4);
		sd_call(s, 10 * k + 3, 10 * k + 4, to, "read", sd_pipe(7 + k % 2), SD_NONE, 4);
	}
	sd_call(s, 500, 501, 1, "write", sd_file(9), SD_NONE, 4);
	t = synth_finish(s);
	cut = text_of(t, 0);
	all = text_of(t, 1);
	for (char *p = cut; (p = strstr(p, " pipe:[")); p++)
		lines_cut++;
	for (char *p = all; (p = strstr(p, " pipe:[")); p++)
		lines_all++;
	/* the root (the first write) and 40 hops: the root, 25 left out, the last 15 (the file last) */
	cr_expect(strstr(cut, "through 40 hops"), "%s", cut);
	cr_expect(strstr(cut, "... 25 hops (-v lists them all)"), "%s", cut);
	cr_expect_eq(lines_cut, 15, "%s", cut);
	cr_expect_eq(lines_all, 40, "%s", all);
	cr_expect_null(strstr(all, "-v lists"));
	free(cut);
	free(all);
	trace__free(t);
}

Test(report_dataflow, text_nothing_moved_and_none)
{
	struct synth *s = synth_new(0, SD_MS(10), 1);
	struct trace *t;
	char *txt;

	synth_data_on(s);
	t = synth_finish(s);
	txt = text_of(t, 0);
	cr_expect(strstr(txt, "no data call of the targets moved anything (0 calls recorded)"), "%s", txt);
	free(txt);
	t->format_version = 2;	/* no data records: no section */
	txt = text_of(t, 0);
	cr_expect(!txt || !*txt, "%s", txt);
	free(txt);
	trace__free(t);
}

Test(report_dataflow, json_tv82)
{
	struct trace *t = tv82();
	struct analysis a = { .trace = t };
	struct dataflow_opts o = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_writer_t *w = jsonw_new(f, false);

	cr_assert_eq(dataflow__analyse(t, NULL, &o, &a.dataflow), 0);
	jsonw_start_object(w);
	json_dataflow_write(&a, w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
	fclose(f);
	cr_expect(strstr(buf, "\"target\":{\"object\":\"8:1:13\",\"object_kind\":\"content\",\"name\":null,"
			      "\"version\":1,\"t_ns\":25000000}"), "%s", buf);
	cr_expect(strstr(buf, "\"object\":\"8:1:11\",\"object_kind\":\"content\",\"name\":\"a\",\"kind\":\"write\","
			      "\"pid\":101,\"tid\":101,\"comm\":\"p1\",\"v_first\":1,\"v_last\":1"), "%s", buf);
	cr_expect(strstr(buf, "\"read_at_ns\":14000000,\"waited_ns\":2000000,\"in_process_ns\":11000000"), "%s", buf);
	cr_expect(strstr(buf, "\"other_inputs\":[{\"object\":\"8:1:12\",\"object_kind\":\"content\",\"name\":null,"
			      "\"version\":1,\"pid\":102,\"t_ns\":6000000,\"slack_ns\":6000000}]"), "%s", buf);
	cr_expect(strstr(buf, "\"elapsed_ns\":13000000,\"waited_ns\":2000000"), "%s", buf);
	free(buf);
	dataflow__free(a.dataflow);
	/* none: null */
	a.dataflow = NULL;
	buf = NULL;
	f = open_memstream(&buf, &len);
	w = jsonw_new(f, false);
	jsonw_start_object(w);
	json_dataflow_write(&a, w);
	jsonw_end_object(w);
	jsonw_destroy(&w);
	fclose(f);
	cr_expect(strstr(buf, "\"data_path\":null"), "%s", buf);
	free(buf);
	trace__free(t);
}
