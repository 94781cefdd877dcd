// SPDX-License-Identifier: MIT
/*
 * The choice of an attach path and buffer from what a kernel offers, for
 * the kernels a set-top runs (6.x with BTF, 5.15 with BTF, 5.4 without,
 * 5.1), with and without --backend and --btf: the best path that works,
 * and for a wish the kernel cannot grant a message naming the release
 * that brought what is missing. Also the --backend words.
 */
#include <errno.h>

#include "testutil.h"
#include "record/probe.h"

/* 6.x with BTF: everything. */
static struct probe_features full(void)
{
	return (struct probe_features){
		.release = "6.1.0-test", .global_data = true, .ringbuf = true, .perfbuf = true,
		.raw_tp = true, .tracepoint = true, .task_storage = true, .kernel_btf = true,
		.kernel_switch_args = 4, .file_switch_args = -1, .tracefs = true,
		.tracefs_root = "/sys/kernel/tracing",
	};
}

/* 5.15 with BTF: no prev_state argument yet. */
static struct probe_features k515(void)
{
	struct probe_features f = full();

	snprintf(f.release, sizeof(f.release), "5.15.0-test");
	f.kernel_switch_args = 3;
	return f;
}

/* 5.4 without BTF, as many set-tops: no ring buffer, no task storage. */
static struct probe_features k54(void)
{
	struct probe_features f = full();

	snprintf(f.release, sizeof(f.release), "5.4.0-stb");
	f.ringbuf = f.task_storage = f.kernel_btf = false;
	f.kernel_switch_args = -1;
	return f;
}

static struct probe_choice choose(const struct probe_features *f, enum rec_backend b, enum rec_buffer buf,
				  const char *btf)
{
	struct probe_choice c;
	char msg[512] = "";

	cr_assert_eq(probe_decide(f, b, buf, btf, &c, msg, sizeof(msg)), 0, "%s", msg);
	return c;
}

static void refused(const struct probe_features *f, enum rec_backend b, enum rec_buffer buf,
		    const char *btf, const char *want)
{
	struct probe_choice c;
	char msg[512] = "";

	cr_expect_neq(probe_decide(f, b, buf, btf, &c, msg, sizeof(msg)), 0, "accepted: %s", c.why);
	cr_expect(strstr(msg, want), "'%s' not in: %s", want, msg);
}

Test(probe, the_best_path_of_each_kernel)
{
	struct probe_features f = full();
	struct probe_choice c = choose(&f, REC_BACKEND_AUTO, REC_BUFFER_AUTO, NULL);

	cr_expect_eq(c.backend, REC_BACKEND_BTF);
	cr_expect_eq(c.buffer, REC_BUFFER_RING);
	cr_expect(strstr(c.why, "the best this kernel allows"), "%s", c.why);

	f = k515();
	c = choose(&f, REC_BACKEND_AUTO, REC_BUFFER_AUTO, NULL);
	cr_expect_eq(c.backend, REC_BACKEND_CORE);
	cr_expect(!c.switch_state_arg, "prev_state is read from the task before 5.18");
	cr_expect(strstr(c.why, "not btf: kernel 5.15.0-test: sched_switch does not pass prev_state "
			 "(Linux 5.18+"), "%s", c.why);

	f = k54();
	c = choose(&f, REC_BACKEND_AUTO, REC_BUFFER_AUTO, NULL);
	cr_expect_eq(c.backend, REC_BACKEND_TRACEFS);
	cr_expect_eq(c.buffer, REC_BUFFER_PERF);
	cr_expect_str_eq(c.tracefs_root, "/sys/kernel/tracing");
	cr_expect(strstr(c.why, "not core: kernel 5.4.0-stb has no BTF"), "%s", c.why);
}

