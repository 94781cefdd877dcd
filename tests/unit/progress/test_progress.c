/*
 * The progress graph's computation (src/progress/progress.h) on the test
 * vectors of docs/ALGORITHMS.md §8.7 (TV-7), exactly; the departures from
 * the steady cycle; and against a brute-force reference on random pairs
 * of threads (tests/ref/progress_ref.c).
 */
#include <errno.h>

#include "testutil.h"
#include "pg_vec.h"
#include "ref/progress_ref.h"

#define NR_READ 0
#define NR_WRITE 1

static char buf[8192], buf2[1024];

static void compute(struct pg_vec *v, double t_end, struct progress *p)
{
	cr_assert_eq(progress_compute(pg_vec_input(v, t_end), p), 0);
}

static void expect_rays(const struct progress *p, const char *want)
{
	cr_expect_str_eq(pg_vec_rays(p, buf, sizeof(buf)), want);
}

/* Two threads from their origins and runs (ms), computed until t_end: the rays must be `rays`. */
static void two_threads(struct pg_vec *v, double o0, const char *r0, double o1, const char *r1, double t_end,
			struct progress *p, const char *rays)
{
	memset(v, 0, sizeof(*v));
	v->th[0].origin = PG_MS(o0);
	v->th[1].origin = PG_MS(o1);
	pg_vec_runs(v, 0, r0);
	pg_vec_runs(v, 1, r1);
	compute(v, t_end, p);
	expect_rays(p, rays);
}

static void expect_list(const struct progress *p, enum pg_vec_field f, const char *want)
{
	cr_expect_str_eq(pg_vec_list(p, f, buf2, sizeof(buf2)), want);
}

static void expect_pattern(const struct pg_pattern *pt, int thread, double q3, double q2)
{
	cr_expect_eq(pt->thread, thread);
	cr_expect_eq(pt->q3, PG_MS(q3), "pattern Q3 %lld", (long long)pt->q3);
	cr_expect_eq(pt->q2, PG_MS(q2), "pattern Q2 %lld", (long long)pt->q2);
}

/* TV-7.1: Fig. 2/3, producer P on x, consumer C on y; third wakeup at `third`. */
static void tv71(struct pg_vec *v, double third)
{
	memset(v, 0, sizeof(*v));
	pg_vec_runs(v, 0, "[0,25)");
	if (third == 12)
		pg_vec_runs(v, 1, "[0,1)B [4,6)B [8,10)B [12,14)B [16,18)B [20,22)B [24,25)");
	else
		pg_vec_runs(v, 1, "[0,1)B [4,6)B [8,10)B [12.2,14.2)B [16,18)B [20,22)B [24,25)");
	for (int n = 1; n <= 6; n++) {
		double w = n == 3 ? third : 4 * n;

		pg_vec_call(v, 0, w - 1, w, NR_WRITE, 4);
		pg_vec_wake(v, 1, w, true);
	}
	pg_vec_call(v, 1, 1, 4, NR_READ, 3);
	pg_vec_call(v, 1, 6, 8, NR_READ, 3);
	pg_vec_call(v, 1, 10, third, NR_READ, 3);
	pg_vec_call(v, 1, third + 2, 16, NR_READ, 3);
	pg_vec_call(v, 1, 18, 20, NR_READ, 3);
	pg_vec_call(v, 1, 22, 24, NR_READ, 3);
}

