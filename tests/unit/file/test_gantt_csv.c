// SPDX-License-Identifier: MIT
/* Gantt-chart CSV reader: accepted forms, every error with file:line, and the tasks in lane order. */
#include <errno.h>

#include "file/gantt_csv.h"
#include "testutil.h"

#define HDR "task,actor,start_ns,end_ns\n"

static char *dir;
static char path[512];
static char err[256];

static void setup(void)
{
	dir = tu_tmpdir();
	snprintf(path, sizeof(path), "%s/g.csv", dir);
}

static void teardown(void)
{
	tu_rmdir(dir);
	free(dir);
}

TestSuite(gantt_csv, .init = setup, .fini = teardown);

static void write_file(const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert(f);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	fclose(f);
}

static int read_text(const char *text, const struct gantt_opts *o, struct gantt **g)
{
	write_file(text, strlen(text));
	return gantt__read(path, o, g, err, sizeof(err));
}

/* The error text after the file name. */
static const char *why(void)
{
	size_t k = strlen(path);

	cr_assert(!strncmp(err, path, k), "message '%s' does not start with the file", err);
	return err + k;
}

static void expect_error(const char *text, const char *msg)
{
	struct gantt *g = (void *)1;

	cr_assert_eq(read_text(text, NULL, &g), -EINVAL, "accepted: %s", text);
	cr_assert_null(g);
	cr_assert_str_eq(why(), msg);
}

Test(gantt_csv, tv62_chart)
{
	struct gantt *g;

	cr_assert_eq(read_text("task,actor,start_ns,end_ns\n"
			       "A,r1,0,1\nB,r1,1,3\nC,r2,1,6\nD,r1,3,4\nF,r2,3,4\nE,r1,6,8\n",
			       NULL, &g), 0, "%s", err);
	cr_assert_eq(g->n, 6);
	cr_assert_eq(g->n_actors, 2);
	cr_assert_str_eq(g->actors[0], "r1");
	cr_assert_str_eq(g->actors[1], "r2");
	cr_assert_eq(g->n_names, 6);
	cr_assert_str_eq(g->names[g->name[5]], "E");
	cr_assert_eq(g->tasks[2].start_ns, 1);
	cr_assert_eq(g->tasks[2].end_ns, 6);
	cr_assert_eq(g->actor[2], 1);
	cr_assert_eq(g->line[0], 2);
	cr_assert_eq(g->line[5], 7);
	gantt__free(g);
}

/* Lane order: by actor (in order of first use), then start, then line (ties at one start). */
Test(gantt_csv, tasks_by_actor_then_start_then_line)
{
	struct gantt *g;
	uint32_t order[7];
	static const uint32_t want[7] = { 4, 0, 6, 2, 1, 5, 3 };

	cr_assert_eq(read_text(HDR "a,r1,5,6\nb,r2,3,4\nc,r1,9,10\nd,r2,7,8\ne,r1,2,3\nf,r2,3,9\ng,r1,5,7\n",
			       NULL, &g), 0, "%s", err);
	gantt__order_by_actor(g, order);
	for (size_t i = 0; i < 7; i++)
		cr_assert_eq(order[i], want[i], "position %zu: task %u, want %u", i, order[i], want[i]);
	gantt__free(g);
}

