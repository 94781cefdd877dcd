/* What /proc says about the threads on the system. */
#ifndef QT_PROCFS_H
#define QT_PROCFS_H

#include <stddef.h>
#include <stdint.h>

#include "file/tracefile.h"

/* Every thread of every process: tid, tgid, ppid, comm, kernel-thread flag. */
int procfs_threads(struct tf_thread **out, size_t *n);

/* How many threads the system has now (/proc/loadavg), 0 if unknown. */
uint32_t procfs_nr_threads(void);

/* The process (tgid) a pid or tid belongs to; -ESRCH if it does not exist. */
int procfs_tgid_of(uint32_t id, uint32_t *tgid);

/* On-CPU time of a thread from /proc/<pid>/task/<tid>/schedstat (ns). */
int procfs_schedstat(uint32_t pid, uint32_t tid, uint64_t *run_ns, uint64_t *wait_ns,
		     uint64_t *slices);

#endif
