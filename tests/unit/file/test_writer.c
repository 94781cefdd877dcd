// SPDX-License-Identifier: MIT
/*
 * The recorder's writer thread: everything pushed comes back from
 * trace__load in order; blocks close by size and by age; a full queue
 * makes the consumer wait instead of dropping; a write error (EFBIG from
 * RLIMIT_FSIZE: deterministic, no special file system needed) leaves a file
 * ending on a whole block and is reported.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "file/codec.h"
#include "lib/log.h"
#include "recgen.h"
#include "testutil.h"
#include "tfutil.h"
#include "file/trace.h"
#include "file/writer.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct tf_thread start_threads[] = {
	{ .tid = 1, .tgid = 1, .comm = "init" },
	{ .tid = 300, .tgid = 300, .ppid = 1, .comm = "pipeline" },
	{ .tid = 301, .tgid = 300, .ppid = 1, .comm = "decoder" },
};
static const struct tf_thread end_threads[] = {
	{ .tid = 1, .tgid = 1, .comm = "init" },
	{ .tid = 300, .tgid = 300, .ppid = 1, .comm = "pipeline" },
	{ .tid = 302, .tgid = 300, .ppid = 1, .flags = 0, .comm = "sink" },
	{ .tid = 7, .tgid = 7, .flags = TF_THREAD_KTHREAD, .comm = "kworker/0:1" },
};

struct fixture {
	char *dir;
	char path[256];
	struct tf_kv meta, end;
};

static void setup(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	log_level = LOG_QUIET;
	fx->dir = tu_tmpdir();
	snprintf(fx->path, sizeof(fx->path), "%s/w.qtrace", fx->dir);
	tf_kv_set(&fx->meta, TF_META_CPUS, "8");
	tf_kv_set(&fx->meta, TF_META_START, "1000");
	tf_kv_set(&fx->meta, TF_META_CMDLINE, "qostrace record -- ./pipeline");
	tf_kv_set(&fx->end, TF_END_STOP, "2000000");
	tf_kv_set(&fx->end, TF_END_LOST, "0");
}

static void teardown(struct fixture *fx)
{
	tf_kv_free(&fx->meta);
	tf_kv_free(&fx->end);
	tu_rmdir(fx->dir);
	free(fx->dir);
}

static struct writer *open_writer(struct fixture *fx, struct writer_opts *o)
{
	struct writer *w = NULL;

	o->path = fx->path;
	cr_assert_eq(writer__open(o, &fx->meta, start_threads, N(start_threads), 111, &w), 0);
	return w;
}

static int finish(struct fixture *fx, struct writer *w)
{
	return writer__finish(w, end_threads, N(end_threads), 222, &fx->end);
}

/* Records as the kernel makes them: strings always NUL-terminated. */
static union qt_record *random_records(size_t n, unsigned long long seed)
{
	union qt_record *r = malloc(n * sizeof(*r));

	cr_assert(r);
	for (size_t i = 0; i < n; i++)
		rg_record(&seed, &r[i], 0, false);
	return r;
}

static void push_all(struct writer *w, const union qt_record *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(writer__push(w, &r[i], codec_rec_size(r[i].h.type)), 0, "record %zu", i);
}

