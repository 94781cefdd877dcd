#!/usr/bin/env bash
# Records a corpus of recordings that exercise every part of the report, for
# comparing two builds of qostrace on the same input (scripts/compare-reports.sh).
#   scripts/report-corpus.sh DIR [QOSTRACE]
# Writes DIR/NN-name.qtrace (and one Gantt chart, DIR/11-gantt.csv). Needs
# root (it records with eBPF); a recording whose workload is missing (no
# gst-launch-1.0, no stress-ng) is left out with a word, not faked.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/report-corpus.sh DIR [QOSTRACE]}
qt=${2:-build/qostrace}
wl=build/workloads
mkdir -p "$out"
[ -x "$qt" ] && [ -x "$wl/qt_workload" ] || { echo "report-corpus.sh: build first (make)" >&2; exit 1; }

rec() {	# rec NAME RECORD-ARGS...
	local name=$1; shift
	echo "report-corpus.sh: $name"
	"$qt" record -q --force -o "$out/$name.qtrace" "$@" >/dev/null 2>&1 ||
		echo "report-corpus.sh: $name: recording failed" >&2
}
have() { command -v "$1" >/dev/null 2>&1; }

# A disturber of our own: SCHED_FIFO on CPU 1, DUTY_MS busy every EVERY_MS.
disturb() {	# disturb EVERY_MS DUTY_MS: sets $hog to its pid
	python3 - "$1" "$2" >/dev/null 2>&1 <<'PY' &
import os, sys, time
every, duty = int(sys.argv[1]) / 1e3, int(sys.argv[2]) / 1e3
os.sched_setaffinity(0, {1})
try:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(20))
except OSError:
    pass
open("/proc/self/comm", "w").write("hog")
while True:
    t = time.monotonic() + duty
    while time.monotonic() < t:
        pass
    time.sleep(every)
PY
	hog=$!
}

"$qt" demo -o "$out/01-demo.qtrace" >/dev/null 2>&1 || echo "report-corpus.sh: demo failed" >&2
"$qt" demo -d syscalls -o "$out/02-demo-syscalls.qtrace" >/dev/null 2>&1 || true
"$qt" demo -d none -o "$out/03-demo-quiet.qtrace" >/dev/null 2>&1 || true
rec 04-workload -- "$wl/qt_workload" -l /dev/null
rec 05-lock -- "$wl/qt_lock" /dev/null
rec 06-writer -- "$wl/qt_writer" "$out/.writer.out" /dev/null
rm -f "$out/.writer.out"
rec 07-periodic -- "$wl/qt_periodic" 10000 1000 300 /dev/null 50 20000
if have stress-ng; then
	rec 08-storm -a --no-syscalls -- stress-ng --switch 2 -t 2 -q
else
	echo "report-corpus.sh: 08-storm left out: no stress-ng" >&2
fi
if have gst-launch-1.0; then
	disturb 700 60
	rec 09-gst-audio -- gst-launch-1.0 -q audiotestsrc is-live=true samplesperbuffer=441 num-buffers=400 \
		! audioconvert ! queue ! audioresample ! audio/x-raw,rate=48000 ! queue ! fakesink sync=true
	kill "$hog" 2>/dev/null || true
	wait "$hog" 2>/dev/null || true
else
	echo "report-corpus.sh: 09-gst-audio left out: no gst-launch-1.0" >&2
fi
rec 10-system -a -d 2
printf 'task,actor,start_ns,end_ns\n' >"$out/11-gantt.csv"
awk 'BEGIN { for (i = 0; i < 40; i++) {
	b = i * 10000000; late = (i % 9 == 8) ? 4000000 : 0
	printf "A%d,src,%d,%d\n", i, b, b + 2000000 + late
	printf "B%d,dec,%d,%d\n", i, b + 2000000 + late, b + 5000000 + late
	printf "C%d,sink,%d,%d\n", i, b + 5100000 + late, b + 7000000 + late } }' >>"$out/11-gantt.csv"
ls -l "$out"
