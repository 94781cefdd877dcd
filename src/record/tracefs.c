// SPDX-License-Identifier: MIT
/* The kernel's tracefs and its format files; see src/record/tracefs.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefs.h"

int tracefs_find(char *root, size_t len)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char probe[128];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(probe, sizeof(probe), "%s/events/sched/sched_switch/format", dirs[i]);
		if (!access(probe, R_OK)) {
			snprintf(root, len, "%s", dirs[i]);
			return 0;
		}
	}
	return -ENOENT;
}

void tracefs_format_free(struct tracefs_format *f)
{
	free(f->fields);
	free(f->print_fmt);
	memset(f, 0, sizeof(*f));
}

/* The number after "key:" in a field line, e.g. "offset:24;". */
static int field_number(const char *line, const char *key, unsigned long *v)
{
	const char *p = strstr(line, key);
	char *end;

	if (!p)
		return -EBADMSG;
	p += strlen(key);
	*v = strtoul(p, &end, 10);
	return end == p || *end != ';' || *v > UINT16_MAX ? -EBADMSG : 0;
}

/*
 * "field:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;": the
 * declaration gives the name, an array's count and a __data_loc.
 */
static int parse_field(const char *line, struct tracefs_field *fd)
{
	const char *decl = line + strlen("field:"), *semi = strchr(decl, ';'), *end, *name;
	unsigned long off, size, sign = 0;
	size_t n;

	memset(fd, 0, sizeof(*fd));
	if (!semi || field_number(semi, "offset:", &off) || field_number(semi, "size:", &size))
		return -EBADMSG;
	field_number(semi, "signed:", &sign);	/* missing before Linux 3.x: unsigned */
	end = semi;
	fd->count = 1;
	if (end > decl && end[-1] == ']') {
		const char *open = end - 1;

		while (open > decl && *open != '[')
			open--;
		if (*open != '[')
			return -EBADMSG;
		fd->count = strtoul(open + 1, NULL, 10);
		end = open;
	}
	name = end;
	while (name > decl && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	n = end - name;
	if (!n || n >= sizeof(fd->name) || !fd->count)
		return -EBADMSG;
	memcpy(fd->name, name, n);
	fd->offset = off;
	fd->size = size;
	fd->is_signed = sign != 0;
	if (!strncmp(decl, "__data_loc ", 11))
		fd->kind = TRACEFS_DATA_LOC;
	else if (!strncmp(decl, "__rel_loc ", 10))
		fd->kind = TRACEFS_REL_LOC;
	return 0;
}

static int add_field(struct tracefs_format *f, const struct tracefs_field *fd, size_t *cap)
{
	if (f->nfields == *cap) {
		struct tracefs_field *v;

		*cap = *cap ? *cap * 2 : 16;
		v = realloc(f->fields, *cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		f->fields = v;
	}
	f->fields[f->nfields++] = *fd;
	return 0;
}

int tracefs_format_parse(const char *text, struct tracefs_format *f)
{
	const char *p = text;
	size_t cap = 0;
	int err = 0;

	memset(f, 0, sizeof(*f));
	while (*p && !err) {
		const char *eol = strchr(p, '\n');
		size_t n;

		while (*p == ' ' || *p == '\t')
			p++;
		n = eol ? (size_t)(eol - p) : strlen(p);
		if (!strncmp(p, "field:", 6)) {
			struct tracefs_field fd;
			char line[512];

			if (n >= sizeof(line)) {
				err = -EBADMSG;
				break;
			}
			memcpy(line, p, n);
			line[n] = 0;
			err = parse_field(line, &fd);
			if (!err && strncmp(fd.name, "common_", 7))
				err = add_field(f, &fd, &cap);
		} else if (!strncmp(p, "print fmt: ", 11) && !f->print_fmt) {
			f->print_fmt = strndup(p + 11, n - 11);
			if (!f->print_fmt)
				err = -ENOMEM;
		}
		p += n;
		if (*p == '\n')
			p++;
	}
	if (err)
		tracefs_format_free(f);
	return err;
}

int tracefs_format_read(const char *root, const char *event, struct tracefs_format *f)
{
	char path[512], *text = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), "%s/events/%s/format", root, event);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* tracefs files report size 0: read to the end */
	do {
		if (cap - len < 4096) {
			char *t = realloc(text, cap + 8192);

			if (!t) {
				free(text);
				close(fd);
				return -ENOMEM;
			}
			text = t;
			cap += 8192;
		}
		n = read(fd, text + len, cap - len - 1);
		if (n > 0)
			len += n;
	} while (n > 0);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (!err) {
		text[len] = 0;
		err = tracefs_format_parse(text, f);
	}
	free(text);
	return err;
}

