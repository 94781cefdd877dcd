#!/usr/bin/env bash
# Where else a wakeup's real cause may be lost (docs/DESIGN.md §3): records
# two processes feeding each other every 10 ms through paths where the
# kernel does the waking (tests/bench/wake_paths: io_uring receiving a
# datagram on loopback, a pseudo-terminal handed over by a kworker) and
# the UDP workload of the e2e test, then says for each recording, and for
# any other trace given, what woke the user threads that kernel threads
# woke, and what the softirq wakeups became (tests/bench/wake_chains).
#
#   scripts/bench-wake-chains.sh [TRACE...]     (as root)
#
# Results go to stdout and to scripts/results/wake-chains.txt.
set -u
cd "$(dirname "$0")/.."
OUT=scripts/results/wake-chains.txt
WORK=$(mktemp -d /tmp/qostrace-bench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "bench-wake-chains.sh: run as root" >&2; exit 1; }
make -s all workloads build/bench/wake_paths build/bench/wake_chains >/dev/null || exit 1
for m in uring pty; do
	build/qostrace record -q --force -o "$WORK/$m.qtrace" -- build/bench/wake_paths "$m" 300 ||
		{ echo "bench-wake-chains.sh: recording $m failed" >&2; exit 1; }
done
build/qostrace record -q --force -o "$WORK/udp.qtrace" -- build/workloads/qt_udp "$WORK/udp.log" ||
	{ echo "bench-wake-chains.sh: recording qt_udp failed" >&2; exit 1; }
mkdir -p scripts/results
{
	echo "# what woke the user threads that kernel threads woke, $(date -u +%Y-%m-%dT%H:%MZ), $(uname -r)"
	echo "# uring, pty: tests/bench/wake_paths MODE 300 (a reader fed every 10 ms); udp: tests/workloads/qt_udp"
	build/bench/wake_chains "$WORK/uring.qtrace" "$WORK/pty.qtrace" "$WORK/udp.qtrace" "$@"
} | tee "$OUT"
