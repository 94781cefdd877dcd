// SPDX-License-Identifier: MIT
/* The windows: due, judged, written, analysed, told; see src/watch/internal.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "internal.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "status.h"
#include "window.h"

static void alert(struct watch *w, const struct trig_window *win, const char *cause, const char *path,
		  const char *why_not, uint64_t cut_ns)
{
	char line[1024], b1[32];

	status_alert(line, sizeof(line), win, w->realtime_offset, cause, path, why_not);
	if (cut_ns)
		watch_say(w, "%s (its first %s had left the memory: raise --memory)", line,
		    fmt_duration(b1, sizeof(b1), (int64_t)cut_ns));
	else
		watch_say(w, "%s", line);
}

static struct told *told_slot(struct watch *w)
{
	for (size_t i = 0; i < sizeof(w->told) / sizeof(w->told[0]); i++)
		if (!w->told[i].used)
			return &w->told[i];
	return NULL;
}

static void stop_writing(struct watch *w, const char *why)
{
	if (!w->stopped_writing)
		watch_say(w, "qostrace: stops writing windows: %s; the breaks are still watched and told", why);
	w->stopped_writing = true;
}

/*
 * What the window says once judged on its own span (watched_verdict):
 * its breaks, led by the earliest one the detector found online (a
 * delay reaches the stages downstream later). false when none of the
 * breaks that asked for it holds on the window: it is not written.
 */
static bool lead(const struct watch *w, struct trig_window *win, const struct trig_break *v, size_t n)
{
	/* The breaks that asked for it lie `before` after its start and `after` before its end. */
	int64_t lo = win->from ? (int64_t)(win->from + w->o.before_ns) : 0, hi = (int64_t)(win->to - w->o.after_ns);
	const struct trig_break *first = NULL;

	win->nbreaks = n;
	win->worst_ns = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].lateness_ns > win->worst_ns)
			win->worst_ns = v[i].lateness_ns;
		if (v[i].online && v[i].at_ns >= lo && v[i].at_ns <= hi && (!first || v[i].at_ns < first->at_ns))
			first = &v[i];
	}
	if (first)
		win->first = *first;
	return first || win->manual;
}

static void not_written(struct watch *w, const struct trig_window *win, const char *why, int e, const char *err)
{
	w->not_written++;
	if (e == -EDQUOT) {
		stop_writing(w, "--max-disk reached");
		why = "--max-disk reached";
	}
	alert(w, win, NULL, NULL, why, 0);
	if (err)
		watch_say(w, "qostrace: error: %s", err);
}

/* Starts the window's analysis, or tells it at once. */
static void analyse(struct watch *w, const struct trig_window *win, const struct window_out *out)
{
	struct told *t = w->ex ? told_slot(w) : NULL;

	if (t && !explainer__queue(w->ex, out->path, win->manual ? 0 : win->first.tid, win->first.at_ns,
				   (unsigned long)(t - w->told))) {
		*t = (struct told){ .used = true, .w = *win, .cut_ns = out->cut_ns };
		snprintf(t->path, sizeof(t->path), "%s", out->path);
		return;
	}
	alert(w, win, w->ex ? "(not analysed: the analyses of earlier windows are still running)" : NULL,
	      out->path, NULL, out->cut_ns);
}

static void write_window(struct watch *w, const struct trig_window *asked)
{
	struct trig_window win = *asked;
	struct window_in in = {
		.dir = w->o.dir, .number = w->next_number, .ring = w->ring, .meta = &w->meta,
		.cmdline = w->o.cmdline, .threads = w->threads, .w = &win, .actors = w->actor_specs,
		.late_ns = w->o.late_ns, .max_bytes = !w->o.max_disk ? UINT64_MAX : w->o.max_disk > w->bytes ? w->o.max_disk - w->bytes : 0,
	};
	struct trig_break *breaks = NULL;
	struct window_plan p;
	struct window_out out;
	char err[PATH_MAX + 128], why[64];
	int e;

	if (w->o.max_files && w->files >= w->o.max_files) {
		snprintf(why, sizeof(why), "--max-files %u reached", w->o.max_files);
		stop_writing(w, why);
		not_written(w, &win, why, 0, NULL);
		return;
	}
	e = window_plan(w->ring, win.from, win.to, &p);
	if (!e)
		e = watched_verdict(w, &p, &breaks, &in.nbreaks);
	if (e) {
		not_written(w, &win, e == -ENODATA ? "the memory no longer holds it" : strerror(-e), e, NULL);
		return;
	}
	if (!lead(w, &win, breaks, in.nbreaks)) {
		log_info("a window asked for by %s at %.3f s is not written: judged on its own span, its "
			 "breaks are not major", win.first.actor, (win.first.at_ns - (int64_t)w->start_ts) / 1e9);
		w->overruled++;
		free(breaks);
		return;
	}
	in.breaks = breaks;
	in.losses = history__losses(w->hist, &in.nlosses);
	e = window_write(&in, &p, &out, err, sizeof(err));
	free(breaks);
	if (e) {
		not_written(w, &win, e == -ENOSPC ? "the disk is full" : "write error", e, e == -EDQUOT ? NULL : err);
		return;
	}
	w->next_number++;
	w->files++;
	w->bytes += out.bytes;
	analyse(w, &win, &out);
}

/* The analyses that finished: their alerts, complete. */
void windows_told(struct watch *w, int timeout_ms)
{
	unsigned long tag;
	char line[512];

	while (w->ex && explainer__poll(w->ex, timeout_ms, &tag, line, sizeof(line)) == 1) {
		struct told *t = &w->told[tag];

		alert(w, &t->w, t->w.manual ? NULL : line, t->path, NULL, t->cut_ns);
		t->used = false;
		timeout_ms = 0;
	}
}

void windows_step(struct watch *w, uint64_t until, bool final)
{
	uint64_t d = watched_decided(w, until);
	struct trig_window win;

	if (w->demand) {
		w->demand = 0;
		trigger__manual(w->trig, until);
	}
	/* A window's last block runs past its end by up to lag_ns: decided up to there too. */
	while (trigger__due(w->trig, d > w->o.lag_ns ? d - w->o.lag_ns : 0, final, &win))
		write_window(w, &win);
	windows_told(w, 0);
}


void windows_untold(struct watch *w)
{
	for (size_t i = 0; i < sizeof(w->told) / sizeof(w->told[0]); i++) {
		if (!w->told[i].used)
			continue;
		alert(w, &w->told[i].w, "(not analysed: stopped before its analysis finished)", w->told[i].path, NULL,
		      w->told[i].cut_ns);
		w->told[i].used = false;
	}
}
