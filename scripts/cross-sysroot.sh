#!/usr/bin/env bash
# The target libraries of the cross builds (make ARCH=arm64|arm): Debian's
# -dev packages of the target architecture, which ship the static archives
# (libbpf.a, libelf.a, libz.a, libdeflate.a), unpacked into
# /var/cache/qostrace/sysroot-<arch>, where the Makefile looks for them.
# Unpacked rather than installed as multiarch packages: those must carry the
# very version of the host's copy (Multi-Arch: same), and when a security
# update reaches the host's architecture before the target's index,
# libc6-dev:arm64 cannot be installed at all (seen on 2026-11-27 with
# linux-libc-dev). The cross compilers bring their own C library.
#   scripts/cross-sysroot.sh [arm64|arm]...   (both by default; install-deps.sh --cross runs it)
set -euo pipefail
cache=${QOSTRACE_CACHE:-/var/cache/qostrace}
libs=(libbpf-dev libelf-dev zlib1g-dev libdeflate-dev)
[ $# -gt 0 ] || set -- arm64 arm
updated=0
for arch in "$@"; do
	case $arch in
	arm64) deb=arm64 ;;
	arm) deb=armhf ;;
	*) echo "cross-sysroot.sh: no recipe for $arch" >&2; exit 2 ;;
	esac
	root=$cache/sysroot-$arch
	if ! dpkg --print-foreign-architectures | grep -qx $deb; then
		dpkg --add-architecture $deb
		updated=0
	fi
	if [ $updated -eq 0 ] && ! apt-cache show "libbpf-dev:$deb" >/dev/null 2>&1; then
		echo "cross-sysroot.sh: apt-get update for $deb"
		apt-get update -q >/dev/null || echo "cross-sysroot.sh: apt-get update failed, trying the cached lists" >&2
		updated=1
	fi
	want=$(for p in "${libs[@]}"; do echo "$p $(apt-cache policy "$p:$deb" | awk '/Candidate:/ { print $2 }')"; done)
	if [ -r "$root/.packages" ] && [ "$(cat "$root/.packages")" = "$want" ]; then
		echo "cross-sysroot.sh: $root is up to date"
		continue
	fi
	echo "cross-sysroot.sh: unpacking ${libs[*]} ($deb) into $root"
	dl=$(mktemp -d)
	(cd "$dl" && apt-get download -q "${libs[@]/%/:$deb}" >/dev/null 2>"$dl.err") || { cat "$dl.err" >&2; exit 1; }
	rm -f "$dl.err"
	rm -rf "$root.tmp" && mkdir -p "$root.tmp"
	for f in "$dl"/*.deb; do
		dpkg-deb -x "$f" "$root.tmp"
	done
	rm -rf "$dl"
	echo "$want" > "$root.tmp/.packages"
	rm -rf "$root" && mv "$root.tmp" "$root"
done
