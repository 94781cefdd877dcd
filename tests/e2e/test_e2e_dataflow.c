// SPDX-License-Identifier: MIT
/*
 * End-to-end: the data-flow critical path (docs/ALGORITHMS.md §9) of a
 * real pipeline of four processes, recorded with the real BPF programs.
 * tests/workloads/qt_dataflow: two producers write a message each into
 * a pipe, a transformer writes each message to a file of its own, a
 * consumer merges the two files into out. The producer named slow writes
 * only once the transformer wrote the other's file (a futex, no data
 * call): its message, its file and so the critical input of out are
 * known by construction, whatever the machine's load, and the workload
 * logs every call with the time around it and each object's identity
 * (fstat). Asserted, for each producer slowed in turn:
 *  - every logged read and write is a data record of the same process and
 *    object, inside the logged times, with the logged bytes (the
 *    recorder against the workload's own log);
 *  - the default target is out, and the path into it runs slow producer
 *    -> its pipe -> transformer -> its file -> consumer -> out, the other
 *    file a non-critical input whose slack lies within the logged times;
 *    nothing of the fast producer is on it; each hop's read lies within
 *    the logged read;
 *  - report --data-path prints that path; --data-path=OBJECT names
 *    another target; a recording without data records (--no-data, the
 *    tracefs path) makes --data-path exit 1 saying why.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/analysis.h"
#include "dataflow/stage.h"
#include "e2e_analysis.h"
#include "e2eutil.h"
#include "e2e_chromium.h"
#include "file/dataobj.h"
#include "file/syscall_names.h"
#include "testutil.h"

#define MSG 4096

struct call {
	char what[8], who[16], obj[8];
	int pid;
	int64_t before, after;
};

struct run {
	int slow;
	char dir[300], trace[320], log[320];
	char obj[5][48];	/* pipe1, pipe2, x1, x2, out: as dataobj_name() prints them */
	int pid_cons, pid_trans, pid_prod[2];
	struct call calls[16];
	size_t ncalls;
	struct e2e_analysis e;
};

static struct e2e_scratch scratch;
static struct run runs[2] = { { .slow = 1 }, { .slow = 2 } };
static const char *const obj_names[5] = { "pipe1", "pipe2", "x1", "x2", "out" };

static int obj_index(const char *name)
{
	for (int i = 0; i < 5; i++)
		if (!strcmp(name, obj_names[i]))
			return i;
	cr_assert_fail("no object %s", name);
	return -1;
}

static void parse_log(struct run *r)
{
	char *text = e2e_slurp(r->log), *save = NULL;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char a[16], b[48];
		struct call c;
		long long t0, t1;
		int pid;

		if (sscanf(l, "proc %15s pid=%d", a, &pid) == 2) {
			if (!strcmp(a, "df_cons"))
				r->pid_cons = pid;
			else if (!strcmp(a, "df_trans"))
				r->pid_trans = pid;
			else
				r->pid_prod[a[7] - '1'] = pid;
		} else if (sscanf(l, "obj %15s %47s", a, b) == 2) {
			snprintf(r->obj[obj_index(a)], sizeof(r->obj[0]), "%s", b);
		} else if (sscanf(l, "%7s %15s pid=%d obj=%7s before=%lld after=%lld", c.what, c.who, &c.pid, c.obj,
				  &t0, &t1) == 6) {
			cr_assert_lt(r->ncalls, 16);
			c.before = t0;
			c.after = t1;
			r->calls[r->ncalls++] = c;
		}
	}
	free(text);
	cr_assert(r->pid_cons && r->pid_trans && r->pid_prod[0] && r->pid_prod[1], "pids missing in %s", r->log);
	cr_assert_eq(r->ncalls, 9, "%s: %zu calls logged, want 9", r->log, r->ncalls);
}

/* The logged call: what (read, write) of obj by who. */
static const struct call *logged(const struct run *r, const char *what, const char *who, const char *obj)
{
	for (size_t i = 0; i < r->ncalls; i++)
		if (!strcmp(r->calls[i].what, what) && !strcmp(r->calls[i].who, who) && !strcmp(r->calls[i].obj, obj))
			return &r->calls[i];
	cr_assert_fail("no %s of %s by %s in the log", what, obj, who);
	return NULL;
}

