// SPDX-License-Identifier: MIT
/*
 * /init of the guests of scripts/vm-test.sh: the whole userland besides
 * qostrace and the workloads, so that no shell or busybox of the guest's
 * architecture is needed. Built static for each guest.
 *
 * It mounts what the recorder needs (proc, sysfs, devtmpfs, tracefs,
 * debugfs, bpffs, a tmpfs on /tmp), prints "@@qt start uptime_ms=MS" (the
 * boot's length), then runs /plan line by line:
 *
 *   run LABEL PROGRAM ARG...  prints "@@qt begin LABEL", runs it to its end
 *                             with the console as its output, then prints
 *                             "@@qt rc LABEL status=S wall_ms=W cpu_ms=C
 *                             startup_cpu_ms=U hwm_kb=H anon_kb=A file_kb=F":
 *                             its exit status (128+N for signal N), its own
 *                             CPU time (not its children's), the part of it
 *                             spent before its first child exec'd (-1: none
 *                             did), and its peak resident memory: all,
 *                             allocated, mapped. A run still going after
 *                             RUN_LIMIT_MS gets SIGINT ("@@qt note LABEL: ...
 *                             interrupted"), 30 s later SIGKILL
 *   send PATH                 the file in base64 between "@@qt file PATH SIZE"
 *                             and "@@qt end PATH" (or "@@qt missing PATH")
 *
 * and prints "@@qt done" before it restarts the machine (QEMU runs with
 * -no-reboot, so that ends it: no ACPI needed). Everything travels on the
 * serial console, which every guest kernel has built in; the kernel's own
 * messages are kept off it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static void mount_one(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		say("@@qt note mount %s on %s: %s\n", type, dir, strerror(errno));
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ll + ts.tv_nsec / 1000000;
}

/*
 * The peak resident memory of a running process, in kB, split: what it
 * allocated (RssAnon) and what it maps (RssFile: its own text, and the
 * kernel's ring buffer, which the recorder maps whole).
 */
struct mem { long hwm, anon, file; };

static void mem_poll(pid_t pid, struct mem *m)
{
	char path[64], line[256];
	long kb;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmHWM: %ld", &kb) == 1 && kb > m->hwm)
			m->hwm = kb;
		else if (sscanf(line, "RssAnon: %ld", &kb) == 1 && kb > m->anon)
			m->anon = kb;
		else if (sscanf(line, "RssFile: %ld", &kb) == 1 && kb > m->file)
			m->file = kb;
	}
	fclose(f);
}

/* utime + stime of a process (all its threads, not its children), in ms. */
static long long cpu_ms(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')');	/* the command name may hold spaces */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (ut + st) * 1000 / sysconf(_SC_CLK_TCK);
}

/*
 * Whether pid has a child that has left its image (exec'd): a recorder
 * starts its command only once its programs are attached, so its CPU time
 * until then is its start-up.
 */
