/*
 * libFuzzer target: any bytes as a trace file. trace__load, the timeline,
 * the analysis and both renderings must return an error or a result, never
 * crash, hang or allocate without bound.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "lib/log.h"
#include "report/report.h"
#include "timeline/timeline.h"
#include "file/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct trace *t = NULL;
	struct timeline *tl = NULL;
	struct analysis *an = NULL;
	struct analysis_opts o;
	char path[64], err[512];
	FILE *devnull;

	if (fd < 0) {
		log_level = LOG_QUIET;
		fd = memfd_create("fuzz.qtrace", 0);
		if (fd < 0)
			abort();
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (trace__load(path, NULL, &t, err, sizeof(err)))
		return 0;
	/* As report and export read a file: the records freed as the timeline takes them. */
	if (timeline__build_consuming(t, NULL, &tl) == 0) {
		analysis_opts_default(&o);
		if (analysis__run_trace(t, tl, &o, &an) == 0) {
			struct report_style st = { 0 };

			devnull = fopen("/dev/null", "w");
			report_json(an, devnull);
			report_text(an, devnull, &st);
			fclose(devnull);
			analysis__free(an);
		}
		timeline__free(tl);
	}
	trace__free(t);
	return 0;
}
