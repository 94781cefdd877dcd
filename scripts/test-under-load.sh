#!/usr/bin/env bash
# The tests must pass on a busy machine: runs `make check` ROUNDS times with
# stress-ng loading every CPU, the disk and memory at normal priority, then
# ROUNDS times without, and prints each run's result and time.
#   scripts/test-under-load.sh [ROUNDS] [loaded|idle|both]
#      (default 3 rounds of both; as root: the e2e tests record)
# Exit status 0 only when every run passed. The logs of failed runs are
# kept in $TMPDIR/qostrace-load-*.log, and the recordings of a failed test
# binary in the /tmp/qostrace-tests-* directory its log names.
set -u
cd "$(dirname "$0")/.."
rounds=${1:-3}
phase=${2:-both}
case $phase in loaded|idle|both) ;; *) echo "test-under-load.sh: phase is loaded, idle or both, not '$phase'" >&2; exit 2;; esac
command -v stress-ng >/dev/null || { echo "test-under-load.sh: needs stress-ng (scripts/install-deps.sh)" >&2; exit 2; }
make -s all >/dev/null || exit 1
status=0
run() {	# run LABEL N
	local log t0 t1 rc
	log=$(mktemp "${TMPDIR:-/tmp}/qostrace-load-XXXXXX.log")
	t0=$(date +%s)
	make -s check >"$log" 2>&1
	rc=$?
	t1=$(date +%s)
	printf '%-6s run %d: %s in %d s: %s\n' "$1" "$2" "$([ $rc -eq 0 ] && echo passed || echo FAILED)" \
		$((t1 - t0)) "$(grep -E '^== [0-9]+ passed' "$log" | tail -1)"
	if [ $rc -eq 0 ]; then
		rm -f "$log"
	else
		status=1
		grep -E '\[FAIL\]|FAILED|Assertion|are kept in' "$log" | head -20 | sed 's/^/    /'
		echo "    log: $log"
	fi
}
if [ "$phase" != idle ]; then
	stress-ng --cpu 2 --io 1 --vm 1 --vm-bytes 256M --timeout 0 -q &
	stress=$!
	trap 'kill $stress 2>/dev/null' EXIT
	sleep 2
	for i in $(seq "$rounds"); do run loaded "$i"; done
	kill $stress 2>/dev/null
	wait $stress 2>/dev/null
	trap - EXIT
	sleep 2
fi
if [ "$phase" != loaded ]; then
	for i in $(seq "$rounds"); do run idle "$i"; done
fi
exit $status
