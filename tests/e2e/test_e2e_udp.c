// SPDX-License-Identifier: MIT
/*
 * End-to-end: two processes joined by UDP on loopback, the sender's
 * sendto() raising the NET_RX softirq that wakes the receiver, and a hog
 * that delays the sender (tests/workloads/qt_udp; its log is the ground
 * truth). Recorded with the real BPF programs:
 *  - every datagram the receiver got is a wakeup by the sender, at a raise
 *    inside one of its sendto() calls (the wakeup itself ran in NET_RX);
 *  - the sender is the most upstream actor that breaks its period;
 *  - the receiver's breaks behind each hog have the sender, and the hog
 *    that delayed it, on their critical paths, and the hop is marked as
 *    going through NET_RX, in the text report and the JSON;
 *  - every attach path records the raises (btf, core, tracefs, and the
 *    perf buffer).
 * Before the raises were recorded, the same recording woke the receiver
 * from "softirq NET_RX": the two processes had no edge between them, and
 * the receiver's breaks were blamed on waits of its own.
 * Needs root and a kernel that can record; otherwise SKIPPED.
 */
#include <stdint.h>
#include <string.h>

#include "actors/actors.h"
#include "analysis/analysis.h"
#include "critical/critical.h"
#include "e2e_analysis.h"
#include "e2eutil.h"
#include "file/syscall_names.h"
#include "testutil.h"
#include "timeline/timeline.h"
#include "file/trace.h"

#define NET_RX 3
#define MAXHOG 32

static struct {
	int sender, receiver, hog;
	int64_t hog_start[MAXHOG], hog_end[MAXHOG];
	size_t nhog, nrecv, nlate;
} lg;

static struct e2e_scratch scratch;
static char trace_path[256], log_path[256], qostrace[256], workload[256];
static struct e2e_analysis ea;
static const struct actor *sender, *receiver;

static void parse_log(const char *path)
{
	char *text = e2e_slurp(path), *save = NULL;

	memset(&lg, 0, sizeof(lg));
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		long long s, e;

		if (sscanf(line, "sender tid=%d", &lg.sender) == 1 || sscanf(line, "receiver tid=%d", &lg.receiver) == 1 ||
		    sscanf(line, "hog tid=%d", &lg.hog) == 1)
			continue;
		if (sscanf(line, "hog start=%lld end=%lld", &s, &e) == 2 && lg.nhog < MAXHOG) {
			lg.hog_start[lg.nhog] = s;
			lg.hog_end[lg.nhog++] = e;
		}
		lg.nrecv += !strncmp(line, "recv ", 5);
		lg.nlate += !strncmp(line, "late ", 5);
	}
	free(text);
	cr_assert(lg.sender && lg.receiver && lg.hog, "no tids in qt_udp's log %s", path);
}

/* Records qt_udp into dir/name.qtrace with `record --backend backend` (NULL: the default). */
static void record_udp(const struct e2e_scratch *s, const char *name, const char *backend, char *trace,
		       size_t len, char *logp, size_t loglen)
{
	char done[64];
	char *argv[] = { qostrace, "record", "-q", "--force", "-o", trace, "--backend", (char *)backend,
			 "--", workload, logp, NULL };

	snprintf(trace, len, "%s/%s.qtrace", s->dir, name);
	snprintf(logp, loglen, "%s/%s.log", s->dir, name);
	snprintf(done, sizeof(done), "%s.done", name);
	if (!backend)
		memmove(&argv[6], &argv[8], 4 * sizeof(argv[0]));
	e2e_record_once(s, argv, done, 90000);
}

static void setup(void)
{
	require_recording();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "SKIPPED: qt_udp puts the sender and the receiver on two CPUs; this machine has one\n");
		cr_skip_test("one CPU");
	}
	e2e_scratch_open(&scratch);
	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	snprintf(workload, sizeof(workload), "%s/workloads/qt_udp", build_dir());
	record_udp(&scratch, "udp", NULL, trace_path, sizeof(trace_path), log_path, sizeof(log_path));
	parse_log(log_path);
	e2e_analyse(trace_path, &ea);
	sender = e2e_thread_actor(&ea, lg.sender, "sender");
	receiver = e2e_thread_actor(&ea, lg.receiver, "receiver");
}

