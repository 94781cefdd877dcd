// SPDX-License-Identifier: MIT
/*
 * What delayed a window's break (src/watch/explain.h): on a simulated
 * recording where a disturber takes an actor's CPU, the line names the
 * disturber, as the report's list of breaks does; a break the report does
 * not find is said so; a watched thread absent from the window is left
 * out; a file that cannot be read is an error.
 */
#include "actors/actors.h"
#include "lib/log.h"
#include "synth_watch.h"
#include "testutil.h"
#include "timeline/timeline.h"
#include "watch/explain.h"
#include "watch/judge.h"

#define S 1000000000ull

/* The late start of the report's worst break of tid in the recording at path. */
static int64_t worst_break(const char *path, uint32_t tid)
{
	const char *specs[1] = { "tid:1001" };
	struct actors_opts ao = { .actor_specs = specs, .n_actor_specs = 1, .jobs = 1 };
	struct actors_result *ar;
	struct timeline *tl;
	struct trace *t;
	int64_t at = 0, worst = 0;
	char err[256];

	cr_assert_eq(trace__load(path, NULL, &t, err, sizeof(err)), 0);
	cr_assert_eq(timeline__build(t, NULL, &tl), 0);
	cr_assert_eq(actors__analyse(tl, &ao, &ar), 0);
	cr_assert_eq(tl->threads[ar->v[0].thread].tid, tid);
	for (size_t k = 0; k < ar->v[0].nbreaks; k++) {
		const struct actor_break *b = &ar->v[0].breaks[k];

		if (b->lateness_ns > worst) {
			worst = b->lateness_ns;
			at = judge_break_time(b->start_ns, b->end_ns, b->kind == BREAK_COMPLETION);
		}
	}
	cr_assert_gt(worst, 40000000, "the disturbance makes a break");
	actors__free(ar);
	timeline__free(tl);
	trace__free(t);
	return at;
}

static char *explain(const char *path, const char *const *specs, size_t n, uint32_t tid, int64_t at, int *rc)
{
	char buf[1024] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	cr_assert(f);
	*rc = explain_window(path, specs, n, tid, at, f);
	fclose(f);
	return strdup(buf);
}

Test(explain, names_the_disturber, .timeout = 60)
{
	static const char *const specs[] = { "tid:1001", "tid:1002" }, *gone[] = { "tid:1001", "tid:99999" };
	struct sw_cfg c = sw_default(3);
	char *dir = tu_tmpdir(), path[512], *line;
	struct trace *t;
	int64_t at;
	int rc;

	log_level = LOG_QUIET;
	c.len = 8 * S;
	c.ndisturb = 1;
	c.disturb_at[0] = c.start + 4 * S;
	c.disturb_ns = 60000000;
	t = sw_run(&c);
	snprintf(path, sizeof(path), "%s/w.qtrace", dir);
	sw_save(t, path, 64 << 10);
	trace__free(t);
	at = worst_break(path, 1001);
	line = explain(path, specs, 2, 1001, at, &rc);
	cr_assert_eq(rc, 0);
	cr_assert(strstr(line, "disturber"), "%s", line);
	cr_assert(line[strlen(line) - 1] == '\n' && !strchr(line, '\n')[1], "one line: %s", line);
	free(line);
	/* watched since the warm-up, gone before the window: not a reason to fail */
	line = explain(path, gone, 2, 1001, at, &rc);
	cr_assert_eq(rc, 0, "a watched thread absent from the window");
	cr_assert(strstr(line, "disturber"), "%s", line);
	free(line);
	line = explain(path, specs, 2, 1001, at + 1, &rc);
	cr_assert_eq(rc, 0);
	cr_assert(strstr(line, "does not find"), "%s", line);
	free(line);
	snprintf(path, sizeof(path), "%s/none.qtrace", dir);
	line = explain(path, specs, 2, 1001, at, &rc);
	cr_assert_lt(rc, 0);
	free(line);
	tu_rmdir(dir);
	free(dir);
}
