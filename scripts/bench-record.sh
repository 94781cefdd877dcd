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
#    Every round checks that the tracer recorded: a tracer that could not
#    start costs nothing and would look free. Where trace-cmd cannot enable
#    ftrace (a sandbox refusing writes to /proc/sys/kernel/ftrace_enabled
#    and set_ftrace_filter, which it makes even for events only), its
#    recording path is measured instead: the same events in the kernel's
#    ftrace buffer, moved to files by splice (tests/bench/ftrace_rec.c).
# 2. qostrace's own costs: kernel ns per program run (kernel.bpf_stats_enabled),
#    recorder CPU per event, bytes per event in the file.
# 3. The event rate at which each tool starts losing events with its default
#    buffer: stress-ng --switch at rising rates, the events each recorded
#    per second of the run and the events it says it lost.
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
make -s all bench-progs >/dev/null || exit 1
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
# trace-cmd's recording path without trace-cmd: the same events, ftrace buffer, splice.
start_ftrace() {
	mkdir -p "$WORK/ftrace"
	build/bench/ftrace_rec "$WORK/ftrace" sched:sched_switch sched:sched_wakeup \
		> "$WORK/ftrace.out" 2>&1 & TPID=$!
	sleep 1
}
start_tracecmd() {
	if [ -n "$TRACECMD_OK" ]; then
		trace-cmd record -e sched:sched_switch -e sched:sched_wakeup -o "$WORK/trace.dat" \
			>/dev/null 2>&1 & TPID=$!
		sleep 3
	else
		start_ftrace
		sleep 2
	fi
}
# bpftrace as users run it: a line per switch, to a file.
BPFTRACE_PROG='tracepoint:sched:sched_switch { printf("%d %s %d\n", args->prev_pid, args->next_comm, args->next_pid); }'
start_bpftrace() {
	bpftrace -e "$BPFTRACE_PROG" \
		> "$WORK/bpftrace.out" 2>"$WORK/bpftrace.err" & TPID=$!
	sleep 4
}
stop_tracer() {
	[ -n "$TPID" ] || return
	kill -INT "$TPID" 2>/dev/null
	wait "$TPID" 2>/dev/null
	TPID=
}

# recorded_<tracer>: the events the tracer just wrote (0: it recorded nothing).
recorded_none() { echo -; }
recorded_qostrace() {
	$QT info "$WORK/q.qtrace" 2>/dev/null | awk '$1 == "events" { print $2; f = 1 } END { if (!f) print 0 }'
}
recorded_qostrace_nosys() { recorded_qostrace; }
recorded_perf() {
	perf report -i "$WORK/perf.data" --stats 2>/dev/null | awk '/TOTAL events:/ { print $3; f = 1; exit } END { if (!f) print 0 }'
}
recorded_tracecmd() {
	if [ -n "$TRACECMD_OK" ]; then
		trace-cmd report -i "$WORK/trace.dat" 2>/dev/null | grep -c 'sched_'
	else
		recorded_ftrace
	fi
}
recorded_ftrace() { awk '$1 == "events" { print $2; f = 1 } END { if (!f) print 0 }' "$WORK/ftrace.out"; }
recorded_bpftrace() { grep -c '^[0-9]' "$WORK/bpftrace.out"; }
# lost_<tracer>: the events it says it lost (ftrace: overwritten + dropped; bpftrace: "Lost N events")
lost_ftrace() { awk '$1 == "events" { print $4; f = 1 } END { if (!f) print 0 }' "$WORK/ftrace.out"; }
lost_bpftrace() {
	cat "$WORK/bpftrace.out" "$WORK/bpftrace.err" |
		awk '/Lost [0-9]+ events/ { for (i = 1; i < NF; i++) if ($i == "Lost") s += $(i + 1) } END { print s + 0 }'
}

# Can trace-cmd record here? Some sandboxes refuse the ftrace control files it writes.
TRACECMD_OK=
if trace-cmd record -e sched:sched_switch -o "$WORK/probe.dat" sleep 0.2 > "$WORK/probe.err" 2>&1 &&
   [ "$(trace-cmd report -i "$WORK/probe.dat" 2>/dev/null | grep -c sched_switch)" -gt 0 ]; then
	TRACECMD_OK=1
	TRACECMD_NAME="trace-cmd sched_switch+wakeup"
else
	TRACECMD_NAME="ftrace switch+wakeup, splice"
	TRACECMD_WHY=$(grep -v '^ *$' "$WORK/probe.err" | tr '\n' ' ' | sed 's/  */ /g')
fi

