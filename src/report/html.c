// SPDX-License-Identifier: MIT
/*
 * report --html: a self-contained page; the data layout is described in
 * src/report/html.h, the page itself in src/report/html.js and .css, its
 * Diagnosis, tables and views in html_diagnosis.js, html_tables.js,
 * html_progress.js and html_dataflow.js (embedded into html_assets.c by
 * scripts/gen-html-assets.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actors/actors.h"
#include "critical/critical.h"
#include "actors/holdup.h"
#include "file/gantt_csv.h"
#include "lib/json_str.h"
#include "report.h"
#include "html.h"
#include "html_assets.h"
#include "html_views.h"

/* Integers are most of the page: a hand-rolled conversion halves its cost. */
static void put_i64(FILE *f, int64_t v)
{
	char buf[24], *p = buf + sizeof(buf);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do {
		*--p = '0' + u % 10;
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	fwrite(p, 1, buf + sizeof(buf) - p, f);
}

static void put_sep_i64(FILE *f, bool *first, int64_t v)
{
	if (!*first)
		putc(',', f);
	*first = false;
	put_i64(f, v);
}

static void key(FILE *f, const char *k)
{
	fprintf(f, ",\"%s\":", k);
}

/* ---- lanes of a recording ---- */

struct lane {
	uint32_t thread;
	int rank;		/* 0 upstream actor, 1 actors, 2 targets, 3 the rest */
	uint64_t run_ns;
	uint32_t tid;
};

static int cmp_lane(const void *x, const void *y)
{
	const struct lane *a = x, *b = y;

	if (a->rank != b->rank)
		return a->rank - b->rank;
	if (a->run_ns != b->run_ns)
		return a->run_ns > b->run_ns ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/*
 * Lanes: the most upstream breaking actor first, then the other actors'
 * threads, then the targets, then everyone else; busiest first in each
 * group. A thread that never ran has no lane (nor has the idle task: it is
 * not a thread of the timeline).
 */
static int order_lanes(const struct analysis *a, struct lane **out, size_t *n_out,
		       uint32_t **lane_of)
{
	const struct timeline *tl = a->tl;
	const struct actors_result *ar = a->actors;
	struct lane *v = malloc((tl->nthreads ? tl->nthreads : 1) * sizeof(*v));
	uint32_t *lo = malloc((tl->nthreads ? tl->nthreads : 1) * sizeof(*lo));
	int *rank = malloc((tl->nthreads ? tl->nthreads : 1) * sizeof(*rank));
	size_t n = 0;

	if (!v || !lo || !rank) {
		free(v);
		free(lo);
		free(rank);
		return -ENOMEM;
	}
	for (size_t i = 0; i < tl->nthreads; i++)
		rank[i] = tl->threads[i].flags & TL_TARGET ? 2 : 3;
	for (size_t k = 0; ar && k < ar->n; k++) {
		uint32_t t = ar->v[k].thread;

		if (t >= tl->nthreads)
			continue;
		if ((long)k == ar->upstream)
			rank[t] = 0;
		else if (rank[t])
			rank[t] = 1;
	}
	for (size_t i = 0; i < tl->nthreads; i++) {
		lo[i] = UINT32_MAX;
		if (!tl->threads[i].nrun)
			continue;
		v[n++] = (struct lane){ .thread = i, .rank = rank[i], .run_ns = tl->threads[i].run_ns,
					.tid = tl->threads[i].tid };
	}
	qsort(v, n, sizeof(*v), cmp_lane);
	for (size_t k = 0; k < n; k++)
		lo[v[k].thread] = k;
	free(rank);
	*out = v;
	*n_out = n;
	*lane_of = lo;
	return 0;
}

static void lane_runs(FILE *f, const struct timeline *tl, const struct tl_thread *th, int64_t t0)
{
	int64_t prev = 0;
	bool first = true;

	for (size_t i = th->run0; i < th->run0 + th->nrun; i++) {
		const struct tl_run *r = &tl->runs[i];
		int64_t s = (int64_t)r->start - t0, e = (int64_t)r->end - t0;

		/*
		 * A run whose switch-in was not reported may reach back over the
		 * previous one (its start is an upper bound): clamp, so that starts
		 * and ends both increase and the page can binary-search them.
		 */
		if (s < prev)
			s = prev;
		if (e < s)
			e = s;
		put_sep_i64(f, &first, s - prev);
		put_sep_i64(f, &first, e - s);
		put_sep_i64(f, &first, (int64_t)r->cpu * 64 + (r->flags & 7) * 8 + (r->end_state & 7));
		prev = e;
	}
}

static void data_lanes(FILE *f, const struct analysis *a, const struct lane *lanes, size_t n,
		       int64_t t0, struct report_html_stats *st)
{
	const struct timeline *tl = a->tl;
	const struct actors_result *ar = a->actors;

	fputs(",\"lanes\":[", f);
	for (size_t k = 0; k < n; k++) {
		const struct tl_thread *th = &tl->threads[lanes[k].thread];
		bool first = true;

		fputs(k ? ",\n{\"name\":" : "\n{\"name\":", f);
		json_str(f, th->comm, true);
		fprintf(f, ",\"tid\":%u,\"pid\":%u,\"target\":%s,\"kernel\":%s", th->tid, th->pid,
			th->flags & TL_TARGET ? "true" : "false", th->flags & TT_KTHREAD ? "true" : "false");
		key(f, "actor");
		putc('[', f);
		for (size_t i = 0; ar && i < ar->n; i++)
			if (ar->v[i].thread == lanes[k].thread)
				put_sep_i64(f, &first, i);
		putc(']', f);
		key(f, "run_ns");
		put_i64(f, th->run_ns);
		key(f, "n");
		put_i64(f, th->nrun);
		fputs(",\"runs\":[", f);
		lane_runs(f, tl, th, t0);
		fputs("]}", f);
		st->runs += th->nrun;
	}
	fputs("]", f);
}

static void data_gaps(FILE *f, const struct timeline *tl, int64_t t0)
{
	bool first = true;

	fputs(",\n\"gaps\":[", f);
	for (size_t i = 0; i < tl->ngaps; i++) {
		const struct tl_gap *g = &tl->gaps[i];

		put_sep_i64(f, &first, g->cpu);
		put_sep_i64(f, &first, (int64_t)g->start - t0);
		put_sep_i64(f, &first, (int64_t)g->end - t0);
		put_sep_i64(f, &first, g->kind);
		put_sep_i64(f, &first, g->count);
	}
	putc(']', f);
}

static void data_actors(FILE *f, const struct analysis *a, const uint32_t *lane_of, int64_t t0)
{
	const struct actors_result *ar = a->actors;

	fputs(",\n\"actors\":[", f);
	for (size_t k = 0; ar && k < ar->n; k++) {
		const struct actor *ac = &ar->v[k];
		int64_t prev = 0;
		bool first = true;

		fputs(k ? ",\n{\"lane\":" : "\n{\"lane\":", f);
		put_i64(f, ac->thread < a->tl->nthreads && lane_of[ac->thread] != UINT32_MAX
				   ? (int64_t)lane_of[ac->thread] : -1);
		key(f, "name");
		json_str(f, ac->name, true);
		fprintf(f, ",\"kind\":\"%s\",\"periodic\":%s", ac->kind == ACTOR_SYSCALL ? "syscall" : "thread",
			ac->st.periodic ? "true" : "false");
		fprintf(f, ",\"period_ns\":%.0f,\"qcod\":%.6g", ac->st.has_intervals ? ac->st.period_ns : 0,
			ac->st.has_intervals ? ac->st.qcod : 0);
		fputs(",\"inv\":[", f);
		for (size_t i = 0; i < ac->ninv; i++) {
			int64_t s = ac->inv[i].start_ns - t0, e = ac->inv[i].end_ns - t0;

			put_sep_i64(f, &first, s - prev);
			put_sep_i64(f, &first, e > s ? e - s : 0);
			prev = e > s ? e : s;
		}
		fputs("],\"breaks\":[", f);
		first = true;
		for (size_t i = 0; i < ac->nbreaks; i++) {
			const struct actor_break *b = &ac->breaks[i];

			put_sep_i64(f, &first, b->before);
			put_sep_i64(f, &first, b->late);
			put_sep_i64(f, &first, b->start_ns - t0);
			put_sep_i64(f, &first, b->end_ns - t0);
			put_sep_i64(f, &first, b->lateness_ns);
			put_sep_i64(f, &first, b->data_missing);
			put_sep_i64(f, &first, b->kind == BREAK_COMPLETION);
			put_sep_i64(f, &first, actor_break_major(ac, b));
		}
		fputs("]}", f);
	}
	fputs("]", f);
	fprintf(f, ",\"upstream\":%ld", ar ? ar->upstream : -1L);
}

/* ---- critical paths ---- */

/* Category names, interned into a small table the page indexes. */
struct cat_names {
	char v[CRIT_CAT_MAX * 4][48];
	size_t n;
};

static size_t cat_index(struct cat_names *cn, const struct analysis *a, uint8_t cat, uint16_t sub)
{
	char buf[48];
	const char *name = critical_cat_name(cat, sub, a->trace, buf, sizeof(buf));

	for (size_t i = 0; i < cn->n; i++)
		if (!strcmp(cn->v[i], name))
			return i;
	if (cn->n == sizeof(cn->v) / sizeof(cn->v[0]))
		return 0;
	snprintf(cn->v[cn->n], sizeof(cn->v[0]), "%s", name);
	return cn->n++;
}

static int64_t lane_or_none(const uint32_t *lane_of, size_t n, uint32_t thread)
{
	return thread < n && lane_of[thread] != UINT32_MAX ? (int64_t)lane_of[thread] : -1;
}

/* "seg": [lane, start, end, kind, holder lane, category, ...] of one path. */
static void path_json(FILE *f, const struct analysis *a, const struct crit_path *p, const uint32_t *lane_of,
		      int64_t t0, struct cat_names *cn)
{
	size_t nth = a->tl->nthreads;
	bool first = true;

	fputs(",\"seg\":[", f);
	for (size_t i = 0; i < p->nseg; i++) {
		const struct crit_seg *g = &p->seg[i];

		put_sep_i64(f, &first, lane_or_none(lane_of, nth, g->thread));
		put_sep_i64(f, &first, g->start_ns - t0);
		put_sep_i64(f, &first, g->end_ns - t0);
		put_sep_i64(f, &first, g->kind);
		put_sep_i64(f, &first, g->kind == CRIT_SEG_WAIT ? lane_or_none(lane_of, nth, g->holder) : -1);
		put_sep_i64(f, &first, g->kind == CRIT_SEG_RUN ? -1 : (int64_t)cat_index(cn, a, g->cat, g->sub));
	}
	putc(']', f);
}

/*
 * The critical paths the page outlines in red: into the late invocation of
 * every break (what delayed it) and into the end of the recording.
 */
static void data_critical(FILE *f, const struct analysis *a, const uint32_t *lane_of, int64_t t0)
{
	const struct critical_result *r = a->critical;
	static struct cat_names cn_zero;
	struct cat_names *cn;

	if (!r || r->input != CRIT_INPUT_TRACE) {
		fputs(",\n\"critical\":null", f);
		return;
	}
	cn = malloc(sizeof(*cn));
	if (!cn) {
		fputs(",\n\"critical\":null", f);
		return;
	}
	*cn = cn_zero;
	fputs(",\n\"critical\":{\"paths\":[", f);
	for (size_t i = 0, listed = critical__breaks_listed(r, a->opts.break_paths); i < listed; i++) {
		const struct crit_break *b = &r->breaks[i];
		const struct actor *ac = a->actors && b->actor < a->actors->n ? &a->actors->v[b->actor] : NULL;

		fprintf(f, "%s{\"name\":", i ? ",\n" : "\n");
		if (ac) {
			char name[256], held[96];
			struct holdup h;
			int n = snprintf(name, sizeof(name), "into the late invocation %zu of %s",
					 b->brk < ac->nbreaks ? ac->breaks[b->brk].late : 0, ac->name);

			/* what held it, where the path alone cannot say (holdup.h) */
			if (n > 0 && (size_t)n < sizeof(name) && critical__break_holdup(a->actors, b, &h)) {
				holdup__describe(&h, trace__arch(a->trace), held, sizeof(held));
				snprintf(name + n, sizeof(name) - (size_t)n, ": %s", held);
			}
			json_str(f, name, true);
		} else {
			fputs("\"into a late invocation\"", f);
		}
		fprintf(f, ",\"actor\":%zu,\"brk\":%zu,\"lateness\":%" PRId64, b->actor, b->brk, b->lateness_ns);
		path_json(f, a, &b->path, lane_of, t0, cn);
		putc('}', f);
	}
	fprintf(f, "%s{\"name\":\"into the end of the recording\",\"actor\":-1,\"brk\":-1,\"lateness\":0",
		r->nbreaks ? ",\n" : "\n");
	path_json(f, a, &r->whole, lane_of, t0, cn);
	fputs("}],\"cats\":[", f);
	for (size_t i = 0; i < cn->n; i++) {
		if (i)
			putc(',', f);
		json_str(f, cn->v[i], true);
	}
	fputs("]}", f);
	free(cn);
}

static int data_trace(FILE *f, const struct analysis *a, struct report_html_stats *st)
{
	const struct timeline *tl = a->tl;
	int64_t t0 = tl->start;
	struct lane *lanes;
	uint32_t *lane_of;
	size_t n;
	int err;

	err = order_lanes(a, &lanes, &n, &lane_of);
	if (err)
		return err;
	fprintf(f, "{\"v\":1,\"gantt\":false,\"t0\":\"%" PRIu64 "\",\"dur\":%" PRIu64 ",\"cpus\":%d",
		tl->start, tl->end - tl->start, tl->ncpus);
	fputs(",\"states\":[", f);
	for (int s = 0; s <= QT_END_UNKNOWN; s++)
		fprintf(f, "%s\"%s\"", s ? "," : "", timeline__end_state_name(s));
	putc(']', f);
	data_lanes(f, a, lanes, n, t0, st);
	data_gaps(f, tl, t0);
	data_actors(f, a, lane_of, t0);
	data_critical(f, a, lane_of, t0);
	html_views_progress(f, a, lane_of, t0);
	putc('}', f);
	st->lanes = n;
	free(lanes);
	free(lane_of);
	return 0;
}

/* ---- lanes of a Gantt chart ---- */

/* One task of a Gantt chart as a RUN segment of a path. */
static void gantt_seg(FILE *f, const struct gantt *g, const uint32_t *task_lane, uint32_t t, int64_t t0,
		      bool *first)
{
	put_sep_i64(f, first, task_lane[t]);
	put_sep_i64(f, first, g->tasks[t].start_ns - t0);
	put_sep_i64(f, first, g->tasks[t].end_ns - t0);
	put_sep_i64(f, first, CRIT_SEG_RUN);
	put_sep_i64(f, first, -1);
	put_sep_i64(f, first, -1);
}

/* The critical tasks (float 0), and the critical paths listed, as paths. */
static void gantt_critical(FILE *f, const struct analysis *a, const uint32_t *task_lane, int64_t t0)
{
	const struct critical_result *r = a->critical;
	const struct gantt *g = a->gantt;
	bool first = true;

	if (!r || r->input != CRIT_INPUT_GANTT) {
		fputs(",\"critical\":null", f);
		return;
	}
	fputs(",\n\"critical\":{\"cats\":[],\"paths\":[{\"name\":\"critical tasks\",\"links\":false,"
	      "\"actor\":-1,\"brk\":-1,\"lateness\":0,\"seg\":[", f);
	for (size_t i = 0; i < r->ncritical; i++)
		if (r->critical[i] < g->n)
			gantt_seg(f, g, task_lane, r->critical[i], t0, &first);
	putc(']', f);
	putc('}', f);
	for (size_t k = 0; k < r->npaths_listed; k++) {
		fprintf(f, ",\n{\"name\":\"critical path %zu\",\"actor\":-1,\"brk\":-1,\"lateness\":0,\"seg\":[",
			k + 1);
		first = true;
		for (size_t i = 0; i < r->path_len[k]; i++)
			if (r->paths[k][i] < g->n)
				gantt_seg(f, g, task_lane, r->paths[k][i], t0, &first);
		fputs("]}", f);
	}
	fputs("]}", f);
}

/*
 * One lane per actor in the order of the file; tasks of an actor that
 * overlap go to sub-lanes (first fit), since a lane shows one thing at a
 * time. Times are relative to the earliest start.
 */
static int data_gantt(FILE *f, const struct analysis *a, struct report_html_stats *st)
{
	const struct gantt *g = a->gantt;
	size_t n = g->n ? g->n : 1;
	uint32_t *order = malloc(n * sizeof(*order)), *lane = malloc(n * sizeof(*lane));
	uint32_t *task_lane = malloc(n * sizeof(*task_lane));
	int64_t *lane_end = malloc(n * sizeof(*lane_end)), t0 = INT64_MAX, t1 = 0;
	size_t nlanes = 0;

	if (!order || !lane || !lane_end || !task_lane) {
		free(order);
		free(lane);
		free(lane_end);
		free(task_lane);
		return -ENOMEM;
	}
	for (size_t i = 0; i < g->n; i++) {
		if (g->tasks[i].start_ns < t0)
			t0 = g->tasks[i].start_ns;
		if (g->tasks[i].end_ns > t1)
			t1 = g->tasks[i].end_ns;
	}
	if (!g->n)
		t0 = 0;
	gantt__order_by_actor(g, order);
	fprintf(f, "{\"v\":1,\"gantt\":true,\"t0\":\"%" PRId64 "\",\"dur\":%" PRId64 ",\"cpus\":0",
		t0, t1 - t0);
	fputs(",\"states\":[\"task\"],\"names\":[", f);
	for (size_t i = 0; i < g->n_names; i++) {
		if (i)
			putc(',', f);
		json_str(f, g->names[i], true);
	}
	fputs("],\"lanes\":[", f);
	for (size_t k = 0; k < g->n;) {
		uint32_t ac = g->actor[order[k]];
		size_t k0 = k, nl = 0;

		/* first fit: lane[] gets each task's sub-lane */
		for (; k < g->n && g->actor[order[k]] == ac; k++) {
			const struct gantt_task *t = &g->tasks[order[k]];
			size_t l = 0;

			while (l < nl && lane_end[l] > t->start_ns)
				l++;
			if (l == nl)
				nl++;
			lane_end[l] = t->end_ns;
			lane[k] = l;
		}
		for (size_t l = 0; l < nl; l++) {
			int64_t prev = 0, busy = 0;
			size_t cnt = 0;
			bool first = true;
			char name[300];

			snprintf(name, sizeof(name), l ? "%s (%zu)" : "%s", g->actors[ac], l + 1);
			fputs(nlanes ? ",\n{\"name\":" : "\n{\"name\":", f);
			json_str(f, name, true);
			fputs(",\"tid\":0,\"pid\":0,\"target\":true,\"kernel\":false,\"actor\":[],\"runs\":[", f);
			for (size_t j = k0; j < k; j++) {
				const struct gantt_task *t = &g->tasks[order[j]];
				int64_t s = t->start_ns - t0, e = t->end_ns - t0;

				if (lane[j] != l)
					continue;
				task_lane[order[j]] = nlanes;
				put_sep_i64(f, &first, s - prev);
				put_sep_i64(f, &first, e - s);
				put_sep_i64(f, &first, 0);
				prev = e;
				busy += e - s;
				cnt++;
			}
			fputs("],\"task\":[", f);
			first = true;
			for (size_t j = k0; j < k; j++)
				if (lane[j] == l)
					put_sep_i64(f, &first, g->name[order[j]]);
			fputs("],\"line\":[", f);
			first = true;
			for (size_t j = k0; j < k; j++)
				if (lane[j] == l)
					put_sep_i64(f, &first, g->line[order[j]]);
			fprintf(f, "],\"run_ns\":%" PRId64 ",\"n\":%zu}", busy, cnt);
			nlanes++;
			st->runs += cnt;
		}
	}
	fputs("],\"gaps\":[],\"actors\":[],\"upstream\":-1", f);
	gantt_critical(f, a, task_lane, t0);
	putc('}', f);
	st->lanes = nlanes;
	free(order);
	free(lane);
	free(lane_end);
	free(task_lane);
	return 0;
}

/* ---- the page ---- */

static void html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: putc(*s, f);
		}
	}
}

