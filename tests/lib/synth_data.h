/*
 * Data records (QT_REC_DATA) for a trace built with synth_trace.h: the
 * objects of docs/ALGORITHMS.md §9.2 as the recorder gives them, and the
 * calls on them, times in ms (exact in ns).
 *
 *   struct synth *s = synth_new(0, SD_MS(100), 1);
 *   synth_data_on(s);
 *   sd_call(s, 10, 12, 101, "write", sd_file(11), SD_NONE, 100);
 */
#ifndef QT_SYNTH_DATA_H
#define QT_SYNTH_DATA_H

#include <stdbool.h>
#include <sys/stat.h>

#include "file/syscall_names.h"
#include "synth_trace.h"

#define SD_MS(v) ((uint64_t)((v) * 1000000.0 + 0.5))
#define SD_DEV(maj, min) ((uint32_t)(maj) << 20 | (min))
#define SD_NONE ((struct qt_data_obj){ 0 })

/* A recording with data records (format 3, the "data" feature) of x86_64 calls. */
static inline void synth_data_on(struct synth *s)
{
	s->t->format_version = 3;
	tf_kv_set(&s->t->meta, TF_META_FEATURES, "sched,wakeup,lifecycle,syscalls,irqs,data");
	tf_kv_set(&s->t->meta, TF_META_MODE, "command");
}

static inline struct qt_data_obj sd_file(uint64_t ino)
{
	return (struct qt_data_obj){ .ino = ino, .dev = SD_DEV(8, 1), .mode = S_IFREG };
}

static inline struct qt_data_obj sd_pipe(uint64_t ino)
{
	return (struct qt_data_obj){ .ino = ino, .dev = SD_DEV(0, 14), .mode = S_IFIFO };
}

static inline struct qt_data_obj sd_chr(uint64_t ino)
{
	return (struct qt_data_obj){ .ino = ino, .dev = SD_DEV(0, 25), .mode = S_IFCHR };
}

/* A socket: family 1 (AF_UNIX) with its peer, or 2 (AF_INET); type 1 stream, 2 datagram. */
static inline struct qt_data_obj sd_sock(uint64_t ino, uint64_t peer, unsigned int family, unsigned int type)
{
	return (struct qt_data_obj){ .ino = ino, .peer = peer, .dev = SD_DEV(0, 8),
				     .mode = S_IFSOCK | type << 16 | family << 24 };
}

/* One data call of process pid (its main thread) from s_ms to e_ms. */
static inline void sd_call(struct synth *s, double s_ms, double e_ms, uint32_t pid, const char *call,
			   struct qt_data_obj o0, struct qt_data_obj o1, int64_t bytes)
{
	struct qt_data r = { .h = { .ts = SD_MS(s_ms), .type = QT_REC_DATA } };

	r.end_ts = SD_MS(e_ms);
	r.tid = r.tgid = pid;
	r.nr = (uint32_t)syscall_number("x86_64", call);
	r.bytes = bytes;
	r.obj[0] = o0;
	r.obj[1] = o1;
	SYNTH_PUSH_REC(s->t->data, s->t->ndata, r);
}

/* An openat of a file by pid: with O_TRUNC when trunc; its name (NULL: none recorded). */
static inline void sd_open(struct synth *s, double s_ms, double e_ms, uint32_t pid, struct qt_data_obj o, bool trunc,
			   const char *name)
{
	sd_call(s, s_ms, e_ms, pid, "openat", o, SD_NONE, 0);
	if (trunc)
		s->t->data[s->t->ndata - 1].h.flags |= QT_DATA_TRUNC;
	if (name) {
		s->t->data[s->t->ndata - 1].h.flags |= QT_DATA_NAMED;
		snprintf(s->t->data[s->t->ndata - 1].name, QT_DATA_NAME_LEN, "%s", name);
	}
}

/* Process child forked by parent at at_ms. */
static inline void sd_fork(struct synth *s, double at_ms, uint32_t parent, uint32_t child, const char *comm)
{
	synth_task(s, QT_REC_FORK, SD_MS(at_ms), child, child, parent, parent, comm);
}

/*
 * docs/ALGORITHMS.md TV-8.2 as data records: files a (8:1:11), b (12) and
 * out (13), a terminal (0:25:4); P1 (101) writes a [10,12], P2 (102) b
 * [5,6], P3 (103) reads a [13,14] and b [15,16] and forks P4 (104) at 17,
 * P4 writes out [20,25], P2 the terminal [30,31]. The answer: out.v1 <-
 * a.v1 read by P3 at 14, b.v1 the other input (slack 6).
 */
static inline void sd_tv82(struct synth *s)
{
	synth_data_on(s);
	synth_thread(s, 101, 101, "p1");
	synth_thread(s, 102, 102, "p2");
	synth_thread(s, 103, 103, "p3");
	sd_call(s, 10, 12, 101, "write", sd_file(11), SD_NONE, 100);
	sd_call(s, 5, 6, 102, "write", sd_file(12), SD_NONE, 100);
	sd_call(s, 13, 14, 103, "read", sd_file(11), SD_NONE, 100);
	sd_call(s, 15, 16, 103, "pread64", sd_file(12), SD_NONE, 100);
	sd_fork(s, 17, 103, 104, "p4");
	sd_call(s, 20, 25, 104, "writev", sd_file(13), SD_NONE, 100);
	sd_call(s, 30, 31, 102, "write", sd_chr(4), SD_NONE, 10);
}

#endif
