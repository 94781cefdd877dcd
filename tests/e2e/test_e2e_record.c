/*
 * End-to-end: record tests/workloads/qt_workload with the real BPF programs
 * and check the trace against the workload's own log and /proc. Needs root
 * and a kernel qostrace can record on; otherwise every test is SKIPPED with
 * the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <math.h>
#include <time.h>

#include "e2eutil.h"
#include "testutil.h"
#include "record/probe.h"
#include "record/tracefs.h"
#include "qt_events.h"
#include "timeline/timeline.h"
#include "file/trace.h"
#include "file/missing.h"

static struct trace *load(const char *path)
{
	struct trace *t = NULL;
	char err[512];

	cr_assert_eq(trace__load(path, NULL, &t, err, sizeof(err)), 0, "%s", err);
	return t;
}

/* ---- the workload's log ---- */

struct wl_thread { int tid; char name[16]; uint64_t run_ns, at; };
struct wl_call { int tid, fd; long ret; uint64_t before, after; };

struct wl_log {
	struct wl_thread th[4];
	int nth;
	struct wl_call writes[256], closes[256];
	int nwrites, ncloses;
	int child_pid, child_writes;
	int producer, consumer;
};

static void parse_log(const char *path, struct wl_log *w)
{
	FILE *f = fopen(path, "r");
	char line[512];

	cr_assert(f, "workload log %s missing", path);
	memset(w, 0, sizeof(*w));
	while (fgets(line, sizeof(line), f)) {
		struct wl_call c;
		unsigned long long a, b;

		if (sscanf(line, "thread tid=%d name=%15s run_ns=%llu at=%llu", &w->th[w->nth].tid,
			   w->th[w->nth].name, &a, &b) == 4) {
			w->th[w->nth].run_ns = a;
			w->th[w->nth].at = b;
			w->nth++;
		} else if (sscanf(line, "write tid=%d fd=%d ret=%ld before=%llu after=%llu", &c.tid, &c.fd,
				  &c.ret, &a, &b) == 5) {
			c.before = a;
			c.after = b;
			w->writes[w->nwrites++] = c;
		} else if (sscanf(line, "badclose tid=%d ret=%ld before=%llu after=%llu", &c.tid, &c.ret,
				  &a, &b) == 4) {
			c.before = a;
			c.after = b;
			w->closes[w->ncloses++] = c;
		} else if (sscanf(line, "child pid=%d writes=%d", &w->child_pid, &w->child_writes) == 2) {
		} else if (sscanf(line, "consumer tid=%d producer tid=%d", &w->consumer, &w->producer) == 2) {
		}
	}
	fclose(f);
}

static uint32_t thread_of(const struct timeline *tl, int tid)
{
	for (size_t i = 0; i < tl->nthreads; i++)
		if (tl->threads[i].tid == (uint32_t)tid && tl->threads[i].nruns)
			return i;
	return TL_NONE;
}

/* ---- the main recording of each suite, shared by its checks ---- */

static char *dir;
static char trace_path[300], log_path[300];
static struct trace *tr;
static struct timeline *tl;
static struct wl_log wl;
static bool keep_dir = true;
static struct probe_choice how;		/* the path and buffer the suite records with */

/*
 * --backend and --btf of a suite as probe_choose() takes them; "@BTF"
 * stands for a copy of the kernel's BTF in the suite's directory.
 */
static void suite_backend(const char *const *args, const char *btf_copy, enum rec_backend *backend,
			  enum rec_buffer *buffer, const char **btf)
{
	*backend = REC_BACKEND_AUTO;
	*buffer = REC_BUFFER_AUTO;
	*btf = NULL;
	for (size_t i = 0; args[i] && args[i + 1]; i += 2) {
		if (!strcmp(args[i], "--backend"))
			cr_assert_eq(probe_parse_backend(args[i + 1], backend, buffer), 0);
		else if (!strcmp(args[i], "--btf"))
			*btf = btf_copy;
	}
}

/*
 * Criterion runs .init before every test, in a fresh process: the first
 * one records and leaves the files in the runner's scratch directory
 * (QOSTRACE_TEST_TMP, a subdirectory per suite), the others reuse them.
 */
