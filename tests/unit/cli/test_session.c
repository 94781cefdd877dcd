// SPDX-License-Identifier: MIT
/*
 * What report and export open: a trace by its magic, a Gantt chart by its
 * .csv name; the analysis of either; a trace's bulky records freed before
 * the analysis runs.
 */
#include <stdio.h>
#include <string.h>

#include "file/codec.h"
#include "lib/log.h"
#include "recgen.h"
#include "cli/session.h"
#include "testutil.h"
#include "file/tracefile.h"

static char *dir;

static void setup(void)
{
	log_level = LOG_QUIET;
	dir = tu_tmpdir();
}

static void teardown(void)
{
	tu_rmdir(dir);
	free(dir);
}

TestSuite(session, .init = setup, .fini = teardown);

static const char *file(const char *name, const char *text)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static union qt_record sw(uint64_t ts, uint32_t prev, uint32_t next)
{
	union qt_record r;

	memset(&r, 0, sizeof(r));
	r.h.ts = ts;
	r.h.type = QT_REC_SWITCH;
	r.sw.prev_tid = r.sw.prev_tgid = prev;
	r.sw.next_tid = r.sw.next_tgid = next;
	return r;
}

/* A one-CPU trace: thread 10 runs twice between idle periods. */
static const char *trace_file(const char *name)
{
	static char path[512];
	union qt_record r[] = { sw(100, 0, 10), sw(200, 10, 0), sw(300, 0, 10), sw(400, 10, 0) };
	uint8_t buf[sizeof(r) / sizeof(r[0]) * CODEC_MAX_REC + 1];
	size_t len = rg_encode_block(r, 4, 100, buf);
	struct tf_writer *w;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cr_assert_eq(tf_writer__create(path, false, 1, &w), 0);
	cr_assert_eq(tf_writer__append(w, TF_BLK_META, "cpus=1\n", 7, 0, 0), 0);
	cr_assert_eq(tf_writer__append(w, TF_BLK_EVENTS, buf, len, 4, 100), 0);
	cr_assert_eq(tf_writer__close(w), 0);
	return path;
}

Test(session, trace_analysed_without_its_records)
{
	struct analysis_opts o;
	struct session s;

	analysis_opts_default(&o);
	cr_assert_eq(session__open_input(trace_file("run.csv"), &s), 0,
		     "a trace by its magic, whatever its name");
	cr_assert_not_null(s.trace);
	cr_assert_null(s.gantt);
	cr_expect(!s.trace->sw && !s.trace->nsw, "the timeline holds the switches once built");
	cr_expect_eq(s.trace->by_type[QT_REC_SWITCH], 4, "counts stay for the report");
	cr_expect_eq(s.tl->nruns, 2);
	cr_assert_eq(session__analyse(&s, &o), 0);
	cr_assert_not_null(s.an);
	cr_expect_eq(s.an->trace, s.trace);
	session__close(&s);

	/* info and dump read the records themselves: session__open keeps them. */
	cr_assert_eq(session__open(trace_file("run.qtrace"), &s), 0);
	cr_expect_eq(s.trace->nsw, 4);
	cr_expect_eq(s.tl->nruns, 2);
	session__close(&s);
}

Test(session, gantt_chart_by_its_name)
{
	struct analysis_opts o;
	struct session s;

	analysis_opts_default(&o);
	cr_assert_eq(session__open_input(file("chart.csv", "task,actor,start_ns,end_ns\n"
							  "a,p,0,10\nb,q,10,30\n"), &s), 0);
	cr_assert_not_null(s.gantt);
	cr_assert_null(s.trace);
	cr_assert_eq(session__analyse(&s, &o), 0);
	cr_assert_not_null(s.an);
	cr_expect_eq(s.an->gantt, s.gantt);
	session__close(&s);
}

Test(session, neither_trace_nor_chart)
{
	struct session s;

	cr_expect_neq(session__open_input(file("chart.qtrace", "task,actor,start_ns,end_ns\n"), &s), 0,
		      "not a trace, and not named .csv: read as a trace, which fails");
	cr_expect_neq(session__open_input(file("bad.csv", "no header\n"), &s), 0);
	cr_expect_neq(session__open_input("/nonexistent/run.csv", &s), 0,
		      "unreadable: the trace loader says why");
}
