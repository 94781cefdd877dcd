// SPDX-License-Identifier: MIT
/* The trace file's blocks; the format is documented in src/file/tracefile.h. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>

#include "lib/log.h"
#include "tracefile.h"

#define BLOCK_HDR_SIZE 48
#define HDR_CRC_SPAN 44

/* ---- thread table payload ---- */

static uint8_t *put_var(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static int get_var(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;

	*v = 0;
	for (int shift = 0; shift < 64 && p < end; shift += 7) {
		uint8_t b = *p++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (shift == 63 && b > 1)
				break;	/* bits beyond 64 */
			*pp = p;
			return 0;
		}
	}
	return -EBADMSG;
}

uint8_t *tf_threads_encode(const struct tf_thread *t, size_t n, size_t *len)
{
	uint8_t *buf = malloc(n * (4 * 10 + 17) + 1), *p;

	if (!buf)
		return NULL;
	p = buf;
	for (size_t i = 0; i < n; i++) {
		size_t cl = strnlen(t[i].comm, sizeof(t[i].comm));
		int64_t d = (int64_t)t[i].tgid - t[i].tid;

		p = put_var(p, t[i].tid);
		p = put_var(p, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
		p = put_var(p, t[i].ppid);
		p = put_var(p, t[i].flags);
		*p++ = cl;
		memcpy(p, t[i].comm, cl);
		p += cl;
	}
	*len = p - buf;
	return buf;
}

int tf_threads_decode(const uint8_t *buf, size_t len, uint32_t count,
		      struct tf_thread **out, size_t *n)
{
	const uint8_t *p = buf, *end = buf + len;
	struct tf_thread *t;
	size_t k = 0;

	/* Each entry takes at least 5 bytes: a count beyond that is a lie. */
	if (count > len / 5 + 1)
		return -EBADMSG;
	t = calloc(count ? count : 1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	while (p < end && k < count) {
		uint64_t tid, zd, ppid, flags;
		int64_t tgid;
		size_t cl;

		if (get_var(&p, end, &tid) || get_var(&p, end, &zd) ||
		    get_var(&p, end, &ppid) || get_var(&p, end, &flags) || p >= end)
			goto bad;
		tgid = (int64_t)tid + ((int64_t)(zd >> 1) ^ -(int64_t)(zd & 1));
		cl = *p++;
		if (tid > UINT32_MAX || tgid < 0 || tgid > UINT32_MAX || ppid > UINT32_MAX ||
		    flags > UINT32_MAX || cl > sizeof(t[k].comm) || (size_t)(end - p) < cl)
			goto bad;
		t[k].tid = tid;
		t[k].tgid = tgid;
		t[k].ppid = ppid;
		t[k].flags = flags;
		memcpy(t[k].comm, p, cl);
		p += cl;
		k++;
	}
	if (k != count || p != end)
		goto bad;
	*out = t;
	*n = k;
	return 0;
bad:
	free(t);
	return -EBADMSG;
}

/* ---- block header (de)serialisation ---- */

static void hdr_pack(const struct tf_block_hdr *h, uint8_t *b)
{
	uint32_t v32;
	uint16_t v16;
	uint64_t v64;

#define PUT(off, bits, val) do { v##bits = htole##bits(val); memcpy(b + (off), &v##bits, bits / 8); } while (0)
	PUT(0, 32, h->magic);
	PUT(4, 16, h->type);
	PUT(6, 16, h->flags);
	PUT(8, 32, h->len);
	PUT(12, 32, h->raw_len);
	PUT(16, 32, h->count);
	PUT(20, 32, h->crc);
	PUT(24, 64, h->base_ts);
	PUT(32, 64, h->seq);
	PUT(40, 32, h->reserved);
	PUT(44, 32, libdeflate_crc32(0, b, HDR_CRC_SPAN));
#undef PUT
}

/*
 * Fuzzing builds accept any checksum, so that mutated files reach the
 * decoders behind it instead of stopping here.
 */
static bool crc_ok(uint32_t expected, const uint8_t *p, size_t len)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	return true;
#else
	/* libdeflate's CRC-32 is zlib's, several times faster on long buffers */
	return expected == libdeflate_crc32(0, p, len);
#endif
}

static bool hdr_unpack(const uint8_t *b, struct tf_block_hdr *h)
{
	uint32_t v32;
	uint16_t v16;
	uint64_t v64;

#define GET(off, bits, dst) do { memcpy(&v##bits, b + (off), bits / 8); dst = le##bits##toh(v##bits); } while (0)
	GET(0, 32, h->magic);
	GET(4, 16, h->type);
	GET(6, 16, h->flags);
	GET(8, 32, h->len);
	GET(12, 32, h->raw_len);
	GET(16, 32, h->count);
	GET(20, 32, h->crc);
	GET(24, 64, h->base_ts);
	GET(32, 64, h->seq);
	GET(40, 32, h->reserved);
	GET(44, 32, h->hdr_crc);
#undef GET
	return h->magic == TF_BLOCK_MAGIC && crc_ok(h->hdr_crc, b, HDR_CRC_SPAN) &&
	       h->len <= TF_MAX_PAYLOAD && h->raw_len <= TF_MAX_PAYLOAD &&
	       h->type >= TF_BLK_META && h->type <= TF_BLK_END;
}

/* ---- packing a block ---- */

struct tf_packer {
	struct libdeflate_compressor *zc;	/* zlib streams, whole blocks at once; NULL: stored */
	struct libdeflate_decompressor *dd;	/* made on the first unpack */
	uint8_t *buf;
	size_t cap;
};

int tf_packer__new(int zlevel, struct tf_packer **out)
{
	struct tf_packer *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	if (zlevel > 0 && !(p->zc = libdeflate_alloc_compressor(zlevel))) {
		free(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

void tf_packer__free(struct tf_packer *p)
{
	if (!p)
		return;
	libdeflate_free_compressor(p->zc);
	libdeflate_free_decompressor(p->dd);
	free(p->buf);
	free(p);
}

static int packer_reserve(struct tf_packer *p, size_t need)
{
	uint8_t *nb;

	if (need <= p->cap)
		return 0;
	nb = realloc(p->buf, need);
	if (!nb)
		return -ENOMEM;
	p->buf = nb;
	p->cap = need;
	return 0;
}

int tf_packer__pack(struct tf_packer *p, enum tf_block_type type, const void *payload, size_t len,
		    uint32_t count, uint64_t base_ts, struct tf_packed *out)
{
	*out = (struct tf_packed){
		.type = type, .len = len, .raw_len = len, .count = count, .base_ts = base_ts, .data = payload,
	};
	if (len > TF_MAX_PAYLOAD)
		return -E2BIG;
	if (p->zc && len > 0) {
		size_t zlen = libdeflate_zlib_compress_bound(p->zc, len);

		if (packer_reserve(p, zlen))
			return -ENOMEM;
		zlen = libdeflate_zlib_compress(p->zc, payload, len, p->buf, zlen);
		if (!zlen)
			return -EIO;
		/*
		 * Data that does not shrink is stored: zlib would make it
		 * larger, and a block near TF_MAX_PAYLOAD would then exceed
		 * the limit the reader enforces.
		 */
		if (zlen < len) {
			out->data = p->buf;
			out->len = zlen;
			out->flags = TF_BLK_COMPRESSED;
		}
	}
	out->crc = libdeflate_crc32(0, out->data, out->len);
	return 0;
}

int tf_packer__unpack(struct tf_packer *p, const struct tf_packed *b, const uint8_t **out)
{
	size_t dlen = 0;

	if (b->len > TF_MAX_PAYLOAD || b->raw_len > TF_MAX_PAYLOAD || !crc_ok(b->crc, b->data, b->len))
		return -EBADMSG;
	if (!(b->flags & TF_BLK_COMPRESSED)) {
		if (b->len != b->raw_len)
			return -EBADMSG;
		*out = b->data;
		return 0;
	}
	if (!p->dd && !(p->dd = libdeflate_alloc_decompressor()))
		return -ENOMEM;
	if (packer_reserve(p, b->raw_len + 1))
		return -ENOMEM;
	if (libdeflate_zlib_decompress(p->dd, b->data, b->len, p->buf, b->raw_len, &dlen) != LIBDEFLATE_SUCCESS ||
	    dlen != b->raw_len)
		return -EBADMSG;
	*out = p->buf;
	return 0;
}

/* ---- writer ---- */

struct tf_writer {
	int fd;
	struct tf_packer *pk;
	uint64_t seq;
	uint64_t bytes;
	int err;
};

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

int tf_writer__create(const char *path, bool force, int zlevel, struct tf_writer **out)
{
	struct tf_writer *w;
	uint8_t hdr[TF_FILE_HDR_SIZE] = { 0 };
	uint16_t v16;
	struct stat st;
	int fd, err;

	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		if (!force)
			return -EEXIST;
		if (!S_ISREG(st.st_mode))
			return -EINVAL;
		if (unlink(path))
			return -errno;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	memcpy(hdr, TF_MAGIC, 8);
	v16 = htole16(TF_VERSION);
	memcpy(hdr + 8, &v16, 2);
	v16 = htole16(TF_FILE_HDR_SIZE);
	memcpy(hdr + 10, &v16, 2);
	err = write_all(fd, hdr, sizeof(hdr));
	if (err) {
		close(fd);
		unlink(path);
		return err;
	}
	w = calloc(1, sizeof(*w));
	if (!w || tf_packer__new(zlevel, &w->pk)) {
		free(w);
		close(fd);
		unlink(path);
		return -ENOMEM;
	}
	w->fd = fd;
	w->bytes = sizeof(hdr);
	*out = w;
	return 0;
}

int tf_writer__put(struct tf_writer *w, const struct tf_packed *b)
{
	struct tf_block_hdr h = {
		.magic = TF_BLOCK_MAGIC, .type = b->type, .flags = b->flags, .len = b->len,
		.raw_len = b->raw_len, .count = b->count, .crc = b->crc, .base_ts = b->base_ts, .seq = w->seq,
	};
	uint8_t hb[BLOCK_HDR_SIZE];
	int err;

	if (w->err)
		return w->err;
	if (b->len > TF_MAX_PAYLOAD || b->raw_len > TF_MAX_PAYLOAD)
		return -E2BIG;
	hdr_pack(&h, hb);
	/*
	 * On a failed write (full disk) the partial block is cut off again, so
	 * the file still ends on a whole block.
	 */
	err = write_all(w->fd, hb, sizeof(hb));
	if (!err)
		err = write_all(w->fd, b->data, b->len);
	if (err) {
		if (ftruncate(w->fd, (off_t)w->bytes) == 0)
			lseek(w->fd, (off_t)w->bytes, SEEK_SET);
		w->err = err;
		return err;
	}
	w->bytes += sizeof(hb) + b->len;
	w->seq++;
	return 0;
}

int tf_writer__append(struct tf_writer *w, enum tf_block_type type, const void *payload,
		      size_t len, uint32_t count, uint64_t base_ts)
{
	struct tf_packed b;
	int err;

	if (w->err)
		return w->err;
	err = tf_packer__pack(w->pk, type, payload, len, count, base_ts, &b);
	return err ? err : tf_writer__put(w, &b);
}

int tf_writer__sync(struct tf_writer *w)
{
	return fdatasync(w->fd) ? -errno : 0;
}

uint64_t tf_writer__bytes(const struct tf_writer *w)
{
	return w->bytes;
}

int tf_writer__close(struct tf_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = w->err;
	if (fsync(w->fd) && !err)
		err = -errno;
	if (close(w->fd) && !err)
		err = -errno;
	tf_packer__free(w->pk);
	free(w);
	return err;
}

/* ---- reader ---- */

struct tf_reader {
	char *path;
	FILE *f;
	off_t size;
	off_t pos;
	uint64_t next_seq;
	uint8_t *raw, *data;
	size_t raw_cap, data_cap;
	/*
	 * Blocks are zlib streams of known size, decompressed whole: libdeflate
	 * does that about twice as fast as zlib's streaming inflate.
	 */
	struct libdeflate_decompressor *dd;
	struct tf_damage damage;
	unsigned int version;
};

static void note_problem(struct tf_reader *r, off_t at)
{
	if (r->damage.first_problem_at < 0)
		r->damage.first_problem_at = at;
}

int tf_reader__open(const char *path, struct tf_reader **out, char *err, size_t errlen)
{
	uint8_t hdr[TF_FILE_HDR_SIZE];
	struct tf_reader *r;
	struct stat st;
	uint16_t ver, hsize;
	FILE *f;
	int fd, e;

	/*
	 * O_NONBLOCK: opening a FIFO must not wait for a writer before it is
	 * refused; it changes nothing for reading a regular file.
	 */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		e = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return e;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	f = fdopen(fd, "rb");
	if (!f) {
		e = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return e;
	}
	if (fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr)) {
		snprintf(err, errlen, "%s: %s (%lld bytes): not a qostrace trace file", path,
			 st.st_size ? "too short" : "empty", (long long)st.st_size);
		fclose(f);
		return -EBADMSG;
	}
	if (memcmp(hdr, TF_MAGIC, 8)) {
		snprintf(err, errlen, "%s: not a qostrace trace file (bad magic at offset 0)", path);
		fclose(f);
		return -EBADMSG;
	}
	memcpy(&ver, hdr + 8, 2);
	memcpy(&hsize, hdr + 10, 2);
	ver = le16toh(ver);
	hsize = le16toh(hsize);
	if (ver < TF_VERSION_OLDEST || ver > TF_VERSION) {
		snprintf(err, errlen, "%s: trace format version %u, this qostrace reads versions %u to %u%s",
			 path, ver, TF_VERSION_OLDEST, TF_VERSION,
			 ver > TF_VERSION ? " (a newer qostrace wrote it)" : "");
		fclose(f);
		return -EPROTONOSUPPORT;
	}
	if (hsize != TF_FILE_HDR_SIZE) {
		snprintf(err, errlen, "%s: bad file header size %u at offset 10", path, hsize);
		fclose(f);
		return -EBADMSG;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->path = strdup(path)) || !(r->dd = libdeflate_alloc_decompressor())) {
		if (r)
			free(r->path);
		free(r);
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	r->f = f;
	r->version = ver;
	r->size = st.st_size;
	r->pos = TF_FILE_HDR_SIZE;
	r->damage.first_problem_at = -1;
	*out = r;
	return 0;
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *nb;

	if (need <= *cap)
		return 0;
	nb = realloc(*buf, need);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = need;
	return 0;
}

/* Scans forward from r->pos for the next valid block header. */
static bool resync(struct tf_reader *r, struct tf_block_hdr *h, uint8_t *hb)
{
	off_t start = r->pos;
	uint8_t buf[65536 + BLOCK_HDR_SIZE];

	for (off_t at = r->pos + 1; at + BLOCK_HDR_SIZE <= r->size;) {
		size_t n;

		if (fseeko(r->f, at, SEEK_SET))
			return false;
		n = fread(buf, 1, sizeof(buf), r->f);
		if (n < BLOCK_HDR_SIZE)
			break;
		for (size_t i = 0; i + BLOCK_HDR_SIZE <= n; i++) {
			if (buf[i] != 'Q' || buf[i + 1] != 'B')
				continue;
			if (hdr_unpack(buf + i, h)) {
				memcpy(hb, buf + i, BLOCK_HDR_SIZE);
				r->pos = at + i;
				r->damage.resyncs++;
				r->damage.bytes_skipped += r->pos - start;
				log_warn("%s: corrupt block header at offset %lld: skipped %lld bytes to the next block",
					 r->path, (long long)start, (long long)(r->pos - start));
				return true;
			}
		}
		at += n - BLOCK_HDR_SIZE + 1;
	}
	/* Skipped by scanning too, up to the end: the damage must show. */
	r->damage.resyncs++;
	r->damage.bytes_skipped += r->size - start;
	log_warn("%s: corrupt data from offset %lld to the end (%lld bytes) ignored", r->path,
		 (long long)start, (long long)(r->size - start));
	r->pos = r->size;
	return false;
}

int tf_reader__next(struct tf_reader *r, struct tf_block *blk)
{
	uint8_t hb[BLOCK_HDR_SIZE];
	struct tf_block_hdr h;

	for (;;) {
		off_t at = r->pos;

		if (r->pos >= r->size)
			return 0;
		if (r->size - r->pos < BLOCK_HDR_SIZE) {
			r->damage.truncated = true;
			r->damage.truncated_at = r->pos;
			note_problem(r, r->pos);
			log_warn("%s: file ends inside a block header at offset %lld (recording cut short): "
				 "read up to the last whole block", r->path, (long long)r->pos);
			r->pos = r->size;
			return 0;
		}
		if (fseeko(r->f, r->pos, SEEK_SET) || fread(hb, 1, sizeof(hb), r->f) != sizeof(hb))
			return -EIO;
		if (!hdr_unpack(hb, &h)) {
			note_problem(r, at);
			if (!resync(r, &h, hb))
				return 0;
			at = r->pos;
			if (fseeko(r->f, r->pos + BLOCK_HDR_SIZE, SEEK_SET))
				return -EIO;
		}
		if ((off_t)h.len > r->size - at - BLOCK_HDR_SIZE) {
			r->damage.truncated = true;
			r->damage.truncated_at = at;
			note_problem(r, at);
			log_warn("%s: file ends inside block %llu at offset %lld (%lld of %u payload bytes present; "
				 "recording cut short): read up to the last whole block", r->path,
				 (unsigned long long)h.seq, (long long)at,
				 (long long)(r->size - at - BLOCK_HDR_SIZE), h.len);
			r->pos = r->size;
			return 0;
		}
		r->pos = at + BLOCK_HDR_SIZE + h.len;
		if (grow(&r->raw, &r->raw_cap, h.len + 1) || grow(&r->data, &r->data_cap, h.raw_len + 1))
			return -ENOMEM;
		if (fread(r->raw, 1, h.len, r->f) != h.len)
			return -EIO;
		if (!crc_ok(h.crc, r->raw, h.len)) {
			r->damage.corrupt_blocks++;
			note_problem(r, at);
			log_warn("%s: block %llu at offset %lld is corrupt (payload checksum mismatch): skipped",
				 r->path, (unsigned long long)h.seq, (long long)at);
			continue;
		}
		if (h.flags & TF_BLK_COMPRESSED) {
			size_t dlen = 0;

			if (libdeflate_zlib_decompress(r->dd, r->raw, h.len, r->data, h.raw_len, &dlen) !=
				    LIBDEFLATE_SUCCESS || dlen != h.raw_len) {
				r->damage.corrupt_blocks++;
				note_problem(r, at);
				log_warn("%s: block %llu at offset %lld does not decompress: skipped", r->path,
					 (unsigned long long)h.seq, (long long)at);
				continue;
			}
			blk->data = r->data;
		} else {
			if (h.len != h.raw_len) {
				r->damage.corrupt_blocks++;
				note_problem(r, at);
				log_warn("%s: block %llu at offset %lld has inconsistent sizes: skipped",
					 r->path, (unsigned long long)h.seq, (long long)at);
				continue;
			}
			blk->data = r->raw;
		}
		if (h.seq != r->next_seq)
			log_warn("%s: block at offset %lld has sequence %llu, expected %llu: %s", r->path,
				 (long long)at, (unsigned long long)h.seq, (unsigned long long)r->next_seq,
				 h.seq > r->next_seq ? "blocks are missing" : "blocks are repeated");
		r->next_seq = h.seq + 1;
		blk->type = h.type;
		blk->count = h.count;
		blk->base_ts = h.base_ts;
		blk->seq = h.seq;
		blk->offset = at;
		blk->len = h.raw_len;
		return 1;
	}
}

const struct tf_damage *tf_reader__damage(const struct tf_reader *r)
{
	return &r->damage;
}

off_t tf_reader__size(const struct tf_reader *r)
{
	return r->size;
}

const char *tf_reader__path(const struct tf_reader *r)
{
	return r->path;
}

unsigned int tf_reader__version(const struct tf_reader *r)
{
	return r->version;
}

void tf_reader__close(struct tf_reader *r)
{
	if (!r)
		return;
	fclose(r->f);
	libdeflate_free_decompressor(r->dd);
	free(r->raw);
	free(r->data);
	free(r->path);
	free(r);
}
