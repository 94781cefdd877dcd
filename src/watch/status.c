// SPDX-License-Identifier: MIT
/* What a person watching reads; see src/watch/status.h. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "learn.h"
#include "lib/parse.h"
#include "status.h"

void status_actor(char *buf, size_t len, const struct learnt_actor *a, bool watched, double qcod_threshold)
{
	char b1[32];

	if (watched)
		snprintf(buf, len, "%s: period %s, watching", a->name,
			 fmt_duration(b1, sizeof(b1), (int64_t)(a->period_ns + 0.5)));
	else if (a->ninv < 2)
		snprintf(buf, len, "%s: too few invocations to find a period, not watched", a->name);
	else
		snprintf(buf, len, "%s: not periodic (QCoD %.1f %%, periodic below %.0f %%), not watched", a->name,
			 100 * a->qcod, 100 * qcod_threshold);
}

/* HH:MM:SS of a CLOCK_MONOTONIC time. */
static void clock_of(char *buf, size_t len, int64_t mono_ns, int64_t offset_ns)
{
	time_t secs = (time_t)((mono_ns + offset_ns) / 1000000000ll);
	struct tm tm;

	if (!localtime_r(&secs, &tm) || !strftime(buf, len, "%H:%M:%S", &tm))
		snprintf(buf, len, "%.3f s", mono_ns / 1e9);
}

void status_alert(char *buf, size_t len, const struct trig_window *w, int64_t realtime_offset_ns, const char *cause,
		  const char *path, const char *why_not)
{
	char when[32], b1[32], b2[32], more[96] = "";
	int n;

	if (w->manual) {
		clock_of(when, sizeof(when), (int64_t)w->to, realtime_offset_ns);
		n = snprintf(buf, len, "%s window on demand (SIGUSR1)", when);
	} else {
		clock_of(when, sizeof(when), w->first.at_ns, realtime_offset_ns);
		if (w->nbreaks > 1)
			snprintf(more, sizeof(more), " (%zu breaks in the window, the worst %s)", w->nbreaks,
				 fmt_duration(b2, sizeof(b2), w->worst_ns));
		n = snprintf(buf, len, "%s %s %s its %s period: %s late%s%s%s", when, w->first.actor,
			     w->first.kind == BREAK_COMPLETION ? "finished late in" : "broke",
			     fmt_duration(b1, sizeof(b1), (int64_t)(w->first.period_ns + 0.5)),
			     fmt_duration(b2, sizeof(b2), w->first.lateness_ns), more, cause ? ", " : "",
			     cause ? cause : "");
	}
	if (n < 0 || (size_t)n >= len)
		return;
	if (path)
		snprintf(buf + n, len - n, " -> %s", path);
	else
		snprintf(buf + n, len - n, " (not written: %s)", why_not ? why_not : "?");
}

void status_line(char *buf, size_t len, const struct watch_counts *c)
{
	char b1[32], actors[32];
	uint64_t s = c->elapsed_ns / 1000000000ull;

	if (c->learning)
		snprintf(actors, sizeof(actors), "warming up");
	else
		snprintf(actors, sizeof(actors), "%zu actor%s", c->actors, c->actors == 1 ? "" : "s");
	snprintf(buf, len, "watching %llu:%02llu:%02llu  %s events/s  %s  %llu break%s  %llu file%s%s  lost %llu  "
		 "(Ctrl-C stops)",
		 (unsigned long long)(s / 3600), (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60),
		 fmt_count(b1, sizeof(b1), c->events_per_s), actors, (unsigned long long)c->breaks,
		 c->breaks == 1 ? "" : "s", (unsigned long long)c->files, c->files == 1 ? "" : "s",
		 c->not_written ? " (some not written)" : "", (unsigned long long)c->lost);
}

void status_summary(FILE *f, const struct watch_counts *c, const char *dir, const char *reason)
{
	char b1[32], b2[32], b3[32];
	double h = c->elapsed_ns / 3.6e12;

	if (h >= 1)
		snprintf(b1, sizeof(b1), "%.2f h", h);
	else
		fmt_duration(b1, sizeof(b1), (int64_t)c->elapsed_ns);
	fprintf(f, "qostrace: watched %s (%zu actor%s, %s events): %llu major break%s, %llu window%s written to %s (%s)",
		b1, c->actors_ever, c->actors_ever == 1 ? "" : "s", fmt_count(b3, sizeof(b3), (double)c->events),
		(unsigned long long)c->breaks, c->breaks == 1 ? "" : "s", (unsigned long long)c->files,
		c->files == 1 ? "" : "s", dir, fmt_bytes(b2, sizeof(b2), c->bytes));
	if (c->not_written)
		fprintf(f, ", %llu not written", (unsigned long long)c->not_written);
	if (c->lost)
		fprintf(f, "; LOST %llu events in the kernel (the windows say where)\n", (unsigned long long)c->lost);
	else
		fprintf(f, "; no events lost\n");
	fprintf(f, "qostrace: stopped: %s\n", reason ? reason : "?");
}
