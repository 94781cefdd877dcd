#!/usr/bin/env bash
# The recorder in virtual machines: QEMU guests (TCG: KVM does not boot
# guests on these machines) with an initramfs that holds the static qostrace
# of the guest's architecture, tests/workloads built static, and an init of
# our own (scripts/vm/init.c) that records the workloads and sends the traces
# and the workloads' logs back on the serial console. They are checked here
# (scripts/vm/check.py): each worker's CPU time against its schedstat in the
# guest, qt_periodic's starts and period against the ones it logged there
# (under TCG on a loaded host the guest's timers fire late: the guest's own
# measure is the truth, not 10 ms), losses counted; the arm64 guest's
# recording against one made here of the same static workload; and every
# trace read by the x86_64, arm64 and armhf builds alike (these two under
# qemu-user), but for what a pattern search cut by its time budget found:
# under emulation it stops elsewhere (compare-reports.sh --time-cut-patterns).
#
#   scripts/vm-test.sh [--guests LIST] [--out DIR] [--no-install]
#
# Guests (LIST, comma separated; all by default):
#   arm64   Debian 12's linux-image-arm64 (6.1, BTF), qemu-system-aarch64 -M virt
#   amd64   Debian 12's linux-image-amd64 (6.1, BTF), qemu-system-x86_64
#   nobtf   a 6.1 tinyconfig kernel with BPF and tracepoints but no BTF, built from
#           linux-source-6.1 and cached in /var/cache/qostrace (scripts/vm/build-kernel.sh)
#   armhf   Debian 12's linux-image-armmp (6.1, no BTF), qemu-system-arm -M virt
#   armbtf  not by default (its kernel takes 6 minutes to build): a 6.1 tinyconfig
#           armhf kernel with BTF (scripts/vm/kernel-btf-arm.config, cached like
#           nobtf) on -M virt, where tp_btf programs load but read wrong values
#           (a 32-bit kernel's BPF interpreter): the recorder refuses tp_btf on a
#           32-bit kernel and records with core there
# In each, every attach path the binary offers (record --backend, when it
# has one; VMTEST_BACKENDS="a b" overrides) records the workloads; a path the
# kernel does not allow must be refused with a word, and that is reported.
# Results in DIR (build/vm-test): per guest the console log, the traces, the
# logs, and summary.txt. Exits 1 if a check failed.
set -euo pipefail
cd "$(dirname "$0")/.."
guests=arm64,amd64,nobtf,armhf
out=build/vm-test
install=yes
while [ $# -gt 0 ]; do
	case $1 in
	--guests) guests=$2; shift ;;
	--out) out=$2; shift ;;
	--no-install) install=no ;;
	-h|--help) sed -n '2,33p' "$0"; exit 0 ;;
	*) echo "vm-test.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
cache=${QOSTRACE_CACHE:-/var/cache/qostrace}
t_start=$(date +%s)
[ $install = yes ] && scripts/install-deps.sh --vm --no-views
mkdir -p "$out" "$cache"
summary=$out/summary.txt
: > "$summary"
failed=0
note() { echo "$*" | tee -a "$summary"; }

# ---- what the guests run ----

