// SPDX-License-Identifier: MIT
/*
 * Wakeups from softirqs given to the threads that raised them
 * (src/timeline/softirq.c), on traces built in memory: a thread's system
 * call raising NET_RX that runs on top of it, or later in ksoftirqd; a
 * hard interrupt's raise (the device's, never the interrupted thread's);
 * no raise recorded, a raise after the run began, records lost in
 * between (all: as without raises); only the first raise since the last
 * run counts; a softirq raised by a softirq followed to its cause, a
 * bounded number of hops back.
 */
#include <stdint.h>

#include "lib/log.h"
#include "synth_trace.h"
#include "testutil.h"
#include "timeline/timeline.h"

#define HI 0
#define NET_TX 2
#define NET_RX 3
#define TIMER 1

enum { SENDER = 100, RECEIVER = 200, OTHER = 300, KSOFTIRQD = 15 };

/* Each test's trace, as it builds it, and its timeline. */
static struct synth *s;
static struct trace *t;
static struct timeline *tl;

static void build(void)
{
	t = synth_finish(s);
	s = NULL;
	log_level = LOG_QUIET;
	cr_assert_eq(timeline__build(t, NULL, &tl), 0);
}

static uint32_t th_of(uint32_t tid)
{
	for (uint32_t i = 0; i < tl->nthreads; i++)
		if (tl->threads[i].tid == tid)
			return i;
	cr_assert_fail("no thread %u", tid);
	return TL_NONE;
}

/* The wakeup of the receiver at ts. */
static const struct tl_wakeup *wakeup_at(uint64_t ts)
{
	for (size_t i = 0; i < tl->nwk; i++)
		if (tl->wk[i].ts == ts && tl->threads[tl->wk[i].wakee].tid == RECEIVER)
			return &tl->wk[i];
	cr_assert_fail("no wakeup of the receiver at %llu", (unsigned long long)ts);
	return NULL;
}

/*
 * The sender runs on CPU 0 over [10, 300) and sleeps, the other thread
 * over [300, 600), ksoftirqd/0 over [600, 700); the receiver runs on CPU 1
 * after each wakeup.
 */
static void scene(void)
{
	s = synth_new(0, 2000, 2);

	synth_thread(s, SENDER, SENDER, "sender");
	synth_thread(s, RECEIVER, RECEIVER, "receiver");
	synth_thread(s, OTHER, OTHER, "other");
	synth_thread(s, KSOFTIRQD, KSOFTIRQD, "ksoftirqd/0");
	synth_switch(s, 10, 0, 0, 0, SYN_PREEMPT, SENDER, SENDER);
	synth_switch(s, 300, 0, SENDER, SENDER, SYN_SLEEP, OTHER, OTHER);
	synth_switch(s, 600, 0, OTHER, OTHER, SYN_PREEMPT, KSOFTIRQD, KSOFTIRQD);
	synth_switch(s, 700, 0, KSOFTIRQD, KSOFTIRQD, SYN_SLEEP, OTHER, OTHER);
	synth_switch(s, 1500, 0, OTHER, OTHER, SYN_SLEEP, 0, 0);
}

static void fini(void)
{
	timeline__free(tl);
	trace__free(t);
	tl = NULL;
	t = NULL;
}

TestSuite(softirq, .init = scene, .fini = fini);

/*
 * The receiver woken by NET_RX at ts on CPU 0, inside a run [start, end)
 * on top of `on`; it runs on CPU 1 over [ts + 20, ts + 40).
 */
static void net_rx(uint64_t start, uint64_t end, uint64_t ts, uint32_t on)
{
	synth_irq(s, start, end, 0, NET_RX, 1, on);
	synth_softirq_wakeup(s, ts, 0, NET_RX, on, on, RECEIVER, RECEIVER, 1);
	synth_switch(s, ts + 20, 1, 0, 0, SYN_PREEMPT, RECEIVER, RECEIVER);
	synth_switch(s, ts + 40, 1, RECEIVER, RECEIVER, SYN_SLEEP, 0, 0);
}

static void assert_by_thread(const struct tl_wakeup *w, uint32_t tid, uint64_t raise)
{
	cr_assert_eq(w->waker, th_of(tid), "woken by %s", timeline__comm_at(tl, w->waker, w->ts));
	cr_assert_eq(w->waking_ts, raise);
	cr_assert(w->flags & TL_WAKE_VIA);
	cr_assert_not(w->flags & QT_WAKE_SOFTIRQ);
	cr_assert_eq(w->irq, NET_RX);
}