Test(probe, btf_file_means_core)
{
	struct probe_features f = k54();
	struct probe_choice c;

	f.file_switch_args = 3;
	c = choose(&f, REC_BACKEND_AUTO, REC_BUFFER_AUTO, "/tmp/5.4.btf");
	cr_expect_eq(c.backend, REC_BACKEND_CORE);
	cr_expect(strstr(c.why, "/tmp/5.4.btf"), "%s", c.why);

	f = full();
	f.file_switch_args = 4;
	c = choose(&f, REC_BACKEND_AUTO, REC_BUFFER_AUTO, "/tmp/vmlinux.btf");
	cr_expect_eq(c.backend, REC_BACKEND_CORE, "--btf asks for CO-RE against the file");
	cr_expect(c.switch_state_arg);

	refused(&f, REC_BACKEND_BTF, REC_BUFFER_AUTO, "/tmp/vmlinux.btf", "is for --backend core");
	refused(&f, REC_BACKEND_TRACEFS, REC_BUFFER_AUTO, "/tmp/vmlinux.btf", "is for --backend core");
	f.btf_file_err = -ENOENT;
	refused(&f, REC_BACKEND_AUTO, REC_BUFFER_AUTO, "/nonexistent", "--btf /nonexistent: no such file");
	f.btf_file_err = -EPROTO;
	refused(&f, REC_BACKEND_CORE, REC_BUFFER_AUTO, "/etc/passwd", "not a BTF file, or a damaged one");
	f.btf_file_err = -ENOMSG;
	refused(&f, REC_BACKEND_CORE, REC_BUFFER_AUTO, "/tmp/x.btf", "not a kernel's BTF");
}

Test(probe, what_a_kernel_cannot_do)
{
	struct probe_features f = k54();

	refused(&f, REC_BACKEND_AUTO, REC_BUFFER_RING, NULL,
		"kernel 5.4.0-stb has no BPF ring buffer (Linux 5.8+");
	refused(&f, REC_BACKEND_BTF, REC_BUFFER_AUTO, NULL, "--backend btf: kernel 5.4.0-stb has no BTF");
	refused(&f, REC_BACKEND_CORE, REC_BUFFER_AUTO, NULL, "give this kernel's BTF with --btf FILE");
	f.tracefs = false;
	refused(&f, REC_BACKEND_TRACEFS, REC_BUFFER_AUTO, NULL,
		"tracefs is not mounted (no /sys/kernel/tracing/events): mount it with: "
		"mount -t tracefs nodev /sys/kernel/tracing");
	refused(&f, REC_BACKEND_AUTO, REC_BUFFER_AUTO, NULL, "no way to record on kernel 5.4.0-stb; not btf:");

	f = full();
	f.task_storage = false;
	refused(&f, REC_BACKEND_BTF, REC_BUFFER_AUTO, NULL, "no BPF task storage (Linux 5.11+");
	f = full();
	f.raw_tp = false;
	refused(&f, REC_BACKEND_CORE, REC_BUFFER_AUTO, NULL, "no raw tracepoint programs (Linux 4.17+");
	f = full();
	f.global_data = false;
	snprintf(f.release, sizeof(f.release), "5.1.0");
	refused(&f, REC_BACKEND_AUTO, REC_BUFFER_AUTO, NULL, "kernel 5.1.0 cannot hand read-only values");
}

/* Every path with every buffer, but tp_btf with a perf buffer: its kernels all have a ring. */
Test(probe, every_combination_this_kernel_allows)
{
	struct probe_features f = full();
	struct probe_choice c;

	for (int b = REC_BACKEND_BTF; b <= REC_BACKEND_TRACEFS; b++) {
		for (int buf = REC_BUFFER_RING; buf <= REC_BUFFER_PERF; buf++) {
			if (b == REC_BACKEND_BTF && buf == REC_BUFFER_PERF)
				continue;
			c = choose(&f, b, buf, NULL);
			cr_expect_eq(c.backend, (enum rec_backend)b);
			cr_expect_eq(c.buffer, (enum rec_buffer)buf);
			cr_expect(strstr(c.why, "as --backend asked"), "%s", c.why);
		}
	}
	refused(&f, REC_BACKEND_BTF, REC_BUFFER_PERF, NULL, "tp_btf programs write to the ring buffer only");
	c = choose(&f, REC_BACKEND_AUTO, REC_BUFFER_PERF, NULL);
	cr_expect_eq(c.backend, REC_BACKEND_CORE, "--backend perfbuf: the best path that has one");
	cr_expect(strstr(c.why, "not btf: tp_btf programs write to the ring buffer only"), "%s", c.why);
}

