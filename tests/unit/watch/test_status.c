// SPDX-License-Identifier: MIT
/*
 * What a person watching reads (src/watch/status.h): the warm-up's line
 * per actor, the alert (local time of the break, who, by how much, the
 * cause, the file; or why there is no file), the status line and the
 * summary with hours watched, breaks, files and losses.
 */
#include <time.h>

#include "testutil.h"
#include "watch/learn.h"
#include "watch/status.h"

Test(status, actor_lines)
{
	struct learnt_actor a = { .name = "src/1234", .period_ns = 10000000, .periodic = true, .ninv = 500, .qcod = 0.01 };
	char b[256];

	status_actor(b, sizeof(b), &a, true, 0.1);
	cr_assert_str_eq(b, "src/1234: period 10 ms, watching");
	a.qcod = 0.352;
	status_actor(b, sizeof(b), &a, false, 0.1);
	cr_assert_str_eq(b, "src/1234: not periodic (QCoD 35.2 %, periodic below 10 %), not watched");
}

Test(status, the_alert_line)
{
	struct trig_window w = { .first = { .actor = "src/1234", .at_ns = 5000000000ll, .lateness_ns = 25100000,
					    .period_ns = 10000000 }, .nbreaks = 1, .worst_ns = 25100000 };
	time_t secs = 1000000000 + 5;
	struct tm tm;
	char b[512], want[512], when[16];

	localtime_r(&secs, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	/* the realtime offset puts the break at 1000000005 s since the epoch */
	status_alert(b, sizeof(b), &w, 1000000000ll * 1000000000ll, "waited 25.3 ms for CPU behind disturber/77",
		     "drops/0003-src-25ms.qtrace", NULL);
	snprintf(want, sizeof(want), "%s src/1234 broke its 10 ms period: 25.1 ms late, waited 25.3 ms for CPU behind "
		 "disturber/77 -> drops/0003-src-25ms.qtrace", when);
	cr_assert_str_eq(b, want);
	w.nbreaks = 4;
	w.worst_ns = 58000000;
	status_alert(b, sizeof(b), &w, 0, NULL, NULL, "--max-files 50 reached");
	cr_assert(strstr(b, "25.1 ms late (4 breaks in the window, the worst 58 ms) (not written: --max-files 50 reached)"),
		  "%s", b);
	w.manual = true;
	w.to = 7000000000ull;
	status_alert(b, sizeof(b), &w, 0, NULL, "d/0004-manual.qtrace", NULL);
	cr_assert(strstr(b, "window on demand (SIGUSR1) -> d/0004-manual.qtrace"), "%s", b);
}

Test(status, status_and_summary)
{
	struct watch_counts c = { .elapsed_ns = 3725000000000ull, .events_per_s = 41200, .actors = 3, .actors_ever = 4,
				  .breaks = 17, .files = 12, .bytes = 48200000, .lost = 0, .events = 153000000 };
	char b[256], *out = NULL;
	size_t len = 0;
	FILE *f;

	status_line(b, sizeof(b), &c);
	cr_assert_str_eq(b, "watching 1:02:05  41.2k events/s  3 actors  17 breaks  12 files  lost 0  (Ctrl-C stops)");
	c.learning = true;
	status_line(b, sizeof(b), &c);
	cr_assert(strstr(b, "warming up"), "%s", b);
	f = open_memstream(&out, &len);
	status_summary(f, &c, "drops", "interrupted (SIGINT)");
	fclose(f);
	cr_assert(strstr(out, "watched 1.03 h (4 actors, 153.00M events): 17 major breaks, 12 windows written to drops "
			      "(48.2 MB); no events lost\n"), "%s", out);
	cr_assert(strstr(out, "stopped: interrupted (SIGINT)"), "%s", out);
	free(out);
}
