// SPDX-License-Identifier: MIT
/*
 * What the first touch of memory costs on this machine: maps SIZE MiB
 * (transparent huge pages requested), writes one byte per page, unmaps, and
 * again ROUNDS times. The first round pays for pages the kernel has not
 * handed out lately (on a virtual machine the hypervisor may back them only
 * now); the following rounds reuse the pages just freed. An analysis that
 * touches N GB of fresh memory pays N times the first round's cost.
 *
 *   mem_touch SIZE_MIB [ROUNDS]     prints one line per round: MiB, s, GB/s
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 0, n = mib << 20;
	int rounds = argc > 2 ? atoi(argv[2]) : 2;

	if (!mib || rounds < 1) {
		fprintf(stderr, "usage: mem_touch SIZE_MIB [ROUNDS]\n");
		return 2;
	}
	for (int r = 0; r < rounds; r++) {
		volatile char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		double t;

		if (p == MAP_FAILED) {
			perror("mem_touch: mmap");
			return 1;
		}
		madvise((void *)p, n, MADV_HUGEPAGE);
		t = now();
		for (size_t i = 0; i < n; i += 4096)
			p[i] = 1;
		t = now() - t;
		printf("round %d: %zu MiB in %.3f s = %.2f GB/s\n", r + 1, mib, t, n / t / 1e9);
		munmap((void *)p, n);
	}
	return 0;
}
