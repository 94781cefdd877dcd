// SPDX-License-Identifier: MIT
/* The text of what cut a miner's search (miner.h: miner_bounds_describe). */
#include <stdarg.h>
#include <stdio.h>

#include "miner.h"

static void put(char *buf, size_t size, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	if (*n < size)
		w = vsnprintf(buf + *n, size - *n, fmt, ap);
	else
		w = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (w > 0)
		*n += (size_t)w;
}

int miner_bounds_describe(unsigned bounds, const struct miner_opts *o, char *buf, size_t size)
{
	struct miner_opts def;
	const char *sep = "search truncated at ";
	size_t n = 0;

	if (!o) {
		miner_opts_default(&def);
		o = &def;
	}
	if (size)
		buf[0] = '\0';
	if (bounds & MINER_BOUND_MAX_LEN) {
		put(buf, size, &n, "%smax pattern length %u", sep, o->max_len);
		sep = ", ";
	}
	if (bounds & MINER_BOUND_NODES) {
		put(buf, size, &n, "%snode budget %llu", sep, (unsigned long long)o->max_nodes);
		sep = ", ";
	}
	if (bounds & MINER_BOUND_TIME) {
		put(buf, size, &n, "%stime budget %.3f s", sep, (double)o->time_budget_ns / 1e9);
		sep = ", ";
	}
	if (bounds & MINER_BOUND_PATTERNS) {
		put(buf, size, &n, "%s%u patterns", sep, o->max_patterns);
		sep = ", ";
	}
	if (bounds & MINER_BOUND_SEQ_LEN)
		put(buf, size, &n, "%ssequence length %u (longer subtraces cut)", sep,
		    o->max_seq_len);
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

int miner_result__describe_bounds(const struct miner_result *r, char *buf, size_t size)
{
	size_t n;

	n = (size_t)miner_bounds_describe(r->bounds, &r->opts, buf, size);
	if (r->bounds & (MINER_BOUND_NODES | MINER_BOUND_TIME | MINER_BOUND_PATTERNS))
		put(buf, size, &n, "; complete for patterns up to length %u", r->complete_len);
	return n > INT32_MAX ? INT32_MAX : (int)n;
}
