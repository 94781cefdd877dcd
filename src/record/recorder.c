// SPDX-License-Identifier: MIT
/* The recorder; see src/record/recorder.h. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "lib/log.h"
#include "lib/parse.h"
#include "backend.h"
#include "probe.h"
#include "procfs.h"
#include "recorder.h"
#include "target.h"
#include "file/tracefile.h"
#include "file/writer.h"

#ifndef QOSTRACE_VERSION
#define QOSTRACE_VERSION "0.1"
#endif

const char *recorder_missing(void)
{
	return NULL;
}

/* recorder_opts.data, the default decided: see there. */
static bool recorder_wants_data(const struct recorder_opts *o)
{
	if (o->no_syscalls || o->data < 0)
		return false;
	return o->data > 0 || o->mode != REC_MODE_ALL;
}

static volatile sig_atomic_t signals_seen;
static volatile sig_atomic_t last_signal;

static void on_signal(int sig)
{
	signals_seen++;
	last_signal = sig;
}

static void on_sigchld(int sig)
{
	/* Only interrupts the poll so that the loop notices the exit at once. */
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Sleeps, but returns early when a signal arrives. */
static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && log_level < LOG_LIBBPF)
		return 0;
	if (level == LIBBPF_INFO && log_level < LOG_DEBUG)
		return 0;
	if (level == LIBBPF_WARN && log_level < LOG_INFO)
		return 0;
	log_status_end();
	return vfprintf(stderr, fmt, ap);
}

struct ctx {
	struct writer *w;
	uint64_t consumed;
	uint64_t consumed_bytes;
};

static int on_record(void *arg, void *data, size_t size)
{
	struct ctx *c = arg;

	c->consumed++;
	c->consumed_bytes += size;
	writer__push(c->w, data, size);
	return 0;
}