Test(progress, tv71_one_buffer_producer_consumer)
{
	struct pg_vec v;
	struct progress p;

	tv71(&v, 12);
	compute(&v, 25, &p);
	expect_rays(&p, "D(0,0)->(1,1) H(1,1)->(4,1) D(4,1)->(6,3) H(6,3)->(8,3) D(8,3)->(10,5) "
		    "H(10,5)->(12,5) D(12,5)->(14,7) H(14,7)->(16,7) D(16,7)->(18,9) H(18,9)->(20,9) "
		    "D(20,9)->(22,11) H(22,11)->(24,11) D(24,11)->(25,12)");
	cr_assert_eq(p.nblocks, 6);
	for (size_t i = 0; i < p.nblocks; i++) {
		/* all (C, read, 3, write): never a block at send */
		cr_expect_eq(p.blocks[i].thread, 1);
		cr_expect_eq(p.blocks[i].nr, NR_READ);
		cr_expect_eq(p.blocks[i].arg0, 3);
		cr_expect_eq(p.blocks[i].waker_nr, NR_WRITE);
	}
	expect_list(&p, PG_Q2, "3,2,2,2,2,2");
	expect_list(&p, PG_LATENCY, "0,0,0,0,0,0");
	expect_list(&p, PG_Q3, "1,2,2,2,2,2");
	cr_expect_eq(p.q3_trailing, PG_MS(1));
	/* Example 1's first rays: [(0,0),(1,1)), [(1,1),(4,1)) */
	cr_expect(p.blocks[0].x == PG_MS(1) && p.blocks[0].y == PG_MS(1) && p.blocks[0].s == PG_MS(1));
	cr_assert_eq(p.cycle.state, PG_CYCLE_FOUND);
	cr_expect_eq(p.cycle.first, 1);
	cr_expect_eq(p.cycle.k, 1);
	expect_pattern(&p.cycle.pat[0], 1, 2, 2);
	cr_expect_eq(p.cycle.pat[0].nr, NR_READ);
	cr_expect_eq(p.cycle.reps, 5);
	cr_expect_eq(p.cycle.follow, 5);
	cr_expect_eq(p.cycle.period, PG_MS(4));
	cr_expect(p.cycle.adv_x == PG_MS(4) && p.cycle.adv_y == PG_MS(2));
	cr_expect_float_eq(p.cycle.blocked_share[1], 0.5, 1e-12);
	cr_expect_float_eq(p.cycle.blocked_share[0], 0.0, 1e-12);
	/* the transient block is the only one off the cycle */
	cr_assert_eq(p.ndep, 1);
	cr_expect(p.dep[0].first == 0 && p.dep[0].last == 0);
	/* its Q2 beyond the cycle's; its Q3 counts from T0 (the set-up), not compared */
	cr_expect_eq(p.dep[0].excess, PG_MS(3 - 2));
	cr_expect_eq(p.dep[0].worst_expect, PG_MS(2));
	cr_expect(p.th[0].blocked_ns == 0 && p.th[1].blocked_ns == PG_MS(13));
	cr_expect_eq(p.dead_at, -1);
	progress_release(&p);
}

Test(progress, tv71_jitter)
{
	struct pg_vec v;
	struct progress p;

	tv71(&v, 12.2);
	compute(&v, 25, &p);
	expect_list(&p, PG_Q2, "3,2,2.2,1.8,2,2");
	expect_list(&p, PG_Q3, "1,2,2,2,2,2");
	cr_assert_eq(p.cycle.state, PG_CYCLE_FOUND);
	cr_expect(p.cycle.first == 1 && p.cycle.k == 1 && p.cycle.reps == 5);
	/* medians 2 and 2; periods 4, 4.2, 3.8, 4: median 4 */
	expect_pattern(&p.cycle.pat[0], 1, 2, 2);
	cr_expect_eq(p.cycle.period, PG_MS(4));
	cr_expect_eq(p.ndep, 1, "the jitter stays within the tolerance");
	progress_release(&p);
}

