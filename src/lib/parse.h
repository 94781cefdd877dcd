/* Strict parsing of command-line values: "12abc" is an error, not 12. */
#ifndef QT_PARSE_H
#define QT_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Unsigned decimal integer in [min, max]. 0 or -EINVAL / -ERANGE. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*
 * Duration with a unit: ns, us, ms, s (also m, h). A bare number takes
 * default_unit_ns (1e9 for "-d SECONDS"; 0 means a unit is required).
 * Decimals are allowed ("1.5ms"). Result in nanoseconds.
 */
int parse_duration(const char *s, uint64_t default_unit_ns, uint64_t *out_ns);

/*
 * The critical path's epsilon: "auto" (-1: estimated from the wakeups) or a
 * duration with a unit, small enough to add to timestamps without overflow.
 */
int parse_epsilon(const char *s, int64_t *out_ns);

/* A fraction in [0, 1], or a percentage with '%' ("0.1", "10%"). 0 or -EINVAL. */
int parse_fraction(const char *s, double *out);

/* Size with optional K, M, G suffix (powers of 1024). */
int parse_size(const char *s, uint64_t *out);

/* Comma-separated positive integers ("1234,5678"); at most max items. */
int parse_u32_list(const char *s, uint32_t *out, size_t max, size_t *n);

/* Human-readable duration: "12.3 ms", "1.20 s", "850 ns". */
const char *fmt_duration(char *buf, size_t len, int64_t ns);
/* Human-readable count: "12.3k", "4.50M". */
const char *fmt_count(char *buf, size_t len, double v);
/* Human-readable bytes: "12.3 MB" (powers of 1000). */
const char *fmt_bytes(char *buf, size_t len, double v);

#endif
