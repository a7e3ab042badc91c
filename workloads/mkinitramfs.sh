#!/bin/bash
# mkinitramfs.sh OUT.cpio: the guest base initramfs shared by all kernels:
# busybox (static), perf with its shared libraries, rbstat and rb-pathwalk
# (workloads/rbstat, built static here) and workloads/guest/init.
# Modules and the job are appended per boot by boot.sh (the kernel accepts
# concatenated cpio archives).  Rebuilt only when an input changes.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

[ $# -eq 1 ] || die "usage: $0 OUT.cpio"
out=$1
need_tool busybox cpio perf ldd gcc
busybox_bin=$(command -v busybox)
file -L "$busybox_bin" | grep -q 'statically linked' ||
	die "$busybox_bin is not static: install busybox-static ('make deps')"
perf_bin=$(readlink -f "$(command -v perf)")

rbstat_src=("$RB_TOP/workloads/rbstat/rbstat.c" "$RB_TOP/bench-module/rb_marker.h"
	"$RB_TOP/workloads/rbstat/pathwalk.c")
key=$(cat "$RB_TOP/workloads/guest/init" "$0" "${rbstat_src[@]}" | sha256sum | cut -c1-16)
key=$key-$(stat -c '%Y' "$busybox_bin" "$perf_bin" | tr '\n' '-')
if [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,proc,sys,dev,tmp,modules,results,lib64}
cp "$busybox_bin" "$root/bin/busybox"
cp "$RB_TOP/workloads/guest/init" "$root/init"
chmod +x "$root/init"
cp "$perf_bin" "$root/usr/bin/perf"
gcc -static -O2 -Wall -Wextra -Werror -I"$RB_TOP/bench-module" -o "$root/usr/bin/rbstat" \
	"${rbstat_src[0]}" || die "rbstat does not build (gcc -static: libc6-dev)"
gcc -static -O2 -Wall -Wextra -Werror -o "$root/usr/bin/rb-pathwalk" "${rbstat_src[2]}" ||
	die "rb-pathwalk does not build"
# The shared libraries perf needs, at the paths the dynamic loader expects.
ldd "$perf_bin" | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }' | while read -r lib; do
	[ -f "$lib" ] || continue
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
(cd "$root" && find . | cpio -o -H newc --quiet) >"$out.tmp"
mv -f "$out.tmp" "$out"
echo "$key" >"$out.key"
note "guest initramfs $out ($(du -h "$out" | cut -f1))"
