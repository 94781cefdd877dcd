/*
 * The kernel's tracefs: where it is mounted, and what a tracepoint's
 * format file says about the layout of its records. The attach path for
 * kernels without BTF reads the records at these offsets.
 */
#ifndef QT_TRACEFS_H
#define QT_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The tracefs directory that has events/ (/sys/kernel/tracing since Linux
 * 4.1, or /sys/kernel/debug/tracing where debugfs is mounted) into root.
 * -ENOENT when neither is mounted; what to do is TRACEFS_MOUNT_HINT.
 */
int tracefs_find(char *root, size_t len);

#define TRACEFS_MOUNT_HINT "mount -t tracefs nodev /sys/kernel/tracing"

enum tracefs_kind {
	TRACEFS_SCALAR,		/* an integer, or an array of them (count > 1) */
	TRACEFS_DATA_LOC,	/* __data_loc: u32, offset | length << 16, from the record's start */
	TRACEFS_REL_LOC,	/* __rel_loc: the same, from the end of the field (Linux 5.18+) */
};

struct tracefs_field {
	char name[48];
	uint16_t offset, size;	/* size of the whole field, all elements */
	uint16_t count;		/* array elements, 1 for a scalar */
	bool is_signed;
	enum tracefs_kind kind;
};

struct tracefs_format {
	struct tracefs_field *fields;	/* the event's own fields, common_* left out */
	size_t nfields;
	char *print_fmt;		/* the text after "print fmt: " */
};

/*
 * Parses the text of a format file. Returns 0, -EBADMSG for a line it
 * cannot read, -ENOMEM. Free with tracefs_format_free().
 */
int tracefs_format_parse(const char *text, struct tracefs_format *f);

/* Reads <root>/events/<event>/format (event: "sys/name"); -errno as open() gives it. */
int tracefs_format_read(const char *root, const char *event, struct tracefs_format *f);

void tracefs_format_free(struct tracefs_format *f);

const struct tracefs_field *tracefs_field(const struct tracefs_format *f, const char *name);

/*
 * How sched_switch's record encodes prev_state, from its print fmt: the
 * bit that means "preempted" (printed as "+") and, per state letter of
 * its __print_flags table, the bit that stands for it. Kernels before 4.14
 * print the task's raw state, later ones a report encoding of their own.
 */
struct tracefs_states {
	uint64_t preempt;
	size_t n;
	struct {
		uint32_t bit;
		char letter;
	} letter[24];
};

/* 0, or -EBADMSG when the print fmt does not say it the way kernels 4.x-6.x do. */
int tracefs_switch_states(const char *print_fmt, struct tracefs_states *s);

#endif
