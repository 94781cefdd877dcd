// SPDX-License-Identifier: MIT
/* vocab: timeline events as named symbols, subtraces as symbol sequences. */
#include <errno.h>
#include <stdint.h>

#include "synth_trace.h"
#include "testutil.h"
#include "timeline/timeline.h"
#include "patterns/vocab.h"

#define NR_WRITE 1	/* x86_64 */
#define NR_UNAME 63

struct fix {
	struct trace *t;
	struct timeline *tl;
	struct tl_event *ev;
	size_t nev;
	struct vocab *v;
};

static void fix_open(struct fix *f, struct synth *s)
{
	f->t = synth_finish(s);
	cr_assert_eq(timeline__build(f->t, NULL, &f->tl), 0);
	cr_assert_eq(timeline__stream(f->tl, NULL, 0, &f->ev, &f->nev), 0);
	cr_assert_eq(vocab__new(f->tl, &f->v), 0);
}

static void fix_close(struct fix *f)
{
	vocab__free(f->v);
	free(f->ev);
	timeline__free(f->tl);
	trace__free(f->t);
}

static void add_irq_name(struct trace *t, uint32_t irq, const char *name)
{
	t->irqn = trace__grow_records(t->irqn, t->nirqn + 1, sizeof(*t->irqn));
	cr_assert(t->irqn);
	memset(&t->irqn[t->nirqn], 0, sizeof(*t->irqn));
	t->irqn[t->nirqn].h.type = QT_REC_IRQ_NAME;
	t->irqn[t->nirqn].irq = irq;
	snprintf(t->irqn[t->nirqn].name, sizeof(t->irqn[0].name), "%s", name);
	t->nirqn++;
}

static uint32_t thread_index(const struct timeline *tl, uint32_t tid)
{
	for (size_t i = 0; i < tl->nthreads; i++)
		if (tl->threads[i].tid == tid)
			return (uint32_t)i;
	cr_assert_fail("no thread %u", tid);
	return TL_NONE;
}

/* The names of the symbols of a whole stream, "|"-separated. */
static void names_of(struct fix *f, const struct vocab_opts *o, char *out, size_t len)
{
	struct vocab_seq q = { 0 };
	uint32_t n;
	size_t used = 0;

	cr_assert_eq(vocab__window(f->v, f->ev, f->nev, 0, UINT64_MAX, true, o, &q, &n), 0);
	out[0] = '\0';
	for (uint32_t i = 0; i < n; i++)
		used += snprintf(out + used, len - used, "%s%s", i ? "|" : "", vocab__name(f->v, q.sym[i]));
	vocab_seq__free(&q);
}

/*
 * One event of every kind, and two processes that share a comm: every name
 * as the report prints it.
 */
static struct synth *every_kind(void)
{
	struct synth *s = synth_new(0, 1000, 2);

	synth_thread(s, 100, 100, "src");
	synth_thread(s, 200, 100, "usb-storage");
	synth_thread(s, 300, 300, "kworker/0:1");
	synth_thread(s, 400, 400, "src");
	synth_switch(s, 10, 0, 0, 0, SYN_PREEMPT, 100, 100);
	synth_syscall(s, 20, 25, 100, 100, NR_UNAME, 0, 0);
	synth_wakeup(s, 30, 100, 100, 200, 100, 0);
	synth_switch(s, 40, 0, 100, 100, SYN_PREEMPT, 200, 100);
	synth_irq(s, 50, 55, 0, 24, 0, 200);
	synth_irq(s, 60, 65, 0, 3, 1, 200);
	synth_timer_wakeup(s, 70, 300, 300, 1);
	synth_wakeup(s, 80, 0, 0, 300, 300, 1);
	s->t->wk[s->t->nwk - 1].h.flags = QT_WAKE_HARDIRQ;
	s->t->wk[s->t->nwk - 1].waker_irq = 24;
	synth_wakeup(s, 90, 0, 0, 300, 300, 1);
	s->t->wk[s->t->nwk - 1].h.flags = QT_WAKE_SOFTIRQ;
	s->t->wk[s->t->nwk - 1].waker_irq = 4;
	synth_switch(s, 100, 0, 200, 100, SYN_SLEEP, 400, 400);
	synth_syscall(s, 110, 115, 400, 400, 9999, 0, 0);
	synth_wakeup(s, 120, 0, 0, 300, 300, 1);	/* from idle, no interrupt context */
	synth_task(s, QT_REC_FORK, 125, 500, 400, 400, 400, "src");
	synth_wakeup(s, 130, 400, 400, 500, 400, 1);
	s->t->wk[s->t->nwk - 1].h.type = QT_REC_WAKEUP_NEW;
	synth_switch(s, 140, 1, 0, 0, SYN_PREEMPT, 300, 300);
	synth_syscall(s, 150, 155, 400, 400, NR_WRITE, 0, 0);
	return s;
}

