/*
 * Synthetic run fragments of one periodic actor, with the ground truth of
 * its invocations. Shared by tests/unit/actors/test_invocations.c, tests/unit/actors/test_period.c
 * and tests/bench/bench_period.c; no Criterion dependency.
 *
 * Invocation k is released at t0 + k P + shift_k + U(-jitter, +jitter) P,
 * where shift_k adds break_delay_ns for every break at or before k (a late
 * invocation delays the following ones, SATM §3). It runs run_min..run_max
 * ns in total, split into 1 + (0..max_blocks) segments separated by
 * voluntary sleeps (sleep_min..sleep_max) when the invocation blocks
 * (probability block_prob), and every segment into 1 + (0..max_preempt)
 * fragments separated by preemptions (waits of preempt_wait_min..max).
 */
#ifndef QT_SYNTH_ACTOR_H
#define QT_SYNTH_ACTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actors/invocations.h"

struct synth_actor_cfg {
	int64_t t0_ns;
	int64_t period_ns;
	size_t n_inv;
	double jitter;			/* release jitter, fraction of the period */
	int64_t run_min_ns, run_max_ns;	/* total on-CPU time of one invocation */
	unsigned int max_preempt;	/* extra fragments per segment */
	int64_t preempt_wait_min_ns, preempt_wait_max_ns;
	double block_prob;		/* chance that an invocation blocks */
	unsigned int max_blocks;	/* extra segments when it does */
	int64_t sleep_min_ns, sleep_max_ns;
	const size_t *break_at;		/* sorted invocation indices (>= 1) that are late */
	size_t n_breaks;
	int64_t break_delay_ns;
};

static inline uint64_t synth_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static inline int64_t synth_range(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(synth_rand(s) % (uint64_t)(hi - lo + 1));
}

static inline double synth_unit(uint64_t *s)
{
	return (double)(synth_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Upper bound of the fragments synth_actor_gen() writes. */
static inline size_t synth_actor_max_frags(const struct synth_actor_cfg *c)
{
	return c->n_inv * (1 + c->max_blocks) * (1 + c->max_preempt);
}

/*
 * Writes the fragments to f[] (room for synth_actor_max_frags()) and returns
 * their number. inv_first[k] (may be NULL) gets the index of invocation k's
 * first fragment and inv_start[k] (may be NULL) its start time.
 */
static inline size_t synth_actor_gen(const struct synth_actor_cfg *c,
				     uint64_t *seed, struct invoc_fragment *f,
				     size_t *inv_first, int64_t *inv_start)
{
	size_t nf = 0, b = 0;
	int64_t shift = 0;

	for (size_t k = 0; k < c->n_inv; k++) {
		if (b < c->n_breaks && c->break_at[b] == k) {
			shift += c->break_delay_ns;
			b++;
		}
		int64_t jit = (int64_t)((2.0 * synth_unit(seed) - 1.0) *
					c->jitter * (double)c->period_ns);
		int64_t cur = c->t0_ns + (int64_t)k * c->period_ns + shift + jit;
		int64_t run = synth_range(seed, c->run_min_ns, c->run_max_ns);
		unsigned int nseg = 1;

		if (c->max_blocks && synth_unit(seed) < c->block_prob)
			nseg += (unsigned int)synth_range(seed, 1, c->max_blocks);
		if (inv_first)
			inv_first[k] = nf;
		if (inv_start)
			inv_start[k] = cur;

		for (unsigned int s = 0; s < nseg; s++) {
			int64_t seg_run = run / nseg;
			unsigned int nfr = 1 + (unsigned int)synth_range(seed, 0, c->max_preempt);

			for (unsigned int r = 0; r < nfr; r++) {
				int64_t len = seg_run / nfr;
				bool last_frag = r + 1 == nfr;

				if (len < 1)
					len = 1;
				f[nf].start_ns = cur;
				f[nf].end_ns = cur + len;
				f[nf].continues = !last_frag;
				nf++;
				cur += len;
				if (!last_frag)
					cur += synth_range(seed, c->preempt_wait_min_ns,
							   c->preempt_wait_max_ns);
			}
			if (s + 1 < nseg)
				cur += synth_range(seed, c->sleep_min_ns, c->sleep_max_ns);
		}
	}
	return nf;
}

#endif
