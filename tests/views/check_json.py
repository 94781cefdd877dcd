#!/usr/bin/env python3
"""Reads what qostrace's emitters wrote, as an independent JSON reader
(Python's json module), and prints facts about it, one "key value" per line,
for the C tests to compare with what they know.

  check_json.py html PAGE.html       the two JSON blocks of report --html
  check_json.py perfetto OUT.json    a trace-event file of export --perfetto

Exit 1 (with a message on stderr) when the input is not what the format
promises: invalid JSON or UTF-8, slices on one track that do not nest,
timestamps that do not give back whole nanoseconds, flow ends that bind to
no slice.
"""
import json
import re
import sys
from collections import defaultdict


def fail(msg):
    print("check_json.py: " + msg, file=sys.stderr)
    sys.exit(1)


def block(page, ident):
    m = re.search(r'<script type="application/json" id="%s">(.*?)</script>' % ident, page, re.S)
    if not m:
        fail("no %s block" % ident)
    return json.loads(m.group(1))


def html(path):
    raw = open(path, "rb").read()
    page = raw.decode("utf-8")  # strict: invalid UTF-8 fails here
    if page.count("</script>") != 3:
        fail("%d </script> tags, expected 3 (a name ended a block early?)" % page.count("</script>"))
    report = block(page, "qt-report")
    data = block(page, "qt-data")
    print("report_keys", ",".join(sorted(report)))
    d = report.get("diagnosis")
    if d is None:
        print("diagnosis null")
    else:
        # the answer, the upstream actor (its index in qt-data's actors too), the second answer's kind and culprit
        up = d["upstream"]
        if (up is None) != (data["upstream"] < 0) or (up is not None and up["index"] != data["upstream"]):
            fail("the diagnosis's upstream actor %r is not qt-data's %r" % (up and up["index"], data["upstream"]))
        cause = d.get("cause")
        print("diagnosis", d["answer"], -1 if up is None else up["index"], cause["kind"] if cause else "null",
              json.dumps((cause.get("name") or cause.get("syscall") or "-") if cause else "-").replace(" ", "\\u0020"))
    print("lanes", len(data["lanes"]))
    print("gaps", len(data["gaps"]) // 5)
    print("actors", len(data["actors"]))
    print("upstream", data["upstream"])
    print("critical", "null" if data["critical"] is None else "set")
    if data["critical"] is not None:
        paths = data["critical"]["paths"]
        print("critical_paths", len(paths))
        for p in paths:
            g = p["seg"]
            if len(g) % 6:
                fail("path %s: %d numbers" % (p["name"], len(g)))
            for i in range(0, len(g), 6):
                if g[i] >= len(data["lanes"]) or g[i + 1] > g[i + 2]:
                    fail("path %s: bad segment %r" % (p["name"], g[i:i + 6]))
    print("dur", data["dur"])
    print("t0", data["t0"])
    runs = 0
    for lane in data["lanes"]:
        r = lane["runs"]
        if len(r) % 3 or len(r) // 3 != lane["n"]:
            fail("lane %s: %d numbers for %d runs" % (lane["name"], len(r), lane["n"]))
        end, s_sum, e_sum, busy, codes = 0, 0, 0, 0, 0
        for i in range(0, len(r), 3):
            s = end + r[i]
            e = s + r[i + 1]
            if r[i] < 0 or r[i + 1] < 0:
                fail("lane %s: runs overlap or go back" % lane["name"])
            s_sum += s
            e_sum += e
            busy += e - s
            codes += r[i + 2]
            end = e
        runs += lane["n"]
        # names may hold anything: print them escaped, one token
        print("lane", lane["tid"], json.dumps(lane["name"]).replace(" ", "\\u0020"),
              lane["n"], s_sum, e_sum, codes, "actor" if lane["actor"] else "-")
    for a in data["actors"]:
        inv = a["inv"]
        end, s_sum = 0, 0
        for i in range(0, len(inv), 2):
            s = end + inv[i]
            s_sum += s
            end = max(s + inv[i + 1], s)
        print("actor", a["lane"], len(inv) // 2, s_sum, len(a["breaks"]) // 6)
    print("runs", runs)


def to_ns(x):
    # What Perfetto's JSON importer does: int64(ts * 1000), truncated.
    return int(x * 1000.0)


def perfetto(path):
    raw = open(path, "rb").read()
    doc = json.loads(raw.decode("utf-8"))
    ev = doc["traceEvents"]
    by_ph = defaultdict(int)
    tracks = defaultdict(list)
    names = {}
    starts = defaultdict(set)  # (pid, tid, cat) -> slice start ns
    runs = 0
    for e in ev:
        ph = e["ph"]
        by_ph[ph] += 1
        if ph == "M":
            if e["name"] == "thread_name":
                names[(e["pid"], e["tid"])] = e["args"]["name"]
            continue
        for k in ("ts", "dur"):
            if k in e:
                v = e[k]
                # four decimals: whole ns + 0.1 ns, so that truncation is exact
                ns = round(v * 1000)
                if to_ns(v) != ns:
                    fail("%s %r does not truncate to a whole ns" % (k, v))
        if ph == "X":
            s = to_ns(e["ts"])
            d = to_ns(e["dur"])
            tracks[(e["pid"], e["tid"])].append((s, -d, s + d, e["name"]))
            starts[(e["pid"], e["tid"], e["cat"])].add(s)
            if e["cat"] == "sched" and e["name"].startswith("run: "):
                runs += 1
    # strict nesting on every track (what Perfetto and DevTools require)
    for key, sl in tracks.items():
        if key not in names:
            fail("track %r has no thread_name" % (key,))
        sl.sort()
        stack = []
        for s, negd, e, name in sl:
            while stack and stack[-1] <= s:
                stack.pop()
            if stack and e > stack[-1]:
                fail("track %r: slice %s [%d, %d) overlaps its parent's end %d" % (key, name, s, e, stack[-1]))
            stack.append(e)
    # flows: each end on the exact start of a slice of its track and category
    flows = defaultdict(dict)
    for e in ev:
        if e["ph"] in "sf":
            k = (e["pid"], e["tid"], e["cat"])
            if to_ns(e["ts"]) not in starts[k]:
                fail("flow %s %s at %r binds to no slice of %r" % (e["name"], e["ph"], e["ts"], k))
            flows[(e["name"], e["id"])][e["ph"]] = to_ns(e["ts"])
    for k, f in flows.items():
        if set(f) != {"s", "f"}:
            fail("flow %r is missing an end" % (k,))
        if f["f"] < f["s"]:
            fail("flow %r goes back in time" % (k,))
    print("events", len(ev))
    for ph in sorted(by_ph):
        print("ph_%s" % ph, by_ph[ph])
    print("tracks", len(tracks))
    print("named_tracks", len(names))
    print("runs", runs)
    print("flows", len(flows))
    for name in ("wakeup", "critical path"):
        print("flows_" + name.replace(" ", "_"), sum(1 for k in flows if k[0] == name))
    cats = defaultdict(int)
    for e in ev:
        if e["ph"] == "X":
            cats[e["cat"]] += 1
    for c in sorted(cats):
        print("cat_%s" % c, cats[c])
    print("invocations", sum(1 for e in ev if e["ph"] == "X" and e["name"].endswith("invocation")))
    print("late_invocations", sum(1 for e in ev if e["ph"] == "X" and e["name"] == "late invocation"))
    print("breaks", sum(1 for e in ev if e["ph"] == "X" and e["name"].startswith("period break")))
    if doc.get("otherData", {}).get("events") != len(ev):
        fail("otherData.events is not the number of events")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("html", "perfetto"):
        fail("usage: check_json.py html|perfetto FILE")
    try:
        (html if sys.argv[1] == "html" else perfetto)(sys.argv[2])
    except (ValueError, KeyError, TypeError) as e:
        fail("%s: %s: %s" % (sys.argv[2], type(e).__name__, e))
