/*
 * End-to-end: the renderings of a real recording (the built-in demo
 * pipeline, recorded once per run with BPF) checked by real consumers:
 *  - report --html in headless Chromium (tests/views/html_check.mjs):
 *    renders without console errors or network, draws lanes and breaks,
 *    zooms; screenshots go to the scratch directory and scripts/results/;
 *  - export --perfetto read by the Chrome DevTools trace engine
 *    (tests/views/perfetto_check.mjs) and by Python's json
 *    (tests/views/check_json.py): both must see the same tracks, slices and
 *    flows, and no warnings;
 *  - report --json against docs/report.schema.json (python3-jsonschema),
 *    for a recording and for a Gantt chart.
 * What cannot run here (no BPF, no Chromium, no node_modules, no jsonschema)
 * is SKIPPED with the reason: scripts/install-deps.sh --views installs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "e2eutil.h"
#include "e2e_chromium.h"
#include "testutil.h"
#include "synth_views.h"
#include "lib/parse.h"
#include "patterns/patterns.h"
#include "record/probe.h"
#include "report/report.h"
#include "report/html.h"

/* The shell helper of e2eutil.h under this file's short name. */
#define sh e2e_sh

/* ---- the recording, shared by the tests of the suite ---- */

static char *dir;
static char trace_path[300];
static bool own_dir;

static void record_demo(void)
{
	char cmd[1024], done[320];
	const char *scratch = getenv("QOSTRACE_TEST_TMP");

	require_recording();
	if (scratch && *scratch) {
		dir = strdup(scratch);
	} else {
		dir = tu_tmpdir();
		own_dir = true;
	}
	snprintf(trace_path, sizeof(trace_path), "%s/demo.qtrace", dir);
	snprintf(done, sizeof(done), "%s/demo.done", dir);
	if (own_dir || access(done, F_OK)) {
		char *out;

		/* 2 s: two disturbances of the pipeline, so the period breaks */
		snprintf(cmd, sizeof(cmd), "%s/qostrace demo -n 200 -o '%s' > /dev/null", build_dir(), trace_path);
		cr_assert_eq(sh(cmd, &out), 0, "qostrace demo failed:\n%s", out);
		free(out);
		close(open(done, O_CREAT | O_WRONLY, 0600));
	}
}

static void cleanup(void)
{
	if (dir && own_dir)
		tu_rmdir(dir);
	free(dir);
}

TestSuite(e2e_views, .init = record_demo, .fini = cleanup, .timeout = 300);

Test(e2e_views, html_page_in_chromium)
{
	char page[400], shots[400], diag[400], cmd[2048], flags[600], *out;
	struct cj c;

	snprintf(page, sizeof(page), "%s/demo.html", dir);
	snprintf(shots, sizeof(shots), "%s/shots-demo", dir);
	snprintf(diag, sizeof(diag), "%s/demo-diagnosis.txt", dir);
	snprintf(cmd, sizeof(cmd), "%s/qostrace report -q --html '%s' '%s' > /dev/null", build_dir(), page,
		 trace_path);
	cr_assert_eq(sh(cmd, &out), 0, "report --html failed:\n%s", out);
	free(out);
	/* the text report's Diagnosis, which the page must say word for word */
	snprintf(cmd, sizeof(cmd), "%s/qostrace report -q --color=never '%s' | "
		 "awk '/^== Diagnosis/ { on = 1; next } /^== / { on = 0 } on' > '%s' && test -s '%s'",
		 build_dir(), trace_path, diag, diag);
	cr_assert_eq(sh(cmd, &out), 0, "report failed, or has no Diagnosis:\n%s", out);
	free(out);
	cj_require();
	cr_assert_eq(cj_run(&c, "html", page), 0, "%s", c.out);
	/* the pipeline's five threads at least; breaks wherever the actors stage found some */
	{
		/* "actor LANE NINV SUM NBREAKS" */
		const char *a = c.out;
		long long lane, ninv, sum, nbr, total = 0;

		while ((a = strstr(a, "\nactor ")) && sscanf(a, "\nactor %lld %lld %lld %lld", &lane, &ninv, &sum, &nbr) == 4) {
			total += nbr;
			a++;
		}
		/* the critical stage always has a path into the end of the recording */
		snprintf(flags, sizeof(flags), "--min-lanes 5%s%s --expect-diagnosis '%s'", total ? " --expect-breaks" : "",
			 cj_get(&c, "critical_paths") ? " --expect-critical" : "", diag);
	}
	cj_free(&c);
	chromium_check(page, shots, flags, "timeline.png", "demo");
}

