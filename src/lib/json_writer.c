// SPDX-License-Identifier: MIT
#include <math.h>
#include <stdlib.h>

#include "json_str.h"
#include "json_writer.h"

/*
 * A report is written by one thread, and a large one is hundreds of MB of
 * small pieces: the _unlocked stdio calls skip a lock per piece, which was
 * a fifth of the time of a report --json on a context-switch storm.
 */
#define MAX_DEPTH 64

struct json_writer {
	FILE *f;
	int depth;
	bool pretty;
	bool first[MAX_DEPTH];	/* no element written yet at this depth */
	char closer[MAX_DEPTH];	/* '}' or ']' for the container open at this depth */
	bool after_name;
};

json_writer_t *jsonw_new(FILE *f, bool pretty)
{
	json_writer_t *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->f = f;
	w->pretty = pretty;
	w->first[0] = true;
	return w;
}

/* A new line and two spaces a level, in one write: per level, it was a twelfth of a storm's report --json. */
static void indent(json_writer_t *w)
{
	static const char spaces[1 + 2 * MAX_DEPTH] = "\n                                                                "
						       "                                                                ";

	if (!w->pretty)
		return;
	fwrite_unlocked(spaces, 1, 1 + 2 * (size_t)w->depth, w->f);
}

/* Separator before a value or a name. */
static void sep(json_writer_t *w)
{
	if (w->after_name) {
		w->after_name = false;
		return;
	}
	if (!w->first[w->depth])
		fputc_unlocked(',', w->f);
	w->first[w->depth] = false;
	if (w->depth)
		indent(w);
}

static void open_c(json_writer_t *w, char c)
{
	sep(w);
	fputc_unlocked(c, w->f);
	if (w->depth < MAX_DEPTH - 1)
		w->depth++;
	w->first[w->depth] = true;
	w->closer[w->depth] = c == '{' ? '}' : ']';
}

static void close_c(json_writer_t *w, char c)
{
	bool empty = w->first[w->depth];

	if (w->depth > 0)
		w->depth--;
	if (!empty)
		indent(w);
	fputc_unlocked(c, w->f);
}

void jsonw_destroy(json_writer_t **wp)
{
	json_writer_t *w = *wp;

	if (!w)
		return;
	if (w->after_name)
		jsonw_null(w);	/* a name without its value */
	while (w->depth > 0)
		close_c(w, w->closer[w->depth]);
	fputc_unlocked('\n', w->f);
	fflush(w->f);
	free(w);
	*wp = NULL;
}

void jsonw_start_object(json_writer_t *w) { open_c(w, '{'); }
void jsonw_end_object(json_writer_t *w) { close_c(w, '}'); }
void jsonw_start_array(json_writer_t *w) { open_c(w, '['); }
void jsonw_end_array(json_writer_t *w) { close_c(w, ']'); }

/* Thread names hold any byte: json_str() keeps the output valid UTF-8. */
static void put_escaped(FILE *f, const char *s)
{
	json_str(f, s, false);
}

void jsonw_name(json_writer_t *w, const char *name)
{
	sep(w);
	put_escaped(w->f, name ? name : "");
	fputs_unlocked(w->pretty ? ": " : ":", w->f);
	w->after_name = true;
}

void jsonw_string(json_writer_t *w, const char *s)
{
	sep(w);
	put_escaped(w->f, s ? s : "");
}

/* Digits of v, without printf's format parsing: most values are integers. */
static void put_u64(FILE *f, uint64_t v, bool neg)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	if (neg)
		*--p = '-';
	fwrite_unlocked(p, 1, buf + sizeof(buf) - p, f);
}

void jsonw_u64(json_writer_t *w, uint64_t v)
{
	sep(w);
	put_u64(w->f, v, false);
}

void jsonw_i64(json_writer_t *w, int64_t v)
{
	sep(w);
	/* the magnitude in unsigned arithmetic: INT64_MIN has no positive twin */
	put_u64(w->f, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
}

void jsonw_float(json_writer_t *w, double v)
{
	sep(w);
	if (isfinite(v))
		fprintf(w->f, "%.9g", v);
	else
		fputs_unlocked("null", w->f);
}

void jsonw_bool(json_writer_t *w, bool v)
{
	sep(w);
	fputs_unlocked(v ? "true" : "false", w->f);
}

void jsonw_null(json_writer_t *w)
{
	sep(w);
	fputs_unlocked("null", w->f);
}

void jsonw_string_field(json_writer_t *w, const char *n, const char *s) { jsonw_name(w, n); jsonw_string(w, s); }
void jsonw_u64_field(json_writer_t *w, const char *n, uint64_t v) { jsonw_name(w, n); jsonw_u64(w, v); }
void jsonw_i64_field(json_writer_t *w, const char *n, int64_t v) { jsonw_name(w, n); jsonw_i64(w, v); }
void jsonw_float_field(json_writer_t *w, const char *n, double v) { jsonw_name(w, n); jsonw_float(w, v); }
void jsonw_bool_field(json_writer_t *w, const char *n, bool v) { jsonw_name(w, n); jsonw_bool(w, v); }
void jsonw_null_field(json_writer_t *w, const char *n) { jsonw_name(w, n); jsonw_null(w); }