Test(vocab, names_of_every_kind)
{
	struct fix f;
	char got[2048];

	{
		struct synth *s = every_kind();

		f.t = s->t;
		add_irq_name(s->t, 24, "xhci_hcd");
		fix_open(&f, s);
	}
	names_of(&f, NULL, got, sizeof(got));
	cr_assert_str_eq(got,
		"src switched in|uname by src|src wakes usb-storage|usb-storage switched in|"
		"irq 24 xhci_hcd|softirq NET_RX|timer wakes kworker/0:1|irq 24 xhci_hcd wakes kworker/0:1|"
		"softirq BLOCK wakes kworker/0:1|src switched in|syscall 9999 by src|idle wakes kworker/0:1|"
		"src starts src|kworker/0:1 switched in|write by src");
	/* Two processes named src are one symbol (named by comm). */
	cr_assert_eq(vocab__size(f.v), 14);
	cr_assert_eq(vocab__kind(f.v, 0), VOCAB_RUN);
	cr_assert_eq(vocab__kind(f.v, 1), VOCAB_SYSCALL);
	cr_assert_eq(vocab__kind(f.v, 2), VOCAB_WAKEUP);
	cr_assert_eq(vocab__kind(f.v, 4), VOCAB_IRQ);
	cr_assert_eq(vocab__kind(f.v, 5), VOCAB_SOFTIRQ);
	cr_assert_null(vocab__name(f.v, 14));
	cr_assert_eq(vocab__kind(f.v, 14), 0);
	cr_assert_str_eq(vocab_kind_name(VOCAB_SOFTIRQ), "softirq");
	fix_close(&f);
}

Test(vocab, kinds_filter)
{
	struct fix f;
	struct vocab_opts o;
	char got[2048];

	fix_open(&f, every_kind());
	vocab_opts_default(&o);
	o.kinds = VOCAB_RUN | VOCAB_SOFTIRQ;
	names_of(&f, &o, got, sizeof(got));
	cr_assert_str_eq(got, "src switched in|usb-storage switched in|softirq NET_RX|src switched in|"
			      "kworker/0:1 switched in");
	o.kinds = VOCAB_IRQ;
	names_of(&f, &o, got, sizeof(got));
	/* The IRQ name is unknown without its IRQ_NAME record. */
	cr_assert_str_eq(got, "irq 24 ?");
	fix_close(&f);
}

/*
 * The actor's own activity is left out: its runs, its syscalls, the wakeups
 * it sends and receives; an IRQ that interrupted it stays.
 */
Test(vocab, drop_thread)
{
	struct fix f;
	struct vocab_opts o;
	char got[2048];

	fix_open(&f, every_kind());
	vocab_opts_default(&o);
	o.drop_thread = thread_index(f.tl, 200);
	names_of(&f, &o, got, sizeof(got));
	cr_assert_str_eq(got,
		"src switched in|uname by src|irq 24 ?|softirq NET_RX|timer wakes kworker/0:1|"
		"irq 24 ? wakes kworker/0:1|softirq BLOCK wakes kworker/0:1|src switched in|"
		"syscall 9999 by src|idle wakes kworker/0:1|src starts src|kworker/0:1 switched in|write by src");
	o.drop_thread = thread_index(f.tl, 400);
	names_of(&f, &o, got, sizeof(got));
	cr_assert_str_eq(got,
		"src switched in|uname by src|src wakes usb-storage|usb-storage switched in|irq 24 ?|"
		"softirq NET_RX|timer wakes kworker/0:1|irq 24 ? wakes kworker/0:1|"
		"softirq BLOCK wakes kworker/0:1|idle wakes kworker/0:1|kworker/0:1 switched in");
	fix_close(&f);
}

/* A thread bursting one call: back-to-back repeats collapse to one symbol,
 * repeats separated by anything else do not. */
