/*
 * What happens while the period breaks (SATM §5, docs/DESIGN.md §7): the minimal
 * gap-constrained sequential patterns of system activity that are frequent
 * in the subtraces where the most upstream actor breaks its period (D_pos)
 * and rare in those where it keeps it (D_neg).
 *
 * The subtraces are the actor's windows (actors.h, docs/ALGORITHMS.md §3.3),
 * turned into symbols by vocab.h with the actor's own thread left out and
 * back-to-back repeats collapsed. Windows that overlap missing data
 * (timeline__missing) are excluded from both sides and counted.
 *
 * Jitter. SATM's fence Q3 + 1.5 IQR assumes the jitter of a real system;
 * an actor released by a precise timer has an IQR of microseconds, and
 * then a run delayed by 50 us is a "break". Measured on the demo pipeline
 * (src every 10 ms, disturbed 9 times for 25 ms): 90 breaks, 80 of them
 * late by 26 us to 1.7 ms. Mined as D_pos, such jitter drowns the breaks
 * that matter: the disturber is then in 9 of 87 breaks and nothing emerges
 * at delta >= 50 %. The stage therefore mines the actor's major breaks
 * (actor_break_major: the actors' stage's cut, --min-late, one notion for
 * the whole analysis) and leaves the breaks of jitter out of both sides,
 * counted in the result (minor_breaks).
 *
 * Severity levels. SATM assumes that the breaks share a cause. On a loaded
 * machine they do not: the demo pipeline recorded while other builds ran
 * had 38 breaks, 8 of them the disturber's (late by 23-26 ms), most of the
 * others CPU contention by compilers (3-20 ms). Over all the breaks the
 * best pattern was "cc1 switched in -> softirq TIMER" (23/38 breaks, 60/403
 * periods), and the disturber's 8/38 was below any useful delta. So the
 * stage mines the worst breaks too: Otsu's threshold (otsu.h) on the
 * logarithm of the lateness of the breaks splits off the late class, which
 * is mined as D_pos against the same kept periods (the other breaks are
 * left out of both sides); and again inside that class, while it keeps at
 * least PATTERNS_MIN_SEVERE breaks (fewer give chance patterns at 100 %;
 * a smaller late class, a few hangs, is set aside and the rest split
 * again) and its lateness spans more than a factor of 2. All
 * levels' patterns are ranked together by supp_pos - supp_neg, each with
 * its own D_pos; a pattern found at several levels is listed once, where
 * it scores best (the broader level on ties).
 *
 * Thresholds. Given --delta and --alpha, one miner run. Otherwise
 * miner_auto.h walks from delta 100 %, alpha 0 % to the first thresholds
 * where something emerges, and one more run at the same alpha adds the
 * patterns that miss a tenth of the breaks more (at least one, delta not
 * below 50 %): with 9 breaks, the first stop is often the disturber's
 * switch-in alone (9/9) while its syscall is in 8/9 (one break was the
 * start-up).
 *
 * Bounds (struct patterns_opts), each reported in the result when it bit:
 *  - subtraces: at most max_subtraces per side and search, sampled evenly
 *    in time;
 *  - events: at most vocab.max_len symbols per subtrace (its beginning);
 *  - search: max_nodes node expansions per miner run and phase, patterns up
 *    to max_len symbols, and a time budget for the whole stage (default
 *    5 s, so that `report` answers in seconds even on the most repetitive
 *    traces: the search over all the breaks gets half of it, the severity
 *    levels what is left; a run cut by time returns what it found, and the
 *    report says so).
 * When a search cannot pay (patterns_cannot_pay()): an actor of a period
 * under PATTERNS_MEDIA_PERIOD_NS that breaks it PATTERNS_STORM_BREAKS times
 * or more (major breaks) is not searched unless o->search_always; the
 * result says so (status, skipped). Measured on two recordings of
 * `stress-ng --switch 2` (scripts/bench-storm-report.sh): the upstream
 * actor's "period" was 47-48 us, its breaks 1,841 and 3,356, each late by
 * a tenth of the period or more, i.e. by 5 us, less than one wake-up on a
 * busy CPU; the search ran its whole 5 s budget (13 and 7 miner runs, three
 * levels) and found nothing. Such a rhythm is the scheduler's own (a
 * ping-pong of threads), not a media period: the shortest media periods
 * in use are audio buffers of 32 frames (667 us at 48 kHz, 167 us at
 * 192 kHz) and AES67's 125 us packets, and video's are milliseconds
 * (JACK's 16 frames at 192 kHz, 83 us, is the rare exception
 * search_always is for). A break late by a few microseconds is one ordinary
 * scheduling delay, in kept periods as much as in breaks, so nothing can
 * stand out from chance; and thousands of breaks make the search cost its
 * whole budget. Both conditions are required: a fast loop with a few
 * long breaks (a hang to explain) is still searched, and so is a media
 * actor with thousands of breaks.
 *
 * The event stream, the vocabulary and each window's symbols are computed
 * once and shared by the searches. Memory: the stream (16 bytes an event),
 * the symbols of the windows mined (4 bytes each, at most
 * (PATTERNS_MAX_LEVELS + 1) * max_subtraces * vocab.max_len) and the
 * miner's index of one search's symbols.
 */