static void record(struct run *r)
{
	char qostrace[256], workload[256], slow[4], done[32];

	snprintf(r->dir, sizeof(r->dir), "%s/slow%d", scratch.dir, r->slow);
	cr_assert(mkdir(r->dir, 0700) == 0 || errno == EEXIST);
	snprintf(r->trace, sizeof(r->trace), "%s/df.qtrace", r->dir);
	snprintf(r->log, sizeof(r->log), "%s/df.log", r->dir);
	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	snprintf(workload, sizeof(workload), "%s/workloads/qt_dataflow", build_dir());
	snprintf(slow, sizeof(slow), "%d", r->slow);
	snprintf(done, sizeof(done), "slow%d.done", r->slow);
	{
		char *argv[] = { qostrace, "record", "-q", "--force", "-o", r->trace, "--", workload, r->dir, r->log,
				 slow, NULL };

		e2e_record_once(&scratch, argv, done, 60000);
	}
	parse_log(r);
	e2e_analyse(r->trace, &r->e);
}

static void setup(void)
{
	require_recording();
	e2e_scratch_open(&scratch);
	record(&runs[0]);
	record(&runs[1]);
}

static void cleanup(void)
{
	for (int i = 0; i < 2; i++)
		e2e_analysis_free(&runs[i].e);
	e2e_scratch_close(&scratch);
}

TestSuite(e2e_dataflow, .init = setup, .fini = cleanup, .timeout = 120);

/* Every logged read and write is a data record of that process and object, within the logged times. */
static void check_records(const struct run *r)
{
	const struct trace *t = r->e.tr;

	for (size_t i = 0; i < r->ncalls; i++) {
		const struct call *c = &r->calls[i];
		int64_t bytes = !strcmp(c->obj, "out") ? 2 * MSG : MSG;
		bool found = false;

		for (size_t k = 0; k < t->ndata && !found; k++) {
			const struct qt_data *d = &t->data[k];
			const char *name = syscall_name(trace__arch(t), d->nr);
			char o[48];

			found = d->tgid == (uint32_t)c->pid && name && !strcmp(name, c->what) &&
				!strcmp(dataobj_name(&d->obj[0], o, sizeof(o)), r->obj[obj_index(c->obj)]) &&
				(int64_t)d->h.ts >= c->before && (int64_t)d->end_ts <= c->after && d->bytes == bytes;
		}
		cr_expect(found, "slow %d: %s of %s by %s (pid %d) in [%" PRId64 ", %" PRId64 "] is no data record",
			  r->slow, c->what, c->obj, c->who, c->pid, c->before, c->after);
	}
}

Test(e2e_dataflow, every_logged_call_is_recorded)
{
	check_records(&runs[0]);
	check_records(&runs[1]);
}

static const char *hop_obj(const struct run *r, const struct df_hop *h, char *buf, size_t len)
{
	return df_recording_obj_name(&r->e.an->dataflow->rec, h->obj, buf, len);
}

