// SPDX-License-Identifier: MIT
/*
 * watch from end to end without a kernel: simulated recordings
 * (tests/lib/synth_watch.h) saved as trace files and replayed through the
 * whole detector (src/watch/replay.h, as `qostrace watch --replay`). On
 * every window written:
 *  - the major breaks the report's stages find in it (the actors watched,
 *    the same cut) are exactly those the window lists, and each trigger of
 *    the window is one of them: the detector agrees with the report both
 *    ways;
 *  - it is an ordinary trace file: it loads, is finished, mode 0600, its
 *    thread table names the actors, END counts its losses;
 * and one window per disturbance when the disturbances are apart, none
 * when nothing disturbs, nothing half written.
 */
#include <dirent.h>
#include <sys/stat.h>

#include "actors/actors.h"
#include "lib/log.h"
#include "synth_watch.h"
#include "testutil.h"
#include "timeline/timeline.h"
#include "watch/replay.h"
#include "watch/watch.h"

#define S 1000000000ull
#define MAX_WINDOWS 64

struct listed {
	uint32_t tid;
	long long at, late;
	char kind[16], how[16];
};

/* The window's META list of breaks. */
static size_t listed_breaks(const struct trace *t, struct listed *v, size_t max)
{
	const char *s = tf_kv_get(&t->meta, TF_META_WATCH_BREAKS);
	size_t n = 0;

	cr_assert_not_null(s, "%s: no watch_breaks", t->path);
	while (*s && n < max) {
		int used = 0;

		cr_assert_eq(sscanf(s, "%u:%lld:%lld:%15[a-z]:%15[a-z]%n", &v[n].tid, &v[n].at, &v[n].late, v[n].kind,
				    v[n].how, &used), 5, "%s", s);
		n++;
		s += used;
		while (*s == ' ')
			s++;
	}
	return n;
}

static bool listed_has(const struct listed *v, size_t n, uint32_t tid, long long at)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].tid == tid && v[i].at == at)
			return true;
	return false;
}

struct outcome {
	char base[256];
	int files, report_breaks, online, on_window;
	char names[MAX_WINDOWS][256];
	unsigned long long bytes;	/* of the windows written */
};

