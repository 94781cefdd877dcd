/* SPDX-License-Identifier: MIT */
/*
 * A recording's data records (QT_REC_DATA, include/qt_events.h) reduced
 * to the input of the data-flow graph (struct df_input, dataflow.h), with
 * what a person needs to read the answer: each object's identity and
 * each call's thread and record.
 *
 * Objects (docs/ALGORITHMS.md §9.2) are numbered by (device, inode,
 * S_IFMT); a connected AF_UNIX socket by its direction (the writer's end,
 * the reader's end), so that a socket pair is one stream or message
 * object each way. A socket without a known peer (TCP, UDP, an unconnected
 * datagram socket) and a character device are external. Processes are
 * numbered by tgid (threads share memory); the new processes of the fork
 * records pass what their parent read (DF_OP_FORK).
 */
#ifndef QT_DATAFLOW_INPUT_H
#define QT_DATAFLOW_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "dataflow.h"
#include "file/trace.h"

/* One object's identity: for a socket direction, ino is the writer's end and peer the reader's. */
struct df_key {
	uint64_t ino, peer;
	uint32_t dev, mode;	/* mode as struct qt_data_obj's */
};

struct df_recording {
	struct df_input in;	/* points into the arrays below */
	struct df_obj *objs;
	struct df_key *keys;	/* per object */
	char (*names)[QT_DATA_NAME_LEN];	/* per object: its file's name at its last open ("": none seen) */
	uint32_t *tgids;	/* per process */
	struct df_op *ops;
	uint32_t *op_tid;	/* per op: the thread that made the call (a fork: the child's) */
	long *op_rec;		/* per op: its record in trace.data (-1: a fork) */
	size_t unresolved;	/* data records left out: a descriptor not resolved, an unknown call */
};

/*
 * Builds *r (zeroed first; free with df_recording_release()) from t's
 * data and fork records; in.t_start is the recording's start. 0 or
 * -ENOMEM. A recording without data records gives an input with no ops.
 */
int df_recording_build(const struct trace *t, struct df_recording *r);
void df_recording_release(struct df_recording *r);

/*
 * Object obj's identity: "pipe:[INO]", "MAJ:MIN:INO", "unix
 * stream:[A]->[B]" for a socket direction, ... (src/file/dataobj.h).
 */
const char *df_recording_obj_name(const struct df_recording *r, uint32_t obj, char *buf, size_t len);

/* Object obj as a person reads it: "NAME (MAJ:MIN:INO)" where an open named it, else its identity. */
const char *df_recording_obj_label(const struct df_recording *r, uint32_t obj, char *buf, size_t len);

#endif