/*
 * The report --json document, with '<' escaped: it can hold thread names,
 * and "</script>" in one would end the block early. Outside JSON strings
 * there is no '<', so \u003c is always a valid replacement. Bytes that are
 * not UTF-8 (json_writer.c passes them through) become U+FFFD.
 */
static int embed_report_json(const struct analysis *a, FILE *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int err;

	if (!m)
		return -ENOMEM;
	err = report_json(a, m);
	if (fclose(m) || err) {
		free(buf);
		return err ? err : -ENOMEM;
	}
	json_utf8_copy(f, buf, len, true);
	free(buf);
	return 0;
}

int report_html(const struct analysis *a, FILE *f, const struct report_html_opts *opts,
		struct report_html_stats *stats)
{
	struct report_html_stats st = { 0 };
	const char *file = a->trace ? a->trace->path : "Gantt chart";
	off_t at0 = ftello(f), d0, d1;
	int err;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", f);
	/* No network, ever: the page and its data are all there is. */
	fputs("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n", f);
	fputs("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
	if (opts && opts->title) {
		html_text(f, opts->title);
	} else {
		fputs("qostrace: ", f);
		html_text(f, file);
	}
	fputs("</title>\n<style>\n", f);
	fputs(report_html_css, f);
	fputs("</style>\n</head>\n<body>\n", f);
	fputs(report_html_body, f);
	fputs("<script type=\"application/json\" id=\"qt-report\">\n", f);
	err = embed_report_json(a, f);
	if (err)
		return err;
	fputs("</script>\n<script type=\"application/json\" id=\"qt-data\">\n", f);
	d0 = ftello(f);
	if (a->tl)
		err = data_trace(f, a, &st);
	else if (a->gantt)
		err = data_gantt(f, a, &st);
	else
		fputs("{\"v\":1,\"gantt\":false,\"t0\":\"0\",\"dur\":0,\"cpus\":0,\"states\":[],\"lanes\":[],"
		      "\"gaps\":[],\"actors\":[],\"upstream\":-1,\"critical\":null}", f);
	if (err)
		return err;
	d1 = ftello(f);
	fputs("\n</script>\n<script>\n", f);
	fputs(report_html_js, f);
	fputs("</script>\n</body>\n</html>\n", f);
	if (fflush(f) || ferror(f))
		return -EIO;
	if (d0 >= 0 && d1 >= d0)
		st.data_bytes = d1 - d0;
	if (at0 >= 0 && ftello(f) >= at0)
		st.bytes = ftello(f) - at0;
	if (stats)
		*stats = st;
	return 0;
}

int report_html_write(const struct analysis *a, const char *path,
		      const struct report_html_opts *opts, struct report_html_stats *stats)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	FILE *f;
	int err;

	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	err = report_html(a, f, opts, stats);
	if (fclose(f) && !err)
		err = -EIO;
	return err;
}
