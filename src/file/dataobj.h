/* SPDX-License-Identifier: MIT */
/*
 * The object of a data record (struct qt_data_obj, include/qt_events.h)
 * as a person reads it, and back: the forms `dump`, `report --data-path`
 * print and `report --data-path=OBJECT` accepts.
 */
#ifndef QT_DATAOBJ_H
#define QT_DATAOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qt_events.h"

/* The S_IFMT of an object, as its mode holds it. */
#define DATAOBJ_FMT(o) ((o)->mode & QT_DATA_MODE_FMT)

/*
 * "pipe:[INO]", "socket:[INO]" (the names /proc/PID/fd shows), "unix
 * stream:[INO]" for an AF_UNIX socket, "MAJ:MIN:INO" for anything else
 * (a file, a device: the device holding the inode), "?" when the
 * descriptor was not resolved; written into buf.
 */
const char *dataobj_name(const struct qt_data_obj *o, char *buf, size_t len);

/*
 * Parses an OBJECT of report --data-path: "MAJ:MIN:INO", "pipe:[INO]" or
 * "socket:[INO]" (or a bare INO) into *dev (UINT32_MAX: any device) and
 * *ino. 0, or -EINVAL.
 */
int dataobj_parse(const char *s, uint32_t *dev, uint64_t *ino);

#endif
