// SPDX-License-Identifier: MIT
#include <sched.h>
#include <unistd.h>

#include "workq.h"

static int cpus;	/* 0: not counting */
static int busy;	/* atomic */

/* The caller's thread is the first busy one. */
void workq_cpus_set(int ncpu)
{
	__atomic_store_n(&busy, ncpu > 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cpus, ncpu > 0 ? ncpu : 0, __ATOMIC_RELAXED);
}

void workq_busy(int delta)
{
	__atomic_fetch_add(&busy, delta, __ATOMIC_RELAXED);
}

int workq_spare(int want)
{
	int n = __atomic_load_n(&cpus, __ATOMIC_RELAXED);
	int b = __atomic_load_n(&busy, __ATOMIC_RELAXED), got;

	if (!n)
		return want > 0 ? want : 0;
	do {
		got = n - b < want ? n - b : want;
		if (got <= 0)
			return 0;
	} while (!__atomic_compare_exchange_n(&busy, &b, b + got, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return got;
}

int workq_cpus_usable(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}