static void cleanup(void)
{
	e2e_analysis_free(&ea);
	e2e_scratch_close(&scratch);
}

static uint32_t thread_of(const struct timeline *tl, int tid)
{
	for (uint32_t i = 0; i < tl->nthreads; i++)
		if (tl->threads[i].tid == (uint32_t)tid && tl->threads[i].nruns)
			return i;
	cr_assert_fail("thread %d never ran", tid);
	return TL_NONE;
}

/* Is t inside one of thread th's sendto() calls? */
static bool in_sendto(const struct timeline *tl, uint32_t th, uint64_t t)
{
	const struct tl_thread *x = &tl->threads[th];
	const char *arch = trace__arch(tl->trace);

	for (size_t i = x->sc0; i < x->sc0 + x->nsc; i++) {
		const struct tl_syscall *s = &tl->sc[i];
		const char *name = syscall_name(arch, s->nr);

		if (s->start <= t && t <= s->end && name && !strcmp(name, "sendto"))
			return true;
	}
	return false;
}

/*
 * The receiver's wakeups by NET_RX runs that a network card's interrupt
 * raised before the sender did (TL_WAKE_SHARED) in [from_ns, to_ns): left
 * the device's by design. They happen when the machine's own network
 * traffic makes NET_RX wait (a busy machine, a package download).
 */
static size_t wakeups_shared(const struct timeline *tl, int to, uint64_t from_ns, uint64_t to_ns)
{
	uint32_t r = thread_of(tl, to);
	size_t n = 0;

	for (size_t i = 0; i < tl->nwk; i++) {
		const struct tl_wakeup *w = &tl->wk[i];

		n += w->wakee == r && (w->flags & TL_WAKE_SHARED) && w->irq == NET_RX && w->ts >= from_ns &&
		     w->ts < to_ns;
	}
	return n;
}

/* The receiver's wakeups by NET_RX, whoever it was counted for. */
static size_t wakeups_net_rx(const struct timeline *tl, int to)
{
	uint32_t r = thread_of(tl, to);
	size_t n = 0;

	for (size_t i = 0; i < tl->nwk; i++) {
		const struct tl_wakeup *w = &tl->wk[i];

		n += w->wakee == r && (w->flags & (QT_WAKE_SOFTIRQ | TL_WAKE_VIA)) && w->irq == NET_RX;
	}
	return n;
}

/* The receiver's wakeups that the sender caused through NET_RX, and how many of those were raised in its sendto(). */
static size_t wakeups_via(const struct timeline *tl, int from, int to, size_t *in_call)
{
	uint32_t s = thread_of(tl, from), r = thread_of(tl, to);
	size_t n = 0;

	*in_call = 0;
	for (size_t i = 0; i < tl->nwk; i++) {
		const struct tl_wakeup *w = &tl->wk[i];

		if (w->wakee != r || w->waker != s || !(w->flags & TL_WAKE_VIA) || w->irq != NET_RX)
			continue;
		n++;
		*in_call += in_sendto(tl, s, w->waking_ts) && w->waking_ts <= w->ts;
	}
	return n;
}

TestSuite(e2e_udp, .init = setup, .fini = cleanup, .timeout = 240);

Test(e2e_udp, each_datagram_wakes_the_receiver_on_behalf_of_the_sender)
{
	size_t in_call, n = wakeups_via(ea.tl, lg.sender, lg.receiver, &in_call);
	size_t shared = wakeups_shared(ea.tl, lg.receiver, 0, UINT64_MAX);

	fprintf(stderr, "  %zu datagrams received; %zu wakeups of the receiver by the sender via NET_RX, %zu raised "
		"in its sendto(), %zu by runs a card's interrupt raised first; softirq wakeups: %llu by a thread, "
		"%llu by an interrupt, %llu of no recorded cause\n",
		lg.nrecv, n, in_call, shared, (unsigned long long)ea.tl->softirq_by_thread,
		(unsigned long long)ea.tl->softirq_by_irq, (unsigned long long)ea.tl->softirq_unknown);
	cr_assert_geq(lg.nrecv, 290, "the receiver got %zu datagrams", lg.nrecv);
	/*
	 * Every wakeup by NET_RX is the sender's, or the card's when it raised
	 * NET_RX first. A datagram that arrives while the receiver is at work
	 * or preempted needs no wakeup: the machine's load decides how many.
	 */
	cr_assert_eq(n + shared, wakeups_net_rx(ea.tl, lg.receiver), "%zu + %zu of %zu wakeups by NET_RX", n, shared,
		     wakeups_net_rx(ea.tl, lg.receiver));
	cr_assert_geq(n, lg.nrecv / 2, "%zu of %zu datagrams", n, lg.nrecv);
	cr_assert_leq(n, lg.nrecv + 1);
	cr_assert_eq(in_call, n);
}

