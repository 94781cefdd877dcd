#!/usr/bin/env bash
# Builds a guest kernel for scripts/vm-test.sh from Debian's linux-source-6.1:
# `make tinyconfig`, then a config fragment of ours, at the lowest priority.
# The result is cached outside the tree, keyed by the fragment, the
# architecture and the source package's version, and rebuilt only when
# missing:
#   scripts/vm/build-kernel.sh FRAGMENT [ARCH]   prints the cache directory
# which holds image (to boot), vmlinux and config. ARCH is the kernel's:
# x86_64 (native) or arm (armhf, cross). About 6 minutes here.
set -euo pipefail
frag=$(realpath "$1")
arch=${2:-x86_64}
cache=${QOSTRACE_CACHE:-/var/cache/qostrace}
src=/usr/src/linux-source-6.1.tar.xz
[ -r "$src" ] || { echo "build-kernel.sh: $src is missing (apt-get install linux-source-6.1)" >&2; exit 1; }
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( { cat "$frag"; echo "$ver $arch"; } | sha256sum | cut -c1-16)
out=$cache/kernel-$key
case $arch in
x86_64) image=arch/x86/boot/bzImage target=bzImage cross= ;;
arm) image=arch/arm/boot/zImage target=zImage cross=arm-linux-gnueabihf- ;;
*) echo "build-kernel.sh: no recipe for $arch" >&2; exit 2 ;;
esac
if [ -r "$out/image" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$cache"
work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "build-kernel.sh: building $(basename "$frag") for $arch ($ver) in $work, log in $out.log" >&2
start=$(date +%s)
(
	tar -C "$work" -xf "$src"
	cd "$work"/linux-source-6.1
	make ARCH="$arch" CROSS_COMPILE="$cross" tinyconfig
	scripts/kconfig/merge_config.sh -m .config "$frag"
	make ARCH="$arch" CROSS_COMPILE="$cross" olddefconfig
	# merge_config only warns when Kconfig drops an option: a guest without
	# BPF or tracepoints would test nothing, so that is an error here.
	missing=$(grep -E '^CONFIG_[A-Z0-9_]+=y' "$frag" | while read -r l; do grep -qx "$l" .config || echo "$l"; done)
	if [ -n "$missing" ]; then
		echo "build-kernel.sh: the kernel's Kconfig dropped:" $missing >&2
		exit 1
	fi
	nice -n 19 make ARCH="$arch" CROSS_COMPILE="$cross" -j"$(nproc)" "$target" vmlinux
) > "$out.log" 2>&1 || { echo "build-kernel.sh: failed, see $out.log" >&2; tail -5 "$out.log" >&2; exit 1; }
mkdir -p "$out.tmp"
cp "$work/linux-source-6.1/$image" "$out.tmp/image"
cp "$work/linux-source-6.1/vmlinux" "$out.tmp/vmlinux"
cp "$work/linux-source-6.1/.config" "$out.tmp/config"
mv "$out.log" "$out.tmp/build.log"
rm -rf "$out" && mv "$out.tmp" "$out"
echo "build-kernel.sh: built in $(( $(date +%s) - start )) s" >&2
echo "$out"
