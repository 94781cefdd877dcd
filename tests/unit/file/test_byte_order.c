// SPDX-License-Identifier: MIT
/*
 * A trace recorded on one machine reads on any other (a set-top's arm64 or
 * armhf, a workstation's x86_64): the file's bytes depend neither on the
 * host's byte order nor on its word size. The bytes of tracefile.h's
 * layout, written out by hand, for the file header, a block header and a
 * thread table (the records' packing has its own in test_codec.c).
 */
#include <libdeflate.h>
#include <stdint.h>

#include "testutil.h"
#include "tfutil.h"
#include "file/tracefile.h"

static void expect_bytes(const uint8_t *got, const uint8_t *want, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(got[i], want[i], "%s, byte %zu: 0x%02x, want 0x%02x", what, i, got[i], want[i]);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

Test(byte_order, file_and_block_headers_are_little_endian)
{
	static const uint8_t file_hdr[TF_FILE_HDR_SIZE] = {
		'Q', 'O', 'S', 'T', 'R', 'A', 'C', 'E',
		0x03, 0x00,		/* version 3 (src/file/tracefile.h) */
		0x10, 0x00,		/* header size 16 */
		0x00, 0x00, 0x00, 0x00,	/* reserved */
	};
	uint8_t block_hdr[48] = {
		0x51, 0x42, 0x4c, 0x4b,	/* "QBLK" as the u32 0x4b4c4251 */
		0x02, 0x00,		/* THREADS */
		0x00, 0x00,		/* stored */
		0x08, 0x00, 0x00, 0x00,	/* len 8 */
		0x08, 0x00, 0x00, 0x00,	/* raw_len 8 */
		0x01, 0x00, 0x00, 0x00,	/* count 1 */
		0, 0, 0, 0,		/* crc of the payload, below */
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,	/* base_ts */
		0, 0, 0, 0, 0, 0, 0, 0,	/* seq 0 */
		0, 0, 0, 0,		/* reserved */
		0, 0, 0, 0,		/* crc of the 44 bytes above */
	};
	/* tid 300, tgid 299 (zigzag(-1) = 1), ppid 1, flags 1, comm "ab" */
	static const uint8_t threads[] = { 0xac, 0x02, 0x01, 0x01, 0x01, 0x02, 'a', 'b' };
	struct tf_thread t = { .tid = 300, .tgid = 299, .ppid = 1, .flags = TF_THREAD_KTHREAD, .comm = "ab" };
	struct tf_writer *w;
	uint8_t *enc, *bytes;
	size_t len, n;
	char *dir = tu_tmpdir(), path[512];

	enc = tf_threads_encode(&t, 1, &len);
	cr_assert(enc);
	cr_assert_eq(len, sizeof(threads), "thread table of %zu bytes", len);
	expect_bytes(enc, threads, sizeof(threads), "thread table");

	snprintf(path, sizeof(path), "%s/t.qtrace", dir);
	cr_assert_eq(tf_writer__create(path, false, 0, &w), 0);
	cr_assert_eq(tf_writer__append(w, TF_BLK_THREADS, enc, len, 1, 0x0102030405060708ull), 0);
	cr_assert_eq(tf_writer__close(w), 0);
	bytes = tfu_slurp(path, &n);
	cr_assert_eq(n, sizeof(file_hdr) + sizeof(block_hdr) + len);
	put_le32(block_hdr + 20, libdeflate_crc32(0, enc, len));
	put_le32(block_hdr + 44, libdeflate_crc32(0, block_hdr, 44));
	expect_bytes(bytes, file_hdr, sizeof(file_hdr), "file header");
	expect_bytes(bytes + sizeof(file_hdr), block_hdr, sizeof(block_hdr), "block header");
	expect_bytes(bytes + sizeof(file_hdr) + sizeof(block_hdr), enc, len, "payload");
	free(bytes);
	free(enc);
	tu_rmdir(dir);
	free(dir);
}
