// SPDX-License-Identifier: MIT
/*
 * Loading a trace file: where lost counts come from (END, else STATS, else
 * LOST records), the CPU count, the recording's span, damage and undecodable
 * blocks carried into struct trace, thread snapshots, IRQ and softirq names.
 * Files are written block by block with tf_writer and the codec, so each
 * test says exactly what the file holds.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "file/codec.h"
#include "lib/log.h"
#include "recgen.h"
#include "testutil.h"
#include "tfutil.h"
#include "timeline/timeline.h"
#include "file/trace.h"
#include "file/tracefile.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct tb {
	char *dir;
	char path[256];
	struct tf_writer *w;
};

static void tb_open(struct tb *b)
{
	log_level = LOG_QUIET;
	b->dir = tu_tmpdir();
	snprintf(b->path, sizeof(b->path), "%s/t.qtrace", b->dir);
	cr_assert_eq(tf_writer__create(b->path, false, 1, &b->w), 0);
}

static void tb_kv(struct tb *b, enum tf_block_type type, const char *text)
{
	cr_assert_eq(tf_writer__append(b->w, type, text, strlen(text), 0, 0), 0);
}

static void tb_threads(struct tb *b, const struct tf_thread *t, size_t n, uint64_t ts)
{
	size_t len;
	uint8_t *p = tf_threads_encode(t, n, &len);

	cr_assert_eq(tf_writer__append(b->w, TF_BLK_THREADS, p, len, n, ts), 0);
	free(p);
}

static void tb_events(struct tb *b, const union qt_record *r, size_t n)
{
	uint8_t *p = malloc(n * CODEC_MAX_REC + 1);
	uint64_t base = n ? r[0].h.ts : 0;
	size_t len = rg_encode_block(r, n, base, p);

	cr_assert_eq(tf_writer__append(b->w, TF_BLK_EVENTS, p, len, n, base), 0);
	free(p);
}

static void tb_close(struct tb *b)
{
	cr_assert_eq(tf_writer__close(b->w), 0);
	b->w = NULL;
}

static void tb_free(struct tb *b)
{
	tu_rmdir(b->dir);
	free(b->dir);
}

static struct trace *tb_load(struct tb *b)
{
	struct trace *t = NULL;
	char err[512];

	if (b->w)
		tb_close(b);
	cr_assert_eq(trace__load(b->path, NULL, &t, err, sizeof(err)), 0, "%s", err);
	return t;
}

static union qt_record rec(unsigned int type, uint64_t ts, uint16_t cpu)
{
	union qt_record r;

	memset(&r, 0, sizeof(r));
	r.h.type = type;
	r.h.ts = ts;
	r.h.cpu = cpu;
	return r;
}

static union qt_record lost(uint64_t ts, uint16_t cpu, uint64_t first, uint64_t last, uint64_t count)
{
	union qt_record r = rec(QT_REC_LOST, ts, cpu);

	r.lost.first_ts = first;
	r.lost.last_ts = last;
	r.lost.count = count;
	return r;
}

static union qt_record stats(uint64_t ts, uint64_t emitted, uint64_t lost_, uint64_t dropped)
{
	union qt_record r = rec(QT_REC_STATS, ts, 0);

	r.stats.emitted = emitted;
	r.stats.lost = lost_;
	r.stats.consumed = emitted - lost_;
	r.stats.user_dropped = dropped;
	return r;
}

static union qt_record sw(uint64_t ts, uint16_t cpu, uint32_t prev, uint32_t next)
{
	union qt_record r = rec(QT_REC_SWITCH, ts, cpu);

	r.sw.prev_tid = r.sw.prev_tgid = prev;
	r.sw.next_tid = r.sw.next_tgid = next;
	r.sw.prev_runtime = ts;
	return r;
}

/* ---- lost counts ---- */

