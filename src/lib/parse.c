// SPDX-License-Identifier: MIT
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#include "parse.h"

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static const struct unit {
	const char *name;
	double ns;
} duration_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
};

int parse_duration(const char *s, uint64_t default_unit_ns, uint64_t *out_ns)
{
	double v, mult = 0, ns;
	char *end;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE && v > 1)
		return -ERANGE;		/* beyond a double: certainly beyond 2^63 ns */
	if (errno || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	if (!*end) {
		if (!default_unit_ns)
			return -EINVAL;
		mult = default_unit_ns;
	} else {
		for (size_t i = 0; i < sizeof(duration_units) / sizeof(duration_units[0]); i++)
			if (!strcmp(end, duration_units[i].name))
				mult = duration_units[i].ns;
		if (!mult)
			return -EINVAL;
	}
	ns = v * mult;
	if (ns >= 9.2e18)
		return -ERANGE;
	*out_ns = (uint64_t)llround(ns);
	return 0;
}

int parse_epsilon(const char *s, int64_t *out_ns)
{
	uint64_t v;

	if (!strcmp(s, "auto")) {
		*out_ns = -1;
		return 0;
	}
	if (parse_duration(s, 0, &v) || v > INT64_MAX / 4)
		return -EINVAL;
	*out_ns = v;
	return 0;
}

int parse_fraction(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return -EINVAL;
	if (*end == '%') {
		v /= 100;
		end++;
	}
	if (*end || !(v >= 0 && v <= 1))	/* NaN too */
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	uint64_t mult = 1;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	switch (*end) {
	case 0: break;
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	default: return -EINVAL;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -EINVAL;
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*out = v * mult;
	return 0;
}

int parse_u32_list(const char *s, uint32_t *out, size_t max, size_t *n)
{
	char buf[32];
	uint64_t v;
	size_t k = 0;
	int err;

	*n = 0;
	while (*s) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		if (!len || len >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, s, len);
		buf[len] = 0;
		err = parse_u64(buf, 1, UINT32_MAX, &v);
		if (err)
			return err;
		if (k == max)
			return -E2BIG;
		out[k++] = v;
		s += len + (comma ? 1 : 0);
		if (comma && !*s)
			return -EINVAL;
	}
	*n = k;
	return k ? 0 : -EINVAL;
}

/*
 * Each unit is used while the value rounds to less than 1000 of it, so that
 * 999999 ns is "1 ms", not "1e+03 us", and 999950 is "1.00M", not "1000.0k".
 */
const char *fmt_duration(char *buf, size_t len, int64_t ns)
{
	double a = ns < 0 ? -(double)ns : (double)ns;

	/* Thresholds after rounding to 3 digits: 999,994 ns is "1 ms", not "1e+03 us". */
	if (a < 1e3)
		snprintf(buf, len, "%lld ns", (long long)ns);
	else if (a < 999.5e3)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else if (a < 999.5e6)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}

const char *fmt_count(char *buf, size_t len, double v)
{
	if (v < 999.5)
		snprintf(buf, len, "%.0f", v);
	else if (v < 999.95e3)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else if (v < 999.995e6)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else
		snprintf(buf, len, "%.2fG", v / 1e9);
	return buf;
}

const char *fmt_bytes(char *buf, size_t len, double v)
{
	if (v < 999.5)
		snprintf(buf, len, "%.0f B", v);
	else if (v < 999.95e3)
		snprintf(buf, len, "%.1f kB", v / 1e3);
	else if (v < 999.95e6)
		snprintf(buf, len, "%.1f MB", v / 1e6);
	else
		snprintf(buf, len, "%.2f GB", v / 1e9);
	return buf;
}
