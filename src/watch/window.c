// SPDX-License-Identifier: MIT
/* Writing a window to disk; see src/watch/window.h. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "history.h"
#include "ring.h"
#include "threads.h"
#include "window.h"

void window_name(char *buf, size_t len, unsigned int number, const char *label, int64_t late_ns)
{
	char safe[16], late[24] = "";
	size_t i = 0;

	for (; label && label[i] && i + 1 < sizeof(safe); i++) {
		char c = label[i];

		safe[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '_' || c == '-' || c == '.' ? c : '_';
	}
	safe[i] = 0;
	if (!i || safe[0] == '.')
		snprintf(safe, sizeof(safe), "%s", i ? "thread" : "manual");
	if (late_ns >= 1000000000)
		snprintf(late, sizeof(late), "-%.1fs", late_ns / 1e9);
	else if (late_ns >= 1000000)
		snprintf(late, sizeof(late), "-%lldms", (long long)((late_ns + 500000) / 1000000));
	else if (late_ns > 0)
		snprintf(late, sizeof(late), "-%lldus", (long long)((late_ns + 500) / 1000));
	snprintf(buf, len, "%04u-%s%s.qtrace", number, safe, late);
}

/* Is name NNNN-... with the given suffix (NNNN at least 4 digits)? Its number into *n. */
static bool numbered(const char *name, const char *suffix, unsigned int *n)
{
	size_t len = strlen(name), sl = strlen(suffix), d = 0;

	while (name[d] >= '0' && name[d] <= '9')
		d++;
	if (d < 4 || d > 9 || name[d] != '-' || len < d + 1 + sl || strcmp(name + len - sl, suffix))
		return false;
	*n = (unsigned int)strtoul(name, NULL, 10);
	return true;
}

int window_clean(const char *dir, unsigned int *next_number, unsigned int *removed)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned int n;

	*next_number = 1;
	*removed = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (numbered(e->d_name, ".qtrace", &n)) {
			if (n >= *next_number)
				*next_number = n + 1;
		} else if (e->d_name[0] == '.' && numbered(e->d_name + 1, ".qtrace.part", &n)) {
			char path[PATH_MAX];

			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			*removed += !unlink(path);
		}
	}
	closedir(d);
	return 0;
}

/* The latest record time in a packed block (its base when it does not decode). */
static uint64_t block_last_ts(struct tf_packer *pk, const struct tf_packed *b)
{
	const uint8_t *p;
	struct codec_block it;
	union qt_record r;
	uint64_t last = b->base_ts;

	if (tf_packer__unpack(pk, b, &p))
		return last;
	codec_block_begin(&it, p, b->raw_len, b->base_ts);
	while (codec_block_next(&it, &r) > 0)
		if (r.h.ts > last)
			last = r.h.ts;
	return last;
}

int window_records(struct ring *r, const struct window_plan *p, struct history *h, uint64_t *first_ts)
{
	struct ring_copy c = { 0 };
	struct tf_packer *pk = NULL;
	union qt_record batch[512];
	int err = tf_packer__new(0, &pk);

	*first_ts = UINT64_MAX;
	for (uint64_t seq = p->first_seq; !err && seq <= p->last_seq; seq++) {
		const uint8_t *q;
		struct codec_block it;
		size_t nb = 0;
		int got = ring__copy(r, seq, &c);

		/* Gone meanwhile: the window will not be written whole either (window_write says so). */
		if (got <= 0) {
			err = got ? got : -ESTALE;
			break;
		}
		if (tf_packer__unpack(pk, &c.pk, &q)) {
			err = -EINVAL;
			break;
		}
		codec_block_begin(&it, q, c.pk.raw_len, c.pk.base_ts);
		while (!err && codec_block_next(&it, &batch[nb]) > 0) {
			if (batch[nb].h.type != QT_REC_STATS && batch[nb].h.ts < *first_ts)
				*first_ts = batch[nb].h.ts;
			if (++nb == sizeof(batch) / sizeof(batch[0])) {
				err = history__add(h, batch, nb);
				nb = 0;
			}
		}
		if (!err && nb)
			err = history__add(h, batch, nb);
	}
	ring_copy_free(&c);
	tf_packer__free(pk);
	return err;
}