# Debian's kernel image of a flavour, unpacked once into the cache.
debian_kernel() { # debian arch, flavour
	local pkg dir
	pkg=$(apt-cache depends "linux-image-$2:$1" | awk '/Depends: linux-image-6/ { print $2; exit }')
	[ -n "$pkg" ] || { echo "vm-test.sh: no linux-image-$2:$1 in the package lists" >&2; return 1; }
	dir=$cache/debian-${pkg%%:*}-$(apt-cache policy "$pkg" | awk '/Candidate:/ { print $2 }')
	if [ ! -r "$dir/vmlinuz" ]; then
		local dl
		dl=$(mktemp -d)
		(cd "$dl" && apt-get download -q "$pkg" >/dev/null 2>"$dl.err") || { cat "$dl.err" >&2; return 1; }
		dpkg-deb -x "$dl"/*.deb "$dl/x"
		mkdir -p "$dir"
		cp "$dl"/x/boot/config-* "$dir/config"
		cp "$dl"/x/boot/vmlinuz-* "$dir/vmlinuz"
		rm -rf "$dl" "$dl.err"
	fi
	echo "$dir/vmlinuz"
}

# The attach paths the recorder offers: none to choose from today (one path,
# tp_btf); once record has --backend, the names its help lists in the
# option's paragraph, separated by "|" or ","  ("auto" left out).
backends() {
	if [ -n "${VMTEST_BACKENDS+set}" ]; then
		echo "$VMTEST_BACKENDS"
		return
	fi
	build/qostrace record --help | python3 -c '
import re, sys
text = sys.stdin.read()
m = re.search(r"--backend\S*(.*?)(?=\n\s+-|\n\n|$)", text, re.S)
if m:
    lists = re.findall(r"[a-z][a-z0-9_]*(?:\s*(?:[|,]|,? or)\s*[a-z][a-z0-9_]*)+", m.group(1))
    names = re.findall(r"[a-z][a-z0-9_]*", max(lists, key=len)) if lists else []
    print(" ".join(n for n in names if n not in ("auto", "or")))
'
}

# The plan of scripts/vm/init.c: the path the recorder chooses, then each
# path forced in turn, record qt_workload (CPU time) and qt_periodic (the
# period), labelled wl, per, wl-PATH, per-PATH; the default path also records all threads, idle
# and under a load of known rate, with the default buffer, with 1 MB, and
# with 64 KB drained once a second: the recorder's footprint and its losses
# counted.
plan() { # backends...
	local b opt sfx
	for b in "" "$@"; do
		opt=${b:+--backend=$b}
		sfx=${b:+-$b}
		echo "run wl$sfx /qostrace record -o /tmp/wl$sfx.qtrace $opt -- /qt_workload -n 100 -l /tmp/wl$sfx.log"
		echo "send /tmp/wl$sfx.qtrace"
		echo "send /tmp/wl$sfx.log"
		echo "run per$sfx /qostrace record -o /tmp/per$sfx.qtrace $opt -- /qt_periodic 10000 1000 300 /tmp/per$sfx.log"
		echo "send /tmp/per$sfx.qtrace"
		echo "send /tmp/per$sfx.log"
	done
	echo "run idle /qostrace record -a -o /tmp/idle.qtrace -- /qt_periodic 100000 0 30 /tmp/idle.log"
	echo "run load /qostrace record -a -o /tmp/load.qtrace -- /qt_periodic 500 50 6000 /tmp/load.log"
	echo "run load1m /qostrace record -a --buffer-size=1M -o /tmp/load1m.qtrace -- /qt_periodic 500 50 6000 /tmp/load1m.log"
	# 64 KB drained once a second cannot hold the load: losses, counted.
	echo "run load64k /qostrace record -a --buffer-size=64K --poll=1000 -o /tmp/load64k.qtrace -- /qt_periodic 500 50 2000 /tmp/load64k.log"
	echo "send /tmp/idle.qtrace"
	echo "send /tmp/load.qtrace"
	echo "send /tmp/load1m.qtrace"
	echo "send /tmp/load64k.qtrace"
	# What a path without BTF reads its offsets from, kept for the record.
	echo "send /sys/kernel/tracing/events/sched/sched_switch/format"
	echo "send /sys/kernel/tracing/events/raw_syscalls/sys_enter/format"
}

# ---- one guest ----

run_guest() { # name, build dir, cross prefix, kernel, qemu command...
	local name=$1 bdir=$2 cc=${3}gcc kernel=$4
	shift 4
	local g=$out/$name stage t0 t1 console
	rm -rf "$g" && mkdir -p "$g"
	stage=$g/initramfs
	mkdir -p "$stage"
	"$cc" -static -O2 -Wall -o "$stage/init" scripts/vm/init.c
	cp "$bdir/qostrace" "$bdir/workloads/qt_workload" "$bdir/workloads/qt_periodic" "$stage/"
	plan $backs > "$stage/plan"
	(cd "$stage" && find . | cpio -o -H newc --quiet) > "$g/initramfs.cpio"
	console=$( [[ $1 == qemu-system-x86_64 ]] && echo ttyS0 || echo ttyAMA0 )
	note "== $name: $(basename "$kernel") on $* (TCG, 2 CPUs, 1 GB)"
	t0=$(date +%s.%N)
	timeout 1200 "$@" -smp 2 -m 1024 -display none -monitor none -no-reboot \
		-serial "file:$g/console.log" -kernel "$kernel" -initrd "$g/initramfs.cpio" \
		-append "console=$console rdinit=/init quiet loglevel=1 panic=-1" </dev/null ||
		note "  qemu exited with status $?"
	t1=$(date +%s.%N)
	python3 scripts/vm/check.py unpack "$g/console.log" "$g"
	python3 - "$g/runs.json" "$t0" "$t1" <<'PY' | tee -a "$summary"
import json, sys
r = json.load(open(sys.argv[1]))
up = r["init_uptime_ms"]
print(f"  boot to /init {up / 1000:.1f} s, guest run {float(sys.argv[3]) - float(sys.argv[2]):.0f} s"
      if up is not None else "  the guest never reached /init")
if not r["done"]:
    print("  the guest did not finish its plan (see console.log)")
PY
	check_guest "$name" "$g"
}

run_field() { # runs.json, label, field
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["runs"].get(sys.argv[2], {}).get(sys.argv[3], ""))' "$@"
}

check_guest() { # name, dir
	local name=$1 g=$2 label st kind out
	for label in $(python3 -c 'import json, sys; print(" ".join(json.load(open(sys.argv[1]))["runs"]))' "$g/runs.json"); do
		st=$(run_field "$g/runs.json" "$label" status)
		if [ "$st" != 0 ]; then
			out=$(run_field "$g/runs.json" "$label" output | grep 'qostrace' | tail -2)
			# A forced path the kernel does not allow must be refused with
			# a word (not a crash). Without a choice of paths, today's
			# recorder must refuse a kernel without BTF, and say so.
			if [[ $label == *-* ]] && [ "$st" -lt 128 ] && echo "$out" | grep -q 'error'; then
				note "  $label: refused: $out"
				continue
			fi
			if [ -z "$backs" ] && echo "$out" | grep -q 'has no BTF'; then
				note "  $label: refused, as it must without BTF and without another path: $out"
				continue
			fi
			note "  $label: FAILED (exit status $st): $out"
			failed=1
			continue
		fi
		if run_field "$g/runs.json" "$label" output | grep -q 'still running after'; then
			note "  $label: FAILED: $(run_field "$g/runs.json" "$label" output | grep -o 'still running after.*' | head -1) (scripts/vm/init.c)"
			failed=1
		fi
		kind=${label%%-*}
		note "  $label: $(build/qostrace info "$g/$label.qtrace" | awk '/^events/ { sub(/:$/, "", $3); print $2, "events", $3 }');" \
			"recorder: $(run_field "$g/runs.json" "$label" cpu_ms) ms CPU; peak RSS" \
			"$(run_field "$g/runs.json" "$label" hwm_kb) kB, of which allocated" \
			"$(run_field "$g/runs.json" "$label" anon_kb) kB, mapped $(run_field "$g/runs.json" "$label" file_kb) kB"
		case $kind in
		wl) python3 scripts/vm/check.py workload build/qostrace "$g/$label.qtrace" "$g/$label.log" ;;
		per) python3 scripts/vm/check.py periodic build/qostrace "$g/$label.qtrace" "$g/$label.log" 10000 ;;
		idle|load*) python3 scripts/vm/check.py lost build/qostrace "$g/$label.qtrace" ;;
		esac > "$g/$label.check" 2>&1 || { sed 's/^/  FAILED/' "$g/$label.check" >&2; failed=1; }
		tee -a "$summary" < "$g/$label.check"
	done
	footprint "$g"
}

events_of() { build/qostrace report --json -q "$1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["trace"]["events"])'; }

# The recorder's CPU per event: its CPU time under the load less what it
# spent before the load started (BPF verification, the kernel's BTF), over
# the events recorded.
footprint() { # guest dir
	local g=$1 cl sl el
	[ -r "$g/load.qtrace" ] || return 0
	cl=$(run_field "$g/runs.json" load cpu_ms)
	sl=$(run_field "$g/runs.json" load startup_cpu_ms)
	el=$(events_of "$g/load.qtrace")
	note "  footprint: $(( (cl - sl) * 1000000 / el )) ns of recorder CPU per event ($cl - $sl ms" \
		"for $el events; start-up $sl ms); memory beside the kernel buffer:" \
		"$(run_field "$g/runs.json" load anon_kb) kB allocated (32 MB buffer)," \
		"$(run_field "$g/runs.json" load1m anon_kb) kB (1 MB buffer)"
}

# ---- the matrix ----

# The x86_64 guests run on one host thread (-accel tcg,thread=single). With
# QEMU's multi-threaded TCG, Debian's 6.1 amd64 kernel locked up within a
# few recordings (soft lockups in 4 of 6 runs of the plan on 2026-11-27;
# a shorter plan of 5 recordings passed): gdb on QEMU's stub found both
# vCPUs taking the int3 at syscall_trace_enter+0xe9 again and again, the
# breakpoint that x86's text_poke_bp() puts on the sys_enter tracepoint's
# static branch while it flips it (attaching or detaching a program there);
# the same plan on one TCG thread, where a code write is seen by the other
# vCPU at once, ran to its end. The arm64 guests patch with
# stop_machine and never locked up. A kernel on real hardware does not
# depend on an emulator's view of cross-modified code; this machine's
# 6.18 x86_64 kernel takes the same attach and detach in every test.
X86_TCG=(-accel tcg,thread=single)

IFS=, read -r -a want <<< "$guests"
build() { make --no-print-directory -j"$(nproc)" "$@" >/dev/null; }
built=" "	# the cross builds made by this run: only those read back

build
backs=$(backends)
note "== attach paths forced in each guest: ${backs:-none (record has no --backend: the one path it has)}"
for guest in "${want[@]}"; do
	case $guest in
	arm64)
		build ARCH=arm64
		built+="arm64 "
		run_guest arm64 build/arm64 aarch64-linux-gnu- "$(debian_kernel arm64 arm64)" \
			qemu-system-aarch64 -M virt -cpu cortex-a72 ;;
	amd64)
		build static
		run_guest amd64 build/static "" "$(debian_kernel amd64 amd64)" qemu-system-x86_64 -M pc -cpu max "${X86_TCG[@]}" ;;
	nobtf)
		build static
		k=$(scripts/vm/build-kernel.sh scripts/vm/kernel-nobtf.config x86_64)
		run_guest nobtf build/static "" "$k/image" qemu-system-x86_64 -M pc -cpu max "${X86_TCG[@]}" ;;
	armhf)
		build ARCH=arm
		built+="arm "
		run_guest armhf build/arm arm-linux-gnueabihf- "$(debian_kernel armhf armmp)" \
			qemu-system-arm -M virt -cpu cortex-a15 ;;
	armbtf)
		build ARCH=arm
		built+="arm "
		k=$(scripts/vm/build-kernel.sh scripts/vm/kernel-btf-arm.config arm)
		run_guest armbtf build/arm arm-linux-gnueabihf- "$k/image" qemu-system-arm -M virt -cpu cortex-a15 ;;
	*) echo "vm-test.sh: unknown guest $guest" >&2; exit 2 ;;
	esac
done

# The same static workload recorded here, against the arm64 guest's.
if [ -r "$out/arm64/wl.qtrace" ]; then
	build static
	mkdir -p "$out/host"
	# This machine is shared: another's burst of millions of events a second
	# can overflow the buffer, and a file with losses compares with nothing.
	for try in 1 2 3; do
		build/static/qostrace record -q --force -o "$out/host/wl.qtrace" -- \
			build/static/workloads/qt_workload -n 100 -l "$out/host/wl.log"
		lost=$(build/qostrace report --json -q "$out/host/wl.qtrace" |
			python3 -c 'import json, sys; print(json.load(sys.stdin)["trace"]["lost_events"])')
		[ "$lost" = 0 ] && break
		note "  (this machine's recording lost $lost events to others' load: recorded again)"
	done
	note "== the arm64 guest's qt_workload against this machine's ($(uname -r))"
	python3 scripts/vm/check.py compare build/qostrace "$out/arm64/wl.qtrace" "$out/host/wl.qtrace" \
		> "$out/compare.txt" 2>&1 || failed=1
	tee -a "$summary" < "$out/compare.txt"
fi
# Read back: the arm64 and armhf builds (under qemu-user) report every
# trace of the run, the guests' and this machine's, as the x86_64 build does:
# text, info and Perfetto export byte for byte, JSON but for elapsed times;
# where either build's pattern search ran out of its time budget (5 s,
# which an emulated build spends on less of the search), both without what
# the search found.
mkdir -p "$out/all"
for f in "$out"/*/*.qtrace; do
	[ -e "$f" ] && [ "$(dirname "$f")" != "$out/all" ] && cp "$f" "$out/all/$(basename "$(dirname "$f")")-$(basename "$f")"
done
for b in arm64:qemu-aarch64 arm:qemu-arm; do
	[[ $built == *" ${b%%:*} "* ]] && [ -n "$(ls "$out/all")" ] || continue
	printf '#!/bin/sh\nexec %s %s "$@"\n' "${b#*:}" "$PWD/build/${b%%:*}/qostrace" > "$out/qostrace-${b%%:*}"
	chmod +x "$out/qostrace-${b%%:*}"
	note "== the ${b%%:*} build's reports of the $(ls "$out/all" | wc -l) traces against the x86_64 build's"
	scripts/compare-reports.sh build/qostrace "$out/qostrace-${b%%:*}" "$out/all" --time-cut-patterns \
		> "$out/readback-${b%%:*}.txt" 2>&1 ||
		failed=1
	sed 's/^/  /' "$out/readback-${b%%:*}.txt" | tee -a "$summary"
done
note "== vm-test: $(( $(date +%s) - t_start )) s, $([ $failed = 0 ] && echo 'every check passed' || echo 'FAILED')"
exit $failed
