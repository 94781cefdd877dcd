// SPDX-License-Identifier: MIT
/*
 * Benchmark of the miner on synthetic subtraces shaped like SATM's GStreamer
 * experiment (§6.1): a system-wide kernel event stream over a vocabulary with
 * Zipf-like frequencies, made of repeated per-thread motifs (switch-in,
 * syscalls, switch-out) with interleaved noise (IRQs...), plus one "intruder"
 * execution per subtrace that emits A_x B_y C_z for random bits x, y, z. The
 * target A0 B1 C0 is what breaks the period: it is planted in --target-pos of
 * D_pos and --target-neg of D_neg; the other seven combinations fill the rest.
 *
 *   bench_miner [--pos N] [--neg N] [--len N] [--vocab N] [--gap G]
 *               [--mode motif|zipf|loop] [--what mine|auto|both] [--seed S]
 *               [--delta PCT] [--alpha PCT] [--max-nodes N] [--max-len N]
 *
 * Prints one "key value" per line; peak RSS from getrusage().
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "patterns/miner.h"
#include "patterns/miner_auto.h"
#include "ref/miner_contains.h"

static unsigned long long rng_state = 1;

static unsigned long long rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static double rnd01(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

struct zipf {
	double *cdf;
	uint32_t n;
};

static void zipf_init(struct zipf *z, uint32_t n, double s)
{
	double sum = 0;

	z->n = n;
	z->cdf = malloc(n * sizeof(*z->cdf));
	for (uint32_t k = 0; k < n; k++) {
		sum += 1.0 / pow(k + 1, s);
		z->cdf[k] = sum;
	}
	for (uint32_t k = 0; k < n; k++)
		z->cdf[k] /= sum;
}

static uint32_t zipf_draw(const struct zipf *z)
{
	double u = rnd01();
	uint32_t lo = 0, hi = z->n - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (z->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define NMOTIF 40
#define INTRUDER_BASE 1000000u	/* ids of A0 A1 B0 B1 C0 C1 */

struct gen {
	uint32_t vocab, len;
	int motif_mode;
	struct zipf zv, zm;
	uint32_t motif[NMOTIF][8], motif_len[NMOTIF];
};