static int watch_keys(struct tf_kv *m, const struct window_in *in, const struct window_out *out, uint64_t start)
{
	const struct trig_window *w = in->w;
	char *list = NULL;
	size_t len = 0;
	FILE *f;
	int err = 0;

	err |= tf_kv_set(m, TF_META_CMDLINE, "%s", in->cmdline ? in->cmdline : "qostrace watch");
	err |= tf_kv_set(m, TF_META_START, "%llu", (unsigned long long)start);
	err |= tf_kv_set(m, TF_META_WATCH, "%s", w->manual ? "demand" : "break");
	err |= tf_kv_set(m, TF_META_WATCH_WINDOW, "%llu-%llu", (unsigned long long)w->from, (unsigned long long)w->to);
	err |= tf_kv_set(m, TF_META_WATCH_CUT, "%lld", (long long)in->late_ns);
	err |= tf_kv_set(m, TF_META_WATCH_ACTORS, "%s", in->actors ? in->actors : "");
	if (!w->manual) {
		err |= tf_kv_set(m, TF_META_WATCH_ACTOR, "%s", w->first.actor);
		err |= tf_kv_set(m, TF_META_WATCH_AT, "%lld", (long long)w->first.at_ns);
		err |= tf_kv_set(m, TF_META_WATCH_LATE, "%lld", (long long)w->first.lateness_ns);
		err |= tf_kv_set(m, TF_META_WATCH_PERIOD, "%.0f", w->first.period_ns);
	}
	if (out->cut_ns)
		err |= tf_kv_set(m, TF_META_WATCH_START_LOST, "%llu", (unsigned long long)out->cut_ns);
	f = open_memstream(&list, &len);
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < in->nbreaks; i++) {
		const struct trig_break *b = &in->breaks[i];

		fprintf(f, "%s%u:%lld:%lld:%s:%s", i ? " " : "", b->tid, (long long)b->at_ns, (long long)b->lateness_ns,
			b->kind == BREAK_COMPLETION ? "completion" : "start", b->online ? "online" : "window");
	}
	fclose(f);
	err |= tf_kv_set(m, TF_META_WATCH_BREAKS, "%s", list ? list : "");
	free(list);
	return err ? -ENOMEM : 0;
}

/* META then the thread table as of start. */
static int write_head(struct tf_writer *tw, const struct window_in *in, const struct window_out *out, uint64_t start)
{
	struct tf_kv m = { 0 };
	struct tf_thread *th = NULL;
	size_t n = 0, len;
	char *buf;
	int err = 0;

	for (size_t i = 0; i < in->meta->n && !err; i++)
		err = tf_kv_set(&m, in->meta->keys[i], "%s", in->meta->vals[i]);
	if (!err)
		err = watch_keys(&m, in, out, start);
	buf = err ? NULL : tf_kv_encode(&m, &len);
	if (!err && !buf)
		err = -ENOMEM;
	if (!err)
		err = tf_writer__append(tw, TF_BLK_META, buf, len, m.n, start);
	free(buf);
	tf_kv_free(&m);
	if (!err)
		err = threads__at(in->threads, start, &th, &n);
	buf = err ? NULL : (char *)tf_threads_encode(th, n, &len);
	if (!err && !buf)
		err = -ENOMEM;
	if (!err)
		err = tf_writer__append(tw, TF_BLK_THREADS, buf, len, n, start);
	free(buf);
	free(th);
	return err;
}

/* The end table and END: what was lost inside [start, stop], by CPU. */
static int write_tail(struct tf_writer *tw, const struct window_in *in, struct window_out *out)
{
	uint64_t ncpus = 1, *by_cpu;
	struct tf_thread *th = NULL;
	struct tf_kv end = { 0 };
	char *buf = NULL, *list = NULL;
	size_t n = 0, len = 0;
	FILE *f;
	int err;

	tf_kv_get_u64(in->meta, TF_META_CPUS, &ncpus);
	ncpus = ncpus && ncpus <= 4096 ? ncpus : 1;
	by_cpu = calloc(ncpus, sizeof(*by_cpu));
	if (!by_cpu)
		return -ENOMEM;
	for (size_t i = 0; i < in->nlosses; i++) {
		const struct qt_lost *l = &in->losses[i].lost;

		if (l->last_ts < out->first_ts || l->first_ts > out->last_ts)
			continue;
		out->lost += l->count;
		by_cpu[l->h.cpu < ncpus ? l->h.cpu : 0] += l->count;
	}
	f = open_memstream(&list, &len);
	if (f) {
		for (uint64_t c = 0; c < ncpus; c++)
			fprintf(f, "%s%llu", c ? "," : "", (unsigned long long)by_cpu[c]);
		fclose(f);
	}
	free(by_cpu);
	err = tf_kv_set(&end, TF_END_STOP, "%llu", (unsigned long long)out->last_ts);
	err |= tf_kv_set(&end, TF_END_REASON, "%s", in->w->manual ? "watch window on demand" :
			 "watch window: a period break");
	err |= tf_kv_set(&end, TF_END_EVENTS, "%llu", (unsigned long long)out->events);
	err |= tf_kv_set(&end, TF_END_LOST, "%llu", (unsigned long long)out->lost);
	err |= tf_kv_set(&end, TF_END_LOST_CPU, "%s", list ? list : "");
	err |= tf_kv_set(&end, TF_END_USER_DROPPED, "0");
	free(list);
	if (!err)
		err = threads__at(in->threads, out->last_ts + 1, &th, &n);
	buf = err ? NULL : (char *)tf_threads_encode(th, n, &len);
	if (!err && buf)
		err = tf_writer__append(tw, TF_BLK_THREADS, buf, len, n, out->last_ts);
	free(buf);
	free(th);
	buf = err ? NULL : tf_kv_encode(&end, &len);
	if (!err && buf)
		err = tf_writer__append(tw, TF_BLK_END, buf, len, end.n, out->last_ts);
	else if (!err)
		err = -ENOMEM;
	free(buf);
	tf_kv_free(&end);
	return err;
}

