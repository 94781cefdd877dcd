// SPDX-License-Identifier: MIT
/* qostrace dump: one event per line, in time order, for grep. */
#include <argp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/codec.h"
#include "commands.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "session.h"
#include "lib/sort.h"
#include "file/dataobj.h"
#include "file/syscall_names.h"

struct dump_args {
	const char *path;
	bool abs;
	uint32_t type_mask;
	uint32_t tid;
};

static const struct argp_option options[] = {
	{ "absolute", 'A', NULL, 0, "Absolute CLOCK_MONOTONIC times in ns instead of seconds from the start", 0 },
	{ "type", 'e', "TYPE[,TYPE...]", 0, "Only these types: switch, wakeup, wakeup_new, syscall, irq, softirq, softirq_raise, fork, exec, rename, exit, irq_name, lost, data", 0 },
	{ "tid", 't', "TID", 0, "Only events involving this thread", 0 },
	{ "verbose", 'v', NULL, 0, "More messages", 0 },
	{ 0 },
};

static const char doc[] =
	"Print the events of a trace file, one per line, in time order.\n"
	"\n"
	"USAGE: qostrace dump [OPTIONS] FILE\n"
	"\v"
	"EXAMPLES:\n"
	"  qostrace dump run.qtrace | head\n"
	"  qostrace dump -e syscall -t 1234 run.qtrace\n"
	"  qostrace dump -e lost run.qtrace        where data is missing\n"
	"\n"
	"Times are seconds since the start of the recording. Threads are shown as\n"
	"comm/tid with the name they had at that moment.";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct dump_args *a = state->input;
	uint64_t v;

	switch (key) {
	case 'A':
		a->abs = true;
		break;
	case 'e': {
		char *dup = strdup(arg), *save = NULL;

		for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			int found = 0;

			for (int ty = 1; ty < QT_REC_MAX; ty++) {
				if (!strcmp(tok, codec_type_name(ty))) {
					a->type_mask |= 1u << ty;
					found = 1;
				}
			}
			if (!found) {
				free(dup);
				argp_error(state, "-e: unknown event type '%s'", tok);
			}
		}
		free(dup);
		break;
	}
	case 't':
		if (parse_u64(arg, 1, UINT32_MAX, &v))
			argp_error(state, "-t '%s': expected a thread id", arg);
		a->tid = v;
		break;
	case 'v':
		log_level++;
		break;
	case ARGP_KEY_ARG:
		if (a->path)
			argp_error(state, "one trace file at a time");
		a->path = arg;
		break;
	case ARGP_KEY_END:
		if (!a->path)
			argp_error(state, "which trace file?");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* A record of any kind: which array, and where. */
enum src { S_SW, S_WK, S_SC, S_IRQ, S_TASK, S_IRQN, S_LOST, S_RAISE, S_DATA, S_NSRC };

struct dumper {
	const struct trace *t;
	const struct timeline *tl;
	const struct dump_args *a;
	const char *arch;
};

static const char *who(const struct dumper *d, uint32_t tid, uint32_t tgid, uint64_t ts, char *buf,
		       size_t len)
{
	uint32_t th;

	if (!tid) {
		snprintf(buf, len, "idle");
		return buf;
	}
	th = threadtab__resolve(d->tl->tt, tid, ts, tgid);
	snprintf(buf, len, "%s/%u", timeline__comm_at(d->tl, th, ts), tid);
	return buf;
}

static void print_time(const struct dumper *d, uint64_t ts, uint16_t cpu, const char *type)
{
	if (d->a->abs)
		printf("%20" PRIu64 " [%03u] %-10s ", ts, cpu, type);
	else
		printf("%14.9f [%03u] %-10s ", ((double)(int64_t)(ts - d->t->start_ns)) / 1e9, cpu, type);
}

