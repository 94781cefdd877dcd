/* SPDX-License-Identifier: MIT */
/*
 * A player thread released every 10 ms by its timer, and a logger that now
 * and then holds a lock the player takes (synth_trace.h): the case where
 * the work of a period starts on time and ends late. Ground truth by
 * construction:
 *
 *   period k is due at LOCK_T0 + k x 10 ms; the timer wakes the player then;
 *   a usual period: one run of 1 ms, then clock_nanosleep until the next;
 *   a lock period: a run of 20 us that waits in the lock's call (futex, or
 *   what the config says), which the logger (on CPU 1 since 1 ms before)
 *   ends hold_ns later by waking the player; then the 1 ms of work;
 *   the fold period: the wait lasts 10.2 ms, past the next period's due
 *   time, so that period's work runs in the same run, right after; with
 *   fold_late_ns it also starts that late (the logger's CPU time delayed
 *   its wakeup on one CPU).
 */
#ifndef QT_SYNTH_LOCK_H
#define QT_SYNTH_LOCK_H

#include "synth_trace.h"

#define LOCK_MS 1000000ull
#define LOCK_US 1000ull
#define LOCK_T0 (1020 * LOCK_MS)	/* the recording starts at 1 s */
#define LOCK_PLAYER 101
#define LOCK_LOGGER 102
#define LOCK_NR_FUTEX 202		/* x86_64 */
#define LOCK_NR_READ 0
#define LOCK_NR_CLOCK_NANOSLEEP 230
#define LOCK_ADDR 0x7f0000001000ull
#define LOCK_FOLD_HOLD (10 * LOCK_MS + 200 * LOCK_US)

struct lock_cfg {
	size_t periods;
	size_t every;		/* a lock period where k % every == every / 2 */
	uint64_t hold_ns;
	size_t fold_at;		/* the fold period (SIZE_MAX: none); fold_at + 1 runs inside it */
	uint32_t wait_nr;	/* the call the lock waits are in */
	uint64_t fold_late_ns;	/* the fold period's first run starts this much after its wakeup */
	bool syscalls;		/* record the player's calls */
};

static inline uint64_t lock_due(size_t k)
{
	return LOCK_T0 + k * 10 * LOCK_MS;
}

static inline bool lock_period(const struct lock_cfg *c, size_t k)
{
	return k == c->fold_at || k % c->every == c->every / 2;
}

/* One run of a thread on a CPU that was idle, ended by a sleep. */
static inline void lock_run(struct synth *s, int cpu, uint32_t tid, uint64_t a, uint64_t b)
{
	synth_switch(s, a, cpu, 0, 0, SYN_PREEMPT, tid, 100);
	synth_switch(s, b, cpu, tid, 100, SYN_SLEEP, 0, 0);
}

static inline struct trace *lock_trace(const struct lock_cfg *c)
{
	struct synth *s = synth_new(1000 * LOCK_MS, lock_due(c->periods) + 20 * LOCK_MS, 2);

	synth_thread(s, 100, 100, "lock");
	synth_thread(s, LOCK_PLAYER, 100, "player");
	synth_thread(s, LOCK_LOGGER, 100, "logger");
	synth_targets(s, "100");
	for (size_t k = 0; k < c->periods; k++) {
		uint64_t d = lock_due(k), a = d + 10 * LOCK_US, b, next = lock_due(k + 1);

		if (c->fold_at != SIZE_MAX && k == c->fold_at + 1)
			continue;
		synth_timer_wakeup(s, d, LOCK_PLAYER, 100, 0);
		if (k == c->fold_at)
			a += c->fold_late_ns;
		if (lock_period(c, k)) {
			uint64_t w = d + 30 * LOCK_US + (k == c->fold_at ? LOCK_FOLD_HOLD : c->hold_ns);

			lock_run(s, 0, LOCK_PLAYER, a, a + 20 * LOCK_US);
			if (c->syscalls)
				synth_syscall(s, a + 15 * LOCK_US, w, LOCK_PLAYER, 100, c->wait_nr, LOCK_ADDR, 0);
			synth_timer_wakeup(s, d - LOCK_MS, LOCK_LOGGER, 100, 1);
			lock_run(s, 1, LOCK_LOGGER, d - LOCK_MS, w);
			synth_wakeup(s, w, LOCK_LOGGER, 100, LOCK_PLAYER, 100, 0);
			a = w + 10 * LOCK_US;
		}
		b = a + LOCK_MS;
		if (k == c->fold_at) {
			/* the next period's sleep returns at once: its work follows in this run */
			if (c->syscalls)
				synth_syscall(s, b, b + 10 * LOCK_US, LOCK_PLAYER, 100, LOCK_NR_CLOCK_NANOSLEEP, 1, 0);
			b += LOCK_MS;
			next = lock_due(k + 2);
		}
		lock_run(s, 0, LOCK_PLAYER, a, b);
		if (c->syscalls)
			synth_syscall(s, b - 5 * LOCK_US, next + 5 * LOCK_US, LOCK_PLAYER, 100, LOCK_NR_CLOCK_NANOSLEEP,
				      1, 0);
	}
	return synth_finish(s);
}

#endif
