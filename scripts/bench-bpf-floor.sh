#!/usr/bin/env bash
# Where the recording cost goes on this machine: perf bench sched pipe under
# the recorder built with its programs (the tp_btf path: sched_switch and
# the wake-ups) reduced to (1) returning at once, (2) reserving and
# submitting an empty record, (3) the same with a timestamp, (4) the
# timestamped record staged in a per-CPU buffer that goes out in one
# bpf_ringbuf_output() each 4 KB (what batching the records would cost at
# best: no flush timer, no interrupt nesting), and (0) the real programs.
# Interleaved rounds, medians.
#   scripts/bench-bpf-floor.sh [ROUNDS]        (as root)
# It builds a throw-away copy of the tree in /tmp with an experiment knob.
# Results: scripts/results/bench-bpf-floor.txt
set -u
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
EXP=$(mktemp -d /tmp/qostrace-floor-XXXXXX)
trap 'rm -rf "$EXP"' EXIT
git ls-files | tar -cf - -T - | tar -xf - -C "$EXP"
python3 - "$EXP" <<'PY' || exit 1
import sys
d = sys.argv[1]

def patch(path, old, new, count=1):
    p = d + "/" + path
    s = open(p).read()
    if s.count(old) < 1:
        sys.exit("bench-bpf-floor.sh: %s no longer has %r: update the patch" % (path, old))
    open(p, "w").write(s.replace(old, new, count))

patch("bpf/common.bpf.h", "char LICENSE[] SEC(\"license\") = \"Dual MIT/GPL\";", """char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 exp_mode = 0;

#define EXP_STAGE 4096
struct exp_stage {
	__u32 len;
	__u8 buf[EXP_STAGE + 128];
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct exp_stage);
} exp_stage SEC(".maps");""")

stub = """
	if (exp_mode == 1)
		return 0;
	if (exp_mode == 2 || exp_mode == 3) {
		struct qt_switch *x = bpf_ringbuf_reserve(&events, sizeof(*x), 0);

		if (x) {
			if (exp_mode == 3)
				x->h.ts = bpf_ktime_get_ns();
			bpf_ringbuf_submit(x, BPF_RB_NO_WAKEUP);
		}
		return 0;
	}
	if (exp_mode == 4) {
		__u32 zero = 0, off;
		struct exp_stage *s = bpf_map_lookup_elem(&exp_stage, &zero);
		struct qt_switch *x;

		if (!s)
			return 0;
		off = s->len;
		if (off > EXP_STAGE - sizeof(*x)) {
			bpf_ringbuf_output(&events, s->buf, EXP_STAGE, BPF_RB_NO_WAKEUP);
			off = 0;
		}
		x = (void *)(s->buf + (off & (EXP_STAGE - 1)));
		x->h.ts = bpf_ktime_get_ns();
		s->len = off + sizeof(*x);
		return 0;
	}
"""
patch("bpf/tp_btf.bpf.h", "\tstruct qt_switch *r;\n", "\tstruct qt_switch *r;\n" + stub)
patch("bpf/tp_btf.bpf.h", "\tstruct qt_wakeup *r;\n", "\tstruct qt_wakeup *r;\n" + stub)
patch("src/record/backend_btf.c", "#include <errno.h>", "#include <errno.h>\n#include <stdlib.h>")
patch("src/record/backend_btf.c", "\tskel->rodata->knobs = o->knobs;",
      "\tskel->rodata->knobs = o->knobs;\n\tskel->rodata->exp_mode = getenv(\"QT_EXP\") ? atoi(getenv(\"QT_EXP\")) : 0;")
PY
make -s -C "$EXP" >/dev/null || exit 1
pipe() { taskset -c 1 perf bench sched pipe -l "$1" | awk '/ops\/sec/ { print $1 }'; }
# under VARIANT CMD...: CMD's output while the recorder of VARIANT runs.
under() {
	local m=$1 p
	shift
	QT_EXP=$m "$EXP/build/qostrace" record -q -a --no-syscalls -o "$EXP/x.qtrace" --force -d 60 >/dev/null & p=$!
	sleep 1.2
	"$@"
	kill -INT $p; wait $p
}
# The switch program's ns per run, as the kernel counts them, after a pipe run.
pipe_then_switch_ns() {
	pipe 100000 >/dev/null
	bpftool prog show --json 2>/dev/null | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    if p.get("name") == "on_switch" and p.get("run_cnt"):
        print("%.1f" % (p["run_time_ns"] / p["run_cnt"]))'
}
median() { tr ' ' '\n' | sort -n | awk 'NF { v[++n] = $1 } END { if (n) print v[int((n + 1) / 2)] }'; }

declare -A r
for round in $(seq "$ROUNDS"); do
	for m in none 1 2 3 4 0; do
		if [ "$m" = none ]; then
			v=$(pipe 200000)
		else
			v=$(under "$m" pipe 200000)
		fi
		r[$m]="${r[$m]:-} $v"
	done
done
# The kernel's own count of each variant's cost per sched_switch run
# (kernel.bpf_stats_enabled, which adds its own clock reads to every run).
declare -A ns
sysctl -q kernel.bpf_stats_enabled=1
for round in $(seq "$ROUNDS"); do
	for m in 1 2 3 4 0; do
		ns[$m]="${ns[$m]:-} $(under "$m" pipe_then_switch_ns)"
	done
done
sysctl -q kernel.bpf_stats_enabled=0
{
echo "# scripts/bench-bpf-floor.sh $ROUNDS, $(date -u +%Y-%m-%dT%H:%MZ), $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# perf bench sched pipe -l 200000 on CPU 1 under qostrace record -a --no-syscalls with its programs cut down; medians of $ROUNDS interleaved rounds;"
echo "# on_switch: the kernel's ns per run of the switch program (kernel.bpf_stats_enabled), median of $ROUNDS rounds of -l 100000"
base=$(echo ${r[none]} | median)
for m in none 1 2 3 4 0; do
	case $m in none) what="no tracer" ;; 1) what="programs return at once" ;; 2) what="+ reserve/submit" ;;
	3) what="+ timestamp" ;; 4) what="staged per CPU, 4 KB out" ;; 0) what="the real programs" ;; esac
	med=$(echo ${r[$m]} | median)
	n=$(echo ${ns[$m]:-} | median)
	awk -v w="$what" -v m="$med" -v b="$base" -v n="$n" \
		'BEGIN { printf "%-26s %8d ops/s  %5.1f%% slower%s\n", w, m, 100 * (1 - m / b), n == "" ? "" : sprintf("   on_switch %s ns/run", n) }'
done
} | tee scripts/results/bench-bpf-floor.txt
