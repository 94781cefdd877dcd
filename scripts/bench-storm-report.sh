#!/usr/bin/env bash
# The analysis of a context-switch storm against perf's: `stress-ng --switch 2`
# for SECONDS recorded twice, by `perf sched record` and by `qostrace record
# -a`, then `perf sched timehist` on perf's recording and `report --json` of
# two builds of qostrace (OLD, NEW) on qostrace's, alternated ROUNDS times
# in one run (the machine is shared: only the ratios in one run mean
# something). Prints, per duration, the events of each recording, the median
# wall and user times and the ratios to timehist; then NEW's pattern search
# status and time on the storm. Needs root, perf and stress-ng.
#   scripts/bench-storm-report.sh OLD NEW [SECONDS...]   (default 4)
#   ROUNDS=3 by default; KEEP=DIR keeps qostrace's recordings there.
#   Results: scripts/results/bench-storm-report.txt
set -u
old=${1:?usage: scripts/bench-storm-report.sh OLD NEW [SECONDS...]}
new=${2:?}
shift 2
[ $# -gt 0 ] || set -- 4
ROUNDS=${ROUNDS:-3}
for t in perf stress-ng python3; do
	command -v $t >/dev/null || { echo "bench-storm-report.sh: SKIPPED: $t not installed" >&2; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "bench-storm-report.sh: SKIPPED: needs root (perf sched record, BPF)" >&2; exit 77; }
work=$(mktemp -d /var/tmp/bench-storm.XXXXXX)
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$1" '{ print $c }' "$2" | median; }

echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(uname -r) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# old: $old  new: $new  rounds: $ROUNDS"
for secs in "$@"; do
	perf sched record -o "$work/perf.data" -- stress-ng --switch 2 --timeout "${secs}s" -q \
		>/dev/null 2>"$work/perf.err" || { cat "$work/perf.err" >&2; exit 1; }
	# Recorded by OLD: a newer qostrace reads an older one's files, not the reverse.
	"$old" record -q -a --force -o "$work/storm.qtrace" -- stress-ng --switch 2 --timeout "${secs}s" -q \
		>/dev/null 2>"$work/q.err" || { cat "$work/q.err" >&2; exit 1; }
	pev=$(perf report -i "$work/perf.data" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
	qev=$("$new" info "$work/storm.qtrace" 2>/dev/null | awk '/^events/ { gsub(",", "", $2); print $2; exit }')
	: > "$work/th"; : > "$work/old"; : > "$work/new"
	for r in $(seq "$ROUNDS"); do
		/usr/bin/time -f "%e %U %M" -o "$work/t" perf sched timehist -i "$work/perf.data" >/dev/null 2>&1
		cat "$work/t" >> "$work/th"
		for w in old new; do
			bin=$old; [ $w = new ] && bin=$new
			/usr/bin/time -f "%e %U %M" -o "$work/t" "$bin" report -q --json "$work/storm.qtrace" \
				>"$work/$w.json" 2>"$work/$w.err" ||
				{ echo "bench-storm-report.sh: $w report failed:" >&2; cat "$work/$w.err" >&2; exit 1; }
			cat "$work/t" >> "$work/$w"
		done
	done
	echo "## stress-ng --switch 2 --timeout ${secs}s: perf.data ${pev:-?} samples, qtrace ${qev:-?} events"
	printf '%-22s %8s %8s %8s %10s %10s\n' tool "wall s" "user s" "MB" "wall/th" "user/th"
	thw=$(col 1 "$work/th"); thu=$(col 2 "$work/th")
	for w in th old new; do
		name="perf sched timehist"; [ $w = old ] && name="old report --json"; [ $w = new ] && name="new report --json"
		awk -v n="$name" -v w="$(col 1 "$work/$w")" -v u="$(col 2 "$work/$w")" -v m="$(col 3 "$work/$w")" \
			-v tw="$thw" -v tu="$thu" \
			'BEGIN { printf "%-22s %8.2f %8.2f %8.0f %10.2f %10.2f\n", n, w, u, m / 1024, w / tw, u / tu }'
	done
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ps, up = d["patterns_search"] or {}, d["upstream_actor"] or {}
print("new pattern search on %s (period %.1f us, %s breaks): status %r; %d levels, %.2f s mining, %.2f s in all" % (
      up.get("name"), up.get("period_ns", 0) / 1e3, up.get("breaks"), ps.get("status"),
      len(ps.get("levels", [])), ps.get("mine_ns", 0) / 1e9, ps.get("elapsed_ns", 0) / 1e9))
for a in d["actors"]:
    if a["comm"].startswith("stress-ng"):
        print("  %s: %s, period %.1f us, qcod %.3f, %s major breaks" % (a["name"],
              "periodic" if a["periodic"] else "not periodic", a["period_ns"] / 1e3, a["qcod"], a.get("major_breaks")))' \
		"$work/new.json"
	[ -n "${KEEP:-}" ] && cp "$work/storm.qtrace" "$KEEP/storm-${secs}s.qtrace"
done