Test(trace, lost_from_the_end_block)
{
	struct tb b;
	struct trace *t;
	union qt_record r[] = {
		lost(2000, 0, 1500, 1900, 5), stats(2100, 100, 10, 1), lost(2200, 1, 2150, 2190, 7),
	};

	tb_open(&b);
	tb_kv(&b, TF_BLK_META, "cpus=2\nstart_ns=1000\n");
	tb_events(&b, r, N(r));
	tb_kv(&b, TF_BLK_END, "stop_ns=3000\nlost=42\nuser_dropped=3\n");
	t = tb_load(&b);
	cr_expect(t->finished);
	cr_expect_eq(t->lost_events, 42);
	cr_expect_eq(t->user_dropped, 3);
	cr_expect_eq(t->nlost, 2);
	cr_expect_eq(t->last_stats.lost, 10);
	cr_expect_eq(t->by_type[QT_REC_STATS], 1);
	cr_expect_eq(t->events, 2, "STATS is not an event");
	trace__free(t);
	tb_free(&b);
}

/* A file cut short: the newest STATS (most emitted, wherever it is in the file). */
Test(trace, lost_from_stats_when_unfinished)
{
	struct tb b;
	struct trace *t;
	union qt_record r1[] = { stats(1100, 50, 5, 9), lost(1200, 0, 1150, 1190, 4), stats(1300, 100, 17, 2) };
	union qt_record r2[] = { stats(1250, 80, 12, 4), lost(1400, 1, 1350, 1390, 8) };

	tb_open(&b);
	tb_kv(&b, TF_BLK_META, "cpus=2\n");
	tb_events(&b, r1, N(r1));
	tb_events(&b, r2, N(r2));	/* an older STATS arriving later */
	t = tb_load(&b);
	cr_expect_not(t->finished);
	cr_expect_eq(t->last_stats.emitted, 100);
	cr_expect_eq(t->lost_events, 17);
	cr_expect_eq(t->user_dropped, 2);
	trace__free(t);
	tb_free(&b);
}

/* LOST records add up to more than the last STATS knew: the larger count wins. */
Test(trace, lost_from_lost_records)
{
	struct tb b;
	struct trace *t;
	union qt_record r[] = { stats(1100, 50, 5, 0), lost(1200, 0, 1150, 1190, 20), lost(1300, 3, 1250, 1290, 11) };

	tb_open(&b);
	tb_kv(&b, TF_BLK_META, "cpus=4\n");
	tb_events(&b, r, N(r));
	t = tb_load(&b);
	cr_expect_eq(t->lost_events, 31);
	trace__free(t);
	tb_free(&b);
}

/* An END block without a lost count, or a malformed one, falls back like a cut file. */
Test(trace, end_block_without_counts)
{
	struct tb b;
	struct trace *t;
	union qt_record r[] = { stats(1100, 50, 6, 1) };

	tb_open(&b);
	tb_kv(&b, TF_BLK_META, "cpus=1\n");
	tb_events(&b, r, N(r));
	tb_kv(&b, TF_BLK_END, "stop_ns=5000\n");
	t = tb_load(&b);
	cr_expect(t->finished);
	cr_expect_eq(t->stop_ns, 5000);
	cr_expect_eq(t->lost_events, 6);
	cr_expect_eq(t->user_dropped, 1);
	trace__free(t);
	tb_free(&b);

	tb_open(&b);
	tb_kv(&b, TF_BLK_META, "cpus=1\n");
	tb_events(&b, r, N(r));
	tb_kv(&b, TF_BLK_END, "lost=99\nthis line has no equals sign\n");
	t = tb_load(&b);
	cr_expect_not(t->finished);
	cr_expect_eq(t->lost_events, 6);
	trace__free(t);
	tb_free(&b);
}

/* ---- CPUs and span ---- */

static int ncpus_of(const char *meta, const union qt_record *r, size_t n)
{
	struct tb b;
	struct trace *t;
	int c;

	tb_open(&b);
	tb_kv(&b, TF_BLK_META, meta);
	if (n)
		tb_events(&b, r, n);
	t = tb_load(&b);
	c = t->ncpus;
	trace__free(t);
	tb_free(&b);
	return c;
}

