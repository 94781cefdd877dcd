#!/usr/bin/env bash
# What recording costs the traced system, measured side by side in one run.
#
#   scripts/bench-record.sh [ROUNDS]          (as root; default 5 rounds)
#
# 1. perf bench sched pipe with both ends on one CPU, under: no tracer,
#    qostrace record -a, qostrace record -a --no-syscalls, perf sched record,
#    trace-cmd record -e sched_switch -e sched_wakeup, and bpftrace printing
#    every sched_switch. Rounds interleave the tracers (rotating their order)
#    so that machine noise hits all alike; the result is the median ops/s
#    and its ratio to no tracer.
#    Then the same with stress-ng --switch 2 (context switches on both CPUs):
#    bogo ops/s (real time), median and ratio.
# 2. qostrace's own costs: kernel ns per program run (kernel.bpf_stats_enabled),
#    recorder CPU per event, bytes per event in the file.
# 3. The event rate at which qostrace starts losing events with the default
#    buffer: stress-ng --switch at rising rates.
# Results go to stdout and to scripts/results/bench-record.txt.
set -u
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
LOOPS=${LOOPS:-300000}
QT=build/qostrace
OUT=scripts/results/bench-record.txt
WORK=$(mktemp -d /tmp/qostrace-bench-XXXXXX)
trap 'rm -rf "$WORK"; pkill -INT -f "qostrace record -q -a -o $WORK" 2>/dev/null' EXIT

[ "$(id -u)" -eq 0 ] || { echo "bench-record.sh: run as root" >&2; exit 1; }
[ -x "$QT" ] || make -s || exit 1
scripts/install-deps.sh --bench >/dev/null || exit 1
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
PIPE_CPU=$(( $(nproc) - 1 ))

log() { echo "$@" | tee -a "$OUT.tmp"; }
mkdir -p scripts/results
: > "$OUT.tmp"
log "# qostrace recording cost, $(date -u +%Y-%m-%dT%H:%MZ), $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
log "# perf bench sched pipe -l $LOOPS pinned to CPU $PIPE_CPU, $ROUNDS interleaved rounds, median ops/s"

switch_ops() {
	stress-ng --switch 2 -t "${SWITCH_SECS:-5}" --metrics-brief 2>&1 |
		awk '$4 == "switch" && $5 ~ /^[0-9]+$/ { print $9 }'
}

pipe_ops() {
	taskset -c "$PIPE_CPU" perf bench sched pipe -l "$LOOPS" 2>/dev/null |
		awk '/ops\/sec/ { print $1 }'
}

# start_<tracer> launches it in the background and waits until it records.
start_none() { TPID=; }
start_qostrace() {
	$QT record -q -a -o "$WORK/q.qtrace" --force "$@" & TPID=$!
	for _ in $(seq 50); do [ -s "$WORK/q.qtrace" ] && break; sleep 0.1; done
	sleep 0.3
}
start_qostrace_nosys() { start_qostrace --no-syscalls; }
start_perf() {
	perf sched record -a -o "$WORK/perf.data" >/dev/null 2>&1 & TPID=$!
	sleep 1.5
}
start_tracecmd() {
	trace-cmd record -e sched:sched_switch -e sched:sched_wakeup -o "$WORK/trace.dat" >/dev/null 2>&1 & TPID=$!
	sleep 3
}
start_bpftrace() {
	bpftrace -e 'tracepoint:sched:sched_switch { printf("%d %s %d\n", args->prev_pid, args->next_comm, args->next_pid); }' \
		> /dev/null 2>"$WORK/bpftrace.err" & TPID=$!
	sleep 4
}
stop_tracer() {
	[ -n "$TPID" ] || return
	kill -INT "$TPID" 2>/dev/null
	wait "$TPID" 2>/dev/null
	TPID=
}

