#!/usr/bin/env bash
# Runs the libFuzzer targets (tests/fuzz/) on a seed corpus of real
# recordings and Gantt charts, for a bounded time each.
#   scripts/fuzz.sh [SECONDS]     (default 60 per target)
# Exit status non-zero when a target crashed; the input that did is kept in
# build-fuzz/crashes/ and should become a regression test.
set -u
cd "$(dirname "$0")/.."
SECS=${1:-60}
F=build-fuzz
scripts/install-deps.sh --fuzz >/dev/null || exit 1
make -s all fuzz || exit 1
mkdir -p $F/corpus/trace $F/corpus/csv $F/crashes

# Seeds: small real recordings, compressed and stored (stored ones let the
# mutations reach the record decoder), plus damaged variants.
if [ -z "$(ls -A $F/corpus/trace)" ]; then
	if build/qostrace record -q -o $F/corpus/trace/z.qtrace --force -- build/workloads/qt_workload -n 2 -l /dev/null &&
	   build/qostrace record -q -o $F/corpus/trace/raw.qtrace --compress 0 --force -- build/workloads/qt_workload -n 2 -l /dev/null; then
		head -c 3000 $F/corpus/trace/raw.qtrace > $F/corpus/trace/cut.qtrace
	else
		echo "fuzz.sh: cannot record seed traces here (not root?): fuzzing from a minimal header" >&2
		printf 'QOSTRACE\001\000\020\000\000\000\000\000' > $F/corpus/trace/header.qtrace
	fi
fi
if [ -z "$(ls -A $F/corpus/csv)" ]; then
	printf 'task,actor,start_ns,end_ns\nA,cpu0,0,1\nB,cpu0,1,3\nC,cpu1,1,6\nD,cpu0,3,4\nF,cpu1,3,4\nE,cpu0,6,8\n' > $F/corpus/csv/tv62.csv
	printf 'task,actor,start_ns,end_ns\r\n"a,b",x,1,2\r\n' > $F/corpus/csv/quoted.csv
fi

status=0
for target in fuzz_trace fuzz_csv; do
	corpus=$F/corpus/${target#fuzz_}
	echo "== $target for $SECS s on $(ls $corpus | wc -l) seeds"
	$F/$target -max_total_time="$SECS" -max_len=262144 -rss_limit_mb=2048 -timeout=10 \
		-print_final_stats=1 -artifact_prefix=$F/crashes/$target- "$corpus" \
		> $F/$target.log 2>&1
	rc=$?
	grep -E '^#[0-9]+.*(DONE|cov)' $F/$target.log | tail -1
	grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' $F/$target.log
	if [ $rc -ne 0 ]; then
		echo "$target FAILED (exit $rc): see $F/$target.log and $F/crashes/"
		grep -A15 'ERROR:' $F/$target.log | head -30
		status=1
	fi
done
exit $status
