// SPDX-License-Identifier: MIT
/*
 * The JSON writer: nesting and commas, compact and pretty, escaping of
 * quotes, backslashes and control characters, names that are not UTF-8,
 * numbers at their limits, non-finite floats as null, containers closed by
 * jsonw_destroy, indentation to the deepest level, string literals
 * against a byte-at-a-time reference on random bytes, and one document
 * checked by Python's json module.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>

#include "lib/json_str.h"
#include "lib/json_writer.h"
#include "testutil.h"

/* Runs fn on a writer over a memory buffer and returns what it wrote. */
static char *render(void (*fn)(json_writer_t *), bool pretty)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_writer_t *w;

	cr_assert(f);
	w = jsonw_new(f, pretty);
	cr_assert(w);
	fn(w);
	jsonw_destroy(&w);
	cr_assert_null(w);
	fclose(f);
	return buf;
}

static void expect_render(void (*fn)(json_writer_t *), bool pretty, const char *want)
{
	char *got = render(fn, pretty);

	cr_expect_str_eq(got, want);
	free(got);
}

static void doc_nested(json_writer_t *w)
{
	jsonw_start_object(w);
	jsonw_string_field(w, "name", "qostrace");
	jsonw_u64_field(w, "n", 3);
	jsonw_name(w, "list");
	jsonw_start_array(w);
	jsonw_u64(w, 1);
	jsonw_start_object(w);
	jsonw_end_object(w);
	jsonw_start_array(w);
	jsonw_end_array(w);
	jsonw_start_array(w);
	jsonw_i64(w, -2);
	jsonw_bool(w, true);
	jsonw_null(w);
	jsonw_end_array(w);
	jsonw_end_array(w);
	jsonw_name(w, "obj");
	jsonw_start_object(w);
	jsonw_bool_field(w, "ok", false);
	jsonw_null_field(w, "none");
	jsonw_i64_field(w, "neg", -5);
	jsonw_float_field(w, "f", 0.25);
	jsonw_end_object(w);
	jsonw_end_object(w);
}

Test(json_writer, nesting_and_commas)
{
	expect_render(doc_nested, false,
		      "{\"name\":\"qostrace\",\"n\":3,\"list\":[1,{},[],[-2,true,null]],"
		      "\"obj\":{\"ok\":false,\"none\":null,\"neg\":-5,\"f\":0.25}}\n");
}

Test(json_writer, pretty)
{
	expect_render(doc_nested, true,
		      "{\n"
		      "  \"name\": \"qostrace\",\n"
		      "  \"n\": 3,\n"
		      "  \"list\": [\n"
		      "    1,\n"
		      "    {},\n"
		      "    [],\n"
		      "    [\n"
		      "      -2,\n"
		      "      true,\n"
		      "      null\n"
		      "    ]\n"
		      "  ],\n"
		      "  \"obj\": {\n"
		      "    \"ok\": false,\n"
		      "    \"none\": null,\n"
		      "    \"neg\": -5,\n"
		      "    \"f\": 0.25\n"
		      "  }\n"
		      "}\n");
}