/* The loaded trace holds exactly recs, in order, each in its array. */
static void expect_loaded(const struct trace *t, const union qt_record *recs, size_t n)
{
	size_t isw = 0, iwk = 0, isc = 0, iirq = 0, itask = 0, iirqn = 0, ilost = 0, iraise = 0, idata = 0;
	uint64_t by_type[QT_REC_MAX] = { 0 }, events = 0;
	struct qt_stats last = { 0 };

	for (size_t i = 0; i < n; i++) {
		const union qt_record *r = &recs[i];
		const void *got = NULL;

		by_type[r->h.type]++;
		events += r->h.type != QT_REC_STATS;
		switch (r->h.type) {
		case QT_REC_SWITCH: cr_assert_lt(isw, t->nsw); got = &t->sw[isw++]; break;
		case QT_REC_WAKEUP: case QT_REC_WAKEUP_NEW: cr_assert_lt(iwk, t->nwk); got = &t->wk[iwk++]; break;
		case QT_REC_SYSCALL: cr_assert_lt(isc, t->nsc); got = &t->sc[isc++]; break;
		case QT_REC_IRQ: case QT_REC_SOFTIRQ: cr_assert_lt(iirq, t->nirq); got = &t->irq[iirq++]; break;
		case QT_REC_FORK: case QT_REC_EXEC: case QT_REC_RENAME: case QT_REC_EXIT:
			cr_assert_lt(itask, t->ntask);
			got = &t->task[itask++];
			break;
		case QT_REC_IRQ_NAME: cr_assert_lt(iirqn, t->nirqn); got = &t->irqn[iirqn++]; break;
		case QT_REC_LOST: cr_assert_lt(ilost, t->nlost); got = &t->lost[ilost++]; break;
		case QT_REC_SOFTIRQ_RAISE: cr_assert_lt(iraise, t->nraise); got = &t->raise[iraise++]; break;
		case QT_REC_DATA: cr_assert_lt(idata, t->ndata); got = &t->data[idata++]; break;
		case QT_REC_STATS:
			if (r->stats.emitted >= last.emitted)
				last = r->stats;
			continue;
		}
		cr_assert_eq(memcmp(got, r, codec_rec_size(r->h.type)), 0, "record %zu (%s) differs", i,
			     codec_type_name(r->h.type));
	}
	cr_assert_eq(isw, t->nsw);
	cr_assert_eq(iwk, t->nwk);
	cr_assert_eq(isc, t->nsc);
	cr_assert_eq(iirq, t->nirq);
	cr_assert_eq(itask, t->ntask);
	cr_assert_eq(iirqn, t->nirqn);
	cr_assert_eq(ilost, t->nlost);
	cr_assert_eq(iraise, t->nraise);
	cr_assert_eq(idata, t->ndata);
	for (int k = 0; k < QT_REC_MAX; k++)
		cr_assert_eq(t->by_type[k], by_type[k], "type %d: %llu, want %llu", k,
			     (unsigned long long)t->by_type[k], (unsigned long long)by_type[k]);
	cr_assert_eq(t->events, events);
	cr_assert_eq(memcmp(&t->last_stats, &last, sizeof(last)), 0);
}

static struct trace *load(const char *path)
{
	struct trace *t = NULL;
	char err[512];

	cr_assert_eq(trace__load(path, NULL, &t, err, sizeof(err)), 0, "%s", err);
	return t;
}

Test(writer, roundtrip_all_types)
{
	enum { NREC = 30000 };
	struct fixture fx;
	struct writer_opts o = { .zlevel = 1 };
	union qt_record *r = random_records(NREC, 17);
	struct writer_stats st;
	struct writer *w;
	struct trace *t;
	uint64_t by_type[QT_REC_MAX] = { 0 };

	setup(&fx);
	w = open_writer(&fx, &o);
	push_all(w, r, NREC);
	writer__stats(w, &st);
	for (size_t i = 0; i < NREC; i++)
		by_type[r[i].h.type]++;
	cr_expect_eq(st.records, NREC);
	cr_expect_eq(memcmp(st.by_type, by_type, sizeof(by_type)), 0);
	cr_expect_eq(st.malformed, 0);
	cr_expect_eq(st.user_dropped, 0);
	cr_assert_eq(finish(&fx, w), 0);

	t = load(fx.path);
	expect_loaded(t, r, NREC);
	cr_expect(t->finished);
	cr_expect_eq(t->damage.corrupt_blocks + t->damage.resyncs, 0);
	cr_expect_not(t->damage.truncated);
	cr_expect_eq(t->undecodable, 0);
	cr_expect_str_eq(tf_kv_get(&t->meta, TF_META_CMDLINE), "qostrace record -- ./pipeline");
	cr_expect_eq(t->meta.n, fx.meta.n);
	cr_expect_str_eq(tf_kv_get(&t->end, TF_END_STOP), "2000000");
	cr_expect_eq(t->end.n, fx.end.n);
	cr_assert_eq(t->nthreads_start, N(start_threads));
	cr_expect_eq(memcmp(t->threads_start, start_threads, sizeof(start_threads)), 0);
	cr_expect_eq(t->threads_start_ts, 111);
	cr_assert_eq(t->nthreads_end, N(end_threads));
	cr_expect_eq(memcmp(t->threads_end, end_threads, sizeof(end_threads)), 0);
	cr_expect_eq(t->threads_end_ts, 222);
	trace__free(t);
	free(r);
	teardown(&fx);
}

