#!/usr/bin/env bash
# Throughput and memory of precedence reconstruction + critical path analysis
# on synthetic 2-CPU scheduling traces (tests/bench/bench_cpa.c).
#   scripts/bench-cpa.sh [EPS_NS] [SIZES...]      default: 50000, 1000000 10000000
set -eu
cd "$(dirname "$0")/.."
eps=${1:-50000}
shift || true
sizes=${*:-1000000 10000000}
make -s bench-progs >/dev/null
printf '%-9s %-5s %-9s %-8s %-8s %-8s %-12s %-9s %-9s %-9s\n' \
	tasks cpus edges build_s cpa_s common_s tasks/s peak_MB B/task B/task+edge
run() {
	local n=$1 line
	line=$(build/bench/bench_cpa "$n" "$eps" 2)
	get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $line"; }
	printf '%-9s %-5s %-9s %-8s %-8s %-8s %-12s %-9s %-9s %-9s\n' \
		"$n" "$(get cpus)" "$(get edges)" "$(get build_s)" "$(get cpa_s)" \
		"$(get common_s)" "$(get tasks_per_s)" \
		"$(( $(get peak_rss_kb) / 1024 ))" "$(get analysis_bytes_per_task)" \
		"$(awk -v s="$(get struct_bytes)" -v n="$n" 'BEGIN { printf "%.1f", s / n }')"
	echo "  $line"
}
for n in $sizes; do run "$n"; done
# Page faults on fresh memory dominate at 10M tasks on some (virtual)
# machines; the same runs with glibc asking for transparent huge pages:
echo "GLIBC_TUNABLES=glibc.malloc.hugetlb=1:"
export GLIBC_TUNABLES=glibc.malloc.hugetlb=1
for n in $sizes; do run "$n"; done
echo "B/task: peak RSS above the input array (16 B/task) per task, transients included."
echo "B/task+edge: what stays allocated (graph 16 B/task + 14 B/edge, cpa 20 B/task) per task."