Test(probe, backend_words)
{
	enum rec_backend b = REC_BACKEND_AUTO;
	enum rec_buffer buf = REC_BUFFER_AUTO;

	cr_expect_eq(probe_parse_backend("tracefs,perfbuf", &b, &buf), 0);
	cr_expect_eq(b, REC_BACKEND_TRACEFS);
	cr_expect_eq(buf, REC_BUFFER_PERF);
	b = REC_BACKEND_AUTO;
	buf = REC_BUFFER_AUTO;
	cr_expect_eq(probe_parse_backend("ringbuf", &b, &buf), 0);
	cr_expect_eq(b, REC_BACKEND_AUTO, "a buffer alone leaves the path to the probe");
	cr_expect_eq(buf, REC_BUFFER_RING);
	cr_expect_eq(probe_parse_backend("perfbuf,core", &b, &buf), 0);
	cr_expect_eq(b, REC_BACKEND_CORE);
	cr_expect_eq(buf, REC_BUFFER_PERF);
	cr_expect_eq(probe_parse_backend("btf,core", &b, &buf), -EINVAL, "two paths");
	cr_expect_eq(probe_parse_backend("ringbuf,perfbuf", &b, &buf), -EINVAL, "two buffers");
	cr_expect_eq(probe_parse_backend("bpf", &b, &buf), -EINVAL);
	cr_expect_eq(probe_parse_backend("", &b, &buf), -EINVAL);
	cr_expect_eq(probe_parse_backend("core,", &b, &buf), -EINVAL);
	cr_expect_eq(probe_parse_backend("tracefsx", &b, &buf), -EINVAL);
	cr_expect_str_eq(probe_backend_name(REC_BACKEND_CORE), "core");
	cr_expect_str_eq(probe_buffer_name(REC_BUFFER_PERF), "perfbuf");
}

/*
 * The tracefs path's CPU time comes from sched_stat_runtime, which fair
 * threads have always emitted, real-time and deadline ones since 5.16,
 * the stop class since 6.8.
 */
Test(probe, runtime_missing_by_release)
{
	cr_expect_str_eq(probe_runtime_missing("4.9.118-stb"), "runtime-rt,runtime-dl,runtime-stop");
	cr_expect_str_eq(probe_runtime_missing("5.15.0-test"), "runtime-rt,runtime-dl,runtime-stop");
	cr_expect_str_eq(probe_runtime_missing("5.16"), "runtime-stop");
	cr_expect_str_eq(probe_runtime_missing("6.1.0-50-armmp"), "runtime-stop");
	cr_expect_str_eq(probe_runtime_missing("6.7.12"), "runtime-stop");
	cr_expect_str_eq(probe_runtime_missing("6.8.0"), "");
	cr_expect_str_eq(probe_runtime_missing("6.18.44-fc"), "");
	cr_expect_str_eq(probe_runtime_missing("7.0"), "");
	cr_expect_str_eq(probe_runtime_missing("garbage"), "runtime-rt,runtime-dl,runtime-stop",
			 "a release it cannot read: the file claims nothing it may not have");
}

/*
 * A 32-bit kernel with BTF: tp_btf programs load there but read wrong
 * values (the kernel's interpreter), so auto takes core, and a wish for
 * tp_btf is refused with the reason and the way out.
 */
Test(probe, no_tp_btf_on_32_bit_kernels)
{
	struct probe_features f = full();
	struct probe_choice c;

	snprintf(f.release, sizeof(f.release), "6.1.0-armbtf");
	f.kernel_ptr_size = 4;
	c = choose(&f, REC_BACKEND_AUTO, REC_BUFFER_AUTO, NULL);
	cr_expect_eq(c.backend, REC_BACKEND_CORE);
	cr_expect(strstr(c.why, "not btf: kernel 6.1.0-armbtf is 32-bit"), "%s", c.why);
	refused(&f, REC_BACKEND_BTF, REC_BUFFER_AUTO, NULL, "--backend core records the same");
	f.kernel_ptr_size = 8;
	cr_expect_eq(choose(&f, REC_BACKEND_AUTO, REC_BUFFER_AUTO, NULL).backend, REC_BACKEND_BTF);
}
