#!/usr/bin/env bash
# What each attach path and buffer of record costs the traced system, side
# by side in one run (docs/DESIGN.md §2a).
#
#   scripts/bench-backends.sh [ROUNDS] [OTHER_QOSTRACE]   (as root; default 5 rounds)
#   CONFIGS="none btf other" scripts/bench-backends.sh 15 /path/to/old/qostrace
#
# perf bench sched pipe with both ends on one CPU, under: no tracer, and
# qostrace record -a with each way this kernel can record (--backend btf,
# core, tracefs, perfbuf = the best path with a perf buffer, tracefs,perfbuf),
# and OTHER_QOSTRACE's default (another build, e.g. before a change).
# Rounds rotate the order so that machine noise hits all alike; the result
# is the median ops/s and its ratio to no tracer. Then, in a second pass
# with kernel.bpf_stats_enabled, the kernel's ns per run of each path's
# sched_switch and sys_enter programs (median over the rounds; the stats
# add their own ~20-40 ns to each run). Every tracer must have recorded: one
# that could not start costs nothing and would look free. Results go to
# stdout and to scripts/results/bench-backends.txt.
set -u
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
OTHER=${2:-}
LOOPS=${LOOPS:-200000}
QT=build/qostrace
OUT=scripts/results/bench-backends.txt
WORK=$(mktemp -d /tmp/qostrace-bench-XXXXXX)
TPID=
trap '[ -n "$TPID" ] && kill -INT "$TPID" 2>/dev/null; rm -rf "$WORK"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "bench-backends.sh: run as root" >&2; exit 1; }
make -s all >/dev/null || exit 1
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
PIPE_CPU=$(( $(nproc) - 1 ))

read -r -a configs <<< "${CONFIGS:-none btf core tracefs perfbuf tracefs,perfbuf${OTHER:+ other}}"
# only what this kernel can do
usable=() notes=()
for c in "${configs[@]}"; do
	case $c in none|other) usable+=("$c"); continue ;; esac
	if $QT record -q -a -d 0.1 --backend "$c" -o "$WORK/probe.qtrace" --force 2>"$WORK/err"; then
		usable+=("$c")
	else
		notes+=("# --backend $c: not on this kernel: $(head -1 "$WORK/err")")
	fi
done

log() { echo "$@" | tee -a "$WORK/report"; }
log "# qostrace record -a per attach path, $(date -u +%Y-%m-%dT%H:%MZ), $(uname -r), $(nproc) CPUs," \
	"load $(cut -d' ' -f1-3 /proc/loadavg)"
log "# perf bench sched pipe -l $LOOPS pinned to CPU $PIPE_CPU, $ROUNDS rotated rounds, median ops/s"
[ -n "$OTHER" ] && log "# other = $OTHER"
for x in "${notes[@]}"; do log "$x"; done

start() {	# config: starts the tracer and waits until it records
	TPID=
	case $1 in
	none) return ;;
	other) "$OTHER" record -q -a -o "$WORK/t.qtrace" --force & TPID=$! ;;
	*) $QT record -q -a --backend "$1" -o "$WORK/t.qtrace" --force & TPID=$! ;;
	esac
	for _ in $(seq 50); do [ -s "$WORK/t.qtrace" ] && break; sleep 0.1; done
	sleep 0.3
}

stop() {
	[ -z "$TPID" ] && return 0
	kill -INT "$TPID"
	wait "$TPID"
	TPID=
	[ -s "$WORK/t.qtrace" ] || { echo "bench-backends.sh: the tracer did not record" >&2; exit 1; }
	rm -f "$WORK/t.qtrace"
}

pipe_ops() {
	taskset -c "$PIPE_CPU" perf bench sched pipe -l "$LOOPS" 2>/dev/null | awk '/ops\/sec/ { print $1 }'
}

# ns per run of the programs of the tracer now running (the prog_ids of its fds)
prog_ns() {
	cat /proc/"$TPID"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ { print $2 }' | sort -u > "$WORK/ids"
	bpftool prog show --json 2>/dev/null | python3 -c '
import json, sys
ids, out = set(int(x) for x in open(sys.argv[1]).read().split()), {}
for p in json.load(sys.stdin):
    if p["id"] not in ids or not p.get("run_cnt"):
        continue
    n = p["name"]
    for kind, names in (("switch", ("on_switch", "rt_switch", "tp_switch")),
                        ("sys_enter", ("on_sys_enter", "rt_sys_enter", "tpr_sys_enter", "tp_sys_enter"))):
        if n in names:
            out[kind] = "%.1f" % (p["run_time_ns"] / p["run_cnt"])
print(out.get("switch", "-"), out.get("sys_enter", "-"))' "$WORK/ids"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

n=${#usable[@]}
for r in $(seq "$ROUNDS"); do
	for k in $(seq 0 $((n - 1))); do
		c=${usable[$(( (k + r) % n ))]}
		start "$c"
		echo "$(pipe_ops)" >> "$WORK/ops.$c"
		stop
	done
done
sysctl -q kernel.bpf_stats_enabled=1
for r in $(seq "$ROUNDS"); do
	for c in "${usable[@]}"; do
		[ "$c" = none ] && continue
		start "$c"
		pipe_ops > /dev/null
		prog_ns >> "$WORK/ns.$c"
		stop
	done
done
sysctl -q kernel.bpf_stats_enabled=0

base=$(median < "$WORK/ops.none")
log "$(printf '%-18s %12s %8s %14s %14s' "tracer" "ops/s" "ratio" "switch ns/run" "sys_enter ns")"
for c in "${usable[@]}"; do
	ops=$(median < "$WORK/ops.$c")
	sw=- se=-
	if [ -s "$WORK/ns.$c" ]; then
		sw=$(cut -d' ' -f1 "$WORK/ns.$c" | grep -v -- - | median)
		se=$(cut -d' ' -f2 "$WORK/ns.$c" | grep -v -- - | median)
	fi
	log "$(printf '%-18s %12.0f %8.3f %14s %14s' "$c" "$ops" "$(echo "$ops / $base" | bc -l)" "$sw" "$se")"
done
mkdir -p scripts/results
cp "$WORK/report" "$OUT"
