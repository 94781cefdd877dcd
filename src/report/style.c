// SPDX-License-Identifier: MIT
/* How the text report looks; see style.h. */
#include "style.h"

const char *rs_bold(const struct report_style *st) { return st->color ? "\033[1m" : ""; }
const char *rs_dim(const struct report_style *st) { return st->color ? "\033[2m" : ""; }
const char *rs_red(const struct report_style *st) { return st->color ? "\033[31m" : ""; }
const char *rs_green(const struct report_style *st) { return st->color ? "\033[32m" : ""; }
const char *rs_yellow(const struct report_style *st) { return st->color ? "\033[33m" : ""; }
const char *rs_reset(const struct report_style *st) { return st->color ? "\033[0m" : ""; }

void rs_section(FILE *f, const struct report_style *st, const char *title)
{
	fprintf(f, "\n%s== %s%s\n", rs_bold(st), title, rs_reset(st));
}