Test(trace, ncpus)
{
	union qt_record on7[] = { sw(100, 7, 1, 2) };
	union qt_record other[] = { rec(QT_REC_WAKEUP, 100, 9) };

	cr_expect_eq(ncpus_of("cpus=4\n", NULL, 0), 4);
	cr_expect_eq(ncpus_of("cpus=4\n", on7, 1), 8, "a switch on CPU 7 means at least 8 CPUs");
	cr_expect_eq(ncpus_of("cpus=16\n", on7, 1), 16);
	cr_expect_eq(ncpus_of("kernel=6.8\n", NULL, 0), 1);
	cr_expect_eq(ncpus_of("kernel=6.8\n", on7, 1), 8);
	cr_expect_eq(ncpus_of("cpus=0\n", NULL, 0), 1);
	cr_expect_eq(ncpus_of("cpus=65536\n", NULL, 0), 1);
	cr_expect_eq(ncpus_of("cpus=65535\n", NULL, 0), 65535);
	cr_expect_eq(ncpus_of("cpus=4x\n", NULL, 0), 1);
	cr_expect_eq(ncpus_of("cpus=-3\n", NULL, 0), 1);
	cr_expect_eq(ncpus_of("cpus=2\n", other, 1), 2, "only switches widen it");
}

struct span { uint64_t start, stop, first, last; };

static struct span span_of(const char *meta, const char *end, const union qt_record *r, size_t n)
{
	struct tb b;
	struct trace *t;
	struct span s;

	tb_open(&b);
	tb_kv(&b, TF_BLK_META, meta);
	if (n)
		tb_events(&b, r, n);
	if (end)
		tb_kv(&b, TF_BLK_END, end);
	t = tb_load(&b);
	s = (struct span){ t->start_ns, t->stop_ns, t->first_ts, t->last_ts };
	trace__free(t);
	tb_free(&b);
	return s;
}

#define EXPECT_SPAN(s, a, b) \
	cr_expect((s).start == (a) && (s).stop == (b), "span [%llu, %llu], want [%llu, %llu]", \
		  (unsigned long long)(s).start, (unsigned long long)(s).stop, \
		  (unsigned long long)(a), (unsigned long long)(b))

Test(trace, span_widened_to_the_records)
{
	union qt_record inside[] = { sw(1500, 0, 1, 2), sw(2500, 0, 2, 1) };
	union qt_record outside[] = { sw(1500, 0, 1, 2), sw(900, 1, 2, 1), sw(6000, 0, 2, 1) };
	union qt_record sc[] = { sw(1500, 0, 1, 2), rec(QT_REC_SYSCALL, 1600, 0), rec(QT_REC_SOFTIRQ, 1700, 0),
				 stats(9999, 1, 0, 0) };
	struct span s;

	sc[1].sc.end_ts = 7000;		/* still in the syscall at the end */
	sc[2].irq.end_ts = 8000;
	s = span_of("start_ns=1000\n", "stop_ns=5000\n", inside, N(inside));
	EXPECT_SPAN(s, 1000, 5000);
	cr_expect(s.first == 1500 && s.last == 2500);
	s = span_of("start_ns=1000\n", "stop_ns=5000\n", outside, N(outside));
	EXPECT_SPAN(s, 900, 6000);
	s = span_of("start_ns=1000\n", "stop_ns=5000\n", sc, N(sc));
	EXPECT_SPAN(s, 1000, 8000);
	cr_expect_eq(s.last, 8000, "end times count; STATS (at 9999) do not");
	/* unfinished: the stop is the last record */
	s = span_of("start_ns=1000\n", NULL, inside, N(inside));
	EXPECT_SPAN(s, 1000, 2500);
	/* no start in the header: the first record */
	s = span_of("cpus=1\n", "stop_ns=5000\n", inside, N(inside));
	EXPECT_SPAN(s, 1500, 5000);
	/* nothing recorded, nothing stopped: an empty span at the start */
	s = span_of("start_ns=1000\n", NULL, NULL, 0);
	EXPECT_SPAN(s, 1000, 1000);
	/* a stop before the start (clock trouble) is raised to the start */
	s = span_of("start_ns=1000\n", "stop_ns=10\n", NULL, 0);
	EXPECT_SPAN(s, 1000, 1000);
}