static bool child_started(pid_t pid)
{
	char path[300], buf[512], comm[64];
	struct dirent *d;
	bool found = false;
	DIR *dir = opendir("/proc");
	int ppid;

	while (dir && !found && (d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && sscanf(buf, "%*d (%63[^)]) %*c %d", comm, &ppid) == 2)
			found = ppid == pid && strcmp(comm, "qostrace");
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return found;
}

/* Longer than any run takes on a loaded machine under emulation (about 10 s). */
#define RUN_LIMIT_MS 240000

static void run(char *label, char **argv)
{
	long long t0 = now_ms(), cpu, startup = -1;
	struct mem m = { 0 };
	siginfo_t si;
	pid_t pid;
	int status;

	say("@@qt begin %s\n", label);
	pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		say("@@qt note exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		say("@@qt rc %s status=fork-failed\n", label);
		return;
	}
	/*
	 * Polled while it runs, for the peak memory; left a zombie at the end
	 * (WNOWAIT), so that /proc still has its CPU time.
	 */
	for (int sig = 0;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
			break;
		mem_poll(pid, &m);
		if (startup < 0 && child_started(pid))
			startup = cpu_ms(pid);
		/*
		 * A run that hangs (its workload, or the recorder) must not take
		 * the guest's other runs with it: stopped as Ctrl-C would, its
		 * trace still comes back to show what hung, then killed.
		 */
		if (now_ms() - t0 > RUN_LIMIT_MS + (sig ? 30000 : 0) && sig != SIGKILL) {
			sig = sig ? SIGKILL : SIGINT;
			say("\n@@qt note %s: still running after %lld s: %s\n", label, (now_ms() - t0) / 1000,
			    sig == SIGINT ? "interrupted" : "killed");
			kill(pid, sig);
		}
		usleep(50000);
	}
	cpu = cpu_ms(pid);
	waitpid(pid, &status, 0);
	say("@@qt rc %s status=%d wall_ms=%lld cpu_ms=%lld startup_cpu_ms=%lld hwm_kb=%ld anon_kb=%ld file_kb=%ld\n",
	    label, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), now_ms() - t0, cpu,
	    startup, m.hwm, m.anon, m.file);
}

/* Read whole first: files of sysfs and tracefs say nothing of their size. */
static void send(const char *path)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		say("@@qt missing %s\n", path);
		return;
	}
	do {
		if (len == cap) {
			unsigned char *nb = realloc(buf, cap = cap ? 2 * cap : 65536);

			if (!nb) {
				say("@@qt missing %s (out of memory)\n", path);
				free(buf);
				fclose(f);
				return;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	say("@@qt file %s %zu\n", path, len);
	for (size_t at = 0; at < len; at += 57) {
		size_t k = len - at < 57 ? len - at : 57;
		const unsigned char *in = buf + at;
		char out[80], *o = out;

		for (size_t i = 0; i < k; i += 3) {
			unsigned v = in[i] << 16 | (i + 1 < k ? in[i + 1] << 8 : 0) | (i + 2 < k ? in[i + 2] : 0);

			*o++ = b64[v >> 18 & 63];
			*o++ = b64[v >> 12 & 63];
			*o++ = i + 1 < k ? b64[v >> 6 & 63] : '=';
			*o++ = i + 2 < k ? b64[v & 63] : '=';
		}
		*o++ = '\n';
		fwrite(out, 1, o - out, stdout);
	}
	free(buf);
	say("@@qt end %s\n", path);
}

int main(void)
{
	char line[4096];
	FILE *plan;
	int fd;

	mount_one("devtmpfs", "/dev", "devtmpfs");
	fd = open("/dev/console", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	/* Only emergencies on the console: nothing may cut into a file's lines. */
	klogctl(8, NULL, 1);
	mount_one("proc", "/proc", "proc");
	mount_one("sysfs", "/sys", "sysfs");
	mount_one("tracefs", "/sys/kernel/tracing", "tracefs");
	mount_one("debugfs", "/sys/kernel/debug", "debugfs");
	mount_one("bpf", "/sys/fs/bpf", "bpf");
	mount_one("tmpfs", "/tmp", "tmpfs");
	setenv("PATH", "/", 1);
	say("@@qt start uptime_ms=%lld\n", now_ms());
	plan = fopen("/plan", "r");
	while (plan && fgets(line, sizeof(line), plan)) {
		char *argv[64], *save = NULL;
		int argc = 0;

		for (char *w = strtok_r(line, " \t\n", &save); w && argc < 63; w = strtok_r(NULL, " \t\n", &save))
			argv[argc++] = w;
		argv[argc] = NULL;
		if (argc >= 3 && !strcmp(argv[0], "run"))
			run(argv[1], argv + 2);
		else if (argc == 2 && !strcmp(argv[0], "send"))
			send(argv[1]);
		else if (argc > 0)
			say("@@qt note bad plan line: %s\n", argv[0]);
	}
	say("@@qt done\n");
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