Test(e2e_views, perfetto_in_devtools_trace_engine)
{
	char json[400], cmd[1024], *out, *dev;
	struct cj c;
	long long v;

	require_node();
	cj_require();
	snprintf(json, sizeof(json), "%s/demo.json", dir);
	snprintf(cmd, sizeof(cmd), "%s/qostrace export -q --perfetto '%s' '%s'", build_dir(), json, trace_path);
	cr_assert_eq(sh(cmd, &out), 0, "export failed:\n%s", out);
	free(out);
	cr_assert_eq(cj_run(&c, "perfetto", json), 0, "%s", c.out);
	snprintf(cmd, sizeof(cmd), "node tests/views/perfetto_check.mjs '%s'", json);
	cr_assert_eq(sh(cmd, &dev), 0, "the DevTools trace engine rejects the export:\n%s", dev);
	fprintf(stderr, "devtools: %.400s\n", dev);
#define DEV(key) (strstr(dev, "\"" key "\":") ? strtoll(strstr(dev, "\"" key "\":") + strlen(key) + 3, NULL, 10) : -1)
	/* the two readers see the same tracks, slices and flows */
	v = DEV("threads");
	cr_assert_eq(v, cj_num(&c, "tracks"), "DevTools sees %lld threads, Python %lld tracks", v, cj_num(&c, "tracks"));
	cr_assert_eq(DEV("named_threads"), cj_num(&c, "named_tracks"));
	cr_assert_eq(DEV("entries"), cj_num(&c, "ph_X"), "DevTools has %lld slices, Python %lld", DEV("entries"),
		     cj_num(&c, "ph_X"));
	cr_assert_eq(DEV("flows"), cj_num(&c, "flows"), "DevTools binds %lld flows, Python %lld", DEV("flows"),
		     cj_num(&c, "flows"));
	cr_assert_gt(DEV("flows"), 0);
	cr_assert(strstr(dev, "\"warnings\":[]"));
	/* every flow goes from a wakeup on the waker to a run of the wakee (no critical flows yet) */
	if (!cj_num(&c, "flows_critical_path"))
		cr_assert(strstr(dev, "\"flow_ends\":{\"wakeup -> run\":"), "%s", dev);
	/* the pipeline's threads are there by name */
	cr_assert(strstr(dev, "\"threads\":") && cj_num(&c, "runs") > 100);
#undef DEV
	free(dev);
	cj_free(&c);
}

Test(e2e_views, report_json_matches_the_schema)
{
	char json[400];

	snprintf(json, sizeof(json), "%s/report.json", dir);
	e2e_validate_report(trace_path, json);
}

/* ---- without a recording ---- */

static char *sdir;

static void sdir_make(void)
{
	sdir = tu_tmpdir();
}

static void sdir_rm(void)
{
	tu_rmdir(sdir);
	free(sdir);
}

TestSuite(e2e_views_synthetic, .init = sdir_make, .fini = sdir_rm, .timeout = 300);

/*
 * Durations as the C report writes them, into path: the page's Diagnosis
 * must write them the same (printf rounds ties to even; JavaScript's
 * toFixed does not). Ties at every unit, the edges between units, and
 * random ones.
 */
