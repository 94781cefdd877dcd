/*
 * What the kernel and the process must provide before qostrace can record.
 * All checks live here, each naming the kernel release that brought the
 * feature, so that a missing one gives one clear message instead of a
 * verifier log.
 */
#ifndef QT_PROBE_H
#define QT_PROBE_H

#include <stddef.h>

/*
 * Checks privileges, BTF, the ring buffer, task storage and the
 * sched_switch prototype. Returns 0, or a negative errno with a message in
 * msg saying what is missing and what to do.
 */
int probe_recording(char *msg, size_t len);

/* Only the privilege part (root, or CAP_BPF + CAP_PERFMON). */
int probe_privileges(char *msg, size_t len);

#endif