/* ---- damage ---- */

Test(trace, damage_propagated)
{
	struct tb b;
	struct trace *t;
	union qt_record r1[] = { sw(1000, 0, 1, 2), sw(1100, 0, 2, 1) };
	union qt_record r2[] = { sw(1200, 0, 1, 2) };
	union qt_record r3[] = { sw(1300, 1, 5, 6), sw(1400, 1, 6, 5), sw(1500, 1, 5, 6) };
	struct tf_reader *rd;
	struct tf_block blk;
	char err[256];
	off_t at = -1;
	uint8_t *bytes;
	size_t size;

	tb_open(&b);
	tb_kv(&b, TF_BLK_META, "cpus=2\n");
	tb_events(&b, r1, N(r1));
	tb_events(&b, r2, N(r2));
	tb_events(&b, r3, N(r3));
	tb_close(&b);
	/* damage the payload of the second EVENTS block */
	cr_assert_eq(tf_reader__open(b.path, &rd, err, sizeof(err)), 0);
	for (int i = 0; tf_reader__next(rd, &blk) > 0; i++)
		if (i == 2)
			at = blk.offset;
	tf_reader__close(rd);
	bytes = tfu_slurp(b.path, &size);
	bytes[at + TFU_HDR + 1] ^= 0x10;
	tfu_write(b.path, bytes, size - 5);	/* and cut the last one short */
	free(bytes);
	t = tb_load(&b);
	cr_expect_eq(t->damage.corrupt_blocks, 1);
	cr_expect(t->damage.truncated);
	cr_expect_eq(t->damage.first_problem_at, at);
	cr_expect_eq(t->nsw, 2);
	cr_expect_eq(t->sw[1].h.ts, 1100);
	cr_expect_not(t->finished);
	cr_expect_eq(t->file_bytes, size - 5);
	trace__free(t);
	tb_free(&b);
}

/* An EVENTS block whose records stop decoding: the good ones stay, the rest is counted. */
Test(trace, undecodable_records_counted)
{
	struct tb b;
	struct trace *t;
	union qt_record r[] = { sw(1000, 0, 1, 2), sw(1100, 0, 2, 1), sw(1200, 0, 1, 2) };
	uint8_t p[3 * CODEC_MAX_REC + 8];
	size_t len;

	tb_open(&b);
	tb_kv(&b, TF_BLK_META, "cpus=1\n");
	len = rg_encode_block(r, N(r), 1000, p);
	p[len++] = 0x1f;	/* an unknown type */
	memset(p + len, 0, 4);
	len += 4;
	cr_assert_eq(tf_writer__append(b.w, TF_BLK_EVENTS, p, len, 10, 1000), 0);
	tb_events(&b, r, 1);
	t = tb_load(&b);
	cr_expect_eq(t->undecodable, 7);
	cr_expect_eq(t->nsw, 4);
	trace__free(t);
	tb_free(&b);
}

Test(trace, unreadable_files)
{
	struct tb b;
	struct trace *t = NULL;
	char err[512] = "", path[300];

	tb_open(&b);
	tb_close(&b);	/* a file header and nothing else */
	cr_expect_eq(trace__load(b.path, NULL, &t, err, sizeof(err)), -EBADMSG);
	cr_expect_null(t);
	cr_expect(strstr(err, b.path) && strstr(err, "nothing to analyse"), "%s", err);
	snprintf(path, sizeof(path), "%s/none", b.dir);
	cr_expect_eq(trace__load(path, NULL, &t, err, sizeof(err)), -ENOENT);
	cr_expect(strstr(err, path), "%s", err);
	cr_expect_eq(trace__load(b.dir, NULL, &t, err, sizeof(err)), -EINVAL);
	tb_free(&b);
}