Test(e2e_udp, the_sender_is_the_most_upstream_breaking_actor)
{
	const struct actors_result *ar = ea.an->actors;

	cr_assert_geq(lg.nhog, 10);
	cr_assert_geq(lg.nlate, lg.nhog - 2, "the sender was late %zu times for %zu hogs", lg.nlate, lg.nhog);
	cr_assert(sender->st.periodic && receiver->st.periodic);
	cr_assert_geq(sender->nbreaks, lg.nhog - 2, "%zu breaks for %zu hogs", sender->nbreaks, lg.nhog);
	cr_assert_eq(ar->upstream, sender - ar->v, "first to break: %s",
		     ar->upstream >= 0 ? ar->v[ar->upstream].name : "none");
}

/*
 * The receiver's major break right after hog k: its late invocation starts
 * within 10 ms of the hog's end (a break of jitter before it is not the hog's).
 */
static const struct crit_break *break_after_hog(size_t k)
{
	for (size_t b = 0; b < receiver->nbreaks; b++) {
		const struct actor_break *x = &receiver->breaks[b];
		const struct actor_invocation *iv = &receiver->inv[actor_break_target(x)];

		if (!x->data_missing && actor_break_major(receiver, x) && iv->start_ns >= lg.hog_start[k] &&
		    iv->start_ns < lg.hog_end[k] + 10000000)
			return e2e_break_path(&ea, receiver, b);
	}
	return NULL;
}

/*
 * What the path into the receiver's break after hog k shows: 1 through the
 * sender via NET_RX back to the hog, 2 another program's thread (the
 * machine's load) holding the receiver or the sender up, 3 a wakeup the
 * card's NET_RX took (wakeups_shared); 0 none of these, with why in msg.
 */
static int explain_break(size_t k, const struct crit_break *b, char *msg, size_t len)
{
	uint32_t s = thread_of(ea.tl, lg.sender), h = thread_of(ea.tl, lg.hog), r = thread_of(ea.tl, lg.receiver);
	const struct crit_path *p = &b->path;
	int64_t sender_ns = 0, hog_ns = 0, other_ns = 0;
	bool via = false;

	for (size_t i = 0; i < p->nshare; i++) {
		uint32_t t = p->share[i].thread;

		if (t == s)
			sender_ns = p->share[i].ns;
		else if (t == h)
			hog_ns = p->share[i].ns;
		else if (t != r && t != TL_NONE && ea.tl->threads[t].pid != ea.tl->threads[r].pid)
			other_ns = p->share[i].ns > other_ns ? p->share[i].ns : other_ns;
	}
	for (size_t i = 1; i < p->nseg; i++)
		via |= p->seg[i].kind == CRIT_SEG_WAIT && p->seg[i].cat == CRIT_CAT_WAKEUP &&
		       p->seg[i].sub == NET_RX + 1 && p->seg[i - 1].kind == CRIT_SEG_RUN && p->seg[i - 1].thread == s;
	/* the hog spun 5 ms from 1 ms before the sender was due */
	if (via && sender_ns > 0 && hog_ns > 3000000)
		return 1;
	if (other_ns > 1000000)
		return 2;
	if (wakeups_shared(ea.tl, lg.receiver, lg.hog_start[k], lg.hog_end[k] + 20000000))
		return 3;
	snprintf(msg, len, "the break after the hog at %.3f s: sender %.3f ms, hog %.3f ms on its path, %s",
		 (lg.hog_start[k] - (int64_t)ea.tl->start) / 1e9, sender_ns / 1e6, hog_ns / 1e6,
		 via ? "through the sender via NET_RX" : "no hop from the sender via NET_RX");
	return 0;
}

