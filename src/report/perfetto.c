// SPDX-License-Identifier: MIT
/*
 * Chrome trace-event JSON for Perfetto / chrome://tracing; see
 * src/report/perfetto.h for what goes on which track.
 *
 * Every event is printed as soon as it is known (fprintf into the stream's
 * buffer), thread by thread; the only memory is per-thread bookkeeping.
 * Slices on one track must nest strictly, which is why system calls (they
 * span several run intervals) and breaks (they overlap invocations) have
 * tracks of their own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "critical/critical.h"
#include "dataflow/stage.h"
#include "perfetto.h"
#include "actors/holdup.h"
#include "file/gantt_csv.h"
#include "lib/json_str.h"
#include "file/syscall_names.h"
#include "file/trace.h"

struct pf {
	FILE *f;
	const struct analysis *a;
	const struct timeline *tl;
	int64_t t0;		/* ts 0 */
	const char *arch;
	struct perfetto_stats st;
	uint64_t next_flow;
	const struct perfetto_opts *o;
};

/* µs relative to t0 with whole ns + 0.1 ns: see the header. */
static void put_us(FILE *f, int64_t ns)
{
	uint64_t v;

	if (ns < 0) {
		putc('-', f);
		v = -(uint64_t)ns;
	} else {
		v = ns;
	}
	fprintf(f, "%" PRIu64 ".%03u1", v / 1000, (unsigned)(v % 1000));
}

/* Opens one event: {"ph":"X","cat":...,"name":...,"pid":..,"tid":..,"ts":.. */
static void ev_open(struct pf *p, char ph, const char *cat, const char *name, uint32_t pid,
		    uint32_t tid, int64_t ts)
{
	FILE *f = p->f;

	fputs(p->st.events ? ",\n{\"ph\":\"" : "\n{\"ph\":\"", f);
	putc(ph, f);
	fputs("\",\"cat\":\"", f);
	fputs(cat, f);
	fputs("\",\"name\":", f);
	json_str(f, name, false);
	fprintf(f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":", pid, tid);
	put_us(f, ts - p->t0);
	p->st.events++;
}

static void ev_dur(struct pf *p, int64_t start, int64_t end)
{
	fputs(",\"dur\":", p->f);
	put_us(p->f, end > start ? end - start : 0);
}