/* Records without a header block are still a trace; a second header is ignored. */
Test(trace, header_block_missing_or_repeated)
{
	struct tb b;
	struct trace *t;
	union qt_record r[] = { sw(1000, 2, 1, 2) };

	tb_open(&b);
	tb_events(&b, r, 1);
	t = tb_load(&b);
	cr_expect_eq(t->meta.n, 0);
	cr_expect_eq(t->ncpus, 3);
	cr_expect_eq(t->nsw, 1);
	trace__free(t);
	tb_free(&b);

	tb_open(&b);
	tb_kv(&b, TF_BLK_META, "cpus=2\nhost=a\n");
	tb_kv(&b, TF_BLK_META, "cpus=8\nhost=b\n");
	t = tb_load(&b);
	cr_expect_str_eq(tf_kv_get(&t->meta, TF_META_HOST), "a");
	cr_expect_eq(t->ncpus, 2);
	trace__free(t);
	tb_free(&b);
}

/* The first thread table is the start snapshot, the last one the end snapshot. */
Test(trace, thread_snapshots)
{
	static const struct tf_thread a[] = { { .tid = 10, .tgid = 10, .comm = "a" } };
	static const struct tf_thread bb[] = { { .tid = 20, .tgid = 20, .comm = "b" },
					       { .tid = 21, .tgid = 20, .comm = "b2" } };
	static const struct tf_thread c[] = { { .tid = 30, .tgid = 30,
						.comm = { 'f', 'i', 'l', 'l', 's', '-', 'a', 'l', 'l', '-', '1', '6',
							  '-', 'b', 'y', 't' } } };
	struct tb b;
	struct trace *t;

	tb_open(&b);
	tb_kv(&b, TF_BLK_META, "cpus=1\n");
	tb_threads(&b, a, N(a), 100);
	tb_threads(&b, bb, N(bb), 200);
	cr_assert_eq(tf_writer__append(b.w, TF_BLK_THREADS, "\x01\x02", 2, 1, 250), 0);	/* malformed */
	tb_threads(&b, c, N(c), 300);
	t = tb_load(&b);
	cr_assert_eq(t->nthreads_start, 1);
	cr_expect_eq(t->threads_start[0].tid, 10);
	cr_expect_eq(t->threads_start_ts, 100);
	cr_assert_eq(t->nthreads_end, 1);
	cr_expect_eq(t->threads_end[0].tid, 30);
	cr_expect_str_eq(t->threads_end[0].comm, "fills-all-16-by", "a C string, like the records' names");
	cr_expect_eq(t->threads_end_ts, 300);
	trace__free(t);
	tb_free(&b);
}

/* ---- names ---- */

static union qt_record irqn(uint64_t ts, uint32_t irq, const char *name, size_t len)
{
	union qt_record r = rec(QT_REC_IRQ_NAME, ts, 0);

	r.irqn.irq = irq;
	memcpy(r.irqn.name, name, len);
	return r;
}

