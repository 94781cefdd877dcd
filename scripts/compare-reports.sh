#!/usr/bin/env bash
# Compares the reports of two builds of qostrace on every recording of a
# corpus (scripts/report-corpus.sh): text, info and the Perfetto export byte
# for byte, JSON with the fields that name elapsed time (miner run times,
# budgets) and the given top-level keys left out.
#   scripts/compare-reports.sh OLD NEW DIR [--ignore KEY]... [--time-cut-patterns]
# --time-cut-patterns: a recording whose pattern search ran out of its time
# budget in either build's report is compared without what that search
# found (the patterns, their section, the Diagnosis's third answer): where
# it stops depends on the machine's speed (a build run under emulation, a
# loaded machine), the rest of the report does not. Such a recording's
# line says "same but patterns (time-cut)".
# Exit 0 when every report is the same; the differences are printed.
set -uo pipefail
old=${1:?usage: scripts/compare-reports.sh OLD NEW DIR [--ignore KEY]...}
new=${2:?}
dir=${3:?}
shift 3
ignore=()
time_cut=no
while [ $# -gt 0 ]; do
	case "$1" in
	--ignore) ignore+=("$2"); shift 2 ;;
	--time-cut-patterns) time_cut=yes; shift ;;
	*) echo "compare-reports.sh: unknown $1" >&2; exit 2 ;;
	esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Elapsed times differ from run to run: they are left out of both sides. A
# pattern search that ran out of its time budget (a storm) may also stop at
# another level from run to run: compare such a recording with itself first.
scrub_text() { sed -E -e 's/[0-9]+ miner runs, [0-9.]+ [mun]?s/N miner runs, T/' -e 's/time budget [0-9.]+ s/time budget T/'; }
scrub_json() {
	python3 -c '
import json, re, sys
timing = {"account_ns", "build_ns", "cpa_ns", "mine_ns", "elapsed_ns"}
drop = set(sys.argv[1:])
def walk(v):
    if isinstance(v, dict):
        return {k: walk(x) for k, x in v.items() if k not in timing}
    if isinstance(v, list):
        return [walk(x) for x in v]
    if isinstance(v, str):
        return re.sub(r"time budget [0-9.]+ s", "time budget T", v)
    return v
d = json.load(sys.stdin)
for k in drop:
    d.pop(k, None)
json.dump(walk(d), sys.stdout, indent=1, sort_keys=True)
' "${ignore[@]}"
}

# Whether a report's pattern search was cut by its time budget.
time_cut_json() {
	python3 -c '
import json, sys
def cut(v):
    if isinstance(v, dict):
        return "time" in (v.get("bounds") or []) or any(cut(x) for x in v.values())
    return isinstance(v, list) and any(cut(x) for x in v)
sys.exit(0 if cut(json.load(sys.stdin).get("patterns_search")) else 1)
'
}
# A report without what the pattern search found: JSON (scrubbed) without
# patterns, patterns_search, diagnosis.patterns; text without the
# Diagnosis's third answer and the section of the patterns.
drop_patterns_json() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
d.pop("patterns", None)
d.pop("patterns_search", None)
(d.get("diagnosis") or {}).pop("patterns", None)
json.dump(d, sys.stdout, indent=1, sort_keys=True)
'
}
drop_patterns_text() { awk '/^== / { skip = /^== What happens when /; diag = /^== Diagnosis/ } !skip && !(diag && /^3\. /) { print }'; }

bad=0
for f in "$dir"/*.qtrace "$dir"/*.csv; do
	[ -e "$f" ] || continue
	n=$(basename "$f")
	"$old" report -q --color=never "$f" 2>/dev/null | scrub_text >"$work/old.txt"
	"$new" report -q --color=never "$f" 2>/dev/null | scrub_text >"$work/new.txt"
	"$old" report -q --json "$f" 2>/dev/null | scrub_json >"$work/old.json"
	"$new" report -q --json "$f" 2>/dev/null | scrub_json >"$work/new.json"
	t=same; j=same; x=same; cut=
	if [ $time_cut = yes ] && ! { cmp -s "$work/old.txt" "$work/new.txt" && cmp -s "$work/old.json" "$work/new.json"; } &&
		{ time_cut_json <"$work/old.json" || time_cut_json <"$work/new.json"; }; then
		for s in old new; do
			drop_patterns_text <"$work/$s.txt" >"$work/$s.t" && mv "$work/$s.t" "$work/$s.txt"
			drop_patterns_json <"$work/$s.json" >"$work/$s.j" && mv "$work/$s.j" "$work/$s.json"
		done
		cut=" but patterns (time-cut)"
	fi
	cmp -s "$work/old.txt" "$work/new.txt" || { t=DIFFERENT; bad=1; diff "$work/old.txt" "$work/new.txt" | head -40; }
	cmp -s "$work/old.json" "$work/new.json" || { j=DIFFERENT; bad=1; diff "$work/old.json" "$work/new.json" | head -40; }
	[ $t = same ] && t=same$cut
	[ $j = same ] && j=same$cut
	case "$n" in
	*.qtrace)
		"$old" info "$f" >"$work/old.info" 2>&1
		"$new" info "$f" >"$work/new.info" 2>&1
		"$old" export -q --perfetto "$work/old.pf" "$f" >/dev/null 2>&1
		"$new" export -q --perfetto "$work/new.pf" "$f" >/dev/null 2>&1
		cmp -s "$work/old.info" "$work/new.info" && cmp -s "$work/old.pf" "$work/new.pf" ||
			{ x=DIFFERENT; bad=1; diff "$work/old.info" "$work/new.info" | head -20; } ;;
	*) x=- ;;
	esac
	printf '%-28s text %-9s json %-9s info+perfetto %s\n' "$n" "$t" "$j" "$x"
done
exit $bad
