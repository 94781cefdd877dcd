// SPDX-License-Identifier: MIT
/*
 * The trace file: key=value and thread table payloads, blocks written and
 * read back (stored and compressed), size limits, and a reader that survives
 * hostile files: cut at every byte, every bit of every header and payload
 * flipped, garbage between blocks, random damage, crafted headers. Also the
 * writer's file handling (mode, existing files, symlinks, write errors).
 */
#include <errno.h>
#include <libdeflate.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "file/codec.h"
#include "lib/log.h"
#include "recgen.h"
#include "testutil.h"
#include "tfutil.h"
#include "file/tracefile.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void quiet(void)
{
	log_level = LOG_QUIET;
}

/* ---- key=value lists ---- */

Test(tracefile, kv_roundtrip)
{
	struct tf_kv kv = { 0 }, back = { 0 };
	char *buf;
	size_t len;

	cr_assert_eq(tf_kv_set(&kv, TF_META_KERNEL, "%s", "6.8.0-45-generic"), 0);
	cr_assert_eq(tf_kv_set(&kv, TF_META_CPUS, "%d", 8), 0);
	cr_assert_eq(tf_kv_set(&kv, TF_META_CMDLINE, "%s", "qostrace record -- sh -c 'a=1; b=2'"), 0);
	cr_assert_eq(tf_kv_set(&kv, "empty", "%s", ""), 0);
	cr_assert_eq(tf_kv_set(&kv, "multi", "%s", "line1\nline2\r\nend"), 0);
	cr_assert_eq(tf_kv_set(&kv, TF_META_CPUS, "%d", 16), 0);	/* replaces */
	for (int i = 0; i < 40; i++)	/* beyond the first capacity */
		cr_assert_eq(tf_kv_set(&kv, i % 2 ? "odd" : "even", "%d", i), 0);
	cr_assert_eq(kv.n, 7);
	cr_expect_str_eq(tf_kv_get(&kv, TF_META_CPUS), "16");
	cr_expect_str_eq(tf_kv_get(&kv, "multi"), "line1 line2  end");
	cr_expect_str_eq(tf_kv_get(&kv, "odd"), "39");
	cr_expect_null(tf_kv_get(&kv, "missing"));

	buf = tf_kv_encode(&kv, &len);
	cr_assert(buf);
	cr_expect_eq(len, strlen("kernel=6.8.0-45-generic\ncpus=16\n") +
		     strlen("cmdline=qostrace record -- sh -c 'a=1; b=2'\nempty=\nmulti=line1 line2  end\n") +
		     strlen("even=38\nodd=39\n"));
	cr_expect_eq(memcmp(buf, "kernel=6.8.0-45-generic\ncpus=16\ncmdline=", 40), 0);
	cr_assert_eq(tf_kv_decode(&back, buf, len), 0);
	cr_assert_eq(back.n, kv.n);
	for (size_t i = 0; i < kv.n; i++) {
		cr_expect_str_eq(back.keys[i], kv.keys[i]);
		cr_expect_str_eq(back.vals[i], kv.vals[i]);
	}
	free(buf);
	tf_kv_free(&kv);
	tf_kv_free(&back);
	cr_expect_eq(kv.n, 0);
	cr_expect_null(kv.keys);

	/* an empty list encodes to nothing and decodes from nothing */
	buf = tf_kv_encode(&kv, &len);
	cr_assert(buf);
	cr_expect_eq(len, 0);
	cr_expect_eq(tf_kv_decode(&back, buf, 0), 0);
	cr_expect_eq(back.n, 0);
	free(buf);
}

Test(tracefile, kv_values_with_equals_signs)
{
	struct tf_kv kv = { 0 };
	const char in[] = "a=b=c\nk=\n=\n";

	/* the first '=' separates; an empty key is malformed */
	cr_expect_eq(tf_kv_decode(&kv, in, strlen("a=b=c\nk=\n")), 0);
	cr_expect_str_eq(tf_kv_get(&kv, "a"), "b=c");
	cr_expect_str_eq(tf_kv_get(&kv, "k"), "");
	tf_kv_free(&kv);
	cr_expect_eq(tf_kv_decode(&kv, in, strlen(in)), -EBADMSG);
	tf_kv_free(&kv);
}

Test(tracefile, kv_get_u64)
{
	struct tf_kv kv = { 0 };
	uint64_t v = 7;

	tf_kv_set(&kv, "zero", "0");
	tf_kv_set(&kv, "max", "18446744073709551615");
	tf_kv_set(&kv, "over", "18446744073709551616");
	tf_kv_set(&kv, "junk", "12abc");
	tf_kv_set(&kv, "empty", "%s", "");
	cr_expect_eq(tf_kv_get_u64(&kv, "zero", &v), 0);
	cr_expect_eq(v, 0);
	cr_expect_eq(tf_kv_get_u64(&kv, "max", &v), 0);
	cr_expect_eq(v, UINT64_MAX);
	cr_expect_eq(tf_kv_get_u64(&kv, "over", &v), -EINVAL);
	cr_expect_eq(tf_kv_get_u64(&kv, "junk", &v), -EINVAL);
	cr_expect_eq(tf_kv_get_u64(&kv, "empty", &v), -ENOENT);
	cr_expect_eq(tf_kv_get_u64(&kv, "missing", &v), -ENOENT);
	tf_kv_free(&kv);
}

Test(tracefile, kv_decode_rejects)
{
	static const char *const bad[] = {
		"novalue\n",		/* no '=' */
		"k=v",			/* no final newline */
		"=v\n",			/* empty key */
		"a=1\nb",		/* a cut line */
		"0123456789012345678901234567890123456789012345678901234567890123=v\n", /* 64-char key */
	};

	for (size_t i = 0; i < N(bad); i++) {
		struct tf_kv kv = { 0 };

		cr_expect_eq(tf_kv_decode(&kv, bad[i], strlen(bad[i])), -EBADMSG, "\"%s\" accepted", bad[i]);
		tf_kv_free(&kv);
	}
	{
		struct tf_kv kv = { 0 };
		const char ok[] = "012345678901234567890123456789012345678901234567890123456789012=v\n";

		cr_expect_eq(tf_kv_decode(&kv, ok, strlen(ok)), 0);	/* 63 chars: the limit */
		cr_expect_str_eq(tf_kv_get(&kv, "012345678901234567890123456789012345678901234567890123456789012"), "v");
		tf_kv_free(&kv);
	}
	{
		/* NUL bytes inside a value end it; nothing is read beyond len */
		struct tf_kv kv = { 0 };
		const char nul[] = { 'k', '=', 'a', 0, 'b', '\n' };

		cr_expect_eq(tf_kv_decode(&kv, nul, sizeof(nul)), 0);
		cr_expect_str_eq(tf_kv_get(&kv, "k"), "a");
		tf_kv_free(&kv);
	}
}

