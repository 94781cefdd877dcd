#!/usr/bin/env bash
# What recording the softirq raises costs (docs/DESIGN.md §2), side by side
# in one run against a build without them.
#
#   scripts/bench-softirq-raise.sh OTHER_QOSTRACE [ROUNDS]   (as root; default 7 rounds)
#   scripts/bench-softirq-raise.sh /tmp/main/build/qostrace 9
#
# Two workloads, each with both ends on one CPU: perf bench sched pipe (a
# context-switch ping-pong: no softirq of QT_RAISE_VECS, the raise program
# runs for the tick's TIMER, SCHED and RCU only and returns after a test of
# a mask) and tests/bench/udp_pingpong (a UDP ping-pong on loopback: every
# sendto() raises NET_RX, one raise record per datagram). Under: no
# tracer, OTHER_QOSTRACE record -a (a build before the raises), and this
# build's record -a. Rounds rotate the order so that machine noise hits
# all alike; the result is the median ops/s and its ratio to no tracer.
# Then, with kernel.bpf_stats_enabled, this build's softirq_raise program:
# runs and ns per run, per round trip of each workload. Every tracer must
# have recorded. Results go to stdout and to
# scripts/results/bench-softirq-raise.txt.
set -u
cd "$(dirname "$0")/.."
OTHER=${1:?usage: bench-softirq-raise.sh OTHER_QOSTRACE [ROUNDS]}
ROUNDS=${2:-7}
LOOPS=${LOOPS:-200000}
UDP_LOOPS=${UDP_LOOPS:-60000}
QT=build/qostrace
OUT=scripts/results/bench-softirq-raise.txt
WORK=$(mktemp -d /tmp/qostrace-bench-XXXXXX)
TPID=
trap '[ -n "$TPID" ] && kill -INT "$TPID" 2>/dev/null; rm -rf "$WORK"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "bench-softirq-raise.sh: run as root" >&2; exit 1; }
[ -x "$OTHER" ] || { echo "bench-softirq-raise.sh: $OTHER is not a program" >&2; exit 1; }
make -s all build/bench/udp_pingpong >/dev/null || exit 1
CPU=$(( $(nproc) - 1 ))

log() { echo "$@" | tee -a "$WORK/report"; }
log "# softirq raises: qostrace record -a against a build without them, $(date -u +%Y-%m-%dT%H:%MZ)," \
	"$(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
log "# other = $OTHER; both ends of each workload on CPU $CPU; $ROUNDS rotated rounds, median ops/s"
log "# pipe: perf bench sched pipe -l $LOOPS; udp: build/bench/udp_pingpong $UDP_LOOPS"

# Runs a workload (ops pipe|udp) under config (none, other, this): its ops/s.
# A tracer must have recorded: one that could not start costs nothing.
traced() {
	local qt=
	case $1 in other) qt=$OTHER ;; this) qt=$QT ;; esac
	if [ -z "$qt" ]; then
		ops "$2"
		return
	fi
	"$qt" record -q -a -o "$WORK/t.qtrace" --force & TPID=$!
	timeout 5 sh -c "until [ -s '$WORK/t.qtrace' ]; do sleep 0.1; done"
	sleep 0.3
	"${3:-ops}" "$2"
	kill -INT "$TPID" && wait "$TPID"
	TPID=
	[ -s "$WORK/t.qtrace" ] || { echo "bench-softirq-raise.sh: $1 did not record" >&2; exit 1; }
	rm -f "$WORK/t.qtrace"
}

ops() {
	case $1 in
	pipe) taskset -c "$CPU" perf bench sched pipe -l "$LOOPS" 2>/dev/null | awk '/ops\/sec/ { print $1 }' ;;
	udp) build/bench/udp_pingpong "$UDP_LOOPS" "$CPU" | awk '{ print $1 }' ;;
	esac
}

# "runs ns_total" of the running tracer's softirq_raise program
raise_stats() {
	cat /proc/"$TPID"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ { print $2 }' | sort -u > "$WORK/ids"
	bpftool prog show --json 2>/dev/null | python3 -c '
import json, sys
ids = set(int(x) for x in open(sys.argv[1]).read().split())
for p in json.load(sys.stdin):
    if p["id"] in ids and p["name"] in ("on_softirq_raise", "rt_softirq_raise", "tpr_softirq_raise", "tp_softirq_raise"):
        print(p.get("run_cnt", 0), p.get("run_time_ns", 0))' "$WORK/ids"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The raise program's runs and time over one run of workload $1 (this build, stats on).
counted() {
	raise_stats > "$WORK/before"
	ops "$1" > /dev/null
	raise_stats > "$WORK/after"
	paste "$WORK/before" "$WORK/after" | awk '{ print $3 - $1, $4 - $2 }'
}

configs=(none other this)
for w in pipe udp; do
	for r in $(seq "$ROUNDS"); do
		for k in 0 1 2; do
			c=${configs[$(( (k + r) % 3 ))]}
			traced "$c" "$w" >> "$WORK/ops.$w.$c"
		done
	done
done
sysctl -q kernel.bpf_stats_enabled=1
for w in pipe udp; do
	for r in $(seq "$ROUNDS"); do
		traced this "$w" counted >> "$WORK/stats.$w"
	done
done
sysctl -q kernel.bpf_stats_enabled=0

for w in pipe udp; do
	base=$(median < "$WORK/ops.$w.none")
	loops=$LOOPS
	[ $w = udp ] && loops=$UDP_LOOPS
	log ""
	log "$(printf '%-6s %-8s %12s %8s' "$w" "tracer" "ops/s" "ratio")"
	for c in "${configs[@]}"; do
		o=$(median < "$WORK/ops.$w.$c")
		log "$(printf '%-6s %-8s %12.0f %8.3f   (%s)' "$w" "$c" "$o" "$(echo "$o / $base" | bc -l)" \
			"$(sort -g "$WORK/ops.$w.$c" | tr '\n' ' ')")"
	done
	runs=$(awk '{ print $1 }' "$WORK/stats.$w" | median)
	ns=$(awk '$1 > 0 { print $2 / $1 }' "$WORK/stats.$w" | median)
	log "$(printf '%-6s softirq_raise program: %s runs per %s round trips (median), %.0f ns per run' "$w" \
		"$runs" "$loops" "${ns:-0}")"
done
mkdir -p scripts/results
cp "$WORK/report" "$OUT"
