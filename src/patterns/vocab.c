// SPDX-License-Identifier: MIT
/*
 * Timeline events as named symbols for the miner; see src/patterns/vocab.h.
 *
 * A symbol is the triple (kind, a, b) of small integers: a comm id (an
 * interned thread name), a syscall number, an IRQ number or a waker code.
 * Both tables are open-addressing hash tables; each thread caches the comm
 * id of the name it last had, so most events cost one probe.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file/syscall_names.h"
#include "file/trace.h"
#include "file/tracefile.h"
#include "vocab.h"

#define ID_LIMIT (1u << 28)

/* Waker classes in the top bits of a wakeup symbol's a. */
enum { WK_THREAD = 0, WK_HARDIRQ = 1, WK_SOFTIRQ = 2, WK_IDLE = 3 };
#define WK(cls, v) (((uint32_t)(cls) << 28) | (v))

struct sym_key {
	uint32_t kind, a, b;
};

struct comm_cache {
	const char *ptr;	/* the name timeline__comm_at() returned */
	uint32_t id;
};

struct vocab {
	const struct timeline *tl;
	const char *arch;

	/* interned comms */
	char (*comms)[16];
	uint32_t ncomms, comms_cap;
	uint32_t *comm_slot;	/* hash slots: comm id + 1, 0 = empty */
	uint32_t comm_slots;

	/* symbols */
	struct sym_key *keys;
	uint32_t *name_off;	/* into names */
	uint32_t nsyms, syms_cap, off_cap;
	uint32_t *sym_slot;
	uint32_t sym_slots;
	char *names;
	size_t names_len, names_cap;

	struct comm_cache *cache;	/* per timeline thread */
};

void vocab_opts_default(struct vocab_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->kinds = VOCAB_ALL_KINDS;
	o->drop_thread = TL_NONE;
	o->max_len = VOCAB_DEFAULT_MAX_LEN;
}

static uint32_t hash32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x7feb352d;
	h ^= h >> 15;
	h *= 0x846ca68b;
	h ^= h >> 16;
	return h;
}

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return hash32(h);
}

static uint32_t hash_key(const struct sym_key *k)
{
	return hash32(k->kind * 0x9e3779b1u ^ hash32(k->a) * 31 ^ hash32(k->b + 0x632be5ab));
}

static int grow(void *p, uint32_t *cap, uint32_t need, size_t size)
{
	void **pp = p;
	uint32_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*pp, (size_t)n * size);
	if (!q)
		return -ENOMEM;
	*pp = q;
	*cap = n;
	return 0;
}

int vocab__new(const struct timeline *tl, struct vocab **out)
{
	struct vocab *v;

	if (!tl || !out)
		return -EINVAL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->tl = tl;
	v->arch = trace__arch(tl->trace);
	v->cache = calloc(tl->nthreads ? tl->nthreads : 1, sizeof(*v->cache));
	if (!v->cache) {
		free(v);
		return -ENOMEM;
	}
	*out = v;
	return 0;
}

void vocab__free(struct vocab *v)
{
	if (!v)
		return;
	free(v->comms);
	free(v->comm_slot);
	free(v->keys);
	free(v->name_off);
	free(v->sym_slot);
	free(v->names);
	free(v->cache);
	free(v);
}