tracers=(none qostrace qostrace_nosys perf tracecmd bpftrace)
tracer_name() {
	case $1 in
	none) echo "no tracer" ;;
	qostrace) echo "qostrace record -a" ;;
	qostrace_nosys) echo "qostrace -a --no-syscalls" ;;
	perf) echo "perf sched record -a" ;;
	tracecmd) echo "$TRACECMD_NAME" ;;
	ftrace) echo "ftrace switch+wakeup, splice" ;;
	bpftrace) echo "bpftrace printf switch" ;;
	esac
}
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# compare WORKLOAD_FN UNIT: interleaved rounds of every tracer, then the table.
compare() {
	local fn=$1 unit=$2 r n i t ops m base ev
	declare -A res evs fails
	for r in $(seq "$ROUNDS"); do
		n=${#tracers[@]}
		for i in $(seq 0 $((n - 1))); do
			t=${tracers[$(( (i + r) % n ))]}
			"start_$t"
			ops=$("$fn")
			stop_tracer
			ev=$("recorded_$t")
			if [ "$ev" = 0 ]; then
				echo "$fn: $t recorded nothing in round $r: its round is left out" >&2
				fails[$t]=$(( ${fails[$t]:-0} + 1 ))
				continue
			fi
			res[$t]="${res[$t]:-} ${ops:-0}"
			evs[$t]="${evs[$t]:-} $ev"
		done
		echo "$fn: round $r/$ROUNDS done" >&2
	done
	base=$(echo "${res[none]}" | median)
	log ""
	log "tracer                        median $unit   ratio   slowdown   events recorded (median)   (all rounds)"
	for t in "${tracers[@]}"; do
		if [ -z "${res[$t]:-}" ]; then
			log "$(printf '%-29s recorded nothing in any round: no figure' "$(tracer_name "$t")")"
			continue
		fi
		m=$(echo "${res[$t]}" | median)
		e=$( [ "$t" = none ] && echo - || echo "${evs[$t]}" | median)
		awk -v n="$(tracer_name "$t")" -v m="$m" -v b="$base" -v e="$e" -v all="${res[$t]}" \
			-v f="${fails[$t]:-0}" 'BEGIN {
			printf "%-29s %12.0f %7.3f %9.1f%%   %24s   (%s )%s\n", n, m, m / b, 100 * (1 - m / b), e, all,
				f ? "  " f " round(s) without a recording left out" : "" }' | tee -a "$OUT.tmp"
	done
}

[ -n "$TRACECMD_OK" ] || log "# trace-cmd cannot record here (${TRACECMD_WHY:-no events}); its row is the same events through the ftrace buffer and a splice reader"
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

# ---- loss thresholds ----
# Each tool records the whole system while stress-ng --switch runs at a rate;
# events/s = what it recorded over the run's wall time; lost = what it
# says it lost (qostrace: the kernel's count in the file; perf: the LOST
# records' counts; ftrace: overwritten + dropped in per_cpu stats; bpftrace:
# its "Lost N events" lines). Tools record different event sets (perf sched
# record: switch, wakeup, migrate, stat_*...; bpftrace here: switch only), so
# compare each tool's rates with its own losses.
log ""
log "# event rate at which each tool starts losing events (default buffers): stress-ng --switch 2 for 5 s on both CPUs"
log "tool                           switch-freq   events/s recorded         lost"
loss_run() {	# tool freq -> "events lost" on stdout; sets LOSS_WALL
	local tool=$1 f=$2 t0 t1 ev lost
	local stress=(stress-ng --switch 2 --switch-freq "$f" -t 5 -q)
	case $tool in
	qostrace)
		t0=$(date +%s.%N)
		$QT record -q -a -o "$WORK/load.qtrace" --force -- "${stress[@]}" > /dev/null 2>&1
		t1=$(date +%s.%N)
		$QT info "$WORK/load.qtrace" 2>/dev/null | awk '
			$1 == "events" { ev = $2 } $1 == "lost" { lost = ($2 == "none") ? 0 : $2 + $10 }
			END { print ev + 0, lost + 0 }' ;;
	perf)
		t0=$(date +%s.%N)
		perf sched record -a -o "$WORK/load.data" -- "${stress[@]}" > /dev/null 2>&1
		t1=$(date +%s.%N)
		ev=$(perf report -i "$WORK/load.data" --stats 2>/dev/null | awk '/TOTAL events:/ { print $3; exit }')
		# LOST records (ring buffer full) and, at the end, LOST_SAMPLES (the
		# kernel's per-event counters): the same losses counted twice over
		lost=$(perf report -D -i "$WORK/load.data" 2>/dev/null | awk '
			/PERF_RECORD_LOST:/ { for (i = 1; i <= NF; i++) if ($i ~ /^lost:[0-9]+/) a += substr($i, 6) }
			/PERF_RECORD_LOST_SAMPLES/ { v = $NF; gsub(/[^0-9]/, "", v); b += v }
			END { print (a > b ? a : b) + 0 }')
		echo "${ev:-0} $lost" ;;
	ftrace|bpftrace)	# in the background, as in the cost rounds above
		"start_$tool"
		t0=$(date +%s.%N)
		"${stress[@]}" > /dev/null 2>&1
		t1=$(date +%s.%N)
		stop_tracer
		echo "$("recorded_$tool") $("lost_$tool")" ;;
	esac
	LOSS_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
}
for tool in qostrace perf ftrace bpftrace; do
	for f in 25000 100000 400000 0; do
		loss_run "$tool" "$f" > "$WORK/loss"
		read -r ev lost < "$WORK/loss"
		awk -v n="$(tracer_name "$tool")" -v f="$f" -v ev="${ev:-0}" -v lost="${lost:-0}" -v w="$LOSS_WALL" 'BEGIN {
			printf "%-30s %11s %19.0f %12d%s\n", n, f == 0 ? "unlimited" : f, ev / w, lost,
				ev == 0 ? "   (recorded nothing)" : "" }' | tee -a "$OUT.tmp"
	done
done
mv "$OUT.tmp" "$OUT"
echo "written to $OUT"
