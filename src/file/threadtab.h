/*
 * Who a tid is at a given moment. A thread table is built from the /proc
 * snapshot taken at the start, the fork/exec/rename/exit records, and the
 * snapshot at the end; it answers (tid, time) -> thread, with its process and
 * its name at that time. A tid reused after an exit is a new thread.
 */
#ifndef QT_THREADTAB_H
#define QT_THREADTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracefile.h"

#define TT_NONE UINT32_MAX

#define TT_KTHREAD 0x1	/* kernel thread */
#define TT_BORN 0x2	/* forked during the recording */
#define TT_DIED 0x4	/* exited during the recording */
#define TT_EXECED 0x10	/* started a new program during the recording */
#define TT_GUESSED 0x8	/* seen in records only: name from the end snapshot or unknown */

struct tt_thread {
	uint32_t tid, pid;
	uint32_t flags;
	uint64_t birth, death;		/* 0 / UINT64_MAX when outside the recording */
	char comm[16];			/* the last name it had */
	uint32_t names;			/* first entry of its name history, TT_NONE if one name */
	uint32_t older;			/* the previous thread with this tid, TT_NONE */
};

struct threadtab;

struct threadtab *threadtab__new(void);
void threadtab__free(struct threadtab *tt);

/*
 * Building, in time order: snapshot at the start, then the lifecycle events,
 * then the end snapshot (which only names threads not known otherwise).
 * A comm is a 16-byte field, NUL-terminated if shorter; at most 15 bytes are
 * kept.
 */
int threadtab__snapshot(struct threadtab *tt, const struct tf_thread *t, size_t n, uint64_t ts,
			bool at_end);
/* A child of kthreadd (parent_pid 2) is a kernel thread. */
int threadtab__fork(struct threadtab *tt, uint64_t ts, uint32_t tid, uint32_t pid, uint32_t parent_pid,
		    const char *comm);
/* A rename that is an exec: also flags the thread TT_EXECED. */
int threadtab__exec(struct threadtab *tt, uint64_t ts, uint32_t tid, uint32_t pid, const char *comm);
int threadtab__rename(struct threadtab *tt, uint64_t ts, uint32_t tid, uint32_t pid,
		      const char *comm);
int threadtab__exit(struct threadtab *tt, uint64_t ts, uint32_t tid, uint32_t pid,
		    const char *comm);

/*
 * The thread that had this tid at ts; created (TT_GUESSED) if the tid was
 * never seen, with pid_hint as its process. Returns an index or TT_NONE on
 * allocation failure. tid 0 (the idle task) is never a thread: TT_NONE.
 */
uint32_t threadtab__resolve(struct threadtab *tt, uint32_t tid, uint64_t ts, uint32_t pid_hint);

/* Names threads that are still unnamed from the end snapshot. */
void threadtab__name_from(struct threadtab *tt, const struct tf_thread *t, size_t n);

size_t threadtab__count(const struct threadtab *tt);
const struct tt_thread *threadtab__get(const struct threadtab *tt, uint32_t idx);
/* Its name at time ts (names change with exec and prctl). */
const char *threadtab__comm_at(const struct threadtab *tt, uint32_t idx, uint64_t ts);

#endif