/* One subtrace; @target: plant A0 B1 C0, else one of the other 7 combinations. */
static void gen_seq(struct gen *g, uint32_t *out, int target)
{
	uint32_t n = 0, at = (uint32_t)(rnd() % (g->len - 8)), combo;
	int planted = 0;

	if (target)
		combo = 2;	/* bits (A,B,C) = (0,1,0) */
	else
		do
			combo = (uint32_t)(rnd() % 8);
		while (combo == 2);
	while (n < g->len) {
		if (!planted && n >= at) {
			/* The intruder, with up to one noise event between steps. */
			uint32_t ev[3] = {
				INTRUDER_BASE + 0 + ((combo >> 2) & 1),
				INTRUDER_BASE + 2 + ((combo >> 1) & 1),
				INTRUDER_BASE + 4 + (combo & 1),
			};

			for (int k = 0; k < 3 && n < g->len; k++) {
				out[n++] = ev[k];
				if (k < 2 && n < g->len && rnd01() < 0.3)
					out[n++] = zipf_draw(&g->zv);
			}
			planted = 1;
			continue;
		}
		if (g->motif_mode == 2) {
			/* "loop": a few threads cycling through short fixed loops, the
			 * worst case for the search: everything frequent, everywhere. */
			uint32_t m = (uint32_t)(rnd() % 4);

			for (uint32_t k = 0; k < g->motif_len[m] && n < g->len; k++)
				out[n++] = g->motif[m][k];
			if (n < g->len && rnd01() < 0.05)
				out[n++] = zipf_draw(&g->zv);
		} else if (g->motif_mode && rnd01() < 0.7) {
			uint32_t m = zipf_draw(&g->zm);

			for (uint32_t k = 0; k < g->motif_len[m] && n < g->len; k++) {
				out[n++] = g->motif[m][k];
				if (n < g->len && rnd01() < 0.1)
					out[n++] = zipf_draw(&g->zv);
			}
		} else {
			out[n++] = zipf_draw(&g->zv);
		}
	}
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void print_pattern(const char *key, const uint32_t *sym, uint32_t len)
{
	printf("%s ", key);
	for (uint32_t k = 0; k < len; k++) {
		if (sym[k] >= INTRUDER_BASE)
			printf("%s%c%u", k ? "," : "", "ABC"[(sym[k] - INTRUDER_BASE) / 2],
			       (sym[k] - INTRUDER_BASE) % 2);
		else
			printf("%s%u", k ? "," : "", sym[k]);
	}
	printf("\n");
}

static int is_target(const uint32_t *sym, uint32_t len)
{
	return len == 3 && sym[0] == INTRUDER_BASE && sym[1] == INTRUDER_BASE + 3 &&
	       sym[2] == INTRUDER_BASE + 4;
}

int main(int argc, char **argv)
{
	uint32_t npos = 200, nneg = 800, len = 2000, vocab = 200, gap = 2;
	double tpos = 0.95, tneg = 0.015;
	const char *mode = "motif", *what = "both";
	uint32_t delta = 100, alpha = 0, max_len = 0;
	long long max_nodes = -1;
	struct miner_seq *seqs;
	uint32_t *buf;
	struct gen g = { 0 };
	struct miner_data *d;
	struct miner_opts o;
	int64_t t;
	int err;

	for (int i = 1; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (!strcmp(k, "--pos"))
			npos = (uint32_t)atoi(v);
		else if (!strcmp(k, "--neg"))
			nneg = (uint32_t)atoi(v);
		else if (!strcmp(k, "--len"))
			len = (uint32_t)atoi(v);
		else if (!strcmp(k, "--vocab"))
			vocab = (uint32_t)atoi(v);
		else if (!strcmp(k, "--gap"))
			gap = (uint32_t)atoi(v);
		else if (!strcmp(k, "--mode"))
			mode = v;
		else if (!strcmp(k, "--what"))
			what = v;
		else if (!strcmp(k, "--seed"))
			rng_state = strtoull(v, NULL, 0) | 1;
		else if (!strcmp(k, "--delta"))
			delta = (uint32_t)atoi(v);
		else if (!strcmp(k, "--alpha"))
			alpha = (uint32_t)atoi(v);
		else if (!strcmp(k, "--max-nodes"))
			max_nodes = atoll(v);
		else if (!strcmp(k, "--max-len"))
			max_len = (uint32_t)atoi(v);
		else if (!strcmp(k, "--target-pos"))
			tpos = atof(v);
		else if (!strcmp(k, "--target-neg"))
			tneg = atof(v);
		else {
			fprintf(stderr, "unknown option %s\n", k);
			return 2;
		}
	}
	if (len < 16 || vocab < 2 || !npos) {
		fprintf(stderr, "need --len >= 16, --vocab >= 2, --pos >= 1\n");
		return 2;
	}
	g.vocab = vocab;
	g.len = len;
	g.motif_mode = !strcmp(mode, "motif") ? 1 : !strcmp(mode, "loop") ? 2 : 0;
	zipf_init(&g.zv, vocab, 1.0);
	zipf_init(&g.zm, NMOTIF, 1.0);
	for (int m = 0; m < NMOTIF; m++) {
		g.motif_len[m] = 3 + (uint32_t)(rnd() % 6);
		for (uint32_t k = 0; k < g.motif_len[m]; k++)
			g.motif[m][k] = zipf_draw(&g.zv);
	}
	seqs = malloc((size_t)(npos + nneg) * sizeof(*seqs));
	buf = malloc((size_t)(npos + nneg) * len * sizeof(*buf));
	if (!seqs || !buf)
		return 1;
	t = now_ns();
	for (uint32_t i = 0; i < npos + nneg; i++) {
		int target = i < npos ? rnd01() < tpos : rnd01() < tneg;

		gen_seq(&g, buf + (size_t)i * len, target);
		seqs[i].sym = buf + (size_t)i * len;
		seqs[i].len = len;
	}
	printf("mode %s\npos %u\nneg %u\nlen %u\nvocab %u\ngap %u\nevents %llu\n", mode, npos,
	       nneg, len, vocab, gap, (unsigned long long)(npos + nneg) * len);
	printf("generate_s %.3f\n", (double)(now_ns() - t) / 1e9);

	miner_opts_default(&o);
	o.gap_max = gap;
	if (max_nodes >= 0)
		o.max_nodes = (uint64_t)max_nodes;
	if (max_len)
		o.max_len = max_len;
	t = now_ns();
	err = miner_data__new(seqs, npos, seqs + npos, nneg, &o, &d);
	if (err) {
		fprintf(stderr, "miner_data__new: %s\n", strerror(-err));
		return 1;
	}
	printf("index_s %.3f\nsymbols %u\n", (double)(now_ns() - t) / 1e9, miner_data__nsymbols(d));
	{
		uint32_t tp[3] = { INTRUDER_BASE, INTRUDER_BASE + 3, INTRUDER_BASE + 4 }, cp, cn;

		miner_contains_count(seqs, npos, seqs + npos, nneg, tp, 3, 0, gap, &cp, &cn);
		printf("target_pos_count %u\ntarget_neg_count %u\n", cp, cn);
	}

	if (!strcmp(what, "mine") || !strcmp(what, "both")) {
		struct miner_result *r;
		char msg[256];

		o.delta_ppm = PPM_PCT(delta);
		o.alpha_ppm = PPM_PCT(alpha);
		err = miner_data__mine(d, &o, &r);
		if (err) {
			fprintf(stderr, "mine: %s\n", strerror(-err));
			return 1;
		}
		miner_bounds_describe(r->bounds, &r->opts, msg, sizeof(msg));
		printf("mine_delta_pct %u\nmine_alpha_pct %u\n", delta, alpha);
		printf("mine_s %.3f\nmine_nodes %" PRIu64 "\nmine_work %" PRIu64 "\n",
		       (double)r->elapsed_ns / 1e9, r->nodes, r->work);
		printf("mine_symbols_frequent %u\nmine_patterns %u\nmine_bounds %s\n",
		       r->nsymbols_frequent, r->npatterns, r->bounds ? msg : "none (exact)");
		for (uint32_t i = 0; i < r->npatterns && i < 5; i++)
			print_pattern("mine_pattern", r->patterns[i].sym, r->patterns[i].len);
		miner_result__free(r);
	}
	if (!strcmp(what, "auto") || !strcmp(what, "both")) {
		struct miner_auto_opts ao;
		struct miner_auto_result *ar;
		int rank = -1;

		miner_auto_opts_default(&ao);
		ao.base = o;
		err = miner_auto_run(d, &ao, &ar);
		if (err) {
			fprintf(stderr, "auto: %s\n", strerror(-err));
			return 1;
		}
		for (uint32_t i = 0; i < ar->npatterns; i++)
			if (is_target(ar->patterns[i].sym, ar->patterns[i].len) && rank < 0)
				rank = (int)i + 1;
		printf("auto_s %.3f\nauto_runs %u\nauto_found %d\nauto_patterns %u\n",
		       (double)ar->elapsed_ns / 1e9, ar->nruns, ar->found, ar->npatterns);
		for (uint32_t i = 0; i < ar->nruns; i++) {
			const struct miner_auto_run *ru = &ar->runs[i];

			printf("auto_run delta=%.1f%% alpha=%.1f%% min_pos=%u max_neg=%u "
			       "patterns=%u nodes=%" PRIu64 " bounds=%#x s=%.3f\n",
			       ru->delta_ppm / 1e4, ru->alpha_ppm / 1e4, ru->min_pos, ru->max_neg,
			       ru->npatterns, ru->nodes, ru->bounds, (double)ru->elapsed_ns / 1e9);
		}
		for (uint32_t i = 0; i < ar->npatterns && i < 5; i++) {
			const struct miner_auto_pattern *p = &ar->patterns[i];
			char key[128];

			snprintf(key, sizeof(key), "auto_top%u score=%.3f pos=%u neg=%u at=%.0f%%/%.0f%%",
				 i + 1, p->score, p->pos_count, p->neg_count, p->delta_ppm / 1e4,
				 p->alpha_ppm / 1e4);
			print_pattern(key, p->sym, p->len);
		}
		printf("auto_target_rank %d\nauto_bounds %#x\n", rank, ar->bounds);
		miner_auto_result__free(ar);
	}
	printf("peak_rss_kb %ld\n", peak_rss_kb());
	miner_data__free(d);
	free(g.zv.cdf);
	free(g.zm.cdf);
	free(buf);
	free(seqs);
	return 0;
}