const struct tracefs_field *tracefs_field(const struct tracefs_format *f, const char *name)
{
	for (size_t i = 0; i < f->nfields; i++)
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	return NULL;
}

/* ---- prev_state: a small evaluator for the constant expressions of the print fmt ---- */

struct expr {
	const char *p;
	int err;
};

static void skip_space(struct expr *e)
{
	while (isspace((unsigned char)*e->p))
		e->p++;
}

static uint64_t expr_binary(struct expr *e, int level);

static uint64_t expr_primary(struct expr *e)
{
	uint64_t v;
	char *end;

	skip_space(e);
	if (*e->p == '(') {
		e->p++;
		v = expr_binary(e, 0);
		skip_space(e);
		if (*e->p != ')')
			e->err = -EBADMSG;
		else
			e->p++;
		return v;
	}
	v = strtoull(e->p, &end, 0);
	if (end == e->p)
		e->err = -EBADMSG;
	e->p = end;
	return v;
}

/* The binary operators of C that the formats use, loosest binding first. */
static const char *const levels[][2] = { { "|" }, { "&" }, { "<<", ">>" }, { "+", "-" } };
#define NLEVELS (int)(sizeof(levels) / sizeof(levels[0]))

/* The operator of this level at e->p ("|" is not "||"), or NULL. */
static const char *expr_op(struct expr *e, int level)
{
	skip_space(e);
	for (int i = 0; i < 2 && levels[level][i]; i++) {
		const char *op = levels[level][i];
		size_t n = strlen(op);

		if (!strncmp(e->p, op, n) && (n == 2 || e->p[1] != op[0]))
			return op;
	}
	return NULL;
}

static uint64_t expr_binary(struct expr *e, int level)
{
	uint64_t v, r;
	const char *op;

	if (level == NLEVELS)
		return expr_primary(e);
	v = expr_binary(e, level + 1);
	while ((op = expr_op(e, level))) {
		e->p += strlen(op);
		r = expr_binary(e, level + 1);
		switch (*op) {
		case '|': v |= r; break;
		case '&': v &= r; break;
		case '+': v += r; break;
		case '-': v -= r; break;
		default:
			if (r >= 64)
				e->err = -EBADMSG;
			else
				v = *op == '<' ? v << r : v >> r;
		}
	}
	return v;
}

/* { 0x0001, "S" } entries of the __print_flags table. */
static int parse_letters(const char *table, struct tracefs_states *s)
{
	const char *p = table;

	while ((p = strchr(p, '{'))) {
		char *end;
		unsigned long long bit = strtoull(p + 1, &end, 0);
		const char *q = end;

		while (isspace((unsigned char)*q) || *q == ',')
			q++;
		if (end == p + 1 || q[0] != '"' || !q[1] || q[2] != '"' || !bit || bit > UINT32_MAX)
			return -EBADMSG;
		if (s->n == sizeof(s->letter) / sizeof(s->letter[0]))
			return -E2BIG;
		s->letter[s->n].bit = bit;
		s->letter[s->n].letter = q[1];
		s->n++;
		p = q + 3;
	}
	return s->n ? 0 : -EBADMSG;
}

/*
 * 6.x: ... : "R", REC->prev_state & (((0x00000000 | ... | 0x00000040) + 1) << 1) ? "+" : "", ...
 * 4.9: ... : "R", REC->prev_state & 2048 ? "+" : "", ...
 */
int tracefs_switch_states(const char *fmt, struct tracefs_states *s)
{
	const char *flags, *plus, *amp;
	struct expr e;

	memset(s, 0, sizeof(*s));
	flags = fmt ? strstr(fmt, "__print_flags(") : NULL;
	plus = fmt ? strstr(fmt, "? \"+\"") : NULL;
	if (!flags || !plus || parse_letters(flags, s))
		return -EBADMSG;
	for (amp = plus; amp > fmt && strncmp(amp, "REC->prev_state &", 17); amp--)
		;
	if (amp == fmt)
		return -EBADMSG;
	e = (struct expr){ .p = amp + 17 };
	s->preempt = expr_binary(&e, 0);
	skip_space(&e);
	if (e.err || e.p != plus || !s->preempt)
		return -EBADMSG;
	return 0;
}
