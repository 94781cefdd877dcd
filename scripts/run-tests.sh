#!/usr/bin/env bash
# Runs the test binaries built by `make test`: unit tests (tests/test_*.c
# without "e2e" in the name) first, then the end-to-end ones, which record
# with the real BPF programs. A test that cannot record says SKIPPED and why;
# a skip is never counted as a pass.
#   scripts/run-tests.sh [--unit|--e2e] [BUILD_DIR]
set -u
mode=all
case "${1:-}" in --unit|--e2e) mode=${1#--}; shift ;; esac
out=${1:-build}
cd "$(dirname "$0")/.." || exit 2

unit=(); e2e=()
for t in "$out"/tests/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.d) continue ;; *e2e*) e2e+=("$t") ;; *) unit+=("$t") ;; esac
done
case $mode in unit) e2e=() ;; e2e) unit=() ;; esac

failed=(); skipped=0; passed=0
run() {
	local t=$1 log
	log=$(mktemp)
	# Criterion forks one process per test; -j1 keeps the e2e recordings apart.
	# A scratch directory per binary: tests may share a recording through it.
	local scratch
	scratch=$(mktemp -d /tmp/qostrace-tests-XXXXXX)
	QOSTRACE_BUILD=$out QOSTRACE_TEST_TMP=$scratch "$t" --jobs=1 >"$log" 2>&1
	local rc=$?
	# A binary that ran no test (bad arguments, crash at start) is a failure.
	grep -q 'Synthesis' "$log" || rc=99
	# A failure keeps its recordings and logs: a busy machine's is not made twice.
	if [ $rc -ne 0 ] && [ -n "$(ls -A "$scratch")" ]; then
		echo "  $(basename "$t"): its recordings and logs are kept in $scratch"
	else
		rm -rf "$scratch"
	fi
	local s p
	s=$(grep -c '\[SKIP\]' "$log")
	p=$(sed -n 's/.*Passing: \([0-9]*\).*/\1/p' "$log" | tail -1)
	skipped=$((skipped + s)); passed=$((passed + ${p:-0}))
	if [ $rc -ne 0 ]; then
		failed+=("$t"); cat "$log"
	else
		grep -E '\[SKIP\]|SKIPPED' "$log" | sed 's/^/  /'
	fi
	printf '%-40s %s\n' "$(basename "$t")" "$(grep 'Synthesis' "$log" | tail -1 | sed 's/.*Synthesis: //')"
	rm -f "$log"
}
[ ${#unit[@]} -gt 0 ] && echo "== unit tests"
for t in "${unit[@]}"; do run "$t"; done
[ ${#e2e[@]} -gt 0 ] && echo "== end-to-end tests (record with BPF)"
for t in "${e2e[@]}"; do run "$t"; done

echo "== $passed passed, ${#failed[@]} binaries failed, $skipped SKIPPED"
[ $skipped -gt 0 ] && echo "   (SKIPPED tests did not run: see the reasons above)"
[ ${#failed[@]} -eq 0 ]
