/*
 * The recorder: loads and attaches the BPF programs, drains the ring buffer
 * on a timer (the kernel wakes it early only when the buffer fills), feeds
 * the writer, and finishes the file on every way a recording can end.
 */
#ifndef QT_RECORDER_H
#define QT_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qt_events.h"

enum rec_mode {
	REC_MODE_COMMAND,	/* start a command, trace it and its descendants */
	REC_MODE_PIDS,		/* attach to running processes */
	REC_MODE_ALL,		/* every thread is a target */
};

/*
 * How the programs attach (docs/DESIGN.md §2a), best first; AUTO: the best
 * this kernel allows (src/record/probe.c decides).
 */
enum rec_backend {
	REC_BACKEND_AUTO,
	REC_BACKEND_BTF,	/* tp_btf, the kernel's own BTF (Linux 5.18+) */
	REC_BACKEND_CORE,	/* raw_tp with CO-RE reads, kernel BTF or --btf FILE (4.17+) */
	REC_BACKEND_TRACEFS,	/* classic tracepoints, offsets from tracefs, no BTF */
};

/* Where the programs put their records; AUTO: the ring buffer where there is one. */
enum rec_buffer {
	REC_BUFFER_AUTO,
	REC_BUFFER_RING,	/* one BPF ring buffer for all CPUs (Linux 5.8+) */
	REC_BUFFER_PERF,	/* a perf buffer per CPU */
};

struct writer_sink;

/* Where a recording stands, for recorder_opts.on_poll. */
struct recorder_progress {
	uint64_t start_ns;		/* CLOCK_MONOTONIC, as the records' times */
	uint64_t now_ns;
	uint64_t events;		/* records taken from the kernel's buffer */
	uint64_t lost;			/* failed reservations in the kernel (read once a second) */
};

struct recorder_opts {
	enum rec_mode mode;
	char *const *argv;		/* a command to run: the target in REC_MODE_COMMAND;
					 * with REC_MODE_ALL it only bounds the recording */
	const uint32_t *pids;		/* REC_MODE_PIDS: pids or tids */
	size_t npids;
	uint64_t duration_ns;		/* 0: until the command/targets exit or a signal */
	const char *path;
	bool force;
	uint64_t ring_bytes;		/* power of two; default 32 MiB (a perf buffer's are per CPU) */
	enum rec_backend backend;	/* forced with --backend, else AUTO */
	enum rec_buffer buffer;
	const char *btf_path;		/* --btf: the kernel's BTF from a file (CO-RE only) */
	unsigned int poll_ms;		/* default 100 */
	bool no_syscalls, no_irqs;
	/*
	 * The data-flow records (QT_REC_DATA) of the targets' data calls:
	 * 1 --data, -1 --no-data, 0 the default: on, except with -a
	 * (every thread's data calls: docs/DESIGN.md §2). Never without
	 * system calls.
	 */
	int data;
	int zlevel;			/* default 1 */
	const char *cmdline;		/* stored in the file's META block */
	bool quiet;			/* no status line, no summary */
	/*
	 * watch: the blocks go to sink instead of a file at path
	 * (writer.h), closed at block_bytes of packed records or block_ns
	 * old, with at most queue_bytes of records in flight (0: the
	 * writer's defaults).
	 */
	const struct writer_sink *sink;
	size_t block_bytes, queue_bytes;
	uint64_t block_ns;
	/*
	 * Called after every drain of the buffer (every poll_ms or sooner)
	 * when set; a non-NULL return stops the recording, with that
	 * string as the reason.
	 */
	const char *(*on_poll)(void *arg, const struct recorder_progress *p);
	void *arg;
};

struct recorder_summary {
	uint64_t events;		/* records written */
	uint64_t by_type[QT_REC_MAX];
	uint64_t lost;			/* failed reservations in the kernel, all CPUs */
	uint64_t lost_by_type[QT_REC_MAX];
	uint64_t user_dropped;		/* records the writer could not store */
	uint64_t missed;		/* tracepoint hits the kernel ran no program for */
	uint64_t file_bytes;
	uint64_t start_ns, stop_ns;
	int exit_status;		/* of the command (waitpid status), -1 if none */
	const char *reason;		/* why the recording stopped */
	enum rec_backend backend;	/* the attach path and buffer it recorded with */
	enum rec_buffer buffer;
	int write_err;
};

/*
 * Records until the command exits, the duration elapses, all -p targets
 * are gone, SIGINT/SIGTERM arrives, or writing fails. The file is finished
 * in every case. Returns 0 or a negative errno (after printing why).
 */
int recorder_run(const struct recorder_opts *opts, struct recorder_summary *sum);

/*
 * NULL where this build can record; otherwise why not (a build without
 * its BPF programs: record/recorder_none.c).
 */
const char *recorder_missing(void);

#endif