/* ---- thread tables ---- */

static const struct tf_thread sample_threads[] = {
	{ .tid = 1, .tgid = 1, .ppid = 0, .flags = 0, .comm = "systemd" },
	{ .tid = 2, .tgid = 2, .ppid = 0, .flags = TF_THREAD_KTHREAD, .comm = "kthreadd" },
	{ .tid = 4242, .tgid = 4240, .ppid = 4000, .flags = 0, .comm = "gst-worker:src" },
	{ .tid = 4240, .tgid = 4242, .ppid = 1, .flags = 0, .comm = "" },
	{ .tid = UINT32_MAX, .tgid = 0, .ppid = UINT32_MAX, .flags = UINT32_MAX,
	  .comm = { '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f' } },
	{ .tid = 0, .tgid = UINT32_MAX, .ppid = 0, .flags = 0, .comm = "swapper/0" },
};

Test(tracefile, threads_roundtrip)
{
	struct tf_thread *back;
	size_t len, n;
	uint8_t *buf = tf_threads_encode(sample_threads, N(sample_threads), &len);

	cr_assert(buf);
	cr_assert_eq(tf_threads_decode(buf, len, N(sample_threads), &back, &n), 0);
	cr_assert_eq(n, N(sample_threads));
	cr_expect_eq(memcmp(back, sample_threads, sizeof(sample_threads)), 0);
	free(back);
	free(buf);

	/* no threads */
	buf = tf_threads_encode(NULL, 0, &len);
	cr_assert(buf);
	cr_expect_eq(len, 0);
	cr_assert_eq(tf_threads_decode(buf, len, 0, &back, &n), 0);
	cr_expect_eq(n, 0);
	free(back);
	free(buf);
}

Test(tracefile, threads_decode_rejects)
{
	struct tf_thread *back = NULL;
	size_t len, n;
	uint8_t *buf = tf_threads_encode(sample_threads, N(sample_threads), &len);

	/* every prefix (exactly sized copies: ASan sees overreads) */
	for (size_t cut = 0; cut < len; cut++) {
		uint8_t *c = malloc(cut ? cut : 1);

		memcpy(c, buf, cut);
		cr_expect_eq(tf_threads_decode(c, cut, N(sample_threads), &back, &n), -EBADMSG,
			     "prefix %zu/%zu accepted", cut, len);
		free(c);
	}
	/* a count that does not match the entries */
	cr_expect_eq(tf_threads_decode(buf, len, N(sample_threads) - 1, &back, &n), -EBADMSG);
	cr_expect_eq(tf_threads_decode(buf, len, N(sample_threads) + 1, &back, &n), -EBADMSG);
	cr_expect_eq(tf_threads_decode(buf, len, 0, &back, &n), -EBADMSG);
	/* a count too large for the bytes is refused before allocating */
	cr_expect_eq(tf_threads_decode(buf, len, UINT32_MAX, &back, &n), -EBADMSG);
	free(buf);

	{
		static const uint8_t long_comm[] = { 1, 0, 0, 0, 17, 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a',
						     'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a' };
		static const uint8_t big_tid[] = { 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0, 0 };
		static const uint8_t neg_tgid[] = { 1, 5, 0, 0, 0 };	/* tgid = 1 - 3 */
		static const uint8_t big_ppid[] = { 1, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0 };
		static const uint8_t big_flags[] = { 1, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 0 };
		static const uint8_t ok[] = { 1, 0, 0, 0, 0 };

		cr_expect_eq(tf_threads_decode(long_comm, sizeof(long_comm), 1, &back, &n), -EBADMSG);
		cr_expect_eq(tf_threads_decode(big_tid, sizeof(big_tid), 1, &back, &n), -EBADMSG);
		cr_expect_eq(tf_threads_decode(neg_tgid, sizeof(neg_tgid), 1, &back, &n), -EBADMSG);
		cr_expect_eq(tf_threads_decode(big_ppid, sizeof(big_ppid), 1, &back, &n), -EBADMSG);
		cr_expect_eq(tf_threads_decode(big_flags, sizeof(big_flags), 1, &back, &n), -EBADMSG);
		cr_assert_eq(tf_threads_decode(ok, sizeof(ok), 1, &back, &n), 0);
		cr_expect_eq(back[0].tid, 1);
		cr_expect_eq(back[0].tgid, 1);
		free(back);
	}
}

/* ---- a small sample file ---- */

struct want_block {
	enum tf_block_type type;
	uint32_t count;
	uint64_t base_ts;
	uint8_t *data;
	size_t len;
};

struct sample {
	char *dir;
	char path[256];
	struct want_block b[8];
	size_t n;
	off_t start[8], end[8];
	uint8_t *bytes;
	size_t size;
};

static void add_block(struct sample *s, struct tf_writer *w, enum tf_block_type type, uint8_t *data,
		      size_t len, uint32_t count, uint64_t base_ts)
{
	cr_assert_eq(tf_writer__append(w, type, data, len, count, base_ts), 0);
	s->b[s->n++] = (struct want_block){ type, count, base_ts, data, len };
}

