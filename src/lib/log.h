/* Messages to the user: errors, warnings, and verbosity tiers (-v, -vv, -vvv). */
#ifndef QT_LOG_H
#define QT_LOG_H

#include <stdbool.h>

enum log_level {
	LOG_QUIET = -1,	/* -q: errors only */
	LOG_NORMAL = 0,	/* warnings and results */
	LOG_INFO = 1,	/* -v: progress */
	LOG_DEBUG = 2,	/* -vv */
	LOG_LIBBPF = 3,	/* -vvv: libbpf's own log too */
};

extern enum log_level log_level;

void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* True when stderr is a terminal and progress lines may be redrawn. */
bool log_is_tty(void);
/* Redraws a one-line status on the terminal; no-op elsewhere or with -q. */
void log_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_status_end(void);

#endif
