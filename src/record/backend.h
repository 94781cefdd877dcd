/*
 * The BPF side of a recording, whichever way it attaches: one interface
 * over the attach paths (probe.h) and buffers (evbuf.h). The recorder
 * opens a backend, gives it the targets, attaches, drains it on a timer,
 * reads its loss counters, detaches and destroys it; it never needs to
 * know which path or buffer is underneath.
 *
 * Private to src/record/.
 */
#ifndef QT_BACKEND_H
#define QT_BACKEND_H

#include <stdint.h>

#include "evbuf.h"
#include "probe.h"
#include "qt_events.h"
#include "qt_knobs.h"
#include "file/tracefile.h"

struct backend;

struct backend_opts {
	const struct probe_choice *choice;	/* the path and buffer, from probe_choose() */
	const char *btf_path;			/* --btf FILE (core only) */
	struct qt_knobs knobs;			/* self_tgid, all_targets, want_*: set by the caller */
	uint64_t buffer_bytes;			/* all CPUs */
	uint32_t threads;			/* threads on the system now: sizes the per-thread maps */
};

/*
 * Opens the BPF object of the chosen path, sets its knobs, keeps only the
 * programs of that path (without system calls when !knobs.want_syscalls),
 * loads them and opens the buffer with fn(ctx, record, size) as its
 * consumer. Nothing is attached yet. Returns 0 or a negative errno after
 * logging why (run with -vvv for the verifier's log).
 */
int backend__open(const struct backend_opts *o, evbuf_record_fn fn, void *ctx, struct backend **out);

/* Records the system calls of this process (tgid) and of the processes it forks. 0 or -errno. */
int backend__add_target(struct backend *b, uint32_t tgid);

/*
 * Attaches every program, the exit halves before the entries (an entry
 * seen without its exit would leave a CPU "in interrupt"). Optional ones
 * (timers, IPIs: ctx_*) that this kernel lacks are skipped.
 */
int backend__attach(struct backend *b);

/*
 * The threads known from /proc when the recording starts: the tracefs path
 * learns their processes (its records carry tids only). Call after
 * backend__attach(), so that a thread is known one way or the other.
 */
void backend__known_threads(struct backend *b, const struct tf_thread *t, size_t n);

/*
 * What this backend cannot record, as the trace file's META key "missing"
 * lists it (src/file/missing.h; "" for nothing): the paths with BTF record
 * everything, the tracefs path the kernel's CPU time of the threads whose
 * scheduling class does not emit sched_stat_runtime on this kernel, or of
 * every thread where there is no such event.
 */
const char *backend__missing(const struct backend *b);

/* Drains the buffer into the consumer; see evbuf__consume(). */
int backend__consume(struct backend *b);

/* The bytes of the smallest buffer (evbuf__capacity()). */
uint64_t backend__capacity(const struct backend *b);

/*
 * The per-CPU counters of the programs (ncpus entries) into v, with the
 * perf buffer's own loss reports folded in: a CPU's lost count is the
 * larger of the two, so a loss is never missed nor counted twice.
 */
int backend__cpu_stats(struct backend *b, struct qt_cpu_stats *v, int ncpus);

/*
 * Tracepoint hits the kernel ran no program for, because one was already
 * running on that CPU (a program's recursion_misses: kernels count them
 * for raw tracepoints since 5.x, for classic ones since 6.x; 0 before).
 */
uint64_t backend__missed(struct backend *b);

/* Stops the programs; the buffer keeps what they wrote. */
void backend__detach(struct backend *b);

/* Accepts NULL. */
void backend__destroy(struct backend *b);

#endif