/* META, THREADS, four EVENTS blocks (one empty), END: about 1 kB. */
static void make_sample(struct sample *s, int zlevel)
{
	static const int nrec[] = { 6, 1, 0, 16 };
	unsigned long long seed = 1234;
	struct tf_writer *w;
	struct tf_kv kv = { 0 };
	struct tfu_file f;
	size_t len;
	uint8_t *p;

	memset(s, 0, sizeof(*s));
	s->dir = tu_tmpdir();
	snprintf(s->path, sizeof(s->path), "%s/sample.qtrace", s->dir);
	cr_assert_eq(tf_writer__create(s->path, false, zlevel, &w), 0);
	tf_kv_set(&kv, TF_META_CPUS, "4");
	tf_kv_set(&kv, TF_META_START, "1000");
	p = (uint8_t *)tf_kv_encode(&kv, &len);
	add_block(s, w, TF_BLK_META, p, len, kv.n, 1000);
	tf_kv_free(&kv);
	p = tf_threads_encode(sample_threads, N(sample_threads), &len);
	add_block(s, w, TF_BLK_THREADS, p, len, N(sample_threads), 1001);
	for (size_t k = 0; k < N(nrec); k++) {
		union qt_record r[16];

		for (int i = 0; i < nrec[k]; i++)
			rg_record(&seed, &r[i], 0, true);
		p = malloc(nrec[k] * CODEC_MAX_REC + 1);
		len = rg_encode_block(r, nrec[k], 5000 + k, p);
		add_block(s, w, TF_BLK_EVENTS, p, len, nrec[k], 5000 + k);
	}
	tf_kv_set(&kv, TF_END_STOP, "9000");
	tf_kv_set(&kv, TF_END_LOST, "0");
	p = (uint8_t *)tf_kv_encode(&kv, &len);
	add_block(s, w, TF_BLK_END, p, len, kv.n, 9000);
	tf_kv_free(&kv);
	len = tf_writer__bytes(w);
	cr_assert_eq(tf_writer__close(w), 0);

	s->bytes = tfu_slurp(s->path, &s->size);
	cr_assert_eq(s->size, len, "tf_writer__bytes %zu, file %zu", len, s->size);
	tfu_read(s->path, &f);
	cr_assert_eq(f.err, 0, "%s", f.msg);
	cr_assert_eq(f.n, s->n);
	for (size_t i = 0; i < s->n; i++) {
		s->start[i] = f.b[i].offset;
		s->end[i] = i + 1 < s->n ? f.b[i + 1].offset : (off_t)s->size;
	}
	tfu_free(&f);
	/* blocks follow each other without holes */
	cr_assert_eq(s->start[0], TF_FILE_HDR_SIZE);
	for (size_t i = 1; i < s->n; i++)
		cr_assert_gt(s->start[i], s->start[i - 1] + TFU_HDR - 1);
}

static void free_sample(struct sample *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->b[i].data);
	free(s->bytes);
	tu_rmdir(s->dir);
	free(s->dir);
}

/* Block k of the reader's output is block `want` of the sample. */
static void expect_block(const struct sample *s, const struct tfu_block *got, size_t want)
{
	const struct want_block *w = &s->b[want];

	cr_assert_eq(got->type, w->type, "block %zu: type %d", want, got->type);
	cr_assert_eq(got->count, w->count);
	cr_assert_eq(got->base_ts, w->base_ts);
	cr_assert_eq(got->seq, want);
	cr_assert_eq(got->offset, s->start[want]);
	cr_assert_eq(got->len, w->len, "block %zu: %zu bytes, want %zu", want, got->len, w->len);
	cr_assert_eq(memcmp(got->data, w->data, w->len), 0, "block %zu: payload differs", want);
}

static void check_intact(int zlevel)
{
	struct sample s;
	struct tfu_file f;
	struct tf_kv kv = { 0 };
	struct tf_thread *th;
	int ncompressed = 0;
	size_t n;

	make_sample(&s, zlevel);
	tfu_read(s.path, &f);
	cr_assert_eq(f.err, 0);
	cr_assert_eq(f.n, s.n);
	for (size_t i = 0; i < s.n; i++)
		expect_block(&s, &f.b[i], i);
	cr_expect_eq(f.damage.corrupt_blocks, 0);
	cr_expect_eq(f.damage.resyncs, 0);
	cr_expect_eq(f.damage.bytes_skipped, 0);
	cr_expect_not(f.damage.truncated);
	cr_expect_eq(f.damage.first_problem_at, -1);
	/* the payloads decode */
	cr_assert_eq(tf_kv_decode(&kv, (char *)f.b[0].data, f.b[0].len), 0);
	cr_expect_str_eq(tf_kv_get(&kv, TF_META_START), "1000");
	tf_kv_free(&kv);
	cr_assert_eq(tf_threads_decode(f.b[1].data, f.b[1].len, f.b[1].count, &th, &n), 0);
	cr_assert_eq(n, N(sample_threads));
	cr_expect_eq(memcmp(th, sample_threads, sizeof(sample_threads)), 0);
	free(th);
	cr_assert_eq(tf_kv_decode(&kv, (char *)f.b[6].data, f.b[6].len), 0);
	cr_expect_str_eq(tf_kv_get(&kv, TF_END_STOP), "9000");
	tf_kv_free(&kv);
	/*
	 * The stored form: compressed when asked and when that makes it
	 * smaller, as a zlib stream that zlib itself (not the library that
	 * wrote it) decompresses to the block.
	 */
	for (size_t i = 0; i < s.n; i++) {
		struct libdeflate_compressor *c = libdeflate_alloc_compressor(zlevel ? zlevel : 1);
		uint8_t z[4096], back[4096];
		size_t zlen;
		uLongf blen = sizeof(back);
		uint16_t flags;
		uint32_t len;
		bool smaller;

		cr_assert(c);
		memcpy(&flags, s.bytes + s.start[i] + 6, 2);
		memcpy(&len, s.bytes + s.start[i] + 8, 4);
		zlen = libdeflate_zlib_compress(c, s.b[i].data, s.b[i].len, z, sizeof(z));
		libdeflate_free_compressor(c);
		cr_assert(zlen > 0);
		smaller = zlevel && s.b[i].len && zlen < s.b[i].len;
		cr_expect_eq(le16toh(flags), smaller ? TF_BLK_COMPRESSED : 0, "block %zu", i);
		cr_expect_eq(le32toh(len), smaller ? zlen : s.b[i].len, "block %zu", i);
		cr_expect_eq(s.end[i] - s.start[i], TFU_HDR + (off_t)le32toh(len));
		if (smaller) {
			cr_assert_eq(uncompress(back, &blen, s.bytes + s.start[i] + TFU_HDR, le32toh(len)), Z_OK,
				     "block %zu", i);
			cr_expect(blen == s.b[i].len && !memcmp(back, s.b[i].data, blen), "block %zu", i);
		}
		ncompressed += smaller;
	}
	cr_expect(!zlevel || ncompressed >= 2, "%d blocks compressed", ncompressed);
	tfu_free(&f);
	free_sample(&s);
}