static void record_workload(const char *suite, const char *const *args)
{
	char qostrace[256], workload[256], done[320], btf_copy[320], msg[512];
	const char *scratch = getenv("QOSTRACE_TEST_TMP"), *btf;
	enum rec_backend backend;
	enum rec_buffer buffer;
	int status;

	require_recording();
	if (scratch && *scratch) {
		cr_assert(asprintf(&dir, "%s/%s", scratch, suite) > 0);
		mkdir(dir, 0700);
	} else {
		dir = tu_tmpdir();
		scratch = NULL;
	}
	snprintf(trace_path, sizeof(trace_path), "%s/wl.qtrace", dir);
	snprintf(log_path, sizeof(log_path), "%s/wl.log", dir);
	snprintf(done, sizeof(done), "%s/wl.done", dir);
	snprintf(btf_copy, sizeof(btf_copy), "%s/vmlinux.btf", dir);
	suite_backend(args, btf_copy, &backend, &buffer, &btf);
	if (btf && access(btf_copy, F_OK)) {
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "cp /sys/kernel/btf/vmlinux '%s' 2>/dev/null", btf_copy);
		if (system(cmd)) {
			fprintf(stderr, "SKIPPED: no kernel BTF to copy for --btf\n");
			cr_skip_test("no kernel BTF to copy for --btf");
		}
	}
	/* as perf and trace-cmd do, where it is not mounted yet */
	if (backend == REC_BACKEND_TRACEFS && tracefs_find(msg, sizeof(msg)) && system(TRACEFS_MOUNT_HINT))
		fprintf(stderr, "could not mount tracefs\n");
	if (probe_choose(backend, buffer, btf, &how, msg, sizeof(msg))) {
		fprintf(stderr, "SKIPPED: %s: %s\n", suite, msg);
		cr_skip_test("%s: %s", suite, msg);
	}
	if (!scratch || access(done, F_OK)) {
		char *argv[20] = { qostrace, "record", "-q", "-o", trace_path };
		int n = 5;

		snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
		snprintf(workload, sizeof(workload), "%s/workloads/qt_workload", build_dir());
		unlink(trace_path);
		for (size_t i = 0; args[i]; i++)
			argv[n++] = strcmp(args[i], "@BTF") ? (char *)args[i] : btf_copy;
		argv[n++] = "--";
		argv[n++] = workload;
		argv[n++] = "-l";
		argv[n++] = log_path;
		argv[n++] = "-n";
		argv[n++] = "30";
		argv[n] = NULL;
		status = e2e_run(argv, NULL, false, 60000);
		cr_assert(status != -1, "the recording did not finish within 60 s");
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "qostrace record failed: status %d",
			  status);
		if (scratch)
			close(open(done, O_CREAT | O_WRONLY, 0600));
	}
	if (!scratch)
		keep_dir = false;
	parse_log(log_path, &wl);
	cr_assert_eq(wl.nth, 4, "workload log incomplete");
	tr = load(trace_path);
	cr_assert_eq(timeline__build(tr, NULL, &tl), 0);
}

static void cleanup(void)
{
	timeline__free(tl);
	trace__free(tr);
	if (dir && !keep_dir)
		tu_rmdir(dir);
	free(dir);
}

/*
 * This path records the kernel's CPU accounting at each switch of the
 * workload's threads, which are fair ones (the file says if not).
 */
static bool has_runtime(void)
{
	return !missing_has(tf_kv_get(&tr->meta, TF_META_MISSING), MISSING_RUNTIME);
}

/*
 * What the file must say is missing: nothing on the paths with BTF; on the
 * tracefs one, the classes this release does not report through
 * sched_stat_runtime (nothing from 6.8 on, as here).
 */
/* What the path cannot record of the kernel's CPU time ("" for everything). */
static const char *expected_runtime_missing(void)
{
	static struct utsname u;

	if (how.backend != REC_BACKEND_TRACEFS)
		return "";
	uname(&u);
	return probe_runtime_missing(u.release);
}

/*
 * The file's "missing": the CPU time above, and on the tracefs path the
 * objects of the data calls, which a command's recording asks for.
 */
static const char *expected_missing(void)
{
	static char buf[128];
	const char *rt = expected_runtime_missing();

	if (how.backend != REC_BACKEND_TRACEFS)
		return rt;
	snprintf(buf, sizeof(buf), "%s%s%s", rt, *rt ? "," : "", MISSING_DATA);
	return buf;
}

