/*
 * JSON string literals from arbitrary bytes, for the emitters that write
 * their own JSON (export_perfetto.c, report_html.c). Thread names come from
 * the kernel and may hold any byte: valid UTF-8 is kept, every other byte
 * becomes U+FFFD, so the output is always valid JSON in valid UTF-8.
 */
#ifndef QT_JSON_STR_H
#define QT_JSON_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Writes s as a quoted JSON string. With html, '<' is written as \u003c so
 * that the literal can sit inside an HTML <script> element without ending
 * it ("</script>") or opening a comment ("<!--").
 */
void json_str(FILE *f, const char *s, bool html);

/*
 * Copies JSON text that another writer made (json_writer.c passes bytes
 * through) with the same guarantees: invalid UTF-8 becomes U+FFFD, and
 * with html every '<' becomes \u003c (JSON has '<' only inside strings).
 */
void json_utf8_copy(FILE *f, const char *buf, size_t len, bool html);

#endif
