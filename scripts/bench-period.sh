#!/usr/bin/env bash
# Throughput and peak memory of fragments -> invocations -> period/breaks,
# on synthetic actors (tests/bench/bench_period.c).
#   scripts/bench-period.sh [FRAGMENTS...]     default: 1000000 10000000
# Env: ACTORS (default 1000), GAP_FRAC (default 0 = docs/ALGORITHMS.md §1.4
# exactly; 0.5 = invocations_opts.max_gap_frac), OUTPUT (build dir).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUTPUT:-build}
actors=${ACTORS:-1000}
gap=${GAP_FRAC:-0}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000)

make -s OUTPUT="$out" "$out/bench/bench_period"
echo "host: $(nproc) CPUs, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
for n in "${sizes[@]}"; do
	echo "== $actors actors, $n fragments, max_gap_frac $gap"
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f 'max RSS (time -v)  %M kB, wall %e s' \
			"$out/bench/bench_period" "$actors" "$n" 1 "$gap"
	else
		"$out/bench/bench_period" "$actors" "$n" 1 "$gap"
	fi
done