Test(tracefile, blocks_roundtrip_stored)
{
	check_intact(0);
}

Test(tracefile, blocks_roundtrip_compressed)
{
	check_intact(1);
	check_intact(9);
}

Test(tracefile, reader_accessors)
{
	struct sample s;
	struct tf_reader *r;
	char err[256];

	make_sample(&s, 1);
	cr_assert_eq(tf_reader__open(s.path, &r, err, sizeof(err)), 0);
	cr_expect_eq(tf_reader__size(r), (off_t)s.size);
	cr_expect_str_eq(tf_reader__path(r), s.path);
	tf_reader__close(r);
	tf_reader__close(NULL);
	free_sample(&s);
}

/* ---- size limits ---- */

static void check_big_block(int zlevel, size_t len)
{
	char *dir = tu_tmpdir(), path[256];
	uint8_t *p = malloc(len);
	unsigned long long seed = 5;
	struct tf_writer *w;
	struct tfu_file f;

	quiet();
	snprintf(path, sizeof(path), "%s/big", dir);
	/* random bytes: zlib makes them bigger, not smaller */
	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = rg_rand(&seed);

		memcpy(p + i, &v, len - i < 8 ? len - i : 8);
	}
	cr_assert_eq(tf_writer__create(path, false, zlevel, &w), 0);
	cr_assert_eq(tf_writer__append(w, TF_BLK_EVENTS, p, len, 1, 7), 0);
	cr_assert_eq(tf_writer__append(w, TF_BLK_END, "a=b\n", 4, 1, 8), 0);
	cr_assert_eq(tf_writer__close(w), 0);
	tfu_read(path, &f);
	cr_assert_eq(f.err, 0);
	cr_assert_eq(f.n, 2, "%zu blocks read back", f.n);
	cr_assert_eq(f.b[0].len, len);
	cr_assert_eq(memcmp(f.b[0].data, p, len), 0);
	cr_expect_eq(f.b[1].len, 4);
	cr_expect_eq(f.damage.resyncs + f.damage.corrupt_blocks, 0);
	tfu_free(&f);
	free(p);
	tu_rmdir(dir);
	free(dir);
}

Test(tracefile, max_payload_stored, .timeout = 120)
{
	check_big_block(0, TF_MAX_PAYLOAD);
}

/* An incompressible payload of the maximum size is still a readable block. */
Test(tracefile, max_payload_compressed, .timeout = 120)
{
	check_big_block(1, TF_MAX_PAYLOAD);
}

Test(tracefile, over_max_payload_refused)
{
	char *dir = tu_tmpdir(), path[256];
	struct tf_writer *w;
	struct tfu_file f;
	uint8_t one = 1;

	snprintf(path, sizeof(path), "%s/over", dir);
	cr_assert_eq(tf_writer__create(path, false, 1, &w), 0);
	/* refused before anything is read from the (here too small) buffer */
	cr_expect_eq(tf_writer__append(w, TF_BLK_EVENTS, &one, (size_t)TF_MAX_PAYLOAD + 1, 1, 0), -E2BIG);
	cr_expect_eq(tf_writer__append(w, TF_BLK_EVENTS, &one, SIZE_MAX, 1, 0), -E2BIG);
	/* not a write error: the writer goes on */
	cr_expect_eq(tf_writer__append(w, TF_BLK_EVENTS, &one, 1, 1, 0), 0);
	cr_expect_eq(tf_writer__close(w), 0);
	tfu_read(path, &f);
	cr_expect_eq(f.n, 1);
	cr_expect_eq(f.b[0].seq, 0);
	tfu_free(&f);
	tu_rmdir(dir);
	free(dir);
}

/* ---- damage ---- */

static void check_cuts(int zlevel)
{
	struct sample s;
	char path[300];

	quiet();
	make_sample(&s, zlevel);
	snprintf(path, sizeof(path), "%s/cut", s.dir);
	for (size_t cut = 0; cut <= s.size; cut++) {
		struct tfu_file f;
		size_t whole = 0;
		bool boundary = cut == TF_FILE_HDR_SIZE;

		tfu_write(path, s.bytes, cut);
		tfu_read(path, &f);
		if (cut < TF_FILE_HDR_SIZE) {
			cr_assert_eq(f.err, -EBADMSG, "cut %zu: %d", cut, f.err);
			cr_assert(strstr(f.msg, path), "cut %zu: \"%s\"", cut, f.msg);
			cr_assert(strstr(f.msg, cut ? "too short" : "empty"), "cut %zu: \"%s\"", cut, f.msg);
			continue;
		}
		while (whole < s.n && s.end[whole] <= (off_t)cut)
			whole++;
		for (size_t i = 0; i < s.n; i++)
			boundary |= s.end[i] == (off_t)cut;
		cr_assert_eq(f.err, 0, "cut %zu: %d", cut, f.err);
		cr_assert_eq(f.n, whole, "cut %zu: %zu blocks, want %zu", cut, f.n, whole);
		for (size_t i = 0; i < f.n; i++)
			expect_block(&s, &f.b[i], i);
		cr_assert_eq(f.damage.truncated, !boundary, "cut %zu", cut);
		if (!boundary) {
			cr_assert_eq(f.damage.truncated_at, s.start[whole], "cut %zu: at %lld", cut,
				     (long long)f.damage.truncated_at);
			cr_assert_eq(f.damage.first_problem_at, s.start[whole]);
		}
		cr_assert_eq(f.damage.corrupt_blocks, 0);
		cr_assert_eq(f.damage.resyncs, 0);
		tfu_free(&f);
	}
	free_sample(&s);
}

Test(tracefile, cut_at_every_byte_stored)
{
	check_cuts(0);
}

Test(tracefile, cut_at_every_byte_compressed)
{
	check_cuts(1);
}

