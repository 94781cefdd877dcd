/*
 * export --perfetto on a small synthetic recording (tests/lib/synth_views.h),
 * read back by an independent JSON reader (tests/views/check_json.py):
 * valid JSON in UTF-8, slices that nest on every track, timestamps that give
 * back whole nanoseconds, flows bound to the exact start of a slice, and
 * the counts of what the recording holds.
 */
#include <errno.h>

#include "testutil.h"
#include "synth_views.h"
#include "report/perfetto.h"
#include "file/gantt_csv.h"

static char *dir;

static void setup(void)
{
	dir = tu_tmpdir();
}

static void teardown(void)
{
	tu_rmdir(dir);
	free(dir);
}

TestSuite(export_perfetto, .init = setup, .fini = teardown);

/* Exports to dir/name, returns the whole file (caller frees). */
static char *export_to(const struct analysis *an, const char *name, const struct perfetto_opts *o,
		       struct perfetto_stats *st, char *path, size_t pathlen)
{
	FILE *f;
	long n;
	char *buf;

	snprintf(path, pathlen, "%s/%s", dir, name);
	f = fopen(path, "w+");
	cr_assert(f);
	cr_assert_eq(export_perfetto(an, f, o, st), 0);
	n = ftell(f);
	buf = malloc(n + 1);
	cr_assert(buf);
	rewind(f);
	cr_assert_eq(fread(buf, 1, n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	return buf;
}

Test(export_perfetto, everything_reads_back)
{
	struct sv_scene sc;
	struct perfetto_stats st;
	struct cj c;
	char path[512], *doc;
	size_t nwk = 0;

	cj_require();
	sv_open(&sc, true);
	doc = export_to(&sc.an, "all.json", NULL, &st, path, sizeof(path));
	cr_assert_eq(cj_run(&c, "perfetto", path), 0, "%s", c.out);

	cr_assert_eq(st.runs, sc.tl->nruns);
	cr_assert_eq(cj_num(&c, "runs"), (long long)sc.tl->nruns);
	cr_assert_eq(st.syscalls, sc.tl->nsc);
	cr_assert_eq(cj_num(&c, "cat_syscall"), (long long)sc.tl->nsc);
	cr_assert_eq(sc.tl->nsc, 2 * SV_FRAMES - SV_FRAMES + 1);	/* a write per frame + the read */
	for (size_t i = 0; i < sc.tl->nwk; i++)
		nwk += sc.tl->wk[i].waker != TL_NONE;
	cr_assert_eq(nwk, SV_FRAMES);
	cr_assert_eq(st.wakeups, SV_FRAMES);
	/* every wakee ran after its wakeup: one flow each */
	cr_assert_eq(st.wakeup_flows, SV_FRAMES);
	cr_assert_eq(cj_num(&c, "flows_wakeup"), SV_FRAMES);
	cr_assert_eq(cj_num(&c, "ph_s"), SV_FRAMES);
	cr_assert_eq(cj_num(&c, "ph_f"), SV_FRAMES);
	cr_assert_eq(cj_num(&c, "invocations"), SV_FRAMES);
	cr_assert_eq(cj_num(&c, "late_invocations"), 1);
	cr_assert_eq(cj_num(&c, "breaks"), 1);
	cr_assert_eq(st.irqs, 1);
	cr_assert_eq(cj_num(&c, "cat_irq"), 1);
	cr_assert_eq(st.gaps, sc.tl->ngaps);
	cr_assert_geq(sc.tl->ngaps, 1);
	cr_assert_eq(cj_num(&c, "events"), (long long)st.events);
	/* src, dec, noise, the weird one; src's syscall and break tracks */
	cr_assert_eq(st.threads, 4);

	/* exact times: src's first run is [1 ms, 1.5 ms), preempted */
	cr_assert(strstr(doc, "\"name\":\"run: preempted\",\"pid\":100,\"tid\":100,\"ts\":1000.0001,\"dur\":500.0001"),
		  "src's first run is not where expected");
	/* its read() spans both its runs, on the syscall track */
	cr_assert(strstr(doc, "\"cat\":\"syscall\",\"name\":\"read\",\"pid\":100,\"tid\":1000000100,\"ts\":1200.0001,"
			      "\"dur\":700.0001"));
	/* the break: from invocation 4 (41 ms) to the late one (55 ms) */
	cr_assert(strstr(doc, "\"name\":\"period break +4.000 ms\",\"pid\":100,\"tid\":2000000100,\"ts\":41000.0001,"
			      "\"dur\":14000.0001"));
	/* the wakeup flow of frame 1: src at 11.9 ms to dec's run at 11.95 ms */
	cr_assert(strstr(doc, "{\"ph\":\"s\",\"cat\":\"sched\",\"name\":\"wakeup\",\"pid\":100,\"tid\":100,\"ts\":11900.0001"));
	cr_assert(strstr(doc, "{\"ph\":\"f\",\"cat\":\"sched\",\"name\":\"wakeup\",\"pid\":100,\"tid\":101,\"ts\":11950.0001,"
			      "\"bp\":\"e\""));
	/*
	 * The critical path into the late invocation, on a track of its own:
	 * src's timer released it, src waited for the CPU noise held, then ran.
	 */
	cr_assert(strstr(doc, "\"args\":{\"name\":\"critical path into src/100 invocation 5 (+4.000 ms)\"}"));
	{
		/* the release reaches back to the horizon the critical stage chose */
		const struct crit_seg *g = &sc.cr->breaks[0].path.seg[0];
		char want[256];

		cr_assert_eq(g->kind, CRIT_SEG_RELEASE);
		cr_assert_eq(g->end_ns, 51 * (int64_t)SV_MS);
		snprintf(want, sizeof(want), "\"cat\":\"critical\",\"name\":\"released by timer\",\"pid\":2100000000,"
			 "\"tid\":2100100000,\"ts\":%lld.0001,\"dur\":%lld.0001", (long long)g->start_ns / 1000,
			 (long long)(g->end_ns - g->start_ns) / 1000);
		cr_assert(strstr(doc, want), "no %s", want);
	}
	cr_assert(strstr(doc, "\"cat\":\"critical\",\"name\":\"src/100: wakeup latency (CPU held by noise/200)\","
			      "\"pid\":2100000000,\"tid\":2100100000,\"ts\":51000.0001,\"dur\":4000.0001"));
	cr_assert(strstr(doc, "\"cat\":\"critical\",\"name\":\"src/100 runs\",\"pid\":2100000000,"
			      "\"tid\":2100100000,\"ts\":55000.0001,\"dur\":1000.0001"));
	/* one thread on each path: no hop between threads, no flow */
	cr_assert_eq(st.critical_flows, 0);
	cr_assert_eq(cj_num(&c, "cat_critical"), 5);
	/* the name that tries to close a script and holds a byte that is not UTF-8 */
	cr_assert(strstr(doc, "\"name\":\"</script><!--\xef\xbf\xbd\""), "the weird name is not kept as valid UTF-8");
	/* 4 threads, src's syscalls and breaks, CPU 0 IRQs, CPU 1 missing data, 2 critical paths */
	cr_assert_eq(tu_count(doc, "\"thread_name\""), 4 + 1 + 1 + 2 + 2);
	free(doc);
	cj_free(&c);
	sv_close(&sc);
}

Test(export_perfetto, options_leave_out_tracks)
{
	struct sv_scene sc;
	struct perfetto_opts o = { .no_syscalls = true, .no_wakeups = true, .no_irqs = true };
	struct perfetto_stats st;
	struct cj c;
	char path[512], *doc;

	cj_require();
	sv_open(&sc, false);
	doc = export_to(&sc.an, "some.json", &o, &st, path, sizeof(path));
	cr_assert_eq(cj_run(&c, "perfetto", path), 0, "%s", c.out);
	cr_assert_eq(st.syscalls + st.wakeups + st.wakeup_flows + st.irqs + st.invocations + st.breaks, 0);
	cr_assert_null(cj_get(&c, "cat_syscall"));
	cr_assert_null(cj_get(&c, "cat_irq"));
	cr_assert_null(cj_get(&c, "ph_s"));
	cr_assert_eq(cj_num(&c, "runs"), (long long)sc.tl->nruns);
	cr_assert_eq(cj_num(&c, "breaks"), 0);
	cr_assert_null(strstr(doc, "syscalls\""));
	free(doc);
	cj_free(&c);
	sv_close(&sc);
}

Test(export_perfetto, gantt_overlaps_go_to_sub_tracks)
{
	static const char csv[] = "task,actor,start_ns,end_ns\n"
				  "A1,cpu,0,100\n"
				  "A2,cpu,50,150\n"	/* overlaps A1 */
				  "A3,cpu,100,200\n"	/* fits after A1 */
				  "B1,disk,10,20\n";
	struct gantt *g = NULL;
	struct analysis an = { 0 };
	struct perfetto_stats st;
	struct cj c;
	char path[512], err[256], *doc;
	FILE *in = fmemopen((void *)csv, sizeof(csv) - 1, "r");

	cj_require();
	cr_assert(in);
	cr_assert_eq(gantt__parse(in, "chart.csv", NULL, &g, err, sizeof(err)), 0, "%s", err);
	fclose(in);
	an.gantt = g;
	doc = export_to(&an, "gantt.json", NULL, &st, path, sizeof(path));
	cr_assert_eq(cj_run(&c, "perfetto", path), 0, "%s", c.out);
	cr_assert_eq(st.tasks, 4);
	cr_assert_eq(st.threads, 3);
	cr_assert_eq(cj_num(&c, "cat_task"), 4);
	cr_assert(strstr(doc, "\"args\":{\"name\":\"cpu (2)\"}"));
	/* A3 goes back to the first track, A2 to the second */
	cr_assert(strstr(doc, "\"name\":\"A3\",\"pid\":1,\"tid\":1,\"ts\":0.1001,\"dur\":0.1001"));
	cr_assert(strstr(doc, "\"name\":\"A2\",\"pid\":1,\"tid\":2,\"ts\":0.0501"));
	cr_assert(strstr(doc, "\"name\":\"B1\",\"pid\":1,\"tid\":3,"));
	cr_assert_eq(st.critical_flows, 0);	/* no critical stage run here */
	free(doc);
	cj_free(&c);
	gantt__free(g);
}

/* The paper's setting: critical tasks marked, arrows along the critical path. */
Test(export_perfetto, gantt_critical_path)
{
	static const char csv[] = "task,actor,start_ns,end_ns\n"
				  "scan,scanner,0,600\n"
				  "ip,cpu,600,900\n"
				  "idle,other,0,100\n"
				  "print,printer,900,1900\n";
	struct gantt *g = NULL;
	struct analysis *an = NULL;
	struct analysis_opts o;
	struct perfetto_stats st;
	struct cj c;
	char path[512], err[256], *doc;
	FILE *in = fmemopen((void *)csv, sizeof(csv) - 1, "r");

	cj_require();
	cr_assert(in);
	cr_assert_eq(gantt__parse(in, "chart.csv", NULL, &g, err, sizeof(err)), 0, "%s", err);
	fclose(in);
	analysis_opts_default(&o);
	cr_assert_eq(analysis__run_gantt(g, &o, &an), 0);
	doc = export_to(an, "fig6.json", NULL, &st, path, sizeof(path));
	cr_assert_eq(cj_run(&c, "perfetto", path), 0, "%s", c.out);
	/* scan -> ip -> print, exactly adjacent: the one critical path */
	cr_assert_eq(st.critical_flows, 2);
	cr_assert_eq(cj_num(&c, "flows_critical_path"), 2);
	cr_assert(strstr(doc, "\"name\":\"scan\",\"pid\":1,\"tid\":1,\"ts\":0.0001,\"dur\":0.6001,"
			      "\"args\":{\"line\":2,\"float_ns\":0},\"cname\":\"terrible\"}"), "%s", doc);
	cr_assert(strstr(doc, "\"name\":\"idle\",\"pid\":1,\"tid\":3,\"ts\":0.0001,\"dur\":0.1001,"
			      "\"args\":{\"line\":4,\"float_ns\":1800}}"), "%s", doc);
	free(doc);
	cj_free(&c);
	analysis__free(an);
	gantt__free(g);
}

Test(export_perfetto, a_failed_write_is_an_error)
{
	struct sv_scene sc;
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		cr_skip_test("no /dev/full");
	sv_open(&sc, true);
	cr_assert_eq(export_perfetto(&sc.an, f, NULL, NULL), -EIO);
	fclose(f);
	sv_close(&sc);
}

/* The export of the trace s makes, as a string (caller frees); *t and *tl for the caller to free. */
static char *export_synth(struct synth *s, struct trace **t, struct timeline **tl)
{
	struct analysis an = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	*t = synth_finish(s);
	cr_assert_eq(timeline__build(*t, NULL, tl), 0);
	an.trace = *t;
	an.tl = *tl;
	cr_assert(m);
	cr_assert_eq(export_perfetto(&an, m, NULL, NULL), 0);
	fclose(m);
	return buf;
}

/* Negative and sub-µs times keep their nanoseconds. */
Test(export_perfetto, timestamps_before_the_start)
{
	struct synth *s = synth_new(10 * SV_MS, 20 * SV_MS, 1);
	struct trace *t;
	struct timeline *tl;
	char *buf;

	synth_thread(s, 7, 7, "w");
	/* already running when the recording started: its run starts at the start */
	synth_switch(s, 10 * SV_MS + 1234, 0, 7, 7, SYN_SLEEP, 0, 0);
	synth_switch(s, 12 * SV_MS + 7, 0, 0, 0, SYN_PREEMPT, 7, 7);
	synth_switch(s, 12 * SV_MS + 8, 0, 7, 7, SYN_SLEEP, 0, 0);
	buf = export_synth(s, &t, &tl);
	cr_assert(strstr(buf, "\"ts\":2000.0071,\"dur\":0.0011"), "%s", buf);
	cr_assert(strstr(buf, "\"start_ns\":10000000"));
	free(buf);
	timeline__free(tl);
	trace__free(t);
}

/* A wakeup the waker caused through a softirq it raised: at the raise, named "via NET_RX". */
Test(export_perfetto, a_wakeup_through_a_softirq)
{
	struct synth *s = synth_new(0, 10 * SV_MS, 2);
	struct timeline *tl;
	struct trace *t;
	char *buf;

	synth_thread(s, 7, 7, "sender");
	synth_thread(s, 8, 8, "receiver");
	synth_switch(s, 1 * SV_MS, 0, 0, 0, SYN_PREEMPT, 7, 7);
	synth_raise(s, 2 * SV_MS, 0, 3, QT_RAISE_SYSCALL, 0, 7, 7);
	synth_irq(s, 2 * SV_MS + 10, 2 * SV_MS + 30, 0, 3, 1, 7);
	synth_softirq_wakeup(s, 2 * SV_MS + 20, 0, 3, 7, 7, 8, 8, 1);
	synth_switch(s, 3 * SV_MS, 0, 7, 7, SYN_SLEEP, 0, 0);
	synth_switch(s, 4 * SV_MS, 1, 0, 0, SYN_PREEMPT, 8, 8);
	synth_switch(s, 5 * SV_MS, 1, 8, 8, SYN_SLEEP, 0, 0);
	buf = export_synth(s, &t, &tl);
	/* on the sender's track, at its raise (2 ms: 2000 us) */
	cr_assert(strstr(buf, "\"name\":\"wakeup receiver/8 via NET_RX\""), "%s", buf);
	cr_assert(strstr(buf, "\"ts\":2000.0001,\"dur\":0.0001,\"args\":{\"wakee\":8,\"target_cpu\":1,\"via\":\"NET_RX\""),
		  "%s", buf);
	free(buf);
	timeline__free(tl);
	trace__free(t);
}
