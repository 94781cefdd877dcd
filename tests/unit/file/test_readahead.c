// SPDX-License-Identifier: MIT
/*
 * The read-ahead gives exactly what the reader gives on the same file:
 * the same blocks in the same order, the same damage and the same
 * warnings, on intact and on randomly damaged files; a block's data stays
 * valid while the thread reads further; stopping early, at the end or
 * after the end neither hangs nor leaks.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "lib/log.h"
#include "file/readahead.h"
#include "testutil.h"
#include "tfutil.h"
#include "file/tracefile.h"

/* A file of nblocks blocks, some compressible, some not, sizes up to 200 KB. */
static void write_sample(const char *path, int nblocks, unsigned long long *seed)
{
	struct tf_writer *w;
	uint8_t *buf = malloc(200 * 1024);

	cr_assert(buf);
	cr_assert_eq(tf_writer__create(path, true, 1, &w), 0);
	for (int i = 0; i < nblocks; i++) {
		size_t len = tu_rand(seed) % 4 == 0 ? tu_rand(seed) % 64 : tu_rand(seed) % (200 * 1024);
		bool noise = tu_rand(seed) % 2;

		for (size_t k = 0; k < len; k++)
			buf[k] = noise ? (uint8_t)tu_rand(seed) : (uint8_t)(k / 97 + i);
		cr_assert_eq(tf_writer__append(w, TF_BLK_EVENTS, buf, len, (uint32_t)len / 8, 1000 + i), 0);
	}
	cr_assert_eq(tf_writer__close(w), 0);
	free(buf);
}

/* tfu_read() through the read-ahead: every block copied out as it comes. */
static void ra_read(const char *path, struct tfu_file *f, size_t stop_after)
{
	struct tf_reader *r;
	struct readahead *ra;
	struct tf_block blk;
	size_t cap = 0;
	int e;

	memset(f, 0, sizeof(*f));
	f->err = tf_reader__open(path, &r, f->msg, sizeof(f->msg));
	if (f->err)
		return;
	cr_assert_eq(readahead__start(r, &ra), 0);
	while (f->n < stop_after && (e = readahead__next(ra, &blk)) > 0)
		tfu_keep(f, &cap, &blk);
	if (f->n < stop_after) {
		f->err = e;
		/* The end stays the end. */
		cr_assert_eq(readahead__next(ra, &blk), e);
		cr_assert_eq(readahead__next(ra, &blk), e);
	}
	readahead__stop(ra);
	f->damage = *tf_reader__damage(r);
	tf_reader__close(r);
}

static void expect_same(const struct tfu_file *a, const struct tfu_file *b, int it)
{
	cr_assert_eq(a->err, b->err, "file %d: %d against %d", it, a->err, b->err);
	cr_assert_eq(a->n, b->n, "file %d: %zu blocks against %zu", it, a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		cr_assert(tfu_same_block(&a->b[i], &b->b[i]), "file %d: block %zu differs", it, i);
		cr_assert_eq(a->b[i].offset, b->b[i].offset, "file %d: block %zu", it, i);
	}
	cr_assert_eq(memcmp(&a->damage, &b->damage, sizeof(a->damage)), 0, "file %d: damage differs", it);
}

Test(readahead, same_blocks_as_the_reader)
{
	char *dir = tu_tmpdir(), path[300];
	unsigned long long seed = 0xb10c;
	struct tfu_file want, got;

	snprintf(path, sizeof(path), "%s/t.qtrace", dir);
	write_sample(path, 40, &seed);
	tfu_read(path, &want);
	ra_read(path, &got, SIZE_MAX);
	cr_assert_eq(want.n, 40);
	expect_same(&want, &got, 0);
	tfu_free(&want);
	tfu_free(&got);
	tu_rmdir(dir);
}

