/* SPDX-License-Identifier: MIT */
/*
 * A recorder's file writer (synth_trace.h), the case where the kernel
 * holds a write: dirty-page throttling, a full disk queue. Ground truth by
 * construction:
 *
 *   period k is due at WR_T0 + k x 10 ms; the writer is woken then (by its
 *   timer, or with .camera by a camera thread on CPU 1 that runs 200 us
 *   and wakes it 150 us in, WR_CAM_JITTER (or cam_jitter_ns) late in every 7th
 *   period: a minor break); a usual period: one run of 1 ms with a writev() of
 *   200 us in it, then a wait for the next period;
 *   a stall period (k % every == every / 2): writev() starts 100 us into
 *   the run and lasts stall_ns; the writer leaves the CPU 100 us later
 *   (`how`: blocked, asleep, or preempted by a hog on its CPU, or with
 *   .throttled by nothing: its CPU idles, as when a cgroup's CPU quota is
 *   spent) and comes
 *   back for 10 us every wake_ns (2 ms) until the call ends, as a throttled writer
 *   does; then 1 ms of the rest of its work, and it waits for the first
 *   period due after that. The periods due meanwhile are skipped.
 */
#ifndef QT_SYNTH_WRITER_H
#define QT_SYNTH_WRITER_H

#include "synth_trace.h"

#define WR_MS 1000000ull
#define WR_US 1000ull
#define WR_T0 (1020 * WR_MS)
#define WR_WRITER 101
#define WR_CAMERA 102
#define WR_HOG 201
#define WR_NR_WRITEV 20			/* x86_64 */
#define WR_NR_CLOCK_NANOSLEEP 230
#define WR_NR_FUTEX 202
#define WR_FD 6
#define WR_CAM_JITTER (400 * WR_US)

struct writer_cfg {
	size_t periods;
	size_t every;			/* a stall period where k % every == every / 2 */
	uint64_t stall_ns;		/* the held writev() */
	enum synth_end how;		/* how the writer is off its CPU in it */
	bool syscalls;			/* record the writer's calls */
	bool camera;			/* woken by a camera thread instead of its timer */
	uint64_t cam_jitter_ns;		/* how late the camera is every 7th period (0: WR_CAM_JITTER) */
	uint64_t wake_ns;		/* the held writer's wakes (0: 2 ms) */
	uint64_t exec_setup_ns;		/* > 0: the writer execs and sets up (3 ms, blocked once) this long
					 * before period 0 */
	bool throttled;			/* SYN_PREEMPT with its CPU idle meanwhile */
};

static inline uint64_t camera_late(const struct writer_cfg *c, size_t k)
{
	return k % 7 != 3 ? 0 : c->cam_jitter_ns ? c->cam_jitter_ns : WR_CAM_JITTER;
}

static inline uint64_t writer_due(size_t k)
{
	return WR_T0 + k * 10 * WR_MS;
}

static inline bool writer_stall(const struct writer_cfg *c, size_t k)
{
	return k % c->every == c->every / 2;
}

/* The writer leaves CPU 0 at ts as c->how says, and comes back at back. */
static inline void writer_off(struct synth *s, const struct writer_cfg *c, uint64_t ts, uint64_t back)
{
	if (c->how == SYN_PREEMPT) {
		uint32_t other = c->throttled ? 0 : WR_HOG, other_pid = c->throttled ? 0 : 200;

		synth_switch(s, ts, 0, WR_WRITER, 100, SYN_PREEMPT, other, other_pid);
		synth_switch(s, back, 0, other, other_pid, SYN_SLEEP, WR_WRITER, 100);
		return;
	}
	synth_switch(s, ts, 0, WR_WRITER, 100, c->how, 0, 0);
	synth_timer_wakeup(s, back, WR_WRITER, 100, 0);
	synth_switch(s, back, 0, 0, 0, SYN_PREEMPT, WR_WRITER, 100);
}

/* When the writer is woken for period k. */
static inline uint64_t writer_woken(const struct writer_cfg *c, size_t k)
{
	if (!c->camera)
		return writer_due(k);
	return writer_due(k) + camera_late(c, k) + 150 * WR_US;
}

