/*
 * What the files of src/record/ that drive the BPF objects share: the
 * backend's state, and the openers of the two objects (backend_btf.c,
 * backend_tracefs.c), the only files that know their skeletons. No one
 * outside src/record/ may use it.
 */
#ifndef QT_RECORD_INTERNAL_H
#define QT_RECORD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <bpf/libbpf.h>

#include "backend.h"

struct backend {
	enum rec_backend kind;
	struct bpf_object *obj;		/* the skeleton's */
	void *skel;
	void (*skel_destroy)(void *skel);
	/* how one program attaches; the tracefs path opens its events itself */
	struct bpf_link *(*attach)(struct backend *b, struct bpf_program *prog);
	char tracefs_root[128];
	char missing[64];		/* backend__missing() */
	struct evbuf *eb;
	struct bpf_link **links;
	size_t nlinks;
	int ncpus;
};

/*
 * Open the object of the BTF paths (btf, core; against o->btf_path when
 * given) or of the tracefs path, set its knobs (and the tracefs path's
 * record layouts), and fill obj, skel, skel_destroy and attach. Nothing is
 * loaded. 0 or a negative errno after logging why.
 */
int backend_btf_open(struct backend *b, const struct backend_opts *o);
int backend_tracefs_open(struct backend *b, const struct backend_opts *o);

/*
 * Whether the tracefs path loads prog: of a program it has twice (tp_X on
 * a classic tracepoint, tpr_X on the raw one) the raw one where the kernel
 * has raw tracepoints (raw_tp); sched_stat_runtime's only where the
 * kernel has the event.
 */
bool backend_tracefs_wants(struct backend *b, const struct bpf_program *prog, bool raw_tp);

#endif