Test(vocab, collapse_repeats)
{
	struct synth *s = synth_new(0, 10000, 1);
	struct vocab_opts o;
	struct fix f;
	char got[2048];

	synth_thread(s, 100, 100, "src");
	synth_thread(s, 200, 200, "noisy");
	synth_switch(s, 10, 0, 0, 0, SYN_PREEMPT, 200, 200);
	for (int i = 0; i < 50; i++)
		synth_syscall(s, 20 + i * 10, 25 + i * 10, 200, 200, NR_UNAME, 0, 0);
	synth_syscall(s, 600, 605, 200, 200, NR_WRITE, 0, 0);
	synth_syscall(s, 610, 615, 200, 200, NR_UNAME, 0, 0);
	synth_syscall(s, 620, 625, 200, 200, NR_UNAME, 0, 0);
	synth_switch(s, 700, 0, 200, 200, SYN_SLEEP, 100, 100);
	synth_syscall(s, 710, 715, 100, 100, NR_WRITE, 0, 0);
	synth_switch(s, 800, 0, 100, 100, SYN_SLEEP, 200, 200);
	synth_syscall(s, 810, 815, 200, 200, NR_UNAME, 0, 0);
	fix_open(&f, s);
	names_of(&f, NULL, got, sizeof(got));
	cr_assert_str_eq(got, "noisy switched in|uname by noisy|write by noisy|uname by noisy|src switched in|"
			      "write by src|noisy switched in|uname by noisy");
	/* Without src, the two runs of noisy become adjacent and collapse too. */
	vocab_opts_default(&o);
	o.drop_thread = thread_index(f.tl, 100);
	names_of(&f, &o, got, sizeof(got));
	cr_assert_str_eq(got, "noisy switched in|uname by noisy|write by noisy|uname by noisy|"
			      "noisy switched in|uname by noisy");
	o.keep_repeats = true;
	o.drop_thread = TL_NONE;
	{
		struct vocab_seq q = { 0 };
		uint32_t n;

		cr_assert_eq(vocab__window(f.v, f.ev, f.nev, 0, UINT64_MAX, true, &o, &q, &n), 0);
		cr_assert_eq(n, 1 + 50 + 3 + 1 + 1 + 1 + 1);
		cr_assert_eq(q.events, f.nev);
		vocab_seq__free(&q);
	}
	fix_close(&f);
}

/*
 * Windows: [start, end) takes the event at start and not the one at end;
 * [start, end] takes both. Sequences append one after another; max_len
 * keeps the beginning and counts the cut.
 */
Test(vocab, windows_and_cut)
{
	struct synth *s = synth_new(0, 10000, 1);
	struct vocab_seq q = { 0 };
	struct vocab_opts o;
	struct fix f;
	uint32_t n1, n2, n3, n4;
	static const char *const comms[] = { "a", "b", "c", "d", "e" };

	for (int i = 0; i < 5; i++)
		synth_thread(s, 100 + i, 100 + i, comms[i]);
	/* a at 100, b at 200, ... e at 500, each running until the next */
	synth_switch(s, 100, 0, 0, 0, SYN_PREEMPT, 100, 100);
	for (int i = 1; i < 5; i++)
		synth_switch(s, 100 + 100 * i, 0, 99 + i, 99 + i, SYN_PREEMPT, 100 + i, 100 + i);
	fix_open(&f, s);
	vocab_opts_default(&o);
	cr_assert_eq(vocab__window(f.v, f.ev, f.nev, 200, 400, false, &o, &q, &n1), 0);
	cr_assert_eq(vocab__window(f.v, f.ev, f.nev, 200, 400, true, &o, &q, &n2), 0);
	cr_assert_eq(vocab__window(f.v, f.ev, f.nev, 201, 299, false, &o, &q, &n3), 0);
	o.max_len = 2;
	cr_assert_eq(vocab__window(f.v, f.ev, f.nev, 0, 10000, true, &o, &q, &n4), 0);
	cr_assert_eq(n1, 2);
	cr_assert_eq(n2, 3);
	cr_assert_eq(n3, 0);
	cr_assert_eq(n4, 2);
	cr_assert_eq(q.n, 7);
	cr_assert_eq(q.truncated, 1);
	cr_assert_str_eq(vocab__name(f.v, q.sym[0]), "b switched in");
	cr_assert_str_eq(vocab__name(f.v, q.sym[1]), "c switched in");
	cr_assert_str_eq(vocab__name(f.v, q.sym[4]), "d switched in");
	cr_assert_str_eq(vocab__name(f.v, q.sym[5]), "a switched in");
	cr_assert_str_eq(vocab__name(f.v, q.sym[6]), "b switched in");
	/* An exactly full window is not a cut. */
	o.max_len = 3;
	cr_assert_eq(vocab__window(f.v, f.ev, f.nev, 200, 400, true, &o, &q, &n1), 0);
	cr_assert_eq(n1, 3);
	cr_assert_eq(q.truncated, 1);
	cr_assert_eq(vocab__window(f.v, f.ev, f.nev, 400, 200, true, &o, &q, &n1), -EINVAL);
	vocab_seq__free(&q);
	fix_close(&f);
}

