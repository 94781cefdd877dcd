#!/usr/bin/env bash
# What recording the objects of the data calls costs (QT_REC_DATA,
# bpf/data.bpf.h; docs/DESIGN.md §2), this build with and without them,
# side by side in one run.
#
#   scripts/bench-dataflow.sh [ROUNDS]   (as root; default 7 rounds)
#
# The workload is the worst case for it: perf bench sched pipe, a
# ping-pong of two processes over two pipes, both on one CPU: every
# system call of the loop is a data call (a read or a write of a pipe
# that moved 4 bytes), so every call gets a data record besides its
# system-call record. Under: no tracer; record -- (the workload is the
# target) with --no-data, and with data (the default); record -a with
# the default (no data) and with --data. Rounds rotate the order so that
# machine noise hits all alike; the result is the median ops/s and its
# ratio to no tracer, and for the -- runs the trace file's bytes per
# round trip. Then, with kernel.bpf_stats_enabled, the sys_exit program
# of record -a: ns per run with and without --data. Results go to stdout
# and to scripts/results/bench-dataflow.txt.
set -u
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "bench-dataflow.sh: run as root" >&2; exit 1; }
command -v perf > /dev/null || { echo "bench-dataflow.sh: perf is missing" >&2; exit 1; }
make -s all > /dev/null || exit 1
ROUNDS=${1:-7} LOOPS=${LOOPS:-100000} CPU=$(( $(nproc) - 1 ))
QT=build/qostrace OUT=scripts/results/bench-dataflow.txt
# the recorder running in the background, if any: stopped on the way out
TPID= WORK=$(mktemp -d /tmp/qostrace-bench-XXXXXX)
trap '[ -n "$TPID" ] && kill -INT "$TPID" 2>/dev/null; rm -rf "$WORK"' EXIT

log() { echo "$@" | tee -a "$WORK/report"; }
log "# data-flow records: this build with and without them, $(date -u +%Y-%m-%dT%H:%MZ)," \
	"$(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
log "# perf bench sched pipe -l $LOOPS on CPU $CPU (every call of its loop a data call); $ROUNDS rotated rounds, median ops/s"

pipe() { taskset -c "$CPU" perf bench sched pipe -l "$LOOPS" 2>/dev/null | awk '/ops\/sec/ { print $1 }'; }

# The ops/s of the workload under config $1; for the -- configs also the file's bytes ($2: where).
run() {
	case $1 in
	none) pipe ;;
	cmd-nodata | cmd-data)
		local opt=--no-data
		[ "$1" = cmd-data ] && opt=
		"$QT" record -q --force $opt -o "$WORK/t.qtrace" -- taskset -c "$CPU" perf bench sched pipe -l "$LOOPS" \
			2>/dev/null | awk '/ops\/sec/ { print $1 }'
		[ -s "$WORK/t.qtrace" ] || { echo "bench-dataflow.sh: $1 did not record" >&2; exit 1; }
		stat -c %s "$WORK/t.qtrace" >> "$WORK/bytes.$1"
		rm -f "$WORK/t.qtrace" ;;
	all-nodata | all-data)
		local opt=
		[ "$1" = all-data ] && opt=--data
		"$QT" record -q -a $opt -o "$WORK/t.qtrace" --force & TPID=$!
		timeout 5 sh -c "until [ -s '$WORK/t.qtrace' ]; do sleep 0.1; done"
		sleep 0.3
		"${2:-pipe}"
		kill -INT "$TPID" && wait "$TPID"
		TPID=
		[ -s "$WORK/t.qtrace" ] || { echo "bench-dataflow.sh: $1 did not record" >&2; exit 1; }
		# info's count of data records ("data 1.2M" on its events line)
		[ -n "${2:-}" ] && "$QT" info "$WORK/t.qtrace" | awk '/^events/ { for (i = 1; i < NF; i++) if ($i == "data") {
			v = $(i + 1) + 0; if ($(i + 1) ~ /k/) v *= 1e3; if ($(i + 1) ~ /M/) v *= 1e6; print v } }' \
			>> "$WORK/records.$1"
		rm -f "$WORK/t.qtrace" ;;
	esac
}

# "runs ns_total" of the running tracer's sys_exit programs: of its programs (their ids in
# its fdinfo), those bpftool names on_sys_exit or rt_sys_exit (one path's runs; the other's
# may be loaded and not attached), summed
exit_stats() {
	for id in $(awk '/^prog_id:/ { print $2 }' /proc/"$TPID"/fdinfo/* 2>/dev/null | sort -u); do
		bpftool prog show id "$id" 2>/dev/null
	done | awk 'BEGIN { n = ns = 0 } / name (on|rt)_sys_exit / {
		for (i = 1; i < NF; i++) { if ($i == "run_cnt") n += $(i + 1); if ($i == "run_time_ns") ns += $(i + 1) } }
		END { print n, ns }'
}

counted() {
	exit_stats > "$WORK/before"
	pipe > /dev/null
	exit_stats > "$WORK/after"
	paste "$WORK/before" "$WORK/after" | awk '{ print $3 - $1, $4 - $2 }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

configs=(none cmd-nodata cmd-data all-nodata all-data)
for r in $(seq "$ROUNDS"); do
	for k in 0 1 2 3 4; do
		c=${configs[$(( (k + r) % 5 ))]}
		run "$c" >> "$WORK/ops.$c"
	done
done
sysctl -q kernel.bpf_stats_enabled=1
for r in $(seq "$ROUNDS"); do
	run all-nodata counted >> "$WORK/stats.all-nodata"
	run all-data counted >> "$WORK/stats.all-data"
done
sysctl -q kernel.bpf_stats_enabled=0

base=$(median < "$WORK/ops.none")
log ""
log "$(printf '%-12s %12s %8s %14s' "tracer" "ops/s" "ratio" "bytes/round")"
for c in "${configs[@]}"; do
	o=$(median < "$WORK/ops.$c")
	b=
	[ -s "$WORK/bytes.$c" ] && b=$(printf '%.1f' "$(echo "$(median < "$WORK/bytes.$c") / $LOOPS" | bc -l)")
	log "$(printf '%-12s %12.0f %8.3f %14s   (%s)' "$c" "$o" "$(echo "$o / $base" | bc -l)" "${b:--}" \
		"$(sort -g "$WORK/ops.$c" | tr '\n' ' ')")"
done
for c in all-nodata all-data; do
	runs=$(awk '{ print $1 }' "$WORK/stats.$c" | median)
	ns=$(awk '$1 > 0 { print $2 / $1 }' "$WORK/stats.$c" | median)
	log "$(printf '%-12s sys_exit program: %s runs per %s round trips (median), %.0f ns per run' "$c" "$runs" \
		"$LOOPS" "${ns:-0}")"
done
# A data record's own cost: the program's extra time with --data over the data records it wrote
# (its runs in each round priced at the round's no-data ns per run).
paste "$WORK/stats.all-nodata" "$WORK/stats.all-data" "$WORK/records.all-data" |
	awk '$1 > 0 && $5 > 0 { print ($4 - $3 * $2 / $1) / $5 }' > "$WORK/per_record"
log "$(printf 'a data record costs the sys_exit program %.0f ns (median of the %s rounds that counted: %s)' \
	"$(median < "$WORK/per_record")" "$(wc -l < "$WORK/per_record")" \
	"$(sort -g "$WORK/per_record" | xargs printf '%.0f ')")"
mkdir -p scripts/results
cp "$WORK/report" "$OUT"
