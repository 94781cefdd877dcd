#!/usr/bin/env python3
"""Validates `qostrace report --json` output against docs/report.schema.json
with python3-jsonschema, then checks that the schema has teeth: documents
broken on purpose (a required field removed, a wrong type, a value out of
range) must be rejected.

  validate_schema.py SCHEMA REPORT.json [--expect trace|gantt]

Prints "valid" and the sections found; exit 1 with the reasons otherwise,
77 when the jsonschema module is missing.
"""
import copy
import json
import sys

try:
    import jsonschema
except ImportError:
    print("SKIPPED: the python3 jsonschema module is missing (apt-get install python3-jsonschema)", file=sys.stderr)
    sys.exit(77)


def errors(validator, doc):
    return sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))


def main():
    args = sys.argv[1:]
    expect = None
    if "--expect" in args:
        i = args.index("--expect")
        expect = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    schema = json.load(open(args[0], encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    v = cls(schema)
    doc = json.load(open(args[1], encoding="utf-8"))
    bad = errors(v, doc)
    for e in bad:
        # inside a oneOf, say why the branch that came closest failed
        while e.context:
            e = max(e.context, key=lambda c: len(c.absolute_path))
        msg = e.message if len(e.message) < 300 else e.message[:300] + "..."
        print("invalid at /%s: %s" % ("/".join(map(str, e.absolute_path)), msg), file=sys.stderr)
    if bad:
        return 1
    if expect == "trace" and not ("trace" in doc and "threads" in doc):
        print("a recording's report has no trace or threads section", file=sys.stderr)
        return 1
    if expect == "gantt" and ("trace" in doc or "threads" in doc):
        print("a Gantt chart's report has a trace section", file=sys.stderr)
        return 1
    if expect == "trace" and doc.get("diagnosis") is None:
        print("a recording's report has no diagnosis", file=sys.stderr)
        return 1
    if expect == "gantt" and doc.get("diagnosis") is not None:
        print("a Gantt chart's report has a diagnosis", file=sys.stderr)
        return 1

    # The schema must reject what breaks the interface.
    broken = []

    def mutate(what, fn):
        d = copy.deepcopy(doc)
        try:
            fn(d)
        except (KeyError, IndexError, TypeError, StopIteration):
            return  # the section is not in this document
        if not errors(v, d):
            broken.append(what)

    mutate("no qostrace_report", lambda d: d.pop("qostrace_report"))
    mutate("version 2", lambda d: d.update(qostrace_report="2"))
    if "trace" in doc:
        mutate("trace without start_ns", lambda d: d["trace"].pop("start_ns"))
        mutate("trace without threads", lambda d: d.pop("threads"))
        mutate("negative lost_events", lambda d: d["trace"].update(lost_events=-1))
        mutate("cpus as a string", lambda d: d["trace"].update(cpus="2"))
        mutate("complete as a number", lambda d: d["trace"].update(complete=1))
        mutate("a gap of an unknown kind", lambda d: d["trace"]["gaps"].append(
            {"cpu": 0, "start_ns": 1, "end_ns": 2, "kind": "?", "lost_events": 0}))
        mutate("a thread without tid", lambda d: d["threads"][0].pop("tid"))
        mutate("a thread with a float run_ns", lambda d: d["threads"][0].update(run_ns=1.5))
        mutate("a thread with first_ns only", lambda d: d["threads"][0].pop("last_ns"))
    for k, a in enumerate(doc.get("actors") or []):
        mutate("an actor without breaks", lambda d: d["actors"][k].pop("breaks"))
        mutate("an actor with qcod 2", lambda d: d["actors"][k].update(qcod=2))
        break
    if doc.get("patterns"):
        mutate("a pattern with support 1.5", lambda d: d["patterns"][0].update(support_pos=1.5))
        mutate("a pattern without events", lambda d: d["patterns"][0].update(events=[]))
    if doc.get("critical"):
        mutate("critical without whole", lambda d: d["critical"].pop("whole"))
        mutate("a share without ns", lambda d: d["critical"]["whole"]["share"].append(
            {"tid": 1, "comm": "x", "kind": "thread"}))
        mutate("an unknown input", lambda d: d["critical"].update(input="?"))
        mutate("a negative epsilon", lambda d: d["critical"].update(epsilon_ns=-1))
    if "trace" in doc:
        mutate("progress missing", lambda d: d.pop("progress"))
    pg = doc.get("progress")
    if pg:
        mutate("progress without cycle", lambda d: d["progress"].pop("cycle"))
        mutate("progress with one thread", lambda d: d["progress"]["threads"].pop())
        mutate("progress chosen in an unknown way", lambda d: d["progress"].update(chosen="?"))
        mutate("a cycle of an unknown state", lambda d: d["progress"]["cycle"].update(state="?"))
        if pg["cycle"]["state"] == "steady":
            mutate("a steady cycle without period", lambda d: d["progress"]["cycle"].pop("period_ns"))
            mutate("a steady cycle repeating twice", lambda d: d["progress"]["cycle"].update(repetitions=2))
        mutate("a block with a negative q2", lambda d: d["progress"]["blocks"][0].update(q2_ns=-1))
        mutate("a block on a third thread", lambda d: d["progress"]["blocks"][0].update(thread=2))
        mutate("a block without label", lambda d: d["progress"]["blocks"][0].pop("nr"))
        mutate("a ray of an unknown kind", lambda d: d["progress"]["rays"][0].update(kind="Q"))
        mutate("a departure without break", lambda d: d["progress"]["departures"][0].pop("break"))
    if "trace" in doc:
        mutate("data_path missing", lambda d: d.pop("data_path"))
    dp = doc.get("data_path")
    if dp:
        mutate("data_path without target", lambda d: d["data_path"].pop("target"))
        mutate("data_path with negative calls", lambda d: d["data_path"].update(calls=-1))
    if dp and dp["target"]:
        mutate("data_path with a target and no hops", lambda d: d["data_path"].pop("hops"))
        mutate("data_path with a share above 1", lambda d: d["data_path"].update(waiting_share=1.5))
        mutate("a hop of an unknown kind", lambda d: d["data_path"]["hops"][0].update(kind="?"))
        mutate("a hop of an unknown object kind", lambda d: d["data_path"]["hops"][-1].update(object_kind="?"))
        mutate("a hop without waited_ns", lambda d: d["data_path"]["hops"][-1].pop("waited_ns"))
        mutate("a hop with a negative in_process_ns", lambda d: d["data_path"]["hops"][-1].update(in_process_ns=-1))
        if any(h["other_inputs"] for h in dp["hops"]):
            mutate("another input without slack", lambda d: next(
                h for h in d["data_path"]["hops"] if h["other_inputs"])["other_inputs"][0].pop("slack_ns"))
    mutate("diagnosis missing", lambda d: d.pop("diagnosis"))
    diag = doc.get("diagnosis")
    if diag:
        mutate("a diagnosis without answer", lambda d: d["diagnosis"].pop("answer"))
        mutate("a diagnosis of an unknown answer", lambda d: d["diagnosis"].update(answer="?"))
        mutate("a diagnosis with a qcod_threshold of 0", lambda d: d["diagnosis"].update(qcod_threshold=0))
        mutate("a diagnosis with negative actors", lambda d: d["diagnosis"].update(actors=-1))
    if diag and diag["answer"] == "upstream_breaks":
        mutate("an upstream answer without its actor", lambda d: d["diagnosis"].update(upstream=None))
        mutate("an upstream answer without cause", lambda d: d["diagnosis"].pop("cause"))
        mutate("an upstream answer without breaking", lambda d: d["diagnosis"].pop("breaking"))
        mutate("a no-break answer with an actor", lambda d: d["diagnosis"].update(answer="none_breaks"))
        mutate("an upstream actor without breaks", lambda d: d["diagnosis"]["upstream"].update(breaks=0))
        mutate("an upstream actor without index", lambda d: d["diagnosis"]["upstream"].pop("index"))
        mutate("a breaking row without own", lambda d: d["diagnosis"]["breaking"][0].pop("own"))
        mutate("a breaking row with a negative own_worst_ns",
               lambda d: d["diagnosis"]["breaking"][0].update(own_worst_ns=-1))
        mutate("a breaking row with downstream as a number", lambda d: d["diagnosis"]["breaking"][0].update(downstream=1))
        if diag["cause"]:
            kind = diag["cause"]["kind"]
            mutate("a cause of an unknown kind", lambda d: d["diagnosis"]["cause"].update(kind="?"))
            mutate("a cause weighing 6 breaks", lambda d: d["diagnosis"]["cause"].update(worst_breaks=list(range(6))))
            if kind != "none":
                mutate("a %s cause without min_ns" % kind, lambda d: d["diagnosis"]["cause"].pop("min_ns"))
                mutate("a %s cause explaining no break" % kind, lambda d: d["diagnosis"]["cause"].update(breaks=0))
            if kind == "held":
                mutate("a held cause without state", lambda d: d["diagnosis"]["cause"].pop("state"))
                mutate("a held cause of an unknown holdup", lambda d: d["diagnosis"]["cause"].update(holdup="?"))
            if kind == "culprit":
                mutate("a culprit without threads", lambda d: d["diagnosis"]["cause"].pop("threads"))
                mutate("a culprit met in an unknown way", lambda d: d["diagnosis"]["cause"].update(how="?"))
            if kind in ("culprit", "release"):
                mutate("a %s cause without name" % kind, lambda d: d["diagnosis"]["cause"].pop("name"))
        if diag["patterns"]:
            mutate("diagnosis patterns without shown", lambda d: d["diagnosis"]["patterns"].pop("shown"))
            mutate("diagnosis patterns showing 3", lambda d: d["diagnosis"]["patterns"].update(shown=[0, 1, 2]))
    mutate("actors missing", lambda d: d.pop("actors"))
    mutate("an actor of an unknown kind", lambda d: d["actors"][0].update(kind="?"))
    mutate("a break without data_missing", lambda d: next(a for a in d["actors"] if a["breaks"])["breaks"][0].pop("data_missing"))
    mutate("upstream_actor as a string", lambda d: d.update(upstream_actor="src"))
    if broken:
        for b in broken:
            print("the schema accepts a broken document: %s" % b, file=sys.stderr)
        return 1
    print("valid", ",".join(k for k in ("trace", "threads", "diagnosis", "actors", "upstream_actor", "patterns",
                                        "critical", "progress", "data_path")
                            if k in doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