static void assert_softirqs(const struct tl_wakeup *w)
{
	cr_assert_eq(w->waker, TL_NONE, "woken by %s", timeline__comm_at(tl, w->waker, w->ts));
	cr_assert_eq(w->waking_ts, w->ts);
	cr_assert(w->flags & QT_WAKE_SOFTIRQ);
	cr_assert_not(w->flags & TL_WAKE_VIA);
}

/* sendto() on loopback: the softirq runs on top of the sender, right after its raise. */
Test(softirq, raised_by_a_system_call_runs_on_top_of_it)
{
	synth_raise(s, 150, 0, NET_RX, QT_RAISE_SYSCALL, 0, SENDER, SENDER);
	net_rx(160, 180, 170, SENDER);
	build();
	assert_by_thread(wakeup_at(170), SENDER, 150);
	cr_assert_eq(tl->softirq_wakeups, 1);
	cr_assert_eq(tl->softirq_by_thread, 1);
	cr_assert_eq(tl->softirq_by_irq + tl->softirq_unknown, 0);
	/* indexed as the sender's */
	cr_assert_eq(tl->threads[th_of(SENDER)].nws, 1);
}

/* Deferred to ksoftirqd: still the sender's, at its raise, long before. */
Test(softirq, deferred_to_ksoftirqd)
{
	synth_raise(s, 150, 0, NET_RX, 0, 0, SENDER, SENDER);
	net_rx(620, 680, 650, KSOFTIRQD);
	build();
	/* the sender slept at 300: the wakeup at 650 is still its own, never ksoftirqd's */
	assert_by_thread(wakeup_at(650), SENDER, 150);
	cr_assert_eq(tl->threads[th_of(KSOFTIRQD)].nws, 0);
	cr_assert_eq(tl->softirq_by_thread, 1);
}

/* A network card's interrupt raised it: the device's, not the thread it interrupted. */
Test(softirq, raised_by_a_hard_interrupt_stays_the_devices)
{
	synth_irq(s, 140, 155, 0, 24, 0, OTHER);
	synth_raise(s, 150, 0, NET_RX, QT_WAKE_HARDIRQ, 24, OTHER, OTHER);
	net_rx(400, 420, 410, OTHER);
	build();
	assert_softirqs(wakeup_at(410));
	cr_assert_eq(wakeup_at(410)->irq, NET_RX);
	cr_assert_eq(tl->softirq_by_irq, 1);
	cr_assert_eq(tl->softirq_by_thread + tl->softirq_unknown, 0);
	cr_assert_eq(tl->threads[th_of(OTHER)].nws, 0);
}

/*
 * The card's interrupt raised it, then a sender raised it again before it
 * ran: one run served both, so the wakeup stays the device's, marked and
 * counted; a later run the sender alone raised is the sender's.
 */
Test(softirq, raised_by_an_interrupt_and_a_thread_stays_the_devices_marked)
{
	synth_irq(s, 140, 155, 0, 24, 0, OTHER);
	synth_raise(s, 150, 0, NET_RX, QT_WAKE_HARDIRQ, 24, OTHER, OTHER);
	synth_raise(s, 200, 0, NET_RX, QT_RAISE_SYSCALL, 0, SENDER, SENDER);
	net_rx(400, 420, 410, KSOFTIRQD);
	synth_raise(s, 500, 0, NET_RX, QT_RAISE_SYSCALL, 0, SENDER, SENDER);
	net_rx(600, 620, 610, KSOFTIRQD);
	build();
	assert_softirqs(wakeup_at(410));
	cr_assert(wakeup_at(410)->flags & TL_WAKE_SHARED);
	cr_assert_eq(tl->softirq_by_irq, 1);
	cr_assert_eq(tl->softirq_shared, 1);
	assert_by_thread(wakeup_at(610), SENDER, 500);
	cr_assert_not(wakeup_at(610)->flags & TL_WAKE_SHARED);
}

/* Without a raise before the run, a softirq's wakeup is what it was without raises. */
Test(softirq, no_raise_recorded_falls_back)
{
	/* 0: no raise at all; 1: raises of other CPUs and vectors only; 2: raised once the run began */
	for (int k = 0; k < 3; k++) {
		if (k == 1) {
			synth_raise(s, 150, 1, NET_RX, QT_RAISE_SYSCALL, 0, SENDER, SENDER);
			synth_raise(s, 150, 0, NET_TX, QT_RAISE_SYSCALL, 0, SENDER, SENDER);
		} else if (k == 2) {
			synth_raise(s, 165, 0, NET_RX, QT_RAISE_SYSCALL, 0, SENDER, SENDER);
		}
		net_rx(160, 180, 170, SENDER);
		build();
		assert_softirqs(wakeup_at(170));
		cr_assert_eq(tl->softirq_wakeups, 1, "case %d", k);
		cr_assert_eq(tl->softirq_unknown, 1, "case %d", k);
		/* the next case on a new scene */
		fini();
		scene();
	}
}

