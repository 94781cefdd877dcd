/* SPDX-License-Identifier: MIT */
/*
 * What qostrace record and qostrace watch take alike: the targets (a
 * command after --, -p PID, -a), what is recorded (--no-syscalls,
 * --no-irqs) and how (--buffer-size, --backend, --btf). Each command lists
 * the options in its own table, with its own help, under the keys below;
 * its parse_opt hands them here first, so that a bad value is the same
 * usage error in both and both record the same way.
 */
#ifndef QT_RECORD_ARGS_H
#define QT_RECORD_ARGS_H

#include <argp.h>
#include <stdbool.h>
#include <stdint.h>

#include "record/recorder.h"

#define RECORD_ARGS_MAX_PIDS 256

/* The option keys (beside 'p' and 'a'); a command's own keys start at RECORD_ARGS_KEY_END. */
enum {
	RECORD_ARGS_BUFFER = 0x100,
	RECORD_ARGS_NO_SYSCALLS,
	RECORD_ARGS_NO_IRQS,
	RECORD_ARGS_BACKEND,
	RECORD_ARGS_BTF,
	RECORD_ARGS_DATA,
	RECORD_ARGS_NO_DATA,
	RECORD_ARGS_KEY_END,
};

struct record_args {
	struct recorder_opts o;		/* o.pids points into pids once record_args_finish() ran */
	uint32_t pids[RECORD_ARGS_MAX_PIDS];
	bool all;			/* -a */
};

/*
 * Takes key (with its arg) when it is one of the shared options or the
 * command after the options (ARGP_KEY_ARG: the rest of argv is the
 * command's); true when it did. A bad value is an argp_error() that names
 * the option and shows a valid one.
 */
bool record_args_parse(struct record_args *a, int key, char *arg, struct argp_state *state);

/*
 * At ARGP_KEY_END: something to record (a command, -p or -a), and -p alone;
 * verb names the command in the message ("nothing to record").
 */
void record_args_check(const struct record_args *a, struct argp_state *state, const char *verb);

/* After parsing: the recorder's mode and pids. */
void record_args_finish(struct record_args *a);

/* The words of a NULL-terminated argv joined by spaces (for META), malloc'd; NULL when out of memory. */
char *record_args_cmdline(char *const *argv);

#endif