/* Every bit: the damaged block is skipped, every other block is read. */
static void check_bitflips(int zlevel)
{
	struct sample s;
	char path[300];
	uint8_t *copy;

	quiet();
	make_sample(&s, zlevel);
	snprintf(path, sizeof(path), "%s/flip", s.dir);
	copy = malloc(s.size);
	for (size_t pos = TF_FILE_HDR_SIZE; pos < s.size; pos++) {
		size_t k = 0;

		while (s.end[k] <= (off_t)pos)
			k++;
		for (int bit = 0; bit < 8; bit++) {
			bool in_hdr = (off_t)pos < s.start[k] + TFU_HDR;
			struct tfu_file f;

			memcpy(copy, s.bytes, s.size);
			copy[pos] ^= 1u << bit;
			tfu_write(path, copy, s.size);
			tfu_read(path, &f);
			cr_assert_eq(f.err, 0);
			cr_assert_eq(f.n, s.n - 1, "byte %zu bit %d (block %zu): %zu blocks", pos, bit, k, f.n);
			for (size_t i = 0; i < f.n; i++)
				expect_block(&s, &f.b[i], i < k ? i : i + 1);
			cr_assert_eq(f.damage.first_problem_at, s.start[k]);
			cr_assert_not(f.damage.truncated);
			if (in_hdr) {
				cr_assert_eq(f.damage.resyncs, 1, "byte %zu bit %d", pos, bit);
				cr_assert_eq(f.damage.corrupt_blocks, 0);
				cr_assert_eq(f.damage.bytes_skipped, s.end[k] - s.start[k]);
			} else {
				cr_assert_eq(f.damage.resyncs, 0);
				cr_assert_eq(f.damage.corrupt_blocks, 1, "byte %zu bit %d", pos, bit);
				cr_assert_eq(f.damage.bytes_skipped, 0);
			}
			tfu_free(&f);
		}
	}
	free(copy);
	free_sample(&s);
}

Test(tracefile, bitflip_everywhere_stored)
{
	check_bitflips(0);
}

Test(tracefile, bitflip_everywhere_compressed)
{
	check_bitflips(1);
}

/* The 16-byte file header: magic, version and size are checked, the reserved bytes not. */
Test(tracefile, file_header_bitflips)
{
	struct sample s;
	char path[300];

	quiet();
	make_sample(&s, 1);
	snprintf(path, sizeof(path), "%s/flip", s.dir);
	for (size_t pos = 0; pos < TF_FILE_HDR_SIZE; pos++) {
		for (int bit = 0; bit < 8; bit++) {
			struct tfu_file f;

			s.bytes[pos] ^= 1u << bit;
			tfu_write(path, s.bytes, s.size);
			s.bytes[pos] ^= 1u << bit;
			tfu_read(path, &f);
			if (pos < 8) {
				cr_assert_eq(f.err, -EBADMSG);
				cr_assert(strstr(f.msg, "bad magic") && strstr(f.msg, path), "%s", f.msg);
			} else if (pos == 8 && (TF_VERSION ^ (1u << bit)) >= TF_VERSION_OLDEST &&
				   (TF_VERSION ^ (1u << bit)) <= TF_VERSION) {
				/* another version this reader reads (3 -> 1 or 2): nothing says it is wrong */
				cr_assert_eq(f.err, 0, "%s", f.msg);
			} else if (pos < 10) {
				cr_assert_eq(f.err, -EPROTONOSUPPORT);
				cr_assert(strstr(f.msg, "version") && strstr(f.msg, path), "%s", f.msg);
			} else if (pos < 12) {
				cr_assert_eq(f.err, -EBADMSG);
				cr_assert(strstr(f.msg, "header size") && strstr(f.msg, path), "%s", f.msg);
			} else {
				cr_assert_eq(f.err, 0);
				cr_assert_eq(f.n, s.n);
			}
			tfu_free(&f);
		}
	}
	free_sample(&s);
}

/* Garbage inserted between blocks is skipped by resynchronising, byte for byte. */
Test(tracefile, garbage_between_blocks)
{
	struct sample s;
	char path[300];
	unsigned long long seed = 31;

	quiet();
	make_sample(&s, 1);
	snprintf(path, sizeof(path), "%s/garbage", s.dir);
	for (size_t k = 1; k < s.n; k++) {
		for (size_t glen = 1; glen < 200; glen += 37) {
			uint8_t *buf = malloc(s.size + glen);
			struct tfu_file f;

			memcpy(buf, s.bytes, s.start[k]);
			for (size_t i = 0; i < glen; i++)	/* with "QB" pieces to tempt the scanner */
				buf[s.start[k] + i] = i % 5 == 0 ? 'Q' : i % 5 == 1 ? 'B' : (uint8_t)rg_rand(&seed);
			memcpy(buf + s.start[k] + glen, s.bytes + s.start[k], s.size - s.start[k]);
			tfu_write(path, buf, s.size + glen);
			tfu_read(path, &f);
			cr_assert_eq(f.n, s.n, "garbage of %zu bytes before block %zu", glen, k);
			for (size_t i = 0; i < k; i++)
				expect_block(&s, &f.b[i], i);
			cr_assert_eq(f.damage.resyncs, 1);
			cr_assert_eq(f.damage.bytes_skipped, glen);
			cr_assert_eq(f.damage.first_problem_at, s.start[k]);
			tfu_free(&f);
			free(buf);
		}
	}
	free_sample(&s);
}

/* Garbage at the end (a crash that left zeros, say) is damage, not silence. */
Test(tracefile, garbage_at_the_end)
{
	struct sample s;
	char path[300];
	uint8_t *buf;
	struct tfu_file f;

	quiet();
	make_sample(&s, 1);
	snprintf(path, sizeof(path), "%s/tail", s.dir);
	buf = calloc(1, s.size + 4096);
	memcpy(buf, s.bytes, s.size);
	tfu_write(path, buf, s.size + 4096);
	tfu_read(path, &f);
	cr_assert_eq(f.err, 0);
	cr_assert_eq(f.n, s.n);
	cr_expect_eq(f.damage.bytes_skipped, 4096);
	cr_expect_eq(f.damage.first_problem_at, (off_t)s.size);
	cr_expect(f.damage.resyncs || f.damage.corrupt_blocks || f.damage.truncated,
		  "4096 bytes skipped but the damage counters say nothing");
	tfu_free(&f);
	free(buf);
	free_sample(&s);
}

