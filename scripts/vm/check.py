#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The host's half of scripts/vm-test.sh: unpacks what a guest sent on its
serial console (scripts/vm/init.c) and checks the traces against the truth
the workloads logged in the guest, with this machine's qostrace.

  check.py unpack CONSOLE.log DIR      files, run results (DIR/runs.json), run outputs
  check.py workload QOSTRACE TRACE LOG tests/workloads/qt_workload: each worker's CPU
                                       time against its /proc schedstat in the guest
  check.py periodic QOSTRACE TRACE LOG PERIOD_US
                                       tests/workloads/qt_periodic: its starts and period
                                       against the ones it logged in the guest
  check.py lost QOSTRACE TRACE         a recording into a small buffer: read whole, its
                                       losses counted
  check.py compare QOSTRACE A B        two recordings of qt_workload (say, arm64 and
                                       x86_64) give the same report but for timings
Each check prints one line of figures and exits 1 when a bound is missed.
"""
import base64
import json
import os
import re
import subprocess
import sys

TOLERANCE = 0.01        # the bound: 1 %
SPINNERS = ("spin1", "spin2")
# The producer polls until the consumer sleeps: how often depends on timing.
POLLING = ("producer",)
# Calls made once per thread as the allocator or stdio first need memory,
# depending on what the C library had at hand: not the workload's behaviour.
ALLOC_CALLS = {"mmap", "munmap", "mprotect", "madvise", "brk", "newfstatat", "fstat"}
# Calls whose count depends on the machine's speed (a spin loop reads the
# thread's CPU clock until it has burnt its time): compared by name only.
TIMED_CALLS = {"clock_gettime"}
WORKERS = ("spin1", "spin2", "producer", "consumer")


def unpack(log, outdir):
    os.makedirs(outdir, exist_ok=True)
    runs, cur, data, text, missing = {}, None, [], None, []
    start_ms = None
    with open(log, "rb") as f:
        lines = f.read().decode("latin-1").replace("\r", "").split("\n")
    for line in lines:
        m = re.search(r"@@qt (\w+)\s*(.*)$", line)
        if cur is not None:
            if m and m.group(1) == "end":
                body = base64.b64decode("".join(data))
                name = (os.path.basename(cur[0]) if cur[0].startswith("/tmp/")
                        else cur[0].strip("/").replace("/", "_"))
                with open(os.path.join(outdir, name), "wb") as out:
                    out.write(body)
                if len(body) != cur[1]:
                    sys.exit(f"{log}: {name}: {len(body)} bytes arrived of {cur[1]}")
                cur = None
            elif re.fullmatch(r"[A-Za-z0-9+/=]+", line):
                data.append(line)
            continue
        if not m:
            if text is not None:
                text.append(line)
            continue
        what, rest = m.group(1), m.group(2)
        if what == "start":
            start_ms = int(rest.split("=")[1]) if rest.startswith("uptime_ms=") else None
        elif what == "begin":
            text = []
            runs[rest] = {"output": text}
        elif what == "rc":
            label, *kv = rest.split()
            runs.setdefault(label, {"output": []})
            runs[label].update(dict(x.split("=", 1) for x in kv))
            text = None
        elif what == "file":
            path, size = rest.rsplit(" ", 1)
            cur, data = (path, int(size)), []
        elif what == "missing":
            missing.append(rest)
    for r in runs.values():
        r["output"] = "\n".join(r["output"]).strip()
    done = any("@@qt done" in x for x in lines)
    with open(os.path.join(outdir, "runs.json"), "w") as f:
        json.dump({"runs": runs, "init_uptime_ms": start_ms, "done": done, "missing": missing}, f, indent=1)


def report(qostrace, trace):
    out = subprocess.run([qostrace, "report", "--json", "-q", trace], capture_output=True, check=True)
    return json.loads(out.stdout)


def syscalls_by_thread(qostrace, trace, tids):
    """{comm: {call: count}} of the given threads, from qostrace dump."""
    out = subprocess.run([qostrace, "dump", "-e", "syscall", trace], capture_output=True,
                         check=True, text=True).stdout
    calls = {}
    for line in out.splitlines():
        m = re.search(r"\] syscall\s+(\S+)/(\d+) (\w+)\(", line)
        if m and int(m.group(2)) in tids:
            call = m.group(3)
            if call in ALLOC_CALLS:
                continue
            h = calls.setdefault(tids[int(m.group(2))], {})
            timed = call in TIMED_CALLS or tids[int(m.group(2))] in POLLING
            h[call] = "some" if timed else h.get(call, 0) + 1
    return calls


def workload_log(path):
    th = {}
    for line in open(path):
        m = re.match(r"thread tid=(\d+) name=(\S+) run_ns=(\d+) at=(\d+)", line)
        if m:
            th[m.group(2)] = (int(m.group(1)), int(m.group(3)), int(m.group(4)))
    return th


def accounting(qostrace, trace, tid, at):
    """The kernel's runtime of tid as recorded at its last switch out before
    at (the guest read schedstat then, while the thread slept), or None when
    the attach path records none."""
    out = subprocess.run([qostrace, "dump", "-A", "-e", "switch", "-t", str(tid), trace],
                         capture_output=True, check=True, text=True).stdout
    last = None
    for line in out.splitlines():
        m = re.match(r"\s*(\d+) \[\d+\] switch\s+\S+/(\d+) \(.*cpu time (\d+) ns\)", line)
        if m and int(m.group(2)) == tid and int(m.group(1)) <= at:
            last = int(m.group(3))
    return last


def lost(rep):
    t = rep["trace"]
    return f"{t['events']} events, {t['lost_events']} lost"


def workload(qostrace, trace, log):
    """Two measures per worker: the kernel's own accounting as recorded at a
    switch, which must be within 1 % of schedstat (it reads the same
    counter: equal in practice), and the sum of the run intervals between
    switches, which decides only where the attach path records no
    accounting, and then for the spinners: a wakeup's latency and the
    switches' own cost stretch or shrink the few microseconds of the
    producer's and the consumer's runs (-12 % for the producer on this
    machine), and even a spinner's by about 1 % on a loaded machine."""
    rep = report(qostrace, trace)
    threads = {t["tid"]: t for t in rep["threads"]}
    logged = workload_log(log)
    ok, parts = set(logged) == set(WORKERS), []
    if not ok:
        parts.append(f"the log has {', '.join(sorted(logged)) or 'none'} of the 4 workers (did it finish?)")
    for name, (tid, truth, at) in sorted(logged.items()):
        t = threads.get(tid)
        if not t:
            ok = False
            parts.append(f"{name} missing")
            continue
        err = t["run_ns"] - truth
        acct = accounting(qostrace, trace, tid, at)
        if acct is not None:
            ok &= abs(acct - truth) <= TOLERANCE * truth
        elif name in SPINNERS:
            ok &= abs(err) <= TOLERANCE * truth
        parts.append(f"{name} {truth / 1e6:.2f} ms: intervals {100 * err / truth:+.2f}%, " +
                     (f"accounting {100 * (acct - truth) / truth:+.3f}%" if acct is not None
                      else "no accounting"))
    print(f"  cpu time vs schedstat: {'; '.join(parts)}; {lost(rep)}")
    return ok