static void check_path(const struct run *r)
{
	const struct dataflow_result *d = r->e.an->dataflow;
	int s = r->slow - 1, f = !s;
	const char *pipe_s = r->obj[s], *x_s = r->obj[2 + s], *pipe_f = r->obj[f], *x_f = r->obj[2 + f];
	char xs[4], xf[4], o[80];
	const struct df_hop *h;
	const struct call *ws, *wf, *rd;
	bool other = false;

	snprintf(xs, sizeof(xs), "x%d", s + 1);
	snprintf(xf, sizeof(xf), "x%d", f + 1);
	cr_assert_not_null(d, "slow %d: no data path", r->slow);
	cr_assert_geq(d->target, 0);
	cr_assert(!d->named);
	cr_assert_geq(d->nhops, 4, "slow %d: %zu hops", r->slow, d->nhops);
	/* the last three hops: the slow producer's pipe, its file, out */
	h = &d->hops[d->nhops - 3];
	cr_expect_str_eq(hop_obj(r, h, o, sizeof(o)), pipe_s, "slow %d: the path's pipe", r->slow);
	cr_expect_eq(h->tgid, (uint32_t)r->pid_prod[s]);
	h = &d->hops[d->nhops - 2];
	cr_expect_str_eq(hop_obj(r, h, o, sizeof(o)), x_s, "slow %d: the path's file", r->slow);
	cr_expect_eq(h->tgid, (uint32_t)r->pid_trans);
	rd = logged(r, "read", "df_trans", s ? "pipe2" : "pipe1");
	cr_expect(h->read_at >= rd->before && h->read_at <= rd->after, "the transformer's read at %" PRId64
		  " is not within the logged [%" PRId64 ", %" PRId64 "]", h->read_at, rd->before, rd->after);
	h = &d->hops[d->nhops - 1];
	cr_expect_str_eq(hop_obj(r, h, o, sizeof(o)), r->obj[4], "slow %d: the target", r->slow);
	cr_expect_eq(h->tgid, (uint32_t)r->pid_cons);
	rd = logged(r, "read", "df_cons", xs);
	cr_expect(h->read_at >= rd->before && h->read_at <= rd->after);
	/* nothing of the fast branch on the path */
	for (size_t i = 0; i < d->nhops; i++) {
		hop_obj(r, &d->hops[i], o, sizeof(o));
		cr_expect(strcmp(o, pipe_f) && strcmp(o, x_f), "slow %d: %s is on the path", r->slow, o);
		cr_expect_neq(d->hops[i].tgid, (uint32_t)r->pid_prod[f]);
	}
	/* the fast file: out's other input, ready earlier by the time between the two writes' ends */
	ws = logged(r, "write", "df_trans", xs);
	wf = logged(r, "write", "df_trans", xf);
	for (size_t k = 0; k < h->nother; k++) {
		const struct df_other *x = &d->others[h->other0 + k];

		if (strcmp(df_recording_obj_name(&d->rec, x->obj, o, sizeof(o)), x_f))
			continue;
		other = true;
		cr_expect(x->slack >= ws->before - wf->after && x->slack <= ws->after - wf->before,
			  "slack %" PRId64 " outside the logged [%" PRId64 ", %" PRId64 "]", x->slack,
			  ws->before - wf->after, ws->after - wf->before);
	}
	cr_expect(other, "slow %d: %s is not listed as out's other input", r->slow, x_f);
}

Test(e2e_dataflow, the_path_runs_through_the_slow_producer)
{
	check_path(&runs[0]);
	check_path(&runs[1]);
}

/* The two runs' paths differ exactly where the slowed producer changed. */
Test(e2e_dataflow, slowing_the_other_producer_moves_the_path)
{
	const struct dataflow_result *a = runs[0].e.an->dataflow, *b = runs[1].e.an->dataflow;
	char oa[80], ob[80];

	cr_assert(a && b && a->nhops >= 3 && b->nhops >= 3);
	df_recording_obj_name(&a->rec, a->hops[a->nhops - 3].obj, oa, sizeof(oa));
	df_recording_obj_name(&b->rec, b->hops[b->nhops - 3].obj, ob, sizeof(ob));
	cr_expect_str_eq(oa, runs[0].obj[0]);
	cr_expect_str_eq(ob, runs[1].obj[1]);
}

/* The "Data path" section of a text report, cut out in place (the test fails without one). */
static char *section(char *out)
{
	char *s = strstr(out, "== Data path"), *end;

	cr_assert_not_null(s, "no Data path section:\n%s", out);
	end = strstr(s + 1, "\n== ");
	if (end)
		end[1] = 0;
	return s;
}

