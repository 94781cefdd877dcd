// SPDX-License-Identifier: MIT
/*
 * Which threads and calls become actors: the ones --actor names, and the
 * default set (src/actors/actors.h, "Which actors").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/syscall_names.h"
#include "file/trace.h"
#include "internal.h"
#include "lib/log.h"

static bool cand_same(const struct cand *x, const struct cand *y)
{
	return x->kind == y->kind && x->thread == y->thread && x->nr == y->nr &&
	       x->has_arg0 == y->has_arg0 && x->arg0 == y->arg0;
}

static int cand_add(struct cand **v, size_t *n, size_t *cap, const struct cand *cd)
{
	int err;

	for (size_t i = 0; i < *n; i++) {
		if (cand_same(&(*v)[i], cd)) {
			(*v)[i].from_spec |= cd->from_spec;
			return 0;
		}
	}
	err = actors_grow((void **)v, cap, *n + 1, sizeof(**v));
	if (!err)
		(*v)[(*n)++] = *cd;
	return err;
}

/*
 * Thread actors come first in thread order; for a thread's spec matches,
 * cand_add's linear dedupe is over the few candidates of the specs only.
 */
int choose_candidates(struct ctx *c, const struct actors_opts *o, struct cand **out, size_t *nout)
{
	const struct timeline *tl = c->tl;
	const char *arch = trace__arch(tl->trace);
	struct cand *v = NULL, *sv = NULL;
	size_t n = 0, cap = 0, sn = 0, scap = 0;
	bool want_default = o->n_actor_specs == 0;
	char msg[256];
	int err = 0;

	for (size_t i = 0; i < o->n_actor_specs; i++) {
		struct spec sp;
		size_t matched = 0, with_calls = 0;
		uint32_t last = 0;
		int nr = -1;

		if (spec_parse(o->actor_specs[i], &sp, msg, sizeof(msg))) {
			log_err("%s", msg);
			err = -EINVAL;
			goto out;
		}
		if (sp.sel == SEL_AUTO) {
			want_default = true;
			continue;
		}
		if (sp.syscall) {
			nr = spec_all_digits(sp.call, strlen(sp.call)) ? atoi(sp.call) : syscall_number(arch, sp.call);
			if (nr < 0) {
				log_err("--actor '%s': no system call '%s' on %s", sp.text, sp.call,
					arch ? arch : "x86_64");
				err = -EINVAL;
				goto out;
			}
		}
		for (uint32_t th = 0; th < tl->nthreads; th++) {
			const struct tl_thread *x = &tl->threads[th];
			struct cand cd = { .thread = th, .from_spec = true };
			size_t calls = 0;

			if (!spec_matches(&sp, x) || (!x->nrun && !x->nsc))
				continue;
			/* A glob naming qostrace's own threads is rarely meant; a tid is. */
			if ((x->flags & TL_RECORDER) && sp.sel == SEL_COMM &&
			    strpbrk(sp.pattern, "*?["))
				continue;
			matched++;
			last = th;
			if (!sp.syscall) {
				if (!x->nrun)
					continue;
				cd.kind = ACTOR_THREAD;
			} else {
				for (size_t j = x->sc0; j < x->sc0 + x->nsc; j++)
					calls += call_of(&tl->sc[j], (uint32_t)nr, sp.has_arg0, sp.arg0);
				if (!calls)
					continue;
				cd.kind = ACTOR_SYSCALL;
				cd.nr = nr;
				cd.has_arg0 = sp.has_arg0;
				cd.arg0 = sp.arg0;
			}
			with_calls++;
			err = cand_add(&sv, &sn, &scap, &cd);
			if (err)
				goto out;
		}
		if (!matched) {
			char what[96];

			if (sp.sel == SEL_COMM)
				snprintf(what, sizeof(what), "named '%s'", sp.pattern);
			else
				snprintf(what, sizeof(what), "%s %u", sp.sel == SEL_TID ? "with tid" : "in process",
					 sp.id);
			log_err("--actor '%s': no thread %s ran in this recording (the report's thread "
				"list names them)", sp.text, what);
			err = -EINVAL;
			goto out;
		}
		if (!with_calls) {
			char who[64], arg[32] = "";

			if (matched == 1)
				snprintf(who, sizeof(who), "%s/%u", tl->threads[last].comm, tl->threads[last].tid);
			else
				snprintf(who, sizeof(who), "none of the %zu matching threads", matched);
			if (sp.has_arg0)
				snprintf(arg, sizeof(arg), " with first argument %llu", (unsigned long long)sp.arg0);
			if (sp.syscall)
				log_err("--actor '%s': %s made no %s call%s", sp.text, who, sp.call, arg);
			else
				log_err("--actor '%s': %s ran in this recording", sp.text,
					matched == 1 ? "that thread never" : "none of the matching threads");
			err = -EINVAL;
			goto out;
		}
	}
	if (want_default) {
		for (uint32_t th = 0; th < tl->nthreads; th++) {
			const struct tl_thread *x = &tl->threads[th];
			struct cand cd = { .kind = ACTOR_THREAD, .thread = th };

			if (!x->nrun)
				continue;
			if (x->flags & TL_RECORDER) {
				err = actors_skip(c, th, "qostrace itself", x->nrun);
				if (err)
					goto out;
				continue;
			}
			if (!(x->flags & TL_TARGET))
				continue;
			/*
			 * With -a every thread is a target, and rcu_preempt, which
			 * runs every few ms while a grace period lasts and then
			 * not for a second, was "first to break its 8 ms period"
			 * beside a pipeline. A kernel thread's work is what
			 * disturbs the program, not a rhythm of its own: a cause
			 * and a pattern, and an actor only when named.
			 */
			if (x->flags & TT_KTHREAD) {
				err = actors_skip(c, th, "kernel thread", x->nrun);
				if (err)
					goto out;
				continue;
			}
			err = actors_grow((void **)&v, &cap, n + 1, sizeof(*v));
			if (err)
				goto out;
			v[n++] = cd;
		}
	}
	/* Named thread actors that the default set has already: mark them. */
	for (size_t i = 0; i < sn; i++) {
		bool dup = false;

		for (size_t k = 0; k < n && sv[i].kind == ACTOR_THREAD; k++) {
			if (cand_same(&v[k], &sv[i])) {
				v[k].from_spec = true;
				dup = true;
				break;
			}
		}
		if (dup)
			continue;
		err = actors_grow((void **)&v, &cap, n + 1, sizeof(*v));
		if (err)
			goto out;
		v[n++] = sv[i];
	}
out:
	free(sv);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*nout = n;
	return 0;
}
