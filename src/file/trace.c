// SPDX-License-Identifier: MIT
/* Loading a trace file into memory; see src/file/trace.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "codec.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/prefault.h"
#include "readahead.h"
#include "trace.h"

/*
 * The record arrays live in their own mappings and grow with mremap: the
 * pages move, nothing is copied, so a load never holds an array twice.
 * With realloc the last doubling of a 10 M-event trace held 870 MB at once
 * for 510 MB of records. The mapping's length is kept in a header before
 * the array; only rec_free() may release one.
 */
#define REC_HDR 64			/* keeps the records 64-byte aligned */
#define REC_FIRST (64 * 1024)

/* The length of arr's mapping (0 for none). */
static size_t rec_len(const void *arr)
{
	return arr ? *(const size_t *)((const char *)arr - REC_HDR) : 0;
}

static void *rec_grow(void *arr, size_t need)
{
	char *base = arr ? (char *)arr - REC_HDR : NULL;
	size_t len = rec_len(arr), nlen = len ? len : REC_FIRST;
	void *p;

	while (nlen - REC_HDR < need) {
		if (nlen > SIZE_MAX / 2)
			return NULL;
		nlen *= 2;
	}
	if (nlen == len)
		return arr;
	p = base ? mremap(base, len, nlen, MREMAP_MAYMOVE) :
		   mmap(NULL, nlen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/*
	 * Huge pages where the system allows them on request: 4 KB pages made
	 * loading a 10 M-event trace 1.4 s slower than the allocator's memory.
	 */
	if (nlen >= (2u << 20))
		madvise(p, nlen, MADV_HUGEPAGE);
	*(size_t *)p = nlen;
	return (char *)p + REC_HDR;
}

static void rec_free(void *arr)
{
	if (arr)
		munmap((char *)arr - REC_HDR, rec_len(arr));
}

void *trace__grow_records(void *arr, size_t n, size_t elem)
{
	if (elem && n > (SIZE_MAX - REC_FIRST) / elem)
		return NULL;
	return rec_grow(arr, n * elem);
}

struct vec {
	void **data;
	size_t *n;
	size_t cap;
	size_t elem;
	/*
	 * Faults the records' memory in ahead of them (prefault.h): a 10
	 * M-event trace writes 510 MB here, and clearing it was most of a
	 * load's time on a VM that backs memory at its first touch.
	 */
	struct prefault *pf;
	size_t pf_from;		/* records when pf started */
};

/* Records between two reports to the helper: a few hundred KB. */
#define VEC_REACH_EVERY 4096
/* How far the helper runs ahead: what it faults past the last record stays unused. */
#define VEC_AHEAD_MIN (4u << 20)
#define VEC_AHEAD_MAX (16u << 20)

static int vec_push(struct vec *v, const void *item)
{
	if (*v->n == v->cap) {
		size_t tail, ahead;
		void *nd;

		prefault__stop(v->pf);	/* the mapping may move */
		v->pf = NULL;
		nd = trace__grow_records(*v->data, *v->n + 1, v->elem);
		if (!nd)
			return -ENOMEM;
		*v->data = nd;
		v->cap = (rec_len(nd) - REC_HDR) / v->elem;
		/*
		 * The new half, an eighth of it ahead (4 to 16 MB): the last
		 * doubling may be more than the trace fills.
		 */
		tail = (v->cap - *v->n) * v->elem;
		ahead = tail / 8;

		v->pf = prefault__start((char *)nd + *v->n * v->elem, tail,
					ahead < VEC_AHEAD_MIN ? VEC_AHEAD_MIN : ahead > VEC_AHEAD_MAX ? VEC_AHEAD_MAX : ahead);
		v->pf_from = *v->n;
	}
	memcpy((char *)*v->data + *v->n * v->elem, item, v->elem);
	(*v->n)++;
	if (v->pf && *v->n % VEC_REACH_EVERY == 0)
		prefault__reach(v->pf, (*v->n - v->pf_from) * v->elem);
	return 0;
}

static void vec_done(struct vec *v)
{
	prefault__stop(v->pf);
	v->pf = NULL;
}

/* What trace__load() fills, and a trace made in memory (trace.h). */
struct trace_builder {
	struct trace *t;
	struct vec sw, wk, sc, irq, task, irqn, lost, raise, data;
};

#define loader trace_builder

static void loader_done(struct loader *l)
{
	struct vec *all[] = { &l->sw, &l->wk, &l->sc, &l->irq, &l->task, &l->irqn, &l->lost, &l->raise, &l->data };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		vec_done(all[i]);
}

static void loader_init(struct loader *l, struct trace *t)
{
	t->ncpus = 1;
	*l = (struct loader){
		.t = t,
		.sw = { (void **)&t->sw, &t->nsw, 0, sizeof(*t->sw) },
		.wk = { (void **)&t->wk, &t->nwk, 0, sizeof(*t->wk) },
		.sc = { (void **)&t->sc, &t->nsc, 0, sizeof(*t->sc) },
		.irq = { (void **)&t->irq, &t->nirq, 0, sizeof(*t->irq) },
		.task = { (void **)&t->task, &t->ntask, 0, sizeof(*t->task) },
		.irqn = { (void **)&t->irqn, &t->nirqn, 0, sizeof(*t->irqn) },
		.lost = { (void **)&t->lost, &t->nlost, 0, sizeof(*t->lost) },
		.raise = { (void **)&t->raise, &t->nraise, 0, sizeof(*t->raise) },
		.data = { (void **)&t->data, &t->ndata, 0, sizeof(*t->data) },
	};
}

static int add_record(struct loader *l, union qt_record *r)
{
	struct trace *t = l->t;

	t->by_type[r->h.type]++;
	if (r->h.type != QT_REC_STATS) {
		t->events++;
		if (!t->first_ts || r->h.ts < t->first_ts)
			t->first_ts = r->h.ts;
		if (r->h.ts > t->last_ts)
			t->last_ts = r->h.ts;
	}
	switch (r->h.type) {
	case QT_REC_SWITCH:
		return vec_push(&l->sw, &r->sw);
	case QT_REC_WAKEUP:
	case QT_REC_WAKEUP_NEW:
		return vec_push(&l->wk, &r->wk);
	case QT_REC_SYSCALL:
		if (r->sc.end_ts > t->last_ts)
			t->last_ts = r->sc.end_ts;
		return vec_push(&l->sc, &r->sc);
	case QT_REC_IRQ:
	case QT_REC_SOFTIRQ:
		if (r->irq.end_ts > t->last_ts)
			t->last_ts = r->irq.end_ts;
		return vec_push(&l->irq, &r->irq);
	/*
	 * The kernel's names end with a NUL within the field; a file may hold
	 * one that fills it, and every reader of these arrays takes them for C
	 * strings.
	 */
	case QT_REC_FORK:
	case QT_REC_EXEC:
	case QT_REC_RENAME:
	case QT_REC_EXIT:
		r->task.comm[QT_COMM_LEN - 1] = 0;
		return vec_push(&l->task, &r->task);
	case QT_REC_IRQ_NAME:
		r->irqn.name[QT_IRQ_NAME_LEN - 1] = 0;
		return vec_push(&l->irqn, &r->irqn);
	case QT_REC_LOST:
		return vec_push(&l->lost, &r->lost);
	case QT_REC_SOFTIRQ_RAISE:
		return vec_push(&l->raise, &r->raise);
	case QT_REC_DATA:
		r->data.name[QT_DATA_NAME_LEN - 1] = 0;
		if (r->data.end_ts > t->last_ts)
			t->last_ts = r->data.end_ts;
		return vec_push(&l->data, &r->data);
	case QT_REC_STATS:
		if (r->stats.emitted >= t->last_stats.emitted)
			t->last_stats = r->stats;
		return 0;
	}
	return 0;
}

static int load_events(struct loader *l, const struct tf_block *b)
{
	struct codec_block it;
	union qt_record r;
	int k, err;

	codec_block_begin(&it, b->data, b->len, b->base_ts);
	while ((k = codec_block_next(&it, &r)) > 0) {
		err = add_record(l, &r);
		if (err)
			return err;
	}
	if (k < 0) {
		uint64_t missing = b->count > it.done ? b->count - it.done : 1;

		l->t->undecodable += missing;
		log_warn("%s: block %llu at offset %lld: record %u does not decode; %llu records of "
			 "this block skipped", l->t->path, (unsigned long long)b->seq,
			 (long long)b->offset, it.done, (unsigned long long)missing);
		return 0;
	}
	if (it.done != b->count)
		log_warn("%s: block %llu at offset %lld holds %u records, its header says %u",
			 l->t->path, (unsigned long long)b->seq, (long long)b->offset, it.done, b->count);
	return 0;
}

static int load_threads(struct trace *t, const struct tf_block *b)
{
	struct tf_thread *th;
	size_t n;
	int err = tf_threads_decode(b->data, b->len, b->count, &th, &n);

	if (err) {
		log_warn("%s: thread table at offset %lld is malformed: ignored", t->path,
			 (long long)b->offset);
		return 0;
	}
	for (size_t i = 0; i < n; i++)	/* C strings, as for the records */
		th[i].comm[sizeof(th[i].comm) - 1] = 0;
	/* The first table is the start snapshot, a later one the end snapshot. */
	if (!t->threads_start) {
		t->threads_start = th;
		t->nthreads_start = n;
		t->threads_start_ts = b->base_ts;
	} else {
		free(t->threads_end);
		t->threads_end = th;
		t->nthreads_end = n;
		t->threads_end_ts = b->base_ts;
	}
	return 0;
}

static void finish_totals(struct trace *t)
{
	uint64_t v;

	if (!tf_kv_get_u64(&t->meta, TF_META_CPUS, &v) && v > 0 && v < 65536)
		t->ncpus = v;
	for (size_t i = 0; i < t->nsw; i++)
		if (t->sw[i].h.cpu >= t->ncpus)
			t->ncpus = t->sw[i].h.cpu + 1;
	if (!tf_kv_get_u64(&t->meta, TF_META_START, &v))
		t->start_ns = v;
	if (t->first_ts && (!t->start_ns || t->first_ts < t->start_ns))
		t->start_ns = t->first_ts;
	if (t->finished && !tf_kv_get_u64(&t->end, TF_END_STOP, &v))
		t->stop_ns = v;
	if (t->last_ts > t->stop_ns)
		t->stop_ns = t->last_ts;
	if (t->stop_ns < t->start_ns)
		t->stop_ns = t->start_ns;

	/* Lost counts: the END block is final; a cut file has its last STATS. */
	if (t->finished && !tf_kv_get_u64(&t->end, TF_END_LOST, &v)) {
		t->lost_events = v;
		if (!tf_kv_get_u64(&t->end, TF_END_USER_DROPPED, &v))
			t->user_dropped = v;
	} else {
		uint64_t sum = 0;

		for (size_t i = 0; i < t->nlost; i++)
			sum += t->lost[i].count;
		t->lost_events = sum > t->last_stats.lost ? sum : t->last_stats.lost;
		t->user_dropped = t->last_stats.user_dropped;
	}
}

int trace__load(const char *path, const struct trace_load_opts *opts, struct trace **out,
		char *err, size_t errlen)
{
	struct tf_reader *r = NULL;
	struct readahead *ra = NULL;
	struct tf_block b;
	struct trace *t;
	struct loader l;
	bool have_meta = false;
	uint64_t nblocks = 0;
	int e;

	t = calloc(1, sizeof(*t));
	if (!t || !(t->path = strdup(path))) {
		free(t);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	loader_init(&l, t);
	e = tf_reader__open(path, &r, err, errlen);
	if (e)
		goto fail;
	e = readahead__start(r, &ra);
	if (e) {
		snprintf(err, errlen, "%s: %s", path, strerror(-e));
		goto fail;
	}
	while ((e = readahead__next(ra, &b)) > 0) {
		nblocks++;
		if (opts && opts->progress && (nblocks & 63) == 0)
			log_status("reading %s: %.0f%%", path, 100.0 * b.offset / tf_reader__size(r));
		switch (b.type) {
		case TF_BLK_META:
			if (have_meta) {
				log_warn("%s: second header block at offset %lld ignored", path, (long long)b.offset);
				break;
			}
			if (tf_kv_decode(&t->meta, (const char *)b.data, b.len))
				log_warn("%s: header block at offset %lld is malformed", path, (long long)b.offset);
			have_meta = true;
			break;
		case TF_BLK_THREADS:
			e = load_threads(t, &b);
			break;
		case TF_BLK_EVENTS:
			e = load_events(&l, &b);
			break;
		case TF_BLK_END:
			tf_kv_free(&t->end);
			if (tf_kv_decode(&t->end, (const char *)b.data, b.len))
				log_warn("%s: end block at offset %lld is malformed", path, (long long)b.offset);
			else
				t->finished = true;
			break;
		}
		if (e < 0)
			break;
	}
	readahead__stop(ra);
	ra = NULL;
	loader_done(&l);
	log_status_end();
	if (e < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-e));
		goto fail;
	}
	t->damage = *tf_reader__damage(r);
	t->format_version = tf_reader__version(r);
	t->file_bytes = tf_reader__size(r);
	tf_reader__close(r);
	r = NULL;
	if (!have_meta && !t->events) {
		snprintf(err, errlen, "%s: no readable header and no events: nothing to analyse", path);
		e = -EBADMSG;
		goto fail;
	}
	if (!have_meta)
		log_warn("%s: the header block is missing or damaged: recording details unknown", path);
	if (!t->finished)
		log_warn("%s: the recording was not finished (no end block): read up to its last whole block", path);
	finish_totals(t);
	*out = t;
	return 0;
fail:
	readahead__stop(ra);
	loader_done(&l);
	tf_reader__close(r);
	trace__free(t);
	return e;
}

