/*
 * report --html on a small synthetic recording (tests/lib/synth_views.h): the
 * page's two JSON blocks read back by tests/views/check_json.py, the lanes'
 * delta-encoded runs decoded to the exact times of the timeline, the lane
 * order, a thread name that tries to end the script block, Gantt charts,
 * and that the embedded CSS/JS are the ones in src/ (scripts/gen-html-assets.sh).
 * The page in a real browser: tests/e2e/test_e2e_views.c.
 */
#include <errno.h>

#include "testutil.h"
#include "synth_views.h"
#include "file/gantt_csv.h"
#include "report/html.h"

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

TestSuite(report_html, .init = setup, .fini = teardown);

static char *page_of(const struct analysis *an, const char *name, struct report_html_stats *st,
		     char *path, size_t pathlen)
{
	FILE *f;
	long n;
	char *buf;

	snprintf(path, pathlen, "%s/%s", dir, name);
	cr_assert_eq(report_html_write(an, path, NULL, st), 0);
	f = fopen(path, "r");
	cr_assert(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	cr_assert(buf);
	cr_assert_eq(fread(buf, 1, n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	cr_assert_eq(st->bytes, (uint64_t)n);
	return buf;
}

/* "lane TID NAME N SUM_START SUM_END SUM_CODES ACTOR" for the lane of tid. */
static void check_lane(const struct cj *c, const struct timeline *tl, int pos, uint32_t tid)
{
	const char *l = c->out;
	uint32_t th = sv_thread(tl, tid);
	const struct tl_thread *x = &tl->threads[th];
	long long s_sum = 0, e_sum = 0, codes = 0;
	unsigned long got_tid;
	long long n, gs, ge, gc;
	char name[128], actor[16];

	for (int k = 0; k <= pos; k++) {
		l = strstr(l, "\nlane ");
		cr_assert(l, "no lane %d", pos);
		l++;
	}
	cr_assert_eq(sscanf(l, "lane %lu %127s %lld %lld %lld %lld %15s", &got_tid, name, &n, &gs, &ge, &gc, actor),
		     7);
	cr_assert_eq(got_tid, tid, "lane %d is tid %lu, expected %u", pos, got_tid, tid);
	for (size_t i = x->run0; i < x->run0 + x->nrun; i++) {
		s_sum += tl->runs[i].start - tl->start;
		e_sum += tl->runs[i].end - tl->start;
		codes += tl->runs[i].cpu * 64 + (tl->runs[i].flags & 7) * 8 + tl->runs[i].end_state;
	}
	cr_assert_eq(n, (long long)x->nrun);
	cr_assert_eq(gs, s_sum, "lane %u: starts decode to %lld, expected %lld", tid, gs, s_sum);
	cr_assert_eq(ge, e_sum, "lane %u: ends decode to %lld, expected %lld", tid, ge, e_sum);
	cr_assert_eq(gc, codes);
}

Test(report_html, data_reads_back_exactly)
{
	struct sv_scene sc;
	struct report_html_stats st;
	struct cj c;
	char path[512], *page;

	cj_require();
	sv_open(&sc, true);
	page = page_of(&sc.an, "p.html", &st, path, sizeof(path));
	cr_assert_eq(cj_run(&c, "html", path), 0, "%s", c.out);
	/* every thread that ran is a lane, nothing else */
	cr_assert_eq(st.lanes, 4);
	cr_assert_eq(cj_num(&c, "lanes"), 4);
	cr_assert_eq(st.runs, sc.tl->nruns);
	cr_assert_eq(cj_num(&c, "runs"), (long long)sc.tl->nruns);
	cr_assert_eq(cj_num(&c, "dur"), 120 * (long long)SV_MS);
	cr_assert_eq(cj_num(&c, "actors"), 1);
	cr_assert_eq(cj_num(&c, "upstream"), 0);
	cr_assert_eq(cj_num(&c, "gaps"), (long long)sc.tl->ngaps);
	/* order: the upstream actor, the other target, then by CPU time */
	check_lane(&c, sc.tl, 0, 100);
	check_lane(&c, sc.tl, 1, 101);
	check_lane(&c, sc.tl, 2, 200);	/* noise: 4.2 ms */
	check_lane(&c, sc.tl, 3, 300);	/* 2 ms */
	{
		long long lane, ninv, s_sum, nbr, want = 0;

		cr_assert_eq(sscanf(cj_get(&c, "actor"), "%lld %lld %lld %lld", &lane, &ninv, &s_sum, &nbr), 4);
		for (int k = 0; k < SV_FRAMES; k++)
			want += sv_src_start(k);
		cr_assert_eq(lane, 0);
		cr_assert_eq(ninv, SV_FRAMES);
		cr_assert_eq(s_sum, want);
		cr_assert_eq(nbr, 1);
	}
	/* the break as the page gets it: before, late, start, end, lateness, missing, completion, major */
	cr_assert(strstr(page, "\"breaks\":[4,5,41000000,55000000,4000000,0,0,1]"));
	/* the report --json document rides along, with every stage's section */
	cr_assert(!strncmp(cj_get(&c, "report_keys"), "actors,actors_skipped,critical,data_path,diagnosis,patterns,"
			   "patterns_search,progress,qostrace_report,threads,trace,upstream_actor,verdict\n", 138), "%s", c.out);
	/* the Diagnosis the page draws its answers from: src first to break, noise held its CPU */
	cr_assert(!strncmp(cj_get(&c, "diagnosis"), "upstream_breaks 0 culprit \"noise\"\n", 34), "%s", c.out);
	/*
	 * The critical path into the late invocation, exactly as the critical
	 * stage found it (what the scene makes certain: src waited [51, 55) ms
	 * for the CPU noise held, then ran [55, 56) ms), in the page's
	 * [lane, start, end, kind, holder lane, category] with lanes src 0,
	 * noise 2, and categories numbered as they first appear.
	 */
	cr_assert_eq(cj_num(&c, "critical_paths"), 2);
	{
		const struct crit_path *cp = &sc.cr->breaks[0].path;
		const char *cats[8];
		size_t ncats = 0, len = 0;
		char want[2048], buf[64];

		cr_assert_eq(sc.cr->nbreaks, 1);
		cr_assert_geq(cp->nseg, 2);
		cr_assert_eq(cp->seg[cp->nseg - 2].kind, CRIT_SEG_WAIT);
		cr_assert_eq(cp->seg[cp->nseg - 2].start_ns, 51 * (int64_t)SV_MS);
		cr_assert_eq(cp->seg[cp->nseg - 2].holder, sv_thread(sc.tl, 200));
		cr_assert_eq(cp->seg[cp->nseg - 1].kind, CRIT_SEG_RUN);
		cr_assert_eq(cp->seg[cp->nseg - 1].start_ns, 55 * (int64_t)SV_MS);
		len += snprintf(want + len, sizeof(want) - len, "{\"name\":\"into the late invocation 5 of src/100\","
				"\"actor\":0,\"brk\":0,\"lateness\":4000000,\"seg\":[");
		for (size_t i = 0; i < cp->nseg; i++) {
			const struct crit_seg *g = &cp->seg[i];
			long cat = -1;

			if (g->kind != CRIT_SEG_RUN) {
				const char *name = critical_cat_name(g->cat, g->sub, sc.t, buf, sizeof(buf));

				for (cat = 0; cat < (long)ncats && strcmp(cats[cat], name); cat++)
					;
				if (cat == (long)ncats)
					cats[ncats++] = strdup(name);
			}
			len += snprintf(want + len, sizeof(want) - len, "%s%d,%lld,%lld,%d,%d,%ld", i ? "," : "",
					g->thread == sv_thread(sc.tl, 100) ? 0 : -9, (long long)g->start_ns,
					(long long)g->end_ns, g->kind,
					g->kind == CRIT_SEG_WAIT ? 2 : -1, cat);
		}
		snprintf(want + len, sizeof(want) - len, "]}");
		cr_assert(strstr(page, want), "the path into the late invocation is not %s", want);
		for (size_t i = 0; i < ncats; i++)
			free((void *)cats[i]);
	}
	cr_assert(strstr(page, "\"cats\":[\"timer\",\"wakeup latency\","), "the release and the wait are named");
	/* the weird name: no raw "</script><!--" left, read back intact but for the bad byte */
	cr_assert_null(strstr(page, SV_WEIRD_NAME));
	cr_assert_null(strstr(page, "<!--"));
	cr_assert(strstr(c.out, "lane 300 \"</script><!--\\ufffd\""), "%s", c.out);
	/* no network */
	cr_assert_null(strstr(page, "http://"));
	cr_assert_null(strstr(page, "https://"));
	cr_assert(strstr(page, "default-src 'none'"));
	cr_assert_gt(st.data_bytes, 0);
	cr_assert_lt(st.data_bytes, st.bytes);
	free(page);
	cj_free(&c);
	sv_close(&sc);
}

Test(report_html, without_actors)
{
	struct sv_scene sc;
	struct report_html_stats st;
	struct cj c;
	char path[512], *page;

	cj_require();
	sv_open(&sc, false);
	page = page_of(&sc.an, "p.html", &st, path, sizeof(path));
	cr_assert_eq(cj_run(&c, "html", path), 0, "%s", c.out);
	cr_assert_eq(cj_num(&c, "actors"), 0);
	cr_assert_eq(cj_num(&c, "upstream"), -1);
	cr_assert(!strncmp(cj_get(&c, "diagnosis"), "no_actor -1 null \"-\"\n", 21), "%s", c.out);
	/* targets first, then the busiest: dec ran 20 ms, src 10 ms, noise 4.2 ms */
	check_lane(&c, sc.tl, 0, 101);
	check_lane(&c, sc.tl, 1, 100);
	check_lane(&c, sc.tl, 2, 200);
	check_lane(&c, sc.tl, 3, 300);
	free(page);
	cj_free(&c);
	sv_close(&sc);
}

Test(report_html, gantt_chart)
{
	static const char csv[] = "task,actor,start_ns,end_ns\n"
				  "scan,scanner,1000,2000\n"
				  "ip1,cpu,2000,2500\n"
				  "ip2,cpu,2200,2600\n"	/* overlaps ip1: a second lane */
				  "print,printer,2600,4000\n";
	struct gantt *g = NULL;
	struct analysis an = { 0 };
	struct report_html_stats st;
	struct cj c;
	char path[512], err[256], *page;
	FILE *in = fmemopen((void *)csv, sizeof(csv) - 1, "r");

	cj_require();
	cr_assert(in);
	cr_assert_eq(gantt__parse(in, "chart.csv", NULL, &g, err, sizeof(err)), 0, "%s", err);
	fclose(in);
	an.gantt = g;
	page = page_of(&an, "g.html", &st, path, sizeof(path));
	cr_assert_eq(cj_run(&c, "html", path), 0, "%s", c.out);
	cr_assert_eq(st.lanes, 4);
	cr_assert_eq(st.runs, 4);
	cr_assert_eq(cj_num(&c, "dur"), 3000);
	cr_assert_eq(cj_num(&c, "t0"), 1000);
	cr_assert(strstr(page, "\"name\":\"cpu (2)\""));
	/* scanner: [0, 1000) relative to the first start; ip2 alone on cpu (2) */
	cr_assert(strstr(page, "\"name\":\"scanner\",\"tid\":0,\"pid\":0,\"target\":true,\"kernel\":false,\"actor\":[],"
			       "\"runs\":[0,1000,0],\"task\":[0]"));
	cr_assert(strstr(page, "\"runs\":[1200,400,0],\"task\":[2],\"line\":[4]"));
	free(page);
	cj_free(&c);
	gantt__free(g);
}

Test(report_html, a_failed_write_is_an_error)
{
	struct sv_scene sc;
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		cr_skip_test("no /dev/full");
	sv_open(&sc, true);
	cr_assert_eq(report_html(&sc.an, f, NULL, NULL), -EIO);
	fclose(f);
	cr_assert_eq(report_html_write(&sc.an, "/nonexistent-dir/x.html", NULL, NULL), -ENOENT);
	sv_close(&sc);
}

/* The page's script parses (node --check), when node is there. */
Test(report_html, script_parses)
{
	if (system("node --version >/dev/null 2>&1") != 0)
		cr_skip_test("node is missing");
	if (access("src/report/html.js", R_OK))
		cr_skip_test("not run from the source tree");
	cr_assert_eq(system("node --check src/report/html.js"), 0);
}
