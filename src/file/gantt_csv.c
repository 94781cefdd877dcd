// SPDX-License-Identifier: MIT
/* Gantt-chart CSV reader: bounded lines, strict numbers, interned names. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gantt_csv.h"
#include "lib/parse.h"

#define DEFAULT_MAX_LINE 4096
#define MAX_FIELDS 64

enum col { COL_TASK, COL_ACTOR, COL_START, COL_END, NCOLS };
static const char *const col_names[NCOLS] = { "task", "actor", "start_ns", "end_ns" };

/* One string pool, two tables of distinct strings (open addressing). */
struct pool {
	char *buf;
	size_t len, cap;
};

struct table {
	size_t *off;		/* [n] into the pool */
	uint32_t n, cap;
	uint32_t *slot;		/* [nslot] id + 1, 0 = empty */
	uint32_t nslot;
};

struct parser {
	FILE *f;
	const char *name;
	char *err;
	size_t err_sz;
	size_t max_line;
	char *line;		/* [max_line + 1] */
	size_t len;
	uint32_t lineno;
	struct pool pool;
	struct table actors, names;
	struct gantt *g;
	size_t cap;		/* of the task arrays */
};

static int fail(struct parser *p, int err, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (!p->err_sz)
		return err;
	if (p->lineno)
		k = snprintf(p->err, p->err_sz, "%s:%u: ", p->name, p->lineno);
	else
		k = snprintf(p->err, p->err_sz, "%s: ", p->name);
	if (k < 0 || (size_t)k >= p->err_sz)
		return err;
	va_start(ap, fmt);
	vsnprintf(p->err + k, p->err_sz - k, fmt, ap);
	va_end(ap);
	return err;
}

