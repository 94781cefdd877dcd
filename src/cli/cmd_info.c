// SPDX-License-Identifier: MIT
/* qostrace info: what a trace file holds. */
#include <argp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "file/codec.h"
#include "file/missing.h"
#include "commands.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "session.h"

struct info_args {
	const char *path;
	unsigned int top;
};

static const struct argp_option options[] = {
	{ "threads", 't', "N", 0, "List the N threads with the most CPU time (default 10, 0: all)", 0 },
	{ "verbose", 'v', NULL, 0, "More messages", 0 },
	{ 0 },
};

static const char doc[] =
	"Describe a trace file: when and how it was recorded, its events by type, its\n"
	"threads, and what was lost or damaged.\n"
	"\n"
	"USAGE: qostrace info [OPTIONS] FILE\n"
	"\v"
	"EXAMPLES:\n"
	"  qostrace info run.qtrace\n"
	"  qostrace info -t 0 run.qtrace     every thread\n";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct info_args *a = state->input;
	uint64_t v;

	switch (key) {
	case 't':
		if (parse_u64(arg, 0, UINT32_MAX, &v))
			argp_error(state, "-t '%s': expected a number of threads", arg);
		a->top = v;
		break;
	case 'v':
		log_level++;
		break;
	case ARGP_KEY_ARG:
		if (a->path)
			argp_error(state, "one trace file at a time");
		a->path = arg;
		break;
	case ARGP_KEY_END:
		if (!a->path)
			argp_error(state, "which trace file?");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int cmp_run_ns(const void *a, const void *b, void *arg)
{
	const struct tl_thread *t = arg;
	uint64_t x = t[*(const uint32_t *)a].run_ns, y = t[*(const uint32_t *)b].run_ns;

	return x < y ? 1 : x > y ? -1 : 0;
}

static void print_when(const struct trace *t)
{
	uint64_t off;
	char when[64] = "?";

	if (!tf_kv_get_u64(&t->meta, TF_META_BOOT_OFFSET, &off)) {
		time_t secs = (time_t)((t->start_ns + (int64_t)off) / 1000000000ull);
		struct tm tm;

		if (localtime_r(&secs, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	}
	printf("recorded    %s, %.3f s, host %s, kernel %s %s, %d CPUs\n", when,
	       (t->stop_ns - t->start_ns) / 1e9, tf_kv_get(&t->meta, TF_META_HOST) ?: "?",
	       tf_kv_get(&t->meta, TF_META_KERNEL) ?: "?", tf_kv_get(&t->meta, TF_META_ARCH) ?: "",
	       t->ncpus);
}

/* How it was recorded and what that way could not record (files of 0.1 do not say). */
static void print_recorder(const struct trace *t)
{
	const char *path = tf_kv_get(&t->meta, TF_META_BACKEND);
	const char *buf = tf_kv_get(&t->meta, TF_META_BUFFER);
	const char *missing = tf_kv_get(&t->meta, TF_META_MISSING), *who;
	char words[128];

	if (!path)
		return;
	printf("recorder    attach path %s, %s", path,
	       buf && !strcmp(buf, "perfbuf") ? "a perf buffer per CPU" : "a ring buffer");
	who = missing_runtime_who(missing, words, sizeof(words));
	if (missing && *missing)
		printf("; not recorded: %s", missing);
	if (who)
		printf(" (the kernel's CPU time at each switch of %s: theirs are switch-to-switch "
		       "intervals)", who);
	printf("\n");
}

int cmd_info(int argc, char **argv, char *const *whole)
{
	struct info_args a = { .top = 10 };
	struct argp argp = { options, parse_opt, "FILE", doc, NULL, NULL, NULL };
	struct session s;
	const struct trace *t;
	const struct timeline *tl;
	const struct tf_damage *d;
	uint32_t *order;
	size_t nshown = 0, ntargets = 0, nactive = 0;
	char b1[32], b2[32];
	const char *v;
	uint64_t missed;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return 2;
	if (session__open(a.path, &s))
		return 1;
	t = s.trace;
	tl = s.tl;
	d = &t->damage;

	printf("file        %s (%s, format %u, %s)\n", a.path, fmt_bytes(b1, sizeof(b1), t->file_bytes), t->format_version,
	       t->finished ? "complete" : "NOT FINISHED: cut short, read up to its last whole block");
	print_when(t);
	if ((v = tf_kv_get(&t->meta, TF_META_CMDLINE)))
		printf("command     %s\n", v);
	v = tf_kv_get(&t->meta, TF_META_MODE);
	printf("targets     %s%s%s\n", v ? v : "?",
	       v && strcmp(v, "all") ? ": processes " : "",
	       v && strcmp(v, "all") ? (tf_kv_get(&t->meta, TF_META_TARGETS) ?: "") : "");
	print_recorder(t);
	if (t->finished) {
		uint64_t st;

		printf("stopped     %s", tf_kv_get(&t->end, TF_END_REASON) ?: "?");
		if (!tf_kv_get_u64(&t->end, TF_END_EXIT_STATUS, &st)) {
			if (WIFEXITED((int)st))
				printf(" (exit status %d)", WEXITSTATUS((int)st));
			else if (WIFSIGNALED((int)st))
				printf(" (killed by signal %d)", WTERMSIG((int)st));
		}
		printf("\n");
	}
	printf("events      %" PRIu64 " (%s/s):", t->events,
	       fmt_count(b1, sizeof(b1), t->stop_ns > t->start_ns ? t->events * 1e9 / (t->stop_ns - t->start_ns) : 0));
	for (int ty = 1, first = 1; ty < QT_REC_MAX; ty++) {
		if (!t->by_type[ty] || ty == QT_REC_STATS)
			continue;
		printf("%s %s %" PRIu64, first ? "" : ",", codec_type_name(ty), t->by_type[ty]);
		first = 0;
	}
	printf("\n");
	if (!t->lost_events && !t->user_dropped && !t->undecodable) {
		printf("lost        none\n");
	} else {
		printf("lost        %" PRIu64 " events in the kernel (ring buffer full), %" PRIu64
		       " in the writer, %" PRIu64 " undecodable\n", t->lost_events, t->user_dropped,
		       t->undecodable);
		for (size_t i = 0; i < tl->ngaps && i < 10; i++) {
			const struct tl_gap *g = &tl->gaps[i];

			printf("            CPU %u: %s from %.6f s to %.6f s%s%s\n", g->cpu,
			       g->kind == TL_GAP_LOST ? "records lost" : "switch sequence broken",
			       (g->start - t->start_ns) / 1e9, (g->end - t->start_ns) / 1e9,
			       g->count ? ", count " : "", g->count ? fmt_count(b2, sizeof(b2), g->count) : "");
		}
		if (tl->ngaps > 10)
			printf("            ... %zu windows in all (qostrace dump shows each)\n", tl->ngaps);
	}
	if (!tf_kv_get_u64(&t->end, TF_END_MISSED, &missed) && missed)
		printf("missed      %" PRIu64 " tracepoint hits the kernel ran no program for (one was "
		       "already running on that CPU)\n", missed);
	if (d->corrupt_blocks || d->resyncs || d->truncated)
		printf("damage      %u corrupt blocks skipped, %u resyncs, %" PRIu64 " bytes skipped%s\n",
		       d->corrupt_blocks, d->resyncs, d->bytes_skipped,
		       d->truncated ? ", file cut short" : "");
	for (size_t i = 0; i < tl->nthreads; i++) {
		ntargets += !!(tl->threads[i].flags & TL_TARGET);
		nactive += tl->threads[i].nruns > 0;
	}
	printf("threads     %zu known, %zu ran during the recording, %zu targets\n", tl->nthreads,
	       nactive, ntargets);
	if (tl->unsure_runs) {
		char who[160];

		timeline__hidden_threads(tl, who, sizeof(who));
		printf("unreported  %" PRIu64 " switches the kernel did not report (tracepoints filtered for some "
		       "threads): %" PRIu64 " runs with an uncertain start, %s in all\n", tl->broken_chains,
		       tl->unsure_runs, fmt_duration(b2, sizeof(b2), tl->unsure_ns));
		if (*who)
			printf("            the switches out of %s\n", who);
	}
	if (tl->out_of_order)
		printf("ordering    %" PRIu64 " switch records arrived out of time order (sorted)\n",
		       tl->out_of_order);
	if (tl->softirq_wakeups) {
		uint64_t tick = tl->softirq_wakeups - tl->softirq_by_thread - tl->softirq_by_irq - tl->softirq_unknown;
		const char *why = "";

		/* an older file has no raises; --no-irqs records none */
		if (!t->by_type[QT_REC_SOFTIRQ_RAISE])
			why = t->format_version < 2 ? " (format 1: no softirq raises recorded)" :
			      (v = tf_kv_get(&t->meta, TF_META_FEATURES)) && !strstr(v, "irqs") ?
			      " (recorded with --no-irqs)" : " (no softirq raise recorded)";
		printf("softirqs    %" PRIu64 " wakeups by softirqs: %" PRIu64 " raised by a thread (counted as its own), %"
		       PRIu64 " by an interrupt, %" PRIu64 " of no recorded cause%s, %" PRIu64 " by the tick and timers\n",
		       tl->softirq_wakeups, tl->softirq_by_thread, tl->softirq_by_irq, tl->softirq_unknown, why, tick);
		if (tl->softirq_shared)
			printf("            %" PRIu64 " of the interrupt's were raised by a thread too: left the device's, "
			       "the records cannot say which woke them\n", tl->softirq_shared);
	}

	order = malloc((tl->nthreads ? tl->nthreads : 1) * sizeof(*order));
	if (!order) {
		session__close(&s);
		return 1;
	}
	for (size_t i = 0; i < tl->nthreads; i++)
		order[i] = i;
	qsort_r(order, tl->nthreads, sizeof(*order), cmp_run_ns, tl->threads);
	printf("\n%8s %8s  %-16s %10s %6s %8s %8s %8s %8s\n", "TID", "PID", "COMM", "CPU", "CPU%",
	       "RUNS", "PREEMPT", "SYSCALLS", "WAKEUPS");
	for (size_t k = 0; k < tl->nthreads; k++) {
		const struct tl_thread *th = &tl->threads[order[k]];
		double span = t->stop_ns > t->start_ns ? (double)(t->stop_ns - t->start_ns) : 1;

		if (!th->nruns || (a.top && nshown == a.top))
			continue;
		printf("%8u %8u  %-16s %10s %5.1f%% %8u %8u %8zu %8zu%s\n", th->tid, th->pid, th->comm,
		       fmt_duration(b1, sizeof(b1), th->run_ns), 100.0 * th->run_ns / span, th->nruns,
		       th->npreempted, th->nsc, th->nwr,
		       th->flags & TL_TARGET ? "  target" : th->flags & TL_RECORDER ? "  (qostrace)" : "");
		nshown++;
	}
	if (a.top && nactive > nshown)
		printf("%8s ... %zu more threads ran (-t 0 lists them all)\n", "", nactive - nshown);
	free(order);
	session__close(&s);
	return 0;
}
