/* SPDX-License-Identifier: MIT */
/*
 * Faulting fresh memory in ahead of the thread that fills it, on a spare
 * CPU. The kernel clears every page a process touches for the first time;
 * loading a recording and building its timeline write several hundred MB
 * in order, one thread each, and on a virtual machine whose host backs a
 * page only at its first touch that clearing was 60 % of their time
 * (README.md, Performance). A helper thread asks the kernel to fault the
 * pages in (MADV_POPULATE_WRITE, Linux 5.14) a little ahead of the writer,
 * which then finds them present: the clearing runs beside the work instead
 * of inside it.
 *
 * The helper never writes: populating leaves the contents as they are, so
 * it may run over pages the writer is filling. It never goes further than
 * `ahead` bytes past what the writer said it has reached, so an array
 * allocated larger than it ends up does not cost its whole length.
 *
 *    writer:   [xxxxxxxxxxxxxx|..............................]
 *                             done
 *    helper:   [pppppppppppppppppppppp|.......................]
 *                                     at most done + ahead
 */
#ifndef QT_PREFAULT_H
#define QT_PREFAULT_H

#include <stddef.h>

struct prefault;

/* Below this many bytes a helper thread costs more than it saves. */
#define PREFAULT_MIN (8u << 20)
/* How far ahead of the writer a helper stays when asked for "the whole". */
#define PREFAULT_ALL ((size_t)-1)

/*
 * Starts a helper over [p, p + len) that stays at most `ahead` bytes past
 * the writer (PREFAULT_ALL: the whole range at once, for an array filled
 * to its end). NULL where it cannot help: len below PREFAULT_MIN, one CPU
 * to run on (workq_cpus_usable()), no thread to be had. The writer's own
 * writes then fault the pages in, as without it; every function here
 * takes NULL.
 */
struct prefault *prefault__start(void *p, size_t len, size_t ahead);

/*
 * Several arrays filled side by side, each to its end (n at most
 * PREFAULT_MAX_RANGES; NULL entries are skipped): one helper faults them
 * in, one after the other.
 */
#define PREFAULT_MAX_RANGES 8
struct prefault *prefault__start_all(void *const p[], const size_t len[], int n);

/*
 * The writer has filled the first `done` bytes. Cheap: it wakes the helper
 * only when that lets it go on (call it as often as is convenient).
 */
void prefault__reach(struct prefault *pf, size_t done);

/*
 * Stops the helper and waits for it (at most one step of a few MB): call
 * it before the memory is freed, moved or unmapped.
 */
void prefault__stop(struct prefault *pf);

/*
 * Bytes the helper asked the kernel to fault in (for the tests): the
 * kernel may still have skipped pages already present.
 */
size_t prefault__done(struct prefault *pf);

#endif
