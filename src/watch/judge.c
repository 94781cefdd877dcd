// SPDX-License-Identifier: MIT
/* Judging one actor with the offline stages; see src/watch/judge.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actors/actors.h"
#include "file/trace.h"
#include "judge.h"
#include "timeline/timeline.h"
#include "trigger.h"

/* A switch with the other thread made the idle task (judge.h). */
static void only_thread(union qt_record *x, uint32_t tid)
{
	if (x->sw.prev_tid != tid) {
		x->sw.prev_tid = x->sw.prev_tgid = 0;
		x->sw.prev_state = 0;
		x->sw.prev_runtime = 0;
		x->h.flags &= ~QT_SWITCH_PREEMPT;
	}
	if (x->sw.next_tid != tid)
		x->sw.next_tid = x->sw.next_tgid = 0;
}

static int fill(struct trace_builder *b, const struct judge_in *in)
{
	struct trace *t = trace_builder__trace(b);
	struct tf_thread th = { .tid = in->tid, .tgid = in->tgid };
	bool born = false;
	int err = 0;

	strncpy(th.comm, in->comm ? in->comm : "", sizeof(th.comm) - 1);
	err |= tf_kv_set(&t->meta, TF_META_ARCH, "%s", in->arch ? in->arch : "");
	err |= tf_kv_set(&t->meta, TF_META_CPUS, "%d", in->ncpus);
	err |= tf_kv_set(&t->meta, TF_META_START, "%llu", (unsigned long long)in->from);
	err |= tf_kv_set(&t->meta, TF_META_MODE, "pids");
	err |= tf_kv_set(&t->meta, TF_META_TARGETS, "%u", in->tgid);
	err |= tf_kv_set(&t->meta, TF_META_RECORDER, "%d", getpid());
	err |= tf_kv_set(&t->end, TF_END_STOP, "%llu", (unsigned long long)in->to);
	if (err)
		return -ENOMEM;
	t->finished = true;
	/* A thread born in the span is not in the table at its start: the fork says who it is, and when. */
	for (size_t i = 0; i < in->nrecs; i++)
		if (in->recs[i].h.type == QT_REC_FORK && in->recs[i].task.tid == in->tid &&
		    in->recs[i].h.ts >= in->from && in->recs[i].h.ts <= in->to)
			born = true;
	err = trace_builder__threads(b, &th, born ? 0 : 1, in->from);
	for (size_t i = 0; i < in->nrecs && !err; i++) {
		union qt_record x = in->recs[i];

		if (x.h.ts < in->from || x.h.ts > in->to)
			continue;
		if (x.h.type == QT_REC_SWITCH)
			only_thread(&x, in->tid);
		err = trace_builder__add(b, &x);
	}
	for (size_t i = 0; i < in->nlosses && !err; i++) {
		union qt_record x = in->losses[i];

		if (x.lost.last_ts < in->from || x.lost.first_ts > in->to)
			continue;
		err = trace_builder__add(b, &x);
	}
	return err;
}

/* A system call actor's calls in the span (a thread actor: true). */
static bool has_calls(const struct judge_in *in)
{
	if (!in->syscall)
		return true;
	for (size_t i = 0; i < in->nrecs; i++) {
		const union qt_record *x = &in->recs[i];

		if (x->h.type == QT_REC_SYSCALL && x->sc.tid == in->tid && x->sc.nr == in->nr &&
		    (!in->has_arg0 || x->sc.arg0 == in->arg0) && x->h.ts >= in->from && x->h.ts <= in->to)
			return true;
	}
	return false;
}

int judge_out_of(const struct actor *a, struct judge_out *out)
{
	out->studied = true;
	out->periodic = a->st.periodic;
	out->period_ns = a->st.period_ns;
	out->qcod = a->st.qcod;
	out->ninv = a->ninv;
	out->breaks = calloc(a->nbreaks ? a->nbreaks : 1, sizeof(*out->breaks));
	if (!out->breaks)
		return -ENOMEM;
	for (size_t k = 0; k < a->nbreaks; k++) {
		const struct actor_break *b = &a->breaks[k];

		out->breaks[k] = (struct judge_break){
			.late_ns = judge_break_time(b->start_ns, b->end_ns, b->kind == BREAK_COMPLETION),
			.start_ns = b->start_ns, .end_ns = b->end_ns, .lateness_ns = b->lateness_ns,
			.kind = b->kind, .data_missing = b->data_missing,
		};
	}
	out->nbreaks = a->nbreaks;
	return 0;
}

static int take_actor(const struct actor *a, const struct timeline *tl, const struct judge_in *in,
		      struct judge_out *out)
{
	int err = judge_out_of(a, out);

	if (!err)
		out->have_rule = !follow_rule_learn(a, tl, watch_cut_ns(a->st.period_ns, in->late_ns), &out->rule);
	return err;
}

int judge_actor(const struct judge_in *in, struct judge_out *out)
{
	struct trace_builder *b = trace_builder__new("(watched thread)");
	const char *specs[1] = { in->spec };
	struct actors_opts ao = { .actor_specs = specs, .n_actor_specs = 1, .jobs = 1 };
	struct actors_result *ar = NULL;
	struct timeline *tl = NULL;
	struct trace *t;
	int err;

	memset(out, 0, sizeof(*out));
	if (!b)
		return -ENOMEM;
	err = fill(b, in);
	if (err) {
		trace_builder__free(b);
		return err;
	}
	t = trace_builder__finish(b);
	err = timeline__build(t, NULL, &tl);
	/* The stage would say (log_err) that the spec names nothing: a quiet "nothing to judge". */
	if (!err && (!actors__spec_names(in->spec, tl) || !has_calls(in)))
		err = -ENOENT;
	if (!err)
		err = actors__analyse(tl, &ao, &ar);
	if (!err && ar->n)
		err = take_actor(&ar->v[0], tl, in, out);
	actors__free(ar);
	timeline__free(tl);
	trace__free(t);
	if (err)
		judge_out_free(out);
	return err;
}

void judge_out_free(struct judge_out *out)
{
	free(out->breaks);
	memset(out, 0, sizeof(*out));
}
