/*
 * libFuzzer target: any bytes as a Gantt chart CSV, then the critical-path
 * analysis of whatever parses.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/analysis.h"
#include "file/gantt_csv.h"
#include "lib/log.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gantt *g = NULL;
	struct analysis *an = NULL;
	struct analysis_opts o;
	char err[512];
	FILE *f;

	log_level = LOG_QUIET;
	f = fmemopen((void *)data, size ? size : 1, "r");
	if (!f)
		return 0;
	if (!size)
		fgetc(f);
	if (gantt__parse(f, "fuzz.csv", NULL, &g, err, sizeof(err)) == 0) {
		analysis_opts_default(&o);
		if (analysis__run_gantt(g, &o, &an) == 0) {
			struct report_style st = { 0 };
			FILE *devnull = fopen("/dev/null", "w");

			report_json(an, devnull);
			report_text(an, devnull, &st);
			fclose(devnull);
			analysis__free(an);
		}
		gantt__free(g);
	}
	fclose(f);
	return 0;
}
