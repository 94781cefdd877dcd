/* SPDX-License-Identifier: MIT */
/*
 * What kept a thread off its CPU inside one of its invocations: the time
 * it waited for a CPU (preempted; and of that, how long the CPU it waited
 * for ran nothing: CPU bandwidth throttling, a cgroup's quota spent),
 * slept (interruptible: it waits for an event) or was blocked
 * (uninterruptible: disk I/O, a kernel lock, the kernel throttling a
 * writer of dirty pages), and the system call it spent most of that time
 * in.
 *
 * The critical path explains a late invocation by what it waited for. A
 * recorder whose write() the kernel holds 160 ms has nothing to wait for
 * that the trace shows as a thread: the path says "waits within the
 * invocation" or names the timer the kernel slept on. The holdup names the
 * call and the kind of sleep, which is the answer. Likewise a pipeline in
 * a cgroup whose CPU quota is spent waits runnable beside an idle CPU:
 * the path says "CPU wait", behind nobody.
 *
 * The gaps between the invocation's runs are the off-CPU time; each gap
 * takes its kind from how the run before it ended (tl_run.end_state) and
 * belongs to the recorded call of the thread it lies in, if any. Calls are
 * recorded for the threads of the traced command.
 */
#ifndef QT_HOLDUP_H
#define QT_HOLDUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct actor;
struct actor_break;
struct timeline;

#define HOLDUP_NO_CALL UINT32_MAX

/* What an explaining holdup tells (holdup__explains). */
enum holdup_why {
	HOLDUP_NONE,
	HOLDUP_IN_CALL,		/* asleep or blocked in call_nr */
	HOLDUP_KERNEL,		/* blocked outside any recorded call */
	HOLDUP_CPU_IDLE,	/* runnable while the CPU it waited for ran nothing */
};

struct holdup {
	int64_t off_ns;			/* off a CPU between the invocation's runs */
	int64_t runnable_ns;		/* of which preempted: waiting for a CPU */
	int64_t runnable_idle_ns;	/* of that, while that CPU ran no thread */
	int64_t sleep_ns;		/* of which asleep (interruptible) */
	int64_t blocked_ns;		/* of which blocked (uninterruptible) */
	/* The call that held the most of off_ns, HOLDUP_NO_CALL if none did. */
	uint32_t call_nr;
	uint64_t call_arg0;
	int64_t call_start_ns, call_end_ns;	/* the whole call */
	int64_t call_off_ns;		/* its part of off_ns */
	int64_t call_sleep_ns;		/* of which asleep */
	int64_t call_blocked_ns;	/* of which blocked */
	/* holdup__explains: what it tells, and how much of the overrun that covers */
	enum holdup_why why;
	int64_t told_ns;
};

/* The holdup of thread runs [first, last] (indices into tl->runs, one thread). */
void holdup__of_runs(const struct timeline *tl, size_t first, size_t last, struct holdup *h);

/*
 * The actors' stage keeps the result in each break (actor_break.held),
 * so that every report reads one answer.
 *
 * The holdup of a break's target invocation when the target overran and
 * half its overrun or more is a sleep or a block in one call, a block
 * anywhere, or a wait for a CPU that ran nothing (h->why, h->told_ns).
 * False otherwise (no overrun, a system-call actor, or time spent waiting
 * behind other threads, which the critical path names).
 */
bool holdup__explains(const struct timeline *tl, const struct actor *ac, const struct actor_break *b,
		      struct holdup *h);

/*
 * "165 ms blocked in writev()", "12 ms asleep in futex()", "160 ms blocked
 * in the kernel", "267 ms runnable on an idle CPU (CPU quota
 * throttling?)" for an explaining holdup; arch names the calls.
 */
void holdup__describe(const struct holdup *h, const char *arch, char *buf, size_t len);

/* "blocked", "asleep", "throttled": how the explaining holdup spent its time off a CPU. */
const char *holdup__state(const struct holdup *h);

#endif