Test(e2e_dataflow, text_report)
{
	const struct run *r = &runs[1];
	char qostrace[256], target[64], *out, *s;
	char cmd[1024];

	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	{
		char *argv[] = { qostrace, "report", "-q", "--data-path", (char *)r->trace, NULL };

		out = e2e_output(argv, &scratch, "report.txt");
	}
	s = section(out);
	cr_expect(strstr(s, "the last file written that nothing read"), "%s", s);
	cr_expect(strstr(s, r->obj[1]) && strstr(s, r->obj[3]) && strstr(s, r->obj[4]), "%s", s);
	cr_expect(strstr(s, "df_prod2/") && !strstr(s, "df_prod1/"), "%s", s);
	cr_expect(strstr(s, "other input"), "%s", s);
	snprintf(target, sizeof(target), "out (%s) v2", r->obj[4]);	/* named by its open */
	cr_expect(strstr(s, target), "no '%s' in:\n%s", target, s);
	free(out);
	/* a target by its file's path: the transformer's other file */
	snprintf(cmd, sizeof(cmd), "--data-path=%s/x1", r->dir);
	{
		char *argv[] = { qostrace, "report", "-q", cmd, (char *)r->trace, NULL };

		out = e2e_output(argv, &scratch, "report-x1.txt");
	}
	s = section(out);
	snprintf(target, sizeof(target), "into x1 (%s) v2", r->obj[2]);
	cr_expect(strstr(s, target), "no '%s' in:\n%s", target, s);
	cr_expect(strstr(s, "df_prod1/") && !strstr(s, "df_prod2/"), "%s", s);
	free(out);
	/* another target: the fast producer's pipe */
	snprintf(target, sizeof(target), "--data-path=%s", r->obj[0]);
	{
		char *argv[] = { qostrace, "report", "-q", target, (char *)r->trace, NULL };

		out = e2e_output(argv, &scratch, "report-pipe.txt");
	}
	s = section(out);
	cr_expect(strstr(s, "as --data-path named it"), "%s", s);
	cr_expect(strstr(s, "df_prod1/"), "%s", s);
	cr_expect(!strstr(s, "df_cons/") && !strstr(s, "df_trans/"), "%s", s);
	free(out);
	/* an object no call made a version of */
	snprintf(cmd, sizeof(cmd), "%s report -q --data-path=pipe:[1] '%s'", qostrace, r->trace);
	cr_expect_eq(e2e_sh(cmd, &out), 1);
	cr_expect(strstr(out, "no traced call made a version of it"), "%s", out);
	free(out);
}

