// SPDX-License-Identifier: MIT
/*
 * The text report's progress graph of two threads (src/progress/
 * progress.h): a person reads who waits for whom, for how long, in what
 * rhythm, and where the rhythm broke. Times are seconds since the
 * recording started.
 */
#include <stdlib.h>
#include <string.h>

#include "actors/actors.h"
#include "analysis/analysis.h"
#include "file/syscall_names.h"
#include "lib/parse.h"
#include "progress/progress.h"
#include "style.h"
#include "text_progress.h"

#define DEPARTURES_SHOWN 5
#define BLOCKS_SHOWN 20

/* Calls whose first argument is a file descriptor. */
static const char *const fd_calls[] = {
	"read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2", "pwritev2",
	"recvfrom", "recvmsg", "recvmmsg", "sendto", "sendmsg", "sendmmsg", "epoll_wait", "epoll_pwait",
	"epoll_pwait2", "accept", "accept4", "ioctl", "fsync", "fdatasync", "splice", "tee", "flock",
	"connect", "close",
};

const char *text_progress_call(const char *arch, int32_t nr, uint64_t arg0, char *buf, size_t len)
{
	char nb[24];
	const char *name;

	if (nr < 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	name = syscall_label(arch, (unsigned)nr, nb, sizeof(nb));
	if (!strcmp(name, "futex")) {
		snprintf(buf, len, "futex(0x%llx)", (unsigned long long)arg0);
		return buf;
	}
	for (size_t i = 0; i < sizeof(fd_calls) / sizeof(fd_calls[0]); i++) {
		if (!strcmp(name, fd_calls[i])) {
			snprintf(buf, len, "%s(fd %lld)", name, (long long)(int32_t)arg0);
			return buf;
		}
	}
	snprintf(buf, len, "%s", name);
	return buf;
}

static const char *who(const struct analysis *a, uint32_t thread, char *buf, size_t len)
{
	const struct tl_thread *th = &a->tl->threads[thread];

	snprintf(buf, len, "%s/%u", th->comm, th->tid);
	return buf;
}

static double at_s(const struct analysis *a, int64_t t)
{
	return (t - (int64_t)a->tl->start) / 1e9;
}

static void print_pair(const struct analysis *a, const struct progress_result *r, const char *n[2], FILE *f,
		       const struct report_style *st)
{
	char b[32];

	fprintf(f, "%s on x, %s on y: ", n[0], n[1]);
	if (r->how == PG_PAIR_NAMED)
		fprintf(f, "as --pair named them\n");
	else if (r->how == PG_PAIR_UPSTREAM)
		fprintf(f, "the upstream actor and the thread it wakes most (%s wakeups)%s; --pair A,B for "
			"another pair%s\n", fmt_count(b, sizeof(b), (double)r->wakeups), rs_dim(st), rs_reset(st));
	else
		fprintf(f, "the two threads that wait for each other the longest%s; --pair A,B for another pair%s\n",
			rs_dim(st), rs_reset(st));
}

static void print_blocks(const struct analysis *a, const struct progress *p, const char *n[2], FILE *f)
{
	char b1[32], b2[32];

	fprintf(f, "%.3f s from %.3f s: %zu block%s", (p->t_end - p->t0) / 1e9, at_s(a, p->t0), p->nblocks,
		p->nblocks == 1 ? "" : "s");
	for (int t = 0; t < 2; t++) {
		const struct pg_thread_stats *s = &p->th[t];

		fprintf(f, "%s %s waited for %s %zu time%s", t ? ";" : ":", n[t], n[!t], s->nblocks,
			s->nblocks == 1 ? "" : "s");
		if (s->nblocks)
			fprintf(f, ", %s in all", fmt_duration(b1, sizeof(b1), s->blocked_ns));
		if (s->open_ns)
			fprintf(f, ", and waits from %.3f s to the end, not woken (%s)", at_s(a, p->t_end - s->open_ns),
				fmt_duration(b2, sizeof(b2), s->open_ns));
	}
	fputs("\n", f);
	if (p->dead_at >= 0 && p->deadlock)
		fprintf(f, "from %.3f s neither runs again: both wait and nothing wakes either before the end (a deadlock, "
			"if they wait for each other)\n",
			at_s(a, p->dead_at));
	else if (p->dead_at >= 0)
		fprintf(f, "at %.3f s both stopped: %s\n", at_s(a, p->dead_at),
			p->th[0].exited >= 0 && p->th[1].exited >= 0 ? "both exited" :
			p->th[0].exited >= 0 ? "x exited, y waits to the end" : "y exited, x waits to the end");
}

/* "dec waits 9.91 ms in read(fd 3) until src's write(fd 4), then both run 88.2 us" */
static void print_pattern(const struct analysis *a, const struct pg_pattern *pt, const char *n[2], FILE *f)
{
	const char *arch = trace__arch(a->trace);
	char b1[32], b2[32], c1[48], c2[48];

	fprintf(f, "both run %s, then %s waits %s in %s", fmt_duration(b1, sizeof(b1), pt->q3), n[pt->thread],
		fmt_duration(b2, sizeof(b2), pt->q2), text_progress_call(arch, pt->nr, pt->arg0, c1, sizeof(c1)));
	if (pt->waker_nr >= 0)
		fprintf(f, " until %s's %s", n[!pt->thread], syscall_label(arch, pt->waker_nr, c2, sizeof(c2)));
	else
		fprintf(f, " until %s wakes it", n[!pt->thread]);
}

static void print_cycle(const struct analysis *a, const struct progress *p, const char *n[2], FILE *f,
			const struct report_style *st)
{
	const struct pg_cycle *c = &p->cycle;
	char b1[32], b2[32], b3[32];

	if (c->state == PG_CYCLE_NONBLOCKING) {
		if (!p->nblocks)
			fprintf(f, "they never wait for each other\n");
		else
			fprintf(f, "they stop waiting for each other: the last %s of %s run without a block\n",
				fmt_duration(b1, sizeof(b1), p->q3_trailing),
				fmt_duration(b2, sizeof(b2), p->t_end - p->t0));
		return;
	}
	if (c->state == PG_CYCLE_NONE) {
		fprintf(f, "no steady cycle: the blocks do not repeat %d times in a row\n", PG_REPEATS);
		return;
	}
	fprintf(f, "%ssteady cycle%s of %zu block%s, every %s (%zu of %zu blocks follow it; unbroken for %zu "
		"repetitions from %.3f s): ", rs_bold(st), rs_reset(st), c->k, c->k == 1 ? "" : "s",
		fmt_duration(b1, sizeof(b1), c->period), c->follow, p->ncomplete, c->reps,
		at_s(a, p->blocks[p->complete[c->first]].s - c->pat[0].q3));
	for (size_t k = 0; k < c->k; k++) {
		if (k)
			fputs(c->k > 2 ? ";\n    " : "; ", f);
		print_pattern(a, &c->pat[k], n, f);
	}
	fprintf(f, "\n  per cycle %s advances %s and %s %s; %s is blocked %.1f %% of it, %s %.1f %%\n", n[0],
		fmt_duration(b2, sizeof(b2), c->adv_x), n[1], fmt_duration(b3, sizeof(b3), c->adv_y), n[0],
		100 * c->blocked_share[0], n[1], 100 * c->blocked_share[1]);
}

static int by_cost(const void *x, const void *y, void *arg)
{
	const struct pg_departure *d = arg;
	int64_t a = d[*(const size_t *)x].excess, b = d[*(const size_t *)y].excess;

	if (a != b)
		return a > b ? -1 : 1;
	return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

static void departure_row(const struct analysis *a, const struct progress_result *r, const struct pg_departure *d,
			  const char *n[2], FILE *f)
{
	const struct progress *p = &r->pg;
	const struct pg_block *w = &p->blocks[p->complete[d->worst]];
	char b1[32], b2[32], b3[32], cost[40], what[96], brk[96] = "-";

	if (d->worst_expect >= 0)
		snprintf(what, sizeof(what), "%s waited %s instead of %s", n[w->thread],
			 fmt_duration(b1, sizeof(b1), w->q2), fmt_duration(b2, sizeof(b2), d->worst_expect));
	else
		snprintf(what, sizeof(what), "%s waited %s out of turn", n[w->thread], fmt_duration(b1, sizeof(b1), w->q2));
	if (d->actor >= 0 && a->actors) {
		const struct actor *ac = &a->actors->v[d->actor];

		snprintf(brk, sizeof(brk), "%s late by %s", ac->name,
			 fmt_duration(b3, sizeof(b3), ac->breaks[d->brk].lateness_ns));
	}
	snprintf(cost, sizeof(cost), "%s%s", d->excess < 0 ? "-" : "+",
		 fmt_duration(b2, sizeof(b2), d->excess < 0 ? -d->excess : d->excess));
	fprintf(f, "  %12.6f %7zu %11s  %-44s %s\n", at_s(a, d->start), d->last - d->first + 1, cost, what, brk);
}

static void print_departures(const struct analysis *a, const struct progress_result *r, const char *n[2],
			     FILE *f, const struct report_style *st)
{
	const struct progress *p = &r->pg;
	size_t at_breaks = 0, shown = st->verbose ? p->ndep : DEPARTURES_SHOWN, *order;

	if (p->cycle.state != PG_CYCLE_FOUND || !p->ndep)
		return;
	for (size_t i = 0; i < p->ndep; i++)
		at_breaks += p->dep[i].actor >= 0;
	fprintf(f, "departs from the cycle %zu time%s", p->ndep, p->ndep == 1 ? "" : "s");
	if (at_breaks)
		fprintf(f, ", %zu of them at period breaks", at_breaks);
	fprintf(f, " (COST: the time beyond the cycle's for the same blocks)%s\n",
		st->verbose ? "" : ", the costliest first:");
	fprintf(f, "%s  %12s %7s %11s  %-44s %s%s\n", rs_dim(st), "AT (s)", "BLOCKS", "COST", "WHAT", "BREAK",
		rs_reset(st));
	order = malloc(p->ndep * sizeof(*order));
	if (!order)
		return;
	for (size_t i = 0; i < p->ndep; i++)
		order[i] = i;
	if (!st->verbose)
		qsort_r(order, p->ndep, sizeof(*order), by_cost, p->dep);
	for (size_t i = 0; i < p->ndep && i < shown; i++)
		departure_row(a, r, &p->dep[order[i]], n, f);
	if (p->ndep > shown)
		fprintf(f, "%s  ... %zu more (-v lists them all)%s\n", rs_dim(st), p->ndep - shown, rs_reset(st));
	free(order);
}

/* What the model does not see: preemption, waits others ended, wake latency. */
static void print_outside(const struct progress *p, const char *n[2], FILE *f, const struct report_style *st)
{
	char b1[32], b2[32], b3[32];

	fprintf(f, "%sprogress that is not running together:", rs_dim(st));
	for (int t = 0; t < 2; t++) {
		const struct pg_thread_stats *s = &p->th[t];

		fprintf(f, "%s %s preempted %s, waiting for others %s (%zu wait%s), woken by the other and not yet "
			"running %s", t ? ";" : "", n[t], fmt_duration(b1, sizeof(b1), s->preempted_ns),
			fmt_duration(b2, sizeof(b2), s->other_ns), s->nother, s->nother == 1 ? "" : "s",
			fmt_duration(b3, sizeof(b3), s->latency_ns));
	}
	if (p->anomalies)
		fprintf(f, "; %zu times both blocked on each other at once (%s)", p->anomalies,
			fmt_duration(b1, sizeof(b1), p->anomaly_ns));
	fprintf(f, "%s\n", rs_reset(st));
}

static void print_first_blocks(const struct analysis *a, const struct progress *p, const char *n[2], FILE *f,
			       const struct report_style *st)
{
	const char *arch = trace__arch(a->trace);
	char b1[32], b2[32], b3[32], c1[48], c2[48];

	fprintf(f, "%s  %12s  %-20s %21s %10s %10s %10s  %s%s\n", rs_dim(st), "AT (s)", "WAITS", "POINT (x, y ms)",
		"RAN BEFORE", "WAITED", "LATENCY", "IN -> WOKEN BY", rs_reset(st));
	for (size_t i = 0; i < p->nblocks && i < BLOCKS_SHOWN; i++) {
		const struct pg_block *b = &p->blocks[i];
		char pt[48];

		snprintf(pt, sizeof(pt), "(%.3f, %.3f)", b->x / 1e6, b->y / 1e6);
		fprintf(f, "  %12.6f  %-20s %21s %10s %9s%s %10s  %s -> %s\n", at_s(a, b->s), n[b->thread], pt,
			fmt_duration(b1, sizeof(b1), b->q3), fmt_duration(b2, sizeof(b2), b->q2), b->open ? "+" : " ",
			fmt_duration(b3, sizeof(b3), b->latency), text_progress_call(arch, b->nr, b->arg0, c1, sizeof(c1)),
			b->open ? "(never)" : b->waker_nr < 0 ? "-" : syscall_label(arch, b->waker_nr, c2, sizeof(c2)));
	}
	if (p->nblocks > BLOCKS_SHOWN)
		fprintf(f, "%s  ... %zu more (--json lists them)%s\n", rs_dim(st), p->nblocks - BLOCKS_SHOWN, rs_reset(st));
}

void text_progress_print(const struct analysis *a, FILE *f, const struct report_style *st)
{
	const struct progress_result *r = a->progress;
	char n0[40], n1[40], title[120];
	const char *n[2];

	if (!r || !a->tl)
		return;
	n[0] = who(a, r->thread[0], n0, sizeof(n0));
	n[1] = who(a, r->thread[1], n1, sizeof(n1));
	snprintf(title, sizeof(title), "Two threads: %s and %s (progress graph)", n[0], n[1]);
	rs_section(f, st, title);
	print_pair(a, r, n, f, st);
	print_blocks(a, &r->pg, n, f);
	print_cycle(a, &r->pg, n, f, st);
	print_departures(a, r, n, f, st);
	print_outside(&r->pg, n, f, st);
	if (st->verbose)
		print_first_blocks(a, &r->pg, n, f, st);
}
