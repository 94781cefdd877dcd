/*
 * The vocabulary of emerging-pattern mining (SATM §5, docs/DESIGN.md §7): the
 * events of a subtrace of the timeline as symbols a person recognises.
 *
 *   kind       symbol (one per distinct name)         from
 *   run        "usb-storage switched in"              a thread switched in (tl->runs)
 *   syscall    "uname by usb-storage"                 a system call started (tl->sc)
 *   wakeup     "src wakes dec", "timer wakes src",    a wakeup (tl->wk); the waker is a
 *              "irq 24 xhci_hcd wakes usb-storage",   thread, an interrupt source or a
 *              "softirq BLOCK wakes kworker/1:2",     softirq vector; a fork's first
 *              "pipeline starts fx"                   wakeup "starts" the child
 *   irq        "irq 24 xhci_hcd"                      a hard IRQ handler ran
 *   softirq    "softirq NET_RX"                       a softirq vector ran
 *
 * Why these choices:
 *  - Threads are named by comm, not tid: the same symbol then stands for a
 *    thread pool's workers, for a process that is started anew at each
 *    incident (each one a new pid), and for what a person sees in top. Two
 *    unrelated processes that share a comm share the symbol; the name reads
 *    the same either way. The comm is the one the thread had at the moment
 *    (timeline__comm_at), so a kworker's symbol follows its work queue.
 *  - A run symbol says who got a CPU, which is SATM's industrial answer
 *    ("__switch_to-0-45(usb-storage)"); the CPU is left out so that the same
 *    activity on another CPU is the same symbol.
 *  - A syscall is named with its thread ("write by sink"): "write" alone is
 *    in every subtrace of any program and never emerges.
 *  - Wakeups carry both ends: "timer wakes usb-storage" says who was
 *    released by what, often the first sign of a disturbing thread.
 *  - No timestamps and no durations: patterns are about order (SATM §5.1).
 *
 * Keeping sequences informative (struct vocab_opts):
 *  - A run of one symbol repeated back to back is collapsed to one (a
 *    thread bursting 20,000 uname() calls is "uname by usb-storage" once):
 *    repeats say nothing about order, and uncollapsed they fill the gap
 *    budget g of the miner (g = 2 cannot see past the third repeat) and
 *    lengthen sequences a hundredfold.
 *  - The studied actor's own thread can be left out (its switch-ins, its
 *    system calls, the wakeups it sends and receives): that periodic
 *    activity is in every subtrace, so it never emerges on its own, but it
 *    sits between the events that do and uses up their gap. The patterns
 *    stage leaves it out by default; IRQs that interrupted it stay.
 *  - Each subtrace is cut to max_len symbols (after collapsing), keeping
 *    its beginning: the invocation that opens the window and what followed
 *    it. The cut is counted (vocab_seq.truncated), never silent.
 */
#ifndef QT_VOCAB_H
#define QT_VOCAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timeline/timeline.h"

#define VOCAB_NONE UINT32_MAX

enum vocab_kind {
	VOCAB_RUN = 1u << 0,
	VOCAB_SYSCALL = 1u << 1,
	VOCAB_WAKEUP = 1u << 2,
	VOCAB_IRQ = 1u << 3,
	VOCAB_SOFTIRQ = 1u << 4,
};
#define VOCAB_ALL_KINDS (VOCAB_RUN | VOCAB_SYSCALL | VOCAB_WAKEUP | VOCAB_IRQ | VOCAB_SOFTIRQ)

#define VOCAB_DEFAULT_MAX_LEN 2000

struct vocab_opts {
	unsigned kinds;		/* enum vocab_kind bits; default all */
	bool keep_repeats;	/* default false: collapse back-to-back repeats */
	uint32_t drop_thread;	/* timeline thread index whose own activity is
				 * left out; default TL_NONE (keep everything) */
	uint32_t max_len;	/* symbols kept per subtrace; default
				 * VOCAB_DEFAULT_MAX_LEN; 0 = no limit */
};

/* Fills @o with the defaults above. */
void vocab_opts_default(struct vocab_opts *o);

/* The symbol table of one timeline. Symbols are numbered 0, 1, ... in order
 * of first use; names live as long as the vocab. */
struct vocab;

/*
 * An empty vocabulary of @tl, which must outlive it (names are read from
 * the timeline's trace). Returns 0 and *out (vocab__free()), -EINVAL or
 * -ENOMEM.
 */
int vocab__new(const struct timeline *tl, struct vocab **out);
/* Frees the vocabulary and its names; NULL is fine. */
void vocab__free(struct vocab *v);

/*
 * The symbol of one event of timeline__stream(): *sym = its id, or
 * VOCAB_NONE when the options leave the event out (its kind is not
 * selected, it is the dropped thread's, or it is a TL_EV_GAP marker).
 * Returns 0, -ENOMEM or -E2BIG (more than 2^28 distinct names).
 */
int vocab__symbol(struct vocab *v, const struct tl_event *ev, const struct vocab_opts *o,
		  uint32_t *sym);

/* Symbols numbered so far. */
uint32_t vocab__size(const struct vocab *v);
/* "uname by usb-storage"; NULL for an unknown id. */
const char *vocab__name(const struct vocab *v, uint32_t sym);
/* enum vocab_kind of a symbol, 0 for an unknown id. */
unsigned vocab__kind(const struct vocab *v, uint32_t sym);
/* "run", "syscall", "wakeup", "irq", "softirq" */
const char *vocab_kind_name(unsigned kind);

/* Growable storage for the symbols of several subtraces, one after another. */
struct vocab_seq {
	uint32_t *sym;
	size_t n, cap;
	size_t truncated;	/* subtraces cut to max_len */
	uint64_t events;	/* stream events read (before filtering and collapsing) */
};

/*
 * Appends the subtrace of the window [start, end) (or [start, end] when
 * end_closed) of the stream ev[0..nev) to out, and its length to *len.
 * ev must be sorted by time (timeline__stream). Returns 0, -EINVAL, -ENOMEM
 * or -E2BIG.
 */
int vocab__window(struct vocab *v, const struct tl_event *ev, size_t nev, uint64_t start,
		  uint64_t end, bool end_closed, const struct vocab_opts *o, struct vocab_seq *out,
		  uint32_t *len);

/* Frees the symbols of @s (not @s itself) and empties it. */
void vocab_seq__free(struct vocab_seq *s);

#endif