/* Without data records, --data-path fails and says why; the report without it is unchanged. */
static void without_data(const char *opt, const char *why)
{
	char qostrace[256], trace[400], cmd[2048], workload[256], *out;

	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	snprintf(workload, sizeof(workload), "%s/workloads/qt_dataflow", build_dir());
	snprintf(trace, sizeof(trace), "%s/nodata%s.qtrace", scratch.dir, opt);
	snprintf(cmd, sizeof(cmd), "%s record -q --force %s -o '%s' -- %s '%s' '%s/nodata.log' 2", qostrace, opt,
		 trace, workload, runs[1].dir, scratch.dir);
	cr_assert_eq(e2e_sh(cmd, &out), 0, "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s report -q --data-path '%s'", qostrace, trace);
	cr_expect_eq(e2e_sh(cmd, &out), 1, "%s", out);
	cr_expect(strstr(out, why), "%s: want '%s' in:\n%s", opt, why, out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s report -q '%s'", qostrace, trace);
	cr_expect_eq(e2e_sh(cmd, &out), 0, "%s", out);
	cr_expect(!strstr(out, "Data path"), "%s", out);
	free(out);
}

Test(e2e_dataflow, no_data_records_say_why)
{
	without_data("--no-data", "recorded with --no-data");
	without_data("--backend=tracefs", "tracefs attach path");
}

/* report --json: data_path validates against docs/report.schema.json and names the path's objects. */
Test(e2e_dataflow, json_report)
{
	const struct run *r = &runs[0];
	char *doc = e2e_validated_report(r->trace, &scratch), *dp, want[96];

	dp = strstr(doc, "\"data_path\": {");
	cr_assert_not_null(dp, "no data_path object");
	snprintf(want, sizeof(want), "\"object\": \"%s\"", r->obj[0]);	/* pipe1: slow in this run */
	cr_expect(strstr(dp, want), "%s not in data_path", want);
	snprintf(want, sizeof(want), "\"object\": \"%s\"", r->obj[4]);
	cr_expect(strstr(dp, want), "%s not in data_path", want);
	cr_expect(strstr(dp, "\"named\": false"));
	cr_expect(strstr(dp, "\"name\": \"out\""));
	cr_expect(strstr(dp, "\"name\": \"x1\""));
	cr_expect(strstr(dp, "\"comm\": \"df_prod1\""));
	cr_expect(!strstr(dp, "\"comm\": \"df_prod2\""));
	free(doc);
}

/*
 * export --perfetto: a track of the path's hops, and flows along it whose
 * ends each sit on a slice of their category (a system call, or a run
 * where a read waited in the call: same pid, tid and ts), from the slow
 * producer's write to the transformer's read, and on to out's write.
 */
Test(e2e_dataflow, perfetto_flows)
{
	const struct run *r = &runs[1];
	char qostrace[256], pf[400], cmd[1400], *out;

	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	snprintf(pf, sizeof(pf), "%s/df.perfetto.json", scratch.dir);
	snprintf(cmd, sizeof(cmd), "%s export -q --perfetto '%s' '%s'", qostrace, pf, r->trace);
	cr_assert_eq(e2e_sh(cmd, &out), 0, "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys\n"
		 "ev=json.load(open(sys.argv[1]))[\"traceEvents\"]\n"
		 "xs={(e[\"pid\"],e[\"tid\"],e[\"ts\"],e[\"cat\"]) for e in ev if e.get(\"ph\")==\"X\"}\n"
		 "fl=[e for e in ev if e.get(\"name\")==\"data path\"]\n"
		 "print(len(fl), sum((e[\"pid\"],e[\"tid\"],e[\"ts\"],e[\"cat\"]) in xs for e in fl),"
		 " \",\".join(sorted({str(e[\"pid\"]) for e in fl})),"
		 " any(e.get(\"cat\")==\"data\" and \"%s\" in e[\"name\"] for e in ev))' '%s'",
		 r->obj[4], pf);
	cr_assert_eq(e2e_sh(cmd, &out), 0, "%s", out);
	{
		int n = 0, bound = 0;
		char pids[200] = "", track[8] = "";
		char want[64];

		pids[0] = ',';
		cr_assert_eq(sscanf(out, "%d %d %197s %7s", &n, &bound, pids + 1, track), 4, "%s", out);
		strcat(pids, ",");	/* ",PID,PID,": a pid is found whole */
		cr_expect_geq(n, 6, "%d flow ends", n);
		cr_expect_eq(bound, n, "%d of %d flow ends bind to a slice (a system call, or a run)", bound, n);
		snprintf(want, sizeof(want), ",%d,", r->pid_prod[1]);
		cr_expect(strstr(pids, want), "the slow producer %s is not in the flows' pids %s", want, pids);
		snprintf(want, sizeof(want), ",%d,", r->pid_prod[0]);
		cr_expect(!strstr(pids, want), "the fast producer %s is in the flows' pids %s", want, pids);
		cr_expect_str_eq(track, "True");
	}
	free(out);
}

/* report --html: the section lists the path and a hop's chip zooms the timeline to it, in headless Chromium. */
Test(e2e_dataflow, html_in_chromium)
{
	char qostrace[256], page[400], shots[400], cmd[1200], *out;

	require_chromium();
	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	snprintf(page, sizeof(page), "%s/df.html", scratch.dir);
	snprintf(shots, sizeof(shots), "%s/shots", scratch.dir);
	snprintf(cmd, sizeof(cmd), "%s report -q --html '%s' '%s' > /dev/null", qostrace, page, runs[1].trace);
	cr_assert_eq(e2e_sh(cmd, &out), 0, "%s", out);
	free(out);
	chromium_check(page, shots, "--expect-dataflow", "dataflow.png", "dataflow");
}