Test(gantt_csv, forgiving_forms)
{
	struct gantt *g;
	/* BOM, CRLF, columns in another order plus an extra one, blanks,
	 * quotes with commas and doubled quotes, a blank line, a repeated name,
	 * no newline at the end. */
	const char *text =
		"\xEF\xBB\xBF" "start_ns, end_ns ,actor,note,task\r\n"
		"10,20,\"cpu,0\",x,\"dec \"\"a\"\"\"\r\n"
		"\r\n"
		"  20 , 25 ,cpu1,,dec \"a\"\r\n"
		"25,25,\"\",\"\",\"\"";

	cr_assert_eq(read_text(text, NULL, &g), 0, "%s", err);
	cr_assert_eq(g->n, 3);
	cr_assert_eq(g->tasks[0].start_ns, 10);
	cr_assert_eq(g->tasks[0].end_ns, 20);
	cr_assert_eq(g->tasks[1].start_ns, 20);
	cr_assert_eq(g->tasks[1].end_ns, 25);
	cr_assert_eq(g->tasks[2].start_ns, 25);
	cr_assert_str_eq(g->actors[g->actor[0]], "cpu,0");
	cr_assert_str_eq(g->actors[g->actor[1]], "cpu1");
	cr_assert_str_eq(g->actors[g->actor[2]], "");
	/* Unquoted 'dec "a"' and quoted "dec ""a""" are the same name. */
	cr_assert_eq(g->n_names, 2);
	cr_assert_eq(g->name[0], g->name[1]);
	cr_assert_str_eq(g->names[g->name[0]], "dec \"a\"");
	cr_assert_str_eq(g->names[g->name[2]], "");
	cr_assert_eq(g->line[1], 4);
	gantt__free(g);
}

