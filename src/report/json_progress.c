// SPDX-License-Identifier: MIT
/*
 * The "progress" section of the JSON report: the two-thread progress
 * graph (src/progress/progress.h) field for field. Times are
 * CLOCK_MONOTONIC ns; a point's coordinates are each thread's progress in
 * ns since its origin.
 */
#include "actors/actors.h"
#include "analysis/analysis.h"
#include "file/syscall_names.h"
#include "json_progress.h"
#include "progress/progress.h"

static const char *const how_names[] = {
	[PG_PAIR_NAMED] = "named", [PG_PAIR_UPSTREAM] = "upstream", [PG_PAIR_BLOCKING] = "blocking",
};

static void call_fields(json_writer_t *w, const char *arch, const char *key, const char *nr_key, int32_t nr)
{
	const char *name = nr >= 0 ? syscall_name(arch, (unsigned)nr) : NULL;

	jsonw_i64_field(w, nr_key, nr);
	if (name)
		jsonw_string_field(w, key, name);
	else
		jsonw_null_field(w, key);
}

/* "name": [x, y] */
static void xy_field(json_writer_t *w, const char *name, int64_t x, int64_t y)
{
	jsonw_name(w, name);
	jsonw_start_array(w);
	jsonw_i64(w, x);
	jsonw_i64(w, y);
	jsonw_end_array(w);
}

/* A block's label (Q1): the call it blocked in, its first argument, the partner's call that woke it. */
static void label_fields(json_writer_t *w, const char *arch, int32_t nr, uint64_t arg0, int32_t waker_nr)
{
	call_fields(w, arch, "call", "nr", nr);
	jsonw_u64_field(w, "arg0", arg0);
	call_fields(w, arch, "waker_call", "waker_nr", waker_nr);
}

static void thread_obj(json_writer_t *w, const struct analysis *a, const struct progress_result *r, int t)
{
	const struct tl_thread *th = &a->tl->threads[r->thread[t]];
	const struct pg_thread_stats *s = &r->pg.th[t];

	jsonw_start_object(w);
	jsonw_string_field(w, "axis", t ? "y" : "x");
	jsonw_u64_field(w, "tid", th->tid);
	jsonw_u64_field(w, "pid", th->pid);
	jsonw_string_field(w, "comm", th->comm);
	jsonw_i64_field(w, "origin_ns", t ? r->pg.t0 - r->pg.gy : r->pg.t0 - r->pg.gx);
	jsonw_u64_field(w, "blocks", s->nblocks);
	jsonw_i64_field(w, "blocked_ns", s->blocked_ns);
	jsonw_i64_field(w, "open_ns", s->open_ns);
	jsonw_i64_field(w, "latency_ns", s->latency_ns);
	jsonw_i64_field(w, "preempted_ns", s->preempted_ns);
	jsonw_i64_field(w, "other_ns", s->other_ns);
	jsonw_u64_field(w, "other_waits", s->nother);
	if (s->exited >= 0)
		jsonw_i64_field(w, "exited_ns", s->exited);
	else
		jsonw_null_field(w, "exited_ns");
	jsonw_end_object(w);
}

static void block_obj(json_writer_t *w, const char *arch, const struct pg_block *b)
{
	jsonw_start_object(w);
	jsonw_u64_field(w, "thread", b->thread);
	jsonw_bool_field(w, "open", b->open);
	jsonw_i64_field(w, "start_ns", b->s);
	jsonw_i64_field(w, "wake_ns", b->w);
	jsonw_i64_field(w, "x_ns", b->x);
	jsonw_i64_field(w, "y_ns", b->y);
	jsonw_i64_field(w, "q2_ns", b->q2);
	jsonw_i64_field(w, "q3_ns", b->q3);
	jsonw_i64_field(w, "latency_ns", b->latency);
	label_fields(w, arch, b->nr, b->arg0, b->waker_nr);
	jsonw_end_object(w);
}

static void cycle_obj(json_writer_t *w, const char *arch, const struct progress *p)
{
	const struct pg_cycle *c = &p->cycle;

	jsonw_name(w, "cycle");
	jsonw_start_object(w);
	jsonw_string_field(w, "state", c->state == PG_CYCLE_FOUND ? "steady" :
					c->state == PG_CYCLE_NONBLOCKING ? "non_blocking" : "none");
	if (c->state == PG_CYCLE_FOUND) {
		jsonw_u64_field(w, "first_block", p->complete[c->first]);
		jsonw_u64_field(w, "transient", c->first);
		jsonw_u64_field(w, "blocks_per_cycle", c->k);
		jsonw_u64_field(w, "repetitions", c->reps);
		jsonw_u64_field(w, "blocks_following", c->follow);
		jsonw_i64_field(w, "period_ns", c->period);
		xy_field(w, "advance_ns", c->adv_x, c->adv_y);
		jsonw_name(w, "blocked_share");
		jsonw_start_array(w);
		jsonw_float(w, c->blocked_share[0] > 1 ? 1 : c->blocked_share[0]);
		jsonw_float(w, c->blocked_share[1] > 1 ? 1 : c->blocked_share[1]);
		jsonw_end_array(w);
		jsonw_name(w, "pattern");
		jsonw_start_array(w);
		for (size_t k = 0; k < c->k; k++) {
			const struct pg_pattern *pt = &c->pat[k];

			jsonw_start_object(w);
			jsonw_u64_field(w, "thread", pt->thread);
			jsonw_i64_field(w, "q3_ns", pt->q3);
			jsonw_i64_field(w, "q2_ns", pt->q2);
			label_fields(w, arch, pt->nr, pt->arg0, pt->waker_nr);
			jsonw_end_object(w);
		}
		jsonw_end_array(w);
	}
	jsonw_end_object(w);
}

