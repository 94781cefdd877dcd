// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "log.h"

enum log_level log_level = LOG_NORMAL;
static bool status_shown;

/*
 * A line at a time under stderr's lock: the trace loader's read-ahead
 * thread warns about damaged blocks while the loader itself may warn.
 * The lock also guards status_shown.
 */
static void vlog(const char *prefix, const char *fmt, va_list ap)
{
	flockfile(stderr);
	log_status_end();
	fputs("qostrace: ", stderr);
	if (prefix)
		fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

void log_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("error: ", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	if (log_level < LOG_NORMAL)
		return;
	va_start(ap, fmt);
	vlog("warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	if (log_level < LOG_INFO)
		return;
	va_start(ap, fmt);
	vlog(NULL, fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (log_level < LOG_DEBUG)
		return;
	va_start(ap, fmt);
	vlog("debug: ", fmt, ap);
	va_end(ap);
}

bool log_is_tty(void)
{
	return isatty(STDERR_FILENO);
}

void log_status(const char *fmt, ...)
{
	va_list ap;

	if (log_level < LOG_NORMAL || !log_is_tty())
		return;
	flockfile(stderr);
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	status_shown = true;
	funlockfile(stderr);
}

void log_status_end(void)
{
	flockfile(stderr);
	if (status_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		status_shown = false;
	}
	funlockfile(stderr);
}
