/*
 * End-to-end: what the attach paths and buffers do besides recording the
 * workload (test_e2e_record.c runs its checks once per path): a perf
 * buffer that overflows counts and locates every loss, as the ring buffer
 * does; -v says which path was chosen and why; bad --backend and --btf
 * arguments and a missing tracefs are refused with a message that says
 * what to do (missing privileges: test_e2e_record.c); and the object of the path without BTF
 * holds no CO-RE relocation (libbpf would demand the kernel's BTF to load
 * it). Needs root and a kernel that can record; otherwise SKIPPED.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <sys/stat.h>

#include "e2eutil.h"
#include "testutil.h"
#include "file/trace.h"
#include "record/probe.h"
#include "record/tracefs.h"
#include "timeline/timeline.h"

/* Skips unless this kernel can record with --backend spec. */
static void require_backend(const char *spec)
{
	enum rec_backend b = REC_BACKEND_AUTO;
	enum rec_buffer buf = REC_BUFFER_AUTO;
	struct probe_choice c;
	char msg[512];

	require_recording();
	cr_assert_eq(probe_parse_backend(spec, &b, &buf), 0);
	/* as perf and trace-cmd do, where it is not mounted yet */
	if (b == REC_BACKEND_TRACEFS && tracefs_find(msg, sizeof(msg)) && system(TRACEFS_MOUNT_HINT))
		fprintf(stderr, "could not mount tracefs\n");
	if (probe_choose(b, buf, NULL, &c, msg, sizeof(msg))) {
		fprintf(stderr, "SKIPPED: --backend %s: %s\n", spec, msg);
		cr_skip_test("--backend %s: %s", spec, msg);
	}
}

/* Skips unless the program at path is installed. */
static void require_program(const char *path)
{
	if (access(path, X_OK)) {
		fprintf(stderr, "SKIPPED: %s missing (scripts/install-deps.sh installs it)\n", path);
		cr_skip_test("%s missing", path);
	}
}

static const char *qostrace(void)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/qostrace", build_dir());
	return path;
}

/* ---- losses ---- */

/*
 * A context-switch storm into a small perf buffer: the programs count each
 * record they could not write, per CPU, and the file locates every one in
 * a loss window; the timeline invents no run across a window.
 */
