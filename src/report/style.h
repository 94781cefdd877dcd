/* The text report's style: colour only on a terminal, -v for more. */
#ifndef QT_REPORT_STYLE_H
#define QT_REPORT_STYLE_H

#include <stdbool.h>
#include <stdio.h>

struct report_style {
	bool color;
	int verbose;
};

/* ANSI attributes, empty strings without colour. */
const char *rs_bold(const struct report_style *st);
const char *rs_dim(const struct report_style *st);
const char *rs_red(const struct report_style *st);
const char *rs_green(const struct report_style *st);
const char *rs_yellow(const struct report_style *st);
const char *rs_reset(const struct report_style *st);
/* A section title: "== Title" underlined the same way everywhere. */
void rs_section(FILE *f, const struct report_style *st, const char *title);

#endif