/* Damaged files: the same blocks, damage and warnings, word for word. */
Test(readahead, damaged_files_read_alike, .timeout = 120)
{
	char *dir = tu_tmpdir(), path[300], good[300];
	unsigned long long seed = 0xdead;
	uint8_t *orig, *buf;
	size_t size, n;
	int damaged = 0;

	log_level = LOG_NORMAL;
	snprintf(good, sizeof(good), "%s/good.qtrace", dir);
	snprintf(path, sizeof(path), "%s/bad.qtrace", dir);
	write_sample(good, 24, &seed);
	orig = tfu_slurp(good, &size);
	buf = malloc(size);
	cr_assert(buf);
	for (int it = 0; it < 200; it++) {
		struct tfu_capture cap;
		struct tfu_file want, got;
		char *w_msg, *g_msg;
		int nflip = 1 + tu_rand(&seed) % 4;

		memcpy(buf, orig, size);
		n = size;
		for (int k = 0; k < nflip; k++) {
			size_t pos = TF_FILE_HDR_SIZE + tu_rand(&seed) % (n - TF_FILE_HDR_SIZE);

			if (tu_rand(&seed) % 5 == 0)
				n = pos;	/* cut */
			else
				buf[pos] ^= 1u << (tu_rand(&seed) % 8);
		}
		tfu_write(path, buf, n);
		tfu_capture_start(&cap);
		tfu_read(path, &want);
		w_msg = tfu_capture_end(&cap);
		tfu_capture_start(&cap);
		ra_read(path, &got, SIZE_MAX);
		g_msg = tfu_capture_end(&cap);
		expect_same(&want, &got, it);
		cr_assert_str_eq(g_msg, w_msg, "file %d: warnings differ", it);
		damaged += want.damage.first_problem_at >= 0;
		free(w_msg);
		free(g_msg);
		tfu_free(&want);
		tfu_free(&got);
	}
	/* The files must have been damaged for this to say anything. */
	cr_assert_geq(damaged, 150, "%d of 200 files damaged", damaged);
	free(orig);
	free(buf);
	tu_rmdir(dir);
}

/* A block handed out is not overwritten while the thread fills every other slot. */
Test(readahead, block_valid_until_the_next_call)
{
	char *dir = tu_tmpdir(), path[300];
	unsigned long long seed = 0x5107;
	struct tfu_file want;
	struct tf_reader *r;
	struct readahead *ra;
	struct tf_block blk;

	snprintf(path, sizeof(path), "%s/t.qtrace", dir);
	write_sample(path, 30, &seed);
	tfu_read(path, &want);
	cr_assert_eq(tf_reader__open(path, &r, want.msg, sizeof(want.msg)), 0);
	cr_assert_eq(readahead__start(r, &ra), 0);
	for (size_t i = 0; i < want.n; i++) {
		struct tfu_block b;

		cr_assert_eq(readahead__next(ra, &blk), 1);
		/* Time for the thread to read as far ahead as it may. */
		if (i % 7 == 0)
			nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
		b = tfu_view(&blk);
		cr_assert(tfu_same_block(&want.b[i], &b), "block %zu changed under its reader", i);
	}
	cr_assert_eq(readahead__next(ra, &blk), 0);
	readahead__stop(ra);
	tf_reader__close(r);
	tfu_free(&want);
	tu_rmdir(dir);
}

/* Stopping after any number of blocks returns, with the blocks read so far right. */
Test(readahead, stops_early, .timeout = 60)
{
	char *dir = tu_tmpdir(), path[300];
	unsigned long long seed = 0x570b;
	struct tfu_file want;

	snprintf(path, sizeof(path), "%s/t.qtrace", dir);
	write_sample(path, 12, &seed);
	tfu_read(path, &want);
	for (size_t k = 0; k <= want.n + 1; k++) {
		struct tfu_file got;

		ra_read(path, &got, k);
		cr_assert_eq(got.n, k < want.n ? k : want.n);
		for (size_t i = 0; i < got.n; i++)
			cr_assert(tfu_same_block(&want.b[i], &got.b[i]), "stop after %zu: block %zu", k, i);
		tfu_free(&got);
	}
	/* And right after the start, before any block was asked for. */
	for (int k = 0; k < 20; k++) {
		struct tf_reader *r;
		struct readahead *ra;

		cr_assert_eq(tf_reader__open(path, &r, want.msg, sizeof(want.msg)), 0);
		cr_assert_eq(readahead__start(r, &ra), 0);
		readahead__stop(ra);
		tf_reader__close(r);
	}
	tfu_free(&want);
	tu_rmdir(dir);
}
