#!/usr/bin/env bash
# Benchmarks the emerging-pattern miner (src/patterns/miner_mine.c, src/patterns/miner_auto.c) on
# synthetic subtraces: 1,000 subtraces of 2,000 events (200 in D_pos, 800 in
# D_neg), g = 2, a Zipf vocabulary and an SATM-style planted target A0,B1,C0
# in 95 % of D_pos and 1.5 % of D_neg (tests/bench/bench_miner.c).
#   scripts/bench-miner.sh            Env: OUTPUT (build dir, default build)
# Each configuration runs in its own process: mining at the strict corner
# (delta 100 %, alpha 0 %), mining at the thresholds where the target emerges
# (94 %, 2 %), and the automatic threshold search. Peak RSS is the process's
# (getrusage), so it includes the generated input (8 MB of events).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUTPUT:-build}
make -s OUTPUT="$out" "$out/bench/bench_miner" >/dev/null
bin=$out/bench/bench_miner
echo "host: $(nproc) CPUs, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"

kv() { sed -n "s/^$1 //p" <<<"$2" | head -1; }

printf '%-26s %7s %6s %8s %8s %9s %-44s %s\n' config symbols freq "mine_s" nodes "rss_MB" \
	"bounds" "patterns / top"
run() {
	local name=$1; shift
	local o
	o=$("$bin" "$@")
	local top
	top=$(kv 'mine_pattern' "$o")
	[ -z "$top" ] && top=$(sed -n 's/^auto_top1 //p' <<<"$o")
	if grep -q '^auto_s' <<<"$o"; then
		printf '%-26s %7s %6s %8s %8s %9s %-44s %s\n' "$name" "$(kv symbols "$o")" "-" \
			"$(kv auto_s "$o")" "$(kv auto_runs "$o")runs" \
			"$(awk '{printf "%.1f", $1/1024}' <<<"$(kv peak_rss_kb "$o")")" \
			"bounds $(kv auto_bounds "$o"), target rank $(kv auto_target_rank "$o")" "$top"
	else
		printf '%-26s %7s %6s %8s %8s %9s %-44s %s\n' "$name" "$(kv symbols "$o")" \
			"$(kv mine_symbols_frequent "$o")" "$(kv mine_s "$o")" "$(kv mine_nodes "$o")" \
			"$(awk '{printf "%.1f", $1/1024}' <<<"$(kv peak_rss_kb "$o")")" \
			"$(kv mine_bounds "$o" | sed 's/search truncated at //' | cut -c1-44)" \
			"$(kv mine_patterns "$o") ${top}"
	fi
}

for mode in motif zipf; do
	run "$mode strict 100/0"    --mode $mode --what mine
	run "$mode target 94/2"     --mode $mode --what mine --delta 94 --alpha 2
	run "$mode relaxed 80/10"   --mode $mode --what mine --delta 80 --alpha 10
	run "$mode auto"            --mode $mode --what auto
done
run "motif vocab 50 auto"   --vocab 50 --what auto
run "motif vocab 300 auto"  --vocab 300 --what auto
run "motif g=1 auto"        --gap 1 --what auto
run "motif g=3 auto"        --gap 3 --what auto
# Pathological: a few threads cycling through fixed loops, in D_pos and D_neg
# alike; the node budget (100,000 per phase) is what ends the search.
run "loop target 94/2"      --mode loop --what mine --delta 94 --alpha 2
run "loop auto"             --mode loop --what auto

echo
echo "Automatic search on the default (motif) data, run by run:"
"$bin" --what auto | grep -E '^auto_(run|top|target)'