static void check_file_is_complete_and_private(void)
{
	struct stat st;

	cr_assert(tr->finished, "no END block");
	cr_assert_eq(stat(trace_path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600, "mode %o", st.st_mode & 0777);
	cr_assert_str_eq(tf_kv_get(&tr->end, TF_END_REASON), "command exited");
	cr_assert_eq(tr->lost_events, 0, "events were lost at the workload's rate");
	cr_assert_eq(tr->user_dropped, 0);
	cr_assert_gt(tr->nsw, 100);
}

/*
 * The header names the path and buffer and what the path could not
 * record; info says it, and so does the report where something is missing.
 */
static void check_header_names_the_backend(void)
{
	char cmd[600], *out, want[160];
	const char *missing = expected_missing(), *rt_missing = expected_runtime_missing();

	cr_assert_str_eq(tf_kv_get(&tr->meta, TF_META_BACKEND) ?: "", probe_backend_name(how.backend));
	cr_assert_str_eq(tf_kv_get(&tr->meta, TF_META_BUFFER) ?: "", probe_buffer_name(how.buffer));
	cr_assert_str_eq(tf_kv_get(&tr->meta, TF_META_MISSING) ?: "?", missing);
	cr_assert(has_runtime(), "every path records the CPU time of fair threads");
	/* how many tracepoint hits the kernel ran no program for (other tracers may cause some) */
	cr_expect(tf_kv_get(&tr->end, TF_END_MISSED), "the file does not say what the kernel skipped");
	snprintf(cmd, sizeof(cmd), "%s/qostrace info '%s'", build_dir(), trace_path);
	cr_assert_eq(e2e_sh(cmd, &out), 0, "%s", out);
	snprintf(want, sizeof(want), "recorder    attach path %s, %s", probe_backend_name(how.backend),
		 how.buffer == REC_BUFFER_PERF ? "a perf buffer per CPU" : "a ring buffer");
	cr_expect(strstr(out, want), "info does not say '%s':\n%s", want, out);
	if (*missing) {
		snprintf(want, sizeof(want), "not recorded: %s", missing);
		cr_expect(strstr(out, want), "info does not say '%s':\n%s", want, out);
	} else {
		cr_expect(!strstr(out, "not recorded"), "info says something is missing:\n%s", out);
	}
	free(out);
	if (!*rt_missing)
		return;
	snprintf(cmd, sizeof(cmd), "%s/qostrace report '%s' | sed -n '1,12p'", build_dir(), trace_path);
	cr_assert_eq(e2e_sh(cmd, &out), 0, "%s", out);
	cr_expect(strstr(out, "CPU-time accounting"), "the report's Recording section does not say "
		  "what it could not do:\n%s", out);
	free(out);
}

/* The kernel's runtime recorded at a switch-out of tid at ts (0 if none). */
static uint64_t runtime_at(uint32_t tid, uint64_t ts)
{
	for (size_t i = 0; i < tr->nsw; i++)
		if (tr->sw[i].prev_tid == tid && tr->sw[i].h.ts == ts)
			return tr->sw[i].prev_runtime;
	return 0;
}

/* The last wakeup of thread th enqueued at or before ts, or 0. */
static uint64_t last_wakeup(uint32_t th, uint64_t ts)
{
	const struct tl_thread *x = &tl->threads[th];
	uint64_t best = 0;

	for (size_t k = x->wr0; k < x->wr0 + x->nwr; k++) {
		const struct tl_wakeup *w = &tl->wk[tl->wk_by_wakee[k]];

		if (w->ts <= ts && w->ts > best)
			best = w->ts;
	}
	return best;
}

/*
 * On-CPU time per thread against /proc/<pid>/task/<tid>/schedstat (read by
 * the workload while its threads sleep):
 *  - the kernel's accounting recorded at each switch-out equals schedstat
 *    exactly (every path: the tracefs one sums sched_stat_runtime);
 *  - the run intervals (switch to switch) differ from schedstat by at most
 *    6 % (1 %, and 5 % for the host's steal) plus the interrupts on the
 *    thread and the time between the thread's wakeups and its switch-ins:
 *    when a wakeup preempts, the kernel starts charging the woken task at
 *    the wakeup, not at the switch. On a quiet machine that term is small
 *    and the spinners agree within 0.3 %; under load it grows.
 */
static void check_run_time_matches_schedstat(void)
{
	for (int i = 0; i < wl.nth; i++) {
		uint32_t th = thread_of(tl, wl.th[i].tid);
		const struct tl_thread *x;
		uint64_t sum = 0, last_rt = 0, latency = 0, irq_ns = 0;
		double diff;

		cr_assert_neq(th, TL_NONE, "thread %s/%d not in the trace", wl.th[i].name, wl.th[i].tid);
		x = &tl->threads[th];
		cr_assert_str_eq(x->comm, wl.th[i].name, "thread %d named '%s' in the trace", wl.th[i].tid, x->comm);
		for (size_t k = x->run0; k < x->run0 + x->nrun; k++) {
			const struct tl_run *r = &tl->runs[k];
			uint64_t wake, prev_end = k > x->run0 ? tl->runs[k - 1].end : 0;

			if (r->end > wl.th[i].at)
				break;
			sum += r->end - r->start;
			last_rt = runtime_at(wl.th[i].tid, r->end);
			wake = last_wakeup(th, r->start);
			if (wake > prev_end)
				latency += r->start - wake;
		}
		for (size_t k = 0; k < tl->nirqs; k++)
			if (tl->irqs[k].thread == th && tl->irqs[k].end <= wl.th[i].at)
				irq_ns += tl->irqs[k].end - tl->irqs[k].start;
		diff = (double)sum - (double)wl.th[i].run_ns;
		fprintf(stderr, "  %-9s schedstat %10.3f ms  recorded %10.3f ms  intervals %10.3f ms (%+.3f%%),"
			" wakeup latency %.3f ms, interrupts on it %.3f ms\n", wl.th[i].name, wl.th[i].run_ns / 1e6,
			last_rt / 1e6, sum / 1e6, 100.0 * diff / wl.th[i].run_ns, latency / 1e6, irq_ns / 1e6);
		if (has_runtime())
			cr_expect_eq(last_rt, wl.th[i].run_ns, "%s: recorded accounting %llu vs schedstat %llu",
				     wl.th[i].name, (unsigned long long)last_rt,
				     (unsigned long long)wl.th[i].run_ns);
		else	/* the file says it has none (check_header_names_the_backend) */
			cr_expect_eq(last_rt, 0, "%s: accounting %llu where the path has none",
				     wl.th[i].name, (unsigned long long)last_rt);
		/*
		 * Interrupts on top of it are in its intervals, not always in its
		 * CPU time; so is the time the host did not run this virtual CPU
		 * (steal, up to 16 ms at a time here, tests/lib/e2e_canary.h),
		 * which the kernel leaves out of a task's CPU time: 5 % for it.
		 * The exact check is the recorded accounting's, above.
		 */
		cr_expect(fabs(diff) <= 0.06 * wl.th[i].run_ns + latency + irq_ns,
			  "%s: intervals %llu ns vs schedstat %llu ns, wakeup latency %llu ns, interrupts %llu ns",
			  wl.th[i].name, (unsigned long long)sum, (unsigned long long)wl.th[i].run_ns,
			  (unsigned long long)latency, (unsigned long long)irq_ns);
	}
}

/* Every write wakes the consumer: the wakeup is there, from the producer, at that time. */
static void check_every_wakeup_between_threads(void)
{
	uint32_t prod = thread_of(tl, wl.producer), cons = thread_of(tl, wl.consumer);
	int matched = 0, between = 0;

	cr_assert_neq(prod, TL_NONE);
	cr_assert_neq(cons, TL_NONE);
	cr_assert_eq(wl.nwrites, 30);
	for (int i = 0; i < wl.nwrites; i++) {
		int found = 0;

		for (size_t k = 0; k < tl->nwk; k++) {
			const struct tl_wakeup *w = &tl->wk[k];

			if (w->waker == prod && w->wakee == cons && w->waking_ts >= wl.writes[i].before &&
			    w->waking_ts <= wl.writes[i].after)
				found++;
		}
		cr_expect_eq(found, 1, "write %d: %d wakeups of the consumer by the producer", i, found);
		matched += found == 1;
	}
	for (size_t k = 0; k < tl->nwk; k++)
		between += tl->wk[k].waker == prod && tl->wk[k].wakee == cons &&
			   tl->wk[k].waking_ts >= wl.writes[0].before &&
			   tl->wk[k].waking_ts <= wl.writes[wl.nwrites - 1].after;
	cr_assert_eq(matched, wl.nwrites);
	cr_assert_eq(between, wl.nwrites, "extra producer->consumer wakeups: %d", between - wl.nwrites);
}

/*
 * nanosleep() ends by a timer interrupt: the waker is the timer, not whoever
 * it interrupted. Each of the 30 sleeps of each spinner ends with a timer
 * wakeup, except where the kernel did not report events at all (kernels
 * that filter tracepoints by the current task hide an interrupt that lands
 * on a filtered thread; the timeline shows those windows as gaps). Threads
 * wake spinners only at the final barriers or on kernel locks (fork() in a
 * threaded process holds the mmap lock): always threads of the workload.
 */
static void check_timer_wakeups_come_from_interrupt_context(void)
{
	for (int s = 0; s < 2; s++) {
		uint32_t spin = thread_of(tl, wl.th[s].tid);
		const struct tl_thread *x = &tl->threads[spin];
		int sleeps = 0, by_timer = 0, hidden = 0;

		for (size_t k = x->wr0; k < x->wr0 + x->nwr; k++) {
			const struct tl_wakeup *w = &tl->wk[tl->wk_by_wakee[k]];

			if (w->is_new || ((w->flags & QT_WAKE_HARDIRQ) && w->irq == QT_IRQ_TIMER))
				continue;
			fprintf(stderr, "  %s: wakeup at %llu by %s flags %#x irq %#x\n", wl.th[s].name,
				(unsigned long long)w->ts, timeline__comm_at(tl, w->waker, w->ts), w->flags, w->irq);
			cr_expect(w->waker != TL_NONE && tl->threads[w->waker].pid == x->pid,
				  "%s: woken at %llu by something else than the timer or its own threads",
				  wl.th[s].name, (unsigned long long)w->ts);
		}
		for (size_t k = x->sc0; k < x->sc0 + x->nsc; k++) {
			const struct tl_syscall *c = &tl->sc[k];
			bool found = false;

			if (c->nr != SYS_clock_nanosleep && c->nr != SYS_nanosleep)
				continue;
			sleeps++;
			for (size_t j = x->wr0; j < x->wr0 + x->nwr && !found; j++) {
				const struct tl_wakeup *w = &tl->wk[tl->wk_by_wakee[j]];

				found = (w->flags & QT_WAKE_HARDIRQ) && w->irq == QT_IRQ_TIMER &&
					w->waking_ts >= c->start && w->waking_ts <= c->end;
			}
			if (found) {
				by_timer++;
			} else if (timeline__missing(tl, -1, c->start, c->end)) {
				hidden++;
			} else {
				cr_expect(false, "%s: the sleep at %llu ended without a timer wakeup", wl.th[s].name,
					  (unsigned long long)c->start);
			}
		}
		if (hidden)
			fprintf(stderr, "  %s: %d of %d sleeps ended while the kernel reported nothing\n",
				wl.th[s].name, hidden, sleeps);
		cr_expect_eq(sleeps, 30, "%s: %d sleeps recorded", wl.th[s].name, sleeps);
		cr_expect_geq(by_timer, 25, "%s: %d of %d sleeps ended by a timer wakeup", wl.th[s].name,
			      by_timer, sleeps);
	}
}

static void check_syscalls_with_numbers_and_return_values(void)
{
	uint32_t prod = thread_of(tl, wl.producer);
	const struct tl_thread *x = &tl->threads[prod];
	int writes = 0, closes = 0, child_writes = 0;

	for (int i = 0; i < wl.nwrites; i++) {
		for (size_t k = x->sc0; k < x->sc0 + x->nsc; k++) {
			const struct tl_syscall *s = &tl->sc[k];

			if (s->nr == SYS_write && s->start >= wl.writes[i].before && s->end <= wl.writes[i].after) {
				cr_expect_eq(s->arg0, (uint64_t)wl.writes[i].fd);
				cr_expect_eq(s->ret, wl.writes[i].ret);
				writes++;
			}
			if (s->nr == SYS_close && s->start >= wl.closes[i].before && s->end <= wl.closes[i].after) {
				cr_expect_eq(s->arg0, (uint64_t)-1);
				cr_expect_eq(s->ret, -EBADF);
				cr_expect_eq(wl.closes[i].ret, -EBADF);
				closes++;
			}
		}
	}
	cr_expect_eq(writes, wl.nwrites);
	cr_expect_eq(closes, wl.ncloses);
	/* The child process, created after the recording started, is a target too. */
	cr_assert_gt(wl.child_pid, 0);
	for (size_t i = 0; i < tr->nsc; i++)
		child_writes += tr->sc[i].tgid == (uint32_t)wl.child_pid && tr->sc[i].nr == SYS_write &&
				tr->sc[i].ret == 1;
	cr_expect_eq(child_writes, 5, "child process writes recorded: %d", child_writes);
}

static void check_recorder_is_not_recorded(void)
{
	uint64_t self = 0;
	size_t own = 0, other = 0;

	cr_assert_eq(tf_kv_get_u64(&tr->meta, TF_META_RECORDER, &self), 0);
	for (size_t i = 0; i < tr->nsc; i++) {
		own += tr->sc[i].tgid == self;
		other += tr->sc[i].tgid != self;
	}
	cr_expect_eq(own, 0, "%zu system calls of the recorder itself", own);
	cr_expect_gt(other, 0);
	for (size_t i = 0; i < tr->nwk; i++)
		cr_expect(!(tr->wk[i].waker_tgid == self && tr->wk[i].wakee_tgid == self));
	for (size_t i = 0; i < tr->ntask; i++)
		cr_expect_neq(tr->task[i].tgid, self);
}

/*
 * One suite per way of recording: the same checks on a recording made
 * with those record options ("@BTF": a copy of the kernel's BTF).
 */
#define RECORD_SUITE(suite, ...)								\
	static const char *const suite##_args[] = { __VA_ARGS__ };				\
	static void suite##_init(void) { record_workload(#suite, suite##_args); }		\
	TestSuite(suite, .init = suite##_init, .fini = cleanup, .timeout = 120);		\
	Test(suite, file_is_complete_and_private) { check_file_is_complete_and_private(); }	\
	Test(suite, header_names_the_backend) { check_header_names_the_backend(); }		\
	Test(suite, run_time_matches_schedstat) { check_run_time_matches_schedstat(); }	\
	Test(suite, every_wakeup_between_threads) { check_every_wakeup_between_threads(); }	\
	Test(suite, timer_wakeups_come_from_interrupt_context)					\
	{ check_timer_wakeups_come_from_interrupt_context(); }					\
	Test(suite, syscalls_with_numbers_and_return_values)					\
	{ check_syscalls_with_numbers_and_return_values(); }					\
	Test(suite, recorder_is_not_recorded) { check_recorder_is_not_recorded(); }

RECORD_SUITE(e2e_record, NULL)		/* the best this kernel allows */
RECORD_SUITE(e2e_record_perfbuf, "--backend", "perfbuf", NULL)	/* the best path with one */
RECORD_SUITE(e2e_record_core, "--backend", "core", NULL)
RECORD_SUITE(e2e_record_core_btf_file, "--btf", "@BTF", NULL)
RECORD_SUITE(e2e_record_tracefs, "--backend", "tracefs", NULL)
RECORD_SUITE(e2e_record_tracefs_perfbuf, "--backend", "tracefs,perfbuf", NULL)

/* ---- signals ---- */

/* Waits until the recorder has written its header: it records from then on. */
static void wait_recording(const char *path)
{
	struct stat st;

	for (int i = 0; i < 300; i++) {
		if (stat(path, &st) == 0 && st.st_size > 0)
			return;
		usleep(20000);
	}
}

static void record_then_signal(int sig, int after_ms, const char *name, struct trace **out, int *status)
{
	char qostrace[256];
	char *d = tu_tmpdir();
	char path[256];
	pid_t pid;

	require_recording();
	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	snprintf(path, sizeof(path), "%s/%s.qtrace", d, name);
	{
		char *argv[] = { qostrace, "record", "-q", "-a", "-d", "60", "-o", path, NULL };

		pid = e2e_spawn(argv, NULL, false);
	}
	wait_recording(path);
	usleep(after_ms * 1000);
	kill(pid, sig);
	*status = e2e_wait(pid, 10000);
	*out = load(path);
	tu_rmdir(d);
	free(d);
}

Test(e2e_signals, sigint_finishes_the_file, .timeout = 60)
{
	struct trace *t;
	int status;

	record_then_signal(SIGINT, 1500, "int", &t, &status);
	cr_assert(status != -1, "the recorder did not stop within 10 s of SIGINT");
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	cr_assert(t->finished);
	cr_assert_str_eq(tf_kv_get(&t->end, TF_END_REASON), "interrupted (SIGINT)");
	cr_assert_gt(t->nsw, 0);
	cr_assert_gt(t->stop_ns - t->start_ns, 1000000000ull, "recorded for %.3f s",
		     (t->stop_ns - t->start_ns) / 1e9);
	trace__free(t);
}

Test(e2e_signals, sigterm_finishes_the_file, .timeout = 60)
{
	struct trace *t;
	int status;

	record_then_signal(SIGTERM, 1000, "term", &t, &status);
	cr_assert(status != -1);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	cr_assert(t->finished);
	cr_assert_str_eq(tf_kv_get(&t->end, TF_END_REASON), "terminated (SIGTERM)");
	trace__free(t);
}

/* SIGKILL: no END block, but every block written is readable (blocks close every second). */
Test(e2e_signals, sigkill_leaves_a_readable_prefix, .timeout = 60)
{
	struct trace *t;
	int status;

	record_then_signal(SIGKILL, 3500, "kill", &t, &status);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	cr_assert(!t->finished);
	cr_assert_gt(t->nsw, 0);
	cr_assert_gt(t->last_ts - t->start_ns, 1500000000ull, "only %.3f s readable",
		     (t->last_ts - t->start_ns) / 1e9);
	trace__free(t);
}

/* ---- refusals ---- */

Test(e2e_refusals, existing_file_symlink_and_bad_options, .timeout = 60)
{
	char qostrace[256], path[256], link[256];
	char *d;
	struct stat st;
	int fd, status;

	require_recording();
	d = tu_tmpdir();
	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	snprintf(path, sizeof(path), "%s/exists.qtrace", d);
	snprintf(link, sizeof(link), "%s/link.qtrace", d);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "keep", 4), 4);
	close(fd);
	cr_assert_eq(symlink(path, link), 0);
	{
		char *argv[] = { qostrace, "record", "-q", "-a", "-d", "0.2", "-o", path, NULL };

		status = e2e_run(argv, NULL, false, 20000);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) != 0, "overwrote without --force");
		cr_assert_eq(stat(path, &st), 0);
		cr_expect_eq(st.st_size, 4, "existing file changed");
	}
	{
		char *argv[] = { qostrace, "record", "-q", "-a", "-d", "0.2", "--force", "-o", link, NULL };

		status = e2e_run(argv, NULL, false, 20000);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) != 0, "wrote through a symlink");
		cr_assert_eq(stat(path, &st), 0);
		cr_expect_eq(st.st_size, 4, "symlink target changed");
	}
	{
		char *argv[] = { qostrace, "record", "-q", "-d", "abc", "-a", NULL };

		status = e2e_run(argv, NULL, false, 20000);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 2, "-d abc accepted");
	}
	{
		char *argv[] = { qostrace, "record", "-q", NULL };

		status = e2e_run(argv, NULL, false, 20000);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 2, "no target accepted");
	}
	{
		char *argv[] = { qostrace, "record", "-q", "-p", "999999999", "-o", link, NULL };

		status = e2e_run(argv, NULL, false, 20000);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 1, "missing pid accepted");
	}
	tu_rmdir(d);
	free(d);
}

