// SPDX-License-Identifier: MIT
/* progress_compute(): classify, sweep, cycle (see progress.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int progress_compute(const struct pg_input *in, struct progress *p)
{
	struct pg_zero *z[2] = { NULL, NULL };
	size_t nz[2] = { 0, 0 };
	int err = 0;

	memset(p, 0, sizeof(*p));
	p->dead_at = -1;
	/* T0: both threads exist; before it the partner could not block anyone (§8.3) */
	p->t0 = in->th[0].origin > in->th[1].origin ? in->th[0].origin : in->th[1].origin;
	p->t_end = in->t_end;
	if (p->t0 > p->t_end)
		return -EINVAL;
	p->gx = p->t0 - in->th[0].origin;
	p->gy = p->t0 - in->th[1].origin;
	for (int t = 0; t < 2 && !err; t++)
		err = classify_thread(&in->th[t], in->t_end, &z[t], &nz[t], &p->th[t]);
	if (!err)
		err = sweep_build(in, z, nz, p);
	if (!err)
		err = cycle_find(p);
	free(z[0]);
	free(z[1]);
	if (err)
		progress_release(p);
	return err;
}

void progress_release(struct progress *p)
{
	free(p->rays);
	free(p->blocks);
	free(p->complete);
	free(p->dep);
	memset(p, 0, sizeof(*p));
	p->dead_at = -1;
}
