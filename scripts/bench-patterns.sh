#!/usr/bin/env bash
# Benchmarks the emerging-patterns stage (src/patterns/stage.c, src/patterns/vocab.c).
#
# 1. Synthetic (tests/bench/bench_patterns.c): a system-wide timeline of
#    ~60 named threads with syscall routines, wakeups, named IRQs and
#    softirqs; 1,000 windows of ~2,000 symbols (200 breaks, 800 kept
#    periods), g = 2; the cause "irq 24 xhci_hcd -> usb-storage switched
#    in -> write by usb-storage" planted in 95 % of the breaks and 1.5 % of
#    the periods. Times the stage (events -> symbols -> miner) with its
#    defaults, without time budget, at fixed thresholds, and at g = 1 / 3.
# 2. Real recordings: `qostrace report` on the demo pipeline recorded with
#    its syscalls only (record -- COMMAND) and system-wide (record -a),
#    disturbed every 0.5 s by a thread named usb-storage. Needs root and
#    BPF; otherwise skipped. Or pass trace files: they are reported too.
#
#   scripts/bench-patterns.sh [TRACE.qtrace...]
# Env: OUTPUT (build dir), ACTOR (report --actor, default src; auto: none)
# Memory: the stage's own peak in the synthetic runs (VmHWM reset before it,
# minus VmRSS then: the synthetic trace and its timeline are not counted);
# the whole process's peak (/usr/bin/time) for report.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUTPUT:-build}
make -s OUTPUT="$out" "$out/qostrace" "$out/bench/bench_patterns" >/dev/null
bin=$out/bench/bench_patterns
q=$out/qostrace
echo "host: $(nproc) CPUs, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"

kv() { sed -n "s/^$1 //p" <<<"$2" | head -1; }

echo
echo "== synthetic: 1,000 subtraces of ~2,000 symbols (200 breaks, 800 periods)"
printf '%-22s %6s %8s %8s %8s %5s %-9s %6s %8s  %s\n' config vocab symbols "symb_s" "mine_s" runs thresh rank "stageMB" "bounds / top pattern"
run() {
	local name=$1; shift
	local o
	o=$("$bin" "$@")
	printf '%-22s %6s %8s %8s %8s %5s %-9s %6s %8s  %s\n' "$name" "$(kv vocabulary "$o")" "$(kv symbols "$o")" \
		"$(kv symbolize_s "$o")" "$(kv mine_s "$o")" "$(kv runs "$o")" "$(kv thresholds "$o")" \
		"$(kv target_rank "$o")" "$(awk '{printf "%.0f", $1/1024}' <<<"$(kv stage_peak_kb "$o")")" \
		"$(kv bounds "$o")"
	printf '%-22s %s\n' "" "$(kv top1 "$o")"
}
run "g=2 auto (defaults)"
run "g=2 auto, no budget" --budget 0
run "g=2 fixed 94/4" --delta 94 --alpha 4
run "g=1 auto" --gap 1
run "g=3 auto" --gap 3
# Long subtraces, not cut (the stage cuts at 2,000 by default): the time budget bites.
run "5000 symb, uncut" --pos 40 --neg 160 --len 5000

report() {
	local f=$1 json t
	json=$(mktemp)
	t=$( { /usr/bin/time -f '%e %M' "$q" report -q --json "${actor[@]}" "$f" >"$json"; } 2>&1 | tail -1)
	local field
	# the fields of "patterns_search" (4 spaces deep in the pretty JSON)
	field() { sed -n '/^  "patterns_search"/,/^  }/p' "$json" | sed -n "s/^    \"$1\": \(.*\)\$/\1/p" | sed 's/,$//; s/"//g' | head -1; }
	printf '%-20s %-13s %7s %8s %6s %5s %5s %8s %8s %7s %6s\n' "$(basename "$f")" "$(field actor)" "$(field events)" \
		"$(field symbols)" "$(field vocabulary)" "$(field subtraces_pos)" "$(field subtraces_neg)" \
		"$(awk '{printf "%.3f", $1/1e9}' <<<"$(field mine_ns)")" \
		"$(awk '{printf "%.3f", $1/1e9}' <<<"$(field elapsed_ns)")" "${t% *}" \
		"$(awk '{printf "%.0f", $1/1024}' <<<"${t#* }")"
	"$q" report -q --color never "${actor[@]}" "$f" | sed -n '/^== What happens/,$p' | grep -E '^ +[1-3]\. ' | sed 's/^/      /'
	rm -f "$json"
}

# The demo's actor: which actor is the most upstream breaking one is the
# actors stage's business (ACTOR=auto: its choice).
actor=(--actor "${ACTOR:-src}"); [ "${ACTOR:-}" = auto ] && actor=()
echo
echo "== qostrace report on recordings (patterns: mine_s, stage_s; the whole report: report_s, rss_MB)"
printf '%-20s %-13s %7s %8s %6s %5s %5s %8s %8s %7s %6s\n' trace actor events symbols vocab pos neg mine_s stage_s report_s rss_MB
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "(not root: no recording; pass trace files to report them)"
	else
		tmp=$(mktemp -d /tmp/qostrace-bench-XXXXXX)
		trap 'rm -rf "$tmp"' EXIT
		if "$q" record -q -o "$tmp/pipeline.qtrace" -- "$q" __pipeline --frames 500 \
			--every 500ms --disturb thread --name usb-storage; then
			files+=("$tmp/pipeline.qtrace")
		else
			echo "(recording the pipeline failed)"
		fi
		( sleep 0.3; "$q" __pipeline --frames 500 --every 500ms --disturb thread \
			--name usb-storage >/dev/null ) &
		if "$q" record -q -a -d 6 -o "$tmp/system-wide.qtrace"; then
			files+=("$tmp/system-wide.qtrace")
		else
			echo "(recording system-wide failed: status $?)"
		fi
		wait || true
	fi
fi
for f in "${files[@]}"; do report "$f"; done