/* Many random corruptions: the reader ends, and returns only blocks that were written. */
Test(tracefile, random_damage)
{
	struct sample s;
	char path[300];
	unsigned long long seed = 0xfeed;

	quiet();
	make_sample(&s, 1);
	snprintf(path, sizeof(path), "%s/fuzz", s.dir);
	for (int it = 0; it < 3000; it++) {
		size_t size = s.size;
		uint8_t *buf = malloc(s.size * 2);
		struct tfu_file f;
		int nflip = rg_rand(&seed) % 6;

		memcpy(buf, s.bytes, s.size);
		for (int k = 0; k < nflip && size > TF_FILE_HDR_SIZE; k++) {
			size_t pos = TF_FILE_HDR_SIZE + rg_rand(&seed) % (size - TF_FILE_HDR_SIZE);

			switch (rg_rand(&seed) % 4) {
			case 0: buf[pos] ^= 1u << (rg_rand(&seed) % 8); break;
			case 1: buf[pos] = rg_rand(&seed); break;
			case 2: size = pos; break;	/* cut */
			case 3:	/* a copy of some bytes inserted elsewhere: repeated headers */
				if (size + 64 <= s.size * 2) {
					size_t from = TF_FILE_HDR_SIZE + rg_rand(&seed) % (size - TF_FILE_HDR_SIZE);
					size_t n = (size - from) < 64 ? size - from : 64;
					uint8_t piece[64];

					memcpy(piece, buf + from, n);
					memmove(buf + pos + n, buf + pos, size - pos);
					memcpy(buf + pos, piece, n);
					size += n;
				}
				break;
			}
		}
		tfu_write(path, buf, size);
		tfu_read(path, &f);
		cr_assert_eq(f.err, 0);
		for (size_t i = 0; i < f.n; i++) {
			uint64_t q = f.b[i].seq;

			cr_assert_lt(q, s.n, "iteration %d: block with seq %llu", it, (unsigned long long)q);
			cr_assert_eq(f.b[i].len, s.b[q].len);
			cr_assert_eq(memcmp(f.b[i].data, s.b[q].data, s.b[q].len), 0,
				     "iteration %d: block %llu differs", it, (unsigned long long)q);
		}
		cr_assert_leq(f.damage.bytes_skipped, size);
		tfu_free(&f);
		free(buf);
	}
	free_sample(&s);
}

/* Headers with a valid CRC but impossible contents (a hostile file). */
Test(tracefile, crafted_blocks)
{
	char *dir = tu_tmpdir(), path[256];
	uint8_t *buf = calloc(1, 1 << 20), z[256];
	const char text[] = "key=value\n";
	uLongf zlen = sizeof(z);
	size_t at;
	struct tfu_file f;

	quiet();
	snprintf(path, sizeof(path), "%s/crafted", dir);
	compress2(z, &zlen, (const Bytef *)text, strlen(text), 6);
	tfu_file_hdr(buf);
	at = TF_FILE_HDR_SIZE;
	/* 0: stored, raw_len != len */
	at += tfu_craft(buf + at, TF_BLK_META, 0, text, strlen(text), 3, 1, 0, 0);
	/* 1: compressed, raw_len too small */
	at += tfu_craft(buf + at, TF_BLK_META, TF_BLK_COMPRESSED, z, zlen, 4, 1, 0, 1);
	/* 2: compressed, raw_len too large */
	at += tfu_craft(buf + at, TF_BLK_META, TF_BLK_COMPRESSED, z, zlen, 400, 1, 0, 2);
	/* 3: compressed flag on data that is not zlib */
	at += tfu_craft(buf + at, TF_BLK_META, TF_BLK_COMPRESSED, text, strlen(text), 100, 1, 0, 3);
	/* 4: an unknown block type (header refused: resync) */
	at += tfu_craft(buf + at, 9, 0, text, strlen(text), strlen(text), 1, 0, 4);
	/* 5: a payload larger than the limit (header refused) */
	at += tfu_craft(buf + at, TF_BLK_EVENTS, 0, "", 0, 0, 0, 0, 5);
	{
		uint32_t big = htole32(TF_MAX_PAYLOAD + 1);

		memcpy(buf + at - TFU_HDR + 12, &big, 4);	/* raw_len */
		big = htole32((uint32_t)crc32(0, buf + at - TFU_HDR, 44));
		memcpy(buf + at - TFU_HDR + 44, &big, 4);
	}
	/* 6: a good block */
	at += tfu_craft(buf + at, TF_BLK_META, TF_BLK_COMPRESSED, z, zlen, strlen(text), 1, 42, 6);
	/* 7: a good header promising 60 MB the file does not have */
	at += tfu_craft(buf + at, TF_BLK_EVENTS, 0, "", 0, 0, 0, 0, 7);
	{
		uint32_t big = htole32(60u << 20);

		memcpy(buf + at - TFU_HDR + 8, &big, 4);
		memcpy(buf + at - TFU_HDR + 12, &big, 4);
		big = htole32((uint32_t)crc32(0, buf + at - TFU_HDR, 44));
		memcpy(buf + at - TFU_HDR + 44, &big, 4);
	}
	tfu_write(path, buf, at + 100);
	tfu_read(path, &f);
	cr_assert_eq(f.err, 0);
	cr_assert_eq(f.n, 1);
	cr_expect_eq(f.b[0].seq, 6);
	cr_expect_eq(f.b[0].base_ts, 42);
	cr_expect_eq(f.b[0].len, strlen(text));
	cr_expect_eq(f.damage.corrupt_blocks, 4);
	cr_expect_eq(f.damage.resyncs, 1);	/* blocks 4 and 5 in one scan */
	cr_expect(f.damage.truncated);
	cr_expect_eq(f.damage.first_problem_at, TF_FILE_HDR_SIZE);
	tfu_free(&f);
	free(buf);
	tu_rmdir(dir);
	free(dir);
}

/*
 * A zlib stream whose deflate data is whole but whose Adler-32 trailer is
 * wrong (the block's CRC made to match): the decompressor checks the
 * stream's own checksum too, and the block is skipped, the next one read.
 */