static void dump_one(const struct dumper *d, enum src src, size_t i)
{
	const struct trace *t = d->t;
	char w1[48], w2[48], b[32];

	switch (src) {
	case S_SW: {
		const struct qt_switch *s = &t->sw[i];

		print_time(d, s->h.ts, s->h.cpu, "switch");
		printf("%s (%s, prio %u, cpu time %llu ns) -> %s (prio %u)\n",
		       who(d, s->prev_tid, s->prev_tgid, s->h.ts, w1, sizeof(w1)),
		       timeline__end_state_name(timeline__end_state(s->prev_state, s->h.flags & QT_SWITCH_PREEMPT)),
		       s->prev_prio, (unsigned long long)s->prev_runtime,
		       who(d, s->next_tid, s->next_tgid, s->h.ts, w2, sizeof(w2)), s->next_prio);
		break;
	}
	case S_WK: {
		const struct qt_wakeup *w = &t->wk[i];
		char from[64];

		print_time(d, w->h.ts, w->h.cpu, w->h.type == QT_REC_WAKEUP_NEW ? "wakeup_new" : "wakeup");
		if (w->h.flags & QT_WAKE_HARDIRQ)
			snprintf(from, sizeof(from), "%s", irq_source_name(t, w->waker_irq, w2, sizeof(w2)));
		else if (w->h.flags & QT_WAKE_SOFTIRQ)
			snprintf(from, sizeof(from), "softirq %s", w->waker_irq == 0xffff ? "?" : softirq_name(w->waker_irq));
		else
			snprintf(from, sizeof(from), "%s", who(d, w->waker_tid, w->waker_tgid, w->waking_ts, w1, sizeof(w1)));
		printf("%s -> %s target_cpu=%u waking=%s before\n", from,
		       who(d, w->wakee_tid, w->wakee_tgid, w->h.ts, w2, sizeof(w2)), w->target_cpu,
		       fmt_duration(b, sizeof(b), w->h.ts - w->waking_ts));
		break;
	}
	case S_SC: {
		const struct qt_syscall *s = &t->sc[i];
		const char *name = syscall_name(d->arch, s->nr);

		print_time(d, s->h.ts, s->h.cpu, "syscall");
		printf("%s ", who(d, s->tid, s->tgid, s->h.ts, w1, sizeof(w1)));
		if (name)
			printf("%s", name);
		else
			printf("syscall_%u", s->nr);
		printf("(0x%llx)", (unsigned long long)s->arg0);
		if (s->h.flags & QT_SYS_NORETURN)
			printf(" (did not return: thread exited)");
		else
			printf(" = %lld", (long long)s->ret);
		printf(" [%s]\n", fmt_duration(b, sizeof(b), s->end_ts - s->h.ts));
		break;
	}
	case S_IRQ: {
		const struct qt_irq *q = &t->irq[i];

		print_time(d, q->h.ts, q->h.cpu, q->h.type == QT_REC_SOFTIRQ ? "softirq" : "irq");
		if (q->h.type == QT_REC_SOFTIRQ)
			printf("%s", softirq_name(q->irq));
		else
			printf("%u %s ret=%d", q->irq, trace__irq_name(t, q->irq) ?: "?", q->ret);
		printf(" on %s [%s]\n", who(d, q->tid, 0, q->h.ts, w1, sizeof(w1)),
		       fmt_duration(b, sizeof(b), q->end_ts - q->h.ts));
		break;
	}
	case S_TASK: {
		const struct qt_task *k = &t->task[i];

		print_time(d, k->h.ts, k->h.cpu, codec_type_name(k->h.type));
		if (k->h.type == QT_REC_FORK)
			printf("%.16s/%u (pid %u) by %u (pid %u)\n", k->comm, k->tid, k->tgid, k->parent_tid,
			       k->parent_tgid);
		else
			printf("%.16s/%u (pid %u)\n", k->comm, k->tid, k->tgid);
		break;
	}
	case S_IRQN: {
		const struct qt_irq_name *n = &t->irqn[i];

		print_time(d, n->h.ts, n->h.cpu, "irq_name");
		printf("%u %.32s\n", n->irq, n->name);
		break;
	}
	case S_RAISE: {
		const struct qt_softirq_raise *r = &t->raise[i];

		print_time(d, r->h.ts, r->h.cpu, "raise");
		printf("softirq %s by ", softirq_name(r->vec));
		if (r->h.flags & QT_WAKE_HARDIRQ)
			printf("%s on %s\n", irq_source_name(t, r->irq, w2, sizeof(w2)),
			       who(d, r->tid, r->tgid, r->h.ts, w1, sizeof(w1)));
		else if (r->h.flags & QT_WAKE_SOFTIRQ)
			printf("softirq %s on %s\n", softirq_name(r->irq), who(d, r->tid, r->tgid, r->h.ts, w1, sizeof(w1)));
		else
			printf("%s%s\n", who(d, r->tid, r->tgid, r->h.ts, w1, sizeof(w1)),
			       r->h.flags & QT_RAISE_SYSCALL ? " in a system call" : "");
		break;
	}
	case S_DATA: {
		const struct qt_data *r = &t->data[i];

		print_time(d, r->h.ts, r->h.cpu, "data");
		printf("%s %s %s", who(d, r->tid, r->tgid, r->h.ts, w1, sizeof(w1)),
		       syscall_label(d->arch, r->nr, b, sizeof(b)), dataobj_name(&r->obj[0], w2, sizeof(w2)));
		if (r->obj[1].ino)
			printf(" -> %s", dataobj_name(&r->obj[1], w2, sizeof(w2)));
		if (r->obj[0].peer)
			printf(" (peer %llu)", (unsigned long long)r->obj[0].peer);
		if (r->h.flags & QT_DATA_NAMED)
			printf(" \"%s\"", r->name);
		if (r->h.flags & QT_DATA_TRUNC)
			printf(" truncated");
		printf(" = %lld [%s]\n", (long long)r->bytes, fmt_duration(b, sizeof(b), r->end_ts - r->h.ts));
		break;
	}
	case S_LOST: {
		const struct qt_lost *l = &t->lost[i];

		print_time(d, l->first_ts, l->h.cpu, "LOST");
		printf("%llu records lost on CPU %u until %.9f (ring buffer full)\n", (unsigned long long)l->count, l->h.cpu,
		       ((double)(int64_t)(l->last_ts - t->start_ns)) / 1e9);
		break;
	}
	default:
		break;
	}
}

