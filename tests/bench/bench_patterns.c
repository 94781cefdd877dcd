// SPDX-License-Identifier: MIT
/*
 * Benchmark of the emerging-patterns stage (src/patterns/stage.c with
 * src/patterns/vocab.c) on a synthetic system-wide timeline: a periodic actor "src"
 * on 2 CPUs among ~60 threads with real names (kworkers, ksoftirqd, Xorg,
 * pulseaudio, firefox, usb-storage, ...), each running a fixed routine of
 * system calls when it is switched in (motifs, as in a real kernel trace),
 * waking others, interrupted by named IRQs and softirqs. Every window
 * between two invocations of src holds --len symbols after collapsing;
 * 1 in 5 windows is a break (D_pos). The cause, planted in --target-pos of
 * the breaks and --target-neg of the kept periods, is made of common
 * symbols: "irq 24 xhci_hcd -> usb-storage switched in -> write by
 * usb-storage" (each alone is in most windows; the sequence is not).
 *
 *   bench_patterns [--pos N] [--neg N] [--len N] [--gap G] [--budget SEC]
 *                  [--delta PCT --alpha PCT] [--target-pos PCT] [--target-neg PCT]
 *                  [--seed S]
 *
 * Times patterns__mine_windows() (timeline events -> symbols -> miner) on
 * the windows, with the stage's defaults (automatic thresholds, 5 s budget)
 * unless told otherwise. Prints one "key value" per line; peak RSS from
 * getrusage() includes the synthetic trace and its timeline.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "synth_trace.h"
#include "patterns/patterns.h"
#include "file/syscall_names.h"
#include "timeline/timeline.h"

static unsigned long long rs = 1;

static unsigned long long rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 2685821657736338717ULL;
}

static double rnd01(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* Zipf-like rank: index k with probability ~ 1 / (k + 1). */
static int zipf(int n)
{
	double h = 0, u;

	for (int k = 0; k < n; k++)
		h += 1.0 / (k + 1);
	u = rnd01() * h;
	for (int k = 0; k < n; k++) {
		u -= 1.0 / (k + 1);
		if (u <= 0)
			return k;
	}
	return n - 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static const char *const comms[] = {
	"Xorg", "gnome-shell", "pulseaudio", "firefox", "Web Content", "Socket Thread", "kworker/0:1",
	"kworker/1:2", "ksoftirqd/0", "ksoftirqd/1", "rcu_preempt", "systemd-journal", "dbus-daemon",
	"NetworkManager", "pipewire", "gst-play", "gstqueue", "vdec", "code", "node", "python3",
	"containerd", "dockerd", "sshd", "bash", "cron", "rsyslogd", "irqbalance", "kworker/u8:3",
	"jbd2/sda1-8", "kswapd0", "migration/0", "migration/1", "chrome", "GpuWatchdog", "Compositor",
	"IPC I/O Parent", "Timer", "DOM Worker", "gvfsd", "tracker-miner-f", "evolution-alar",
	"gsd-power", "gsd-color", "at-spi2-registr", "ibus-daemon", "ibus-engine-sim", "snapd",
	"polkitd", "udisksd", "upowerd", "accounts-daemon", "avahi-daemon", "cupsd", "thermald",
	"usb-storage", "kworker/u8:0", "scsi_eh_0", "nvme-wq", "kcompactd0",
};
#define NCOMM (int)(sizeof(comms) / sizeof(comms[0]))
#define USB_IDX 55

static const char *const calls[] = {
	"read", "write", "futex", "epoll_wait", "poll", "ioctl", "clock_gettime", "nanosleep",
	"recvmsg", "sendmsg", "mmap", "munmap", "openat", "close", "fstat", "writev", "readv",
	"select", "getpid", "madvise", "pread64", "pwrite64", "lseek", "fcntl", "rt_sigprocmask",
};
#define NCALL (int)(sizeof(calls) / sizeof(calls[0]))

static const uint32_t irqs[] = { 36, 30, 24, 16, 1, 40 };
static const char *const irq_names[] = { "virtio1-req.0", "eth0", "xhci_hcd", "snd_hda_intel", "i8042",
					 "nvme0q1" };
#define NIRQ 6
static const uint32_t softirqs[] = { 7, 1, 9, 3, 4, 6 };	/* SCHED TIMER RCU NET_RX BLOCK TASKLET */

#define TID0 1000
#define SRC 999

struct gen {
	struct synth *s;
	uint64_t ts;
	uint32_t cur[2];
	int routine[NCOMM][8], rlen[NCOMM];
	int pos[2];		/* position in the current thread's routine */
	int nr[NCALL];
};

static void tick(struct gen *g)
{
	g->ts += 1000 + rnd() % 4000;
}

static void switch_to(struct gen *g, int cpu, uint32_t tid)
{
	uint32_t prev = g->cur[cpu];

	if (prev == tid)
		return;
	synth_switch(g->s, g->ts, cpu, prev, prev, prev ? SYN_SLEEP : SYN_PREEMPT, tid, tid);
	g->cur[cpu] = tid;
	g->pos[cpu] = 0;
}

/* One step of one CPU; returns the events emitted. */
static int step(struct gen *g)
{
	int cpu = (int)(rnd() % 2), t = g->cur[cpu] >= TID0 ? (int)(g->cur[cpu] - TID0) : -1;
	double u = rnd01();

	tick(g);
	if (u < 0.06) {
		int k = zipf(NIRQ);

		synth_irq(g->s, g->ts, g->ts + 2000, cpu, irqs[k], 0, g->cur[cpu]);
		return 1;
	}
	if (u < 0.14) {
		synth_irq(g->s, g->ts, g->ts + 2000, cpu, softirqs[zipf(6)], 1, g->cur[cpu]);
		return 1;
	}
	if (u < 0.17) {
		int w = zipf(NCOMM);

		synth_timer_wakeup(g->s, g->ts, TID0 + w, TID0 + w, cpu);
		return 1;
	}
	if (t >= 0 && g->pos[cpu] < g->rlen[t]) {
		synth_syscall(g->s, g->ts, g->ts + 500, g->cur[cpu], g->cur[cpu], g->nr[g->routine[t][g->pos[cpu]]],
			      0, 0);
		g->pos[cpu]++;
		return 1;
	}
	if (t >= 0 && rnd01() < 0.5) {
		int w = zipf(NCOMM);

		synth_wakeup(g->s, g->ts, g->cur[cpu], g->cur[cpu], TID0 + w, TID0 + w, cpu);
		tick(g);
	}
	switch_to(g, cpu, TID0 + zipf(NCOMM));
	return 1;
}

/* VmRSS or VmHWM of this process, kB; -1 if unknown. */
static long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = atol(line + strlen(key) + 1);
	fclose(f);
	return v;
}

