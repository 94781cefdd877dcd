/* SPDX-License-Identifier: MIT */
/*
 * The data-flow critical path of a recording (docs/DESIGN.md §8,
 * docs/ALGORITHMS.md §9.6): its data records as the graph's input
 * (input.h), the graph (dataflow.h), the target (report --data-path
 * OBJECT, else §9.6's default) and the path into it, compressed for a
 * person: consecutive versions of one object by one process are one hop;
 * each hop with the time its input waited and the time in its process;
 * the share of each process; at each merge on the path the inputs that
 * were not critical, with their slack. The renderers (report/text_dataflow.c,
 * json_dataflow.c) only print this.
 */
#ifndef QT_DATAFLOW_STAGE_H
#define QT_DATAFLOW_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataflow.h"
#include "file/trace.h"
#include "input.h"
#include "qt_events.h"
#include "timeline/timeline.h"

struct dataflow_opts {
	bool asked;		/* report --data-path: a recording without data records is an error */
	const char *target;	/* report --data-path=OBJECT (dataobj_parse()); NULL: the default */
};

/* One hop: versions v_first..v_last of object obj, made by process proc. */
struct df_hop {
	uint32_t obj, proc;
	uint32_t tgid, tid;		/* the thread of the hop's last call */
	char comm[QT_COMM_LEN];		/* its name then */
	uint32_t v_first, v_last;
	int64_t t_first, t_last;	/* the first and last state's times */
	uint8_t kind;			/* enum df_state_kind of the first state */
	/* the previous hop's last state read by this process at (-1: the root hop) */
	int64_t read_at;
	int64_t waited, in_process;	/* of the steps into this hop's states (§9.6) */
	size_t other0, nother;		/* its merges' other inputs: others[other0 ..) */
	/* the calls (ops of rec.in) that read its input and made its last state; -1: none */
	long read_op, made_op;
};

/* A non-critical input of a merge on the path: what it could have been late by. */
struct df_other {
	size_t hop;			/* the hop whose first state it fed */
	uint32_t obj, version, proc;	/* proc UINT32_MAX: made by nobody traced */
	int64_t t;
	int64_t slack;			/* t(critical input) - t */
};

struct df_share {
	uint32_t proc, tgid;
	char comm[QT_COMM_LEN];		/* its leader thread's (tid = tgid) name */
	int64_t in_process;		/* its hops' in-process time */
};

struct dataflow_result {
	struct df_recording rec;
	struct dataflow d;
	long target;			/* -1: no state (no data call moved anything) */
	bool named;			/* chosen by --data-path */
	struct df_hop *hops;		/* root first */
	size_t nhops;
	struct df_other *others;
	size_t nothers;
	struct df_share *shares;	/* largest first */
	size_t nshares;
	int64_t elapsed;		/* t(target) - t(root) */
	int64_t waited;			/* the waits summed */
	size_t nops;			/* data calls in the graph */
	size_t renames;			/* the targets' renames: not in the graph (no inode recorded) */
	bool lost;			/* the recording lost records: stream matching is approximate */
};

/*
 * Why t has no data records, in words ("the recording was made by the
 * tracefs path, which cannot ..."), or NULL when it has them (even none:
 * the targets made no data call).
 */
const char *dataflow_unavailable(const struct trace *t, char *buf, size_t len);

/*
 * The stage (tl: the recording's timeline, for the renames the graph
 * leaves out; NULL: none counted). *out NULL when dataflow_unavailable() (unless o->asked).
 * 0, -ENOMEM; with o->asked, -ENODATA when the recording has no data
 * records; with o->target, -EINVAL (not an OBJECT) or -ESRCH (no call
 * made a version of it); each after a message saying which.
 */
int dataflow__analyse(const struct trace *t, const struct timeline *tl, const struct dataflow_opts *o,
		      struct dataflow_result **out);
void dataflow__free(struct dataflow_result *r);

/* Process proc in words: "comm/tgid" of its last hop's thread, "pid TGID", or "nobody traced". */
const char *dataflow_proc_name(const struct dataflow_result *r, uint32_t proc, char *buf, size_t len);

#endif
