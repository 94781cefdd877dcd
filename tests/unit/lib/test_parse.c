// SPDX-License-Identifier: MIT
/* Strict parsing of command-line values, and the human-readable formats. */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "lib/parse.h"
#include "testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

Test(parse, u64)
{
	uint64_t v = 7;

	cr_expect_eq(parse_u64("0", 0, 10, &v), 0);
	cr_expect_eq(v, 0);
	cr_expect_eq(parse_u64("10", 0, 10, &v), 0);
	cr_expect_eq(v, 10);
	cr_expect_eq(parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	cr_expect_eq(v, UINT64_MAX);
	cr_expect_eq(parse_u64("007", 0, 10, &v), 0);
	cr_expect_eq(v, 7);
	v = 99;
	cr_expect_eq(parse_u64("11", 0, 10, &v), -ERANGE);
	cr_expect_eq(parse_u64("0", 1, 10, &v), -ERANGE);
	cr_expect_eq(parse_u64("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
	cr_expect_eq(parse_u64("99999999999999999999999", 0, UINT64_MAX, &v), -ERANGE);
	cr_expect_eq(v, 99, "untouched on error");
	cr_expect_eq(parse_u64("12abc", 0, 100, &v), -EINVAL);
	cr_expect_eq(parse_u64("", 0, 100, &v), -EINVAL);
	cr_expect_eq(parse_u64("-1", 0, UINT64_MAX, &v), -EINVAL);
	cr_expect_eq(parse_u64("+1", 0, 100, &v), -EINVAL);
	cr_expect_eq(parse_u64(" 1", 0, 100, &v), -EINVAL);
	cr_expect_eq(parse_u64("1 ", 0, 100, &v), -EINVAL);
	cr_expect_eq(parse_u64("0x10", 0, 100, &v), -EINVAL);
	cr_expect_eq(parse_u64("1.5", 0, 100, &v), -EINVAL);
	cr_expect_eq(parse_u64(NULL, 0, 100, &v), -EINVAL);
	cr_expect_eq(v, 99);
}

Test(parse, duration_units)
{
	static const struct { const char *s; uint64_t unit, want; } ok[] = {
		{ "0", 1000000000, 0 },
		{ "5ns", 0, 5 },
		{ "5us", 0, 5000 },
		{ "5ms", 0, 5000000 },
		{ "5s", 0, 5000000000ull },
		{ "5m", 0, 300000000000ull },
		{ "2h", 0, 7200000000000ull },
		{ "1.5ms", 0, 1500000 },
		{ "0.5s", 0, 500000000 },
		{ ".25s", 0, 250000000 },
		{ "2.", 1000, 2000 },
		{ "1.000000001s", 0, 1000000001 },
		{ "0.1us", 0, 100 },
		{ "1.5ns", 0, 2 },		/* rounded to the nanosecond */
		{ "0.4ns", 0, 0 },
		{ "10", 1000000000, 10000000000ull },	/* "-d 10": seconds */
		{ "10", 1000000, 10000000 },
		{ "2.5", 1000000000, 2500000000ull },
		{ "16.667ms", 0, 16667000 },
		{ "9000000000s", 0, 9000000000000000000ull },
	};
	static const struct { const char *s; uint64_t unit; int err; } bad[] = {
		{ "", 1000000000, -EINVAL },
		{ "12abc", 1000000000, -EINVAL },
		{ "12 ms", 0, -EINVAL },
		{ "12MS", 0, -EINVAL },
		{ "12msx", 0, -EINVAL },
		{ "ms", 0, -EINVAL },
		{ ".", 1, -EINVAL },
		{ "-1", 1000000000, -EINVAL },
		{ "-1ms", 0, -EINVAL },
		{ "+1ms", 0, -EINVAL },
		{ " 1ms", 0, -EINVAL },
		{ "10", 0, -EINVAL },		/* a unit is required */
		{ "nan", 1, -EINVAL },
		{ "inf", 1, -EINVAL },
		{ "1e400", 1, -ERANGE },	/* overflows a double */
		{ "9300000000s", 0, -ERANGE },	/* overflows int64 nanoseconds */
		{ "200000000000000000000ns", 0, -ERANGE },
		{ "9999999h", 0, -ERANGE },
	};
	uint64_t v;

	for (size_t i = 0; i < N(ok); i++) {
		v = 12345;
		cr_expect_eq(parse_duration(ok[i].s, ok[i].unit, &v), 0, "\"%s\" refused", ok[i].s);
		cr_expect_eq(v, ok[i].want, "\"%s\": %llu, want %llu", ok[i].s, (unsigned long long)v,
			     (unsigned long long)ok[i].want);
	}
	for (size_t i = 0; i < N(bad); i++) {
		v = 12345;
		cr_expect_eq(parse_duration(bad[i].s, bad[i].unit, &v), bad[i].err, "\"%s\": %d, want %d",
			     bad[i].s, parse_duration(bad[i].s, bad[i].unit, &v), bad[i].err);
		cr_expect_eq(v, 12345, "\"%s\" wrote a value", bad[i].s);
	}
	cr_expect_eq(parse_duration(NULL, 1, &v), -EINVAL);
}

Test(parse, epsilon)
{
	int64_t v = 7;

	cr_expect_eq(parse_epsilon("auto", &v), 0);
	cr_expect_eq(v, -1);
	cr_expect_eq(parse_epsilon("50us", &v), 0);
	cr_expect_eq(v, 50000);
	cr_expect_eq(parse_epsilon("0ns", &v), 0);
	cr_expect_eq(v, 0);
	v = 7;
	cr_expect_neq(parse_epsilon("50", &v), 0, "a unit is required");
	cr_expect_neq(parse_epsilon("Auto", &v), 0);
	cr_expect_neq(parse_epsilon("-1ms", &v), 0);
	cr_expect_neq(parse_epsilon("1000000h", &v), 0, "beyond INT64_MAX / 4 ns");
	cr_expect_eq(v, 7, "unchanged on error");
}

Test(parse, size)
{
	static const struct { const char *s; uint64_t want; } ok[] = {
		{ "0", 0 }, { "4096", 4096 }, { "1k", 1024 }, { "1K", 1024 }, { "1KB", 1024 }, { "1kb", 1024 },
		{ "64M", 64ull << 20 }, { "64MB", 64ull << 20 }, { "2G", 2ull << 30 }, { "2gB", 2ull << 30 },
		{ "18446744073709551615", UINT64_MAX }, { "17179869183G", 17179869183ull << 30 },
	};
	static const struct { const char *s; int err; } bad[] = {
		{ "", -EINVAL }, { "12abc", -EINVAL }, { "-1", -EINVAL }, { "1T", -EINVAL }, { "1KK", -EINVAL },
		{ "1 K", -EINVAL }, { "K", -EINVAL }, { "1.5M", -EINVAL }, { "1KBs", -EINVAL },
		{ "18446744073709551616", -ERANGE }, { "17179869184G", -ERANGE }, { "18014398509481984K", -ERANGE },
	};
	uint64_t v;

	for (size_t i = 0; i < N(ok); i++) {
		v = 1;
		cr_expect_eq(parse_size(ok[i].s, &v), 0, "\"%s\" refused", ok[i].s);
		cr_expect_eq(v, ok[i].want, "\"%s\": %llu", ok[i].s, (unsigned long long)v);
	}
	for (size_t i = 0; i < N(bad); i++) {
		v = 1;
		cr_expect_eq(parse_size(bad[i].s, &v), bad[i].err, "\"%s\"", bad[i].s);
		cr_expect_eq(v, 1);
	}
	cr_expect_eq(parse_size(NULL, &v), -EINVAL);
}

Test(parse, fraction)
{
	static const struct { const char *s; double want; } ok[] = {
		{ "0", 0 }, { "0.1", 0.1 }, { "1", 1 }, { "10%", 0.1 }, { "100%", 1 }, { "0%", 0 }, { "2.5%", 0.025 },
	};
	static const char *const bad[] = { "", "%", "1.01", "101%", "-0.1", "-1%", "ten", "0.1x", "10%%", "0.1 " };
	double v;

	for (size_t i = 0; i < N(ok); i++) {
		v = -1;
		cr_assert_eq(parse_fraction(ok[i].s, &v), 0, "'%s'", ok[i].s);
		cr_expect(fabs(v - ok[i].want) < 1e-12, "'%s': %g", ok[i].s, v);
	}
	for (size_t i = 0; i < N(bad); i++) {
		v = 0.5;
		cr_expect_eq(parse_fraction(bad[i], &v), -EINVAL, "'%s'", bad[i]);
		cr_expect_eq(v, 0.5, "'%s' wrote its output", bad[i]);
	}
}

Test(parse, u32_list)
{
	uint32_t out[4];
	size_t n = 99;

	cr_expect_eq(parse_u32_list("1234", out, 4, &n), 0);
	cr_expect(n == 1 && out[0] == 1234);
	cr_expect_eq(parse_u32_list("1,2,4294967295,7", out, 4, &n), 0);
	cr_expect(n == 4 && out[0] == 1 && out[1] == 2 && out[2] == UINT32_MAX && out[3] == 7);
	cr_expect_eq(parse_u32_list("1,2,3,4,5", out, 4, &n), -E2BIG);
	cr_expect_eq(n, 0);
	cr_expect_eq(parse_u32_list("", out, 4, &n), -EINVAL);
	cr_expect_eq(parse_u32_list(",1", out, 4, &n), -EINVAL);
	cr_expect_eq(parse_u32_list("1,", out, 4, &n), -EINVAL);
	cr_expect_eq(parse_u32_list("1,,2", out, 4, &n), -EINVAL);
	cr_expect_eq(parse_u32_list("1, 2", out, 4, &n), -EINVAL);
	cr_expect_eq(parse_u32_list("12abc", out, 4, &n), -EINVAL);
	cr_expect_eq(parse_u32_list("0", out, 4, &n), -ERANGE, "positive only");
	cr_expect_eq(parse_u32_list("4294967296", out, 4, &n), -ERANGE);
	cr_expect_eq(parse_u32_list("-5", out, 4, &n), -EINVAL);
	cr_expect_eq(parse_u32_list("123456789012345678901234567890123", out, 4, &n), -EINVAL);
	cr_expect_eq(n, 0);
	cr_expect_eq(parse_u32_list("9", out, 0, &n), -E2BIG);
}

Test(parse, fmt_duration)
{
	static const struct { int64_t ns; const char *want; } cases[] = {
		{ 0, "0 ns" }, { 850, "850 ns" }, { 999, "999 ns" }, { 1000, "1 us" }, { 1500, "1.5 us" },
		{ 12345, "12.3 us" }, { 999499, "999 us" }, { 999500, "1 ms" }, { 999999, "1 ms" },
		{ 1000000, "1 ms" }, { 12300000, "12.3 ms" }, { 999499999, "999 ms" }, { 999999999, "1.000 s" },
		{ 1200000000, "1.200 s" }, { 3600000000000ll, "3600.000 s" }, { -850, "-850 ns" },
		{ -1500, "-1.5 us" }, { -999999, "-1 ms" }, { INT64_MIN, "-9223372036.855 s" },
	};
	char buf[32];

	for (size_t i = 0; i < N(cases); i++)
		cr_expect_str_eq(fmt_duration(buf, sizeof(buf), cases[i].ns), cases[i].want, "%lld ns",
				 (long long)cases[i].ns);
	cr_expect_str_eq(fmt_duration(buf, 4, 12345), "12.", "cut to the buffer");
}

Test(parse, fmt_count_and_bytes)
{
	static const struct { double v; const char *want; } counts[] = {
		{ 0, "0" }, { 999, "999" }, { 999.4, "999" }, { 999.5, "1.0k" }, { 1000, "1.0k" },
		{ 12345, "12.3k" }, { 999949, "999.9k" }, { 999950, "1.00M" }, { 4500000, "4.50M" },
		{ 999994999, "999.99M" }, { 999995000, "1.00G" }, { 2.5e12, "2500.00G" },
	};
	static const struct { double v; const char *want; } bytes[] = {
		{ 0, "0 B" }, { 999, "999 B" }, { 999.5, "1.0 kB" }, { 1000, "1.0 kB" }, { 12345, "12.3 kB" },
		{ 999949, "999.9 kB" }, { 999950, "1.0 MB" }, { 12.3e6, "12.3 MB" }, { 999.95e6, "1.00 GB" },
		{ 4.5e9, "4.50 GB" },
	};
	char buf[32];

	for (size_t i = 0; i < N(counts); i++)
		cr_expect_str_eq(fmt_count(buf, sizeof(buf), counts[i].v), counts[i].want, "%g", counts[i].v);
	for (size_t i = 0; i < N(bytes); i++)
		cr_expect_str_eq(fmt_bytes(buf, sizeof(buf), bytes[i].v), bytes[i].want, "%g", bytes[i].v);
}
