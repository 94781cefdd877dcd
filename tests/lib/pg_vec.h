/*
 * The two threads of a progress-graph test written as docs/ALGORITHMS.md
 * §8.7 writes them, in ms: runs "[0,1)B [4,6)P [8,10)X [24,25)" (B: ended
 * blocked, P: preempted, X: exited, nothing: still running), and the
 * rays, blocks and cycle of a result written back in the same notation.
 */
#ifndef QT_PG_VEC_H
#define QT_PG_VEC_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress/progress.h"

#define PG_MS(v) ((int64_t)llround((v) * 1e6))
#define PG_VEC_MAX 256

struct pg_vec_thread {
	struct pg_run runs[PG_VEC_MAX];
	struct pg_wake wakes[PG_VEC_MAX];
	struct pg_call calls[PG_VEC_MAX];
	size_t nruns, nwakes, ncalls;
	int64_t origin;
};

struct pg_vec {
	struct pg_vec_thread th[2];
	struct pg_input in;
};

/* Runs of thread t from "[s,e)K ..." (ms). */
static inline void pg_vec_runs(struct pg_vec *v, int t, const char *spec)
{
	struct pg_vec_thread *x = &v->th[t];
	const char *p = spec;
	double s, e;
	int n;

	while (sscanf(p, " [%lf,%lf)%n", &s, &e, &n) == 2) {
		struct pg_run *r = &x->runs[x->nruns++];

		p += n;
		r->s = PG_MS(s);
		r->e = PG_MS(e);
		r->end = *p == 'B' ? PG_END_WAIT : *p == 'P' ? PG_END_PREEMPTED : *p == 'X' ? PG_END_EXIT :
			 PG_END_RUNNING;
		if (*p == 'B' || *p == 'P' || *p == 'X')
			p++;
	}
}

/* A wakeup of thread t at ms, by its partner or not. */
static inline void pg_vec_wake(struct pg_vec *v, int t, double ms, bool partner)
{
	struct pg_vec_thread *x = &v->th[t];

	x->wakes[x->nwakes++] = (struct pg_wake){ .t = PG_MS(ms), .by_partner = partner };
}

/* Thread t woken by its partner at w (ms; none if w < 0), then running [s, e) until it blocks. */
static inline void pg_vec_woken_run(struct pg_vec *v, int t, double w, double s, double e)
{
	struct pg_vec_thread *x = &v->th[t];

	if (w >= 0)
		pg_vec_wake(v, t, w, true);
	x->runs[x->nruns++] = (struct pg_run){ .s = PG_MS(s), .e = PG_MS(e), .end = PG_END_WAIT };
}

static inline void pg_vec_call(struct pg_vec *v, int t, double s, double e, int nr, uint64_t arg0)
{
	struct pg_vec_thread *x = &v->th[t];

	x->calls[x->ncalls++] = (struct pg_call){ .s = PG_MS(s), .e = PG_MS(e), .nr = nr, .arg0 = arg0 };
}

static inline const struct pg_input *pg_vec_input(struct pg_vec *v, double t_end)
{
	for (int t = 0; t < 2; t++) {
		struct pg_thread_in *in = &v->in.th[t];

		in->origin = v->th[t].origin;
		in->runs = v->th[t].runs;
		in->nruns = v->th[t].nruns;
		in->wakes = v->th[t].wakes;
		in->nwakes = v->th[t].nwakes;
		in->calls = v->th[t].calls;
		in->ncalls = v->th[t].ncalls;
	}
	v->in.t_end = PG_MS(t_end);
	return &v->in;
}

/* "D(0,0)->(1,1) H(1,1)->(4,1) ..." of p into buf; S rays as "S(3,3)@[5,10)". */
static inline const char *pg_vec_rays(const struct progress *p, char *buf, size_t len)
{
	static const char kind[] = "DHVXS";
	size_t o = 0;

	buf[0] = 0;
	for (size_t i = 0; i < p->nrays && o < len; i++) {
		const struct pg_ray *r = &p->rays[i];

		if (r->kind == PG_RAY_S)
			o += snprintf(buf + o, len - o, "%sS(%g,%g)@[%g,%g)", i ? " " : "", r->x0 / 1e6, r->y0 / 1e6,
				      r->t0 / 1e6, r->t1 / 1e6);
		else
			o += snprintf(buf + o, len - o, "%s%c%s(%g,%g)->(%g,%g)", i ? " " : "", kind[r->kind],
				      r->open ? "o" : "", r->x0 / 1e6, r->y0 / 1e6, r->x1 / 1e6, r->y1 / 1e6);
	}
	return buf;
}

enum pg_vec_field { PG_Q2, PG_Q3, PG_LATENCY };

/* One field of every block in ms, "3,2,2"; an open block's Q2 as ">=18". */
static inline const char *pg_vec_list(const struct progress *p, enum pg_vec_field f, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (size_t i = 0; i < p->nblocks && o < len; i++) {
		const struct pg_block *b = &p->blocks[i];
		int64_t v = f == PG_Q2 ? b->q2 : f == PG_Q3 ? b->q3 : b->latency;

		o += snprintf(buf + o, len - o, "%s%s%g", i ? "," : "", b->open && f == PG_Q2 ? ">=" : "", v / 1e6);
	}
	return buf;
}

#endif