/* Rebuilds a hash table of ids (id + 1 per slot) at twice the size. */
static int rehash(uint32_t **slot, uint32_t *nslots, uint32_t n, uint32_t (*hash_of)(const struct vocab *, uint32_t),
		  const struct vocab *v)
{
	uint32_t ns = *nslots ? *nslots * 2 : 256, *s;

	while (ns < 2 * n)
		ns *= 2;
	s = calloc(ns, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (uint32_t id = 0; id < n; id++) {
		uint32_t i = hash_of(v, id) & (ns - 1);

		while (s[i])
			i = (i + 1) & (ns - 1);
		s[i] = id + 1;
	}
	free(*slot);
	*slot = s;
	*nslots = ns;
	return 0;
}

static uint32_t comm_hash_of(const struct vocab *v, uint32_t id)
{
	return hash_str(v->comms[id]);
}

static uint32_t sym_hash_of(const struct vocab *v, uint32_t id)
{
	return hash_key(&v->keys[id]);
}

static int comm_id(struct vocab *v, const char *comm, uint32_t *out)
{
	char c[16];
	uint32_t i;

	snprintf(c, sizeof(c), "%s", comm);
	if (4 * (v->ncomms + 1) > 3 * v->comm_slots &&
	    rehash(&v->comm_slot, &v->comm_slots, v->ncomms, comm_hash_of, v))
		return -ENOMEM;
	for (i = hash_str(c) & (v->comm_slots - 1); v->comm_slot[i]; i = (i + 1) & (v->comm_slots - 1)) {
		if (!strcmp(v->comms[v->comm_slot[i] - 1], c)) {
			*out = v->comm_slot[i] - 1;
			return 0;
		}
	}
	if (v->ncomms >= ID_LIMIT)
		return -E2BIG;
	if (grow(&v->comms, &v->comms_cap, v->ncomms + 1, sizeof(*v->comms)))
		return -ENOMEM;
	memcpy(v->comms[v->ncomms], c, sizeof(c));
	v->comm_slot[i] = ++v->ncomms;
	*out = v->ncomms - 1;
	return 0;
}

/* The comm id of a timeline thread at ts, through the per-thread cache. */
static int thread_comm(struct vocab *v, uint32_t thread, uint64_t ts, uint32_t *out)
{
	const char *c = timeline__comm_at(v->tl, thread, ts);
	struct comm_cache *cc;
	int err;

	if (thread >= v->tl->nthreads)
		return comm_id(v, c, out);
	cc = &v->cache[thread];
	if (cc->ptr == c) {
		*out = cc->id;
		return 0;
	}
	err = comm_id(v, c, out);
	if (!err) {
		cc->ptr = c;
		cc->id = *out;
	}
	return err;
}

static const char *waker_name(const struct vocab *v, uint32_t a, char *buf, size_t len)
{
	uint32_t val = a & (ID_LIMIT - 1);
	char b[48];

	switch (a >> 28) {
	case WK_THREAD:
		return v->comms[val];
	case WK_HARDIRQ:
		snprintf(buf, len, "%s", irq_source_name(v->tl->trace, val, b, sizeof(b)));
		return buf;
	case WK_SOFTIRQ:
		snprintf(buf, len, "softirq %s", val == QT_IRQ_UNKNOWN ? "?" : softirq_name(val));
		return buf;
	default:
		return "idle";
	}
}

static void make_name(const struct vocab *v, const struct sym_key *k, char *buf, size_t len)
{
	char b[64];

	switch (k->kind) {
	case VOCAB_RUN:
		snprintf(buf, len, "%s switched in", v->comms[k->a]);
		break;
	case VOCAB_SYSCALL:
		snprintf(buf, len, "%s by %s", syscall_label(v->arch, k->a, b, sizeof(b)), v->comms[k->b]);
		break;
	case VOCAB_WAKEUP:
		snprintf(buf, len, "%s %s %s", waker_name(v, k->a & ~(1u << 31), b, sizeof(b)),
			 k->a >> 31 ? "starts" : "wakes", v->comms[k->b]);
		break;
	case VOCAB_IRQ:
		snprintf(buf, len, "%s", irq_source_name(v->tl->trace, k->a, b, sizeof(b)));
		break;
	case VOCAB_SOFTIRQ:
		snprintf(buf, len, "softirq %s", softirq_name(k->a));
		break;
	default:
		snprintf(buf, len, "?");
	}
}

static int intern(struct vocab *v, const struct sym_key *k, uint32_t *out)
{
	char name[160];
	size_t nl;
	uint32_t i;

	if (4 * (v->nsyms + 1) > 3 * v->sym_slots &&
	    rehash(&v->sym_slot, &v->sym_slots, v->nsyms, sym_hash_of, v))
		return -ENOMEM;
	for (i = hash_key(k) & (v->sym_slots - 1); v->sym_slot[i]; i = (i + 1) & (v->sym_slots - 1)) {
		const struct sym_key *x = &v->keys[v->sym_slot[i] - 1];

		if (x->kind == k->kind && x->a == k->a && x->b == k->b) {
			*out = v->sym_slot[i] - 1;
			return 0;
		}
	}
	if (v->nsyms >= ID_LIMIT)
		return -E2BIG;
	make_name(v, k, name, sizeof(name));
	nl = strlen(name) + 1;
	if (grow(&v->keys, &v->syms_cap, v->nsyms + 1, sizeof(*v->keys)) ||
	    grow(&v->name_off, &v->off_cap, v->nsyms + 1, sizeof(*v->name_off)))
		return -ENOMEM;
	if (v->names_len + nl > v->names_cap) {
		size_t nc = v->names_cap ? v->names_cap : 4096;
		char *p;

		while (nc < v->names_len + nl)
			nc *= 2;
		if (nc > UINT32_MAX)
			return -E2BIG;
		p = realloc(v->names, nc);
		if (!p)
			return -ENOMEM;
		v->names = p;
		v->names_cap = nc;
	}
	memcpy(v->names + v->names_len, name, nl);
	v->keys[v->nsyms] = *k;
	v->name_off[v->nsyms] = (uint32_t)v->names_len;
	v->names_len += nl;
	v->sym_slot[i] = ++v->nsyms;
	*out = v->nsyms - 1;
	return 0;
}

int vocab__symbol(struct vocab *v, const struct tl_event *ev, const struct vocab_opts *o,
		  uint32_t *sym)
{
	const struct timeline *tl = v->tl;
	struct vocab_opts def;
	struct sym_key k = { 0 };
	uint32_t drop;
	int err = 0;

	if (!o) {
		vocab_opts_default(&def);
		o = &def;
	}
	drop = o->drop_thread;
	*sym = VOCAB_NONE;
	switch (ev->kind) {
	case TL_EV_RUN: {
		const struct tl_run *r = &tl->runs[ev->idx];

		if (!(o->kinds & VOCAB_RUN) || r->thread == drop)
			return 0;
		k.kind = VOCAB_RUN;
		err = thread_comm(v, r->thread, r->start, &k.a);
		break;
	}
	case TL_EV_SYSCALL: {
		const struct tl_syscall *s = &tl->sc[ev->idx];

		if (!(o->kinds & VOCAB_SYSCALL) || s->thread == drop)
			return 0;
		k.kind = VOCAB_SYSCALL;
		k.a = s->nr;
		err = thread_comm(v, s->thread, s->start, &k.b);
		break;
	}
	case TL_EV_WAKEUP: {
		const struct tl_wakeup *w = &tl->wk[ev->idx];

		if (!(o->kinds & VOCAB_WAKEUP) || (drop != TL_NONE && (w->waker == drop || w->wakee == drop)))
			return 0;
		k.kind = VOCAB_WAKEUP;
		if (w->flags & QT_WAKE_HARDIRQ) {
			k.a = WK(WK_HARDIRQ, w->irq);
		} else if (w->flags & QT_WAKE_SOFTIRQ) {
			k.a = WK(WK_SOFTIRQ, w->irq);
		} else if (w->waker == TL_NONE) {
			k.a = WK(WK_IDLE, 0);
		} else {
			err = thread_comm(v, w->waker, w->waking_ts, &k.a);
			k.a = WK(WK_THREAD, k.a);
		}
		if (w->is_new)
			k.a |= 1u << 31;
		if (!err)
			err = thread_comm(v, w->wakee, w->ts, &k.b);
		break;
	}
	case TL_EV_IRQ: {
		const struct tl_irq *q = &tl->irqs[ev->idx];
		unsigned kind = q->soft ? VOCAB_SOFTIRQ : VOCAB_IRQ;

		if (!(o->kinds & kind))
			return 0;
		k.kind = kind;
		k.a = q->num;
		break;
	}
	default:		/* TL_EV_GAP: the caller excludes windows with missing data */
		return 0;
	}
	if (err)
		return err;
	return intern(v, &k, sym);
}

uint32_t vocab__size(const struct vocab *v)
{
	return v->nsyms;
}

const char *vocab__name(const struct vocab *v, uint32_t sym)
{
	return sym < v->nsyms ? v->names + v->name_off[sym] : NULL;
}

unsigned vocab__kind(const struct vocab *v, uint32_t sym)
{
	return sym < v->nsyms ? v->keys[sym].kind : 0;
}

const char *vocab_kind_name(unsigned kind)
{
	switch (kind) {
	case VOCAB_RUN: return "run";
	case VOCAB_SYSCALL: return "syscall";
	case VOCAB_WAKEUP: return "wakeup";
	case VOCAB_IRQ: return "irq";
	case VOCAB_SOFTIRQ: return "softirq";
	}
	return "?";
}

int vocab__window(struct vocab *v, const struct tl_event *ev, size_t nev, uint64_t start,
		  uint64_t end, bool end_closed, const struct vocab_opts *o, struct vocab_seq *out,
		  uint32_t *len)
{
	struct vocab_opts def;
	size_t i, base = out->n;
	uint32_t n = 0, last = VOCAB_NONE;
	bool cut = false;

	if (!o) {
		vocab_opts_default(&def);
		o = &def;
	}
	*len = 0;
	if (end < start)
		return -EINVAL;
	for (i = timeline__lower_bound(ev, nev, start); i < nev; i++) {
		uint32_t s;
		int err;

		if (ev[i].ts > end || (ev[i].ts == end && !end_closed))
			break;
		out->events++;
		err = vocab__symbol(v, &ev[i], o, &s);
		if (err) {
			out->n = base;
			return err;
		}
		if (s == VOCAB_NONE || (s == last && !o->keep_repeats))
			continue;
		if (o->max_len && n == o->max_len) {
			cut = true;
			break;
		}
		if (n == UINT32_MAX) {
			out->n = base;
			return -E2BIG;
		}
		if (out->n == out->cap) {
			size_t nc = out->cap ? out->cap * 2 : 4096;
			uint32_t *p = realloc(out->sym, nc * sizeof(*p));

			if (!p) {
				out->n = base;
				return -ENOMEM;
			}
			out->sym = p;
			out->cap = nc;
		}
		out->sym[out->n++] = s;
		last = s;
		n++;
	}
	out->truncated += cut;
	*len = n;
	return 0;
}

void vocab_seq__free(struct vocab_seq *s)
{
	if (!s)
		return;
	free(s->sym);
	memset(s, 0, sizeof(*s));
}