static void departures(json_writer_t *w, const struct analysis *a, const struct progress *p)
{
	jsonw_name(w, "departures");
	jsonw_start_array(w);
	for (size_t i = 0; i < p->ndep; i++) {
		const struct pg_departure *d = &p->dep[i];

		jsonw_start_object(w);
		jsonw_u64_field(w, "first_block", p->complete[d->first]);
		jsonw_u64_field(w, "last_block", p->complete[d->last]);
		jsonw_u64_field(w, "blocks", d->last - d->first + 1);
		jsonw_i64_field(w, "start_ns", d->start);
		jsonw_i64_field(w, "end_ns", d->end);
		jsonw_i64_field(w, "excess_ns", d->excess);
		jsonw_u64_field(w, "worst_block", p->complete[d->worst]);
		jsonw_i64_field(w, "worst_q2_ns", p->blocks[p->complete[d->worst]].q2);
		if (d->worst_expect >= 0)
			jsonw_i64_field(w, "expected_q2_ns", d->worst_expect);
		else
			jsonw_null_field(w, "expected_q2_ns");
		jsonw_name(w, "break");
		if (d->actor >= 0 && a->actors && (size_t)d->actor < a->actors->n) {
			const struct actor *ac = &a->actors->v[d->actor];

			jsonw_start_object(w);
			jsonw_u64_field(w, "actor", (uint64_t)d->actor);
			jsonw_string_field(w, "name", ac->name);
			jsonw_u64_field(w, "break", d->brk);
			jsonw_i64_field(w, "lateness_ns", ac->breaks[d->brk].lateness_ns);
			jsonw_end_object(w);
		} else {
			jsonw_null(w);
		}
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

static void rays(json_writer_t *w, const struct progress *p)
{
	static const char *const kinds[] = { "D", "H", "V", "X", "S" };

	jsonw_u64_field(w, "rays_total", p->nrays);
	jsonw_name(w, "rays");
	jsonw_start_array(w);
	for (size_t i = 0; i < p->nrays && i < JSON_PROGRESS_RAYS; i++) {
		const struct pg_ray *r = &p->rays[i];

		jsonw_start_object(w);
		jsonw_string_field(w, "kind", kinds[r->kind]);
		jsonw_bool_field(w, "open", r->open);
		jsonw_bool_field(w, "dead", r->dead);
		jsonw_i64_field(w, "t0_ns", r->t0);
		jsonw_i64_field(w, "t1_ns", r->t1);
		jsonw_i64_field(w, "x0_ns", r->x0);
		jsonw_i64_field(w, "y0_ns", r->y0);
		jsonw_i64_field(w, "x1_ns", r->x1);
		jsonw_i64_field(w, "y1_ns", r->y1);
		if (r->block != UINT32_MAX)
			jsonw_u64_field(w, "block", r->block);
		else
			jsonw_null_field(w, "block");
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
}

void json_progress_write(const struct analysis *a, json_writer_t *w)
{
	const struct progress_result *r = a->progress;
	const struct progress *p;
	const char *arch;

	jsonw_name(w, "progress");
	if (!r || !a->tl) {
		jsonw_null(w);
		return;
	}
	p = &r->pg;
	arch = trace__arch(a->trace);
	jsonw_start_object(w);
	jsonw_string_field(w, "chosen", how_names[r->how]);
	if (r->how == PG_PAIR_UPSTREAM)
		jsonw_u64_field(w, "upstream_wakeups", r->wakeups);
	jsonw_name(w, "threads");
	jsonw_start_array(w);
	thread_obj(w, a, r, 0);
	thread_obj(w, a, r, 1);
	jsonw_end_array(w);
	jsonw_i64_field(w, "t0_ns", p->t0);
	jsonw_i64_field(w, "end_ns", p->t_end);
	xy_field(w, "g_c_ns", p->gx, p->gy);
	jsonw_i64_field(w, "both_ns", p->d_ns);
	jsonw_i64_field(w, "q3_trailing_ns", p->q3_trailing);
	jsonw_u64_field(w, "anomalies", p->anomalies);
	jsonw_i64_field(w, "anomaly_ns", p->anomaly_ns);
	jsonw_name(w, "dead_point");
	if (p->dead_at >= 0) {
		jsonw_start_object(w);
		jsonw_i64_field(w, "at_ns", p->dead_at);
		jsonw_bool_field(w, "deadlock", p->deadlock);
		jsonw_end_object(w);
	} else {
		jsonw_null(w);
	}
	cycle_obj(w, arch, p);
	departures(w, a, p);
	jsonw_u64_field(w, "blocks_total", p->nblocks);
	jsonw_name(w, "blocks");
	jsonw_start_array(w);
	for (size_t i = 0; i < p->nblocks && i < JSON_PROGRESS_BLOCKS; i++)
		block_obj(w, arch, &p->blocks[i]);
	jsonw_end_array(w);
	rays(w, p);
	jsonw_end_object(w);
}