/* Wakes the writer for period k; returns when it runs. */
static inline uint64_t writer_release(struct synth *s, const struct writer_cfg *c, size_t k)
{
	uint64_t d = writer_due(k);

	if (c->camera) {
		uint64_t cs = d + camera_late(c, k);

		synth_timer_wakeup(s, d, WR_CAMERA, 100, 1);
		synth_switch(s, cs, 1, 0, 0, SYN_PREEMPT, WR_CAMERA, 100);
		synth_wakeup(s, cs + 150 * WR_US, WR_CAMERA, 100, WR_WRITER, 100, 0);
		synth_switch(s, cs + 200 * WR_US, 1, WR_CAMERA, 100, SYN_SLEEP, 0, 0);
		return cs + 160 * WR_US;
	}
	synth_timer_wakeup(s, d, WR_WRITER, 100, 0);
	return d + 10 * WR_US;
}

/* The camera's periods while the writer is held: it runs, wakes nobody. */
static inline void camera_alone(struct synth *s, const struct writer_cfg *c, size_t k)
{
	uint64_t d = writer_due(k), cs = d + camera_late(c, k);

	if (!c->camera)
		return;
	synth_timer_wakeup(s, d, WR_CAMERA, 100, 1);
	synth_switch(s, cs, 1, 0, 0, SYN_PREEMPT, WR_CAMERA, 100);
	synth_switch(s, cs + 200 * WR_US, 1, WR_CAMERA, 100, SYN_SLEEP, 0, 0);
}

static inline struct trace *writer_trace(const struct writer_cfg *c)
{
	struct synth *s = synth_new(1000 * WR_MS, writer_due(c->periods) + 20 * WR_MS, 2);
	uint32_t wait_nr = c->camera ? WR_NR_FUTEX : WR_NR_CLOCK_NANOSLEEP;
	size_t k = 0;

	synth_thread(s, 100, 100, "rec");
	if (c->exec_setup_ns) {
		/* the traced command's first thread: started, exec'd, set up, then its loop */
		uint64_t e = writer_due(0) - c->exec_setup_ns;

		synth_task(s, QT_REC_EXEC, e + 20 * WR_US, WR_WRITER, 100, 0, 0, "writer");
		synth_wakeup(s, e, 0, 0, WR_WRITER, 100, 0);
		synth_switch(s, e, 0, 0, 0, SYN_PREEMPT, WR_WRITER, 100);
		/* a page of its libraries read from disk */
		synth_switch(s, e + WR_MS / 2, 0, WR_WRITER, 100, SYN_BLOCK, 0, 0);
		synth_wakeup(s, e + 2 * WR_MS, 0, 0, WR_WRITER, 100, 0);
		synth_switch(s, e + 2 * WR_MS, 0, 0, 0, SYN_PREEMPT, WR_WRITER, 100);
		synth_switch(s, e + 3 * WR_MS, 0, WR_WRITER, 100, SYN_SLEEP, 0, 0);
	}
	synth_thread(s, WR_WRITER, 100, "writer");
	synth_thread(s, WR_CAMERA, 100, "camera");
	synth_thread(s, WR_HOG, 200, "hog");
	synth_targets(s, "100");
	while (k < c->periods) {
		uint64_t a = writer_release(s, c, k), b = a + WR_MS;
		size_t next = k + 1;

		synth_switch(s, a, 0, 0, 0, SYN_PREEMPT, WR_WRITER, 100);
		if (writer_stall(c, k)) {
			uint64_t w = a + 100 * WR_US + c->stall_ns, t = a + 200 * WR_US;
			uint64_t wake = c->wake_ns ? c->wake_ns : 2 * WR_MS;

			if (c->syscalls)
				synth_syscall(s, a + 100 * WR_US, w, WR_WRITER, 100, WR_NR_WRITEV, WR_FD, 1 << 20);
			while (t + wake + 10 * WR_US < w) {
				writer_off(s, c, t, t + wake);
				t += wake + 10 * WR_US;
			}
			writer_off(s, c, t, w);
			b = w + WR_MS;
			while (writer_due(next) < b + 50 * WR_US)
				camera_alone(s, c, next++);
		} else if (c->syscalls) {
			synth_syscall(s, a + 100 * WR_US, a + 300 * WR_US, WR_WRITER, 100, WR_NR_WRITEV, WR_FD,
				      1 << 20);
		}
		synth_switch(s, b, 0, WR_WRITER, 100, SYN_SLEEP, 0, 0);
		if (c->syscalls)
			synth_syscall(s, b - 5 * WR_US, writer_woken(c, next) + 5 * WR_US, WR_WRITER, 100, wait_nr,
				      1, 0);
		k = next;
	}
	return synth_finish(s);
}

#endif
