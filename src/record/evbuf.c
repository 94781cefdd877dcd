// SPDX-License-Identifier: MIT
/* Ring buffer or perf buffer; see src/record/evbuf.h. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "evbuf.h"
#include "file/codec.h"

/*
 * One CPU's records of one drain, each as a u64 size and the record,
 * 8-aligned as the ring buffer hands them out (the writer loads their
 * 64-bit fields in place).
 */
struct stage {
	uint8_t *data;
	size_t len, cap, pos;
};

struct evbuf {
	struct bpf_map *events;
	enum rec_buffer kind;
	uint64_t bytes;			/* ring: all; perf: one CPU's */
	struct ring_buffer *rb;
	struct perf_buffer *pb;
	evbuf_record_fn fn;
	void *ctx;
	int ncpus;
	struct stage *stage;		/* perf: per CPU */
	uint64_t *lost;			/* perf: per CPU, as PERF_RECORD_LOST said */
	int err;
};

int evbuf__new(struct bpf_map *events, enum rec_buffer kind, uint64_t bytes, struct evbuf **out)
{
	struct evbuf *eb = calloc(1, sizeof(*eb));
	long page = sysconf(_SC_PAGESIZE);
	int err = 0;

	if (!eb)
		return -ENOMEM;
	eb->events = events;
	eb->kind = kind;
	eb->ncpus = libbpf_num_possible_cpus();
	if (eb->ncpus <= 0) {
		err = eb->ncpus ? eb->ncpus : -EINVAL;
		free(eb);
		return err;
	}
	if (kind == REC_BUFFER_PERF) {
		uint64_t pages = 1;

		/* A power of two of pages per CPU, the share of each CPU at most. */
		while (pages * 2 * page * eb->ncpus <= bytes)
			pages *= 2;
		eb->bytes = pages * page;
		eb->stage = calloc(eb->ncpus, sizeof(*eb->stage));
		eb->lost = calloc(eb->ncpus, sizeof(*eb->lost));
		if (!eb->stage || !eb->lost)
			err = -ENOMEM;
		err = err ?: bpf_map__set_type(events, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
		err = err ?: bpf_map__set_key_size(events, sizeof(int));
		err = err ?: bpf_map__set_value_size(events, sizeof(int));
		err = err ?: bpf_map__set_max_entries(events, eb->ncpus);
	} else {
		eb->bytes = bytes;
		err = bpf_map__set_max_entries(events, bytes);
	}
	if (err) {
		evbuf__free(eb);
		return err;
	}
	*out = eb;
	return 0;
}

static int ring_record(void *ctx, void *data, size_t size)
{
	struct evbuf *eb = ctx;

	eb->fn(eb->ctx, data, size);
	return 0;
}

#define STAGED(size) (sizeof(uint64_t) + (((size_t)(size) + 7) & ~(size_t)7))

static int stage_push(struct stage *s, const void *data, uint32_t size)
{
	size_t need = STAGED(size);
	uint64_t len = size;

	if (s->len + need > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1 << 16;
		uint8_t *d;

		while (cap < s->len + need)
			cap *= 2;
		d = realloc(s->data, cap);
		if (!d)
			return -ENOMEM;
		s->data = d;
		s->cap = cap;
	}
	memcpy(s->data + s->len, &len, sizeof(len));
	memcpy(s->data + s->len + sizeof(len), data, size);
	s->len += need;
	return 0;
}

struct perf_sample {
	struct perf_event_header h;
	uint32_t size;
	uint8_t data[];
};

struct perf_lost {
	struct perf_event_header h;
	uint64_t id, lost;
};

static enum bpf_perf_event_ret perf_event(void *ctx, int cpu, struct perf_event_header *h)
{
	struct evbuf *eb = ctx;

	if (cpu < 0 || cpu >= eb->ncpus)
		return LIBBPF_PERF_EVENT_CONT;
	if (h->type == PERF_RECORD_SAMPLE) {
		struct perf_sample *s = (struct perf_sample *)h;
		uint32_t size = s->size;

		/*
		 * The kernel pads a sample to 8 bytes with its size word: back
		 * to the record's own. The data is only 4-aligned here.
		 */
		if (size >= sizeof(struct qt_rec_hdr)) {
			uint8_t type;
			size_t want;

			memcpy(&type, s->data + offsetof(struct qt_rec_hdr, type), 1);
			want = codec_rec_size(type);

			if (want && want <= size)
				size = want;
		}
		if (stage_push(&eb->stage[cpu], s->data, size) && !eb->err)
			eb->err = -ENOMEM;
	} else if (h->type == PERF_RECORD_LOST) {
		eb->lost[cpu] += ((struct perf_lost *)h)->lost;
	}
	return LIBBPF_PERF_EVENT_CONT;
}

int evbuf__open(struct evbuf *eb, evbuf_record_fn fn, void *ctx)
{
	int fd = bpf_map__fd(eb->events);

	eb->fn = fn;
	eb->ctx = ctx;
	if (eb->kind == REC_BUFFER_PERF) {
		/*
		 * Woken when half full, not per record (the default): the
		 * consumer drains on a timer, and a wake-up per event is an
		 * interrupt per event (docs/DESIGN.md §2).
		 */
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(attr),
			.config = PERF_COUNT_SW_BPF_OUTPUT,
			.sample_type = PERF_SAMPLE_RAW,
			.sample_period = 1,
			.watermark = 1,
			.wakeup_watermark = eb->bytes / 2,
		};

		eb->pb = perf_buffer__new_raw(fd, eb->bytes / sysconf(_SC_PAGESIZE), &attr, perf_event,
					      eb, NULL);
		return eb->pb ? 0 : -errno;
	}
	eb->rb = ring_buffer__new(fd, ring_record, eb, NULL);
	return eb->rb ? 0 : -errno;
}

