/*
 * The qostrace trace file (.qtrace), format version 3.
 *
 * A file is a 16-byte file header followed by blocks:
 *
 *   file header   "QOSTRACE" (8 bytes), u16 version, u16 header size (16),
 *                 u32 reserved (0)
 *   block         struct tf_block_hdr (48 bytes) + payload
 *
 * All integers are little-endian. Blocks, in the order a recording writes them:
 *
 *   META      once, first: "key=value\n" lines (see TF_META_* for the keys)
 *   THREADS   thread table snapshot from /proc (start of the recording, and
 *             again at the end): entries of varint tid, zigzag(tgid - tid),
 *             varint ppid, varint flags, length-prefixed comm
 *   EVENTS    records packed as described in codec.h; decodes on its own
 *   END       once, last: "key=value\n" lines (stop time, lost counts, ...)
 *
 * Every block header carries a CRC of itself and a CRC of its payload, and a
 * sequence number. A reader therefore:
 *   - stops at a block cut short (a crash or a full disk) and keeps all the
 *     blocks before it: a file without an END block is a recording that was
 *     not finished, readable up to its last whole block;
 *   - skips a block whose payload is corrupt and says so;
 *   - resynchronises on the next valid header after a corrupt header.
 * Payloads are zlib streams when TF_BLK_COMPRESSED is set. Sizes are bounded
 * (TF_MAX_PAYLOAD) so a hostile file cannot make a reader allocate without
 * limit.
 */