Test(writer, empty_recording)
{
	struct fixture fx;
	struct writer_opts o = { 0 };
	struct tfu_file f;
	struct writer *w;
	struct trace *t;

	setup(&fx);
	w = open_writer(&fx, &o);
	cr_assert_eq(finish(&fx, w), 0);
	tfu_read(fx.path, &f);
	cr_assert_eq(f.n, 4);
	cr_expect_eq(f.b[0].type, TF_BLK_META);
	cr_expect_eq(f.b[1].type, TF_BLK_THREADS);
	cr_expect_eq(f.b[2].type, TF_BLK_THREADS);
	cr_expect_eq(f.b[3].type, TF_BLK_END);
	tfu_free(&f);
	t = load(fx.path);
	cr_expect_eq(t->events, 0);
	cr_expect(t->finished);
	trace__free(t);
	teardown(&fx);
}

/* Decodes the EVENTS blocks of a file, one by one, against the pushed records. */
static size_t check_blocks(const char *path, const union qt_record *r, size_t n, bool finished,
			   size_t *nblocks, uint32_t *counts, size_t max_counts)
{
	struct tfu_file f;
	size_t k = 0;

	tfu_read(path, &f);
	cr_assert_eq(f.err, 0);
	*nblocks = 0;
	for (size_t i = 0; i < f.n; i++) {
		const struct tfu_block *b = &f.b[i];
		struct codec_state cs;
		const uint8_t *p = b->data, *end = b->data + b->len;

		cr_assert_eq(b->seq, i);
		if (b->type != TF_BLK_EVENTS)
			continue;
		cr_assert_lt(k, n);
		cr_assert_eq(b->base_ts, r[k].h.ts, "a block's base is its first record's time");
		codec_reset(&cs, b->base_ts);
		for (uint32_t j = 0; j < b->count; j++, k++) {
			union qt_record back;
			int m = codec_decode(&cs, p, end, &back);

			cr_assert_gt(m, 0);
			cr_assert(rg_equal(&back, &r[k]), "record %zu", k);
			p += m;
		}
		cr_assert_eq(p, end);
		if (*nblocks < max_counts)
			counts[*nblocks] = b->count;
		(*nblocks)++;
	}
	/* META, THREADS, events, THREADS, END */
	cr_assert_geq(f.n, finished ? 4 : 2);
	cr_expect_eq(f.b[0].type, TF_BLK_META);
	cr_expect_eq(f.b[1].type, TF_BLK_THREADS);
	if (finished) {
		cr_expect_eq(f.b[f.n - 2].type, TF_BLK_THREADS);
		cr_expect_eq(f.b[f.n - 1].type, TF_BLK_END);
	}
	cr_expect_eq(*nblocks, f.n - (finished ? 4 : 2));
	tfu_free(&f);
	return k;
}

/* block_bytes closes blocks: each holds at most that much, and is full but for the last. */
Test(writer, blocks_close_by_size)
{
	enum { NREC = 20000 };
	struct fixture fx;
	struct writer_opts o = { .zlevel = 0, .block_bytes = 100 /* raised to 4096 */,
				 .block_ns = UINT64_MAX };
	union qt_record *r = random_records(NREC, 23);
	struct tfu_file f;
	struct writer *w;
	size_t nblocks, events_seen = 0;

	setup(&fx);
	w = open_writer(&fx, &o);
	push_all(w, r, NREC);
	cr_assert_eq(finish(&fx, w), 0);
	cr_assert_eq(check_blocks(fx.path, r, NREC, true, &nblocks, NULL, 0), NREC);
	tfu_read(fx.path, &f);
	for (size_t i = 0; i < f.n; i++) {
		if (f.b[i].type != TF_BLK_EVENTS)
			continue;
		cr_assert_leq(f.b[i].len, 4096);
		if (++events_seen < nblocks)
			cr_assert_gt(f.b[i].len, 4096 - CODEC_MAX_REC, "block %zu: %zu bytes", i, f.b[i].len);
	}
	cr_expect_gt(nblocks, 20);
	tfu_free(&f);
	free(r);
	teardown(&fx);
}

/* block_ns = 1: every batch handed over becomes a block of its own. */
Test(writer, blocks_close_by_age)
{
	enum { ROUNDS = 7, PER = 500 };
	struct fixture fx;
	struct writer_opts o = { .zlevel = 1, .block_ns = 1 };
	union qt_record *r = random_records(ROUNDS * PER, 29);
	uint32_t counts[ROUNDS + 1];
	struct writer *w;
	size_t nblocks;

	setup(&fx);
	w = open_writer(&fx, &o);
	for (int k = 0; k < ROUNDS; k++) {
		push_all(w, r + k * PER, PER);
		writer__flush_batch(w);
	}
	cr_assert_eq(finish(&fx, w), 0);
	cr_assert_eq(check_blocks(fx.path, r, ROUNDS * PER, true, &nblocks, counts, N(counts)), ROUNDS * PER);
	cr_assert_eq(nblocks, ROUNDS);
	for (int k = 0; k < ROUNDS; k++)
		cr_expect_eq(counts[k], PER);
	free(r);
	teardown(&fx);
}