/* Resets VmHWM to the current RSS (Linux >= 4.0), so that the stage's own
 * peak can be told apart from the synthetic trace's. */
static void reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");

	if (f) {
		fputs("5", f);
		fclose(f);
	}
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
	uint32_t npos = 200, nneg = 800, len = 2000;
	double tpos = 0.95, tneg = 0.015, budget = -1, delta = -1, alpha = -1;
	int gap = 2;
	struct gen g = { 0 };
	struct trace *t;
	struct timeline *tl;
	struct period_window *w;
	struct patterns_opts o;
	struct patterns_result *r;
	uint32_t nwin, usb_tid = TID0 + USB_IDX, npos_planted = 0, nneg_planted = 0;
	long rss0, hwm;
	int64_t t0;
	int err;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v) {
			fprintf(stderr, "%s needs a value\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "--pos"))
			npos = (uint32_t)atoi(v);
		else if (!strcmp(a, "--neg"))
			nneg = (uint32_t)atoi(v);
		else if (!strcmp(a, "--len"))
			len = (uint32_t)atoi(v);
		else if (!strcmp(a, "--gap"))
			gap = atoi(v);
		else if (!strcmp(a, "--budget"))
			budget = atof(v);
		else if (!strcmp(a, "--delta"))
			delta = atof(v) / 100;
		else if (!strcmp(a, "--alpha"))
			alpha = atof(v) / 100;
		else if (!strcmp(a, "--target-pos"))
			tpos = atof(v) / 100;
		else if (!strcmp(a, "--target-neg"))
			tneg = atof(v) / 100;
		else if (!strcmp(a, "--seed"))
			rs = strtoull(v, NULL, 0) | 1;
		else {
			fprintf(stderr, "unknown option %s\n", a);
			return 2;
		}
	}
	nwin = npos + nneg;
	for (int k = 0; k < NCALL; k++)
		g.nr[k] = syscall_number("x86_64", calls[k]);
	for (int c = 0; c < NCOMM; c++) {
		g.rlen[c] = 2 + (int)(rnd() % 6);
		for (int k = 0; k < g.rlen[c]; k++)
			g.routine[c][k] = zipf(NCALL);
	}
	/* usb-storage does what the planted cause ends with, among others. */
	g.routine[USB_IDX][0] = 1;	/* write */

	g.s = synth_new(0, UINT64_MAX / 4, 2);
	synth_thread(g.s, SRC, SRC, "src");
	for (int c = 0; c < NCOMM; c++)
		synth_thread(g.s, TID0 + c, TID0 + c, comms[c]);
	g.s->t->irqn = calloc(NIRQ, sizeof(*g.s->t->irqn));
	for (int k = 0; k < NIRQ; k++) {
		g.s->t->irqn[k].irq = irqs[k];
		snprintf(g.s->t->irqn[k].name, sizeof(g.s->t->irqn[k].name), "%s", irq_names[k]);
	}
	g.s->t->nirqn = NIRQ;
	w = calloc(nwin + 2, sizeof(*w));
	t0 = now_ns();
	g.ts = 1000000;
	w[0] = (struct period_window){ 0, (int64_t)g.ts, false, false, SIZE_MAX };
	for (uint32_t k = 0; k < nwin; k++) {
		bool pos = k % 5 == 4 && k / 5 < npos, plant;
		uint32_t at, n = 0;

		plant = rnd01() < (pos ? tpos : tneg);
		npos_planted += pos && plant;
		nneg_planted += !pos && plant;
		w[k + 1].start_ns = (int64_t)g.ts;
		w[k + 1].positive = pos;
		w[k + 1].before = k;
		/* src's invocation (its own activity is left out by the stage) */
		switch_to(&g, 0, SRC);
		tick(&g);
		synth_syscall(g.s, g.ts, g.ts + 500, SRC, SRC, 1, 0, 0);
		at = (uint32_t)(rnd() % (len - 10));
		/* ~len symbols after collapsing: a few repeats collapse */
		while (n < len + len / 20) {
			if (plant && n == at) {
				tick(&g);
				synth_irq(g.s, g.ts, g.ts + 2000, 0, 24, 0, g.cur[0]);
				tick(&g);
				switch_to(&g, 0, usb_tid);
				tick(&g);
				synth_syscall(g.s, g.ts, g.ts + 500, usb_tid, usb_tid, 1, 0, 0);
				g.pos[0] = 1;
				n += 3;
				continue;
			}
			n += (uint32_t)step(&g);
		}
		tick(&g);
		w[k + 1].end_ns = (int64_t)g.ts;
	}
	w[nwin + 1] = (struct period_window){ (int64_t)g.ts, (int64_t)g.ts + 1000, true, false, nwin };
	g.s->t->stop_ns = g.ts + 2000;
	tf_kv_set(&g.s->t->end, TF_END_STOP, "%llu", (unsigned long long)g.s->t->stop_ns);
	t = synth_finish(g.s);
	printf("generate_s %.3f\n", (now_ns() - t0) / 1e9);
	t0 = now_ns();
	err = timeline__build(t, NULL, &tl);
	if (err) {
		fprintf(stderr, "timeline: %s\n", strerror(-err));
		return 1;
	}
	printf("timeline_s %.3f\n", (now_ns() - t0) / 1e9);
	printf("timeline_events %zu\n", tl->nruns + tl->nsc + tl->nwk + tl->nirqs);
	printf("planted_pos %u\nplanted_neg %u\n", npos_planted, nneg_planted);

	patterns_opts_default(&o);
	o.gap = gap;
	o.delta = delta;
	o.alpha = alpha;
	if (budget >= 0)
		o.time_budget_ns = (int64_t)(budget * 1e9);
	/* The subtraces are ~len symbols; let none be cut. */
	o.vocab.max_len = len + len / 10;
	{
		uint32_t src = TL_NONE;

		for (size_t i = 0; i < tl->nthreads; i++)
			if (tl->threads[i].tid == SRC)
				src = (uint32_t)i;
		reset_peak();
		rss0 = status_kb("VmRSS");
		t0 = now_ns();
		err = patterns__mine_windows(tl, w, nwin + 2, src, &o, &r);
		hwm = status_kb("VmHWM");
	}
	if (err) {
		fprintf(stderr, "patterns: %s\n", strerror(-err));
		return 1;
	}
	printf("stage_s %.3f\n", (now_ns() - t0) / 1e9);
	printf("mine_s %.3f\n", r->mine_ns / 1e9);
	printf("symbolize_s %.3f\n", (r->elapsed_ns - r->mine_ns) / 1e9);
	printf("subtraces_pos %u\nsubtraces_neg %u\n", r->npos, r->nneg);
	printf("symbols %llu\n", (unsigned long long)r->symbols);
	printf("symbols_per_subtrace %.0f\n", (double)r->symbols / (r->npos + r->nneg));
	printf("longest %u\n", r->longest);
	printf("vocabulary %u\n", r->vocabulary);
	printf("runs %u\n", r->runs);
	printf("found %d\n", r->found);
	printf("thresholds %.0f%%/%.0f%%\n", r->delta * 100, r->alpha * 100);
	printf("bounds %s\n", r->bounds_text[0] ? r->bounds_text : "none (exact)");
	printf("patterns %zu\n", r->total);
	{
		long rank = -1;

		for (size_t i = 0; i < r->n; i++) {
			bool usb = false, irq = false;

			for (uint32_t k = 0; k < r->v[i].len; k++) {
				usb |= strstr(r->v[i].events[k], "usb-storage") != NULL;
				irq |= strstr(r->v[i].events[k], "xhci") != NULL;
			}
			if (usb && irq && rank < 0)
				rank = (long)i + 1;
		}
		printf("target_rank %ld\n", rank);
		for (size_t i = 0; i < r->n && i < 3; i++) {
			printf("top%zu ", i + 1);
			for (uint32_t k = 0; k < r->v[i].len; k++)
				printf("%s%s", k ? " -> " : "", r->v[i].events[k]);
			printf(" (%u/%u, %u/%u)\n", r->v[i].count_pos, r->npos, r->v[i].count_neg, r->nneg);
		}
	}
	printf("peak_rss_kb %ld\n", peak_rss_kb());
	if (rss0 >= 0 && hwm >= rss0)
		printf("stage_peak_kb %ld\n", hwm - rss0);
	patterns__free(r);
	free(w);
	timeline__free(tl);
	trace__free(t);
	return 0;
}
