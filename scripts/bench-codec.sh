#!/usr/bin/env bash
# Trace file encoding: bytes per record and throughput of encode+compress+write
# and read+inflate+decode, on a realistic record mix (tests/bench/bench_codec.c),
# at zlib levels 1 (the recorder's default) and 6.
#   scripts/bench-codec.sh [RECORDS] [DIR]      default: 2000000 /tmp
set -eu
cd "$(dirname "$0")/.."
n=${1:-2000000}
dir=${2:-/tmp}
make -s bench-progs >/dev/null
printf '%-6s %-8s %-8s %-8s %-11s %-9s %-11s %-9s %-11s %-9s %-11s %-9s\n' \
	zlevel raw_B/r pack_B/r file_B/r encode_r/s enc_MB/s write_r/s wr_MB/s \
	read_r/s rd_MB/s load_r/s load_MB/s
for z in 1 6; do
	line=$(build/bench/bench_codec "$n" "$z" "$dir")
	get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $line"; }
	printf '%-6s %-8s %-8s %-8s %-11s %-9s %-11s %-9s %-11s %-9s %-11s %-9s\n' \
		"$z" "$(get raw_B_per_rec)" "$(get packed_B_per_rec)" "$(get file_B_per_rec)" \
		"$(get encode_rec_per_s)" "$(get encode_MB_per_s)" \
		"$(get write_rec_per_s)" "$(get write_MB_per_s)" \
		"$(get read_rec_per_s)" "$(get read_MB_per_s)" \
		"$(get load_rec_per_s)" "$(get load_MB_per_s)"
	echo "  $line"
done
echo "MB/s are of raw records (the kernel's sizes); write = encode + zlib + write(2) to the page cache,"
echo "read = read(2) + crc + inflate + decode, load = trace__load (read + arrays per record type)."
