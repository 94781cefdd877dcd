// SPDX-License-Identifier: MIT
/* Names the critical-path section prints (critical_names.h). */
#include <stdio.h>

#include "actors/actors.h"
#include "critical/critical.h"
#include "critical_names.h"
#include "file/gantt_csv.h"

const char *critical_names_owner(const struct analysis *a, uint32_t ow, char *buf, size_t len)
{
	if (ow == CRIT_NONE)
		return "-";
	if (a->gantt)
		return ow < a->gantt->n_actors ? a->gantt->actors[ow] : "?";
	if (!a->tl || ow >= a->tl->nthreads)
		return "?";
	snprintf(buf, len, "%s/%u", a->tl->threads[ow].comm, a->tl->threads[ow].tid);
	return buf;
}

const char *critical_names_actor(const struct analysis *a, const struct crit_actor *ca, char *buf, size_t len)
{
	if (a->actors && ca->actor < a->actors->n)
		return a->actors->v[ca->actor].name;
	return critical_names_owner(a, ca->thread, buf, len);
}

const char *critical_names_task(const struct analysis *a, uint32_t t)
{
	return a->gantt->names[a->gantt->name[t]];
}