/* -p: syscalls of the attached process only; scheduling of everything. */
Test(e2e_attach, pid_mode_records_only_the_target_syscalls, .timeout = 60)
{
	char qostrace[256], workload[256], path[256];
	char pidarg[32];
	char *d;
	pid_t wpid;
	struct trace *t;
	size_t mine = 0, others = 0;
	int status;

	require_recording();
	d = tu_tmpdir();
	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	snprintf(workload, sizeof(workload), "%s/workloads/qt_workload", build_dir());
	snprintf(path, sizeof(path), "%s/attach.qtrace", d);
	{
		char *argv[] = { workload, "-n", "300", NULL };

		wpid = e2e_spawn(argv, NULL, false);
	}
	snprintf(pidarg, sizeof(pidarg), "%d", wpid);
	usleep(200000);
	{
		char *argv[] = { qostrace, "record", "-q", "-p", pidarg, "-d", "1", "-o", path, NULL };

		status = e2e_run(argv, NULL, false, 30000);
	}
	kill(wpid, SIGKILL);
	waitpid(wpid, NULL, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	t = load(path);
	for (size_t i = 0; i < t->nsc; i++) {
		if (t->sc[i].tgid == (uint32_t)wpid)
			mine++;
		else
			others++;
	}
	cr_expect_gt(mine, 50, "target syscalls: %zu", mine);
	cr_expect_eq(others, 0, "%zu syscalls of non-targets", others);
	cr_expect_gt(t->nsw, 0);
	trace__free(t);
	tu_rmdir(d);
	free(d);
}

/*
 * A full disk stops the recording with a clear reason and a non-zero exit;
 * everything written before is readable (a partial block is cut off).
 */
Test(e2e_refusals, disk_full_leaves_a_readable_file, .timeout = 60)
{
	char qostrace[256], mnt[256], path[300], cmd[400];
	char *d;
	struct trace *t;
	int status;

	require_recording();
	d = tu_tmpdir();
	snprintf(mnt, sizeof(mnt), "%s/tiny", d);
	cr_assert_eq(mkdir(mnt, 0700), 0);
	/* Room for a few blocks (a busy machine fills 1 MiB blocks in a second). */
	snprintf(cmd, sizeof(cmd), "mount -t tmpfs -o size=4m tmpfs '%s' 2>/dev/null", mnt);
	if (system(cmd) != 0) {
		tu_rmdir(d);
		free(d);
		fprintf(stderr, "SKIPPED: cannot mount a small tmpfs here\n");
		cr_skip_test("cannot mount a small tmpfs here");
	}
	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	snprintf(path, sizeof(path), "%s/full.qtrace", mnt);
	{
		/* A context-switch storm fills the disk within seconds, whatever else runs. */
		char *argv[] = { qostrace, "record", "-q", "-a", "--compress", "0", "-d", "30", "-o", path, "--",
				 "/usr/bin/stress-ng", "--switch", "1", "-t", "25", "-q", NULL };

		status = e2e_run(argv, NULL, false, 40000);
	}
	cr_expect(status != -1, "the recorder did not stop on a full disk");
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d", status);
	t = load(path);
	cr_expect(!t->finished, "an END block fitted on a full disk?");
	cr_expect_gt(t->nsw, 0, "nothing readable");
	cr_expect_eq(t->damage.corrupt_blocks, 0);
	cr_expect(!t->damage.truncated, "a partial block was left at the end");
	trace__free(t);
	snprintf(cmd, sizeof(cmd), "umount '%s'", mnt);
	cr_expect_eq(system(cmd), 0);
	tu_rmdir(d);
	free(d);
}

Test(e2e_signals, sighup_finishes_the_file, .timeout = 60)
{
	struct trace *t;
	int status;

	record_then_signal(SIGHUP, 500, "hup", &t, &status);
	cr_assert(status != -1);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	cr_assert(t->finished);
	cr_assert_str_eq(tf_kv_get(&t->end, TF_END_REASON), "hangup (SIGHUP)");
	trace__free(t);
}

/*
 * Without root or CAP_BPF + CAP_PERFMON: a message that says so, exit 1, no
 * file; whatever the attach path asked for.
 */
Test(e2e_refusals, no_privileges, .timeout = 60)
{
	static const char *const paths[] = { "", "--backend tracefs,perfbuf" };
	char qostrace[256], path[300];
	char *d;
	FILE *p;
	struct stat st;
	int status;

	require_recording();
	if (access("/usr/bin/setpriv", X_OK)) {
		fprintf(stderr, "SKIPPED: setpriv missing\n");
		cr_skip_test("setpriv missing");
	}
	d = tu_tmpdir();
	chmod(d, 0777);
	snprintf(qostrace, sizeof(qostrace), "%s/qostrace", build_dir());
	if (qostrace[0] != '/') {
		char cwd[200];

		cr_assert(getcwd(cwd, sizeof(cwd)));
		snprintf(qostrace, sizeof(qostrace), "%s/%s/qostrace", cwd, build_dir());
	}
	snprintf(path, sizeof(path), "%s/noroot.qtrace", d);
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		char cmd[1024], out[2048] = "";

		snprintf(cmd, sizeof(cmd), "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "
			 "'%s' record -a -d 1 %s -o '%s' 2>&1", qostrace, paths[i], path);
		p = popen(cmd, "r");
		cr_assert(p);
		fread(out, 1, sizeof(out) - 1, p);
		status = pclose(p);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 1, "%s: status %d: %s", paths[i], status,
			  out);
		cr_expect(strstr(out, "CAP_BPF") && strstr(out, "root"),
			  "%s: the message does not say what is missing: %s", paths[i], out);
		cr_expect(stat(path, &st) != 0, "%s: a file was left behind", paths[i]);
	}
	tu_rmdir(d);
	free(d);
}
