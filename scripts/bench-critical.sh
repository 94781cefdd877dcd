#!/usr/bin/env bash
# Throughput and memory of the critical-path stage (src/critical/critical.c):
#  1. timeline-derived tasks (tests/bench/bench_critical.c: a synthetic 8-CPU
#     timeline in memory, 16 actors), one size per process so that the peak
#     is that size's; with and without transparent huge pages for malloc;
#  2. `qostrace report` (load, timeline, actors, critical) of a generated
#     trace (tests/bench/gen_trace.c, GEN_EVENTS, default 10 M; 0 skips), of
#     a real recording of the built-in pipeline (needs root and BPF; skipped
#     otherwise) and of a 1M-task Gantt chart.
#   scripts/bench-critical.sh [SIZES...]      default: 1000000 10000000
set -eu
cd "$(dirname "$0")/.."
sizes=${*:-1000000 10000000}
make -s all bench-progs >/dev/null
echo "host: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
tmp=$(mktemp -d /tmp/qostrace-bench-critical-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "== critical__analyse on synthetic timelines (tasks/s: reconstruction + Algorithm 1, wall)"
header=1
for hp in 0 1; do
	[ $hp = 1 ] && export GLIBC_TUNABLES=glibc.malloc.hugetlb=1 && echo "GLIBC_TUNABLES=$GLIBC_TUNABLES:" && header=1
	for n in $sizes; do
		out=$(/usr/bin/time -f 'time: user %U s, sys %S s, max RSS %M kB' build/bench/bench_critical "$n" 2>"$tmp/err")
		if [ $header = 1 ]; then sed -n 1p <<<"$out"; header=0; fi
		sed -n 2p <<<"$out"
		sed 's/^/  /' "$tmp/err"
	done
done
unset GLIBC_TUNABLES
echo "peak_MB, B/task: the peak RSS the analysis adds to its input (VmHWM reset before it), per task."
echo "cpu_s: CPU time of the whole stage (the machine may be shared: wall_s can be larger)."

# The critical stage's own phases, from the JSON of a report.
stage_timing() {
	tr -d ' \n' <"$1" | grep -o '"critical":{"input":"trace","epsilon_ns":[0-9]*' | sed 's/.*:/  eps ns: /'
	tr -d ' \n' <"$1" | grep -o '"wakeups_used":[a-z]*,"tasks":[0-9]*,"edges":{"total":[0-9]*' | head -1 | sed 's/^/  /'
	tr -d ' \n' <"$1" | grep -o '"timing":{[^}]*}' | tail -1 | sed 's/^/  critical stage /'
}

gen=${GEN_EVENTS:-10000000}
if [ "$gen" != 0 ]; then
	echo
	echo "== qostrace report --json of a generated trace of $gen events (gen_trace, 8 CPUs)"
	build/bench/gen_trace "$tmp/gen.qtrace" "$gen" 8 >/dev/null
	/usr/bin/time -f 'report: wall %e s, user %U s, sys %S s, max RSS %M kB' build/qostrace report --json \
		"$tmp/gen.qtrace" >"$tmp/gen.json" 2>"$tmp/time"
	tail -1 "$tmp/time"
	stage_timing "$tmp/gen.json"
	rm -f "$tmp/gen.qtrace" "$tmp/gen.json"
fi

echo
echo "== qostrace report of a recording (300 frames of the pipeline, 3 s)"
if build/qostrace record -q -o "$tmp/p.qtrace" -- build/qostrace __pipeline --frames 300 --disturb thread \
	>/dev/null 2>"$tmp/rec.err"; then
	/usr/bin/time -f 'report: wall %e s, user %U s, max RSS %M kB' build/qostrace report --json "$tmp/p.qtrace" \
		>"$tmp/p.json" 2>"$tmp/time"
	tail -1 "$tmp/time"
	stage_timing "$tmp/p.json"
else
	echo "  SKIPPED: cannot record here: $(tail -1 "$tmp/rec.err")"
fi

echo
echo "== qostrace report of a Gantt chart (1M tasks: 1000 actors, each a chain of 1-50 us tasks, gaps 0-3 us)"
awk 'BEGIN { srand(7); print "task,actor,start_ns,end_ns";
	for (a = 0; a < 1000; a++) { t = int(rand() * 100000);
		for (k = 0; k < 1000; k++) { d = 1000 + int(rand() * 49000); printf "t%d_%d,a%d,%d,%d\n", a, k, a, t, t + d;
			t += d + (rand() < 0.5 ? 0 : int(rand() * 3000)) } } }' >"$tmp/chart.csv"
for eps in 0ns 100ns; do
	/usr/bin/time -f "  eps $eps: wall %e s, user %U s, max RSS %M kB" build/qostrace report --epsilon "$eps" \
		"$tmp/chart.csv" >"$tmp/chart.txt" 2>"$tmp/time" || true
	tail -2 "$tmp/time"
	grep -E '^makespan|^[0-9]+ edges|critical paths|eps check' "$tmp/chart.txt" | cut -c1-150 | sed 's/^/    /'
done