/* Records lost on the CPU between the raise and the run: the raise may have had a run of its own. */
Test(softirq, loss_between_raise_and_run_falls_back)
{
	for (int cpu = 0; cpu < 2; cpu++) {
		synth_raise(s, 150, 0, NET_RX, QT_RAISE_SYSCALL, 0, SENDER, SENDER);
		synth_lost(s, cpu, 152, 155, 3);
		net_rx(160, 180, 170, SENDER);
		build();
		if (cpu == 0)
			assert_softirqs(wakeup_at(170));
		else	/* another CPU's loss does not matter */
			assert_by_thread(wakeup_at(170), SENDER, 150);
		/* the next case on a new scene */
		fini();
		scene();
	}
}

/*
 * Two raises before a run: the first made it run. A raise while it runs
 * is for the next run (the kernel cleared the pending bit before).
 */
Test(softirq, the_first_raise_since_the_last_run)
{
	synth_raise(s, 100, 0, NET_RX, QT_RAISE_SYSCALL, 0, SENDER, SENDER);
	synth_raise(s, 105, 0, NET_RX, QT_WAKE_HARDIRQ, 24, SENDER, SENDER);
	net_rx(110, 130, 120, SENDER);
	synth_raise(s, 400, 0, NET_RX, 0, 0, OTHER, OTHER);
	synth_raise(s, 420, 0, NET_RX, QT_RAISE_SYSCALL, 0, OTHER, OTHER);
	net_rx(410, 430, 415, OTHER);
	net_rx(450, 470, 460, OTHER);
	build();
	assert_by_thread(wakeup_at(120), SENDER, 100);
	assert_by_thread(wakeup_at(415), OTHER, 400);
	assert_by_thread(wakeup_at(460), OTHER, 420);
	cr_assert_eq(tl->softirq_by_thread, 3);
}

/*
 * NET_TX raised by the sender raises NET_RX: the wakeup is the sender's.
 * A chain of softirqs raising softirqs is followed a few runs back only.
 */
Test(softirq, raised_by_a_softirq_follows_its_cause)
{
	uint64_t at = 1000;

	synth_raise(s, 100, 0, NET_TX, QT_RAISE_SYSCALL, 0, SENDER, SENDER);
	synth_irq(s, 110, 130, 0, NET_TX, 1, SENDER);
	synth_raise(s, 120, 0, NET_RX, QT_WAKE_SOFTIRQ, NET_TX, SENDER, SENDER);
	net_rx(140, 160, 150, SENDER);
	/* the sender's NET_RX raising itself again and again (a busy poll): runs k = 0.. */
	synth_raise(s, at - 10, 0, NET_RX, QT_RAISE_SYSCALL, 0, OTHER, OTHER);
	for (int k = 0; k < 7; k++) {
		net_rx(at + 100 * k, at + 100 * k + 50, at + 100 * k + 10, OTHER);
		synth_raise(s, at + 100 * k + 40, 0, NET_RX, QT_WAKE_SOFTIRQ, NET_RX, OTHER, OTHER);
	}
	build();
	assert_by_thread(wakeup_at(150), SENDER, 100);
	/* run 0 was raised by the thread, run k by run k - 1: k hops back */
	for (int k = 0; k < 7; k++) {
		const struct tl_wakeup *w = wakeup_at(at + 100 * k + 10);

		if (k < 4)
			assert_by_thread(w, OTHER, at - 10);
		else
			assert_softirqs(w);
	}
	cr_assert_eq(tl->softirq_by_thread, 5);
	cr_assert_eq(tl->softirq_unknown, 3);
}

/* A softirq of a vector whose raises are not recorded (TIMER): the timer's, as before. */
Test(softirq, vectors_not_recorded_stay_the_softirqs)
{
	synth_raise(s, 150, 0, TIMER, 0, 0, SENDER, SENDER);
	synth_irq(s, 160, 180, 0, TIMER, 1, SENDER);
	synth_softirq_wakeup(s, 170, 0, TIMER, SENDER, SENDER, RECEIVER, RECEIVER, 1);
	build();
	cr_assert_eq(wakeup_at(170)->waker, TL_NONE);
	cr_assert(wakeup_at(170)->flags & QT_WAKE_SOFTIRQ);
	cr_assert_eq(tl->softirq_wakeups, 1);
	cr_assert_eq(tl->softirq_by_thread + tl->softirq_by_irq + tl->softirq_unknown, 0);
}
