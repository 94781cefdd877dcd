// SPDX-License-Identifier: MIT
/*
 * Throughput and size of the trace file's record encoding on a realistic
 * mix (60 % switches, 25 % wakeups, 15 % syscalls; 8 CPUs, 200 threads in
 * 20 processes, ~2 us between records, CPUs' records interleaved in batches
 * as the ring buffer delivers them).
 *
 *   bench_codec [RECORDS] [ZLEVEL] [DIR]     default 2000000 1 /tmp
 *
 * Prints one line of key=value:
 *   raw_B_per_rec    the kernel's record sizes
 *   packed_B_per_rec after codec_encode (before zlib)
 *   file_B_per_rec   in the file (blocks of 1 MiB packed, zlib, headers)
 *   encode_*         codec_encode only
 *   write_*          codec_encode + zlib + write (to the page cache, no fsync)
 *   read_*           tf_reader (read + crc + inflate) + codec_decode
 *   load_*           trace__load (the above + arrays per type)
 * Rates are records/s and MB/s of raw (kernel-sized) records.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "file/codec.h"
#include "lib/log.h"
#include "file/trace.h"
#include "file/tracefile.h"

#define NCPU 8
#define NTHR 200
#define BLOCK (1u << 20)

static unsigned long long rnd(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint32_t tgid_of(uint32_t tid)
{
	return 1000 + (tid - 1000) / 10 * 10;
}

/* Records in arrival order: each CPU's in time order, CPUs in batches. */
static union qt_record *generate(size_t n, size_t *raw_bytes)
{
	static const uint32_t nrs[] = { 0, 1, 7, 16, 202, 202, 202, 230, 232, 47 };
	union qt_record *out = malloc(n * sizeof(*out));
	uint64_t cpu_ts[NCPU], runtime[NTHR] = { 0 }, since[NTHR] = { 0 };
	uint32_t cur[NCPU];
	unsigned long long s = 42;
	size_t k = 0;

	if (!out)
		return NULL;
	*raw_bytes = 0;
	for (int c = 0; c < NCPU; c++) {
		cpu_ts[c] = 1000000000ull + c * 777;
		cur[c] = 1000 + c;
	}
	while (k < n) {
		int c = rnd(&s) % NCPU;
		/* a batch of this CPU's records, as the consumer drains them */
		size_t batch = 1 + rnd(&s) % 16;

		for (size_t b = 0; b < batch && k < n; b++, k++) {
			union qt_record *r = &out[k];
			unsigned int p = rnd(&s) % 100;

			memset(r, 0, sizeof(*r));
			cpu_ts[c] += 200 + rnd(&s) % (NCPU * 3600);
			r->h.ts = cpu_ts[c];
			r->h.cpu = c;
			if (p < 60) {
				uint32_t prev = cur[c], next;

				do
					next = 1000 + rnd(&s) % NTHR;
				while (next == prev);
				r->h.type = QT_REC_SWITCH;
				r->h.flags = rnd(&s) % 3 == 0 ? QT_SWITCH_PREEMPT : 0;
				r->sw.prev_tid = prev;
				r->sw.prev_tgid = tgid_of(prev);
				r->sw.next_tid = next;
				r->sw.next_tgid = tgid_of(next);
				r->sw.prev_state = r->h.flags ? 0 : 1 + rnd(&s) % 2;
				r->sw.prev_prio = r->sw.next_prio = 120;
				runtime[prev - 1000] += r->h.ts - since[prev - 1000] > 5000000 ? 50000
							: r->h.ts - since[prev - 1000];
				r->sw.prev_runtime = 3000000000ull + runtime[prev - 1000];
				since[next - 1000] = r->h.ts;
				cur[c] = next;
			} else if (p < 85) {
				uint32_t wakee = 1000 + rnd(&s) % NTHR;

				r->h.type = QT_REC_WAKEUP;
				r->h.cpu = rnd(&s) % NCPU;
				r->wk.waking_ts = r->h.ts - 500 - rnd(&s) % 3000;
				if (rnd(&s) % 5 == 0) {
					r->h.flags = QT_WAKE_HARDIRQ;
					r->wk.waker_irq = QT_IRQ_TIMER;
				} else {
					r->wk.waker_irq = QT_IRQ_UNKNOWN;
				}
				r->wk.waker_tid = cur[c];
				r->wk.waker_tgid = tgid_of(cur[c]);
				r->wk.wakee_tid = wakee;
				r->wk.wakee_tgid = tgid_of(wakee);
				r->wk.target_cpu = r->h.cpu;
				r->wk.waker_cpu = c;
				r->wk.wakee_prio = 120;
			} else {
				r->h.type = QT_REC_SYSCALL;
				r->sc.nr = nrs[rnd(&s) % 10];
				r->sc.end_ts = r->h.ts + 300 + rnd(&s) % (rnd(&s) % 4 ? 20000 : 2000000);
				r->sc.arg0 = rnd(&s) % 40;
				r->sc.ret = rnd(&s) % 8 == 0 ? -11 : (int64_t)(rnd(&s) % 4096);
				r->sc.tid = cur[c];
				r->sc.tgid = tgid_of(cur[c]);
			}
			*raw_bytes += codec_rec_size(r->h.type);
		}
	}
	return out;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
	int zlevel = argc > 2 ? atoi(argv[2]) : 1;
	const char *dir = argc > 3 ? argv[3] : "/tmp";
	size_t raw_bytes, packed = 0, nblocks = 0, got = 0;
	union qt_record *recs = generate(n, &raw_bytes), r;
	uint8_t *block = malloc(BLOCK + CODEC_MAX_REC);
	struct codec_state cs;
	struct tf_writer *w;
	struct tf_reader *rd;
	struct tf_block blk;
	struct trace *t;
	char path[4096], err[512];
	double t0, t_enc, t_write, t_read, t_load;
	uint64_t sum_in = 0, sum_out = 0, file_bytes;
	int e;