static void doc_escapes(json_writer_t *w)
{
	jsonw_start_array(w);
	jsonw_string(w, "say \"hi\"");
	jsonw_string(w, "C:\\path\\");
	jsonw_string(w, "a\nb\rc\td");
	jsonw_string(w, "\x01\x02\x1f\x7f/");
	jsonw_string(w, "");
	jsonw_string(w, NULL);
	jsonw_string(w, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");	/* é € 😀: kept as they are */
	jsonw_end_array(w);
}

Test(json_writer, escaping)
{
	expect_render(doc_escapes, false,
		      "[\"say \\\"hi\\\"\",\"C:\\\\path\\\\\",\"a\\nb\\rc\\td\",\"\\u0001\\u0002\\u001f\x7f/\","
		      "\"\",\"\","
		      "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"]\n");
}

static void doc_bad_utf8(json_writer_t *w)
{
	jsonw_start_object(w);
	jsonw_string_field(w, "ff", "a\xff" "b");
	jsonw_string_field(w, "overlong", "\xc0\x80");
	jsonw_string_field(w, "lone continuation", "\x80x");
	jsonw_string_field(w, "cut at the end", "x\xe2\x82");
	jsonw_string_field(w, "surrogate", "\xed\xa0\x80");
	jsonw_string_field(w, "beyond U+10FFFF", "\xf4\x90\x80\x80");
	jsonw_string_field(w, "overlong 3", "\xe0\x80\xaf");
	jsonw_string_field(w, "\xfe", "name");
	jsonw_end_object(w);
}

/* Thread names are bytes; JSON is UTF-8. */
Test(json_writer, invalid_utf8_replaced)
{
	expect_render(doc_bad_utf8, false,
		      "{\"ff\":\"a\xef\xbf\xbd" "b\",\"overlong\":\"\xef\xbf\xbd\xef\xbf\xbd\","
		      "\"lone continuation\":\"\xef\xbf\xbdx\",\"cut at the end\":\"x\xef\xbf\xbd\xef\xbf\xbd\","
		      "\"surrogate\":\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\",\"beyond U+10FFFF\":\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\","
		      "\"overlong 3\":\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\",\"\xef\xbf\xbd\":\"name\"}\n");
}

static void doc_numbers(json_writer_t *w)
{
	jsonw_start_array(w);
	jsonw_u64(w, UINT64_MAX);
	jsonw_i64(w, INT64_MIN);
	jsonw_i64(w, INT64_MAX);
	jsonw_u64(w, 0);
	jsonw_float(w, NAN);
	jsonw_float(w, INFINITY);
	jsonw_float(w, -INFINITY);
	jsonw_float(w, 1e300);
	jsonw_float(w, -0.0);
	jsonw_float(w, 1.0 / 3);
	jsonw_float(w, 16.667e-3);
	jsonw_end_array(w);
}

Test(json_writer, numbers)
{
	expect_render(doc_numbers, false,
		      "[18446744073709551615,-9223372036854775808,9223372036854775807,0,null,null,null,"
		      "1e+300,-0,0.333333333,0.016667]\n");
}

static void doc_unclosed(json_writer_t *w)
{
	jsonw_start_object(w);
	jsonw_name(w, "a");
	jsonw_start_array(w);
	jsonw_start_object(w);
	jsonw_u64_field(w, "x", 1);
	jsonw_name(w, "dangling");
}

/* Nesting to the cap (63 levels): each line indented by two spaces a level. */
static void doc_deep(json_writer_t *w)
{
	for (int i = 0; i < 63; i++)
		jsonw_start_array(w);
	jsonw_u64(w, 7);
}

Test(json_writer, pretty_indents_to_the_deepest_level)
{
	char *got = render(doc_deep, true), *want = malloc(20000), *p = want;

	cr_assert(want);
	for (int d = 0; d < 63; d++)
		p += sprintf(p, "%s%*s[", d ? "\n" : "", 2 * d, "");
	p += sprintf(p, "\n%*s7", 2 * 63, "");
	for (int d = 62; d >= 0; d--)
		p += sprintf(p, "\n%*s]", 2 * d, "");
	sprintf(p, "\n");
	cr_expect_str_eq(got, want);
	free(got);
	free(want);
}

/* The literal of ASCII bytes as json_str wrote it a byte at a time, before runs of plain bytes went at once. */
static void reference_str(FILE *f, const unsigned char *p, bool html)
{
	fputc('"', f);
	for (; *p; p++) {
		char tmp[2] = { (char)*p, 0 };

		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '<': fputs(html ? "\\u003c" : "<", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputs(tmp, f);
		}
	}
	fputc('"', f);
}

/* Random ASCII strings (controls, quotes, backslashes, '<' often): the same bytes as the reference. */
Test(json_writer, string_runs_match_a_byte_at_a_time_reference)
{
	static const char often[] = "\"\\<\n\t\x01\x1f\x7f";
	unsigned long long seed = 11;

	for (int round = 0; round < 2000; round++) {
		unsigned char s[64];
		size_t n = tu_rand(&seed) % (sizeof(s) - 1);
		bool html = round & 1;
		char *a = NULL, *b = NULL;
		size_t la = 0, lb = 0;
		FILE *fa = open_memstream(&a, &la), *fb = open_memstream(&b, &lb);

		cr_assert(fa && fb);
		for (size_t i = 0; i < n; i++) {
			unsigned long long r = tu_rand(&seed);

			s[i] = r % 4 ? 0x20 + r / 4 % 0x5f : (unsigned char)often[r / 4 % (sizeof(often) - 1)];
		}
		s[n] = 0;
		json_str(fa, (const char *)s, html);
		reference_str(fb, s, html);
		fclose(fa);
		fclose(fb);
		cr_assert_str_eq(a, b, "round %d (html %d)", round, html);
		free(a);
		free(b);
	}
}

Test(json_writer, destroy_closes_open_containers)
{
	expect_render(doc_unclosed, false, "{\"a\":[{\"x\":1,\"dangling\":null}]}\n");
}

static void doc_empty(json_writer_t *w)
{
	(void)w;
}

static void doc_top_level_scalar(json_writer_t *w)
{
	jsonw_string(w, "just this");
}

Test(json_writer, trivial_documents)
{
	expect_render(doc_empty, false, "\n");
	expect_render(doc_top_level_scalar, true, "\"just this\"\n");
	{
		json_writer_t *none = NULL;

		jsonw_destroy(&none);	/* accepted, like free(NULL) */
	}
}

static void doc_everything(json_writer_t *w)
{
	char name[32];

	jsonw_start_object(w);
	jsonw_name(w, "nested");
	doc_nested(w);
	jsonw_name(w, "escapes");
	doc_escapes(w);
	jsonw_name(w, "bad");
	doc_bad_utf8(w);
	jsonw_name(w, "numbers");
	doc_numbers(w);
	jsonw_name(w, "all bytes");
	{
		char s[256];

		for (int i = 1; i < 256; i++)
			s[i - 1] = (char)i;
		s[255] = 0;
		jsonw_string(w, s);
	}
	jsonw_name(w, "deep");
	for (int i = 0; i < 30; i++)
		jsonw_start_array(w);
	for (int i = 0; i < 30; i++)
		jsonw_end_array(w);
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "k%d", i);
		jsonw_float_field(w, name, i * 0.1);
	}
	jsonw_end_object(w);
}

