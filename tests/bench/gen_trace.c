/*
 * Writes a synthetic but consistent trace file of about N records, through
 * the real file format (tracefile.h + codec.h), for analysis benchmarks at
 * sizes a recording on this machine cannot reach (100 M events).
 *
 *   gen_trace OUT.qtrace N [CPUS [by-cpu]]
 *
 * Model: on each CPU a periodic pipeline (a source woken by a timer every
 * 10 ms, then stages handing over by wakeups, each running a fixed work
 * with jitter), background threads filling the rest with short preempted
 * bursts, a system call per stage invocation, and every 997th period a
 * 30 ms disturbance by a background thread. Switch sequences chain on every
 * CPU and runtimes accumulate per thread, as the kernel reports them.
 *
 * Records are written in the order a recording has them: the ring buffer
 * delivers them as they are committed, in time order but for the few that
 * another CPU's commit overtook (one in 200 here; 0.66 % of the switches
 * of a 15 s stress-ng storm recorded on this machine). With by-cpu, each
 * CPU's 10 ms of records comes after the previous CPU's instead: 7 in 8
 * arrive late, the worst case of the loader's sort.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/codec.h"
#include "file/tracefile.h"

#define STAGES 4
#define BG 6

struct th {
	uint32_t tid, pid;
	uint64_t runtime;
	char comm[16];
};

struct gen {
	struct tf_writer *w;
	bool by_cpu;
	struct pending {
		union qt_record r;
		size_t seq;		/* each CPU's own records stay in the order made */
	} *pend;			/* one 10 ms slot's records, all CPUs */
	size_t npend, cap;
	uint8_t *block;
	size_t used;
	uint32_t count;
	uint64_t base;
	struct codec_state cs;
	uint64_t written;
};

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void flush(struct gen *g)
{
	if (!g->count)
		return;
	if (tf_writer__append(g->w, TF_BLK_EVENTS, g->block, g->used, g->count, g->base)) {
		fprintf(stderr, "gen_trace: write failed\n");
		exit(1);
	}
	g->used = 0;
	g->count = 0;
}

static void encode(struct gen *g, const union qt_record *r)
{
	if (!g->count) {
		g->base = r->h.ts;
		codec_reset(&g->cs, r->h.ts);
	}
	g->used += codec_encode(&g->cs, r, g->block + g->used);
	g->count++;
	if (g->used + CODEC_MAX_REC > (1u << 20))
		flush(g);
}

static void emit(struct gen *g, const union qt_record *r)
{
	g->written++;
	if (g->by_cpu) {
		encode(g, r);
		return;
	}
	if (g->npend == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 4096;
		g->pend = realloc(g->pend, g->cap * sizeof(*g->pend));
		if (!g->pend) {
			fprintf(stderr, "gen_trace: out of memory\n");
			exit(1);
		}
	}
	g->pend[g->npend] = (struct pending){ *r, g->npend };
	g->npend++;
}

static int by_ts(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->r.h.ts != y->r.h.ts)
		return x->r.h.ts < y->r.h.ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A slot's records in commit order: by time, one in 200 overtaken by the next CPU's. */
static void settle(struct gen *g)
{
	qsort(g->pend, g->npend, sizeof(*g->pend), by_ts);
	for (size_t i = 0; i + 1 < g->npend; i++) {
		if (g->pend[i].r.h.cpu != g->pend[i + 1].r.h.cpu && rnd() % 200 == 0) {
			struct pending tmp = g->pend[i];

			g->pend[i] = g->pend[i + 1];
			g->pend[i + 1] = tmp;
			i++;
		}
	}
	for (size_t i = 0; i < g->npend; i++)
		encode(g, &g->pend[i].r);
	g->npend = 0;
}

static void sw(struct gen *g, uint64_t ts, int cpu, struct th *prev, uint32_t state, int preempt,
	       struct th *next, uint64_t prev_start)
{
	union qt_record r = { 0 };