/* With no age limit and room to spare, all batches go into one block. */
Test(writer, batches_share_a_young_block)
{
	enum { ROUNDS = 7, PER = 500 };
	struct fixture fx;
	struct writer_opts o = { .zlevel = 1, .block_ns = UINT64_MAX, .block_bytes = 8 << 20 };
	union qt_record *r = random_records(ROUNDS * PER, 31);
	uint32_t counts[2];
	struct writer *w;
	size_t nblocks;

	setup(&fx);
	w = open_writer(&fx, &o);
	for (int k = 0; k < ROUNDS; k++) {
		push_all(w, r + k * PER, PER);
		writer__flush_batch(w);
	}
	cr_assert_eq(finish(&fx, w), 0);
	cr_assert_eq(check_blocks(fx.path, r, ROUNDS * PER, true, &nblocks, counts, N(counts)), ROUNDS * PER);
	cr_assert_eq(nblocks, 1);
	cr_expect_eq(counts[0], ROUNDS * PER);
	free(r);
	teardown(&fx);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* An idle writer still closes an aging block: a crash loses about block_ns at most. */
Test(writer, aging_block_written_while_idle, .timeout = 30)
{
	struct fixture fx;
	struct writer_opts o = { .zlevel = 1, .block_ns = 20 * 1000000ull };
	union qt_record *r = random_records(50, 37);
	struct writer *w;
	size_t nblocks = 0;

	setup(&fx);
	w = open_writer(&fx, &o);
	push_all(w, r, 50);
	writer__flush_batch(w);
	/* the thread wakes every 100 ms; give it up to 10 s under valgrind */
	for (int i = 0; i < 1000 && !nblocks; i++) {
		struct tfu_file f;

		sleep_ms(10);
		tfu_read(fx.path, &f);
		for (size_t k = 0; k < f.n; k++)
			nblocks += f.b[k].type == TF_BLK_EVENTS;
		tfu_free(&f);
	}
	cr_expect_eq(nblocks, 1, "no EVENTS block while the writer is idle");
	cr_assert_eq(finish(&fx, w), 0);
	free(r);
	teardown(&fx);
}

/* A queue of two batches: the consumer waits, nothing is lost. */
Test(writer, full_queue_waits, .timeout = 120)
{
	enum { NREC = 400000 };
	struct fixture fx;
	struct writer_opts o = { .zlevel = 1, .queue_bytes = 1 };
	union qt_record *r = malloc(NREC * sizeof(*r));
	struct writer_stats st;
	struct writer *w;
	struct trace *t;

	setup(&fx);
	for (size_t i = 0; i < NREC; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].sw.h.type = QT_REC_SWITCH;
		r[i].sw.h.ts = 1000 + i * 100;
		r[i].sw.h.cpu = i % 4;
		r[i].sw.prev_tid = r[i].sw.prev_tgid = 100 + i % 13;
		r[i].sw.next_tid = r[i].sw.next_tgid = 100 + (i + 1) % 13;
		r[i].sw.prev_runtime = i * 37;
	}
	w = open_writer(&fx, &o);
	push_all(w, r, NREC);
	writer__stats(w, &st);
	cr_expect_leq(st.queue_peak, 2);
	cr_expect_eq(st.records, NREC);
	cr_expect_eq(st.first_ts, 1000);
	cr_expect_eq(st.last_ts, 1000 + (NREC - 1) * 100ull);
	cr_assert_eq(finish(&fx, w), 0);
	t = load(fx.path);
	expect_loaded(t, r, NREC);
	trace__free(t);
	free(r);
	teardown(&fx);
}

