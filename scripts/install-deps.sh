#!/usr/bin/env bash
# Installs the Debian 12 packages qostrace needs to build, test and benchmark.
#   scripts/install-deps.sh          build + test dependencies
#   scripts/install-deps.sh --bench  also the tools the benchmarks compare against
#   scripts/install-deps.sh --html   also Chromium, for the HTML report test
set -euo pipefail

pkgs=(make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev
      libcriterion-dev python3 linux-perf stress-ng)
for arg in "$@"; do
	case "$arg" in
	--bench) pkgs+=(trace-cmd bpftrace hyperfine valgrind time) ;;
	--html) pkgs+=(chromium) ;;
	--fuzz) pkgs+=(libclang-rt-14-dev) ;;
	--all) pkgs+=(trace-cmd bpftrace hyperfine valgrind time chromium libclang-rt-14-dev) ;;
	-h|--help) sed -n '2,6p' "$0"; exit 0 ;;
	*) echo "install-deps.sh: unknown option '$arg'" >&2; exit 2 ;;
	esac
done

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps.sh: all ${#pkgs[@]} packages present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: need root to install: ${missing[*]}" >&2
	exit 1
fi
echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || echo "install-deps.sh: apt-get update failed, trying the cached lists" >&2
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
