/* SPDX-License-Identifier: MIT */
/*
 * The data-flow critical path (docs/ALGORITHMS.md §9; Nguyen & Karavanic,
 * Workflow Critical Path): a graph whose vertices are data states (a
 * version of a file, the bytes of one write into a pipe or a socket, a
 * message) and whose edges carry data from one state to the next, built
 * from the data system calls of the traced processes; the critical path
 * into a chosen state is the chain of critical inputs, the MERGE rule of
 * the paper: at every state made from several, the input that arrived
 * last.
 *
 * This is the pure computation, over data system calls already reduced to
 * operations on numbered objects and processes (struct df_input): the
 * paper's and the note's vectors (TV-8) are checked on it without a
 * kernel. input.h builds that input from a recording's data records, and
 * stage.h is the stage the reports print.
 *
 * All times are int64 ns.
 */
#ifndef QT_DATAFLOW_H
#define QT_DATAFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What an object is (§9.2), from its S_IFMT and, for a socket, its type. */
enum df_obj_kind {
	DF_CONTENT,		/* regular file or block device: a version per mutation */
	DF_STREAM,		/* pipe, FIFO, connected stream socket: bytes matched in order */
	DF_MESSAGE,		/* datagram or seqpacket socket: the j-th read gets the j-th write */
	DF_EXTERNAL,		/* character device, socket without a known peer */
};

struct df_obj {
	uint8_t kind;		/* enum df_obj_kind */
	bool regular;		/* S_IFREG: a candidate for the default target */
};

enum df_op_kind {
	DF_OP_READ,		/* read, readv, pread64, recvfrom, ...: obj, bytes */
	DF_OP_WRITE,		/* write, writev, pwrite64, sendto, ...: obj, bytes */
	DF_OP_TRUNC,		/* open with O_TRUNC, truncate to 0: a version with no edge from the old */
	DF_OP_RENAME,		/* rename of obj: a version of the same inode (the publish step) */
	DF_OP_TRANSFER,		/* splice, sendfile, copy_file_range: obj (in) to out, at the end */
	DF_OP_TEE,		/* tee: as a transfer, but the input is not consumed */
	DF_OP_FORK,		/* proc forks child at s: the child starts with what proc has read */
};

/* One data system call that moved something (return > 0). */
struct df_op {
	int64_t s, e;		/* the call's start and end */
	uint32_t proc;		/* the process (tgid): threads share memory */
	uint8_t kind;		/* enum df_op_kind */
	uint32_t obj;		/* the object (a transfer's input) */
	uint32_t out;		/* a transfer's output */
	uint32_t child;		/* DF_OP_FORK: the new process */
	int64_t bytes;		/* moved (streams count them) */
};

struct df_input {
	const struct df_obj *objs;
	size_t nobjs;
	size_t nprocs;		/* processes are numbered 0..nprocs-1 */
	const struct df_op *ops;	/* any order */
	size_t nops;
	int64_t t_start;	/* the recording's start: the time of what was there before it */
};

/* How a state came to be. */
enum df_state_kind {
	DF_S_PRETRACE,		/* v0: what a read saw that no traced mutation made */
	DF_S_WRITE,
	DF_S_TRUNC,
	DF_S_RENAME,
	DF_S_TRANSFER,
	DF_S_EXTERNAL,		/* read from an external object: a root */
};

struct df_state {
	uint32_t obj;
	uint32_t version;	/* per object, in order of creation; 0: PRETRACE */
	int64_t t;		/* content: the mutation's end; stream, message: the write's start */
	uint32_t proc;		/* who made it (UINT32_MAX: nobody traced) */
	uint32_t op;		/* the call that made it (UINT32_MAX: PRETRACE) */
	uint8_t kind;		/* enum df_state_kind */
	bool read;		/* some read or transfer obtained it */
	/* the critical input (-1: a root), and when the process first read it (-1: the object's previous version) */
	long pred;
	int64_t pred_read_at;
};

/* One step of the path, from state `from` into state `to`. */
struct df_step {
	long from, to;
	int64_t waited;		/* the input was there, not yet read: r* - t(from) */
	int64_t in_process;	/* from the read to the new state: t(to) - r* */
};

struct dataflow {
	struct df_state *states;	/* in order of creation */
	size_t nstates;
	long *got;			/* per call: the state a read or transfer obtained (-1: none) */
	long target;			/* the default target (-1: no state) */
	int64_t b0_total;		/* bytes found in the streams before the recording (§9.4) */
	size_t clamped;			/* transfers that overlapped their own input: elapsed clamped to 0 */
};

/*
 * Builds the data-state graph of in (docs/ALGORITHMS.md §9.2-9.5) and the
 * default target (§9.6) into *out (zeroed first; free with
 * dataflow_release()). 0, -EINVAL (an object or process out of range, an
 * end before its start) or -ENOMEM.
 */
int dataflow_compute(const struct df_input *in, struct dataflow *out);
void dataflow_release(struct dataflow *d);

/*
 * The critical path into state `target`, root first, into *steps (malloc'd,
 * *n of them: one per edge). 0, -EINVAL (no such state) or -ENOMEM.
 */
int dataflow_path(const struct dataflow *d, long target, struct df_step **steps, size_t *n);

#endif
