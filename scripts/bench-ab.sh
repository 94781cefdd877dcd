#!/usr/bin/env bash
# Two builds of qostrace side by side on the same inputs: `report --json`
# alternated ROUNDS times (old, new, old, new, ...) on each file, with the
# median wall time, user time and peak memory of each, and their ratio; then
# the instructions each executes on the first file (callgrind: the same
# count whatever else the machine does, which wall times on a shared
# machine are not).
#   scripts/bench-ab.sh OLD NEW FILE... [ROUNDS=5] [CALLGRIND=0]
# Prints one line per file; used to show that a change made nothing slower.
set -u
old=${1:?usage: scripts/bench-ab.sh OLD NEW FILE...}
new=${2:?}
shift 2
ROUNDS=${ROUNDS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-28s %9s %9s %6s  %8s %8s  %8s %8s\n' file "old s" "new s" ratio "old usr" "new usr" "old MB" "new MB"
for f in "$@"; do
	: > "$work/old"; : > "$work/new"
	for r in $(seq "$ROUNDS"); do
		for which in old new; do
			bin=$old; [ $which = new ] && bin=$new
			/usr/bin/time -f "%e %U %M" -o "$work/t" "$bin" report -q --json "$f" > /dev/null 2>&1
			cat "$work/t" >> "$work/$which"
		done
	done
	ow=$(awk '{ print $1 }' "$work/old" | median); nw=$(awk '{ print $1 }' "$work/new" | median)
	ou=$(awk '{ print $2 }' "$work/old" | median); nu=$(awk '{ print $2 }' "$work/new" | median)
	om=$(awk '{ print $3 }' "$work/old" | median); nm=$(awk '{ print $3 }' "$work/new" | median)
	awk -v f="$(basename "$f")" -v ow="$ow" -v nw="$nw" -v ou="$ou" -v nu="$nu" -v om="$om" -v nm="$nm" \
		'BEGIN { printf "%-28s %9.3f %9.3f %6.3f  %8.2f %8.2f  %8.1f %8.1f\n", f, ow, nw, nw / ow, ou, nu, om / 1024, nm / 1024 }'
done
if [ "${CALLGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
	for which in old new; do
		bin=$old; [ $which = new ] && bin=$new
		valgrind --tool=callgrind --callgrind-out-file="$work/cg.$which" "$bin" report -q --json "$1" \
			> /dev/null 2> "$work/cg.err"
		printf '%s instructions on %s: %s\n' "$which" "$(basename "$1")" \
			"$(sed -n 's/^summary: //p' "$work/cg.$which")"
	done
fi