static uint64_t stage_ts(const struct stage *s)
{
	const struct qt_rec_hdr *h = (const void *)(s->data + s->pos + sizeof(uint64_t));

	return h->ts;
}

/* The CPUs' records of this drain, oldest first (each CPU's are in order but for nesting). */
static int merge(struct evbuf *eb)
{
	int n = 0;

	for (;;) {
		struct stage *best = NULL;
		uint64_t size;

		for (int i = 0; i < eb->ncpus; i++) {
			struct stage *s = &eb->stage[i];

			if (s->pos < s->len && (!best || stage_ts(s) < stage_ts(best)))
				best = s;
		}
		if (!best)
			break;
		memcpy(&size, best->data + best->pos, sizeof(size));
		eb->fn(eb->ctx, best->data + best->pos + sizeof(size), size);
		best->pos += STAGED(size);
		n++;
	}
	for (int i = 0; i < eb->ncpus; i++)
		eb->stage[i].len = eb->stage[i].pos = 0;
	return n;
}

int evbuf__consume(struct evbuf *eb)
{
	size_t nbuf;
	int err;

	if (eb->kind != REC_BUFFER_PERF)
		return ring_buffer__consume(eb->rb);
	nbuf = perf_buffer__buffer_cnt(eb->pb);
	for (size_t i = 0; i < nbuf; i++) {
		err = perf_buffer__consume_buffer(eb->pb, i);
		if (err)
			return err;
	}
	err = eb->err;
	eb->err = 0;
	return err ? err : merge(eb);
}

uint64_t evbuf__capacity(const struct evbuf *eb)
{
	return eb->bytes;
}

uint64_t evbuf__lost(const struct evbuf *eb, int cpu)
{
	return eb->lost && cpu >= 0 && cpu < eb->ncpus ? eb->lost[cpu] : 0;
}

void evbuf__free(struct evbuf *eb)
{
	if (!eb)
		return;
	ring_buffer__free(eb->rb);
	perf_buffer__free(eb->pb);
	for (int i = 0; eb->stage && i < eb->ncpus; i++)
		free(eb->stage[i].data);
	free(eb->stage);
	free(eb->lost);
	free(eb);
}