Test(trace, irq_names)
{
	static const char name32[] = "0123456789abcdefghijklmnopqrstuv";	/* 32 characters */
	union qt_record r[] = {
		irqn(100, 24, "xhci_hcd", 8), irqn(200, 9, "acpi", 4), irqn(300, 24, "later", 5),
		irqn(400, 77, name32, QT_IRQ_NAME_LEN),
	};
	struct tb b;
	struct trace *t;
	char buf[64];

	tb_open(&b);
	tb_kv(&b, TF_BLK_META, "cpus=1\n");
	tb_events(&b, r, N(r));
	t = tb_load(&b);
	cr_expect_str_eq(trace__irq_name(t, 24), "xhci_hcd");
	cr_expect_str_eq(trace__irq_name(t, 9), "acpi");
	cr_expect_null(trace__irq_name(t, 10));
	/* a name filling its field (a hostile file: the kernel ends names with a NUL) */
	cr_assert_not_null(trace__irq_name(t, 77));
	cr_expect_eq(strlen(trace__irq_name(t, 77)), QT_IRQ_NAME_LEN - 1);
	cr_expect_eq(strncmp(trace__irq_name(t, 77), name32, QT_IRQ_NAME_LEN - 1), 0);

	cr_expect_str_eq(irq_source_name(t, 24, buf, sizeof(buf)), "irq 24 xhci_hcd");
	cr_expect_str_eq(irq_source_name(t, 10, buf, sizeof(buf)), "irq 10 ?");
	cr_expect_str_eq(irq_source_name(t, QT_IRQ_TIMER, buf, sizeof(buf)), "timer");
	cr_expect_str_eq(irq_source_name(t, QT_IRQ_WORK, buf, sizeof(buf)), "irq_work");
	cr_expect_str_eq(irq_source_name(t, QT_IRQ_IPI, buf, sizeof(buf)), "IPI");
	cr_expect_str_eq(irq_source_name(t, QT_IRQ_UNKNOWN, buf, sizeof(buf)), "irq ?");
	cr_expect_str_eq(irq_source_name(t, 24, buf, 8), "irq 24 ", "cut to the buffer");
	trace__free(t);
	tb_free(&b);
}

/* After the timeline is built the bulky records go; names and counts stay. */
Test(trace, drop_records)
{
	union qt_record r[] = {
		sw(100, 0, 1, 2), rec(QT_REC_WAKEUP, 110, 0), rec(QT_REC_SYSCALL, 120, 1),
		rec(QT_REC_IRQ, 130, 1), irqn(140, 24, "xhci_hcd", 8), lost(150, 1, 140, 145, 3),
	};
	struct tb b;
	struct trace *t;

	tb_open(&b);
	tb_kv(&b, TF_BLK_META, "cpus=2\n");
	tb_events(&b, r, N(r));
	t = tb_load(&b);
	cr_assert_eq(t->nsw + t->nwk + t->nsc + t->nirq, 4);
	trace__drop_records(t);
	cr_expect(!t->sw && !t->wk && !t->sc && !t->irq);
	cr_expect_eq(t->nsw + t->nwk + t->nsc + t->nirq, 0);
	cr_expect_eq(t->by_type[QT_REC_SWITCH], 1, "counts by type stay for the report");
	cr_expect_eq(t->events, 6);
	cr_expect_eq(t->nlost, 1);
	cr_expect_str_eq(trace__irq_name(t, 24), "xhci_hcd");
	trace__drop_records(t);	/* twice is harmless */
	trace__free(t);
	tb_free(&b);
}

/* Names of tasks: a comm filling all 16 bytes comes out as a C string. */
Test(trace, task_names_terminated)
{
	union qt_record r[2];
	struct tb b;
	struct trace *t;

	r[0] = rec(QT_REC_EXEC, 100, 0);
	r[0].task.tid = r[0].task.tgid = 5;
	memcpy(r[0].task.comm, "0123456789abcdef", QT_COMM_LEN);
	r[1] = rec(QT_REC_RENAME, 200, 0);
	r[1].task.tid = r[1].task.tgid = 5;
	memcpy(r[1].task.comm, "short", 5);
	tb_open(&b);
	tb_kv(&b, TF_BLK_META, "cpus=1\n");
	tb_events(&b, r, N(r));
	t = tb_load(&b);
	cr_assert_eq(t->ntask, 2);
	cr_expect_str_eq(t->task[0].comm, "0123456789abcde");
	cr_expect_str_eq(t->task[1].comm, "short");
	trace__free(t);
	tb_free(&b);
}

Test(trace, softirq_names)
{
	static const char *const want[] = {
		"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
	};

	for (uint32_t v = 0; v < N(want); v++)
		cr_expect_str_eq(softirq_name(v), want[v]);
	cr_expect_str_eq(softirq_name(10), "?");
	cr_expect_str_eq(softirq_name(0xffff), "?");
	cr_expect_str_eq(softirq_name(UINT32_MAX), "?");
}

