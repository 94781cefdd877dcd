#!/usr/bin/env bash
# What watching costs, measured side by side in one run.
#
#   scripts/bench-watch.sh [MINUTES] [ROUNDS]     (as root; default 12 minutes, 5 rounds)
#
# 1. perf bench sched pipe with both ends on one CPU, under: no tracer,
#    qostrace record -a, qostrace watch -a (past its warm-up: the state a
#    watch of hours is in). Rounds interleave the three (rotating their
#    order) so that machine noise hits all alike; the result is the median
#    ops/s and its ratio to no tracer. Every round checks that the tracer
#    recorded (record: its file's events; watch: the events its summary
#    counts). MINUTES 0: this part alone, into bench-watch-pipe.txt.
# 2. A long watch of a busy system: qostrace watch -a for MINUTES while the
#    built-in pipeline runs (20 ms frames at real-time priority, a 60 ms
#    disturbance every 30 s) beside a background load (stress-ng --switch,
#    its rate capped, and a CPU hog at the lowest priority). Every second:
#    the watcher's resident memory (VmRSS) and its CPU time (utime +
#    stime); the windows it writes. Reported: the resident memory after the
#    first window (min, max, and the mean of each minute: flat means those
#    within 10 % of each other), the watcher's CPU per event (its own, and
#    its windows' analyses apart), and for comparison qostrace record's CPU
#    per event on the same load for a minute. A second Ctrl-C ends each
#    watch without waiting for its windows' analyses.
# Results go to stdout and to scripts/results/bench-watch.txt.
set -u
cd "$(dirname "$0")/.."
MINUTES=${1:-12}
ROUNDS=${2:-5}
LOOPS=${LOOPS:-300000}
QT=build/qostrace
OUT=scripts/results/bench-watch.txt
[ "$MINUTES" -eq 0 ] && OUT=scripts/results/bench-watch-pipe.txt
WORK=$(mktemp -d /tmp/qostrace-bench-watch-XXXXXX)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

[ "$(id -u)" -eq 0 ] || { echo "bench-watch.sh: run as root" >&2; exit 1; }
make -s all >/dev/null || exit 1
command -v perf >/dev/null && command -v stress-ng >/dev/null ||
	{ echo "bench-watch.sh: needs perf and stress-ng (scripts/install-deps.sh --bench)" >&2; exit 1; }
PIPE_CPU=$(( $(nproc) - 1 ))

log() { echo "$@" | tee -a "$OUT.tmp"; }
mkdir -p scripts/results
: > "$OUT.tmp"
log "# qostrace watch: cost and footprint, $(date -u +%Y-%m-%dT%H:%MZ), $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
log "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

pipe_ops() {
	taskset -c "$PIPE_CPU" perf bench sched pipe -l "$LOOPS" 2>/dev/null | awk '/ops\/sec/ { print $1 }'
}
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# ---- 1. perf bench sched pipe under each ----
TPID=
start_none() { TPID=; }
start_record() {
	rm -f "$WORK/r.qtrace"
	$QT record -q -a -o "$WORK/r.qtrace" & TPID=$!
	for _ in $(seq 50); do [ -s "$WORK/r.qtrace" ] && break; sleep 0.1; done
	sleep 0.3
}
# Past its warm-up (it says which actors it watches): the steady state a
# watch of hours is in; the warm-up's burst is measured in part 2.
start_watch() {
	rm -rf "$WORK/w"
	$QT watch -q -a -o "$WORK/w" --no-diagnosis > "$WORK/w.out" 2>&1 & TPID=$!
	for _ in $(seq 300); do grep -q 'watching$\|not watched$' "$WORK/w.out" 2>/dev/null && break; sleep 0.1; done
	sleep 1
}
# A second Ctrl-C skips waiting for the windows' analyses.
interrupt() {
	kill -INT "$1" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	kill -INT "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}
stop_tracer() {
	[ -n "$TPID" ] || return
	interrupt "$TPID"
	TPID=
}
recorded_none() { echo -; }
recorded_record() { $QT info "$WORK/r.qtrace" 2>/dev/null | awk '$1 == "events" { print $2; f = 1 } END { if (!f) print 0 }'; }
recorded_watch() { sed -n 's/.*actors\{0,1\}, \([0-9.]*[kMG]*\) events.*/\1/p' "$WORK/w.out" | tail -1; }

declare -A OPS
tracers=(none record watch)
log ""
log "## perf bench sched pipe -l $LOOPS on CPU $PIPE_CPU, $ROUNDS rounds (order rotated), ops/s"
for r in $(seq "$ROUNDS"); do
	line="round $r:"
	for k in $(seq 0 2); do
		t=${tracers[$(( (k + r) % 3 ))]}
		"start_$t"
		ops=$(pipe_ops)
		stop_tracer
		got=$("recorded_$t")
		[ "$got" = "0" ] || [ -z "$got" ] && { log "round $r: $t recorded nothing: its numbers would lie"; exit 1; }
		OPS[$t]="${OPS[$t]:-} $ops"
		line="$line $t $ops ($got events)"
	done
	log "$line"
done
base=$(echo "${OPS[none]}" | median)
log ""
printf '%-34s %12s %10s\n' "tracer" "median ops/s" "slowdown" | tee -a "$OUT.tmp"
for t in "${tracers[@]}"; do
	m=$(echo "${OPS[$t]}" | median)
	printf '%-34s %12.0f %9.1f%%\n' "$t" "$m" "$(echo "$m $base" | awk '{ print 100 * (1 - $1 / $2) }')" |
		tee -a "$OUT.tmp"
done

if [ "$MINUTES" -eq 0 ]; then
	mv "$OUT.tmp" "$OUT"
	echo "results: $OUT"
	exit 0
fi

# ---- 2. a long watch of a busy system ----
load_start() {
	chrt -f 5 $QT __pipeline --frames 1000000 --period 20ms --disturb thread --every 30s --length 60ms \
		--cpu 1 > /dev/null 2>&1 & PIDS+=($!)
	stress-ng --switch 1 --switch-freq 20000 -t 0 > /dev/null 2>&1 & PIDS+=($!)
	nice -n 19 stress-ng --cpu 1 -t 0 > /dev/null 2>&1 & PIDS+=($!)
	sleep 2
}
load_stop() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait "${PIDS[@]}" 2>/dev/null
	PIDS=()
}
# utime+stime and cutime+cstime of a process, in clock ticks
cpu_ticks() { awk '{ print $14 + $15, $16 + $17 }' "/proc/$1/stat" 2>/dev/null; }
HZ=$(getconf CLK_TCK)