Test(progress, tv72a_p0_wins_b)
{
	struct pg_vec v = { 0 };
	struct progress p;

	v.th[1].origin = PG_MS(2);
	pg_vec_runs(&v, 0, "[0,30)");
	pg_vec_runs(&v, 1, "[2,3)B [6,30)");
	pg_vec_wake(&v, 1, 6, true);
	compute(&v, 30, &p);
	cr_expect(p.gx == PG_MS(2) && p.gy == 0, "G_C = (2,0)");
	expect_rays(&p, "D(2,0)->(3,1) H(3,1)->(6,1) D(6,1)->(30,25)");
	expect_list(&p, PG_Q2, "3");
	cr_expect_eq(p.blocks[0].thread, 1);
	expect_list(&p, PG_Q3, "1");
	cr_expect_eq(p.q3_trailing, PG_MS(24));
	cr_expect_eq(p.cycle.state, PG_CYCLE_NONBLOCKING);
	progress_release(&p);
}

Test(progress, tv72b_deadlock)
{
	static struct pg_vec v;
	struct progress p;

	/* no wakeups: each waits for ever */
	two_threads(&v, 0, "[0,3)B", 2, "[2,5)B", 10, &p, "D(2,0)->(3,1) Vo(3,1)->(3,3) S(3,3)@[5,10)");
	cr_assert_eq(p.nblocks, 2);
	cr_expect(p.blocks[0].thread == 0 && p.blocks[0].open && p.blocks[0].x == PG_MS(3) &&
		  p.blocks[0].y == PG_MS(1));
	cr_expect(p.blocks[1].thread == 1 && p.blocks[1].open && p.blocks[1].x == PG_MS(3) &&
		  p.blocks[1].y == PG_MS(3));
	expect_list(&p, PG_Q3, "1,0");
	cr_expect_eq(p.dead_at, PG_MS(5));
	cr_expect(p.deadlock, "final point (3,3), representing a deadlock");
	cr_expect(p.rays[2].dead);
	cr_expect_eq(p.anomalies, 0);
	cr_expect_eq(p.ncomplete, 0);
	cr_expect_eq(p.cycle.state, PG_CYCLE_NONE);
	progress_release(&p);
}

Test(progress, tv72c_nobody_blocks)
{
	static struct pg_vec v;
	struct progress p;

	two_threads(&v, 5.5, "[5.5,30)", 0, "[0,30)", 30, &p, "D(0,5.5)->(24.5,30)");
	cr_expect_eq(p.nblocks, 0);
	cr_expect_eq(p.cycle.state, PG_CYCLE_NONBLOCKING);
	progress_release(&p);
}

Test(progress, tv73_one_semaphore)
{
	struct pg_vec v = { 0 };
	struct progress p;

	pg_vec_runs(&v, 0, "[0,31)");
	pg_vec_runs(&v, 1, "[0,2)B [5,8)B [10,13)B [15,18)B [20,23)B [25,28)B [30,31)");
	for (int k = 1; k <= 6; k++)
		pg_vec_wake(&v, 1, 5 * k, true);
	compute(&v, 31, &p);
	expect_rays(&p, "D(0,0)->(2,2) H(2,2)->(5,2) D(5,2)->(8,5) H(8,5)->(10,5) D(10,5)->(13,8) "
		    "H(13,8)->(15,8) D(15,8)->(18,11) H(18,11)->(20,11) D(20,11)->(23,14) H(23,14)->(25,14) "
		    "D(25,14)->(28,17) H(28,17)->(30,17) D(30,17)->(31,18)");
	expect_list(&p, PG_Q2, "3,2,2,2,2,2");
	expect_list(&p, PG_Q3, "2,3,3,3,3,3");
	cr_expect_eq(p.q3_trailing, PG_MS(1));
	cr_assert_eq(p.cycle.state, PG_CYCLE_FOUND);
	cr_expect(p.cycle.first == 1 && p.cycle.k == 1);
	/* Example 5: a horizontal ray of length 2, a diagonal of projected length 3; the y thread */
	expect_pattern(&p.cycle.pat[0], 1, 3, 2);
	cr_expect_eq(p.cycle.period, PG_MS(5));
	cr_expect(p.cycle.adv_x == PG_MS(5) && p.cycle.adv_y == PG_MS(3), "(10,5) = (5,2) modulo (5,3)");
	/* Example 7: f_d(5,2) = (8,5) */
	cr_expect(p.rays[2].x0 == PG_MS(5) && p.rays[2].y0 == PG_MS(2) && p.rays[2].x1 == PG_MS(8) &&
		  p.rays[2].y1 == PG_MS(5) && p.rays[2].kind == PG_RAY_D);
	progress_release(&p);
}