Test(gantt_csv, header_only_and_stream)
{
	struct gantt *g;
	FILE *f;

	cr_assert_eq(read_text("task,actor,start_ns,end_ns\n", NULL, &g), 0);
	cr_assert_eq(g->n, 0);
	cr_assert_eq(g->n_actors, 0);
	gantt__free(g);

	f = fmemopen((void *)HDR "t,a,1,2\n", strlen(HDR "t,a,1,2\n"), "r");
	cr_assert(f);
	cr_assert_eq(gantt__parse(f, "mem", NULL, &g, err, sizeof(err)), 0);
	cr_assert_eq(g->n, 1);
	gantt__free(g);
	fclose(f);

	f = fmemopen((void *)HDR "t,a,x,2\n", strlen(HDR "t,a,x,2\n"), "r");
	cr_assert_eq(gantt__parse(f, "mem", NULL, &g, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "mem:2: start_ns: not a decimal number: 'x'");
	fclose(f);
}

/* Many tasks with few names: interning keeps one copy per name. */
Test(gantt_csv, many_lines)
{
	enum { N = 20000 };
	FILE *f = fopen(path, "w");
	struct gantt *g;

	fprintf(f, "task,actor,start_ns,end_ns\n");
	for (int i = 0; i < N; i++)
		fprintf(f, "t%d,a%d,%d,%d\n", i % 100, i % 7, 10 * i, 10 * i + 5);
	fclose(f);
	cr_assert_eq(gantt__read(path, NULL, &g, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(g->n, N);
	cr_assert_eq(g->n_names, 100);
	cr_assert_eq(g->n_actors, 7);
	cr_assert_str_eq(g->names[g->name[N - 1]], "t99");
	cr_assert_str_eq(g->actors[g->actor[N - 1]], "a0");	/* 19999 = 7 * 2857 */
	cr_assert_eq(g->tasks[N - 1].end_ns, 10LL * (N - 1) + 5);
	cr_assert_eq(g->line[N - 1], N + 1);
	gantt__free(g);
}

Test(gantt_csv, bad_numbers)
{
	expect_error(HDR "a,b,0,1\na,b,12abc,20\n", ":3: start_ns: not a decimal number: '12abc'");
	expect_error(HDR "a,b,0,1x\n", ":2: end_ns: not a decimal number: '1x'");
	expect_error(HDR "a,b,0x10,20\n", ":2: start_ns: not a decimal number: '0x10'");
	expect_error(HDR "a,b,+5,20\n", ":2: start_ns: not a decimal number: '+5'");
	expect_error(HDR "a,b,1 2,20\n", ":2: start_ns: not a decimal number: '1 2'");
	expect_error(HDR "a,b,1.5,20\n", ":2: start_ns: not a decimal number: '1.5'");
	expect_error(HDR "a,b,,20\n", ":2: start_ns: empty");
	expect_error(HDR "a,b,-5,20\n", ":2: start_ns: negative: -5");
	expect_error(HDR "a,b,5,-1\n", ":2: end_ns: negative: -1");
	expect_error(HDR "a,b,-5x,1\n", ":2: start_ns: not a decimal number: '-5x'");
	expect_error(HDR "a,b,-,1\n", ":2: start_ns: not a decimal number: '-'");
	expect_error(HDR "a,b,1,99999999999999999999\n",
		     ":2: end_ns: out of range: '99999999999999999999'");
	expect_error(HDR "a,b,20,10\n", ":2: end_ns 10 is before start_ns 20");
}

Test(gantt_csv, bad_structure)
{
	struct gantt *g;

	expect_error(HDR "a,b,1\n", ":2: 3 fields, the header has 4");
	expect_error(HDR "a,b,1,2,3\n", ":2: 5 fields, the header has 4");
	expect_error("task,actor,start_ns\na,b,1\n",
		     ":1: header: no column 'end_ns' (expected task,actor,start_ns,end_ns)");
	expect_error("task,actor,start,end_ns\n",
		     ":1: header: no column 'start_ns' (expected task,actor,start_ns,end_ns)");
	expect_error("task,actor,start_ns,end_ns,task\n", ":1: header: column 'task' twice");
	expect_error(HDR "\"a,b,1,2\n", ":2: unterminated quote");
	expect_error(HDR "\"a\"x,b,1,2\n", ":2: text after a closing quote");
	expect_error("", ": empty file (expected the header task,actor,start_ns,end_ns)");
	expect_error("\n \r\n\n", ": empty file (expected the header task,actor,start_ns,end_ns)");

	write_file(HDR "a\0,b,1,2\n", sizeof(HDR) - 1 + 9);
	cr_assert_eq(gantt__read(path, NULL, &g, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(why(), ":2: NUL byte in line");

	cr_assert_eq(gantt__read("/nonexistent/x.csv", NULL, &g, err, sizeof(err)), -ENOENT);
	cr_assert_null(g);
	cr_assert_str_eq(err, "/nonexistent/x.csv: No such file or directory");
	/* No error buffer: still the error code. */
	write_file("", 0);
	cr_assert_eq(gantt__read(path, NULL, &g, NULL, 0), -EINVAL);
}

Test(gantt_csv, line_length_bound)
{
	struct gantt_opts o = { .max_line = 16 };
	struct gantt *g;
	char *big;
	size_t n = 1 << 20;

	/* The header has 26 bytes. */
	cr_assert_eq(read_text(HDR "t,a,1,2\n", &o, &g), -EINVAL);
	cr_assert_str_eq(why(), ":1: line longer than 16 bytes");
	/* Exactly max_line bytes before a CRLF: accepted; one more: refused. */
	o.max_line = 26;
	cr_assert_eq(read_text(HDR "tt,a,1234,1234567890123456\r\n", &o, &g), 0, "%s", err);
	cr_assert_eq(g->n, 1);
	cr_assert_eq(g->tasks[0].end_ns, 1234567890123456LL);
	gantt__free(g);
	cr_assert_eq(read_text(HDR "tt,a,1234,12345678901234567\r\n", &o, &g), -EINVAL);
	cr_assert_str_eq(why(), ":2: line longer than 26 bytes");

	/* A 1 MiB line against the default 4096: refused, not buffered. */
	big = malloc(n + sizeof(HDR));
	memcpy(big, HDR, sizeof(HDR) - 1);
	memset(big + sizeof(HDR) - 1, 'x', n);
	big[n + sizeof(HDR) - 1] = '\0';
	cr_assert_eq(read_text(big, NULL, &g), -EINVAL);
	cr_assert_str_eq(why(), ":2: line longer than 4096 bytes");
	free(big);
}
