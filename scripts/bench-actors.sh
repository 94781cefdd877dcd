#!/usr/bin/env bash
# Throughput and peak memory of the actors stage (actors__analyse) on a
# large synthetic timeline (tests/bench/bench_actors.c); the stage inside a
# whole analysis of a generated 10 M-event trace (tests/bench/gen_trace.c);
# and `qostrace report --json` on a real recording of the built-in
# pipeline (recorded here when we may, else given as TRACE).
#   scripts/bench-actors.sh [RUNS...]     default: 1000000 10000000
# Env: ACTORS (default 1000), OUTPUT (build dir), TRACE (a .qtrace to time),
# GEN_EVENTS (default 10000000; 0 skips the generated trace).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUTPUT:-build}
actors=${ACTORS:-1000}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000)

make -s OUTPUT="$out" "$out/qostrace" "$out/bench/bench_actors" "$out/bench/gen_trace"
echo "host: $(nproc) CPUs, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
timed() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f 'max RSS (time -v)  %M kB, wall %e s' "$@"
	else
		"$@"
	fi
}
for n in "${sizes[@]}"; do
	echo "== $actors actors, $n runs"
	timed "$out/bench/bench_actors" "$actors" "$n" 1
done

tmp=$(mktemp -d /tmp/qostrace-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
gen=${GEN_EVENTS:-10000000}
if [ "$gen" != 0 ]; then
	echo "== a generated trace of $gen events (gen_trace, 8 CPUs)"
	"$out/bench/gen_trace" "$tmp/gen.qtrace" "$gen" 8 > /dev/null
	timed "$out/bench/bench_actors" --trace "$tmp/gen.qtrace"
	rm -f "$tmp/gen.qtrace"
fi

trace=${TRACE:-}
if [ -z "$trace" ]; then
	trace=$tmp/pipeline.qtrace
	if ! "$out/qostrace" record -q -o "$trace" -- "$out/qostrace" __pipeline --frames 1000 \
		--period 10ms --disturb thread --log "$tmp/pipeline.log" 2>/dev/null; then
		echo "== report --json on a real recording: SKIPPED (cannot record here; set TRACE=file.qtrace)"
		exit 0
	fi
fi
echo "== report --json on $(basename "$trace") ($(du -h "$trace" | cut -f1))"
"$out/qostrace" info "$trace" | grep -E '^(recorded|events)'
# the whole command (load, timeline, analysis, JSON) against the load alone (info)
for cmd in "info" "report --json"; do
	best=
	for i in 1 2 3; do
		s=$(date +%s.%N)
		"$out/qostrace" $cmd "$trace" > /dev/null
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
	done
	printf '  %-14s best of 3: %.3f s\n' "$cmd" "$best"
done
timed "$out/qostrace" report --json "$trace" > /dev/null
"$out/bench/bench_actors" --trace "$trace"