Test(progress, tv74_trace_rules)
{
	struct pg_vec v = { 0 };
	struct progress p;

	pg_vec_runs(&v, 0, "[0,10)B [17,30)P [32,40)B [45,50)B [60,80)");
	pg_vec_runs(&v, 1, "[0,20)B [36,62)B");
	pg_vec_wake(&v, 0, 15, true);
	pg_vec_wake(&v, 1, 35, true);
	pg_vec_wake(&v, 0, 45, false);
	pg_vec_wake(&v, 0, 60, true);
	compute(&v, 80, &p);
	expect_rays(&p, "D(0,0)->(10,10) V(10,10)->(10,15) D(10,15)->(15,20) H(15,20)->(30,20) "
		    "D(30,20)->(45,35) V(45,35)->(45,45) D(45,45)->(47,47) Ho(47,47)->(65,47)");
	expect_list(&p, PG_Q2, "5,15,10,>=18");
	expect_list(&p, PG_Q3, "10,5,15,2");
	expect_list(&p, PG_LATENCY, "2,1,0,0");
	cr_expect_eq(p.q3_trailing, 0);
	cr_expect_eq(p.th[0].preempted_ns, PG_MS(2));
	cr_expect_eq(p.th[0].other_ns, PG_MS(5));
	cr_expect_eq(p.th[0].latency_ns, PG_MS(2));
	cr_expect_eq(p.th[1].latency_ns, PG_MS(1));
	cr_expect_eq(p.th[1].open_ns, PG_MS(18));
	cr_expect_eq(p.cycle.state, PG_CYCLE_NONE);
	progress_release(&p);
}

Test(progress, tv75_ping_pong)
{
	struct pg_vec v = { 0 };
	struct progress p;

	pg_vec_runs(&v, 0, "[0,3)B [5,8)B [10,13)B [15,18)B [20,23)B [25,28)B");
	pg_vec_runs(&v, 1, "[0,1)B [3,5)B [8,10)B [13,15)B [18,20)B [23,25)B [28,30)B");
	for (int t = 3; t <= 28; t += 5)
		pg_vec_wake(&v, 1, t, true);
	for (int t = 5; t <= 25; t += 5)
		pg_vec_wake(&v, 0, t, true);
	compute(&v, 30, &p);
	expect_rays(&p, "D(0,0)->(1,1) H(1,1)->(3,1) V(3,1)->(3,3) H(3,3)->(6,3) V(6,3)->(6,5) "
		    "H(6,5)->(9,5) V(9,5)->(9,7) H(9,7)->(12,7) V(12,7)->(12,9) H(12,9)->(15,9) "
		    "V(15,9)->(15,11) H(15,11)->(18,11) Vo(18,11)->(18,13)");
	expect_list(&p, PG_Q2, "2,2,3,2,3,2,3,2,3,2,3,>=2");
	expect_list(&p, PG_Q3, "1,0,0,0,0,0,0,0,0,0,0,0");
	cr_expect(p.blocks[p.nblocks - 1].open && p.blocks[p.nblocks - 1].thread == 0 &&
		  p.blocks[p.nblocks - 1].s == PG_MS(28));
	cr_assert_eq(p.cycle.state, PG_CYCLE_FOUND);
	cr_expect(p.cycle.first == 1 && p.cycle.k == 2 && p.cycle.reps == 5);
	expect_pattern(&p.cycle.pat[0], 0, 0, 2);
	expect_pattern(&p.cycle.pat[1], 1, 0, 3);
	cr_expect_eq(p.cycle.period, PG_MS(5));
	cr_expect(p.cycle.adv_x == PG_MS(3) && p.cycle.adv_y == PG_MS(2));
	progress_release(&p);
}