#ifndef QT_PATTERNS_H
#define QT_PATTERNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actors/period.h"
#include "timeline/timeline.h"
#include "vocab.h"

struct actors_result;

#define PATTERNS_DEFAULT_GAP 2
#define PATTERNS_DEFAULT_MAX_SUBTRACES 5000
#define PATTERNS_DEFAULT_TIME_BUDGET_NS 5000000000LL
#define PATTERNS_DEFAULT_MAX_NODES 50000
#define PATTERNS_DEFAULT_KEEP 100
#define PATTERNS_LONGER_WINDOWS 1.25	/* breaks' windows this much longer than the kept
					 * periods': the text says its thresholds are scaled */
#define PATTERNS_MAX_LEVELS 6		/* all breaks, then up to 5 severity levels */
#define PATTERNS_MIN_SEVERE 5		/* fewest breaks a severity level mines */
#define PATTERNS_MEDIA_PERIOD_NS 100000	/* an actor's period below this (ns) is not a media
					 * period: see patterns_cannot_pay() */
#define PATTERNS_STORM_BREAKS 1000	/* with this many major breaks or more, its search is
					 * skipped (unless search_always) */
#define PATTERNS_DELTA_TOLERANCE 0.10	/* searched delta: also the patterns that miss a tenth
					 * of the breaks (at least one) more than the first that
					 * emerge, at the same alpha */

struct patterns_opts {
	double delta;		/* min support in D_pos, fraction; < 0: searched */
	double alpha;		/* max support in D_neg, fraction; < 0: searched */
	int gap;		/* max events skipped inside a pattern; < 0: 2 */
	struct vocab_opts vocab;	/* drop_thread is set to the actor's thread */
	bool keep_actor;	/* default false: leave the actor's own activity out */
	bool no_severity;	/* patterns__analyse: default false: mine the worst
				 * breaks too (severity levels, above) */
	uint32_t max_subtraces;	/* per side; default 5000; 0 = no limit */
	int64_t time_budget_ns;	/* the whole stage; default 5 s; 0 = no limit */
	uint64_t max_nodes;	/* per miner run and phase; default 50,000 */
	uint32_t max_len;	/* longest pattern; default 8 */
	uint32_t keep;		/* patterns kept in the result, best first; default 100 */
	bool search_always;	/* patterns__analyse: search even where patterns_cannot_pay()
				 * (report --search-patterns); default false */
};

/*
 * Fills @o with the defaults above (thresholds searched, gap 2). Start from
 * these rather than from zeros: delta 0 is invalid, and 0 means no limit
 * for several bounds.
 */
void patterns_opts_default(struct patterns_opts *o);

struct pattern {
	uint32_t len;
	const char *const *events;	/* len symbol names, owned by the result */
	const unsigned *kinds;		/* len enum vocab_kind */
	uint32_t count_pos, count_neg;	/* subtraces containing it (gap-constrained) */
	double support_pos, support_neg;	/* count / subtraces of the side */
	double delta, alpha;		/* the thresholds at which it emerged */
	double chance_pos;		/* D_pos windows it would be in by their length alone
					 * (chance.h); count_neg * |D_pos| / |D_neg| or more */
	double score;			/* support_pos - max(support_neg, chance_pos / breaks) */
	uint32_t level;			/* 0: among all breaks; k: the k-th severity level */
	uint32_t breaks;		/* D_pos of that level: count_pos is out of this */
};

/* One search of patterns__analyse: all breaks (level 0), then the worst ones. */
struct patterns_level {
	uint32_t breaks;		/* breaks mined (D_pos) */
	int64_t late_above_ns;		/* level > 0: the breaks late by more than this; -1 */
	size_t left_out;		/* breaks of level 0 below this level, left out */
	bool found;			/* some pattern emerged */
	double delta, alpha;		/* where its search stopped */
	uint32_t runs;			/* miner runs */
	unsigned bounds;		/* enum miner_bound bits that cut it */
	int64_t mine_ns;
	double window_ratio;		/* mean length of its breaks' windows over the kept
					 * periods' (chance.h); 0 when nothing was mined */
};