/* Python's json module reads what we write, and gets back the same values. */
Test(json_writer, python_reads_it)
{
	static const char check[] =
		"import json, sys\n"
		"d = json.load(sys.stdin)\n"
		"assert d['nested']['list'] == [1, {}, [], [-2, True, None]], d['nested']\n"
		"assert d['escapes'][0] == 'say \"hi\"'\n"
		"assert d['escapes'][1] == 'C:\\\\path\\\\'\n"
		"assert d['escapes'][2] == 'a\\nb\\rc\\td'\n"
		"assert d['escapes'][3] == '\\x01\\x02\\x1f\\x7f/'\n"
		"assert d['escapes'][6] == 'caf\\u00e9 \\u20ac \\U0001F600'\n"
		"assert d['bad']['ff'] == 'a\\ufffdb'\n"
		"assert d['numbers'][:4] == [2**64 - 1, -2**63, 2**63 - 1, 0]\n"
		"assert d['numbers'][4:7] == [None, None, None]\n"
		"assert len(d['all bytes']) == 127 + 128\n"
		"assert d['k199'] == 19.9\n";
	char cmd[1200];
	FILE *f;
	json_writer_t *w;
	int status;

	if (system("command -v python3 >/dev/null 2>&1") != 0)
		cr_skip_test("python3 is not installed: the JSON output is not checked by a parser");
	snprintf(cmd, sizeof(cmd), "python3 -c \"$QT_JSON_CHECK\"");
	setenv("QT_JSON_CHECK", check, 1);
	for (int pretty = 0; pretty < 2; pretty++) {
		f = popen(cmd, "w");
		cr_assert(f);
		w = jsonw_new(f, pretty);
		doc_everything(w);
		jsonw_destroy(&w);
		status = pclose(f);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			  "python3 rejected the %s document (status 0x%x)", pretty ? "pretty" : "compact", status);
	}
}