Test(progress, tv76_partner_exit)
{
	struct pg_vec v = { 0 };
	struct progress p;

	pg_vec_runs(&v, 0, "[0,10)X");
	pg_vec_runs(&v, 1, "[0,4)B [6,20)");
	pg_vec_wake(&v, 1, 6, true);
	compute(&v, 20, &p);
	expect_rays(&p, "D(0,0)->(4,4) H(4,4)->(6,4) D(6,4)->(10,8) X(10,8)->(10,18)");
	expect_list(&p, PG_Q2, "2");
	expect_list(&p, PG_Q3, "4");
	cr_expect_eq(p.q3_trailing, PG_MS(4));
	cr_expect_eq(p.nblocks, 1, "the X ray is not a block");
	cr_expect_eq(p.th[0].exited, PG_MS(10));
	progress_release(&p);
}

/* ---- departures from the steady cycle ---- */

/*
 * TV-7.3's rhythm for 40 cycles, with the wakeup of cycle 20 late by
 * 12 ms (the semaphore held longer): that block, and only it, departs,
 * by the 12 ms it cost.
 */
Test(progress, one_late_release_departs)
{
	static struct pg_vec v;
	struct progress p;
	double late = 0;

	memset(&v, 0, sizeof(v));
	pg_vec_runs(&v, 1, "[0,2)B");
	for (int k = 1; k <= 40; k++) {
		if (k == 20)
			late = 12;
		pg_vec_woken_run(&v, 1, 5 * k + late, 5 * k + late, 5 * k + late + 3);
	}
	pg_vec_runs(&v, 0, "[0,220)");
	compute(&v, 220, &p);
	cr_assert_eq(p.cycle.state, PG_CYCLE_FOUND);
	cr_expect_eq(p.cycle.k, 1);
	cr_expect_eq(p.cycle.period, PG_MS(5));
	expect_pattern(&p.cycle.pat[0], 1, 3, 2);
	cr_assert_eq(p.ndep, 2, "%zu departures", p.ndep);
	/* the transient, then block 19 (cycle 20): blocked 14 ms instead of 2 */
	cr_expect(p.dep[0].first == 0 && p.dep[0].last == 0);
	cr_expect(p.dep[1].first == 19 && p.dep[1].last == 19, "departure at %zu..%zu", p.dep[1].first,
		  p.dep[1].last);
	cr_expect_eq(p.dep[1].excess, PG_MS(12));
	cr_expect_eq(p.dep[1].worst, 19);
	cr_expect_eq(p.dep[1].worst_expect, PG_MS(2));
	cr_expect_eq(p.dep[1].start, PG_MS(98));
	/* the cycle restarts after the late block, but 38 of the 40 blocks follow it */
	cr_expect_eq(p.cycle.first, 20);
	cr_expect_eq(p.cycle.follow, 38);
	progress_release(&p);
}

/*
 * A ping-pong (TV-7.5's rhythm) that loses a turn: B is woken twice in a
 * row. The extra block departs; the alternation is found again after it.
 */
