#!/usr/bin/env bash
# Every reader under valgrind on a real recording: info, dump, report (text,
# JSON, HTML) and the Perfetto export. Fails on any memory error or leak.
#   scripts/valgrind-report.sh            (as root: it records the demo)
set -u
cd "$(dirname "$0")/.."
W=$(mktemp -d /tmp/qostrace-vg-XXXXXX)
trap 'rm -rf "$W"' EXIT
make -s all >/dev/null || exit 1
command -v valgrind >/dev/null || scripts/install-deps.sh --bench >/dev/null || exit 1
if ! build/qostrace demo -o "$W/demo.qtrace" -n 150 >/dev/null 2>&1; then
	echo "valgrind-report.sh: SKIPPED: cannot record the demo here (not root, or no BPF)"
	exit 0
fi
status=0
for cmd in "info $W/demo.qtrace" "dump $W/demo.qtrace" "report $W/demo.qtrace" \
	   "report --json $W/demo.qtrace" "report --html $W/demo.html $W/demo.qtrace" \
	   "export --perfetto $W/demo.json $W/demo.qtrace"; do
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		build/qostrace $cmd > /dev/null 2> "$W/vg.txt"
	rc=$?
	if [ $rc -eq 99 ] || grep -q '^==[0-9]*==' "$W/vg.txt"; then
		echo "valgrind: qostrace $cmd: ERRORS"
		grep '^==' "$W/vg.txt" | head -30
		status=1
	else
		echo "valgrind: qostrace ${cmd%% *} ${cmd#* }" | sed "s|$W/||g" | sed 's/$/: clean/'
	fi
done
exit $status