static void write_durations(const char *path)
{
	static const int64_t edge[] = { 0, 1, 999, 1000, 1005, 1015, 1025, 2250, 2500, 10250, 102500, 999499,
					999500, 999999, 1025000, 9995000, 9996000, 24250000, 24150000, 99950000,
					999499999, 999500000, 1000000000, 1000500000, 1001500000, 1234500000 };
	FILE *f = fopen(path, "w");
	char b[32];

	cr_assert(f);
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		fprintf(f, "%lld %s\n", (long long)edge[i], fmt_duration(b, sizeof(b), edge[i]));
	srand(3);
	for (int i = 0; i < 4000; i++) {
		int64_t v = i % 2 ? (int64_t)(rand() % 200000) * 250 : (int64_t)rand() * 3 % 5000000000LL;

		fprintf(f, "%lld %s\n", (long long)v, fmt_duration(b, sizeof(b), v));
	}
	fclose(f);
}

/*
 * A page with a known break (tests/lib/synth_views.h): drawn, clickable,
 * zoomable; its Diagnosis reads as the text report's.
 */
Test(e2e_views_synthetic, break_in_chromium)
{
	struct sv_scene sc;
	struct report_style st = { 0 };
	char page[400], shots[400], diag[400], durations[400], flags[1024];
	FILE *f;

	require_chromium();
	sv_open(&sc, true);
	snprintf(page, sizeof(page), "%s/synthetic.html", sdir);
	snprintf(shots, sizeof(shots), "%s/shots", sdir);
	snprintf(diag, sizeof(diag), "%s/synthetic-diagnosis.txt", sdir);
	snprintf(durations, sizeof(durations), "%s/durations.txt", sdir);
	cr_assert_eq(report_html_write(&sc.an, page, NULL, NULL), 0);
	f = fopen(diag, "w");
	cr_assert(f);
	report_summary(&sc.an, f, &st);
	fclose(f);
	/* the section title is the page's heading, not part of the answers */
	{
		char cmd[1024];

		snprintf(cmd, sizeof(cmd), "sed -i '/^== Diagnosis$/d' '%s'", diag);
		cr_assert_eq(sh(cmd, NULL), 0);
	}
	sv_close(&sc);
	write_durations(durations);
	snprintf(flags, sizeof(flags), "--expect-breaks --expect-critical --min-lanes 4 --expect-diagnosis '%s' "
		 "--expect-durations '%s'", diag, durations);
	chromium_check(page, shots, flags, "break.png", "break");
}

/* The synthetic recording's report: actors with a break, the critical path into it. */
Test(e2e_views_synthetic, report_json_with_breaks_matches_the_schema)
{
	struct sv_scene sc;
	char json[400], cmd[1024], *out;
	const char *py = e2e_schema_python();
	FILE *f;

	snprintf(json, sizeof(json), "%s/synthetic.json", sdir);
	sv_open(&sc, true);
	f = fopen(json, "w");
	cr_assert(f);
	cr_assert_eq(report_json(&sc.an, f), 0);
	fclose(f);
	sv_close(&sc);
	snprintf(cmd, sizeof(cmd), "%s tests/views/validate_schema.py docs/report.schema.json '%s' --expect trace",
		 py, json);
	cr_assert_eq(sh(cmd, &out), 0, "%s", out);
	free(out);
}

static void write_chart(const char *path)
{
	FILE *f = fopen(path, "w");

	cr_assert(f);
	/* the shape of the paper's Fig. 6: scan and print paths through image processing */
	fputs("task,actor,start_ns,end_ns\n", f);
	for (int k = 0; k < 20; k++) {
		long t = k * 1000;

		fprintf(f, "scan%d,scanner,%ld,%ld\n", k, t, t + 600);
		fprintf(f, "ip2_%d,IP2,%ld,%ld\n", k, t + 600, t + 900);
		fprintf(f, "ip3_%d,IP3,%ld,%ld\n", k, t + 900, t + 950);
		fprintf(f, "print%d,printer,%ld,%ld\n", k, t + 950, t + 1900);
	}
	fclose(f);
}