static uint32_t hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static int table_grow(struct table *t, const struct pool *pl)
{
	uint32_t ns = t->nslot ? t->nslot * 2 : 64;
	uint32_t *slot = calloc(ns, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (uint32_t id = 0; id < t->n; id++) {
		const char *s = pl->buf + t->off[id];
		uint32_t i = hash(s, strlen(s)) & (ns - 1);

		while (slot[i])
			i = (i + 1) & (ns - 1);
		slot[i] = id + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = ns;
	return 0;
}

/* The id of s[0..n) in t, adding it (NUL-terminated, in the pool) if new. */
static int intern(struct table *t, struct pool *pl, const char *s, size_t n,
		  uint32_t *id)
{
	uint32_t i;

	if ((uint64_t)(t->n + 1) * 2 > t->nslot && table_grow(t, pl))
		return -ENOMEM;
	for (i = hash(s, n) & (t->nslot - 1); t->slot[i]; i = (i + 1) & (t->nslot - 1)) {
		const char *c = pl->buf + t->off[t->slot[i] - 1];

		if (!memcmp(c, s, n) && !c[n]) {
			*id = t->slot[i] - 1;
			return 0;
		}
	}
	if (t->n == t->cap) {
		uint32_t nc = t->cap ? t->cap * 2 : 64;
		size_t *off = realloc(t->off, nc * sizeof(*off));

		if (!off)
			return -ENOMEM;
		t->off = off;
		t->cap = nc;
	}
	if (pl->len + n + 1 > pl->cap) {
		size_t nc = pl->cap ? pl->cap : 4096;
		char *b;

		while (nc < pl->len + n + 1)
			nc *= 2;
		b = realloc(pl->buf, nc);
		if (!b)
			return -ENOMEM;
		pl->buf = b;
		pl->cap = nc;
	}
	memcpy(pl->buf + pl->len, s, n);
	pl->buf[pl->len + n] = '\0';
	t->off[t->n] = pl->len;
	pl->len += n + 1;
	t->slot[i] = t->n + 1;
	*id = t->n++;
	return 0;
}

/*
 * Next line into p->line (without CR/LF). 1 = a line, 0 = end of file,
 * < 0 = error. Never stores more than max_line bytes.
 */
static int read_line(struct parser *p)
{
	int ch;

	p->len = 0;
	if (p->lineno == UINT32_MAX)
		return fail(p, -E2BIG, "too many lines");
	p->lineno++;
	while ((ch = getc_unlocked(p->f)) != EOF && ch != '\n') {
		if (!ch)
			return fail(p, -EINVAL, "NUL byte in line");
		if (p->len == p->max_line) {
			/* A CR just before the LF is part of the line end. */
			if (ch == '\r') {
				int nx = getc_unlocked(p->f);

				if (nx == '\n' || nx == EOF)
					break;
			}
			return fail(p, -EINVAL, "line longer than %zu bytes", p->max_line);
		}
		p->line[p->len++] = (char)ch;
	}
	if (ferror(p->f))
		return fail(p, -EIO, "read error");
	if (ch == EOF && !p->len)
		return 0;
	if (p->len && p->line[p->len - 1] == '\r')
		p->len--;
	p->line[p->len] = '\0';
	if (p->lineno == 1 && p->len >= 3 && !memcmp(p->line, "\xEF\xBB\xBF", 3)) {
		memmove(p->line, p->line + 3, p->len - 2);
		p->len -= 3;
	}
	return 1;
}

struct field {
	char *s;
	size_t n;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Splits p->line in place, undoing quotes and NUL-terminating each field.
 * Returns the field count or < 0.
 */
static int split(struct parser *p, struct field *f)
{
	char *r = p->line, *end = p->line + p->len;
	int nf = 0;

	for (;;) {
		char *w, *start;

		if (nf == MAX_FIELDS)
			return fail(p, -EINVAL, "more than %d fields", MAX_FIELDS);
		while (r < end && is_blank(*r))
			r++;
		start = w = r;
		if (r < end && *r == '"') {
			r++;
			for (;;) {
				if (r == end)
					return fail(p, -EINVAL, "unterminated quote");
				if (*r == '"') {
					if (r + 1 < end && r[1] == '"') {
						*w++ = '"';
						r += 2;
						continue;
					}
					r++;
					break;
				}
				*w++ = *r++;
			}
			while (r < end && is_blank(*r))
				r++;
			if (r < end && *r != ',')
				return fail(p, -EINVAL, "text after a closing quote");
		} else {
			while (r < end && *r != ',')
				r++;
			w = r;
			while (w > start && is_blank(w[-1]))
				w--;
		}
		f[nf].s = start;
		f[nf].n = (size_t)(w - start);
		nf++;
		if (r == end) {
			*w = '\0';
			return nf;
		}
		*w = '\0';	/* w <= r: at most the comma, already seen */
		r++;
	}
}

/* Fields are NUL-terminated by split(). */
static int parse_ns(struct parser *p, const struct field *f, const char *col,
		    int64_t *v)
{
	uint64_t x;
	int r;

	if (!f->n)
		return fail(p, -EINVAL, "%s: empty", col);
	if (f->s[0] == '-') {
		r = parse_u64(f->s + 1, 0, UINT64_MAX, &x);
		if (!r && !x) {
			*v = 0;		/* "-0" */
			return 0;
		}
		if (r != -EINVAL)
			return fail(p, -EINVAL, "%s: negative: %.40s", col, f->s);
	} else {
		r = parse_u64(f->s, 0, INT64_MAX, &x);
		if (r == -ERANGE)
			return fail(p, -EINVAL, "%s: out of range: '%.40s'", col, f->s);
		if (!r) {
			*v = (int64_t)x;
			return 0;
		}
	}
	return fail(p, -EINVAL, "%s: not a decimal number: '%.40s'", col, f->s);
}

static int parse_header(struct parser *p, int col[NCOLS], int *nf)
{
	struct field f[MAX_FIELDS];
	int r;

	do {
		r = read_line(p);
		if (r < 0)
			return r;
		if (!r) {
			p->lineno = 0;
			return fail(p, -EINVAL, "empty file (expected the header task,actor,start_ns,end_ns)");
		}
	} while (strspn(p->line, " \t") == p->len);
	r = split(p, f);
	if (r < 0)
		return r;
	*nf = r;
	for (int c = 0; c < NCOLS; c++)
		col[c] = -1;
	for (int i = 0; i < r; i++) {
		for (int c = 0; c < NCOLS; c++) {
			if (f[i].n != strlen(col_names[c]) ||
			    memcmp(f[i].s, col_names[c], f[i].n))
				continue;
			if (col[c] >= 0)
				return fail(p, -EINVAL, "header: column '%s' twice", col_names[c]);
			col[c] = i;
		}
	}
	for (int c = 0; c < NCOLS; c++)
		if (col[c] < 0)
			return fail(p, -EINVAL, "header: no column '%s' (expected task,actor,start_ns,end_ns)",
				    col_names[c]);
	return 0;
}

static int grow_tasks(struct parser *p)
{
	struct gantt *g = p->g;
	size_t nc = p->cap ? p->cap * 2 : 1024;
	void *a;

	if (!(a = realloc(g->tasks, nc * sizeof(*g->tasks))))
		return -ENOMEM;
	g->tasks = a;
	if (!(a = realloc(g->actor, nc * sizeof(*g->actor))))
		return -ENOMEM;
	g->actor = a;
	if (!(a = realloc(g->name, nc * sizeof(*g->name))))
		return -ENOMEM;
	g->name = a;
	if (!(a = realloc(g->line, nc * sizeof(*g->line))))
		return -ENOMEM;
	g->line = a;
	p->cap = nc;
	return 0;
}

static int parse_body(struct parser *p, const int col[NCOLS], int nf)
{
	struct gantt *g = p->g;
	struct field f[MAX_FIELDS];
	int r;

	while ((r = read_line(p)) > 0) {
		struct gantt_task t;
		uint32_t a, nm;

		if (strspn(p->line, " \t") == p->len)
			continue;
		r = split(p, f);
		if (r < 0)
			return r;
		if (r != nf)
			return fail(p, -EINVAL, "%d fields, the header has %d", r, nf);
		if ((r = parse_ns(p, &f[col[COL_START]], "start_ns", &t.start_ns)) ||
		    (r = parse_ns(p, &f[col[COL_END]], "end_ns", &t.end_ns)))
			return r;
		if (t.end_ns < t.start_ns)
			return fail(p, -EINVAL, "end_ns %lld is before start_ns %lld",
				    (long long)t.end_ns, (long long)t.start_ns);
		if (g->n == GANTT_MAX_TASKS)
			return fail(p, -E2BIG, "more than %llu tasks",
				    (unsigned long long)GANTT_MAX_TASKS);
		if (g->n == p->cap && grow_tasks(p))
			return fail(p, -ENOMEM, "out of memory");
		if (intern(&p->names, &p->pool, f[col[COL_TASK]].s, f[col[COL_TASK]].n, &nm) ||
		    intern(&p->actors, &p->pool, f[col[COL_ACTOR]].s, f[col[COL_ACTOR]].n, &a))
			return fail(p, -ENOMEM, "out of memory");
		g->tasks[g->n] = t;
		g->actor[g->n] = a;
		g->name[g->n] = nm;
		g->line[g->n] = p->lineno;
		g->n++;
	}
	return r;
}

static const char **string_list(const struct pool *pl, const struct table *t)
{
	const char **v = malloc((t->n ? t->n : 1) * sizeof(*v));

	if (v)
		for (uint32_t i = 0; i < t->n; i++)
			v[i] = pl->buf + t->off[i];
	return v;
}

void gantt__free(struct gantt *g)
{
	if (!g)
		return;
	free(g->tasks);
	free(g->actor);
	free(g->name);
	free(g->line);
	free(g->actors);
	free(g->names);
	free(g->pool_);
	free(g);
}

int gantt__parse(FILE *f, const char *name, const struct gantt_opts *opts,
		 struct gantt **out, char *err, size_t err_sz)
{
	struct parser p = {
		.f = f, .name = name ? name : "(csv)", .err = err, .err_sz = err_sz,
		.max_line = opts && opts->max_line ? opts->max_line : DEFAULT_MAX_LINE,
	};
	int col[NCOLS], nf = 0, r;

	*out = NULL;
	if (err_sz)
		err[0] = '\0';
	p.line = malloc(p.max_line + 1);
	p.g = calloc(1, sizeof(*p.g));
	if (!p.line || !p.g) {
		r = fail(&p, -ENOMEM, "out of memory");
		goto out;
	}
	r = parse_header(&p, col, &nf);
	if (!r)
		r = parse_body(&p, col, nf);
	if (r)
		goto out;
	p.g->n_actors = p.actors.n;
	p.g->n_names = p.names.n;
	p.g->actors = string_list(&p.pool, &p.actors);
	p.g->names = string_list(&p.pool, &p.names);
	if (!p.g->actors || !p.g->names) {
		p.lineno = 0;
		r = fail(&p, -ENOMEM, "out of memory");
		goto out;
	}
	p.g->pool_ = p.pool.buf;
	p.pool.buf = NULL;
	*out = p.g;
	p.g = NULL;
out:
	gantt__free(p.g);
	free(p.line);
	free(p.pool.buf);
	free(p.actors.off);
	free(p.actors.slot);
	free(p.names.off);
	free(p.names.slot);
	return r;
}

int gantt__read(const char *path, const struct gantt_opts *opts,
		struct gantt **out, char *err, size_t err_sz)
{
	FILE *f = fopen(path, "r");
	int r;

	if (!f) {
		r = -errno;
		*out = NULL;
		if (err_sz)
			snprintf(err, err_sz, "%s: %s", path, strerror(-r));
		return r;
	}
	r = gantt__parse(f, path, opts, out, err, err_sz);
	fclose(f);
	return r;
}

static int cmp_task(const void *x, const void *y, void *arg)
{
	const struct gantt *g = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (g->actor[a] != g->actor[b])
		return g->actor[a] < g->actor[b] ? -1 : 1;
	if (g->tasks[a].start_ns != g->tasks[b].start_ns)
		return g->tasks[a].start_ns < g->tasks[b].start_ns ? -1 : 1;
	return a < b ? -1 : a > b;
}

void gantt__order_by_actor(const struct gantt *g, uint32_t *order)
{
	for (size_t i = 0; i < g->n; i++)
		order[i] = i;
	qsort_r(order, g->n, sizeof(*order), cmp_task, (void *)g);
}
