/* SPDX-License-Identifier: MIT */
/*
 * What the files of watch's detector share, and no one else may use
 * (watch.h is their public header):
 *
 *   watch.c     the watch: made and freed, its steps in order, the
 *               detector's thread, the counters
 *   say.c       the messages for the person watching, queued
 *   warmup.c    the warm-up's steps: learning (learn.h), installing the
 *               watched actors, catching up with the ring
 *   watched.c   the watched actors: fed to their followers, judged, the
 *               verdict on a window, forgotten when they exit
 *   windows.c   the windows: due, judged, written, analysed, told
 */
#ifndef QT_WATCH_INTERNAL_H
#define QT_WATCH_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "explainer.h"
#include "file/tracefile.h"
#include "follow.h"
#include "learn.h"
#include "tap.h"
#include "trigger.h"
#include "watch.h"

struct window_plan;

#define NS 1000000000ull
#define MS 1000000ull

enum learn_state { L_WAIT, L_CATCHUP, L_DONE };

/* One watched actor. */
struct watched {
	struct learnt_actor a;
	struct follow f;
	uint64_t fed_until;		/* history records fed to the follower, up to this time */
	uint64_t judged_until;		/* breaks up to here are decided */
	uint64_t judge_at;		/* the follower asks for a judgement then (0: no) */
	uint64_t last_judged;
	bool gone;
};

/* A window written and waiting for its analysis. */
struct told {
	bool used;
	struct trig_window w;
	char path[PATH_MAX];
	uint64_t cut_ns;
};

struct watch {
	struct watch_opts o;
	struct watch_budget b;
	struct ring *ring;
	struct tap *tap;
	struct sink *sink;
	struct threads *threads;
	struct history *hist;
	struct trigger *trig;
	struct explainer *ex;
	struct tap_batch batch;
	uint64_t sweep_ns, hist_ns;

	/* the recording, once the writer opened */
	bool started;
	struct tf_kv meta;
	char arch[32];
	int ncpus;
	int64_t realtime_offset;
	uint64_t start_ts;
	bool all;
	uint32_t *targets;
	size_t ntargets, tcap;

	/* the warm-up and the actors */
	enum learn_state ls;
	uint64_t learn_at, catch_from, catch_to;
	bool said_waiting;
	struct watched *v;
	size_t n;
	char *actor_specs;		/* the watched actors' specs, space separated */

	/* windows */
	unsigned int next_number;
	bool stopped_writing;
	struct told told[EXPLAINER_QUEUE + 1];

	/* counters (read by the caller's thread: torn reads only blur a status line) */
	uint64_t breaks, files, bytes, not_written;
	uint64_t overruled;		/* windows their own span did not confirm */
	size_t watched_ever;

	volatile sig_atomic_t demand;
	pthread_mutex_t mlock;		/* the messages */
	char **msgs;
	size_t nmsgs, mcap;
	pthread_mutex_t slock;		/* one step at a time */
	pthread_t th;
	bool running;
	volatile bool stop;
};


/* ---- say.c ---- */

/* Queues a message for the person watching (watch__say_to prints it). */
void watch_say(struct watch *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- warmup.c ---- */

/* Learns from the ring and, when some actor is periodic, watches it (L_WAIT -> L_CATCHUP). */
void warmup_learn(struct watch *w, uint64_t now, bool final);
/* The blocks the tap did not see for the new actors, once the ring has them (L_CATCHUP -> L_DONE). */
void warmup_catch_up(struct watch *w, bool final);

/* ---- watched.c ---- */

/* Feeds, judges and forgets the watched actors, as far as until. */
void watched_step(struct watch *w, uint64_t until, bool final);
/* Every break up to the time returned is decided. */
uint64_t watched_decided(const struct watch *w, uint64_t until);
/*
 * The verdict on the window of plan p: every watched actor judged on the
 * records of its blocks, its major breaks inside into *out (malloc'd)
 * and *n, each marked online when the detector had found it as it came.
 * 0, or what window_records returns.
 */
int watched_verdict(struct watch *w, const struct window_plan *p, struct trig_break **out, size_t *n);

/* ---- windows.c ---- */

/* SIGUSR1's window, and the windows due, written; the analyses that finished, told. */
void windows_step(struct watch *w, uint64_t until, bool final);
/* The analyses that finished (waiting up to timeout_ms for one), told. */
void windows_told(struct watch *w, int timeout_ms);
/* The windows whose analyses did not finish, told without a cause. */
void windows_untold(struct watch *w);

#endif
