/* SPDX-License-Identifier: MIT */
/*
 * The data-flow graph the plain way (tests/unit/dataflow/test_dataflow.c
 * compares src/dataflow/ with it), by the definitions of
 * docs/ALGORITHMS.md §9.2-9.4 applied one call at a time: a content read
 * sees the mutation completed last before it began; a stream is simulated
 * byte by byte, with the smallest fill before the recording that lets no
 * read take a byte not yet written; a mutation's critical input is, of
 * everything its process (and the processes it was forked from, before the
 * fork) read before it started, the state made last, or the object's
 * previous version if that is later. Quadratic; for small inputs with
 * distinct times, reads, writes, O_TRUNC, renames and forks (no
 * transfers or messages).
 */
#ifndef QT_DATAFLOW_REF_H
#define QT_DATAFLOW_REF_H

#include "dataflow/dataflow.h"

/* What a read obtained, or a state's critical input: the call that made the state. */
struct df_ref_who {
	int kind;		/* 0: none (a root), 1: the state made by call op, 2: the PRETRACE of obj */
	uint32_t op, obj;
};

/*
 * For every call of in: pred[i] the critical input of the state call i
 * made (mutations), got[i] what read i obtained (reads). The arrays have
 * in->nops entries. 0, or -ENOMEM.
 */
int dataflow_ref(const struct df_input *in, struct df_ref_who *pred, struct df_ref_who *got);

#endif
