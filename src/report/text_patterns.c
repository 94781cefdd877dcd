// SPDX-License-Identifier: MIT
/* The emerging patterns in the terminal report; see src/report/text_patterns.h. */
#include <math.h>
#include <stdio.h>

#include "lib/parse.h"
#include "patterns/miner.h"
#include "text_actors.h"
#include "text_patterns.h"

static void pct(char *buf, size_t len, double f)
{
	double p = f * 100;

	snprintf(buf, len, p == floor(p) ? "%.0f %%" : "%.1f %%", p);
}

/*
 * Whether the breaks' windows' length makes a visible difference to a
 * pattern's chance count (a twentieth over the plain proportion).
 */
static bool by_length(const struct pattern *p, uint32_t nneg)
{
	double plain = nneg ? (double)p->count_neg * p->breaks / nneg : 0;

	return p->chance_pos > 1.05 * plain + 0.005;
}

static void print_search(FILE *f, const char *what, bool searched, const struct patterns_level *l)
{
	char b1[16], b2[16];

	pct(b1, sizeof(b1), l->delta);
	pct(b2, sizeof(b2), l->alpha);
	if (!searched)
		fprintf(f, "%s: patterns in >= %s of the breaks, <= %s of the periods", what, b1, b2);
	else if (l->found)
		fprintf(f, "%s: first patterns at >= %s of the breaks, <= %s of the periods", what, b1, b2);
	else
		fprintf(f, "%s: none down to >= %s of the breaks, <= %s of the periods", what, b1, b2);
	/* The periods' share is then scaled to the longer windows (patterns/chance.h); 0 % stays 0 %. */
	if (l->alpha > 0 && l->window_ratio >= PATTERNS_LONGER_WINDOWS)
		fprintf(f, " (scaled: the breaks' windows are %.1fx as long)", l->window_ratio);
}

void text_patterns_print(const struct patterns_result *r, FILE *f, const struct report_style *st)
{
	size_t top;
	char title[128], b1[16], b2[16], b3[32];

	if (!r)
		return;
	if (r->actor_name[0])
		snprintf(title, sizeof(title), "What happens when %s breaks its period", r->actor_name);
	else
		snprintf(title, sizeof(title), "What happens when the period breaks");
	rs_section(f, st, title);
	if (r->skipped) {
		/* The figures the rule read (patterns_cannot_pay()), then why and how to force it. */
		fprintf(f, "period %s, %zu breaks late by %s or more: %s\n",
			fmt_duration(b3, sizeof(b3), (int64_t)r->period_ns), r->windows_pos - r->minor_breaks,
			fmt_duration(b1, sizeof(b1), r->min_lateness_ns), r->status);
		return;
	}
	if (!r->npos) {
		fprintf(f, "%s: no emerging patterns to look for\n", r->status ? r->status : "nothing to mine");
		if (r->excluded_pos)
			fprintf(f, "%zu breaks overlap missing data and were left out\n", r->excluded_pos);
		return;
	}
	fprintf(f, "%u breaks", r->npos);
	if (r->minor_breaks) {
		struct actors_cut c = { .frac = r->min_lateness, .ns = r->min_lateness_fixed ? r->min_lateness_ns : 0 };

		fprintf(f, " (late by %s or more)", text_actors_cut(b3, sizeof(b3), c, "the period"));
	}
	fprintf(f, " against %u kept periods", r->nneg);
	if (r->minor_breaks || r->excluded_pos + r->excluded_neg) {
		fprintf(f, "; left out:");
		if (r->minor_breaks)
			fprintf(f, " %zu break%s of jitter%s", r->minor_breaks, r->minor_breaks == 1 ? "" : "s",
				r->excluded_pos + r->excluded_neg ? "," : "");
		if (r->excluded_pos + r->excluded_neg)
			fprintf(f, " %zu windows with missing data", r->excluded_pos + r->excluded_neg);
	}
	if (r->unsampled_pos + r->unsampled_neg)
		fprintf(f, "; sampled, %zu windows not mined", r->unsampled_pos + r->unsampled_neg);
	fprintf(f, "\n%u kinds of event, gap %u%s%s%s\n", r->vocabulary, r->gap,
		r->actor_dropped ? ", the activity of " : "",
		r->actor_dropped ? (r->actor_name[0] ? r->actor_name : "the actor") : "",
		r->actor_dropped ? " itself left out" : "");
	{
		bool searched = r->auto_delta || r->auto_alpha;
		char what[96];

		if (searched)
			fprintf(f, "thresholds searched from 100 %% / 0 %%\n");
		snprintf(what, sizeof(what), "%s breaks", r->nlevels > 1 ? "all" : "the");
		print_search(f, what, searched, &r->levels[0]);
		fprintf(f, "\n");
		for (uint32_t i = 1; i < r->nlevels; i++) {
			const struct patterns_level *l = &r->levels[i];

			snprintf(what, sizeof(what), "the %u worst, late by more than %s (Otsu)", l->breaks,
				 fmt_duration(b3, sizeof(b3), l->late_above_ns));
			print_search(f, what, searched, l);
			fprintf(f, "\n");
		}
		fprintf(f, "%s%u miner runs, %s%s\n", rs_dim(st), r->runs, fmt_duration(b3, sizeof(b3), r->mine_ns),
			rs_reset(st));
	}
	if (r->truncated)
		fprintf(f, "%s%zu subtraces longer than %u events were cut to their beginning%s\n", rs_dim(st),
			r->truncated, r->max_subtrace_len, rs_reset(st));
	if (r->bounds & ~MINER_BOUND_MAX_LEN)
		fprintf(f, "%s%s%s\n", rs_yellow(st), r->bounds_text, rs_reset(st));
	else if (r->bounds)
		fprintf(f, "%s%s%s\n", rs_dim(st), r->bounds_text, rs_reset(st));
	if (!r->n) {
		fprintf(f, "%s\n", r->status ? r->status : "no patterns");
		return;
	}
	top = st->verbose ? r->n : (r->n < 5 ? r->n : 5);
	for (size_t i = 0; i < top; i++) {
		const struct pattern *p = &r->v[i];

		fprintf(f, "%3zu. ", i + 1);
		for (uint32_t k = 0; k < p->len; k++)
			fprintf(f, "%s%s", k ? " -> " : "", p->events[k]);
		pct(b1, sizeof(b1), p->delta);
		pct(b2, sizeof(b2), p->alpha);
		fprintf(f, "  %s(in %u/%u%s breaks", rs_dim(st), p->count_pos, p->breaks, p->level ? " worst" : "");
		if (by_length(p, r->nneg))
			fprintf(f, ", %.*f expected by chance;", p->chance_pos < 1 ? 2 : 1, p->chance_pos);
		else
			fprintf(f, ",");
		fprintf(f, " %u/%u periods; at %s / %s)%s\n", p->count_neg, r->nneg, b1, b2, rs_reset(st));
	}
	if (r->total > top)
		fprintf(f, "%s... %zu more patterns (-v, --json)%s\n", rs_dim(st), r->total - top, rs_reset(st));
}
