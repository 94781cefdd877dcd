#!/usr/bin/env bash
# How fast the analysis is, and how it grows with the recording.
#
#   scripts/bench-analysis.sh [MAX]      (MAX: largest synthetic size, default 100000000)
#
# 1. qostrace report --json on synthetic traces of 1 M, 10 M and 100 M events
#    (tests/bench/gen_trace.c: 8 CPUs, periodic pipelines, background
#    threads, disturbances): wall time, events/s, peak memory, bytes per
#    run interval, and the stages' own timings.
# 2. The same context-switch storm (stress-ng --switch) recorded by qostrace
#    record -a and by perf sched record, at about 1 M and 10 M events:
#    qostrace report against perf sched timehist and perf sched latency.
# Results go to stdout and to scripts/results/bench-analysis.txt.
set -u
cd "$(dirname "$0")/.."
MAX=${1:-100000000}
OUT=scripts/results/bench-analysis.txt
WORK=$(mktemp -d /tmp/qostrace-bench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
QT=build/qostrace
[ "$(id -u)" -eq 0 ] || { echo "bench-analysis.sh: run as root (part 2 records)" >&2; exit 1; }
scripts/install-deps.sh --bench >/dev/null || exit 1
make -s all bench-progs >/dev/null || exit 1
mkdir -p scripts/results
: > "$OUT.tmp"
log() { echo "$@" | tee -a "$OUT.tmp"; }

log "# qostrace analysis speed, $(date -u +%Y-%m-%dT%H:%MZ), $(uname -r), $(nproc) CPUs, $(free -g | awk '/Mem:/ { print $2 }') GiB"
log ""
log "# 1. report --json on synthetic traces (gen_trace, 8 CPUs)"
log "    events        runs   file MB   wall s   user s   events/s   peak MB   B/run   load / timeline / actors / critical / patterns (s)"

measure() {	# file events label
	local f=$1 ev=$2
	/usr/bin/time -f "%e %U %M" -o "$WORK/t" $QT report --json "$f" > "$WORK/r.json" 2> "$WORK/err" || {
		log "    $3: report failed: $(tail -1 "$WORK/err")"; return 1; }
	read -r wall user rss < "$WORK/t"
	python3 - "$WORK/r.json" "$ev" "$wall" "$user" "$rss" "$(stat -c %s "$f")" <<'PY' | tee -a "$OUT.tmp"
import json, sys
d = json.load(open(sys.argv[1]))
ev, wall, user, rss, size = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
runs = sum(t["occurrences"] for t in d["threads"])
crit = d.get("critical") or {}
ct = crit.get("timing", {})
crit_s = sum(ct.get(k, 0) for k in ("build_ns", "cpa_ns", "account_ns")) / 1e9
pat = (d.get("patterns_search") or {}).get("elapsed_ns", 0) / 1e9
print(f"{ev:10d} {runs:11d} {size / 1e6:9.1f} {wall:8.2f} {user:8.2f} {ev / wall:10.0f} {rss / 1024:9.0f} {rss * 1024 / max(runs, 1):7.1f}"
      f"   critical {crit_s:.2f}, patterns {pat:.2f}")
PY
}

for n in 1000000 10000000 100000000; do
	[ "$n" -le "$MAX" ] || continue
	build/bench/gen_trace "$WORK/g.qtrace" "$n" 8 > /dev/null || { log "gen_trace $n failed"; continue; }
	measure "$WORK/g.qtrace" "$n" "synthetic $n"
	rm -f "$WORK/g.qtrace"
done

log ""
log "# 2. the same storm (stress-ng --switch 2) recorded by qostrace and by perf sched record"
log "    storm   tool                  events      file MB   analysis                      wall s   events/s   peak MB"
for secs in 2 15; do
	$QT record -q -a --no-syscalls -o "$WORK/q.qtrace" --force -- stress-ng --switch 2 -t "$secs" -q
	perf sched record -q -o "$WORK/p.data" -- stress-ng --switch 2 -t "$secs" -q >/dev/null 2>&1
	qev=$($QT report --json "$WORK/q.qtrace" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["trace"]["events"])')
	pev=$(perf script -i "$WORK/p.data" 2>/dev/null | wc -l)
	for what in "qostrace report --json" "perf sched timehist" "perf sched latency"; do
		case "$what" in
		qostrace*) cmd=($QT report --json "$WORK/q.qtrace"); ev=$qev; f=$WORK/q.qtrace ;;
		*timehist) cmd=(perf sched timehist -i "$WORK/p.data"); ev=$pev; f=$WORK/p.data ;;
		*latency) cmd=(perf sched latency -i "$WORK/p.data"); ev=$pev; f=$WORK/p.data ;;
		esac
		/usr/bin/time -f "%e %M" -o "$WORK/t" "${cmd[@]}" > /dev/null 2>&1
		read -r wall rss < "$WORK/t"
		awk -v s="$secs" -v w="$what" -v ev="$ev" -v wall="$wall" -v rss="$rss" -v size="$(stat -c %s "$f")" \
			'BEGIN { printf "   %3d s   %-28s %9d %9.1f   %7.2f %10.0f %9.0f\n", s, w, ev, size / 1e6, wall, ev / (wall > 0 ? wall : 1e-3), rss / 1024 }' |
			tee -a "$OUT.tmp"
	done
done
mv "$OUT.tmp" "$OUT"
echo "written to $OUT"