Test(progress, phase_slip_departs_once)
{
	static struct pg_vec v;
	struct progress p;

	memset(&v, 0, sizeof(v));
	pg_vec_runs(&v, 0, "[0,3)B");
	pg_vec_runs(&v, 1, "[0,1)B");
	for (int k = 1; k <= 30; k++) {
		double t = 5 * k;

		/* A runs [t, t+3) and blocks, B runs [t-2, t) and blocks */
		if (k == 15) {
			/* B blocks once more in its turn: woken again by A, not by its rhythm */
			pg_vec_woken_run(&v, 1, 73, 73, 73.5);
			pg_vec_woken_run(&v, 1, 74, 74, 75);
		} else {
			pg_vec_woken_run(&v, 1, t - 2, t - 2, t);
		}
		pg_vec_woken_run(&v, 0, t, t, t + 3);
	}
	compute(&v, 155, &p);
	cr_assert_eq(p.cycle.state, PG_CYCLE_FOUND);
	cr_expect_eq(p.cycle.k, 2);
	cr_expect_eq(p.cycle.period, PG_MS(5));
	/* the transient, and the slip: a few blocks, then in step again */
	cr_assert_geq(p.ndep, 2);
	cr_expect_eq(p.ndep, 2, "%zu departures", p.ndep);
	cr_expect(p.dep[1].start >= PG_MS(70) && p.dep[1].end <= PG_MS(80), "[%lld, %lld]",
		  (long long)p.dep[1].start, (long long)p.dep[1].end);
	progress_release(&p);
}

/*
 * One block per cycle whose waits alternate 1 ms and 1.15 ms (within the
 * tolerance), and one wait of 1.32 ms: it breaks every stretch of k = 1
 * (1.32 against 1 ms is beyond it) but no stretch of k = 2 (against
 * 1.15 ms it is within). k = 2 has the most pairs, and its pattern is the
 * one block twice: the cycle is k = 1, over the whole stretch.
 */
Test(progress, a_multiple_of_the_cycle_is_the_cycle)
{
	static struct pg_vec v;
	struct progress p;
	double t = 0;

	memset(&v, 0, sizeof(v));
	for (int i = 0; i < 30; i++) {
		double q2 = i == 15 ? 1.32 : i % 2 ? 1.15 : 1.0;

		pg_vec_woken_run(&v, 1, i ? t : -1, t, t + 3);
		t += 3 + q2;
	}
	pg_vec_wake(&v, 1, t, true);
	pg_vec_runs(&v, 0, "[0,200)");
	compute(&v, t, &p);
	cr_assert_eq(p.ncomplete, 30);
	cr_assert_eq(p.cycle.state, PG_CYCLE_FOUND);
	cr_expect_eq(p.cycle.k, 1, "k %zu", p.cycle.k);
	cr_expect_eq(p.cycle.first, 0);
	cr_expect_eq(p.cycle.reps, 30, "the stretch of k = 2: all the blocks");
	cr_expect_eq(p.cycle.follow, 30);
	cr_expect_eq(p.ndep, 0);
	progress_release(&p);
}

/* ---- against the reference ---- */

#define TICK 10000	/* 10 us: segment times of 1 to 8 ticks straddle the 50 us tolerance */

