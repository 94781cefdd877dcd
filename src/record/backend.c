// SPDX-License-Identifier: MIT
/* The BPF side of a recording, whichever path; see src/record/backend.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "lib/log.h"
#include "internal.h"

/* The section prefix of each BTF path's programs (they share an object). */
static const char *const sec_prefix[] = {
	[REC_BACKEND_BTF] = "tp_btf/",
	[REC_BACKEND_CORE] = "raw_tp/",
};

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/* Optional programs (timers, IPIs) have ctx_ in their names: a kernel may lack them. */
static bool optional(const struct bpf_program *prog)
{
	return strstr(bpf_program__name(prog), "ctx_") != NULL;
}

/*
 * Only the programs of the chosen path; the system calls only if wanted,
 * and the softirq raises only with the IRQs (they tie softirqs to causes).
 */
static void select_programs(struct backend *b, const struct qt_knobs *k, bool raw_tp)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, b->obj) {
		const char *sec = bpf_program__section_name(prog);
		bool keep = b->kind == REC_BACKEND_TRACEFS ? backend_tracefs_wants(b, prog, raw_tp) :
			    !strncmp(sec, sec_prefix[b->kind], strlen(sec_prefix[b->kind]));

		if (!k->want_syscalls && (ends_with(sec, "/sys_enter") || ends_with(sec, "/sys_exit")))
			keep = false;
		if (!k->want_irqs && ends_with(sec, "/softirq_raise"))
			keep = false;
		bpf_program__set_autoload(prog, keep);
	}
}

/*
 * tp_btf programs load only where their tracepoint is: skip the optional
 * ones this kernel lacks (the other paths find out when attaching).
 */
static void skip_missing_optional(struct backend *b)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, b->obj) {
		const char *sec = bpf_program__section_name(prog), *tp = strchr(sec, '/');
		char name[128];

		if (!bpf_program__autoload(prog) || !optional(prog) || !tp)
			continue;
		snprintf(name, sizeof(name), "btf_trace_%s", tp + 1);
		if (!btf || btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) < 0) {
			log_debug("this kernel has no %s tracepoint: not attached", tp + 1);
			bpf_program__set_autoload(prog, false);
		}
	}
	btf__free(btf);
}

/* A map of this object, NULL if it has none of that name. */
static struct bpf_map *map(struct backend *b, const char *name)
{
	return bpf_object__find_map_by_name(b->obj, name);
}

/*
 * The per-thread maps hold every thread that makes a system call (or, for
 * tgid_of and runtime_of, every thread): room for four times those alive
 * now.
 */
static int size_thread_maps(struct backend *b, uint32_t threads)
{
	uint32_t n = threads > 65536 ? 262144 : threads * 4 < 8192 ? 8192 : threads * 4;
	struct bpf_map *by_tid = map(b, "task_ctx_by_tid"), *tgid_of = map(b, "tgid_of");
	struct bpf_map *storage = map(b, "task_ctx"), *runtime_of = map(b, "runtime_of");
	int err = 0;

	/* Task storage where tp_btf can use it; a map by tid elsewhere. */
	if (storage)
		err = bpf_map__set_autocreate(storage, b->kind == REC_BACKEND_BTF);
	if (!err && by_tid)
		err = b->kind == REC_BACKEND_BTF ? bpf_map__set_autocreate(by_tid, false) :
		      bpf_map__set_max_entries(by_tid, n);
	if (!err && tgid_of)
		err = bpf_map__set_max_entries(tgid_of, n);
	if (!err && runtime_of)
		err = bpf_map__set_max_entries(runtime_of, n);
	return err;
}

int backend__open(const struct backend_opts *o, evbuf_record_fn fn, void *ctx, struct backend **out)
{
	struct backend *b = calloc(1, sizeof(*b));
	int err;

	if (!b)
		return -ENOMEM;
	b->kind = o->choice->backend;
	b->ncpus = libbpf_num_possible_cpus();
	err = b->kind == REC_BACKEND_TRACEFS ? backend_tracefs_open(b, o) : backend_btf_open(b, o);
	if (err)
		goto fail;
	select_programs(b, &o->knobs, o->choice->raw_tp);
	if (b->kind == REC_BACKEND_BTF)
		skip_missing_optional(b);
	err = size_thread_maps(b, o->threads);
	if (!err)
		err = evbuf__new(map(b, "events"), o->choice->buffer, o->buffer_bytes, &b->eb);
	if (err) {
		log_err("cannot set up the BPF maps: %s", strerror(-err));
		goto fail;
	}
	err = bpf_object__load(b->obj);
	if (err) {
		log_err("cannot load the BPF programs: %s (run with -vvv for the verifier log)",
			strerror(-err));
		goto fail;
	}
	err = evbuf__open(b->eb, fn, ctx);
	if (err) {
		log_err("cannot set up the %s consumer: %s",
			o->choice->buffer == REC_BUFFER_PERF ? "perf buffer" : "ring buffer", strerror(-err));
		goto fail;
	}
	*out = b;
	return 0;
fail:
	backend__destroy(b);
	return err;
}