/* Both ways, on one window: the report's major breaks are the listed ones. */
static void check_window(const char *path, struct outcome *o)
{
	struct listed v[4096];
	struct trace *t;
	struct timeline *tl;
	struct actors_result *ar;
	struct actors_opts ao = { .jobs = 1 };
	char err[256], *specs_buf, *specs[16];
	size_t n, nspecs = 0, found = 0;
	uint64_t cut = 0;
	struct stat st;

	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600, "%s", path);
	cr_assert_eq(trace__load(path, NULL, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert(t->finished, "%s has its END", path);
	cr_assert_str_eq(tf_kv_get(&t->meta, TF_META_WATCH), "break");
	tf_kv_get_u64(&t->meta, TF_META_WATCH_CUT, &cut);
	n = listed_breaks(t, v, 4096);
	specs_buf = strdup(tf_kv_get(&t->meta, TF_META_WATCH_ACTORS));
	for (char *s = strtok(specs_buf, " "); s; s = strtok(NULL, " "))
		specs[nspecs++] = s;
	ao.actor_specs = (const char *const *)specs;
	ao.n_actor_specs = nspecs;
	cr_assert_eq(timeline__build(t, NULL, &tl), 0);
	cr_assert_eq(actors__analyse(tl, &ao, &ar), 0);
	for (size_t i = 0; i < ar->n; i++) {
		const struct actor *a = &ar->v[i];
		uint32_t tid = tl->threads[a->thread].tid;

		for (size_t k = 0; a->st.periodic && k < a->nbreaks; k++) {
			const struct actor_break *b = &a->breaks[k];
			long long at = b->kind == BREAK_COMPLETION ? b->start_ns : b->end_ns;

			if (b->data_missing || !watch_major(b->lateness_ns, a->st.period_ns, (int64_t)cut))
				continue;
			cr_assert(listed_has(v, n, tid, at), "%s: the report's break of %s at %lld (%lld ns late) is not listed",
				  path, a->name, at, (long long)b->lateness_ns);
			found++;
		}
	}
	cr_assert_eq(found, n, "%s: %zu breaks listed, the report finds %zu of them", path, n, found);
	for (size_t i = 0; i < n; i++) {
		o->online += !strcmp(v[i].how, "online");
		o->on_window += !strcmp(v[i].how, "window");
	}
	o->report_breaks += found;
	actors__free(ar);
	timeline__free(tl);
	trace__free(t);
	free(specs_buf);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * replay() within --max-files and --max-disk (0: no limit), the recording
 * in blocks of block_bytes; what watch said in *said (free it) when given.
 */
static void replay_bounded(struct sw_cfg *c, const char *const *specs, size_t nspecs, int64_t late,
			   size_t block_bytes, unsigned int max_files, uint64_t max_disk, char **said, struct outcome *o, char *dir_out)
{
	char *dir = tu_tmpdir(), path[512];
	struct watch_opts wo = {
		.before_ns = 4 * S, .after_ns = 1 * S, .late_ns = late, .memory = 64u << 20, .specs = specs,
		.nspecs = nspecs, .cmdline = "test", .zlevel = 1, .lag_ns = S, .max_files = max_files,
		.max_disk = max_disk,
	};
	struct trace *t = sw_run(c);
	struct watch *w;
	struct dirent *e;
	DIR *d;
	size_t said_len = 0;
	char *said_buf = NULL;
	FILE *out = said ? open_memstream(&said_buf, &said_len) : fopen("/dev/null", "w");

	snprintf(path, sizeof(path), "%s/rec.qtrace", dir);
	sw_save(t, path, block_bytes);
	trace__free(t);
	snprintf(dir_out, 256, "%s/w", dir);
	mkdir(dir_out, 0700);
	wo.dir = dir_out;
	cr_assert_eq(watch__new(&wo, &w), 0);
	cr_assert_eq(watch_replay(w, path, out), 0);
	watch__free(w);
	fclose(out);
	if (said)
		*said = said_buf;
	memset(o, 0, sizeof(*o));
	snprintf(o->base, sizeof(o->base), "%s", dir);
	d = opendir(dir_out);
	while ((e = readdir(d))) {
		char f[600];
		struct stat st;

		if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			cr_assert_fail("%s left behind", e->d_name);
		if (!strstr(e->d_name, ".qtrace"))
			continue;
		snprintf(f, sizeof(f), "%s/%s", dir_out, e->d_name);
		check_window(f, o);
		cr_assert_eq(stat(f, &st), 0);
		o->bytes += (unsigned long long)st.st_size;
		cr_assert_lt(o->files, MAX_WINDOWS);
		snprintf(o->names[o->files++], sizeof(o->names[0]), "%s", e->d_name);
	}
	closedir(d);
	qsort(o->names, o->files, sizeof(o->names[0]), cmp_str);
	free(dir);
}

/* Replays c as a recording into a fresh directory; every window checked. */
static void replay(struct sw_cfg *c, const char *const *specs, size_t nspecs, int64_t late, struct outcome *o,
		   char *dir_out)
{
	replay_bounded(c, specs, nspecs, late, 64 << 10, 0, 0, NULL, o, dir_out);
}

static struct sw_cfg disturbed(unsigned long long seed, int n, uint64_t every)
{
	struct sw_cfg c = sw_default(seed);

	c.len = 30 * S;
	c.ndisturb = n;
	c.disturb_ns = 60000000;
	c.disturb_cpu = 0;
	for (int i = 0; i < n; i++)
		c.disturb_at[i] = c.start + 6 * S + i * every + 3000000;
	return c;
}

Test(watch, a_window_per_disturbance_agreeing_with_the_report, .timeout = 120)
{
	char dir[256];
	struct outcome o;
	struct sw_cfg c = disturbed(1, 5, 4 * S);

	log_level = LOG_QUIET;
	replay(&c, NULL, 0, 0, &o, dir);
	cr_assert_eq(o.files, 5, "one per disturbance: %d", o.files);
	for (int i = 0; i < o.files; i++) {
		char want[32];

		snprintf(want, sizeof(want), "%04d-stage0-", i + 1);
		cr_assert(!strncmp(o.names[i], want, strlen(want)), "%s: the stage on the disturbed CPU leads", o.names[i]);
	}
	cr_assert_gt(o.online, 0);
	cr_log_info("%d windows, %d breaks: %d found online, %d on their window", o.files, o.report_breaks, o.online,
		    o.on_window);
	tu_rmdir(o.base);
}

/*
 * A recording in blocks of 8 MiB (seconds each, as a quiet recording's
 * are): a window's first block begins long before the seconds the
 * detector keeps of each thread, and its verdict still agrees with the
 * report of the file, which sees the whole block.
 */
Test(watch, blocks_longer_than_the_history_agree_with_the_report, .timeout = 120)
{
	char dir[256];
	struct outcome o;
	struct sw_cfg c = disturbed(3, 4, 5 * S);

	log_level = LOG_QUIET;
	replay_bounded(&c, NULL, 0, 0, 8 << 20, 0, 0, NULL, &o, dir);
	cr_assert_geq(o.files, 1, "%d windows", o.files);
	cr_log_info("%d windows, %d breaks", o.files, o.report_breaks);
	tu_rmdir(o.base);
}

Test(watch, nothing_disturbed_no_window, .timeout = 120)
{
	char dir[256];
	struct outcome o;
	struct sw_cfg c = disturbed(2, 0, 0);

	log_level = LOG_QUIET;
	replay(&c, NULL, 0, 0, &o, dir);
	cr_assert_eq(o.files, 0, "%d windows", o.files);
	tu_rmdir(o.base);
}

/* Random machines: background load, locks, losses, disturbances anywhere; the agreement holds on every window. */
Test(watch, agreement_on_random_machines, .timeout = 300)
{
	int files = 0, breaks = 0, online = 0;

	log_level = LOG_QUIET;
	for (unsigned long long seed = 10; seed < 16; seed++) {
		unsigned long long r = seed;
		struct sw_cfg c = disturbed(seed, 3 + tu_rand(&r) % 6, S + tu_rand(&r) % (3 * S));
		char dir[256];
		struct outcome o;

		c.nbg = tu_rand(&r) % 4;
		c.disturb_cpu = tu_rand(&r) % 2;
		c.disturb_ns = 3000000 + tu_rand(&r) % 80000000;
		c.a[1].prio = 1;	/* among the background threads: jitter */
		c.nlosses = tu_rand(&r) % 3;
		for (int i = 0; i < c.nlosses; i++)
			c.loss_at[i] = c.start + tu_rand(&r) % c.len;
		replay(&c, NULL, 0, tu_rand(&r) % 2 ? 0 : 4000000, &o, dir);
		files += o.files;
		breaks += o.report_breaks;
		online += o.online;
		tu_rmdir(o.base);
	}
	cr_log_info("%d windows, %d breaks, %d of them found online", files, breaks, online);
	cr_assert_gt(files, 6);
}

/*
 * --max-files and --max-disk: windows up to the bound, then a message that
 * it stops writing, the breaks still counted; the files written are the
 * first ones, each whole, within the bound.
 */
Test(watch, max_files_and_max_disk_stop_the_writing, .timeout = 200)
{
	char dir[256], *said;
	struct outcome all, o;
	struct sw_cfg c = disturbed(1, 5, 4 * S);

	log_level = LOG_QUIET;
	replay(&c, NULL, 0, 0, &all, dir);
	cr_assert_eq(all.files, 5);
	tu_rmdir(all.base);

	replay_bounded(&c, NULL, 0, 0, 64 << 10, 2, 0, &said, &o, dir);
	cr_assert_eq(o.files, 2, "--max-files 2: %d files", o.files);
	cr_assert_str_eq(o.names[0], all.names[0]);
	cr_assert_str_eq(o.names[1], all.names[1]);
	cr_assert(strstr(said, "stops writing windows: --max-files 2 reached"), "%s", said);
	cr_assert(strstr(said, "(not written: --max-files 2 reached)"), "the breaks after it are told: %s", said);
	free(said);
	tu_rmdir(o.base);

	/* room for two and a half windows of this size */
	replay_bounded(&c, NULL, 0, 0, 64 << 10, 0, all.bytes / 2, &said, &o, dir);
	cr_assert_geq(o.files, 1, "%s", said);
	cr_assert_lt(o.files, 5, "%s", said);
	cr_assert_leq(o.bytes, all.bytes / 2, "--max-disk %llu: %llu bytes written", all.bytes / 2, o.bytes);
	for (int i = 0; i < o.files; i++)
		cr_assert_str_eq(o.names[i], all.names[i]);
	cr_assert(strstr(said, "stops writing windows: --max-disk reached"), "%s", said);
	free(said);
	tu_rmdir(o.base);
}
