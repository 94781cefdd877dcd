/*
 * A small recording for the tests of the renderings (HTML, Perfetto): a
 * pipeline src -> dec with a 10 ms period whose 6th invocation is 4 ms late
 * (a noisy thread takes src's CPU), a system call that spans two runs, an
 * IRQ, lost records, and a thread whose name tries to break out of a JSON
 * string inside HTML. Plus its actor result, made by hand as the actors
 * stage would (actors.h contract), the critical stage's result over both,
 * the Diagnosis of them, and the runner of tests/views/check_json.py.
 *
 *   CPU 0: src runs [k*10+1, k*10+2) ms, frame 0 split by noise at 1.5 ms;
 *          frame 5 starts at 55 ms instead of 51 (noise runs [51, 55))
 *   CPU 1: dec runs 50 us after each wakeup by src, for 2 ms
 */
#ifndef QT_SYNTH_VIEWS_H
#define QT_SYNTH_VIEWS_H

#include <errno.h>

#include "testutil.h"
#include "synth_trace.h"
#include "actors/actors.h"
#include "analysis/analysis.h"
#include "analysis/diagnosis.h"
#include "critical/critical.h"
#include "timeline/timeline.h"

#define SV_MS 1000000ull
#define SV_FRAMES 10
#define SV_LATE 5		/* the late invocation */
#define SV_WEIRD_NAME "</script><!--\xff"

/* syscall numbers on x86_64 */
#define SV_NR_READ 0
#define SV_NR_WRITE 1

struct sv_scene {
	struct trace *t;
	struct timeline *tl;
	struct actors_result *ar;
	struct critical_result *cr;
	struct analysis an;
};

static inline uint64_t sv_src_start(int k)
{
	return k == SV_LATE ? 55 * SV_MS : (uint64_t)k * 10 * SV_MS + SV_MS;
}

static inline struct trace *sv_trace(void)
{
	struct synth *s = synth_new(0, 120 * SV_MS, 2);

	synth_thread(s, 100, 100, "src");
	synth_thread(s, 101, 100, "dec");
	synth_thread(s, 200, 200, "noise");
	synth_thread(s, 300, 300, SV_WEIRD_NAME);
	synth_targets(s, "100");
	for (int k = 0; k < SV_FRAMES; k++) {
		uint64_t a = sv_src_start(k), b = a + SV_MS;

		/* src's timer fires on time; in frame SV_LATE noise holds the CPU until 55 ms */
		synth_timer_wakeup(s, (uint64_t)k * 10 * SV_MS + SV_MS, 100, 100, 0);

		if (k == 0) {
			/* src preempted by noise, resumes; read() spans both runs */
			synth_switch(s, a, 0, 0, 0, SYN_PREEMPT, 100, 100);
			synth_switch(s, a + SV_MS / 2, 0, 100, 100, SYN_PREEMPT, 200, 200);
			synth_switch(s, a + 7 * SV_MS / 10, 0, 200, 200, SYN_SLEEP, 100, 100);
			synth_syscall(s, a + SV_MS / 5, a + 9 * SV_MS / 10, 100, 100, SV_NR_READ, 3, 64);
			b = a + 6 * SV_MS / 5;
		} else if (k == SV_LATE) {
			synth_switch(s, 51 * SV_MS, 0, 0, 0, SYN_PREEMPT, 200, 200);
			synth_irq(s, 53 * SV_MS, 53 * SV_MS + 5000, 0, 24, 0, 200);
			synth_switch(s, a, 0, 200, 200, SYN_PREEMPT, 100, 100);
		} else {
			synth_switch(s, a, 0, 0, 0, SYN_PREEMPT, 100, 100);
		}
		synth_syscall(s, b - SV_MS / 4, b - SV_MS / 5, 100, 100, SV_NR_WRITE, 4, 8);
		synth_wakeup(s, b - SV_MS / 10, 100, 100, 101, 100, 1);
		synth_switch(s, b, 0, 100, 100, SYN_SLEEP, 0, 0);
		synth_switch(s, b - SV_MS / 10 + 50000, 1, 0, 0, SYN_PREEMPT, 101, 100);
		synth_switch(s, b - SV_MS / 10 + 50000 + 2 * SV_MS, 1, 101, 100, SYN_SLEEP, 0, 0);
	}
	/* the weird thread runs twice on CPU 1 */
	synth_switch(s, 105 * SV_MS, 1, 0, 0, SYN_PREEMPT, 300, 300);
	synth_switch(s, 106 * SV_MS, 1, 300, 300, SYN_SLEEP, 0, 0);
	synth_switch(s, 108 * SV_MS, 1, 0, 0, SYN_PREEMPT, 300, 300);
	synth_switch(s, 109 * SV_MS, 1, 300, 300, SYN_EXIT, 0, 0);
	synth_lost(s, 1, 112 * SV_MS, 113 * SV_MS, 5);
	return synth_finish(s);
}

static inline uint32_t sv_thread(const struct timeline *tl, uint32_t tid)
{
	for (size_t i = 0; i < tl->nthreads; i++)
		if (tl->threads[i].tid == tid && tl->threads[i].nrun)
			return i;
	return TL_NONE;
}

