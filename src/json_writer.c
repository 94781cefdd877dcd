// SPDX-License-Identifier: MIT
#include <math.h>
#include <stdlib.h>

#include "json_str.h"
#include "json_writer.h"

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

static void indent(json_writer_t *w)
{
	if (!w->pretty)
		return;
	fputc('\n', w->f);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

/* Separator before a value or a name. */
static void sep(json_writer_t *w)
{
	if (w->after_name) {
		w->after_name = false;
		return;
	}
	if (!w->first[w->depth])
		fputc(',', w->f);
	w->first[w->depth] = false;
	if (w->depth)
		indent(w);
}

static void open_c(json_writer_t *w, char c)
{
	sep(w);
	fputc(c, w->f);
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
	fputc(c, w->f);
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
	fputc('\n', w->f);
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
	fputs(w->pretty ? ": " : ":", w->f);
	w->after_name = true;
}

void jsonw_string(json_writer_t *w, const char *s)
{
	sep(w);
	put_escaped(w->f, s ? s : "");
}

void jsonw_u64(json_writer_t *w, uint64_t v)
{
	sep(w);
	fprintf(w->f, "%llu", (unsigned long long)v);
}

void jsonw_i64(json_writer_t *w, int64_t v)
{
	sep(w);
	fprintf(w->f, "%lld", (long long)v);
}

void jsonw_float(json_writer_t *w, double v)
{
	sep(w);
	if (isfinite(v))
		fprintf(w->f, "%.9g", v);
	else
		fputs("null", w->f);
}

void jsonw_bool(json_writer_t *w, bool v)
{
	sep(w);
	fputs(v ? "true" : "false", w->f);
}

void jsonw_null(json_writer_t *w)
{
	sep(w);
	fputs("null", w->f);
}

void jsonw_string_field(json_writer_t *w, const char *n, const char *s) { jsonw_name(w, n); jsonw_string(w, s); }
void jsonw_u64_field(json_writer_t *w, const char *n, uint64_t v) { jsonw_name(w, n); jsonw_u64(w, v); }
void jsonw_i64_field(json_writer_t *w, const char *n, int64_t v) { jsonw_name(w, n); jsonw_i64(w, v); }
void jsonw_float_field(json_writer_t *w, const char *n, double v) { jsonw_name(w, n); jsonw_float(w, v); }
void jsonw_bool_field(json_writer_t *w, const char *n, bool v) { jsonw_name(w, n); jsonw_bool(w, v); }
void jsonw_null_field(json_writer_t *w, const char *n) { jsonw_name(w, n); jsonw_null(w); }