/* A metadata event: thread_name, process_name, *_sort_index. */
static void meta(struct pf *p, const char *what, uint32_t pid, uint32_t tid, const char *name,
		 int64_t sort)
{
	FILE *f = p->f;

	fputs(p->st.events ? ",\n{\"ph\":\"M\",\"name\":\"" : "\n{\"ph\":\"M\",\"name\":\"", f);
	fputs(what, f);
	fprintf(f, "\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":{", pid, tid);
	if (name) {
		fputs("\"name\":", f);
		json_str(f, name, false);
	} else {
		fprintf(f, "\"sort_index\":%" PRId64, sort);
	}
	fputs("}}", f);
	p->st.events++;
}

/*
 * The two ends of a v1 flow; each sits on the ts of the slice it binds to,
 * in that slice's category (DevTools binds by ts, pid, tid and category).
 */
static void flow_cat(struct pf *p, const char *cat, const char *name, uint32_t pid0, uint32_t tid0,
		     int64_t ts0, uint32_t pid1, uint32_t tid1, int64_t ts1)
{
	uint64_t id = ++p->next_flow;

	ev_open(p, 's', cat, name, pid0, tid0, ts0);
	fprintf(p->f, ",\"id\":%" PRIu64 "}", id);
	ev_open(p, 'f', cat, name, pid1, tid1, ts1);
	fprintf(p->f, ",\"bp\":\"e\",\"id\":%" PRIu64 "}", id);
}

static void flow(struct pf *p, const char *name, uint32_t pid0, uint32_t tid0, int64_t ts0,
		 uint32_t pid1, uint32_t tid1, int64_t ts1)
{
	flow_cat(p, "sched", name, pid0, tid0, ts0, pid1, tid1, ts1);
}

static const char *run_name(uint8_t end_state)
{
	switch (end_state) {
	case QT_END_PREEMPTED: return "run: preempted";
	case QT_END_SLEEP: return "run: sleep";
	case QT_END_BLOCKED: return "run: blocked";
	case QT_END_EXITED: return "run: exited";
	case QT_END_TRUNCATED: return "run: still running";
	case QT_END_UNKNOWN: return "run: end lost";
	default: return "run: other";
	}
}

static bool has_activity(const struct tl_thread *th)
{
	return th->nruns || th->nsc;
}

/* ---- the actors' invocations and breaks, per thread ---- */

/* Actors by thread, so that each thread's events come out together. */
struct actor_ref {
	uint32_t thread;
	uint32_t actor;
};

static int cmp_ref(const void *x, const void *y)
{
	const struct actor_ref *a = x, *b = y;

	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return a->actor < b->actor ? -1 : a->actor > b->actor;
}

static bool is_late(const struct actor *ac, size_t inv, size_t *bi)
{
	/* breaks are in time order: walk them alongside the invocations */
	while (*bi < ac->nbreaks && ac->breaks[*bi].late < inv)
		(*bi)++;
	return *bi < ac->nbreaks && ac->breaks[*bi].late == inv;
}

static void actor_events(struct pf *p, const struct actor *ac)
{
	const struct tl_thread *th = &p->tl->threads[ac->thread];
	uint32_t tid = ac->kind == ACTOR_SYSCALL ? PERFETTO_SYSCALL_TID_BASE + th->tid : th->tid;
	size_t bi = 0;

	for (size_t k = 0; k < ac->ninv; k++) {
		const struct actor_invocation *iv = &ac->inv[k];
		bool late = is_late(ac, k, &bi);

		/* "actor", not "sched": flows bind by (ts, tid, cat) in DevTools */
		ev_open(p, 'X', "actor", late ? "late invocation" : "invocation", th->pid, tid,
			iv->start_ns);
		ev_dur(p, iv->start_ns, iv->end_ns);
		fprintf(p->f, ",\"args\":{\"actor\":");
		json_str(p->f, ac->name, false);
		fprintf(p->f, ",\"index\":%zu}}", k);
		p->st.invocations++;
	}
	for (size_t k = 0; k < ac->nbreaks; k++) {
		const struct actor_break *b = &ac->breaks[k];
		char name[64];

		snprintf(name, sizeof(name), "%s +%.3f ms%s%s",
			 b->kind == BREAK_COMPLETION ? "late completion" : "period break", b->lateness_ns / 1e6,
			 actor_break_major(ac, b) ? "" : " (jitter)", b->data_missing ? " (data missing)" : "");
		ev_open(p, 'X', "actor", name, th->pid, PERFETTO_BREAK_TID_BASE + th->tid, b->start_ns);
		ev_dur(p, b->start_ns, b->end_ns);
		fprintf(p->f, ",\"args\":{\"actor\":");
		json_str(p->f, ac->name, false);
		fprintf(p->f, ",\"interval_ns\":%" PRId64 ",\"period_ns\":%.0f,\"lateness_ns\":%" PRId64
			",\"before\":%zu,\"late\":%zu,\"target\":%zu,\"data_missing\":%s,\"major\":%s",
			b->interval_ns, ac->st.period_ns, b->lateness_ns, b->before, b->late, actor_break_target(b),
			b->data_missing ? "true" : "false", actor_break_major(ac, b) ? "true" : "false");
		if (b->held.why != HOLDUP_NONE) {
			char held[96];

			/* what kept the overrunning invocation off its CPU (holdup.h) */
			holdup__describe(&b->held, p->arch, held, sizeof(held));
			fprintf(p->f, ",\"held\":");
			json_str(p->f, held, false);
		}
		fputs("}}", p->f);
		p->st.breaks++;
	}
}

/* ---- one thread ---- */

static void thread_runs(struct pf *p, const struct tl_thread *th)
{
	const struct timeline *tl = p->tl;

	for (size_t i = th->run0; i < th->run0 + th->nrun; i++) {
		const struct tl_run *r = &tl->runs[i];

		ev_open(p, 'X', "sched", run_name(r->end_state), th->pid, th->tid, r->start);
		ev_dur(p, r->start, r->end);
		fprintf(p->f, ",\"args\":{\"cpu\":%u", r->cpu);
		if (r->flags & TL_RUN_START_CUT)
			fputs(",\"start\":\"before the recording\"", p->f);
		if (r->flags & TL_RUN_START_UNSURE)
			fputs(",\"start\":\"not reported (upper bound)\"", p->f);
		if (r->flags & TL_RUN_END_CUT)
			fputs(",\"end\":\"after the recording\"", p->f);
		fputs("}}", p->f);
		p->st.runs++;
	}
}

/* First run of thread th that starts at or after ts, or NULL. */
static const struct tl_run *next_run(const struct timeline *tl, uint32_t th, uint64_t ts)
{
	const struct tl_thread *x = &tl->threads[th];
	size_t r = timeline__next_run(tl, x, x->run0, ts);

	return r < x->run0 + x->nrun ? &tl->runs[r] : NULL;
}

static void thread_wakeups(struct pf *p, const struct tl_thread *th)
{
	const struct timeline *tl = p->tl;

	for (size_t k = th->ws0; k < th->ws0 + th->nws; k++) {
		const struct tl_wakeup *w = &tl->wk[tl->wk_by_waker[k]];
		const struct tl_thread *wee = &tl->threads[w->wakee];
		const struct tl_run *r = next_run(tl, w->wakee, w->ts);
		char name[64];

		/* a wakeup through a softirq the waker raised: at the raise, "via NET_RX" */
		snprintf(name, sizeof(name), "%s %s/%u%s%s", w->is_new ? "wakeup (new)" : "wakeup",
			 wee->comm, wee->tid, w->flags & TL_WAKE_VIA ? " via " : "",
			 w->flags & TL_WAKE_VIA ? softirq_name(w->irq) : "");
		ev_open(p, 'X', "sched", name, th->pid, th->tid, w->waking_ts);
		fprintf(p->f, ",\"dur\":0.0001,\"args\":{\"wakee\":%u,\"target_cpu\":%u", wee->tid,
			w->target_cpu);
		if (w->flags & TL_WAKE_VIA)
			fprintf(p->f, ",\"via\":\"%s\"", softirq_name(w->irq));
		if (r)
			fprintf(p->f, ",\"latency_ns\":%" PRIu64, r->start - w->ts);
		fputs("}}", p->f);
		p->st.wakeups++;
		if (r) {
			flow(p, "wakeup", th->pid, th->tid, w->waking_ts, wee->pid, wee->tid, r->start);
			p->st.wakeup_flows++;
		}
	}
}

static void thread_syscalls(struct pf *p, const struct tl_thread *th)
{
	const struct timeline *tl = p->tl;

	for (size_t i = th->sc0; i < th->sc0 + th->nsc; i++) {
		const struct tl_syscall *s = &tl->sc[i];
		char buf[32];
		const char *name = syscall_label(p->arch, s->nr, buf, sizeof(buf));

		ev_open(p, 'X', "syscall", name, th->pid, PERFETTO_SYSCALL_TID_BASE + th->tid, s->start);
		ev_dur(p, s->start, s->end);
		fprintf(p->f, ",\"args\":{\"nr\":%u,\"ret\":%" PRId64 ",\"arg0\":%" PRIu64 ",\"cpu\":%u}}",
			s->nr, s->ret, s->arg0, s->cpu);
		p->st.syscalls++;
	}
}

/* Process and thread names, targets and actors first in catapult's order. */
static void thread_meta(struct pf *p, const struct tl_thread *th, bool actor)
{
	char name[64];
	int64_t sort = (int64_t)th->tid * 4;

	if (actor)
		sort -= INT64_C(1) << 40;
	else if (th->flags & TL_TARGET)
		sort -= INT64_C(1) << 39;
	snprintf(name, sizeof(name), "%s", th->comm);
	meta(p, "thread_name", th->pid, th->tid, name, 0);
	meta(p, "thread_sort_index", th->pid, th->tid, NULL, sort);
	p->st.threads++;
	if (th->nsc && !p->o->no_syscalls) {
		snprintf(name, sizeof(name), "%s syscalls", th->comm);
		meta(p, "thread_name", th->pid, PERFETTO_SYSCALL_TID_BASE + th->tid, name, 0);
		meta(p, "thread_sort_index", th->pid, PERFETTO_SYSCALL_TID_BASE + th->tid, NULL, sort + 1);
	}
}

/* One process_name per pid: the main thread's name, else the first thread's. */
static int process_meta(struct pf *p, const bool *shown)
{
	const struct timeline *tl = p->tl;
	uint32_t *pids = malloc((tl->nthreads ? tl->nthreads : 1) * sizeof(*pids));
	size_t n = 0;

	if (!pids)
		return -ENOMEM;
	for (size_t i = 0; i < tl->nthreads; i++)
		if (shown[i])
			pids[n++] = i;
	for (size_t k = 0; k < n; k++) {
		const struct tl_thread *th = &tl->threads[pids[k]];
		const struct tl_thread *name = th;
		bool first = true;

		/* quadratic in threads of a process only where pids repeat: keep it linear */
		for (size_t j = 0; j < k && first; j++)
			if (tl->threads[pids[j]].pid == th->pid)
				first = false;
		if (!first)
			continue;
		for (size_t j = k; j < n; j++)
			if (tl->threads[pids[j]].pid == th->pid && tl->threads[pids[j]].tid == th->pid)
				name = &tl->threads[pids[j]];
		meta(p, "process_name", th->pid, th->pid, name->comm, 0);
	}
	free(pids);
	return 0;
}

/* ---- IRQs and missing data: a "qostrace" process, tracks per CPU ---- */

static uint32_t cpu_tid(int cpu, int what)
{
	return PERFETTO_QOSTRACE_PID + 1 + (uint32_t)cpu * 3 + what;
}

static void cpu_tracks(struct pf *p)
{
	const struct timeline *tl = p->tl;
	const struct trace *t = tl->trace;
	char name[64];
	bool *used;

	meta(p, "process_name", PERFETTO_QOSTRACE_PID, PERFETTO_QOSTRACE_PID,
	     "qostrace: interrupts and missing data", 0);
	meta(p, "process_sort_index", PERFETTO_QOSTRACE_PID, PERFETTO_QOSTRACE_PID, NULL, -1);
	used = calloc((size_t)tl->ncpus * 3 + 3, sizeof(*used));
	if (!used)
		return;
	for (size_t i = 0; i < tl->ngaps; i++)
		if (tl->gaps[i].cpu < tl->ncpus)
			used[tl->gaps[i].cpu * 3 + 2] = true;
	if (!p->o->no_irqs)
		for (size_t i = 0; i < tl->nirqs; i++)
			if (tl->irqs[i].cpu < tl->ncpus)
				used[tl->irqs[i].cpu * 3 + (tl->irqs[i].soft ? 1 : 0)] = true;
	for (int c = 0; c < tl->ncpus; c++) {
		static const char *const what[] = { "IRQs", "softirqs", "missing data" };

		for (int k = 0; k < 3; k++) {
			if (!used[c * 3 + k])
				continue;
			snprintf(name, sizeof(name), "CPU %d %s", c, what[k]);
			meta(p, "thread_name", PERFETTO_QOSTRACE_PID, cpu_tid(c, k), name, 0);
			meta(p, "thread_sort_index", PERFETTO_QOSTRACE_PID, cpu_tid(c, k), NULL, c * 3 + k);
		}
	}
	free(used);
	if (!p->o->no_irqs) {
		for (size_t i = 0; i < tl->nirqs; i++) {
			const struct tl_irq *q = &tl->irqs[i];
			const char *nm;

			if (q->cpu >= tl->ncpus)
				continue;
			nm = q->soft ? softirq_name(q->num) : irq_source_name(t, q->num, name, sizeof(name));
			ev_open(p, 'X', q->soft ? "softirq" : "irq", nm, PERFETTO_QOSTRACE_PID,
				cpu_tid(q->cpu, q->soft ? 1 : 0), q->start);
			ev_dur(p, q->start, q->end);
			fprintf(p->f, ",\"args\":{\"num\":%u", q->num);
			if (q->thread != TL_NONE)
				fprintf(p->f, ",\"interrupted_tid\":%u", tl->threads[q->thread].tid);
			fputs("}}", p->f);
			p->st.irqs++;
		}
	}
	for (size_t i = 0; i < tl->ngaps; i++) {
		const struct tl_gap *g = &tl->gaps[i];

		if (g->cpu >= tl->ncpus)
			continue;
		ev_open(p, 'X', "qostrace",
			g->kind == TL_GAP_LOST ? "events lost" : "switches not reported",
			PERFETTO_QOSTRACE_PID, cpu_tid(g->cpu, 2), g->start);
		ev_dur(p, g->start, g->end);
		fprintf(p->f, ",\"args\":{\"lost_events\":%" PRIu64 "}}", g->count);
		p->st.gaps++;
	}
}

/* ---- critical paths ---- */

/* The run of thread th that contains ts (start <= ts <= end), or NULL. */
static const struct tl_run *run_at(const struct timeline *tl, uint32_t th, int64_t ts)
{
	const struct tl_thread *x;
	size_t lo, hi;

	if (th >= tl->nthreads)
		return NULL;
	x = &tl->threads[th];
	lo = x->run0;
	hi = x->run0 + x->nrun;
	while (lo < hi) {	/* first run starting after ts */
		size_t mid = lo + (hi - lo) / 2;

		if ((int64_t)tl->runs[mid].start <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == x->run0 || (int64_t)tl->runs[lo - 1].end < ts)
		return NULL;
	return &tl->runs[lo - 1];
}

static const char *thread_name(const struct timeline *tl, uint32_t th, char *buf, size_t len)
{
	if (th >= tl->nthreads)
		return "?";
	snprintf(buf, len, "%s/%u", tl->threads[th].comm, tl->threads[th].tid);
	return buf;
}

/*
 * One critical path: a track of its stretches (who ran, who waited for
 * what, what released it) in the qostrace process, and a flow arrow for
 * every hop from one thread's run to another's.
 */
static void path_events(struct pf *p, const struct crit_path *cp, uint32_t tid, const char *title)
{
	const struct timeline *tl = p->tl;
	const struct crit_seg *prev_run = NULL;
	char name[256], who[64], hold[64], buf[64];

	meta(p, "thread_name", PERFETTO_QOSTRACE_PID, tid, title, 0);
	meta(p, "thread_sort_index", PERFETTO_QOSTRACE_PID, tid, NULL, (long)tid - PERFETTO_QOSTRACE_PID);
	for (size_t i = 0; i < cp->nseg; i++) {
		const struct crit_seg *g = &cp->seg[i];
		const char *cat = critical_cat_name(g->cat, g->sub, tl->trace, buf, sizeof(buf));

		thread_name(tl, g->thread, who, sizeof(who));
		if (g->kind == CRIT_SEG_RUN)
			snprintf(name, sizeof(name), "%s runs", who);
		else if (g->kind == CRIT_SEG_WAIT && g->holder != CRIT_NONE)
			snprintf(name, sizeof(name), "%s: %s (CPU held by %s)", who, cat,
				 thread_name(tl, g->holder, hold, sizeof(hold)));
		else if (g->kind == CRIT_SEG_WAIT)
			snprintf(name, sizeof(name), "%s: %s", who, cat);
		else
			snprintf(name, sizeof(name), "released by %s", cat);
		ev_open(p, 'X', "critical", name, PERFETTO_QOSTRACE_PID, tid, g->start_ns);
		ev_dur(p, g->start_ns, g->end_ns);
		fputs(",\"cname\":\"terrible\"}", p->f);
		if (g->kind != CRIT_SEG_RUN)
			continue;
		if (prev_run && prev_run->thread != g->thread) {
			const struct tl_run *a = run_at(tl, prev_run->thread, prev_run->end_ns - 1);
			const struct tl_run *b = run_at(tl, g->thread, g->start_ns);

			if (a && b && b->start >= a->start) {
				const struct tl_thread *ta = &tl->threads[prev_run->thread], *tb = &tl->threads[g->thread];

				flow(p, "critical path", ta->pid, ta->tid, a->start, tb->pid, tb->tid, b->start);
				p->st.critical_flows++;
			}
		}
		prev_run = g;
	}
}

static void critical_events(struct pf *p)
{
	const struct critical_result *r = p->a->critical;
	const struct actors_result *ar = p->a->actors;
	uint32_t tid = PERFETTO_QOSTRACE_PID + 100000;
	char title[160];

	if (!r || r->input != CRIT_INPUT_TRACE)
		return;
	for (size_t i = 0, listed = critical__breaks_listed(r, p->a->opts.break_paths); i < listed; i++) {
		const struct crit_break *b = &r->breaks[i];
		const struct actor *ac = ar && b->actor < ar->n ? &ar->v[b->actor] : NULL;

		if (ac && b->brk < ac->nbreaks)
			snprintf(title, sizeof(title), "critical path into %s invocation %zu (+%.3f ms)", ac->name,
				 actor_break_target(&ac->breaks[b->brk]), b->lateness_ns / 1e6);
		else
			snprintf(title, sizeof(title), "critical path into a late invocation");
		path_events(p, &b->path, tid++, title);
	}
	path_events(p, &r->whole, tid, "critical path into the end of the recording");
}

/* The run of thread tid (a tid may have been several threads) that holds ts, and its thread; NULL if none. */
static const struct tl_run *tid_run_at(const struct timeline *tl, uint32_t tid, int64_t ts,
				       const struct tl_thread **th)
{
	for (uint32_t i = 0; i < tl->nthreads; i++) {
		const struct tl_run *run = tl->threads[i].tid == tid ? run_at(tl, i, ts) : NULL;

		if (run) {
			*th = &tl->threads[i];
			return run;
		}
	}
	return NULL;
}

/*
 * A flow from call (op) a to call b: between their slices on the threads'
 * system-call tracks; where b began first (a read that waited in the call
 * for a's write: a flow must not go back in time), from the run a was
 * made in to the run b returned in.
 */
static void data_flow(struct pf *p, const struct dataflow_result *r, long a, long b)
{
	const struct df_op *oa = &r->rec.in.ops[a], *ob = &r->rec.in.ops[b];
	const struct tl_thread *xa, *xb;
	const struct tl_run *ra, *rb;

	if (ob->s >= oa->s) {
		flow_cat(p, "syscall", "data path", r->rec.tgids[oa->proc],
			 PERFETTO_SYSCALL_TID_BASE + r->rec.op_tid[a], oa->s, r->rec.tgids[ob->proc],
			 PERFETTO_SYSCALL_TID_BASE + r->rec.op_tid[b], ob->s);
		p->st.data_flows++;
		return;
	}
	ra = tid_run_at(p->tl, r->rec.op_tid[a], oa->s, &xa);
	rb = tid_run_at(p->tl, r->rec.op_tid[b], ob->e, &xb);
	if (!ra || !rb || rb->start < ra->start)
		return;
	flow(p, "data path", xa->pid, xa->tid, (int64_t)ra->start, xb->pid, xb->tid, (int64_t)rb->start);
	p->st.data_flows++;
}

/*
 * The data-flow path (src/dataflow/stage.h): a track in the qostrace
 * process with a slice per hop, from the read of its input (its first
 * version for the root) to its last version; and flow arrows (data_flow())
 * from the call that made each hop's data to the call that read it, and
 * on to the call that made the next data.
 */
static void dataflow_events(struct pf *p)
{
	const struct dataflow_result *r = p->a->dataflow;
	const uint32_t tid = PERFETTO_QOSTRACE_PID + 200000;
	char title[160], name[224], o[96], v[32];

	if (!r || r->target < 0)
		return;
	snprintf(title, sizeof(title), "data path into %s",
		 df_recording_obj_label(&r->rec, r->hops[r->nhops - 1].obj, o, sizeof(o)));
	meta(p, "thread_name", PERFETTO_QOSTRACE_PID, tid, title, 0);
	meta(p, "thread_sort_index", PERFETTO_QOSTRACE_PID, tid, NULL, (long)tid - PERFETTO_QOSTRACE_PID);
	for (size_t i = 0; i < r->nhops; i++) {
		const struct df_hop *h = &r->hops[i];
		int64_t start = h->read_at >= 0 ? h->read_at : h->t_first;

		df_recording_obj_label(&r->rec, h->obj, o, sizeof(o));
		if (h->v_first == h->v_last)
			snprintf(v, sizeof(v), "v%u", h->v_first);
		else
			snprintf(v, sizeof(v), "v%u-v%u", h->v_first, h->v_last);
		if (h->tgid)
			snprintf(name, sizeof(name), "%s/%u: %s %s", h->comm, h->tgid, o, v);
		else
			snprintf(name, sizeof(name), "before the recording: %s %s", o, v);
		ev_open(p, 'X', "data", name, PERFETTO_QOSTRACE_PID, tid, start);
		ev_dur(p, start, h->t_last);
		fprintf(p->f, ",\"args\":{\"waited_ns\":%" PRId64 ",\"in_process_ns\":%" PRId64 "}}", h->waited,
			h->in_process);
		if (p->o->no_syscalls || !i || h->read_op < 0)
			continue;
		if (r->hops[i - 1].made_op >= 0)
			data_flow(p, r, r->hops[i - 1].made_op, h->read_op);
		if (h->made_op >= 0 && h->made_op != h->read_op)
			data_flow(p, r, h->read_op, h->made_op);
	}
}

/* ---- whole documents ---- */

static int export_trace(struct pf *p)
{
	const struct timeline *tl = p->tl;
	const struct actors_result *ar = p->a->actors;
	struct actor_ref *refs = NULL;
	size_t nrefs = ar ? ar->n : 0, ri = 0;
	bool *shown;
	int err;

	shown = calloc(tl->nthreads ? tl->nthreads : 1, sizeof(*shown));
	if (!shown)
		return -ENOMEM;
	if (nrefs) {
		refs = malloc(nrefs * sizeof(*refs));
		if (!refs) {
			free(shown);
			return -ENOMEM;
		}
		for (size_t i = 0; i < nrefs; i++)
			refs[i] = (struct actor_ref){ ar->v[i].thread, i };
		qsort(refs, nrefs, sizeof(*refs), cmp_ref);
	}
	for (size_t i = 0; i < tl->nthreads; i++)
		shown[i] = has_activity(&tl->threads[i]);
	err = process_meta(p, shown);
	if (err)
		goto out;
	for (size_t i = 0; i < tl->nthreads; i++) {
		const struct tl_thread *th = &tl->threads[i];
		bool actor = false, breaks = false;

		while (ri < nrefs && refs[ri].thread < i)
			ri++;
		for (size_t k = ri; k < nrefs && refs[k].thread == i; k++) {
			actor = true;
			breaks |= ar->v[refs[k].actor].nbreaks > 0;
		}
		if (!shown[i])
			continue;
		thread_meta(p, th, actor);
		if (breaks) {
			char name[64];

			snprintf(name, sizeof(name), "%s period breaks", th->comm);
			meta(p, "thread_name", th->pid, PERFETTO_BREAK_TID_BASE + th->tid, name, 0);
		}
		for (size_t k = ri; k < nrefs && refs[k].thread == i; k++)
			actor_events(p, &ar->v[refs[k].actor]);
		thread_runs(p, th);
		if (!p->o->no_wakeups)
			thread_wakeups(p, th);
		if (!p->o->no_syscalls)
			thread_syscalls(p, th);
	}
	cpu_tracks(p);
	critical_events(p);
	dataflow_events(p);
out:
	free(refs);
	free(shown);
	return err;
}

/*
 * A Gantt chart: one track per actor (pid 1, tid 1, 2, ...). Tasks of one
 * actor that overlap go to extra tracks "actor (2)", ... (first fit), as
 * slices on one track must nest.
 */
static int export_gantt(struct pf *p)
{
	const struct gantt *g = p->a->gantt;
	const struct critical_result *r = p->a->critical;
	uint32_t *order = malloc((g->n ? g->n : 1) * sizeof(*order));
	uint32_t *task_tid = malloc((g->n ? g->n : 1) * sizeof(*task_tid));
	int64_t *lane_end = malloc((g->n ? g->n : 1) * sizeof(*lane_end));
	uint32_t tid = 1;
	size_t k = 0;

	if (!order || !lane_end || !task_tid) {
		free(order);
		free(lane_end);
		free(task_tid);
		return -ENOMEM;
	}
	if (r && r->input != CRIT_INPUT_GANTT)
		r = NULL;
	meta(p, "process_name", 1, 1, "Gantt chart", 0);
	/* by actor, then start, then line: the order of the sub-lane sweep */
	gantt__order_by_actor(g, order);
	while (k < g->n) {
		uint32_t ac = g->actor[order[k]];
		size_t nl = 0;

		for (; k < g->n && g->actor[order[k]] == ac; k++) {
			const struct gantt_task *t = &g->tasks[order[k]];
			size_t l = 0;

			while (l < nl && lane_end[l] > t->start_ns)
				l++;
			if (l == nl) {
				char name[300];

				snprintf(name, sizeof(name), l ? "%s (%zu)" : "%s", g->actors[ac], l + 1);
				meta(p, "thread_name", 1, tid + l, name, 0);
				meta(p, "thread_sort_index", 1, tid + l, NULL, tid + l);
				nl++;
			}
			lane_end[l] = t->end_ns;
			task_tid[order[k]] = tid + l;
			ev_open(p, 'X', "task", g->names[g->name[order[k]]], 1, tid + l, t->start_ns);
			ev_dur(p, t->start_ns, t->end_ns);
			fprintf(p->f, ",\"args\":{\"line\":%u", g->line[order[k]]);
			if (r && r->est && r->lst && order[k] < r->ntasks) {
				int64_t fl = r->lst[order[k]] - r->est[order[k]];

				/* the paper's Fig. 6 marks the critical tasks red: catapult's "terrible" */
				fprintf(p->f, ",\"float_ns\":%" PRId64 "}%s}", fl, fl ? "" : ",\"cname\":\"terrible\"");
			} else {
				fputs("}}", p->f);
			}
			p->st.tasks++;
		}
		tid += nl;
	}
	p->st.threads = tid - 1;
	/* the critical paths listed: an arrow from each task to the next */
	for (size_t i = 0; r && i < r->npaths_listed; i++) {
		for (size_t j = 1; j < r->path_len[i]; j++) {
			uint32_t a = r->paths[i][j - 1], b = r->paths[i][j];

			if (a >= g->n || b >= g->n)
				continue;
			flow_cat(p, "task", "critical path", 1, task_tid[a], g->tasks[a].start_ns, 1, task_tid[b],
				 g->tasks[b].start_ns);
			p->st.critical_flows++;
		}
	}
	free(order);
	free(lane_end);
	free(task_tid);
	return 0;
}

int export_perfetto(const struct analysis *a, FILE *f, const struct perfetto_opts *opts,
		    struct perfetto_stats *stats)
{
	static const struct perfetto_opts defaults;
	struct pf p = { .f = f, .a = a, .tl = a->tl, .o = opts ? opts : &defaults };
	int err;

	p.t0 = a->tl ? (int64_t)a->tl->start : 0;
	p.arch = trace__arch(a->trace);
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
	err = a->tl ? export_trace(&p) : a->gantt ? export_gantt(&p) : 0;
	fputs("\n],\n\"otherData\":{\"generator\":\"qostrace export --perfetto\"", f);
	if (a->tl)
		fprintf(f, ",\"start_ns\":%" PRId64 ",\"stop_ns\":%" PRIu64, p.t0, a->tl->end);
	fprintf(f, ",\"events\":%" PRIu64 "}}\n", p.st.events);
	if (stats)
		*stats = p.st;
	if (err)
		return err;
	return fflush(f) || ferror(f) ? -EIO : 0;
}
