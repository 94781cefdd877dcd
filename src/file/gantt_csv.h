/* SPDX-License-Identifier: MIT */
/*
 * Gantt chart from CSV (docs/DESIGN.md §10, `report FILE.csv`): a header
 * naming the columns task, actor, start_ns and end_ns (any order; other
 * columns are ignored), then one task per line. A task is identified by its
 * line (its index here), never by its name: names repeat.
 *
 * Accepted: CRLF or LF, a UTF-8 BOM, blank lines, fields in double quotes
 * with "" for a quote (on one line), blanks around numbers. Rejected with
 * "file:line: why" in the error buffer and -EINVAL: an empty file, a header
 * without a required column, a line with another number of fields than the
 * header, a number that is not a plain decimal ("12abc", "0x10", ""), a
 * negative or out-of-range number, end_ns < start_ns, a line longer than
 * max_line, more than 64 fields, an unterminated quote, a NUL byte; more
 * than GANTT_MAX_TASKS tasks with -E2BIG. Memory is bounded by max_line
 * plus what the tasks and distinct names need.
 */
#ifndef QT_GANTT_CSV_H
#define QT_GANTT_CSV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A task's times as the chart gives them. */
struct gantt_task {
	int64_t start_ns;
	int64_t end_ns;		/* >= start_ns */
};

/* Tasks are numbered by uint32_t, one value kept for "none". */
#define GANTT_MAX_TASKS ((uint64_t)UINT32_MAX - 1)

struct gantt_opts {
	size_t max_line;	/* bytes without the line end; 0: 4096 */
};

struct gantt {
	size_t n;
	struct gantt_task *tasks;	/* [n] */
	uint32_t *actor;		/* [n] index into actors */
	uint32_t *name;			/* [n] index into names */
	uint32_t *line;			/* [n] 1-based line of the task */
	size_t n_actors;
	const char **actors;		/* [n_actors], in order of first use */
	size_t n_names;
	const char **names;		/* [n_names], in order of first use */
	char *pool_;			/* private: the strings */
};

/*
 * Reads `path`. 0 on success (a header without tasks gives n = 0). On error
 * a negative errno and, if err_sz > 0, a message in err.
 */
int gantt__read(const char *path, const struct gantt_opts *opts,
		struct gantt **out, char *err, size_t err_sz);

/* Same from an open stream; `name` is what messages call it. */
int gantt__parse(FILE *f, const char *name, const struct gantt_opts *opts,
		 struct gantt **out, char *err, size_t err_sz);

void gantt__free(struct gantt *g);

/* order[0, n): the tasks by actor, then start, then line (the lanes of the views, in order). */
void gantt__order_by_actor(const struct gantt *g, uint32_t *order);

#endif
