/* System call names by number, per architecture (uname -m of the recording). */
#ifndef QT_SYSCALL_NAMES_H
#define QT_SYSCALL_NAMES_H

#include <stddef.h>

/*
 * "read", "write", ...; NULL if unknown. arch is uname -m of the recording:
 * x86_64 (also for NULL), i386..i686, arm* (32-bit ARM EABI, armv7l, armv8l),
 * anything else the generic table (aarch64, riscv64, ...).
 */
const char *syscall_name(const char *arch, unsigned int nr);
/* The name, or "syscall NR" in buf for a number without one. */
const char *syscall_label(const char *arch, unsigned int nr, char *buf, size_t len);
/* The number of a named call, or -1. */
int syscall_number(const char *arch, const char *name);

#endif
