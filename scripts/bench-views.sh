#!/usr/bin/env bash
# The views on a recording of a few million events: report --html (size,
# time, peak memory; in headless Chromium: time to first render, draw times
# when zooming) and export --perfetto (size, time; read back by the Chrome
# DevTools trace engine). Prints a table; screenshots go to OUT_DIR.
#   scripts/bench-views.sh [TRACE.qtrace] [OUT_DIR]
# Without a trace, records `stress-ng --switch 2 -t 5` system-wide (root, BPF):
# about 2.5 M events. Needs scripts/install-deps.sh --views --bench.
set -euo pipefail
cd "$(dirname "$0")/.."
trace=${1:-}
out=${2:-$(mktemp -d /tmp/qostrace-bench-views-XXXXXX)}
mkdir -p "$out"
q=build/qostrace
[ -x $q ] || make -s
for t in node /usr/bin/chromium /usr/bin/time; do
	command -v $t >/dev/null || { echo "bench-views.sh: $t is missing (scripts/install-deps.sh --views --bench)" >&2; exit 1; }
done
if [ -z "$trace" ]; then
	trace=$out/stress.qtrace
	$q record -q -a -o "$trace" -- stress-ng --switch 2 -t 5 >/dev/null 2>&1
fi

measure() { # label, command...: prints "label  seconds  peak-MB"
	local label=$1 tf
	shift
	tf=$(mktemp)
	/usr/bin/time -f '%e %M' -o "$tf" "$@" >/dev/null 2>&1
	read -r secs kb <"$tf"
	rm -f "$tf"
	printf '%-34s %8.2f s %8.0f MB peak\n' "$label" "$secs" "$((kb / 1024))"
}

events=$($q info "$trace" | sed -n 's/^events *\([0-9]*\).*/\1/p')
runs=$($q report -q --json "$trace" | python3 -c 'import json,sys; print(sum(t["occurrences"] for t in json.load(sys.stdin)["threads"]))')
echo "== $trace: $events events, $runs run intervals ($(nproc) CPUs, $(uname -r))"
measure "report --json (the analysis)" $q report -q --json "$trace"
measure "report --json --html" $q report -q --json --html "$out/page.html" "$trace"
measure "export --perfetto" $q export -q --perfetto "$out/trace.json" "$trace"
html=$(stat -c %s "$out/page.html")
json=$(stat -c %s "$out/trace.json")
data=$(python3 -c '
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"id=\"qt-data\">(.*?)</script>", page, re.S)
print(len(m.group(1).encode()))' "$out/page.html")
printf '%-34s %8.1f MB (data block %.1f MB: %.1f bytes per run interval)\n' "HTML page" \
	"$(echo "$html / 1000000" | bc -l)" "$(echo "$data / 1000000" | bc -l)" "$(echo "$data / $runs" | bc -l)"
printf '%-34s %8.1f MB (%.0f bytes per recorded event)\n' "Perfetto JSON" \
	"$(echo "$json / 1000000" | bc -l)" "$(echo "$json / $events" | bc -l)"

echo "== the page in headless Chromium ($(/usr/bin/chromium --version 2>/dev/null))"
node tests/views/html_check.mjs "$out/page.html" "$out/shots" >"$out/html.json" || true
python3 - "$out/html.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["timing"]
print("navigation to first render      %8.0f ms (script: JSON.parse %.0f ms, decode %.0f ms, first draw %.0f ms)"
      % (d["load_ms"], t["parse_ms"], t["decode_ms"], t["first_draw_ms"]))
print("lanes %d, run intervals %d, breaks %d, critical stretches %d" % (d["counts"]["lanes"], d["counts"]["runs"],
      d["counts"]["breaks"], d["counts"]["critical"]))
print("%-14s %9s %14s %16s %10s" % ("window", "draw", "exact lanes", "busy-fraction", "columns"))
for z in d["zoom"]:
    print("%11.3f ms %7.1f ms %14d %16d %10d" % (z["span_ns"] / 1e6, z["ms"], z["exact_lanes"], z["aggregated_lanes"],
                                                z["columns"]))
if d["failures"]:
    print("FAILURES:", d["failures"])
EOF
echo "== the export read by the Chrome DevTools trace engine"
if [ "$json" -lt 1500000000 ]; then
	/usr/bin/time -f '%e s %M KB' -o "$out/dt.time" node --max-old-space-size=12000 tests/views/perfetto_check.mjs "$out/trace.json" >"$out/dt.json" || true
	python3 - "$out/dt.json" "$out/dt.time" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
secs, kb = open(sys.argv[2]).read().split()[0], open(sys.argv[2]).read().split()[2]
print("parsed %d events in %s s (%.1f GB peak): %d threads, %d slices, %d flows bound, warnings %s"
      % (d["events"], secs, int(kb) / 1e6, d["threads"], d["entries"], d["flows"], d["warnings"] or "none"))
EOF
fi
echo "screenshots: $out/shots/"