Test(tracefile, zlib_trailer_checked)
{
	char *dir = tu_tmpdir(), path[256];
	uint8_t *buf = calloc(1, 1 << 16), z[256];
	const char text[] = "key=value\n";
	uLongf zlen = sizeof(z);
	size_t at = TF_FILE_HDR_SIZE;
	struct tfu_file f;

	quiet();
	snprintf(path, sizeof(path), "%s/adler", dir);
	compress2(z, &zlen, (const Bytef *)text, strlen(text), 6);
	tfu_file_hdr(buf);
	z[zlen - 1] ^= 0x01;
	at += tfu_craft(buf + at, TF_BLK_META, TF_BLK_COMPRESSED, z, zlen, strlen(text), 1, 0, 0);
	z[zlen - 1] ^= 0x01;
	at += tfu_craft(buf + at, TF_BLK_META, TF_BLK_COMPRESSED, z, zlen, strlen(text), 1, 7, 1);
	tfu_write(path, buf, at);
	tfu_read(path, &f);
	cr_assert_eq(f.err, 0);
	cr_assert_eq(f.n, 1);
	cr_expect_eq(f.b[0].seq, 1);
	cr_expect_eq(f.b[0].len, strlen(text));
	cr_expect(!memcmp(f.b[0].data, text, strlen(text)));
	cr_expect_eq(f.damage.corrupt_blocks, 1);
	tfu_free(&f);
	free(buf);
	tu_rmdir(dir);
	free(dir);
}

/* Sequence numbers: gaps and repeats are said, the blocks still read. */
Test(tracefile, sequence_gaps_warned)
{
	struct sample s;
	char path[300], *out;
	struct tfu_capture cap;
	struct tfu_file f;
	uint8_t *buf;
	size_t len;

	log_level = LOG_NORMAL;
	make_sample(&s, 1);
	snprintf(path, sizeof(path), "%s/gap", s.dir);
	/* block 3 cut out cleanly: no damage, but seq jumps from 2 to 4 */
	buf = malloc(s.size * 2);
	memcpy(buf, s.bytes, s.start[3]);
	memcpy(buf + s.start[3], s.bytes + s.end[3], s.size - s.end[3]);
	len = s.size - (s.end[3] - s.start[3]);
	tfu_write(path, buf, len);
	tfu_capture_start(&cap);
	tfu_read(path, &f);
	out = tfu_capture_end(&cap);
	cr_assert_eq(f.n, s.n - 1);
	cr_expect_eq(f.b[3].seq, 4);
	cr_expect_eq(f.damage.first_problem_at, -1);
	cr_expect(strstr(out, "sequence 4, expected 3: blocks are missing") && strstr(out, path),
		  "warning: \"%s\"", out);
	free(out);
	tfu_free(&f);

	/* block 2 twice */
	memcpy(buf, s.bytes, s.end[2]);
	memcpy(buf + s.end[2], s.bytes + s.start[2], s.size - s.start[2]);
	len = s.size + (s.end[2] - s.start[2]);
	tfu_write(path, buf, len);
	tfu_capture_start(&cap);
	tfu_read(path, &f);
	out = tfu_capture_end(&cap);
	cr_assert_eq(f.n, s.n + 1);
	cr_expect(strstr(out, "sequence 2, expected 3: blocks are repeated"), "warning: \"%s\"", out);
	free(out);
	tfu_free(&f);

	/* the intact file says nothing */
	tfu_capture_start(&cap);
	tfu_read(s.path, &f);
	out = tfu_capture_end(&cap);
	cr_expect_str_eq(out, "");
	free(out);
	tfu_free(&f);
	free(buf);
	free_sample(&s);
}

/* ---- opening ---- */

static void expect_open_error(const char *path, int err, const char *what)
{
	struct tf_reader *r = NULL;
	char msg[512] = "";

	cr_expect_eq(tf_reader__open(path, &r, msg, sizeof(msg)), err, "%s", path);
	cr_expect_null(r);
	cr_expect(strstr(msg, path), "message \"%s\" does not name the file", msg);
	cr_expect(strstr(msg, what), "message \"%s\" does not say \"%s\"", msg, what);
}

Test(tracefile, open_errors)
{
	char *dir = tu_tmpdir(), path[256];
	uint8_t hdr[64] = { 0 };

	snprintf(path, sizeof(path), "%s/missing", dir);
	expect_open_error(path, -ENOENT, "No such file");
	expect_open_error(dir, -EINVAL, "not a regular file");
	snprintf(path, sizeof(path), "%s/empty", dir);
	tfu_write(path, "", 0);
	expect_open_error(path, -EBADMSG, "empty");
	snprintf(path, sizeof(path), "%s/short", dir);
	tfu_write(path, TF_MAGIC, 8);
	expect_open_error(path, -EBADMSG, "too short (8 bytes)");
	snprintf(path, sizeof(path), "%s/text", dir);
	tfu_write(path, "#!/bin/sh\necho hello world\n", 27);
	expect_open_error(path, -EBADMSG, "not a qostrace trace file");
	snprintf(path, sizeof(path), "%s/v4", dir);
	tfu_file_hdr(hdr);
	hdr[8] = 4;
	tfu_write(path, hdr, TF_FILE_HDR_SIZE);
	expect_open_error(path, -EPROTONOSUPPORT, "version 4, this qostrace reads versions 1 to 3 (a newer");
	snprintf(path, sizeof(path), "%s/v0", dir);
	tfu_file_hdr(hdr);
	hdr[8] = 0;
	tfu_write(path, hdr, TF_FILE_HDR_SIZE);
	expect_open_error(path, -EPROTONOSUPPORT, "version 0, this qostrace reads versions 1 to 3");
	snprintf(path, sizeof(path), "%s/hsize", dir);
	tfu_file_hdr(hdr);
	hdr[10] = 32;
	tfu_write(path, hdr, 64);
	expect_open_error(path, -EBADMSG, "header size 32");
	snprintf(path, sizeof(path), "%s/noperm", dir);
	tfu_write(path, hdr, 16);
	chmod(path, 0);
	if (geteuid() != 0)	/* root reads anything */
		expect_open_error(path, -EACCES, "Permission denied");
	/* only the header: a valid file without blocks */
	{
		struct tfu_file f;

		snprintf(path, sizeof(path), "%s/hdronly", dir);
		tfu_file_hdr(hdr);
		tfu_write(path, hdr, TF_FILE_HDR_SIZE);
		tfu_read(path, &f);
		cr_expect_eq(f.err, 0);
		cr_expect_eq(f.n, 0);
		cr_expect_not(f.damage.truncated);
		tfu_free(&f);
	}
	/* every version from the oldest on is read, and says which it is */
	for (unsigned int v = TF_VERSION_OLDEST; v <= TF_VERSION; v++) {
		struct tf_reader *r = NULL;
		char msg[256] = "";

		snprintf(path, sizeof(path), "%s/v%u", dir, v);
		tfu_file_hdr(hdr);
		hdr[8] = v;
		tfu_write(path, hdr, TF_FILE_HDR_SIZE);
		cr_expect_eq(tf_reader__open(path, &r, msg, sizeof(msg)), 0, "version %u: %s", v, msg);
		if (r)
			cr_expect_eq(tf_reader__version(r), v);
		tf_reader__close(r);
	}
	tu_rmdir(dir);
	free(dir);
}

