#!/usr/bin/env bash
# The report under ThreadSanitizer: the critical path's graph is built
# beside the actors' stage, the pattern search beside the rest of the
# critical path (src/analysis/analysis.c), the trace file's blocks are read ahead
# on a thread of their own while the loader decodes (src/file/readahead.c; in a
# damaged copy of the trace it warns meanwhile), the actors' studies, the
# precedence graph's sorts and scans, the eps counts and the accounting
# each on two workers, and fresh memory is faulted in by a helper beside
# the loader, the timeline and the task model (src/lib/prefault.c; a trace of
# 1 M events is large enough to start them), so every report is a test of
# what they share. Builds build/tsan/qostrace, analyses a synthetic trace
# (tests/bench/gen_trace.c) and, as root, the demo's recording; fails on
# any data race TSan reports. (Criterion cannot start under TSan here:
# the helper's own tests run under ASan, make SAN=1 unit.)
#   scripts/tsan-report.sh
set -u
cd "$(dirname "$0")/.."
W=$(mktemp -d /tmp/qostrace-tsan-XXXXXX)
trap 'rm -rf "$W"' EXIT
make -s all bench-progs >/dev/null || exit 1
mkdir -p build/tsan
# The Makefile's build links jemalloc, which TSan cannot watch: the sources
# are built here with TSan's own allocator.
${CC:-cc} -O1 -g -fsanitize=thread -std=c11 -D_GNU_SOURCE -Iinclude -Isrc -Ibuild/gen -Ibuild/skel $(find src -name "*.c" ! -name recorder_none.c) build/gen/report/html_assets.c \
	-lbpf -lelf -lz -ldeflate -lpthread -lm -o build/tsan/qostrace || exit 1
build/bench/gen_trace "$W/synthetic.qtrace" 1000000 4 >/dev/null || exit 1
# Blocks damaged here and there: the read-ahead warns while the loader works.
cp "$W/synthetic.qtrace" "$W/damaged.qtrace"
size=$(stat -c %s "$W/damaged.qtrace")
for k in 3 5 7; do
	printf 'XXXXXXXX' | dd of="$W/damaged.qtrace" bs=1 seek=$((size * k / 10)) conv=notrunc status=none
done
inputs=("$W/synthetic.qtrace" "$W/damaged.qtrace")
if build/qostrace demo -o "$W/demo.qtrace" -n 150 >/dev/null 2>&1; then
	inputs+=("$W/demo.qtrace")
else
	echo "tsan-report.sh: SKIPPED the demo recording: cannot record here (not root, or no BPF)"
fi
status=0
for f in "${inputs[@]}"; do
	for cmd in "report" "report --json" "report --html $W/r.html" "export --perfetto $W/r.json"; do
		TSAN_OPTIONS="halt_on_error=1 exitcode=66" build/tsan/qostrace $cmd "$f" > /dev/null 2> "$W/tsan.txt"
		rc=$?
		if [ $rc -eq 66 ] || grep -q 'WARNING: ThreadSanitizer' "$W/tsan.txt"; then
			echo "tsan: qostrace $cmd $(basename "$f"): DATA RACE"
			head -40 "$W/tsan.txt"
			status=1
		elif [ $rc -ne 0 ]; then
			echo "tsan: qostrace $cmd $(basename "$f"): exit $rc"
			tail -5 "$W/tsan.txt"
			status=1
		else
			echo "tsan: qostrace $cmd $(basename "$f"): no race" | sed "s|$W/||g"
		fi
	done
done
exit $status