int backend__add_target(struct backend *b, uint32_t tgid)
{
	__u8 one = 1;

	if (bpf_map_update_elem(bpf_map__fd(map(b, "targets")), &tgid, &one, BPF_ANY))
		return -errno;
	return 0;
}

static int attach_one(struct backend *b, struct bpf_program *prog)
{
	struct bpf_link *link = b->attach(b, prog), **v;
	int err;

	if (!link) {
		err = -errno;
		if (optional(prog)) {
			log_debug("cannot attach %s (%s): %s; not attached", bpf_program__section_name(prog),
				  bpf_program__name(prog), strerror(-err));
			return 0;
		}
		log_err("cannot attach %s (%s): %s", bpf_program__section_name(prog),
			bpf_program__name(prog), strerror(-err));
		return err;
	}
	v = realloc(b->links, (b->nlinks + 1) * sizeof(*v));
	if (!v) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	b->links = v;
	b->links[b->nlinks++] = link;
	return 0;
}

int backend__attach(struct backend *b)
{
	struct bpf_program *prog;
	int err;

	for (int pass = 0; pass < 2; pass++) {
		bpf_object__for_each_program(prog, b->obj) {
			bool is_exit = strstr(bpf_program__section_name(prog), "_exit") != NULL;

			if (!bpf_program__autoload(prog) || is_exit != (pass == 0))
				continue;
			err = attach_one(b, prog);
			if (err)
				return err;
		}
	}
	return 0;
}

void backend__known_threads(struct backend *b, const struct tf_thread *t, size_t n)
{
	struct bpf_map *tgid_of = map(b, "tgid_of");
	int fd;

	if (!tgid_of)
		return;
	fd = bpf_map__fd(tgid_of);
	/* What the programs learnt meanwhile (task_newtask) is newer: kept. */
	for (size_t i = 0; i < n; i++)
		bpf_map_update_elem(fd, &t[i].tid, &t[i].tgid, BPF_NOEXIST);
}

int backend__consume(struct backend *b)
{
	return evbuf__consume(b->eb);
}

const char *backend__missing(const struct backend *b)
{
	return b->missing;
}

uint64_t backend__capacity(const struct backend *b)
{
	return evbuf__capacity(b->eb);
}

int backend__cpu_stats(struct backend *b, struct qt_cpu_stats *v, int ncpus)
{
	__u32 zero = 0;

	if (ncpus != b->ncpus)
		return -EINVAL;
	if (bpf_map_lookup_elem(bpf_map__fd(map(b, "cpu_stats")), &zero, v))
		return -errno;
	for (int i = 0; i < ncpus; i++) {
		uint64_t perf = evbuf__lost(b->eb, i);

		/* of the records, not of the programs' reports of their losses */
		perf = perf > v[i].lost_records_refused ? perf - v[i].lost_records_refused : 0;
		if (perf > v[i].lost)
			v[i].lost = perf;
	}
	return 0;
}

uint64_t backend__missed(struct backend *b)
{
	struct bpf_program *prog;
	uint64_t n = 0;

	bpf_object__for_each_program(prog, b->obj) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);

		if (bpf_program__fd(prog) >= 0 &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			n += info.recursion_misses;
	}
	return n;
}

void backend__detach(struct backend *b)
{
	for (size_t i = 0; i < b->nlinks; i++)
		bpf_link__destroy(b->links[i]);
	b->nlinks = 0;
}

void backend__destroy(struct backend *b)
{
	if (!b)
		return;
	backend__detach(b);
	free(b->links);
	evbuf__free(b->eb);
	if (b->skel)
		b->skel_destroy(b->skel);
	free(b);
}
