// SPDX-License-Identifier: MIT
/* What the categories of a critical path are called, in reports and analyses alike. */
#include <stdio.h>

#include "critical.h"
#include "file/trace.h"

const char *critical_cat_name(enum crit_cat cat, uint16_t sub, const struct trace *t, char *buf, size_t len)
{
	switch (cat) {
	case CRIT_CAT_NONE: return "exact adjacency";
	case CRIT_CAT_GAP: return "control overhead";
	case CRIT_CAT_INIT: return "initial control task";
	case CRIT_CAT_CONT: return "program order";
	case CRIT_CAT_PREEMPT: return "CPU wait";
	case CRIT_CAT_BLOCKED: return "blocked (no recorded waker)";
	case CRIT_CAT_RESOURCE: return "CPU hand-over";
	case CRIT_CAT_WAKEUP:
		if (!sub)
			return "wakeup latency";
		/* the waker raised the softirq that woke (walk.c) */
		snprintf(buf, len, "wakeup latency via %s", softirq_name(sub - 1));
		return buf;
	case CRIT_CAT_OWN_WAIT: return "waits within the invocation";
	case CRIT_CAT_REL_HARDIRQ:
		if (t)
			return irq_source_name(t, sub, buf, len);
		snprintf(buf, len, "irq %u", sub);
		return buf;
	case CRIT_CAT_REL_SOFTIRQ:
		snprintf(buf, len, "softirq %s", softirq_name(sub));
		return buf;
	case CRIT_CAT_REL_KERNEL: return "woken by the kernel";
	case CRIT_CAT_REL_WAKER: return "woken outside a recorded run";
	case CRIT_CAT_REL_NONE: return "no recorded cause";
	case CRIT_CAT_REL_START: return "before the recording";
	default: return "?";
	}
}
