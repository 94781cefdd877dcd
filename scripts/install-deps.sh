#!/usr/bin/env bash
# Installs the Debian 12 packages qostrace needs to build, test and benchmark.
#   scripts/install-deps.sh           build + test dependencies, and what the view tests
#                                     use (Chromium, tests/views' npm packages) if it can
#   scripts/install-deps.sh --views   the same, but failing to get the view tests' tools
#                                     is an error (--html is the same)
#   scripts/install-deps.sh --no-views  leave the view tests' tools out (they SKIP)
#   scripts/install-deps.sh --bench   also the tools the benchmarks compare against
#   scripts/install-deps.sh --fuzz    also the libFuzzer runtime
#   scripts/install-deps.sh --cross   also what make ARCH=arm64|arm builds with: Debian's
#                                     cross compilers and the targets' static libraries
#   scripts/install-deps.sh --vm      --cross, and what make vm-test runs: QEMU (system
#                                     and user), linux-source-6.1 and what builds its kernels
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev libdeflate-dev
      libcriterion-dev libjemalloc-dev python3 python3-jsonschema linux-perf stress-ng
      gstreamer1.0-tools gstreamer1.0-plugins-base)
# The HTML report is checked in Debian's Chromium (no browser is downloaded);
# Node and npm come with the machine, Debian's are the fallback.
view_pkgs=(chromium)
command -v npm >/dev/null || view_pkgs+=(nodejs npm)
views=auto
cross=no
vm=no
for arg in "$@"; do
	case "$arg" in
	--bench) pkgs+=(trace-cmd bpftrace hyperfine valgrind time) ;;
	--views|--html) views=required ;;
	--no-views) views=no ;;
	--fuzz) pkgs+=(libclang-rt-14-dev) ;;
	--cross) cross=yes ;;
	--vm|--field) cross=yes; vm=yes ;;
	--all) pkgs+=(trace-cmd bpftrace hyperfine valgrind time libclang-rt-14-dev); views=required ;;
	-h|--help) sed -n '2,13p' "$0"; exit 0 ;;
	*) echo "install-deps.sh: unknown option '$arg'" >&2; exit 2 ;;
	esac
done

missing_of() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
	done
}

apt_updated=0
apt_install() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps.sh: need root to install: $*" >&2
		return 1
	fi
	echo "install-deps.sh: installing $*"
	export DEBIAN_FRONTEND=noninteractive
	if [ $apt_updated -eq 0 ]; then
		# A mirror caught mid-sync fails one index ("File has unexpected
		# size"), often an added architecture's: it passes a little later.
		for try in 1 2 3; do
			apt-get update -q >/dev/null && break
			if [ $try -eq 3 ]; then
				echo "install-deps.sh: apt-get update failed 3 times, trying the cached lists" >&2
			else
				echo "install-deps.sh: apt-get update failed, again in 20 s" >&2
				sleep 20
			fi
		done
		apt_updated=1
	fi
	apt-get install -y -q --no-install-recommends "$@" >/dev/null
}

[ $cross = yes ] && pkgs+=(gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf libc6-dev-arm64-cross libc6-dev-armhf-cross)
[ $vm = yes ] && pkgs+=(qemu-system-arm qemu-system-x86 qemu-user linux-source-6.1 flex bison bc dwarves cpio)
mapfile -t missing < <(missing_of "${pkgs[@]}")
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps.sh: all ${#pkgs[@]} packages present"
else
	apt_install "${missing[@]}"
fi
[ $cross = yes ] && scripts/cross-sysroot.sh

[ $views = no ] && exit 0

# The view tests: a failure here only makes them SKIP, unless --views asked for them.
views_failed() {
	if [ $views = required ]; then
		echo "install-deps.sh: $1" >&2
		exit 1
	fi
	echo "install-deps.sh: warning: $1: the HTML and Perfetto tests will be SKIPPED" >&2
	exit 0
}
mapfile -t missing < <(missing_of "${view_pkgs[@]}")
if [ ${#missing[@]} -gt 0 ]; then
	apt_install "${missing[@]}" || views_failed "could not install ${missing[*]}"
fi
# The npm packages of tests/views, at the versions of its package-lock.json.
if [ -d tests/views/node_modules/playwright-core ] && [ -d tests/views/node_modules/@paulirish/trace_engine ] &&
   [ tests/views/node_modules/.package-lock.json -nt tests/views/package-lock.json ]; then
	echo "install-deps.sh: tests/views/node_modules is up to date"
else
	echo "install-deps.sh: npm ci in tests/views"
	(cd tests/views && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error) ||
		views_failed "npm ci in tests/views failed"
fi
