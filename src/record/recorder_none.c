// SPDX-License-Identifier: MIT
/*
 * The recorder of a build that could not make the BPF programs (no clang,
 * no bpftool, or no kernel BTF to generate vmlinux.h from): the program
 * still reads, reports and exports trace files recorded elsewhere, and
 * says why it cannot record instead of failing to build.
 */
#include <errno.h>

#include "lib/log.h"
#include "recorder.h"

#ifndef QOSTRACE_NO_RECORDER_WHY
#define QOSTRACE_NO_RECORDER_WHY "the BPF programs were not built"
#endif

const char *recorder_missing(void)
{
	return QOSTRACE_NO_RECORDER_WHY;
}

int recorder_run(const struct recorder_opts *opts, struct recorder_summary *sum)
{
	(void)opts;
	*sum = (struct recorder_summary){ .exit_status = -1 };
	log_err("this qostrace cannot record: it was built without its BPF programs (%s). "
		"It reads, reports and exports trace files recorded elsewhere; "
		"build on a machine with clang, bpftool and a kernel BTF to record.", recorder_missing());
	return -ENOTSUP;
}