static void perfbuf_overflow(const char *spec)
{
	char *d, path[300], cmd[1024], *out;
	struct trace *t;
	struct timeline *tl;
	char err[512];
	uint64_t located = 0, runs_across = 0, per_cpu = 0;
	const char *list, *p;

	require_backend(spec);
	require_program("/usr/bin/stress-ng");
	d = tu_tmpdir();
	snprintf(path, sizeof(path), "%s/perf.qtrace", d);
	snprintf(cmd, sizeof(cmd), "%s record -a --no-syscalls --backend %s --buffer-size 64K --poll 200 "
		 "-o '%s' -- /usr/bin/stress-ng --switch 2 -t 3 -q", qostrace(), spec, path);
	cr_assert_eq(e2e_sh(cmd, &out), 0, "%s", out);
	cr_assert_eq(trace__load(path, NULL, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert(t->finished);
	cr_assert_eq(timeline__build(t, NULL, &tl), 0);
	for (size_t i = 0; i < t->nlost; i++)
		located += t->lost[i].count;
	for (size_t k = 0; k < tl->nruns; k++)
		for (size_t g = 0; g < tl->ngaps; g++)
			runs_across += tl->gaps[g].kind == TL_GAP_LOST && tl->gaps[g].cpu == tl->runs[k].cpu &&
				       tl->gaps[g].start < tl->runs[k].end && tl->gaps[g].end > tl->runs[k].start;
	list = tf_kv_get(&t->end, TF_END_LOST_CPU);
	cr_assert(list);
	for (p = list; *p; p += strcspn(p, ","), p += !!*p)
		per_cpu += strtoull(p, NULL, 10);
	fprintf(stderr, "  --backend %s, 64K: %zu switches, lost %llu, located %llu, per CPU %s\n", spec,
		t->nsw, (unsigned long long)t->lost_events, (unsigned long long)located, list);
	cr_expect_gt(t->lost_events, 0, "a 64 KiB perf buffer kept up with a switch storm: nothing tested");
	cr_expect_eq(located, t->lost_events, "lost %llu, located %llu",
		     (unsigned long long)t->lost_events, (unsigned long long)located);
	cr_expect_eq(per_cpu, t->lost_events, "the per-CPU counts (%s) do not add up", list);
	cr_expect_eq(runs_across, 0, "%llu runs cross a loss window", (unsigned long long)runs_across);
	cr_expect(strstr(out, "LOST") && strstr(out, "perf buffer full"), "the summary does not say it:\n%s",
		  out);
	free(out);
	timeline__free(tl);
	trace__free(t);
	tu_rmdir(d);
	free(d);
}

Test(e2e_backends, perfbuf_losses_are_counted_and_located, .timeout = 120)
{
	perfbuf_overflow("perfbuf");
}

Test(e2e_backends, tracefs_perfbuf_losses_are_counted_and_located, .timeout = 120)
{
	perfbuf_overflow("tracefs,perfbuf");
}

/* ---- what -v says ---- */

Test(e2e_backends, verbose_says_which_path_and_why, .timeout = 60)
{
	char *d, cmd[1024], *out;

	require_backend("tracefs,perfbuf");
	d = tu_tmpdir();
	snprintf(cmd, sizeof(cmd), "%s record -v -a -d 0.3 -o '%s/auto.qtrace'", qostrace(), d);
	cr_assert_eq(e2e_sh(cmd, &out), 0, "%s", out);
	cr_expect(strstr(out, "attach path ") && strstr(out, "the best this kernel allows"), "%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s record -v -a -d 0.3 --backend tracefs,perfbuf -o '%s/forced.qtrace'",
		 qostrace(), d);
	cr_assert_eq(e2e_sh(cmd, &out), 0, "%s", out);
	cr_expect(strstr(out, "attach path tracefs (classic tracepoints, field offsets from the format "
			 "files in /sys/"), "%s", out);
	cr_expect(strstr(out, "a perf buffer per CPU: as --backend asked"), "%s", out);
	free(out);
	tu_rmdir(d);
	free(d);
}

/* ---- refusals ---- */

/* Runs cmd: its exit code, and its output must hold want; no file may be left at path. */
static void refused(const char *cmd, int code, const char *want, const char *path)
{
	struct stat st;
	char *out;
	int rc = e2e_sh(cmd, &out);

	cr_expect_eq(rc, code, "exit %d, not %d: %s\n%s", rc, code, cmd, out);
	cr_expect(strstr(out, want), "'%s' not said by: %s\n%s", want, cmd, out);
	cr_expect(stat(path, &st) != 0, "%s left behind by: %s", path, cmd);
	free(out);
}

Test(e2e_backends, bad_backend_and_btf_arguments, .timeout = 60)
{
	char *d, cmd[1024], path[300], junk[300];
	FILE *f;

	require_recording();
	d = tu_tmpdir();
	snprintf(path, sizeof(path), "%s/x.qtrace", d);
	snprintf(junk, sizeof(junk), "%s/junk.btf", d);
	f = fopen(junk, "w");
	cr_assert(f);
	fputs("not BTF at all, not at all", f);
	fclose(f);

	snprintf(cmd, sizeof(cmd), "%s record -a -d 0.2 --backend bpf -o '%s'", qostrace(), path);
	refused(cmd, 2, "--backend 'bpf': expected btf, core or tracefs, and/or ringbuf or perfbuf", path);
	snprintf(cmd, sizeof(cmd), "%s record -a -d 0.2 --backend btf,core -o '%s'", qostrace(), path);
	refused(cmd, 2, "--backend 'btf,core'", path);
	snprintf(cmd, sizeof(cmd), "%s record -a -d 0.2 --btf '%s/missing.btf' -o '%s'", qostrace(), d, path);
	refused(cmd, 1, "missing.btf: no such file", path);
	snprintf(cmd, sizeof(cmd), "%s record -a -d 0.2 --btf '%s' -o '%s'", qostrace(), junk, path);
	refused(cmd, 1, "junk.btf: not a BTF file, or a damaged one", path);
	snprintf(cmd, sizeof(cmd), "%s record -a -d 0.2 --backend btf --btf /sys/kernel/btf/vmlinux -o '%s'",
		 qostrace(), path);
	refused(cmd, 1, "--btf /sys/kernel/btf/vmlinux is for --backend core", path);
	tu_rmdir(d);
	free(d);
}

/* In a mount namespace of its own, without tracefs: the message says how to mount it. */
Test(e2e_backends, missing_tracefs_says_how_to_mount_it, .timeout = 60)
{
	char *d, cmd[1024], path[300];

	require_recording();
	require_program("/usr/bin/unshare");
	d = tu_tmpdir();
	snprintf(path, sizeof(path), "%s/x.qtrace", d);
	snprintf(cmd, sizeof(cmd), "unshare -m --propagation private sh -c 'umount -l /sys/kernel/tracing "
		 "2>/dev/null; umount -l /sys/kernel/debug 2>/dev/null; %s record -a -d 0.2 --backend tracefs "
		 "-o %s'", qostrace(), path);
	refused(cmd, 1, "tracefs is not mounted (no /sys/kernel/tracing/events): mount it with: "
		"mount -t tracefs nodev /sys/kernel/tracing", path);
	tu_rmdir(d);
	free(d);
}

/* ---- the object of the path without BTF ---- */

/* The header of .BTF.ext (linux/btf.h keeps it private to libbpf). */
struct btf_ext_header {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len;
	uint32_t func_info_off, func_info_len;
	uint32_t line_info_off, line_info_len;
	uint32_t core_relo_off, core_relo_len;
};

/* The bytes of CO-RE relocation records in a BPF object, or -1 if it has no .BTF.ext. */
static long core_relo_bytes(const char *obj)
{
	int fd = open(obj, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	long bytes = -1;

	cr_assert(fd >= 0, "%s: %s", obj, strerror(errno));
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert(elf && !elf_getshdrstrndx(elf, &shstrndx));
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		struct btf_ext_header h = { 0 };

		if (!gelf_getshdr(scn, &sh) || strcmp(elf_strptr(elf, shstrndx, sh.sh_name), ".BTF.ext"))
			continue;
		data = elf_getdata(scn, NULL);
		cr_assert(data && data->d_size >= 24);
		memcpy(&h, data->d_buf, data->d_size < sizeof(h) ? data->d_size : sizeof(h));
		bytes = h.hdr_len >= sizeof(h) ? (long)h.core_relo_len : 0;
	}
	elf_end(elf);
	close(fd);
	return bytes;
}

Test(e2e_backends, tracefs_object_has_no_core_relocation)
{
	char obj[300];

	require_recording();
	snprintf(obj, sizeof(obj), "%s/bpf/qostrace_tracefs.bpf.o", build_dir());
	cr_expect_eq(core_relo_bytes(obj), 0, "%s relocates against the kernel's BTF", obj);
	/* and the check can see relocations: the object of the BTF paths has them */
	snprintf(obj, sizeof(obj), "%s/bpf/qostrace.bpf.o", build_dir());
	cr_expect_gt(core_relo_bytes(obj), 0, "%s: no CO-RE relocation found", obj);
}
