// SPDX-License-Identifier: MIT
/*
 * Writing a window (src/watch/window.h): its name; the directory cleaned
 * of parts and numbered after the windows there; the blocks of a span and
 * what they cover; the file itself: the ring's blocks byte for byte,
 * META with the watch keys, the thread table as of its start, END with
 * the losses inside it, mode 0600; and a write that fails (a file size
 * limit, deterministic) or would pass --max-disk leaves nothing.
 */
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "lib/log.h"
#include "synth_watch.h"
#include "watch_ring_fx.h"
#include "testutil.h"
#include "tfutil.h"
#include "watch/ring.h"
#include "watch/sink.h"
#include "watch/tap.h"
#include "watch/threads.h"
#include "watch/window.h"

#define S 1000000000ull

Test(window, names)
{
	char b[128];

	window_name(b, sizeof(b), 3, "src", 25100000);
	cr_assert_str_eq(b, "0003-src-25ms.qtrace");
	window_name(b, sizeof(b), 12345, "a b/c", 800000);
	cr_assert_str_eq(b, "12345-a_b_c-800us.qtrace", "file-safe");
	window_name(b, sizeof(b), 1, "sink", 1250000000);
	cr_assert_str_eq(b, "0001-sink-1.2s.qtrace");
	window_name(b, sizeof(b), 7, NULL, 0);
	cr_assert_str_eq(b, "0007-manual.qtrace");
	window_name(b, sizeof(b), 8, ".hidden", 2000000);
	cr_assert_str_eq(b, "0008-thread-2ms.qtrace", "never a hidden file");
}

Test(window, clean_numbers_after_the_windows_and_removes_parts)
{
	char *d = tu_tmpdir(), p[512];
	unsigned int next, removed;
	static const char *const files[] = { "0001-src-25ms.qtrace", "0041-sink-3ms.qtrace", ".0042-src-9ms.qtrace.part",
					     "notes.txt", "12-x.qtrace", ".hidden" };
	struct stat st;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", d, files[i]);
		close(open(p, O_CREAT | O_WRONLY, 0600));
	}
	cr_assert_eq(window_clean(d, &next, &removed), 0);
	cr_assert_eq(next, 42);
	cr_assert_eq(removed, 1);
	snprintf(p, sizeof(p), "%s/.0042-src-9ms.qtrace.part", d);
	cr_assert_neq(stat(p, &st), 0);
	snprintf(p, sizeof(p), "%s/.hidden", d);
	cr_assert_eq(stat(p, &st), 0, "not ours: kept");
	snprintf(p, sizeof(p), "%s/none", d);
	cr_assert_lt(window_clean(p, &next, &removed), 0);
	tu_rmdir(d);
	free(d);
}

struct fx {
	struct watch_ring_fx r;
	union qt_record losses[4];
};

static void setup(struct fx *f, size_t budget)
{
	memset(f, 0, sizeof(*f));
	watch_ring_fx_open(&f->r, 6, 8 * S, budget);
	/* a loss inside the windows asked below, one before, one on CPU 1 */
	for (int i = 0; i < 3; i++) {
		struct qt_lost *l = &f->losses[i].lost;

		l->h.type = QT_REC_LOST;
		l->h.cpu = i == 2;
		l->first_ts = f->r.c.start + (i == 1 ? S / 2 : 5 * S + i);
		l->last_ts = l->first_ts + 1000;
		l->h.ts = l->last_ts + 1;
		l->count = 10 + i;
	}
}

static struct window_in input(struct fx *f, const struct trig_window *w, const struct trig_break *b, size_t nb)
{
	return (struct window_in){
		.dir = f->r.dir, .number = 9, .ring = f->r.ring, .meta = &f->r.meta, .cmdline = "qostrace watch -o d",
		.threads = f->r.th, .losses = f->losses, .nlosses = 3, .w = w, .breaks = b, .nbreaks = nb,
		.actors = "tid:1001 tid:1002", .max_bytes = UINT64_MAX,
	};
}

