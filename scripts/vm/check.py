#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The host's half of scripts/vm-test.sh: unpacks what a guest sent on its
serial console (scripts/vm/init.c) and checks the traces against the truth
the workloads logged in the guest, with this machine's qostrace.

  check.py unpack CONSOLE.log DIR      files, run results (DIR/runs.json), run outputs
  check.py workload QOSTRACE TRACE LOG tests/workloads/qt_workload: each worker's CPU
                                       time against its /proc schedstat in the guest
  check.py periodic QOSTRACE TRACE LOG PERIOD_US
                                       tests/workloads/qt_periodic: its period
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
    ok, parts = True, []
    for name, (tid, truth, at) in sorted(workload_log(log).items()):
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


def periodic(qostrace, trace, log, period_us):
    """The period the analysis finds for qt_periodic's thread, whether or not
    it calls the thread periodic: under emulation on a loaded machine the
    thread is often late, and its QCoD then passes the 10 % bound."""
    rep = report(qostrace, trace)
    tid = int(re.search(r"periodic tid=(\d+)", open(log).read()).group(1))
    want = int(period_us) * 1000
    for a in rep["actors"]:
        if a["tid"] == tid and a.get("period_ns"):
            err = (a["period_ns"] - want) / want
            print(f"  period {a['period_ns'] / 1e6:.3f} ms vs {want / 1e6:.3f} ms ({100 * err:+.2f}%), "
                  f"QCoD {100 * a['qcod']:.1f}% ({'periodic' if a.get('periodic') else 'not periodic'}), "
                  f"{a['invocations']} invocations, {len(a['breaks'])} breaks; {lost(rep)}")
            return abs(err) <= TOLERANCE
    print(f"  no actor for tid {tid}; {lost(rep)}")
    return False


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
