/*
 * A small streaming JSON writer (after bpftool's json_writer): it tracks
 * nesting and commas so that printers read like the data they emit.
 */
#ifndef QT_JSON_WRITER_H
#define QT_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct json_writer json_writer_t;

/*
 * Strings are escaped as JSON requires; bytes that are not UTF-8 become
 * U+FFFD. Nesting deeper than 63 levels is not supported.
 */
json_writer_t *jsonw_new(FILE *f, bool pretty);
/* Closes open containers, writes a final newline, frees. */
void jsonw_destroy(json_writer_t **w);

void jsonw_start_object(json_writer_t *w);
void jsonw_end_object(json_writer_t *w);
void jsonw_start_array(json_writer_t *w);
void jsonw_end_array(json_writer_t *w);
void jsonw_name(json_writer_t *w, const char *name);

void jsonw_string(json_writer_t *w, const char *s);
void jsonw_u64(json_writer_t *w, uint64_t v);
void jsonw_i64(json_writer_t *w, int64_t v);
void jsonw_float(json_writer_t *w, double v);	/* non-finite as null */
void jsonw_bool(json_writer_t *w, bool v);
void jsonw_null(json_writer_t *w);

/* name + value in one call */
void jsonw_string_field(json_writer_t *w, const char *name, const char *s);
void jsonw_u64_field(json_writer_t *w, const char *name, uint64_t v);
void jsonw_i64_field(json_writer_t *w, const char *name, int64_t v);
void jsonw_float_field(json_writer_t *w, const char *name, double v);
void jsonw_bool_field(json_writer_t *w, const char *name, bool v);
void jsonw_null_field(json_writer_t *w, const char *name);

#endif