Test(window, a_normal_trace_file_of_the_ring_blocks)
{
	struct fx f;
	struct trig_break b = { .tid = 1001, .actor = "stage0/1001", .comm = "stage0", .at_ns = 5 * S + S / 2,
				.lateness_ns = 50000000, .period_ns = 10e6, .online = true };
	struct trig_window w = { .from = 4 * S, .to = 6 * S, .first = b, .nbreaks = 1, .worst_ns = b.lateness_ns };
	struct window_in in;
	struct window_plan p;
	struct window_out out;
	struct trace *t;
	struct tfu_file file;
	struct stat st;
	char err[512];
	size_t events = 0;

	setup(&f, 64u << 20);
	in = input(&f, &w, &b, 1);
	cr_assert_eq(window_plan(f.r.ring, w.from, w.to, &p), 0);
	cr_assert_leq(p.first_ts, w.from);
	cr_assert_geq(p.last_ts, w.to);
	cr_assert_eq(p.cut_ns, 0);
	cr_assert_eq(window_write(&in, &p, &out, err, sizeof(err)), 0, "%s", err);
	cr_assert(strstr(out.path, "/0009-stage0-50ms.qtrace"), "%s", out.path);
	cr_assert_eq(stat(out.path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	cr_assert_eq(out.bytes, (uint64_t)st.st_size);
	cr_assert_eq(trace__load(out.path, NULL, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert(t->finished);
	cr_assert_str_eq(tf_kv_get(&t->meta, TF_META_WATCH), "break");
	cr_assert_str_eq(tf_kv_get(&t->meta, TF_META_WATCH_ACTOR), "stage0/1001");
	cr_assert_str_eq(tf_kv_get(&t->meta, TF_META_WATCH_ACTORS), "tid:1001 tid:1002");
	cr_assert_str_eq(tf_kv_get(&t->meta, TF_META_WATCH_BREAKS), "1001:5500000000:50000000:start:online");
	cr_assert_str_eq(tf_kv_get(&t->meta, TF_META_CMDLINE), "qostrace watch -o d");
	cr_assert_str_eq(tf_kv_get(&t->meta, TF_META_MODE), "command", "the recording's keys stay");
	cr_assert_eq(t->start_ns, p.first_ts);
	cr_assert_eq(t->lost_events, 10 + 12, "the losses inside it, not the one before");
	cr_assert_str_eq(tf_kv_get(&t->end, TF_END_LOST_CPU), "10,12");
	cr_assert_eq(t->nthreads_start, f.r.t->nthreads_start, "as of its start, all alive");
	/* its EVENTS blocks are the ring's, byte for byte */
	tfu_read(out.path, &file);
	for (size_t i = 0, seq = p.first_seq; i < file.n; i++) {
		struct ring_copy c = { 0 };

		if (file.b[i].type != TF_BLK_EVENTS)
			continue;
		cr_assert_eq(ring__copy(f.r.ring, seq++, &c), 1);
		cr_assert_eq(file.b[i].count, c.pk.count);
		events += c.pk.count;
		ring_copy_free(&c);
	}
	cr_assert_eq(events, t->events + t->by_type[QT_REC_STATS]);
	tfu_free(&file);
	trace__free(t);
	watch_ring_fx_close(&f.r);
}

Test(window, what_the_memory_no_longer_holds_is_said)
{
	struct fx f;
	struct trig_window w = { .from = 1 * S, .to = 8 * S, .manual = true };
	struct window_plan p;
	struct ring_stats st;

	setup(&f, 24 << 10);	/* the ring holds the last second or so only */
	ring__stats(f.r.ring, &st);
	cr_assert_gt(st.pushed_out, 0);
	cr_assert_eq(window_plan(f.r.ring, w.from, w.to, &p), 0);
	cr_assert_gt(p.cut_ns, 0);
	cr_assert_eq(p.first_ts, w.from + p.cut_ns);
	cr_assert_eq(window_plan(f.r.ring, 0, S / 2, &p), 0, "the oldest block held covers what is before it");
	watch_ring_fx_close(&f.r);
}

/* A write that fails midway (the file size limit: EFBIG) leaves neither the part nor the window. */
Test(window, a_failed_write_leaves_nothing)
{
	struct fx f;
	struct trig_window w = { .from = 1 * S, .to = 8 * S, .manual = true };
	struct window_in in;
	struct window_plan p;
	struct window_out out;
	struct rlimit old, lim;
	char err[512], cmd[600];
	int e;

	setup(&f, 64u << 20);
	in = input(&f, &w, NULL, 0);
	cr_assert_eq(window_plan(f.r.ring, w.from, w.to, &p), 0);
	in.max_bytes = p.bytes - 1;
	cr_assert_eq(window_write(&in, &p, &out, err, sizeof(err)), -EDQUOT, "--max-disk: refused before writing");
	in.max_bytes = UINT64_MAX;
	cr_assert_gt(p.bytes, 8192);
	lim.rlim_cur = lim.rlim_max = p.bytes / 2;
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	setrlimit(RLIMIT_FSIZE, &lim);
	e = window_write(&in, &p, &out, err, sizeof(err));
	setrlimit(RLIMIT_FSIZE, &old);
	cr_assert_eq(e, -EFBIG, "%d", e);
	cr_assert(strstr(err, ".part"), "%s", err);
	snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | grep -v rec.qtrace | wc -l) -eq 0", f.r.dir);
	cr_assert_eq(system(cmd), 0, "nothing left in %s", f.r.dir);
	watch_ring_fx_close(&f.r);
}
