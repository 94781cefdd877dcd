/*
 * Trace file helpers for the tests: reading every block of a file into
 * memory, crafting raw block headers, capturing what log_warn() prints.
 */
#ifndef QT_TFUTIL_H
#define QT_TFUTIL_H

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "testutil.h"
#include "file/tracefile.h"

#define TFU_HDR 48

struct tfu_block {
	enum tf_block_type type;
	uint32_t count;
	uint64_t base_ts, seq;
	off_t offset;
	uint8_t *data;
	size_t len;
};

struct tfu_file {
	struct tfu_block *b;
	size_t n;
	struct tf_damage damage;
	int err;		/* of tf_reader__open or tf_reader__next */
	char msg[512];
};

static inline void tfu_free(struct tfu_file *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->b[i].data);
	free(f->b);
	memset(f, 0, sizeof(*f));
}

/* A block the reader handed out, as the tests hold one (data still the reader's). */
static inline struct tfu_block tfu_view(const struct tf_block *blk)
{
	return (struct tfu_block){ blk->type, blk->count, blk->base_ts, blk->seq, blk->offset,
				   (uint8_t *)blk->data, blk->len };
}

/* Appends a copy of blk to f (cap: f->b's room, 0 at first). */
static inline void tfu_keep(struct tfu_file *f, size_t *cap, const struct tf_block *blk)
{
	struct tfu_block *b;

	cr_assert_lt(f->n, 100000, "the reader does not stop");
	if (f->n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		f->b = realloc(f->b, *cap * sizeof(*f->b));
		cr_assert(f->b);
	}
	b = &f->b[f->n++];
	*b = tfu_view(blk);
	b->data = malloc(blk->len ? blk->len : 1);
	cr_assert(b->data);
	memcpy(b->data, blk->data, blk->len);
}

/* Reads every block; at most max_blocks (a guard against a reader that loops). */
static inline void tfu_read(const char *path, struct tfu_file *f)
{
	struct tf_reader *r;
	struct tf_block blk;
	size_t cap = 0;
	int e;

	memset(f, 0, sizeof(*f));
	f->err = tf_reader__open(path, &r, f->msg, sizeof(f->msg));
	if (f->err)
		return;
	while ((e = tf_reader__next(r, &blk)) > 0)
		tfu_keep(f, &cap, &blk);
	f->err = e;
	f->damage = *tf_reader__damage(r);
	tf_reader__close(r);
}

static inline bool tfu_same_block(const struct tfu_block *a, const struct tfu_block *b)
{
	return a->type == b->type && a->count == b->count && a->base_ts == b->base_ts &&
	       a->seq == b->seq && a->len == b->len && !memcmp(a->data, b->data, a->len);
}

/* A block exactly as tracefile.c lays it out, with any field chosen freely. */
static inline size_t tfu_craft(uint8_t *out, uint16_t type, uint16_t flags, const void *payload,
			       uint32_t len, uint32_t raw_len, uint32_t count, uint64_t base_ts,
			       uint64_t seq)
{
	uint32_t v32;
	uint16_t v16;
	uint64_t v64;

#define PUT(off, bits, val) do { v##bits = htole##bits(val); memcpy(out + (off), &v##bits, bits / 8); } while (0)
	PUT(0, 32, TF_BLOCK_MAGIC);
	PUT(4, 16, type);
	PUT(6, 16, flags);
	PUT(8, 32, len);
	PUT(12, 32, raw_len);
	PUT(16, 32, count);
	PUT(20, 32, (uint32_t)crc32(0, payload, len));
	PUT(24, 64, base_ts);
	PUT(32, 64, seq);
	PUT(40, 32, 0);
	PUT(44, 32, (uint32_t)crc32(0, out, 44));
#undef PUT
	memcpy(out + TFU_HDR, payload, len);
	return TFU_HDR + len;
}

static inline void tfu_file_hdr(uint8_t *out)
{
	memset(out, 0, TF_FILE_HDR_SIZE);
	memcpy(out, TF_MAGIC, 8);
	out[8] = TF_VERSION;
	out[10] = TF_FILE_HDR_SIZE;
}

static inline void tfu_write(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(buf, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

static inline uint8_t *tfu_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	cr_assert(f, "%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n ? n : 1);
	cr_assert(buf);
	cr_assert_eq(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	*len = n;
	return buf;
}

/* Captures stderr (log_warn) while a stretch of test code runs. */
struct tfu_capture {
	int saved;
	FILE *tmp;
};

static inline void tfu_capture_start(struct tfu_capture *c)
{
	fflush(stderr);
	c->tmp = tmpfile();
	cr_assert(c->tmp);
	c->saved = dup(2);
	dup2(fileno(c->tmp), 2);
}

/* Returns what was printed (free it). */
static inline char *tfu_capture_end(struct tfu_capture *c)
{
	char *out;
	long n;

	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	n = lseek(fileno(c->tmp), 0, SEEK_END);
	rewind(c->tmp);
	out = calloc(1, n + 1);
	cr_assert(out);
	if (n > 0)
		cr_assert_eq(fread(out, 1, n, c->tmp), (size_t)n);
	fclose(c->tmp);
	return out;
}

#endif