static bool involves(const struct trace *t, enum src src, size_t i, uint32_t tid)
{
	switch (src) {
	case S_SW: return t->sw[i].prev_tid == tid || t->sw[i].next_tid == tid;
	case S_WK: return t->wk[i].waker_tid == tid || t->wk[i].wakee_tid == tid;
	case S_SC: return t->sc[i].tid == tid;
	case S_IRQ: return t->irq[i].tid == tid;
	case S_TASK: return t->task[i].tid == tid || t->task[i].parent_tid == tid;
	case S_RAISE: return t->raise[i].tid == tid;
	case S_DATA: return t->data[i].tid == tid;
	default: return false;
	}
}

static uint8_t type_of(const struct trace *t, enum src src, size_t i)
{
	switch (src) {
	case S_SW: return QT_REC_SWITCH;
	case S_WK: return t->wk[i].h.type;
	case S_SC: return QT_REC_SYSCALL;
	case S_IRQ: return t->irq[i].h.type;
	case S_TASK: return t->task[i].h.type;
	case S_IRQN: return QT_REC_IRQ_NAME;
	case S_LOST: return QT_REC_LOST;
	case S_RAISE: return QT_REC_SOFTIRQ_RAISE;
	case S_DATA: return QT_REC_DATA;
	default: return 0;
	}
}

int cmd_dump(int argc, char **argv, char *const *whole)
{
	struct dump_args a = { 0 };
	struct argp argp = { options, parse_opt, "FILE", doc, NULL, NULL, NULL };
	struct session s;
	struct dumper d;
	struct sort_pair *p;
	size_t n = 0, total;
	const struct trace *t;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return 2;
	if (session__open(a.path, &s))
		return 1;
	t = s.trace;
	d = (struct dumper){ t, s.tl, &a, tf_kv_get(&t->meta, TF_META_ARCH) };
	total = t->nsw + t->nwk + t->nsc + t->nirq + t->ntask + t->nirqn + t->nlost + t->nraise +
		t->ndata;
	p = malloc((total ? total : 1) * sizeof(*p));
	if (!p) {
		log_err("out of memory");
		session__close(&s);
		return 1;
	}
#define ADD(src, count, tsexpr)                                                       \
	for (size_t i = 0; i < (count); i++) {                                        \
		if (a.type_mask && !(a.type_mask & (1u << type_of(t, src, i))))       \
			continue;                                                     \
		if (a.tid && !involves(t, src, i, a.tid))                             \
			continue;                                                     \
		p[n].key = (tsexpr);                                                  \
		p[n++].idx = ((uint64_t)(src) << 56) | i;                            \
	}
	ADD(S_SW, t->nsw, t->sw[i].h.ts);
	ADD(S_WK, t->nwk, t->wk[i].h.ts);
	ADD(S_SC, t->nsc, t->sc[i].h.ts);
	ADD(S_IRQ, t->nirq, t->irq[i].h.ts);
	ADD(S_TASK, t->ntask, t->task[i].h.ts);
	ADD(S_IRQN, t->nirqn, t->irqn[i].h.ts);
	ADD(S_LOST, t->nlost, t->lost[i].first_ts);
	ADD(S_RAISE, t->nraise, t->raise[i].h.ts);
	ADD(S_DATA, t->ndata, t->data[i].h.ts);
#undef ADD
	if (sort_pairs(p, n)) {
		log_err("out of memory");
		free(p);
		session__close(&s);
		return 1;
	}
	for (size_t k = 0; k < n; k++)
		dump_one(&d, (enum src)(p[k].idx >> 56), p[k].idx & ((1ull << 56) - 1));
	free(p);
	session__close(&s);
	return 0;
}
