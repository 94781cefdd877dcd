/* SPDX-License-Identifier: MIT */
/*
 * The data system calls of docs/ALGORITHMS.md §9.2 by number, for the
 * programs of the paths with BTF (bpf/data.bpf.h): which descriptors each
 * names. The numbers are the recording machine's (its uname -m), the
 * table the loader hands to the programs before load.
 */
#ifndef QT_DATACALLS_H
#define QT_DATACALLS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Fills tab[0..n) with enum qt_data_call (include/qt_events.h) for the
 * system calls of arch (uname -m; NULL: this machine's); every other
 * number gets QT_DC_NONE. Returns how many calls it found.
 */
size_t datacalls_fill(uint8_t *tab, size_t n, const char *arch);

#endif
