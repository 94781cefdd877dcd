// SPDX-License-Identifier: MIT
/* A trace file fed to watch as if recorded; see src/watch/replay.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "file/codec.h"
#include "file/writer.h"
#include "lib/log.h"
#include "replay.h"
#include "watch.h"

/* The detector's records arrive out of order by this much at most, as the writer's do live. */
#define REPLAY_SLOP_NS 200000000ull

/* The block's records, raw as the kernel made them (the writer's batch), to the tap. */
static int records(const struct writer_sink *s, const struct tf_block *b, uint8_t **buf, size_t *cap,
		   uint64_t *newest)
{
	struct codec_block it;
	union qt_record r;
	size_t used = 0;

	codec_block_begin(&it, b->data, b->len, b->base_ts);
	while (codec_block_next(&it, &r) > 0) {
		size_t size = codec_rec_size(r.h.type);

		if (used + size > *cap) {
			size_t c = *cap ? *cap * 2 : 1 << 20;
			uint8_t *nb = realloc(*buf, c);

			if (!nb)
				return -ENOMEM;
			*buf = nb;
			*cap = c;
		}
		memcpy(*buf + used, &r, size);
		used += size;
		if (r.h.type != QT_REC_STATS && r.h.ts > *newest)
			*newest = r.h.ts;
	}
	if (s->records)
		s->records(s->ctx, *buf, used);
	return 0;
}

int watch_replay(struct watch *w, const char *path, FILE *out)
{
	const struct writer_sink *s = watch__sink(w);
	struct tf_reader *r;
	struct tf_block b;
	uint8_t *buf = NULL;
	uint64_t newest = 0;
	size_t cap = 0;
	bool threads = false;
	char msg[512];
	int e;

	e = tf_reader__open(path, &r, msg, sizeof(msg));
	if (e) {
		log_err("%s", msg);
		return e;
	}
	while ((e = tf_reader__next(r, &b)) > 0) {
		/* The end snapshot is not the writer's business until the end. */
		if (b.type == TF_BLK_THREADS && threads)
			continue;
		threads |= b.type == TF_BLK_THREADS;
		e = 0;
		if (b.type == TF_BLK_EVENTS)
			e = records(s, &b, &buf, &cap, &newest);
		if (!e)
			e = s->append(s->ctx, b.type, b.data, b.len, b.count, b.base_ts);
		if (e)
			break;
		if (b.type == TF_BLK_EVENTS && newest > REPLAY_SLOP_NS) {
			watch__step(w, newest - REPLAY_SLOP_NS, false);
			watch__say_to(w, out);
		}
	}
	tf_reader__close(r);
	free(buf);
	if (e < 0) {
		log_err("%s: %s", path, strerror(-e));
		return e;
	}
	watch__step(w, newest, true);
	watch__say_to(w, out);
	return 0;
}
