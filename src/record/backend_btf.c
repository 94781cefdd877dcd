// SPDX-License-Identifier: MIT
/*
 * The BPF object of the paths with BTF (bpf/qostrace.bpf.c): tp_btf, or
 * raw_tp with CO-RE relocated against the kernel's BTF or a file.
 */
#include <errno.h>
#include <string.h>

#include "lib/log.h"
#include "internal.h"
#include "datacalls.h"
#include "qostrace.skel.h"

static void destroy(void *skel)
{
	qostrace_bpf__destroy(skel);
}

static struct bpf_link *attach(struct backend *b, struct bpf_program *prog)
{
	return bpf_program__attach(prog);
}

int backend_btf_open(struct backend *b, const struct backend_opts *o)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = o->btf_path);
	struct qostrace_bpf *skel;
	int err;

	skel = qostrace_bpf__open_opts(&oo);
	if (!skel) {
		err = -errno;
		log_err("cannot open the BPF object: %s", strerror(-err));
		return err;
	}
	skel->rodata->knobs = o->knobs;
	if (o->knobs.want_data)
		datacalls_fill((uint8_t *)skel->rodata->data_calls, QT_DATA_NRS, NULL);
	b->skel = skel;
	b->obj = skel->obj;
	b->skel_destroy = destroy;
	b->attach = attach;
	return 0;
}