Test(writer, malformed_records_dropped_and_counted)
{
	struct fixture fx;
	struct writer_opts o = { 0 };
	union qt_record good, bad;
	struct writer_stats st;
	struct writer *w;
	struct trace *t;

	setup(&fx);
	memset(&good, 0, sizeof(good));
	good.h.type = QT_REC_WAKEUP;
	good.h.ts = 5000;
	good.wk.wakee_tid = good.wk.wakee_tgid = 12;
	w = open_writer(&fx, &o);
	cr_expect_eq(writer__push(w, &good, sizeof(struct qt_wakeup)), 0);
	bad = good;
	cr_expect_eq(writer__push(w, &bad, sizeof(struct qt_wakeup) - 1), -EBADMSG);
	cr_expect_eq(writer__push(w, &bad, sizeof(struct qt_syscall)), -EBADMSG);
	cr_expect_eq(writer__push(w, &bad, 4), -EBADMSG);	/* not even a header */
	bad.h.type = 0;
	cr_expect_eq(writer__push(w, &bad, sizeof(struct qt_wakeup)), -EBADMSG);
	bad.h.type = QT_REC_MAX;
	cr_expect_eq(writer__push(w, &bad, sizeof(struct qt_wakeup)), -EBADMSG);
	writer__stats(w, &st);
	cr_expect_eq(st.malformed, 5);
	cr_expect_eq(st.records, 1);
	cr_assert_eq(finish(&fx, w), 0);
	t = load(fx.path);
	expect_loaded(t, &good, 1);
	trace__free(t);
	teardown(&fx);
}

Test(writer, open_refuses_what_it_must)
{
	struct fixture fx;
	struct writer_opts o = { 0 };
	struct writer *w = NULL;
	char link[300];
	struct stat st;
	size_t len;
	uint8_t *b;

	setup(&fx);
	o.path = fx.path;
	tfu_write(fx.path, "old", 3);
	cr_expect_eq(writer__open(&o, &fx.meta, NULL, 0, 0, &w), -EEXIST);
	b = tfu_slurp(fx.path, &len);
	cr_expect(len == 3 && !memcmp(b, "old", 3), "a refused open must leave the file alone");
	free(b);
	snprintf(link, sizeof(link), "%s/link", fx.dir);
	cr_assert_eq(symlink(fx.path, link), 0);
	o.path = link;
	o.force = true;
	cr_expect_eq(writer__open(&o, &fx.meta, NULL, 0, 0, &w), -ELOOP);
	o.path = fx.path;
	cr_assert_eq(writer__open(&o, &fx.meta, NULL, 0, 0, &w), 0);
	cr_assert_eq(writer__finish(w, NULL, 0, 0, &fx.end), 0);
	cr_assert_eq(stat(fx.path, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600);
	teardown(&fx);
}

/*
 * The file may grow to 200 kB: blocks are written until one does not fit;
 * that one is cut off, later ones are refused, finish reports EFBIG, and
 * the file reads back as an unfinished recording of whole blocks.
 */
Test(writer, write_error_leaves_a_readable_prefix, .timeout = 60)
{
	enum { NREC = 60000, LIMIT = 200000 };
	struct fixture fx;
	struct writer_opts o = { .zlevel = 0, .block_bytes = 4096 };
	struct rlimit rl = { .rlim_cur = LIMIT, .rlim_max = RLIM_INFINITY };
	union qt_record *r = random_records(NREC, 41);
	struct writer_stats st;
	struct writer *w;
	struct trace *t;
	struct stat sb;
	uint64_t loaded;
	size_t nblocks;

	setup(&fx);
	signal(SIGXFSZ, SIG_IGN);
	w = open_writer(&fx, &o);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	push_all(w, r, NREC);
	writer__flush_batch(w);
	for (int i = 0; i < 2000; i++) {	/* the thread reports through the stats */
		writer__stats(w, &st);
		if (st.err)
			break;
		sleep_ms(5);
	}
	cr_expect_eq(st.err, -EFBIG);
	cr_expect_gt(st.user_dropped, 0);
	cr_expect_leq(st.file_bytes, LIMIT);
	cr_expect_eq(finish(&fx, w), -EFBIG);
	rl.rlim_cur = RLIM_INFINITY;
	setrlimit(RLIMIT_FSIZE, &rl);

	cr_assert_eq(stat(fx.path, &sb), 0);
	cr_expect_leq(sb.st_size, LIMIT);
	cr_expect_gt(sb.st_size, LIMIT - 4096 - 2 * 48);
	loaded = check_blocks(fx.path, r, NREC, false, &nblocks, NULL, 0);
	t = load(fx.path);
	cr_expect_not(t->finished);
	cr_expect_not(t->damage.truncated);
	cr_expect_eq(t->damage.corrupt_blocks + t->damage.resyncs, 0);
	cr_expect_eq(t->events + t->by_type[QT_REC_STATS], loaded);
	cr_expect_gt(loaded, 1000);
	cr_expect_lt(loaded, NREC);
	expect_loaded(t, r, loaded);	/* exactly the first records, nothing else */
	trace__free(t);
	free(r);
	teardown(&fx);
}
