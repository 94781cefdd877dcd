/* What a recording targets: a command it starts, running processes, or all. */
#ifndef QT_TARGET_H
#define QT_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Forks the command held at the starting line: it execs only after
 * target_release(), once the BPF programs are attached, so that nothing it
 * does escapes the recording. Returns the child's pid or a negative errno.
 */
pid_t target_spawn(char *const argv[], int *go_fd, int *status_fd);

/*
 * Lets the spawned command exec and waits until it has: 0, or the negative
 * errno of a failed exec. Closing go_fd instead aborts the command.
 */
int target_release(int go_fd, int status_fd);

/*
 * Resolves pids or tids given with -p into their processes (tgids), without
 * duplicates. Fails with -ESRCH naming the first one that does not exist.
 */
int target_resolve(const uint32_t *ids, size_t n, uint32_t *tgids, size_t *ntgids,
		   uint32_t *bad_id);

#endif