def median(xs):
    """The median as src/actors/period.h takes it (the middle pair's mean)."""
    x, n = sorted(xs), len(xs)
    return (x[(n - 1) // 2] + x[n // 2]) / 2


def qcod(xs):
    """QCoD with nearest-rank quartiles, as src/stats/quartiles.h."""
    x, n = sorted(xs), len(xs)
    q1, q3 = x[(n + 3) // 4 - 1], x[(3 * n + 3) // 4 - 1]
    return (q3 - q1) / (q3 + q1) if q3 + q1 else 0.0


def spanned_period(t):
    """The period of events at times t, robust to a late one: the median,
    over k, of (t[k + m] - t[k]) / m with m half of them. A delay d of
    one event moves a single estimate by d / m, and the median ignores it;
    the median of the intervals themselves would jump between intervals
    where the periods are irregular."""
    m = max(1, len(t) // 2)
    return median([(t[k + m] - t[k]) / m for k in range(len(t) - m)])


def periodic_log(path):
    """qt_periodic's tid and its iterations' starts [(at_ns, slept)]."""
    tid, starts = None, []
    for line in open(path):
        m = re.match(r"periodic tid=(\d+)", line)
        if m:
            tid = int(m.group(1))
        m = re.match(r"start iteration=\d+ at=(\d+) slept=([01])", line)
        if m:
            starts.append((int(m.group(1)), m.group(2) == "1"))
    return tid, starts


def wake_switch_ins(qostrace, trace, tid):
    """The times tid was switched in after it had gone to sleep (not after
    a preemption): where a sleeping thread's work begins."""
    out = subprocess.run([qostrace, "dump", "-A", "-e", "switch", "-t", str(tid), trace],
                         capture_output=True, check=True, text=True).stdout
    ins, asleep = [], True
    for line in out.splitlines():
        # the idle task is shown as "idle", without a tid
        m = re.match(r"\s*(\d+) \[\d+\] switch\s+(?:\S+/(\d+)|idle) \((\w+).*-> (?:\S+/(\d+)|idle) ", line)
        if not m:
            continue
        if int(m.group(2) or 0) == tid:
            asleep = m.group(3) != "preempted"
        if int(m.group(4) or 0) == tid and asleep:
            ins.append(int(m.group(1)))
    return ins


def periodic(qostrace, trace, log, period_us):
    """qt_periodic's thread against its own log, not against an idle
    machine's 10 ms: under TCG on a loaded host the guest's timers fire
    late and periods are dropped, so the truth is what the thread itself
    measured.

    The recording: between two logged starts of work the trace switches the
    thread in after a sleep at most once, and that switch-in precedes the
    second start (by what the thread took to read its clock); where it does
    not switch it in, the thread never slept (a frozen emulated CPU let the
    due time pass before the timer was armed). The period each side gives
    over half the run (spanned_period) agrees within 1 %; an interval's
    own difference (the change in that delay, tens of microseconds, up to
    tens of milliseconds where the emulated CPU froze) is shown.

    The analysis: where the guest measured a periodic thread (QCoD of its
    starts below the analysis's 10 %), the period is the median interval of
    the logged starts within 1 %, or within the order statistics around
    that median by as many ranks as the analysis's invocations differ in
    number from the logged starts (a median moves by a rank per member the
    two sets do not share); else the period depends on how the analysis
    groups irregular runs into invocations (docs/ALGORITHMS.md 1.4), and is
    shown, not checked."""
    rep = report(qostrace, trace)
    tid, starts = periodic_log(log)
    if tid is None or len(starts) < 3:
        print(f"  {log}: no tid or fewer than 3 starts logged; {lost(rep)}")
        return False
    at = [a for a, _ in starts]
    ins = wake_switch_ins(qostrace, trace, tid)
    pairs, extra, delays = [], 0, []
    for k, a in enumerate(at):
        lo = at[k - 1] if k else a - 2 * int(period_us) * 1000
        within = [t for t in ins if lo < t <= a]
        extra += max(0, len(within) - 1)
        if within:
            pairs.append((within[-1], a))
            delays.append(a - within[-1])
    ran_on = len(at) - len(pairs)
    ok = extra == 0 and len(pairs) >= 3
    log_iv = [b - a for a, b in zip(at, at[1:])]
    guest_period, guest_qcod = median(log_iv), qcod(log_iv)
    line = (f"  guest's log: {len(at)} periods ran, median interval {guest_period / 1e6:.3f} ms (nominal "
            f"{int(period_us) / 1e3:.3f}), QCoD {100 * guest_qcod:.1f}%; trace: {len(pairs)} switched in after "
            f"a sleep, {ran_on} ran on without one, {extra} switch-ins too many")
    if len(pairs) >= 3:
        # an interval of the trace less the guest's for the same two periods
        diff = median([abs((b[0] - a[0]) - (b[1] - a[1])) for a, b in zip(pairs, pairs[1:])])
        rec_err = (spanned_period([p[0] for p in pairs]) - spanned_period([p[1] for p in pairs])) / guest_period
        ok &= abs(rec_err) <= TOLERANCE
        line += (f"; {median(delays) / 1e3:.0f} us before the logged start (median; max "
                 f"{max(delays) / 1e3:.0f} us), an interval within {diff / 1e3:.0f} us of the logged one "
                 f"(median); period over half the run {100 * rec_err:+.3f}% of the log's")
    actor = next((a for a in rep["actors"] if a["tid"] == tid and a.get("period_ns")), None)
    if actor is None:
        print(f"{line}\n  analysis: no actor for tid {tid}; {lost(rep)}")
        return False
    err = (actor["period_ns"] - guest_period) / guest_period
    x, n = sorted(log_iv), len(log_iv)
    ranks = abs(actor["invocations"] - len(at)) + 1
    lo, hi = x[max(0, (n - 1) // 2 - ranks)], x[min(n - 1, n // 2 + ranks)]
    bound = max(TOLERANCE, (hi - lo) / 2 / guest_period)
    checked = guest_qcod < 0.10
    if checked:
        ok &= abs(err) <= bound
    print(f"{line}\n  analysis: period {actor['period_ns'] / 1e6:.3f} ms ({100 * err:+.2f}% of the guest's, " +
          (f"bound {100 * bound:.2f}%" if checked else "not checked: the guest measured no regular period") +
          f"), QCoD {100 * actor['qcod']:.1f}% ({'periodic' if actor.get('periodic') else 'not periodic'}), "
          f"{actor['invocations']} invocations, {len(actor['breaks'])} breaks; {lost(rep)}")
    return ok


def small(qostrace, trace):
    """A whole file whose losses, if any, are counted and located: the lost
    records (first and last time of each run of losses) account for the
    count in the file's END block, but for the last runs of each CPU, which
    no later record reported before the recording stopped."""
    rep = report(qostrace, trace)
    t = rep["trace"]
    out = subprocess.run([qostrace, "dump", "-e", "lost", trace], capture_output=True, check=True,
                         text=True).stdout
    located = sum(int(m.group(1)) for m in re.finditer(r"\] LOST\s+(\d+) records lost", out))
    print(f"  {lost(rep)} ({t['writer_dropped']} dropped by the writer), {located} located by lost records, "
          f"complete: {t['complete']}")
    return bool(t["complete"]) and located <= t["lost_events"] and (located > 0) == (t["lost_events"] > 0)


def summary(qostrace, trace):
    """What must not depend on the machine that recorded qt_workload."""
    rep = report(qostrace, trace)
    tids = {t["tid"]: t["comm"] for t in rep["threads"] if t["comm"] in WORKERS}
    actors = sorted((a["comm"], a["kind"]) for a in rep["actors"] if a["comm"] in WORKERS)
    return {
        "target threads": sorted(t["comm"] for t in rep["threads"] if t["target"]),
        "actors among the workers (comm, kind)": actors,
        "system calls of the workers (name: count)": syscalls_by_thread(qostrace, trace, tids),
        "stop reason": rep["trace"]["stop_reason"],
        "lost events": rep["trace"]["lost_events"],
    }, rep["trace"]["arch"]


def compare(qostrace, a, b):
    sa, arch_a = summary(qostrace, a)
    sb, arch_b = summary(qostrace, b)
    ok = True
    for k in sa:
        same = sa[k] == sb[k]
        ok &= same
        print(f"  {k}: {'same' if same else 'DIFFERENT'}" +
              ("" if same else f"\n    {arch_a}: {sa[k]}\n    {arch_b}: {sb[k]}"))
    print(f"  {arch_a} vs {arch_b}: {'same report but for timings' if ok else 'reports differ'}")
    return ok


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "unpack" and len(argv) == 4:
        unpack(argv[2], argv[3])
        return 0
    if cmd == "workload" and len(argv) == 5:
        return 0 if workload(*argv[2:]) else 1
    if cmd == "periodic" and len(argv) == 6:
        return 0 if periodic(*argv[2:]) else 1
    if cmd == "lost" and len(argv) == 4:
        return 0 if small(*argv[2:]) else 1
    if cmd == "compare" and len(argv) == 5:
        return 0 if compare(*argv[2:]) else 1
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