/* Many random records over many blocks: counts and arrays as in the file. */
Test(trace, random_records_load_in_order)
{
	enum { NBLK = 20, PER = 700 };
	unsigned long long seed = 808;
	union qt_record *r = malloc(NBLK * PER * sizeof(*r));
	uint64_t by_type[QT_REC_MAX] = { 0 };
	size_t nsw = 0, isw = 0;
	struct tb b;
	struct trace *t;

	tb_open(&b);
	tb_kv(&b, TF_BLK_META, "cpus=4\n");
	for (int k = 0; k < NBLK; k++) {
		for (int i = 0; i < PER; i++) {
			rg_record(&seed, &r[k * PER + i], 0, false);
			by_type[r[k * PER + i].h.type]++;
			nsw += r[k * PER + i].h.type == QT_REC_SWITCH;
		}
		tb_events(&b, r + k * PER, PER);
	}
	t = tb_load(&b);
	cr_expect_eq(memcmp(t->by_type, by_type, sizeof(by_type)), 0);
	cr_assert_eq(t->nsw, nsw);
	for (size_t i = 0; i < NBLK * PER; i++)
		if (r[i].h.type == QT_REC_SWITCH)
			cr_assert_eq(memcmp(&t->sw[isw++], &r[i], sizeof(struct qt_switch)), 0);
	cr_expect_eq(t->nwk + t->nsc + t->nirq + t->ntask + t->nirqn + t->nlost + t->nsw + t->nraise +
		     t->ndata, t->events);
	trace__free(t);
	free(r);
	tb_free(&b);
}

/*
 * Hostile records (every field at its edges: CPUs up to 65535, times
 * wrapping, tids reused at random) loaded and turned into a timeline: the
 * whole read path survives them.
 */
Test(trace, hostile_records_through_the_timeline, .timeout = 120)
{
	for (unsigned long long s0 = 1; s0 <= 12; s0++) {
		unsigned long long seed = s0 * 0x2545f4914f6cdd1dull;
		union qt_record r[400];
		struct timeline *tl = NULL;
		struct tl_event *ev;
		struct tb b;
		struct trace *t;
		size_t n;

		tb_open(&b);
		tb_kv(&b, TF_BLK_META, s0 % 2 ? "cpus=2\nmode=command\ntargets=1,2,3\nrecorder_pid=4\n" : "cpus=8\n");
		for (int k = 0; k < 5; k++) {
			for (size_t i = 0; i < N(r); i++) {
				rg_record(&seed, &r[i], 0, true);
				if (rg_rand(&seed) % 2) {	/* small values: tids and times that meet */
					r[i].h.ts %= 5000;
					r[i].h.cpu %= 4;
					if (r[i].h.type == QT_REC_SWITCH) {
						r[i].sw.prev_tid %= 8;
						r[i].sw.next_tid %= 8;
						r[i].sw.prev_runtime %= 10000;
					}
					if (r[i].h.type >= QT_REC_FORK && r[i].h.type <= QT_REC_EXIT)
						r[i].task.tid %= 8;
				}
			}
			tb_events(&b, r, N(r));
		}
		t = tb_load(&b);
		cr_assert_eq(timeline__build(t, NULL, &tl), 0, "seed %llu", s0);
		cr_assert_geq(tl->ncpus, t->ncpus);
		cr_assert_eq(timeline__stream(tl, NULL, 0, &ev, &n), 0);
		cr_assert_eq(n, tl->nruns + tl->nsc + tl->nwk + tl->nirqs + tl->ngaps);
		for (size_t i = 1; i < n; i++)
			cr_assert_geq(ev[i].ts, ev[i - 1].ts);
		for (size_t i = 0; i < tl->nthreads; i++)
			cr_assert_lt(strlen(tl->threads[i].comm), 16);
		free(ev);
		timeline__free(tl);
		trace__free(t);
		tb_free(&b);
	}
}