struct patterns_result {
	/* NULL when mined; else why there are no patterns (a static string):
	 * "no actor breaks its period", "no break with complete data", ... */
	const char *status;
	long actor;			/* index into actors_result.v, -1 if none */
	char actor_name[64];

	bool skipped;			/* not searched: patterns_cannot_pay() (status says why) */
	double period_ns;		/* skipped: the actor's period */

	/* the subtraces */
	size_t windows_pos, windows_neg;	/* the actor's windows */
	size_t minor_breaks;			/* breaks of jitter (late by less than the cut), left out */
	int64_t min_lateness_ns;		/* patterns__analyse: the actor's cut, ns (0: none) */
	double min_lateness;			/* and as a fraction of the period */
	bool min_lateness_fixed;		/* the cut is a duration (--min-late 2ms), not a share */
	size_t excluded_pos, excluded_neg;	/* overlapping missing data */
	size_t unsampled_pos, unsampled_neg;	/* beyond max_subtraces */
	uint32_t npos, nneg;			/* mined */
	uint64_t stream_events;			/* timeline events in them */
	uint64_t symbols;			/* symbols mined (after collapsing) */
	uint32_t vocabulary;			/* distinct symbols mined */
	size_t truncated;			/* subtraces cut to max_subtrace_len */
	uint32_t max_subtrace_len;
	uint32_t longest;			/* longest subtrace mined */
	bool actor_dropped;			/* the actor's own activity was left out */

	/* severity levels (patterns__analyse; 1 level for patterns__mine_windows) */
	struct patterns_level levels[PATTERNS_MAX_LEVELS];
	uint32_t nlevels;

	/* the search (level 0's; the others in levels[]) */
	uint32_t gap;
	bool auto_delta, auto_alpha;	/* searched rather than given */
	double delta, alpha;		/* given, or where the search stopped */
	bool found;			/* some run of some level reported a pattern */
	uint32_t runs;			/* miner runs, all levels */
	unsigned bounds;		/* enum miner_bound bits that cut some level */
	char bounds_text[256];		/* "search truncated at ..." or "" */
	int64_t mine_ns;		/* time spent mining, all levels */
	int64_t elapsed_ns;		/* the whole stage */

	struct pattern *v;		/* ranked, best first, all levels */
	size_t n;
	size_t total;			/* patterns found (v holds the first keep) */

	void *store;			/* private */
};

/*
 * The stage: mines the windows of the most upstream breaking actor of @ar
 * (ar->upstream; @ar may be NULL) with the options @o (NULL: defaults).
 * Always returns a result (0, *out owned by the caller, patterns__free())
 * unless memory runs out (-ENOMEM), the input is invalid (-EINVAL: no @tl or
 * @out, thresholds out of range) or a side has 2^31 windows or more (-E2BIG):
 * with status set when there is nothing to mine. Reads @tl and @ar only, so
 * it may run beside other stages reading them.
 */
int patterns__analyse(const struct timeline *tl, const struct actors_result *ar,
		      const struct patterns_opts *o, struct patterns_result **out);

/*
 * The same on given windows w[0..n) (positive = D_pos; each ending no
 * earlier than it starts), leaving out the activity of thread @actor_thread
 * (TL_NONE: nothing) unless o->keep_actor; one level, no minor breaks set
 * aside. Returns 0 and *out (patterns__free()), -EINVAL, -E2BIG or -ENOMEM.
 */
int patterns__mine_windows(const struct timeline *tl, const struct period_window *w, size_t n,
			   uint32_t actor_thread, const struct patterns_opts *o,
			   struct patterns_result **out);

/*
 * Why a search over the @major_breaks major breaks of an actor of period
 * @period_ns cannot pay (a static string, the result's status), or NULL
 * when it may: the period is under PATTERNS_MEDIA_PERIOD_NS and the breaks
 * number PATTERNS_STORM_BREAKS or more (see "When a search cannot pay"
 * above). A period of 0 or less (not periodic) is never judged.
 */
const char *patterns_cannot_pay(double period_ns, size_t major_breaks);

/* Frees a result and the names it owns; NULL is fine. */
void patterns__free(struct patterns_result *r);

#endif
