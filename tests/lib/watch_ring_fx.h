/* SPDX-License-Identifier: MIT */
/*
 * A simulated recording (synth_watch.h) put into watch's ring as the
 * recorder would put it, through the sink: what the warm-up's and the
 * window writer's tests start from.
 *
 *   struct watch_ring_fx f;
 *   watch_ring_fx_open(&f, seed, len_ns, ring_budget);   // f.t the trace, f.ring its blocks
 *   ...
 *   watch_ring_fx_close(&f);
 */
#ifndef QT_WATCH_RING_FX_H
#define QT_WATCH_RING_FX_H

#include "lib/log.h"
#include "synth_watch.h"
#include "testutil.h"
#include "watch/ring.h"
#include "watch/sink.h"
#include "watch/tap.h"
#include "watch/threads.h"

struct watch_ring_fx {
	char *dir;			/* scratch, holds rec.qtrace */
	struct ring *ring;
	struct tap *tap;
	struct sink *sink;
	struct threads *th;		/* the thread table as the sink started it */
	struct tf_kv meta;		/* the recording's META */
	struct trace *t;		/* the simulated recording */
	struct sw_cfg c;
};

/* seed's machine (sw_default) for len_ns, saved in blocks of 16 KiB and fed into a ring of budget bytes. */
static inline void watch_ring_fx_open(struct watch_ring_fx *f, unsigned long long seed, uint64_t len_ns,
				      size_t budget)
{
	struct tf_thread *th;
	char path[512];
	uint64_t ts;
	size_t n;

	log_level = LOG_QUIET;
	memset(f, 0, sizeof(*f));
	f->c = sw_default(seed);
	f->c.len = len_ns;
	f->dir = tu_tmpdir();
	snprintf(path, sizeof(path), "%s/rec.qtrace", f->dir);
	f->t = sw_run(&f->c);
	sw_save(f->t, path, 16 << 10);
	f->ring = ring__new(budget);
	f->tap = tap__new(1024);
	f->sink = sink__new(f->ring, f->tap, 1);
	sw_fill(path, sink__writer(f->sink));
	cr_assert(sink__started(f->sink, &f->meta, &th, &n, &ts));
	f->th = threads__new();
	threads__set(f->th, th, n, ts);
	free(th);
}

static inline void watch_ring_fx_close(struct watch_ring_fx *f)
{
	trace__free(f->t);
	threads__free(f->th);
	sink__free(f->sink);
	tap__free(f->tap);
	ring__free(f->ring);
	tf_kv_free(&f->meta);
	tu_rmdir(f->dir);
	free(f->dir);
}

#endif
