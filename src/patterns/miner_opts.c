// SPDX-License-Identifier: MIT
/*
 * The miner's options (miner.h): their defaults, and the thresholds they
 * set as the exact counts every part of the miner uses (ppm.h).
 */
#include <string.h>

#include "miner.h"

void miner_opts_default(struct miner_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->delta_ppm = PPM_ONE;
	o->alpha_ppm = 0;
	o->gap_max = 2;
	o->gap_min = 0;
	o->max_len = 8;
	o->max_nodes = 100000;
	o->time_budget_ns = 0;
	o->max_patterns = 1000;
	o->max_seq_len = 0;
}

uint32_t miner_min_pos(uint32_t delta_ppm, uint32_t npos)
{
	uint64_t v = ((uint64_t)delta_ppm * npos + PPM_ONE - 1) / PPM_ONE;

	return v ? (uint32_t)v : 1;
}

uint32_t miner_max_neg(uint32_t alpha_ppm, uint32_t nneg)
{
	return ppm_floor(alpha_ppm, nneg);
}