Test(e2e_udp, the_receivers_breaks_go_back_through_the_sender_to_the_hog)
{
	size_t n[4] = { 0 };
	char msg[256];

	for (size_t k = 0; k < lg.nhog; k++) {
		const struct crit_break *b = break_after_hog(k);
		int why;

		if (!b)
			continue;
		why = explain_break(k, b, msg, sizeof(msg));
		cr_assert(why, "%s", msg);
		n[why]++;
	}
	fprintf(stderr, "  %zu hogs; the receiver's breaks after them: %zu through the sender via NET_RX to the hog, "
		"%zu held up by another program, %zu woken by a NET_RX a card raised first\n",
		lg.nhog, n[1], n[2], n[3]);
	cr_assert_geq(n[1] + n[2] + n[3], lg.nhog - 2, "%zu breaks for %zu hogs", n[1] + n[2] + n[3], lg.nhog);
	cr_assert_geq(n[1], lg.nhog / 2, "%zu of %zu hogs through the sender", n[1], lg.nhog);
}

Test(e2e_udp, the_report_marks_the_hop)
{
	char *argv[] = { qostrace, "report", trace_path, NULL };
	char *txt = e2e_output(argv, &scratch, "report.txt"), *json, want[128];

	snprintf(want, sizeof(want), "through the kernel: sender/%d -> receiver/%d via NET_RX", lg.sender,
		 lg.receiver);
	cr_expect(strstr(txt, want), "no '%s' in:\n%s", want, txt);
	free(txt);
	json = e2e_validated_report(trace_path, &scratch);
	cr_expect(strstr(json, "\"category_name\": \"wakeup latency via NET_RX\",\n") &&
		  strstr(json, "\"via\": \"NET_RX\""), "no hop via NET_RX in the JSON report");
	free(json);
}

/* Every attach path and buffer records the raises the attribution needs. */
Test(e2e_udp, every_attach_path_records_the_raises)
{
	static const char *const backends[] = { "core", "tracefs", "tracefs,perfbuf" };

	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		struct e2e_analysis e;
		char trace[300], logp[300], name[32], msg[512];
		size_t in_call, n, nrecv, shared;
		enum rec_backend b = REC_BACKEND_AUTO;
		enum rec_buffer buf = REC_BUFFER_AUTO;
		struct probe_choice c;

		cr_assert_eq(probe_parse_backend(backends[i], &b, &buf), 0);
		if (probe_choose(b, buf, NULL, &c, msg, sizeof(msg))) {
			fprintf(stderr, "  --backend %s: not here (%s)\n", backends[i], msg);
			continue;
		}
		snprintf(name, sizeof(name), "udp-%zu", i);
		record_udp(&scratch, name, backends[i], trace, sizeof(trace), logp, sizeof(logp));
		parse_log(logp);
		nrecv = lg.nrecv;
		e2e_analyse(trace, &e);
		cr_assert_gt(e.tr->by_type[QT_REC_SOFTIRQ_RAISE], 0, "--backend %s: no raise recorded", backends[i]);
		n = wakeups_via(e.tl, lg.sender, lg.receiver, &in_call);
		shared = wakeups_shared(e.tl, lg.receiver, 0, UINT64_MAX);
		fprintf(stderr, "  --backend %s: %zu datagrams, %zu wakeups by the sender via NET_RX, %zu shared with a card\n",
			backends[i], nrecv, n, shared);
		cr_assert_eq(n + shared, wakeups_net_rx(e.tl, lg.receiver), "--backend %s: %zu + %zu of %zu wakeups by NET_RX",
			     backends[i], n, shared, wakeups_net_rx(e.tl, lg.receiver));
		cr_assert_geq(n, nrecv / 2, "--backend %s: %zu of %zu datagrams", backends[i], n, nrecv);
		e2e_analysis_free(&e);
	}
	/* the suite's own recording's log, for the other tests */
	parse_log(log_path);
}