	r.sw.h.ts = ts;
	r.sw.h.type = QT_REC_SWITCH;
	r.sw.h.cpu = cpu;
	r.sw.h.flags = preempt ? QT_SWITCH_PREEMPT : 0;
	if (prev) {
		prev->runtime += ts - prev_start;
		r.sw.prev_tid = prev->tid;
		r.sw.prev_tgid = prev->pid;
		r.sw.prev_runtime = prev->runtime;
	}
	r.sw.prev_state = state;
	if (next) {
		r.sw.next_tid = next->tid;
		r.sw.next_tgid = next->pid;
	}
	r.sw.prev_prio = r.sw.next_prio = 120;
	emit(g, &r);
}

static void wake(struct gen *g, uint64_t ts, int cpu, struct th *waker, struct th *wakee)
{
	union qt_record r = { 0 };

	r.wk.h.ts = ts;
	r.wk.h.type = QT_REC_WAKEUP;
	r.wk.h.cpu = cpu;
	r.wk.waking_ts = ts - 1000;
	r.wk.wakee_tid = wakee->tid;
	r.wk.wakee_tgid = wakee->pid;
	r.wk.target_cpu = r.wk.waker_cpu = cpu;
	if (waker) {
		r.wk.waker_tid = waker->tid;
		r.wk.waker_tgid = waker->pid;
		r.wk.waker_irq = QT_IRQ_UNKNOWN;
	} else {
		r.wk.h.flags = QT_WAKE_HARDIRQ;
		r.wk.waker_irq = QT_IRQ_TIMER;
	}
	emit(g, &r);
}

static void sys(struct gen *g, uint64_t start, uint64_t end, int cpu, struct th *t)
{
	union qt_record r = { 0 };

	r.sc.h.ts = start;
	r.sc.h.type = QT_REC_SYSCALL;
	r.sc.h.cpu = cpu;
	r.sc.end_ts = end;
	r.sc.tid = t->tid;
	r.sc.tgid = t->pid;
	r.sc.nr = 1;	/* write */
	r.sc.arg0 = 3;
	r.sc.ret = 64;
	emit(g, &r);
}