/* src as an actor: one invocation per frame (its runs), one break. */
static inline struct actors_result *sv_actors(const struct timeline *tl)
{
	struct actors_result *r = calloc(1, sizeof(*r));
	struct actor *a = calloc(1, sizeof(*a));
	uint32_t th = sv_thread(tl, 100);
	const struct tl_thread *x = &tl->threads[th];
	size_t run = x->run0;

	cr_assert(r && a && th != TL_NONE);
	r->v = a;
	r->n = 1;
	r->upstream = 0;
	a->kind = ACTOR_THREAD;
	a->thread = th;
	snprintf(a->name, sizeof(a->name), "src/100");
	a->inv = calloc(SV_FRAMES, sizeof(*a->inv));
	a->breaks = calloc(1, sizeof(*a->breaks));
	cr_assert(a->inv && a->breaks);
	for (int k = 0; k < SV_FRAMES; k++) {
		size_t first = run;

		/* frame 0 has two runs: the preempted one and its continuation */
		while (tl->runs[run].end_state == QT_END_PREEMPTED)
			run++;
		a->inv[k] = (struct actor_invocation){ .start_ns = tl->runs[first].start,
						       .end_ns = tl->runs[run].end, .first = first, .last = run };
		run++;
	}
	a->ninv = SV_FRAMES;
	a->nwindows = SV_FRAMES + 1;	/* as the stage sets it */
	cr_assert_eq(run, x->run0 + x->nrun);
	a->st = (struct period_stats){ .n_invocations = SV_FRAMES, .n_intervals = SV_FRAMES - 1,
				       .has_intervals = true, .period_ns = 10.0 * SV_MS, .q1_ns = 10 * SV_MS,
				       .q3_ns = 10 * SV_MS, .qcod = 0, .fence_ns = 10.0 * SV_MS,
				       .periodic = true, .n_breaks = 1 };
	a->breaks[0] = (struct actor_break){ .before = SV_LATE - 1, .late = SV_LATE,
					     .start_ns = a->inv[SV_LATE - 1].start_ns,
					     .end_ns = a->inv[SV_LATE].start_ns,
					     .interval_ns = 14 * SV_MS, .lateness_ns = 4 * SV_MS };
	a->nbreaks = 1;
	snprintf(a->comm, sizeof(a->comm), "src");
	a->worst_lateness_ns = 4 * SV_MS;
	/* the default cut, a tenth of the period: the break is major */
	r->min_late = (struct actors_cut){ .frac = ACTORS_DEFAULT_MIN_LATE };
	a->min_late_ns = SV_MS;
	a->nmajor = 1;
	a->breaking = true;
	return r;
}

static inline void sv_actors_free(struct actors_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].inv);
		free(r->v[i].breaks);
	}
	free(r->v);
	free(r->skipped);
	free(r);
}

static inline void sv_open(struct sv_scene *sc, bool with_actors)
{
	memset(sc, 0, sizeof(*sc));
	sc->t = sv_trace();
	cr_assert_eq(timeline__build(sc->t, NULL, &sc->tl), 0);
	analysis_opts_default(&sc->an.opts);
	sc->an.trace = sc->t;
	sc->an.tl = sc->tl;
	if (with_actors) {
		struct critical_opts co;

		sc->ar = sv_actors(sc->tl);
		sc->an.actors = sc->ar;
		/* the real critical stage over the scene and its hand-made actor */
		critical_opts_default(&co);
		cr_assert_eq(critical__analyse(sc->tl, sc->ar, &co, &sc->cr), 0);
		sc->an.critical = sc->cr;
	}
	/* as analysis__run_trace does once the stages are done */
	cr_assert_eq(diagnosis__compute(&sc->an, &sc->an.diagnosis), 0);
}

static inline void sv_close(struct sv_scene *sc)
{
	diagnosis__free(sc->an.diagnosis);
	critical__free(sc->cr);
	sv_actors_free(sc->ar);
	timeline__free(sc->tl);
	trace__free(sc->t);
}

/* ---- tests/views/check_json.py: "key value..." lines ---- */

struct cj {
	char *out;		/* the whole output */
	int status;
};

static inline int cj_run(struct cj *c, const char *mode, const char *path)
{
	char cmd[1024];
	size_t cap = 1 << 16, len = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "python3 tests/views/check_json.py %s '%s'", mode, path);
	p = popen(cmd, "r");
	cr_assert(p, "cannot run %s", cmd);
	c->out = malloc(cap);
	cr_assert(c->out);
	for (;;) {
		size_t n = fread(c->out + len, 1, cap - len - 1, p);

		len += n;
		if (len == cap - 1) {
			cap *= 2;
			c->out = realloc(c->out, cap);
			cr_assert(c->out);
		} else if (!n) {
			break;
		}
	}
	c->out[len] = 0;
	c->status = pclose(p);
	return c->status;
}

/* The rest of the line after "key ", or NULL. */
static inline const char *cj_get(const struct cj *c, const char *key)
{
	size_t kl = strlen(key);

	for (const char *l = c->out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, kl) && l[kl] == ' ')
			return l + kl + 1;
	return NULL;
}

static inline long long cj_num(const struct cj *c, const char *key)
{
	const char *v = cj_get(c, key);

	cr_assert(v, "check_json.py printed no '%s':\n%s", key, c->out);
	return strtoll(v, NULL, 10);
}

static inline void cj_free(struct cj *c)
{
	free(c->out);
	c->out = NULL;
}

/* Skips the test when python3 is not there to read the output. */
static inline void cj_require(void)
{
	if (system("python3 -c 'import json' >/dev/null 2>&1") != 0)
		cr_skip_test("python3 is missing: the JSON cannot be read back");
}

#endif