/* ---- a trace made in memory ---- */

struct trace_builder *trace_builder__new(const char *name)
{
	struct trace_builder *b = calloc(1, sizeof(*b));
	struct trace *t = calloc(1, sizeof(*t));

	if (!b || !t || !(t->path = strdup(name ? name : "(memory)"))) {
		free(t);
		free(b);
		return NULL;
	}
	loader_init(b, t);
	return b;
}

struct trace *trace_builder__trace(struct trace_builder *b)
{
	return b->t;
}

int trace_builder__add(struct trace_builder *b, union qt_record *r)
{
	if (r->h.type == QT_REC_NONE || r->h.type >= QT_REC_MAX)
		return -EINVAL;
	return add_record(b, r);
}

int trace_builder__add_events(struct trace_builder *b, const struct tf_block *blk)
{
	return load_events(b, blk);
}

int trace_builder__threads(struct trace_builder *b, const struct tf_thread *th, size_t n, uint64_t ts)
{
	struct trace *t = b->t;
	struct tf_thread *copy = malloc((n ? n : 1) * sizeof(*copy));

	if (!copy)
		return -ENOMEM;
	if (n)
		memcpy(copy, th, n * sizeof(*copy));
	for (size_t i = 0; i < n; i++)
		copy[i].comm[sizeof(copy[i].comm) - 1] = 0;
	free(t->threads_start);
	t->threads_start = copy;
	t->nthreads_start = n;
	t->threads_start_ts = ts;
	return 0;
}