/* A thread renamed (prctl, exec) changes symbol at the rename. */
Test(vocab, comm_follows_renames)
{
	struct synth *s = synth_new(0, 10000, 1);
	struct fix f;
	char got[512];

	synth_thread(s, 100, 100, "pipeline");
	synth_thread(s, 200, 200, "other");
	synth_switch(s, 10, 0, 0, 0, SYN_PREEMPT, 100, 100);
	synth_syscall(s, 20, 25, 100, 100, NR_WRITE, 0, 0);
	synth_task(s, QT_REC_RENAME, 30, 100, 100, 0, 0, "src");
	synth_syscall(s, 40, 45, 100, 100, NR_WRITE, 0, 0);
	synth_switch(s, 50, 0, 100, 100, SYN_PREEMPT, 200, 200);
	synth_switch(s, 60, 0, 200, 200, SYN_PREEMPT, 100, 100);
	fix_open(&f, s);
	names_of(&f, NULL, got, sizeof(got));
	cr_assert_str_eq(got, "pipeline switched in|write by pipeline|write by src|other switched in|"
			      "src switched in");
	fix_close(&f);
}

/* Many distinct names: the tables grow and every name keeps its own id. */
Test(vocab, many_names)
{
	enum { N = 3000 };
	struct synth *s = synth_new(0, 1000000, 1);
	struct vocab_seq q = { 0 };
	struct vocab_opts o;
	struct fix f;
	uint32_t n;

	for (int i = 0; i < N; i++) {
		char c[16];

		snprintf(c, sizeof(c), "t%d", i);
		synth_thread(s, 1000 + i, 1000 + i, c);
	}
	synth_switch(s, 10, 0, 0, 0, SYN_PREEMPT, 1000, 1000);
	for (int i = 1; i < N; i++) {
		synth_syscall(s, 10 + 10 * i - 5, 10 + 10 * i - 4, 1000 + i - 1, 1000 + i - 1, i % 300, 0, 0);
		synth_switch(s, 10 + 10 * i, 0, 1000 + i - 1, 1000 + i - 1, SYN_PREEMPT, 1000 + i, 1000 + i);
	}
	fix_open(&f, s);
	/* The default cut keeps the first VOCAB_DEFAULT_MAX_LEN */
	cr_assert_eq(vocab__window(f.v, f.ev, f.nev, 0, UINT64_MAX, true, NULL, &q, &n), 0);
	cr_assert_eq(n, VOCAB_DEFAULT_MAX_LEN);
	cr_assert_eq(q.truncated, 1);
	q.n = 0;
	vocab_opts_default(&o);
	o.max_len = 0;
	cr_assert_eq(vocab__window(f.v, f.ev, f.nev, 0, UINT64_MAX, true, &o, &q, &n), 0);
	cr_assert_eq(n, 2 * N - 1);
	cr_assert_eq(vocab__size(f.v), 2 * N - 1);
	for (int i = 0; i < N; i++) {
		char want[64];

		snprintf(want, sizeof(want), "t%d switched in", i);
		cr_assert_str_eq(vocab__name(f.v, q.sym[2 * i]), want);
		cr_assert_eq(q.sym[2 * i], (uint32_t)(2 * i));
	}
	/* Looking the same events up again gives the same ids. */
	for (size_t i = 0; i < f.nev; i++) {
		uint32_t a, b;

		cr_assert_eq(vocab__symbol(f.v, &f.ev[i], NULL, &a), 0);
		cr_assert_eq(vocab__symbol(f.v, &f.ev[i], NULL, &b), 0);
		cr_assert_eq(a, b);
	}
	cr_assert_eq(vocab__size(f.v), 2 * N - 1);
	vocab_seq__free(&q);
	fix_close(&f);
}