#ifndef QT_TRACEFILE_H
#define QT_TRACEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Versions. A writer writes TF_VERSION; a reader reads every version from
 * TF_VERSION_OLDEST to TF_VERSION and refuses any other with a message
 * that names both ("trace format version 3, this qostrace reads versions
 * 1 to 2"), before reading anything. A new record type, or a new field in
 * a record's packing, takes a new version: a reader of the older one
 * could not skip it (codec.h packs records without their lengths) and
 * would drop the rest of every block as damaged. Records the older
 * versions lack are simply absent from their files, and every reader of
 * them has a fallback (docs/DESIGN.md §2).
 *   1  the records up to QT_REC_STATS
 *   2  QT_REC_SOFTIRQ_RAISE
 *   3  QT_REC_DATA (the objects of the data calls, docs/ALGORITHMS.md §9.2)
 */
#define TF_MAGIC "QOSTRACE"
#define TF_VERSION 3
#define TF_VERSION_OLDEST 1
#define TF_FILE_HDR_SIZE 16
#define TF_BLOCK_MAGIC 0x4b4c4251u	/* "QBLK" */
#define TF_MAX_PAYLOAD (64u << 20)

enum tf_block_type {
	TF_BLK_META = 1,
	TF_BLK_THREADS = 2,
	TF_BLK_EVENTS = 3,
	TF_BLK_END = 4,
};

#define TF_BLK_COMPRESSED 0x1

struct tf_block_hdr {
	uint32_t magic;
	uint16_t type;
	uint16_t flags;
	uint32_t len;		/* payload bytes in the file */
	uint32_t raw_len;	/* payload bytes once decompressed */
	uint32_t count;		/* records (EVENTS) or entries (THREADS) */
	uint32_t crc;		/* crc32 of the stored payload */
	uint64_t base_ts;	/* EVENTS: delta base; THREADS: snapshot time */
	uint64_t seq;		/* 0, 1, 2, ... in file order */
	uint32_t reserved;
	uint32_t hdr_crc;	/* crc32 of the 44 bytes above */
};

/* Keys of the META block. */
#define TF_META_KERNEL "kernel"		/* uname -r */
#define TF_META_ARCH "arch"
#define TF_META_HOST "host"
#define TF_META_CPUS "cpus"		/* CPUs configured */
#define TF_META_CLOCK "clock"		/* CLOCK_MONOTONIC */
#define TF_META_BOOT_OFFSET "realtime_offset_ns"	/* CLOCK_REALTIME - CLOCK_MONOTONIC at start */
#define TF_META_CMDLINE "cmdline"	/* the qostrace command line */
#define TF_META_START "start_ns"
#define TF_META_MODE "mode"		/* command, pids or all */
#define TF_META_TARGETS "targets"	/* target tgids at start, comma separated */
#define TF_META_RECORDER "recorder_pid"
#define TF_META_VERSION "qostrace_version"
#define TF_META_RING "ring_bytes"
#define TF_META_FEATURES "features"	/* syscalls,irqs,... */
#define TF_META_BACKEND "backend"	/* attach path: btf, core or tracefs (src/record/probe.h) */
#define TF_META_BUFFER "buffer"		/* ringbuf or perfbuf */
#define TF_META_MISSING "missing"	/* what the path could not record: runtime (comma separated) */

/*
 * Keys of a window written by `qostrace watch` (src/watch/window.h), absent
 * from a recording: what asked for the window, and what the detector saw
 * in it, so that a report on the window can be checked against it.
 */
#define TF_META_WATCH "watch"			/* "break", or "demand" (SIGUSR1) */
#define TF_META_WATCH_ACTOR "watch_actor"	/* the actor whose break opened it, e.g. src/1234 */
#define TF_META_WATCH_AT "watch_at_ns"		/* when its late invocation started */
#define TF_META_WATCH_LATE "watch_late_ns"	/* by how much */
#define TF_META_WATCH_PERIOD "watch_period_ns"
#define TF_META_WATCH_WINDOW "watch_window"	/* the span asked for: FROM_NS-TO_NS */
#define TF_META_WATCH_CUT "watch_cut_ns"	/* --late, or 0: a tenth of the period */
#define TF_META_WATCH_ACTORS "watch_actors"	/* the actors watched, as --actor specs, space separated */
/*
 * The major breaks inside, as the detector decided on the window:
 * TID:AT_NS:LATE_NS:start|completion:online|window, space separated
 * (online: found as it came, a trigger; window: found on the window).
 */
#define TF_META_WATCH_BREAKS "watch_breaks"
#define TF_META_WATCH_START_LOST "watch_start_lost_ns"	/* of its start, gone from memory before it was written */

/* Keys of the END block. */
#define TF_END_STOP "stop_ns"
#define TF_END_REASON "reason"		/* command exited, duration, signal, disk full */
#define TF_END_EVENTS "events"
#define TF_END_LOST "lost"
#define TF_END_LOST_CPU "lost_cpu"	/* per CPU, comma separated */
#define TF_END_USER_DROPPED "user_dropped"
#define TF_END_MISSED "missed"		/* tracepoint hits the kernel ran no program for */
#define TF_END_EXIT_STATUS "exit_status"	/* of the traced command */

/* key=value lists (META and END blocks). */
struct tf_kv {
	char **keys, **vals;
	size_t n, cap;
};

int tf_kv_set(struct tf_kv *kv, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *tf_kv_get(const struct tf_kv *kv, const char *key);
int tf_kv_get_u64(const struct tf_kv *kv, const char *key, uint64_t *out);
void tf_kv_free(struct tf_kv *kv);
/* Serialises to "key=value\n" lines; newlines in values become spaces. */
char *tf_kv_encode(const struct tf_kv *kv, size_t *len);
int tf_kv_decode(struct tf_kv *kv, const char *buf, size_t len);

/* One thread of a /proc snapshot. */
#define TF_THREAD_KTHREAD 0x1
struct tf_thread {
	uint32_t tid, tgid, ppid;
	uint32_t flags;
	char comm[16];
};

/* Encodes n threads into a newly allocated buffer (THREADS payload). */
uint8_t *tf_threads_encode(const struct tf_thread *t, size_t n, size_t *len);
/* Decodes a THREADS payload; -EBADMSG when malformed. */
int tf_threads_decode(const uint8_t *buf, size_t len, uint32_t count,
		      struct tf_thread **out, size_t *n);

/* ---- a block packed: compressed and checksummed ---- */

/*
 * A block as the file stores it, without its header: the payload
 * compressed where that makes it smaller, its CRC, its count and base
 * time. tf_writer__append() packs and writes in one go; watch packs
 * blocks as they are recorded, keeps them in memory and writes the ones
 * a window needs as they are (tf_writer__put()).
 */
struct tf_packed {
	uint16_t type;		/* enum tf_block_type */
	uint16_t flags;		/* TF_BLK_COMPRESSED */
	uint32_t len;		/* bytes at data */
	uint32_t raw_len;	/* once decompressed */
	uint32_t count;
	uint32_t crc;		/* crc32 of the len bytes at data */
	uint64_t base_ts;
	const uint8_t *data;
};

struct tf_packer;

/* A packer compressing at zlevel (0: stores). 0 or -ENOMEM. */
int tf_packer__new(int zlevel, struct tf_packer **out);
void tf_packer__free(struct tf_packer *p);
/*
 * Packs a payload of len bytes into *out, whose data is the packer's own
 * buffer (or payload itself, stored) until its next call. -E2BIG beyond
 * TF_MAX_PAYLOAD, -ENOMEM, -EIO.
 */
int tf_packer__pack(struct tf_packer *p, enum tf_block_type type, const void *payload, size_t len,
		    uint32_t count, uint64_t base_ts, struct tf_packed *out);
/*
 * The payload of a packed block, checked (CRC, sizes) and decompressed:
 * *out (raw_len bytes) is the packer's buffer or b->data, valid until the
 * packer's next call. -EBADMSG for a damaged block, -ENOMEM.
 */
int tf_packer__unpack(struct tf_packer *p, const struct tf_packed *b, const uint8_t **out);

/* ---- writing ---- */

struct tf_writer;

/*
 * Creates path with mode 0600. Refuses to follow a symlink and, without
 * force, to replace an existing file (-EEXIST). With force, only a regular
 * file is replaced.
 */
int tf_writer__create(const char *path, bool force, int zlevel, struct tf_writer **out);
/*
 * Appends one block; compresses the payload when zlevel > 0 and that makes
 * it smaller (else it is stored). -E2BIG beyond TF_MAX_PAYLOAD. After a
 * write error the partial block is cut off and every later call returns
 * that error.
 */
int tf_writer__append(struct tf_writer *w, enum tf_block_type type, const void *payload,
		      size_t len, uint32_t count, uint64_t base_ts);
/* Appends one block packed already (tf_packer__pack()), with the next sequence number. */
int tf_writer__put(struct tf_writer *w, const struct tf_packed *b);
/* fdatasync(): what was appended survives a power loss. */
int tf_writer__sync(struct tf_writer *w);
uint64_t tf_writer__bytes(const struct tf_writer *w);
/* Closes; returns the first write error seen, if any. */
int tf_writer__close(struct tf_writer *w);

/* ---- reading ---- */

struct tf_reader;

struct tf_block {
	enum tf_block_type type;
	uint32_t count;
	uint64_t base_ts;
	uint64_t seq;
	off_t offset;		/* of the block header in the file */
	const uint8_t *data;	/* decompressed payload, valid until the next call */
	size_t len;
};

/* What was wrong with a file, for messages and the report. */
struct tf_damage {
	unsigned int corrupt_blocks;	/* skipped: bad payload CRC or bad zlib data */
	unsigned int resyncs;		/* corrupt headers skipped by scanning (to the
					 * next valid header or to the end) */
	uint64_t bytes_skipped;
	bool truncated;			/* ended inside a block */
	off_t truncated_at;
	off_t first_problem_at;		/* -1 if none */
};

/*
 * Opens a trace file and checks its header. On failure returns a negative
 * errno and writes a message naming the file and the problem into err.
 */
int tf_reader__open(const char *path, struct tf_reader **out, char *err, size_t errlen);
/*
 * Next intact block: 1 with *blk filled, 0 at the end of the file, or a
 * negative errno for an I/O error. Damage is skipped and accounted in
 * tf_reader__damage(); each problem is also reported through log_warn().
 */
int tf_reader__next(struct tf_reader *r, struct tf_block *blk);
const struct tf_damage *tf_reader__damage(const struct tf_reader *r);
off_t tf_reader__size(const struct tf_reader *r);
const char *tf_reader__path(const struct tf_reader *r);
/* The file's format version (TF_VERSION_OLDEST .. TF_VERSION). */
unsigned int tf_reader__version(const struct tf_reader *r);
void tf_reader__close(struct tf_reader *r);

#endif