/* A thread's runs, wakeups and calls until t_end; tmpl >= 0 repeats one rhythm. */
static void gen_thread(unsigned long long *seed, struct pg_vec_thread *x, int64_t t_end, int tmpl)
{
	int64_t t = x->origin + tu_rand_range(seed, 0, 3) * TICK;
	int rl = 1 + tmpl % 4, gl = 1 + tmpl % 5;

	while (t < t_end && x->nruns < PG_VEC_MAX - 2) {
		struct pg_run *r = &x->runs[x->nruns++];
		bool steady = tmpl >= 0 && tu_rand(seed) % 30;
		int64_t gap, run = (steady ? rl : tu_rand_range(seed, 1, 8)) * TICK;
		unsigned what = tu_rand(seed) % 10;

		r->s = t;
		r->e = t + run < t_end ? t + run : t_end;
		r->end = r->e == t_end ? PG_END_RUNNING : tmpl >= 0 ? PG_END_WAIT :
			 what < 6 ? PG_END_WAIT : what < 9 ? PG_END_PREEMPTED : what < 10 && x->nruns > 3 ?
			 PG_END_EXIT : PG_END_UNKNOWN;
		gap = (steady ? gl : tu_rand_range(seed, 0, 8)) * TICK;
		if (x->ncalls < PG_VEC_MAX && tu_rand(seed) % 10 < 7)
			x->calls[x->ncalls++] = (struct pg_call){ .s = r->e - TICK / 2, .e = r->e + gap,
								  .nr = steady ? 0 : (int)(tu_rand(seed) % 2),
								  .arg0 = steady ? 3 : 3 + tu_rand(seed) % 2 };
		/* a stray wakeup while it runs: never the one that ends a gap */
		if (tu_rand(seed) % 4 == 0 && x->nwakes < PG_VEC_MAX)
			x->wakes[x->nwakes++] = (struct pg_wake){ .t = r->s, .by_partner = true };
		if (r->end == PG_END_EXIT || r->end == PG_END_RUNNING)
			break;
		if (r->end == PG_END_WAIT && x->nwakes < PG_VEC_MAX - 1) {
			unsigned w = tu_rand(seed) % 10;
			int64_t at = r->e + (steady ? gap : gap ? tu_rand_range(seed, 0, gap / TICK) * TICK : 0);

			if (tmpl >= 0 || w < 6)
				x->wakes[x->nwakes++] = (struct pg_wake){ .t = at, .by_partner = true };
			else if (w < 8)
				x->wakes[x->nwakes++] = (struct pg_wake){ .t = at, .by_partner = false };
		}
		t = r->e + gap;
		if (t >= t_end && r->end == PG_END_WAIT && tu_rand(seed) % 2)
			break;
	}
}

static void expect_same(const struct progress *a, const struct progress *b, unsigned long long seed)
{
	cr_assert_eq(a->nrays, b->nrays, "seed %llu: %zu rays, the reference %zu:\n%s", seed, a->nrays, b->nrays,
		     pg_vec_rays(a, buf, sizeof(buf)));
	for (size_t i = 0; i < a->nrays; i++) {
		const struct pg_ray *r = &a->rays[i], *q = &b->rays[i];

		cr_assert(r->kind == q->kind && r->t0 == q->t0 && r->t1 == q->t1 && r->x0 == q->x0 && r->y0 == q->y0 &&
			  r->x1 == q->x1 && r->y1 == q->y1 && r->open == q->open && r->dead == q->dead,
			  "seed %llu: ray %zu differs:\n%s", seed, i, pg_vec_rays(a, buf, sizeof(buf)));
	}
	cr_assert_eq(a->nblocks, b->nblocks, "seed %llu", seed);
	for (size_t i = 0; i < a->nblocks; i++) {
		const struct pg_block *x = &a->blocks[i], *y = &b->blocks[i];

		cr_assert(x->thread == y->thread && x->open == y->open && x->s == y->s && x->w == y->w &&
			  x->q2 == y->q2 && x->latency == y->latency && x->x == y->x && x->y == y->y &&
			  x->q3 == y->q3 && x->nr == y->nr && x->arg0 == y->arg0 && x->waker_nr == y->waker_nr,
			  "seed %llu: block %zu differs (s %lld/%lld w %lld/%lld q3 %lld/%lld)", seed, i,
			  (long long)x->s, (long long)y->s, (long long)x->w, (long long)y->w, (long long)x->q3,
			  (long long)y->q3);
	}
	cr_assert(a->q3_trailing == b->q3_trailing && a->d_ns == b->d_ns, "seed %llu", seed);
	cr_assert(a->dead_at == b->dead_at && a->deadlock == b->deadlock && a->anomalies == b->anomalies &&
		  a->anomaly_ns == b->anomaly_ns, "seed %llu", seed);
	cr_assert_eq(a->cycle.state, b->cycle.state, "seed %llu", seed);
	if (a->cycle.state != PG_CYCLE_FOUND)
		return;
	cr_assert(a->cycle.first == b->cycle.first && a->cycle.k == b->cycle.k && a->cycle.reps == b->cycle.reps &&
		  a->cycle.period == b->cycle.period && a->cycle.adv_x == b->cycle.adv_x &&
		  a->cycle.adv_y == b->cycle.adv_y, "seed %llu: cycle (%zu, %zu) vs (%zu, %zu)", seed,
		  a->cycle.first, a->cycle.k, b->cycle.first, b->cycle.k);
	for (size_t k = 0; k < a->cycle.k; k++)
		cr_assert(!memcmp(&a->cycle.pat[k], &b->cycle.pat[k], sizeof(a->cycle.pat[k])) ||
			  (a->cycle.pat[k].q2 == b->cycle.pat[k].q2 && a->cycle.pat[k].q3 == b->cycle.pat[k].q3 &&
			   a->cycle.pat[k].thread == b->cycle.pat[k].thread), "seed %llu", seed);
}

