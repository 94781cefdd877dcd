/* SPDX-License-Identifier: MIT */
/*
 * Writing a window to disk: an ordinary trace file that every command
 * reads (src/file/tracefile.h). META is the recording's, with its start
 * moved to the window and the watch keys (TF_META_WATCH_*: what asked
 * for it, the actors watched, the breaks inside it); THREADS is the table
 * as of the window's first block (threads.h); the EVENTS blocks are the
 * ring's, copied as they are; then the table at its end and END with the
 * losses inside the window.
 *
 * The file is written under a hidden temporary name in the same
 * directory (".NNNN-....qtrace.part"), synced, and renamed: a watcher
 * killed while writing leaves no file under a window's name, and the
 * next one removes the part it left (window_clean).
 */
#ifndef QT_WATCH_WINDOW_H
#define QT_WATCH_WINDOW_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "file/codec.h"
#include "file/tracefile.h"
#include "trigger.h"

struct history;
struct ring;
struct threads;

/* Which blocks a window takes, and what they cover. */
struct window_plan {
	uint64_t first_seq, last_seq;
	uint64_t first_ts;		/* the first block's base time: the window's start */
	uint64_t last_ts;		/* the latest record of the last block: its end */
	uint64_t bytes;			/* of the blocks */
	uint64_t cut_ns;		/* of the start asked for, gone from the ring already */
};

struct window_in {
	const char *dir;
	unsigned int number;		/* NNNN of the file name */
	struct ring *ring;
	const struct tf_kv *meta;	/* the recording's META */
	const char *cmdline;		/* the watch command line */
	const struct threads *threads;
	const union qt_record *losses;	/* the recording's loss records (history__losses) */
	size_t nlosses;
	const struct trig_window *w;
	const struct trig_break *breaks;	/* the major breaks inside it, as the detector decided */
	size_t nbreaks;
	const char *actors;		/* the actors watched, as --actor specs separated by spaces */
	int64_t late_ns;		/* --late, 0: a tenth of the period */
	uint64_t max_bytes;		/* refuse (-EDQUOT) a window that would be larger */
};

struct window_out {
	char path[PATH_MAX];
	uint64_t bytes;
	uint64_t first_ts, last_ts;	/* what it covers */
	uint64_t events, lost;
	uint64_t cut_ns;		/* of its start, gone from the ring before it was written */
};

/*
 * The blocks covering [from, to] (ring__span) and what they cover, the
 * last block read to find its latest record. 0, -ENODATA (the ring holds
 * none of it), -ENOMEM.
 */
int window_plan(struct ring *r, uint64_t from, uint64_t to, struct window_plan *p);

/*
 * The records of plan p's blocks into h (its tracked threads' and the
 * losses): what the window's file will hold, for its verdict. The
 * earliest record's time into *first_ts. 0, -ESTALE (a block left the
 * ring meanwhile), -EINVAL (one does not unpack), -ENOMEM.
 */
int window_records(struct ring *r, const struct window_plan *p, struct history *h, uint64_t *first_ts);

/*
 * Writes the window of plan p: 0, or a negative errno with a message in
 * err (-EDQUOT: the file would be larger than max_bytes, --max-disk's
 * room; -ESTALE: the ring dropped a block meanwhile; -EFBIG, -ENOSPC and
 * the others: the file system refused), nothing left behind.
 */
int window_write(const struct window_in *in, const struct window_plan *p, struct window_out *out, char *err,
		 size_t errlen);

/*
 * The file name of a window: NNNN-LABEL-LATE.qtrace, the label the
 * actor's thread name (file-safe) or "manual", the lateness rounded
 * ("25ms", "1.2s", "800us"; none for a manual window).
 */
void window_name(char *buf, size_t len, unsigned int number, const char *label, int64_t late_ns);

/*
 * In dir: the first number after the windows already there (so that a
 * second watch adds to them), and the parts a killed watcher left
 * removed (their count in *removed). 0 or a negative errno.
 */
int window_clean(const char *dir, unsigned int *next_number, unsigned int *removed);

#endif