tracers=(none qostrace qostrace_nosys perf tracecmd bpftrace)
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# compare WORKLOAD_FN UNIT: interleaved rounds of every tracer, then the table.
compare() {
	local fn=$1 unit=$2 r n i t ops m base
	declare -A res
	for r in $(seq "$ROUNDS"); do
		n=${#tracers[@]}
		for i in $(seq 0 $((n - 1))); do
			t=${tracers[$(( (i + r) % n ))]}
			"start_$t"
			ops=$("$fn")
			stop_tracer
			res[$t]="${res[$t]:-} ${ops:-0}"
		done
		echo "$fn: round $r/$ROUNDS done" >&2
	done
	base=$(echo "${res[none]}" | median)
	log ""
	log "tracer                        median $unit   ratio   slowdown   (all rounds)"
	for t in "${tracers[@]}"; do
		m=$(echo "${res[$t]}" | median)
		awk -v t="$t" -v m="$m" -v b="$base" -v all="${res[$t]}" 'BEGIN {
			names["none"] = "no tracer"; names["qostrace"] = "qostrace record -a"
			names["qostrace_nosys"] = "qostrace -a --no-syscalls"; names["perf"] = "perf sched record -a"
			names["tracecmd"] = "trace-cmd sched_switch+wakeup"; names["bpftrace"] = "bpftrace printf switch"
			printf "%-29s %12.0f %7.3f %9.1f%%   (%s )\n", names[t], m, m / b, 100 * (1 - m / b), all }' | tee -a "$OUT.tmp"
	done
}

compare pipe_ops ops/s
log ""
log "# stress-ng --switch 2 for ${SWITCH_SECS:-5} s (both CPUs), $ROUNDS interleaved rounds, median bogo ops/s (real time)"
compare switch_ops "bogo/s"

# ---- qostrace's own costs on the same benchmark ----
log ""
log "# qostrace's own costs during perf bench sched pipe"
sysctl -q kernel.bpf_stats_enabled=1
# The recorder alone under time(1): a command it started would count too.
/usr/bin/time -f "%U %S" -o "$WORK/rusage" $QT record -a -d 8 -o "$WORK/cost.qtrace" --force \
	> /dev/null 2> "$WORK/summary" &
rec=$!
sleep 1.5
taskset -c "$PIPE_CPU" perf bench sched pipe -l "$LOOPS" > /dev/null 2>&1 &
sleep 1
bpftool prog show --json > "$WORK/progs0.json" 2>/dev/null
wait $rec
sysctl -q kernel.bpf_stats_enabled=0
python3 - "$WORK/progs0.json" <<'PY' | tee -a "$OUT.tmp"
import json, sys
progs = json.load(open(sys.argv[1]))
rows = [(p["name"], p.get("run_cnt", 0), p.get("run_time_ns", 0)) for p in progs
        if p.get("name", "").startswith(("on_", "ctx_")) and p.get("run_cnt")]
tot_cnt = sum(r[1] for r in rows); tot_ns = sum(r[2] for r in rows)
print("kernel cost per program run (1 s into the run, bpf_stats):")
for name, cnt, ns in sorted(rows, key=lambda r: -r[1]):
    print(f"  {name:28s} {cnt:10d} runs {ns / cnt:8.1f} ns/run")
if tot_cnt:
    print(f"  {'all programs':28s} {tot_cnt:10d} runs {tot_ns / tot_cnt:8.1f} ns/run")
PY
events=$(sed -n 's/.*recorded \([0-9.]*[kMG]*\) events.*/\1/p' "$WORK/summary" | head -1)
bpe=$(sed -n 's/.*, \([0-9.]*\) bytes\/event.*/\1/p' "$WORK/summary" | head -1)
ev=$($QT report --json "$WORK/cost.qtrace" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["trace"]["events"])')
read -r u s < "$WORK/rusage"
log "recorder (qostrace record -a -d 8, pipe benchmark meanwhile): $ev events, $(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }') s of its own CPU (user $u, sys $s, start-up included) = $(awk -v u="$u" -v s="$s" -v e="$ev" 'BEGIN { printf "%.0f", (u + s) * 1e9 / e }') ns per event; $bpe bytes per event in the file"
grep -E "lost|LOST" "$WORK/summary" | sed 's/^/recorder: /' | tee -a "$OUT.tmp"

# ---- loss threshold ----
log ""
log "# event rate at which qostrace -a (default 32 MiB buffer) starts losing: stress-ng --switch for 5 s"
log "switch-freq (per worker)   events/s recorded   lost"
for f in 25000 50000 100000 200000 400000 0; do
	$QT record -a -o "$WORK/load.qtrace" --force -- stress-ng --switch 2 --switch-freq "$f" -t 5 -q \
		> /dev/null 2> "$WORK/load.txt"
	$QT report --json "$WORK/load.qtrace" 2>/dev/null | python3 -c '
import json, sys
t = json.load(sys.stdin)["trace"]
label = sys.argv[1] if sys.argv[1] != "0" else "unlimited"
rate = t["events"] * 1e9 / t["duration_ns"]
print("%26s   %17.0f   %d" % (label, rate, t["lost_events"]))' "$f" | tee -a "$OUT.tmp"
done
mv "$OUT.tmp" "$OUT"
echo "written to $OUT"