struct trace *trace_builder__finish(struct trace_builder *b)
{
	struct trace *t = b->t;

	loader_done(b);
	free(b);
	finish_totals(t);
	return t;
}

void trace_builder__free(struct trace_builder *b)
{
	if (!b)
		return;
	loader_done(b);
	trace__free(b->t);
	free(b);
}

void trace__drop_switches(struct trace *t)
{
	rec_free(t->sw);
	t->sw = NULL;
	t->nsw = 0;
}

void trace__drop_records(struct trace *t)
{
	trace__drop_switches(t);
	rec_free(t->wk);
	rec_free(t->sc);
	rec_free(t->irq);
	rec_free(t->raise);
	t->wk = NULL;
	t->sc = NULL;
	t->irq = NULL;
	t->raise = NULL;
	t->nsw = t->nwk = t->nsc = t->nirq = t->nraise = 0;
}

void trace__free(struct trace *t)
{
	if (!t)
		return;
	tf_kv_free(&t->meta);
	tf_kv_free(&t->end);
	free(t->threads_start);
	free(t->threads_end);
	trace__drop_records(t);
	rec_free(t->task);
	rec_free(t->irqn);
	rec_free(t->lost);
	rec_free(t->data);
	free(t->path);
	free(t);
}

const char *trace__arch(const struct trace *t)
{
	return t ? tf_kv_get(&t->meta, TF_META_ARCH) : NULL;
}

const char *trace__irq_name(const struct trace *t, uint32_t irq)
{
	for (size_t i = 0; i < t->nirqn; i++)
		if (t->irqn[i].irq == irq)
			return t->irqn[i].name;
	return NULL;
}

const char *irq_source_name(const struct trace *t, uint32_t irq, char *buf, size_t len)
{
	const char *name;

	switch (irq) {
	case QT_IRQ_TIMER: return "timer";
	case QT_IRQ_WORK: return "irq_work";
	case QT_IRQ_IPI: return "IPI";
	case QT_IRQ_UNKNOWN: return "irq ?";
	}
	name = trace__irq_name(t, irq);
	snprintf(buf, len, "irq %u %s", irq, name ? name : "?");
	return buf;
}

const char *softirq_name(uint32_t vec)
{
	static const char *const names[] = {
		"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
	};

	return vec < sizeof(names) / sizeof(names[0]) ? names[vec] : "?";
}