/* Every block of the plan (c holds the first); out's counts filled. */
static int write_blocks(struct tf_writer *tw, const struct window_in *in, const struct window_plan *p,
			struct ring_copy *c, struct window_out *out)
{
	int err = 0;

	for (uint64_t seq = p->first_seq; !err && seq <= p->last_seq; seq++) {
		if (seq != c->seq || !c->buf) {
			int got = ring__copy(in->ring, seq, c);

			/*
			 * Gone meanwhile: the ring went over its budget while this
			 * was written, and a window with a hole that does not say
			 * so is worse than none.
			 */
			if (got <= 0) {
				err = got ? got : -ESTALE;
				break;
			}
		}
		err = tf_writer__put(tw, &c->pk);
		out->events += c->pk.count;
	}
	return err;
}

int window_plan(struct ring *r, uint64_t from, uint64_t to, struct window_plan *p)
{
	struct ring_copy c = { 0 };
	struct tf_packer *pk = NULL;
	uint64_t first;
	int got, err = 0;

	memset(p, 0, sizeof(*p));
	if (!ring__span(r, from, to, &first, &p->last_seq))
		return -ENODATA;
	/* The last block first: its latest record is where the window ends. */
	got = ring__copy(r, p->last_seq, &c);
	if (got > 0)
		err = tf_packer__new(0, &pk);
	if (got > 0 && !err)
		p->last_ts = block_last_ts(pk, &c.pk);
	tf_packer__free(pk);
	for (p->first_seq = first; got > 0 && !err && p->first_seq <= p->last_seq; p->first_seq++) {
		got = ring__copy(r, p->first_seq, &c);
		if (got)
			break;
		got = 1;	/* gone: the next one */
	}
	if (got > 0 && p->first_seq <= p->last_seq) {
		/* Blocks older than the first held were dropped: what they held of [from, ...) is gone. */
		p->first_ts = c.pk.base_ts;
		if (p->first_ts > from && p->first_seq > 0)
			p->cut_ns = p->first_ts - from;
		ring__sum(r, p->first_seq, p->last_seq, &p->bytes, NULL);
	}
	ring_copy_free(&c);
	if (err || got < 0)
		return err ? err : got;
	return p->first_ts ? 0 : -ENODATA;
}

int window_write(const struct window_in *in, const struct window_plan *p, struct window_out *out, char *err,
		 size_t errlen)
{
	char name[96], tmp[PATH_MAX];
	struct ring_copy c = { 0 };
	struct tf_writer *tw = NULL;
	struct stat st;
	int e;

	memset(out, 0, sizeof(*out));
	out->first_ts = p->first_ts;
	out->last_ts = p->last_ts;
	out->cut_ns = p->cut_ns;
	if (p->bytes > in->max_bytes) {
		snprintf(err, errlen, "the window would take %llu bytes, more than --max-disk leaves",
			 (unsigned long long)p->bytes);
		return -EDQUOT;
	}
	window_name(name, sizeof(name), in->number, in->w->manual ? NULL : in->w->first.comm,
		    in->w->manual ? 0 : in->w->worst_ns);
	snprintf(out->path, sizeof(out->path), "%s/%s", in->dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.part", in->dir, name);
	e = tf_writer__create(tmp, false, 1, &tw);
	if (!e)
		e = write_head(tw, in, out, out->first_ts);
	if (!e)
		e = write_blocks(tw, in, p, &c, out);
	if (!e)
		e = write_tail(tw, in, out);
	ring_copy_free(&c);
	if (tw) {
		int ce = tf_writer__close(tw);

		e = e ? e : ce;
		/* The head and the tail come beside the blocks: the bound holds on the whole file. */
		if (!e && stat(tmp, &st))
			e = -errno;
		if (!e && (uint64_t)st.st_size > in->max_bytes)
			e = -EDQUOT;
		if (!e && rename(tmp, out->path))
			e = -errno;
		if (!e)
			out->bytes = st.st_size;
		if (e)
			unlink(tmp);
	}
	if (e == -EDQUOT)
		snprintf(err, errlen, "the window would take %llu bytes, more than --max-disk leaves",
			 (unsigned long long)st.st_size);
	else if (e == -ESTALE)
		snprintf(err, errlen, "%s: the memory dropped part of the window while it was written (raise --memory)",
			 name);
	else if (e)
		snprintf(err, errlen, "%s: %s", tmp, strerror(-e));
	return e;
}