/* A FIFO is refused at once; opening it for reading must not wait for a writer. */
Test(tracefile, open_fifo_does_not_hang, .timeout = 10)
{
	char *dir = tu_tmpdir(), path[256];

	snprintf(path, sizeof(path), "%s/fifo", dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	expect_open_error(path, -EINVAL, "not a regular file");
	tu_rmdir(dir);
	free(dir);
}

/* ---- the writer's file ---- */

static void write_one(const char *path, bool force, int want)
{
	struct tf_writer *w = NULL;

	cr_assert_eq(tf_writer__create(path, force, 1, &w), want, "%s force=%d", path, force);
	if (!want) {
		cr_assert_eq(tf_writer__append(w, TF_BLK_END, "x=1\n", 4, 1, 0), 0);
		cr_assert_eq(tf_writer__close(w), 0);
	}
}

Test(tracefile, writer_mode_0600)
{
	char *dir = tu_tmpdir(), path[256];
	struct stat st;
	mode_t old = umask(0);

	snprintf(path, sizeof(path), "%s/t.qtrace", dir);
	write_one(path, false, 0);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0600, "mode %o", st.st_mode & 07777);
	umask(old);
	tu_rmdir(dir);
	free(dir);
}

Test(tracefile, writer_existing_files)
{
	char *dir = tu_tmpdir(), path[256], sub[256], link[256], target[256];
	struct stat st;
	size_t len;
	uint8_t *b;

	snprintf(path, sizeof(path), "%s/t.qtrace", dir);
	tfu_write(path, "precious", 8);
	chmod(path, 0644);
	write_one(path, false, -EEXIST);
	b = tfu_slurp(path, &len);
	cr_expect_eq(len, 8, "the existing file was touched");
	free(b);
	/* replaced with force, and 0600 whatever the old mode was */
	write_one(path, true, 0);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0600);
	b = tfu_slurp(path, &len);
	cr_expect_eq(memcmp(b, TF_MAGIC, 8), 0);
	free(b);

	/* symlinks: refused with and without force, the target untouched */
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	tfu_write(target, "keep", 4);
	cr_assert_eq(symlink(target, link), 0);
	write_one(link, false, -ELOOP);
	write_one(link, true, -ELOOP);
	b = tfu_slurp(target, &len);
	cr_expect(len == 4 && !memcmp(b, "keep", 4));
	free(b);
	cr_assert_eq(lstat(link, &st), 0);
	cr_expect(S_ISLNK(st.st_mode));
	/* a dangling symlink would be created through: refused too */
	snprintf(link, sizeof(link), "%s/dangling", dir);
	snprintf(target, sizeof(target), "%s/nowhere", dir);
	cr_assert_eq(symlink(target, link), 0);
	write_one(link, true, -ELOOP);
	cr_expect_neq(access(target, F_OK), 0);

	/* a directory */
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	cr_assert_eq(mkdir(sub, 0700), 0);
	write_one(sub, false, -EEXIST);
	write_one(sub, true, -EINVAL);
	cr_assert_eq(stat(sub, &st), 0);
	cr_expect(S_ISDIR(st.st_mode));
	/* no such directory */
	snprintf(sub, sizeof(sub), "%s/no/such/dir", dir);
	write_one(sub, false, -ENOENT);
	tu_rmdir(dir);
	free(dir);
}

/*
 * A write error (here EFBIG from RLIMIT_FSIZE, deterministic) cuts the block
 * it happened in: the file ends on a whole block and the error sticks.
 */
Test(tracefile, write_error_leaves_whole_blocks)
{
	char *dir = tu_tmpdir(), path[256];
	struct rlimit rl = { .rlim_cur = 1000, .rlim_max = RLIM_INFINITY };
	struct tf_writer *w;
	struct tfu_file f;
	uint8_t payload[300];
	struct stat st;
	int err = 0, k;

	quiet();
	signal(SIGXFSZ, SIG_IGN);
	memset(payload, 'p', sizeof(payload));
	snprintf(path, sizeof(path), "%s/full", dir);
	cr_assert_eq(tf_writer__create(path, false, 0, &w), 0);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	for (k = 0; k < 10 && !err; k++)
		err = tf_writer__append(w, TF_BLK_EVENTS, payload, sizeof(payload), 1, k);
	cr_expect_eq(err, -EFBIG);
	/* 16 + 2 * (48 + 300) = 712 fit, the third block does not */
	cr_expect_eq(k, 3);
	cr_expect_eq(tf_writer__bytes(w), 712);
	cr_expect_eq(tf_writer__append(w, TF_BLK_END, "a=1\n", 4, 1, 0), -EFBIG, "the error sticks");
	cr_expect_eq(tf_writer__close(w), -EFBIG);
	rl.rlim_cur = RLIM_INFINITY;
	setrlimit(RLIMIT_FSIZE, &rl);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_size, 712);
	tfu_read(path, &f);
	cr_expect_eq(f.err, 0);
	cr_expect_eq(f.n, 2);
	cr_expect_not(f.damage.truncated);
	cr_expect_eq(f.damage.first_problem_at, -1);
	tfu_free(&f);
	tu_rmdir(dir);
	free(dir);
}