int main(int argc, char **argv)
{
	static const char *stage_names[STAGES] = { "src", "dec", "filter", "sink" };
	uint64_t target, t0 = 1000000000000ull, t;
	int ncpus = 2;
	struct gen g = { 0 };
	struct th *th;
	struct tf_thread *snap;
	struct tf_kv meta = { 0 }, end = { 0 };
	size_t nth, len;
	uint8_t *buf;
	char *kv;

	if (argc < 3) {
		fprintf(stderr, "usage: gen_trace OUT.qtrace N [CPUS [by-cpu]]\n");
		return 2;
	}
	target = strtoull(argv[2], NULL, 10);
	if (argc > 3)
		ncpus = atoi(argv[3]);
	if (argc > 4 && strcmp(argv[4], "by-cpu")) {
		fprintf(stderr, "gen_trace: '%s': the only order besides the default is by-cpu\n", argv[4]);
		return 2;
	}
	g.by_cpu = argc > 4;
	if (ncpus < 1 || ncpus > 256 || !target)
		return 2;
	nth = (size_t)ncpus * (STAGES + BG);
	th = calloc(nth, sizeof(*th));
	snap = calloc(nth, sizeof(*snap));
	g.block = malloc(1u << 20);
	if (!th || !snap || !g.block)
		return 1;
	for (size_t i = 0; i < nth; i++) {
		int cpu = i / (STAGES + BG), k = i % (STAGES + BG);

		th[i].tid = 1000 + i;
		th[i].pid = 1000 + cpu * (STAGES + BG);
		if (k < STAGES)
			snprintf(th[i].comm, sizeof(th[i].comm), "%s%d", stage_names[k], cpu);
		else
			snprintf(th[i].comm, sizeof(th[i].comm), "bg%d.%d", cpu, k - STAGES);
		snap[i].tid = th[i].tid;
		snap[i].tgid = th[i].pid;
		memcpy(snap[i].comm, th[i].comm, 16);
	}
	if (tf_writer__create(argv[1], true, 1, &g.w)) {
		fprintf(stderr, "gen_trace: cannot create %s\n", argv[1]);
		return 1;
	}
	tf_kv_set(&meta, TF_META_START, "%llu", (unsigned long long)t0);
	tf_kv_set(&meta, TF_META_CPUS, "%d", ncpus);
	tf_kv_set(&meta, TF_META_MODE, "all");
	tf_kv_set(&meta, TF_META_ARCH, "x86_64");
	tf_kv_set(&meta, TF_META_KERNEL, "synthetic");
	tf_kv_set(&meta, TF_META_CMDLINE, "gen_trace %s %s %d", argv[1], argv[2], ncpus);
	kv = tf_kv_encode(&meta, &len);
	tf_writer__append(g.w, TF_BLK_META, kv, len, meta.n, t0);
	free(kv);
	buf = tf_threads_encode(snap, nth, &len);
	tf_writer__append(g.w, TF_BLK_THREADS, buf, len, nth, t0);
	free(buf);

	/*
	 * Periods are generated CPU after CPU inside each 10 ms slot, then
	 * settled into commit order (or written as made, by-cpu).
	 */
	t = t0;
	for (uint64_t period = 0; g.written < target; period++, t += 10000000ull) {
		for (int cpu = 0; cpu < ncpus; cpu++) {
			struct th *base = &th[cpu * (STAGES + BG)];
			uint64_t now = t + cpu * 1000 + rnd() % 20000;
			struct th *cur = NULL;
			uint64_t cur_start = now;
			bool disturbed = period % 997 == 996;

			if (disturbed) {
				/* a background thread holds the CPU for 30 ms */
				struct th *d = &base[STAGES];

				sw(&g, now, cpu, NULL, 0, 0, d, 0);
				wake(&g, now + 30000000ull - 5000, cpu, NULL, &base[0]);
				sw(&g, now + 30000000ull, cpu, d, 0, 1, NULL, now);
				now += 30000000ull;
			}
			wake(&g, now, cpu, NULL, &base[0]);
			for (int s = 0; s < STAGES; s++) {
				uint64_t work = 500000 + rnd() % 100000;

				sw(&g, now, cpu, cur, 1, 0, &base[s], cur_start);
				cur = &base[s];
				cur_start = now;
				sys(&g, now + work / 2, now + work / 2 + 3000, cpu, cur);
				now += work;
				if (s + 1 < STAGES)
					wake(&g, now - 2000, cpu, cur, &base[s + 1]);
			}
			/* background bursts, preempted by each other, until the period ends */
			for (uint64_t until = t + (disturbed ? 39000000ull : 9000000ull); now < until;) {
				struct th *b = &base[STAGES + 1 + rnd() % (BG - 1)];
				uint64_t d = 20000 + rnd() % 200000;

				if (b == cur)
					continue;
				sw(&g, now, cpu, cur, cur < &base[STAGES] ? 1 : 0, cur >= &base[STAGES], b, cur_start);
				cur = b;
				cur_start = now;
				now += d;
			}
			sw(&g, now, cpu, cur, 0, 1, NULL, cur_start);
			if (disturbed)
				t += 30000000ull;
		}
		settle(&g);
	}
	flush(&g);
	tf_kv_set(&end, TF_END_STOP, "%llu", (unsigned long long)(t + 10000000ull));
	tf_kv_set(&end, TF_END_REASON, "synthetic");
	tf_kv_set(&end, TF_END_EVENTS, "%llu", (unsigned long long)g.written);
	tf_kv_set(&end, TF_END_LOST, "0");
	buf = tf_threads_encode(snap, nth, &len);
	tf_writer__append(g.w, TF_BLK_THREADS, buf, len, nth, t);
	free(buf);
	kv = tf_kv_encode(&end, &len);
	tf_writer__append(g.w, TF_BLK_END, kv, len, end.n, t);
	free(kv);
	if (tf_writer__close(g.w))
		return 1;
	printf("%s: %llu records\n", argv[1], (unsigned long long)g.written);
	tf_kv_free(&meta);
	tf_kv_free(&end);
	free(th);
	free(snap);
	free(g.block);
	free(g.pend);
	return 0;
}