	if (!recs || !block || !n) {
		fprintf(stderr, "bench_codec: out of memory or no records\n");
		return 1;
	}
	log_level = LOG_QUIET;
	snprintf(path, sizeof(path), "%s/bench_codec.%d.qtrace", dir, (int)getpid());
	for (size_t i = 0; i < n; i++)
		sum_in += recs[i].h.ts ^ recs[i].h.type;

	/* encode only */
	t0 = now();
	for (size_t i = 0, used = 0; i < n; i++) {
		if (!used)
			codec_reset(&cs, recs[i].h.ts);
		used += codec_encode(&cs, &recs[i], block + used);
		if (used + CODEC_MAX_REC > BLOCK || i + 1 == n) {
			packed += used;
			used = 0;
		}
	}
	t_enc = now() - t0;

	/* encode + compress + write, in 1 MiB blocks like the writer thread */
	if ((e = tf_writer__create(path, true, zlevel, &w))) {
		fprintf(stderr, "bench_codec: %s: %s\n", path, strerror(-e));
		return 1;
	}
	t0 = now();
	for (size_t i = 0, used = 0, first = 0; i < n; i++) {
		if (!used) {
			codec_reset(&cs, recs[i].h.ts);
			first = i;
		}
		used += codec_encode(&cs, &recs[i], block + used);
		if (used + CODEC_MAX_REC > BLOCK || i + 1 == n) {
			if ((e = tf_writer__append(w, TF_BLK_EVENTS, block, used, i + 1 - first,
						   recs[first].h.ts))) {
				fprintf(stderr, "bench_codec: %s: %s\n", path, strerror(-e));
				return 1;
			}
			nblocks++;
			used = 0;
		}
	}
	file_bytes = tf_writer__bytes(w);
	tf_writer__append(w, TF_BLK_END, "stop_ns=1\n", 10, 1, 0);
	tf_writer__close(w);
	t_write = now() - t0;

	/* read + inflate + decode */
	t0 = now();
	if ((e = tf_reader__open(path, &rd, err, sizeof(err)))) {
		fprintf(stderr, "bench_codec: %s\n", err);
		return 1;
	}
	while (tf_reader__next(rd, &blk) > 0) {
		const uint8_t *p = blk.data, *end = blk.data + blk.len;

		if (blk.type != TF_BLK_EVENTS)
			continue;
		codec_reset(&cs, blk.base_ts);
		while (p < end) {
			int k = codec_decode(&cs, p, end, &r);

			if (k <= 0) {
				fprintf(stderr, "bench_codec: decode error\n");
				return 1;
			}
			sum_out += r.h.ts ^ r.h.type;
			p += k;
			got++;
		}
	}
	tf_reader__close(rd);
	t_read = now() - t0;
	if (got != n || sum_in != sum_out) {
		fprintf(stderr, "bench_codec: read back %zu of %zu records, checksum %s\n", got, n,
			sum_in == sum_out ? "ok" : "WRONG");
		return 1;
	}

	/* the whole loader */
	t0 = now();
	if (trace__load(path, NULL, &t, err, sizeof(err))) {
		fprintf(stderr, "bench_codec: %s\n", err);
		return 1;
	}
	t_load = now() - t0;
	if (t->nsw + t->nwk + t->nsc != n) {
		fprintf(stderr, "bench_codec: trace__load found %zu records\n", t->nsw + t->nwk + t->nsc);
		return 1;
	}
	trace__free(t);
	unlink(path);

	printf("records=%zu zlevel=%d blocks=%zu raw_B_per_rec=%.1f packed_B_per_rec=%.2f file_B_per_rec=%.2f "
	       "encode_s=%.3f encode_rec_per_s=%.3g encode_MB_per_s=%.0f "
	       "write_s=%.3f write_rec_per_s=%.3g write_MB_per_s=%.0f "
	       "read_s=%.3f read_rec_per_s=%.3g read_MB_per_s=%.0f "
	       "load_s=%.3f load_rec_per_s=%.3g load_MB_per_s=%.0f\n",
	       n, zlevel, nblocks, (double)raw_bytes / n, (double)packed / n, (double)file_bytes / n,
	       t_enc, n / t_enc, raw_bytes / t_enc / 1e6,
	       t_write, n / t_write, raw_bytes / t_write / 1e6,
	       t_read, n / t_read, raw_bytes / t_read / 1e6,
	       t_load, n / t_load, raw_bytes / t_load / 1e6);
	free(recs);
	free(block);
	return 0;
}