Test(e2e_views_synthetic, gantt_chart_json_and_page)
{
	char csv[400], json[400], page[400], shots[400], cmd[2048], *out;
	const char *py;

	snprintf(csv, sizeof(csv), "%s/chart.csv", sdir);
	snprintf(json, sizeof(json), "%s/chart.json", sdir);
	snprintf(page, sizeof(page), "%s/chart.html", sdir);
	snprintf(shots, sizeof(shots), "%s/shots-chart", sdir);
	write_chart(csv);
	py = e2e_schema_python();
	snprintf(cmd, sizeof(cmd), "%s/qostrace report -q --json --html '%s' '%s' > '%s'", build_dir(), page, csv, json);
	cr_assert_eq(sh(cmd, &out), 0, "report --json failed:\n%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s tests/views/validate_schema.py docs/report.schema.json '%s' --expect gantt",
		 py, json);
	cr_assert_eq(sh(cmd, &out), 0, "%s", out);
	free(out);
	chromium_check(page, shots, "--expect-critical --min-lanes 4", "timeline.png", "gantt");
}

/*
 * A context-switch storm's page: a thread woken every 40 us, one wake in
 * ten late by 8 us (20000 invocations, 2000 major breaks), whose pattern
 * search cannot pay (patterns_cannot_pay()): the page's Diagnosis says its
 * breaks were not searched, as the text report does, and the page draws.
 */
Test(e2e_views_synthetic, storm_page_says_its_breaks_were_not_searched)
{
	struct synth *s = synth_new(0, 810 * SV_MS, 2);
	struct report_style st = { 0 };
	struct analysis_opts o;
	struct analysis *an;
	struct timeline *tl;
	struct trace *t;
	char page[400], shots[400], diag[400], flags[1024];
	FILE *f;

	require_chromium();
	synth_thread(s, 100, 100, "storm");
	synth_targets(s, "100");
	for (uint64_t k = 0; k < 20000; k++) {
		uint64_t at = SV_MS + k * 40000 + (k % 10 == 5 ? 8000 : 0);

		synth_timer_wakeup(s, at, 100, 100, 0);
		synth_switch(s, at, 0, 0, 0, SYN_PREEMPT, 100, 100);
		synth_switch(s, at + 4000, 0, 100, 100, SYN_SLEEP, 0, 0);
	}
	t = synth_finish(s);
	cr_assert_eq(timeline__build(t, NULL, &tl), 0);
	analysis_opts_default(&o);
	o.jobs = 1;
	cr_assert_eq(analysis__run_trace(t, tl, &o, &an), 0);
	cr_assert_not_null(an->patterns);
	cr_assert(an->patterns->skipped, "the storm's search ran: %s", an->patterns->status ? an->patterns->status : "");
	snprintf(page, sizeof(page), "%s/storm.html", sdir);
	snprintf(shots, sizeof(shots), "%s/shots-storm", sdir);
	snprintf(diag, sizeof(diag), "%s/storm-diagnosis.txt", sdir);
	cr_assert_eq(report_html_write(an, page, NULL, NULL), 0);
	f = fopen(diag, "w");
	cr_assert(f);
	report_summary(an, f, &st);
	fclose(f);
	{
		char cmd[1024];

		snprintf(cmd, sizeof(cmd), "sed -i '/^== Diagnosis$/d' '%s' && grep -q 'not searched' '%s'", diag, diag);
		cr_assert_eq(e2e_sh(cmd, NULL), 0, "the text Diagnosis does not say the breaks were not searched");
	}
	snprintf(flags, sizeof(flags), "--min-lanes 1 --expect-breaks --expect-diagnosis '%s'", diag);
	chromium_check(page, shots, flags, "timeline.png", NULL);
	analysis__free(an);
	timeline__free(tl);
	trace__free(t);
}