Test(progress, random_pairs_match_the_reference)
{
	static struct pg_vec v;
	size_t cycles = 0, cycles_k2 = 0, blocks = 0, dead = 0, exits = 0, anomalies = 0;

	for (unsigned long long s = 1; s <= 3000; s++) {
		unsigned long long seed = s * 7919;
		int64_t t_end = tu_rand_range(&seed, 10, 160) * TICK;
		int tmpl = s % 3 ? (int)(tu_rand(&seed) % 20) : -1;
		struct progress p, q;

		memset(&v, 0, sizeof(v));
		for (int t = 0; t < 2; t++) {
			v.th[t].origin = tu_rand(&seed) % 3 ? 0 : tu_rand_range(&seed, 1, 5) * TICK;
			gen_thread(&seed, &v.th[t], t_end, tmpl);
		}
		cr_assert_eq(progress_compute(pg_vec_input(&v, t_end / 1e6), &p), 0, "seed %llu", s);
		cr_assert_eq(progress_ref_compute(&v.in, TICK, &q), 0);
		expect_same(&p, &q, s);
		cycles += p.cycle.state == PG_CYCLE_FOUND;
		cycles_k2 += p.cycle.state == PG_CYCLE_FOUND && p.cycle.k > 1;
		anomalies += p.anomalies > 0;
		blocks += p.nblocks;
		dead += p.dead_at >= 0;
		exits += p.th[0].exited >= 0 || p.th[1].exited >= 0;
		progress_release(&p);
		progress_release(&q);
	}
	/* the inputs reach every case */
	fprintf(stderr, "random pairs: %zu cycles (%zu of more than one block), %zu dead points, %zu exits, "
		"%zu with anomalies, %zu blocks\n", cycles, cycles_k2, dead, exits, anomalies, blocks);
	cr_expect_gt(cycles, 150, "%zu cycles", cycles);
	cr_expect_gt(cycles_k2, 20, "%zu cycles of k > 1", cycles_k2);
	cr_expect_gt(anomalies, 50, "%zu with anomalies", anomalies);
	cr_expect_gt(dead, 50, "%zu dead points", dead);
	cr_expect_gt(exits, 50, "%zu exits", exits);
	cr_expect_gt(blocks, 5000, "%zu blocks", blocks);
}

Test(progress, bad_input)
{
	struct pg_vec v = { 0 };
	struct progress p;

	pg_vec_runs(&v, 0, "[0,5)B [4,8)");
	pg_vec_runs(&v, 1, "[0,8)");
	cr_expect_eq(progress_compute(pg_vec_input(&v, 10), &p), -EINVAL, "overlapping runs");
	memset(&v, 0, sizeof(v));
	v.th[0].origin = PG_MS(20);
	cr_expect_eq(progress_compute(pg_vec_input(&v, 10), &p), -EINVAL, "an origin after the end");
	memset(&v, 0, sizeof(v));
	cr_assert_eq(progress_compute(pg_vec_input(&v, 0), &p), 0, "nothing at all");
	cr_expect(p.nrays == 0 && p.nblocks == 0 && p.cycle.state == PG_CYCLE_NONBLOCKING);
	progress_release(&p);
}