log ""
log "## qostrace record -a on the busy system for 60 s (the recorder's CPU per event)"
load_start
$QT record -q -a -o "$WORK/busy.qtrace" -d 60 & RPID=$!
sleep 58
read -r rt _ < <(cpu_ticks "$RPID")
wait "$RPID"
rev=$($QT info "$WORK/busy.qtrace" | awk '$1 == "events" { print $2 }')
log "record: $rev events in 60 s ($(echo "$rev" | awk '{ printf "%.0f", $1 / 60 }')/s), CPU $(echo "$rt $HZ" | awk '{ printf "%.2f", $1 / $2 }') s (58 s of it): $(echo "$rt $HZ $rev" | awk '{ printf "%.0f", 1e9 * $1 / $2 / ($3 * 58 / 60) }') ns per event"
rm -f "$WORK/busy.qtrace"

log ""
log "## qostrace watch -a on the busy system for $MINUTES minutes"
$QT watch -a -o "$WORK/long" > "$WORK/long.out" 2>&1 & WPID=$!
: > "$WORK/rss"
end=$(( $(date +%s) + MINUTES * 60 ))
while [ "$(date +%s)" -lt "$end" ] && kill -0 "$WPID" 2>/dev/null; do
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$WPID/status" 2>/dev/null)
	files=$(ls "$WORK/long" 2>/dev/null | grep -c '\.qtrace$')
	read -r own kids < <(cpu_ticks "$WPID")
	echo "$(date +%s) $rss $files $own $kids" >> "$WORK/rss"
	sleep 1
done
read -r own kids < <(cpu_ticks "$WPID")
interrupt "$WPID"
load_stop
cat "$WORK/long.out" | grep -v '^[0-9][0-9]:' | sed 's/^/  /' | tee -a "$OUT.tmp" > /dev/null
events=$(sed -n 's/.*actors\{0,1\}, \([0-9.]*\)\([kMG]*\) events.*/\1 \2/p' "$WORK/long.out" | tail -1 |
	awk '{ m = $2 == "k" ? 1e3 : $2 == "M" ? 1e6 : $2 == "G" ? 1e9 : 1; printf "%.0f", $1 * m }')
alerts=$(grep -c ' -> ' "$WORK/long.out")
log "$alerts windows told; $(ls "$WORK/long" | grep -c '\.qtrace$') files, $(du -sh "$WORK/long" | cut -f1)"
# Flat: the means of each minute after the first window within 10 % of
# each other (a sample's own swings, a window being written or judged, are
# shown apart as min and max).
awk -v hz="$HZ" -v ev="$events" -v own="$own" -v kids="$kids" '
	$3 > 0 && !first { first = $1 }
	first { n++; if (!min || $2 < min) min = $2; if ($2 > max) max = $2; sum += $2; last = $2
		m = int(($1 - first) / 60); ms[m] += $2; mn[m]++ }
	END {
		printf "resident memory after the first window (%d samples, 1 s apart): min %.1f MB, max %.1f MB, mean %.1f MB, last %.1f MB\n",
			n, min / 1024, max / 1024, sum / n / 1024, last / 1024;
		line = "  by minute (MB):";
		for (i = 0; i in mn; i++) {
			v = ms[i] / mn[i]; line = line sprintf(" %.1f", v / 1024);
			if (!lo || v < lo) lo = v; if (v > hi) hi = v; lastm = v; if (!firstm) firstm = v
		}
		print line;
		printf "  minute means within %.1f %% of each other (%s); last minute against the first: %+.1f %%\n",
			100 * (hi / lo - 1), hi / lo <= 1.10 ? "flat within 10 %" : "NOT flat", 100 * (lastm / firstm - 1);
		printf "watcher CPU: %.1f s for %d events: %.0f ns per event; the windows'\'' analyses (children, SCHED_IDLE): %.1f s\n",
			own / hz, ev, ev ? 1e9 * own / hz / ev : 0, kids / hz;
	}' "$WORK/rss" | tee -a "$OUT.tmp"
log "first sample: $(head -1 "$WORK/rss" | awk '{ printf "%.1f MB", $2 / 1024 }'); first window after $(awk '$3 > 0 { print $1; exit }' "$WORK/rss" | awk -v s="$(head -1 "$WORK/rss" | cut -d' ' -f1)" '{ print $1 - s }') s"
cp "$WORK/rss" scripts/results/bench-watch-rss.txt
mv "$OUT.tmp" "$OUT"
echo "results: $OUT (and the samples, time RSS_KB FILES CPU_TICKS CHILD_TICKS: scripts/results/bench-watch-rss.txt)"