/* Sums the per-CPU kernel counters. lost_cpu gets one total per CPU. */
static int read_kernel_stats(struct backend *be, uint64_t *lost, uint64_t *lost_by_type,
			     uint64_t *lost_cpu, int ncpus)
{
	struct qt_cpu_stats *v;
	int err;

	v = calloc(ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	err = backend__cpu_stats(be, v, ncpus);
	if (err) {
		free(v);
		return err;
	}
	*lost = 0;
	if (lost_by_type)
		memset(lost_by_type, 0, sizeof(uint64_t) * QT_REC_MAX);
	for (int i = 0; i < ncpus; i++) {
		*lost += v[i].lost;
		if (lost_cpu)
			lost_cpu[i] = v[i].lost;
		if (lost_by_type)
			for (int t = 0; t < QT_REC_MAX; t++)
				lost_by_type[t] += v[i].lost_by_type[t];
	}
	free(v);
	return 0;
}

static int build_meta(struct tf_kv *m, const struct recorder_opts *o, const struct probe_choice *c,
		      const struct backend *be, const uint32_t *tgids, size_t ntgids, uint64_t start)
{
	struct utsname u;
	char host[256] = "", targets[1024] = "";
	size_t off = 0;
	int err = 0;

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	for (size_t i = 0; i < ntgids && off < sizeof(targets) - 16; i++)
		off += snprintf(targets + off, sizeof(targets) - off, "%s%u", i ? "," : "", tgids[i]);
	err |= tf_kv_set(m, TF_META_VERSION, "%s", QOSTRACE_VERSION);
	err |= tf_kv_set(m, TF_META_KERNEL, "%s", u.release);
	err |= tf_kv_set(m, TF_META_ARCH, "%s", u.machine);
	err |= tf_kv_set(m, TF_META_HOST, "%s", host);
	err |= tf_kv_set(m, TF_META_CPUS, "%d", libbpf_num_possible_cpus());
	err |= tf_kv_set(m, TF_META_CLOCK, "CLOCK_MONOTONIC");
	err |= tf_kv_set(m, TF_META_BOOT_OFFSET, "%lld", (long long)(real_ns() - mono_ns()));
	err |= tf_kv_set(m, TF_META_CMDLINE, "%s", o->cmdline ? o->cmdline : "");
	err |= tf_kv_set(m, TF_META_START, "%llu", (unsigned long long)start);
	err |= tf_kv_set(m, TF_META_MODE, "%s",
			 o->mode == REC_MODE_ALL ? "all" : o->mode == REC_MODE_PIDS ? "pids" : "command");
	err |= tf_kv_set(m, TF_META_TARGETS, "%s", targets);
	err |= tf_kv_set(m, TF_META_RECORDER, "%d", getpid());
	err |= tf_kv_set(m, TF_META_RING, "%llu", (unsigned long long)o->ring_bytes);
	err |= tf_kv_set(m, TF_META_FEATURES, "sched,wakeup,lifecycle%s%s%s",
			 o->no_syscalls ? "" : ",syscalls", o->no_irqs ? "" : ",irqs",
			 recorder_wants_data(o) ? ",data" : "");
	err |= tf_kv_set(m, TF_META_BACKEND, "%s", probe_backend_name(c->backend));
	err |= tf_kv_set(m, TF_META_BUFFER, "%s", probe_buffer_name(c->buffer));
	err |= tf_kv_set(m, TF_META_MISSING, "%s", backend__missing(be));
	return err ? -ENOMEM : 0;
}

/*
 * A CPU reports a loss window when it next reserves a record; windows still
 * open when the programs were detached are written here, so that every
 * lost record counted by the kernel is also located in time.
 */
static void flush_pending_losses(struct writer *w, struct backend *be, int ncpus)
{
	struct qt_cpu_stats *v = calloc(ncpus, sizeof(*v));

	if (!v)
		return;
	if (backend__cpu_stats(be, v, ncpus) == 0) {
		for (int i = 0; i < ncpus; i++) {
			struct qt_lost l = { .h = { .type = QT_REC_LOST, .cpu = i } };

			if (!v[i].lost_pending)
				continue;
			l.h.ts = v[i].lost_last_ts + 1;
			l.first_ts = v[i].lost_first_ts;
			l.last_ts = v[i].lost_last_ts;
			l.count = v[i].lost_pending;
			writer__push(w, &l, sizeof(l));
		}
	}
	free(v);
}

static bool alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

static void push_stats(struct writer *w, struct backend *be, int ncpus, uint64_t consumed)
{
	struct writer_stats ws;
	struct qt_stats s = { .h = { .ts = mono_ns(), .type = QT_REC_STATS } };
	uint64_t lost = 0;

	writer__stats(w, &ws);
	read_kernel_stats(be, &lost, NULL, NULL, ncpus);
	s.lost = lost;
	s.consumed = consumed;
	s.emitted = consumed + lost;
	s.user_dropped = ws.user_dropped + ws.malformed;
	writer__push(w, &s, sizeof(s));
}

int recorder_run(const struct recorder_opts *o, struct recorder_summary *sum)
{
	struct backend *be = NULL;
	struct probe_choice choice;
	struct writer *w = NULL;
	struct tf_thread *threads = NULL;
	size_t nthreads = 0;
	struct tf_kv meta = { 0 }, end = { 0 };
	struct ctx c = { 0 };
	uint32_t tgids[256];
	size_t ntgids = 0;
	pid_t child = -1;
	int go_fd = -1, status_fd = -1, ncpus, err;
	char msg[512];
	uint64_t start, now, last_tick, grace_until = 0, last_consumed = 0;
	uint64_t lost_cpu[1024] = { 0 };
	struct sigaction sa = { .sa_handler = on_signal }, sc = { .sa_handler = on_sigchld };
	struct writer_opts wo = {
		.path = o->path, .sink = o->sink, .force = o->force, .zlevel = o->zlevel,
		.block_bytes = o->block_bytes, .block_ns = o->block_ns, .queue_bytes = o->queue_bytes,
	};
	const char *where = o->sink ? "memory" : o->path;
	uint64_t lost_now = 0;
	int status = 0;
	bool child_done = false;
	char b1[32], b2[32];

	memset(sum, 0, sizeof(*sum));
	sum->exit_status = -1;
	err = probe_choose(o->backend, o->buffer, o->btf_path, &choice, msg, sizeof(msg));
	if (err) {
		log_err("%s", msg);
		return err;
	}
	log_info("%s", choice.why);
	sum->backend = choice.backend;
	sum->buffer = choice.buffer;
	libbpf_set_print(libbpf_log);
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0 || ncpus > 1024) {
		log_err("cannot handle %d possible CPUs", ncpus);
		return -EINVAL;
	}

	if (o->mode == REC_MODE_PIDS) {
		uint32_t bad = 0;

		if (o->npids > sizeof(tgids) / sizeof(tgids[0])) {
			log_err("too many -p targets (%zu, at most %zu)", o->npids,
				sizeof(tgids) / sizeof(tgids[0]));
			return -E2BIG;
		}
		err = target_resolve(o->pids, o->npids, tgids, &ntgids, &bad);
		if (err) {
			log_err("-p %u: %s", bad, err == -ESRCH ? "no such process" : strerror(-err));
			return err;
		}
		for (size_t i = 0; i < ntgids; i++) {
			if (tgids[i] == (uint32_t)getpid()) {
				log_err("-p %u: qostrace does not record itself", tgids[i]);
				return -EINVAL;
			}
		}
	}
	if (o->argv) {
		child = target_spawn(o->argv, &go_fd, &status_fd);
		if (child < 0) {
			log_err("cannot start '%s': %s", o->argv[0], strerror(-child));
			return child;
		}
		if (o->mode == REC_MODE_COMMAND)
			tgids[ntgids++] = child;
	}

	{
		struct backend_opts bo = {
			.choice = &choice,
			.btf_path = o->btf_path,
			.knobs = {
				.self_tgid = getpid(),
				.all_targets = o->mode == REC_MODE_ALL,
				.want_syscalls = !o->no_syscalls,
				.want_irqs = !o->no_irqs,
				.want_data = recorder_wants_data(o),
				.perfbuf = choice.buffer == REC_BUFFER_PERF,
				.switch_state_arg = choice.switch_state_arg,
			},
			.buffer_bytes = o->ring_bytes,
			.threads = procfs_nr_threads(),
		};

		err = backend__open(&bo, on_record, &c, &be);
		if (err)
			goto out;
	}
	for (size_t i = 0; i < ntgids; i++) {
		err = backend__add_target(be, tgids[i]);
		if (err) {
			log_err("cannot add target %u: %s", tgids[i], strerror(-err));
			goto out;
		}
	}
	err = backend__attach(be);
	if (err)
		goto out;
	start = mono_ns();

	/* After attaching: a thread born in between is in both, never in neither. */
	err = procfs_threads(&threads, &nthreads);
	if (err) {
		log_err("cannot read the thread table from /proc: %s", strerror(-err));
		goto out;
	}
	backend__known_threads(be, threads, nthreads);
	err = build_meta(&meta, o, &choice, be, tgids, ntgids, start);
	if (err)
		goto out;
	err = writer__open(&wo, &meta, threads, nthreads, start, &w);
	free(threads);
	threads = NULL;
	if (err) {
		if (err == -EEXIST)
			log_err("%s exists: choose another -o or add --force to replace it", o->path);
		else if (err == -ELOOP)
			log_err("%s is a symbolic link: qostrace does not write through links", o->path);
		else if (err == -EINVAL)
			log_err("%s is not a regular file: not replaced", o->path);
		else
			log_err("cannot create %s: %s", where, strerror(-err));
		goto out;
	}
	c.w = w;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sc, NULL);
	if (child > 0) {
		err = target_release(go_fd, status_fd);
		go_fd = status_fd = -1;
		if (err) {
			log_err("cannot run '%s': %s", o->argv[0], strerror(-err));
			waitpid(child, &status, 0);
			child_done = true;
			/* Nothing of the command was recorded: leave no file behind. */
			writer__finish(w, NULL, 0, mono_ns(), &end);
			w = NULL;
			if (!o->sink)
				unlink(o->path);
			goto out;
		}
	}
	if (!o->quiet)
		log_info("recording to %s (%s); Ctrl-C stops", where,
			 o->mode == REC_MODE_ALL ? "all threads" :
			 o->mode == REC_MODE_PIDS ? "the given processes" : o->argv[0]);

	sum->reason = "signal";
	last_tick = start;
	/*
	 * Drain on a timer. The ring's epoll readiness is level-triggered:
	 * waiting on it with records flowing returns at once and turns the
	 * consumer into a busy loop that costs a CPU and bounces the ring's
	 * cache lines. A signal (Ctrl-C, the command's exit) ends the sleep.
	 */
	err = 0;
	for (unsigned int pause = 0;; ) {
		uint64_t before;
		int n;

		if (pause)
			sleep_ms(pause);
		before = c.consumed_bytes;
		n = backend__consume(be);
		if (n < 0 && n != -EINTR) {
			log_err("%s: %s", probe_buffer_name(choice.buffer), strerror(-n));
			sum->reason = "buffer error";
			err = n;
			break;
		}
		/* A pass that found the buffer an eighth full comes back sooner. */
		pause = c.consumed_bytes - before > backend__capacity(be) / 8 ? 5 : o->poll_ms;
		writer__flush_batch(w);
		now = mono_ns();
		{
			struct writer_stats ws;

			writer__stats(w, &ws);
			if (ws.err) {
				sum->reason = ws.err == -ENOSPC ? "disk full" : "write error";
				log_err("writing %s failed: %s; recording stopped, %s", where, strerror(-ws.err),
					o->sink ? "what was kept is written" : "the file keeps what was written");
				break;
			}
		}

		if (child > 0 && !child_done && waitpid(child, &status, WNOHANG) == child) {
			child_done = true;
			sum->reason = "command exited";
			break;
		}
		if (o->duration_ns && now - start >= o->duration_ns) {
			sum->reason = "duration elapsed";
			break;
		}
		if (signals_seen) {
			/* Give a command that got the same Ctrl-C a moment to exit. */
			if (child > 0 && !child_done && signals_seen == 1) {
				if (!grace_until)
					grace_until = now + 500000000ull;
				if (now < grace_until)
					continue;
			}
			sum->reason = last_signal == SIGINT ? "interrupted (SIGINT)" :
				      last_signal == SIGTERM ? "terminated (SIGTERM)" : "hangup (SIGHUP)";
			break;
		}
		if (o->on_poll) {
			struct recorder_progress p = {
				.start_ns = start, .now_ns = now, .events = c.consumed, .lost = lost_now,
			};
			const char *stop = o->on_poll(o->arg, &p);

			if (stop) {
				sum->reason = stop;
				break;
			}
		}
		if (now - last_tick >= 1000000000ull) {
			struct writer_stats ws;
			uint64_t lost = 0;

			writer__stats(w, &ws);
			push_stats(w, be, ncpus, c.consumed);
			read_kernel_stats(be, &lost, NULL, NULL, ncpus);
			lost_now = lost;
			if (!o->quiet)
				log_status("recording %5.1f s  %s events/s  lost %llu  %s  (Ctrl-C stops)",
					   (now - start) / 1e9,
					   fmt_count(b1, sizeof(b1), (c.consumed - last_consumed) * 1e9 / (now - last_tick)),
					   (unsigned long long)lost, fmt_bytes(b2, sizeof(b2), ws.file_bytes));
			last_consumed = c.consumed;
			last_tick = now;
			if (o->mode == REC_MODE_PIDS) {
				bool any = false;

				for (size_t i = 0; i < ntgids; i++)
					any |= alive(tgids[i]);
				if (!any) {
					sum->reason = "target processes exited";
					break;
				}
			}
		}
	}
	log_status_end();

	/* Stop producing, then drain what is left: nothing recorded is lost. */
	backend__detach(be);
	sum->stop_ns = mono_ns();
	while (backend__consume(be) > 0)
		;
	read_kernel_stats(be, &sum->lost, sum->lost_by_type, lost_cpu, ncpus);
	sum->missed = backend__missed(be);
	flush_pending_losses(w, be, ncpus);
	push_stats(w, be, ncpus, c.consumed);

	if (!sum->stop_ns)
		sum->stop_ns = mono_ns();
	{
		struct writer_stats ws;
		char list[8192];
		size_t off = 0;

		writer__stats(w, &ws);
		for (int i = 0; i < ncpus && off < sizeof(list) - 24; i++)
			off += snprintf(list + off, sizeof(list) - off, "%s%llu", i ? "," : "",
					(unsigned long long)lost_cpu[i]);
		tf_kv_set(&end, TF_END_STOP, "%llu", (unsigned long long)sum->stop_ns);
		tf_kv_set(&end, TF_END_REASON, "%s", sum->reason ? sum->reason : "error");
		tf_kv_set(&end, TF_END_EVENTS, "%llu", (unsigned long long)ws.records);
		tf_kv_set(&end, TF_END_LOST, "%llu", (unsigned long long)sum->lost);
		tf_kv_set(&end, TF_END_LOST_CPU, "%s", list);
		tf_kv_set(&end, TF_END_USER_DROPPED, "%llu",
			  (unsigned long long)(ws.user_dropped + ws.malformed));
		tf_kv_set(&end, TF_END_MISSED, "%llu", (unsigned long long)sum->missed);
		if (child_done)
			tf_kv_set(&end, TF_END_EXIT_STATUS, "%d", status);
		sum->events = ws.records;
		memcpy(sum->by_type, ws.by_type, sizeof(sum->by_type));
		sum->user_dropped = ws.user_dropped + ws.malformed;
	}
	if (procfs_threads(&threads, &nthreads))
		nthreads = 0;
	{
		int e = writer__finish(w, threads, nthreads, sum->stop_ns, &end);
		struct stat st;

		w = NULL;
		if (e) {
			sum->write_err = e;
			log_err("%s: %s; %s", where, strerror(-e),
				o->sink ? "blocks were lost" : "the file is readable up to the last block written");
			if (!err)
				err = e;
		}
		if (!o->sink && stat(o->path, &st) == 0)
			sum->file_bytes = st.st_size;
	}
	sum->start_ns = start;
	if (child > 0 && child_done)
		sum->exit_status = status;
	if (err == -EINTR)
		err = 0;
	if (err > 0)
		err = 0;

out:
	if (go_fd >= 0)
		close(go_fd);	/* the command never starts */
	if (status_fd >= 0)
		close(status_fd);
	if (child > 0 && !child_done) {
		/* The recording is over; do not leave the command behind. */
		if (alive(child))
			kill(child, SIGTERM);
		for (int i = 0; i < 40 && waitpid(child, &status, WNOHANG) == 0; i++)
			usleep(50000);
		if (waitpid(child, &status, WNOHANG) == 0) {
			kill(child, SIGKILL);
			waitpid(child, &status, 0);
		}
	}
	backend__destroy(be);
	free(threads);
	tf_kv_free(&meta);
	tf_kv_free(&end);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	return err;
}
