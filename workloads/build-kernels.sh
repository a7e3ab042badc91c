#!/bin/bash
# Build the suite's kernels from one patched 6.1 tree.
#
#   workloads/build-kernels.sh [KERNEL...]     (default: suite.conf KERNELS;
#                                               the other scenarios of configs/,
#                                               the debug variants, when named)
#
# The Debian linux-source tarball is unpacked once into $RB_CACHE/pristine.
# patches/series is applied to a fresh copy, which is then synced with
# --checksum into the persistent tree $RB_CACHE/src/linux: files a patch
# did not change keep their timestamps, so a changed patch rebuilds only
# what it touches.  Each kernel builds in its own O= directory
# $RB_CACHE/obj/<kernel>, keyed by the series and its config fragments
# (scripts/lib.sh series_key, kernel_key); a kernel whose key is unchanged
# is not rebuilt.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

JOBS=${JOBS:-$(nproc)}
SRC=$RB_CACHE/src/linux
PRISTINE=$RB_CACHE/pristine

unpack_pristine() {
	local tarball stamp
	tarball=${RB_LINUX_SOURCE:-$(conf_get LINUX_SOURCE)}
	[ -r "$tarball" ] ||
		die "missing $tarball (package linux-source-6.1): run 'make deps' first"
	stamp=$(stat -c '%s-%Y' "$tarball")
	if [ "$(cat "$PRISTINE/.stamp" 2>/dev/null)" = "$stamp" ]; then
		return 0
	fi
	note "unpacking $tarball"
	rm -rf "$PRISTINE.new"
	mkdir -p "$PRISTINE.new"
	tar -C "$PRISTINE.new" -xf "$tarball"
	rm -rf "$PRISTINE"
	mv "$PRISTINE.new" "$PRISTINE"
	echo "$stamp" >"$PRISTINE/.stamp"
}

prepare_source() {
	local key stage p
	key=$(series_key)
	if [ -f "$SRC/Makefile" ] && [ "$(cat "$RB_CACHE/src/.series-key" 2>/dev/null)" = "$key" ]; then
		note "source tree up to date (series $key)"
		return 0
	fi
	unpack_pristine
	stage=$RB_CACHE/src/stage
	rm -rf "$stage"
	mkdir -p "$stage"
	cp -a "$PRISTINE/linux-source-6.1/." "$stage/"
	for p in $(grep -v '^#' "$RB_TOP/patches/series" 2>/dev/null); do
		[ -f "$RB_TOP/patches/$p" ] || die "patches/series names missing patch $p"
		note "applying $p"
		patch -d "$stage" -p1 --forward --batch --quiet <"$RB_TOP/patches/$p" >"$RB_CACHE/src/patch.log" 2>&1 || {
			cat "$RB_CACHE/src/patch.log" >&2
			die "patch $p does not apply"
		}
	done
	mkdir -p "$SRC"
	# No -t: a file whose content is unchanged keeps its old time stamp,
	# else every source would look newer than its object and each kernel
	# would rebuild from scratch after any patch change.
	rsync -rlp --checksum --delete "$stage/" "$SRC/"
	rm -rf "$stage"
	echo "$key" >"$RB_CACHE/src/.series-key"
	note "source tree ready (series $key)"
}

# configure_kernel SRC OBJ NAME: tinyconfig + NAME's fragments
# (configs/base.config, then its scenario's: scripts/lib.sh
# kernel_fragments), checked (workloads/check-config.sh).
configure_kernel() {
	local src=$1 obj=$2 name=$3
	local frags
	mapfile -t frags < <(kernel_fragments "$name")
	mkdir -p "$obj"
	make -s -C "$src" O="$obj" tinyconfig >/dev/null
	(cd "$src" && KCONFIG_CONFIG="$obj/.config" scripts/kconfig/merge_config.sh -m -O "$obj" \
		"$obj/.config" "${frags[@]}") >"$obj/merge.log" 2>&1 ||
		{ cat "$obj/merge.log" >&2; die "merge_config failed for $name"; }
	make -s -C "$src" O="$obj" olddefconfig >/dev/null
	"$RB_TOP/workloads/check-config.sh" "$name" "$obj/.config"
}

build_kernel() {
	local name=$1 obj key start
	obj=$(kernel_obj "$name")
	key=$(kernel_key "$name")
	if [ -f "$(kernel_bzimage "$name")" ] && [ "$(kernel_built_key "$name")" = "$key" ]; then
		note "kernel $name up to date ($key)"
		return 0
	fi
	start=$(date +%s)
	note "building kernel $name ($key) in $obj"
	rm -f "$obj/.rb-key"
	# Configure in a scratch O= dir and keep $obj/.config (and its time
	# stamp) when the result is the same, so a rebuild after a patch
	# change starts from an untouched configuration.
	rm -rf "$obj.cfg" && configure_kernel "$SRC" "$obj.cfg" "$name"
	mkdir -p "$obj"
	cmp -s "$obj.cfg/.config" "$obj/.config" || cp "$obj.cfg/.config" "$obj/.config"
	rm -rf "$obj.cfg"
	if ! make -C "$SRC" O="$obj" -j"$JOBS" bzImage modules >"$obj/build.log" 2>&1; then
		grep -E 'error|Error' "$obj/build.log" | head -20 >&2
		die "build of kernel $name failed; full log: $obj/build.log"
	fi
	echo "$key" >"$obj/.rb-key"
	note "kernel $name built in $(($(date +%s) - start)) s"
}

main() {
	local k kernels
	need_tool make gcc flex bison bc rsync patch
	kernels=${*:-${KERNELS:-$(conf_get KERNELS)}}
	for k in $kernels; do
		check_kernel "$k"
	done
	mkdir -p "$RB_CACHE/src" "$RB_CACHE/obj"
	prepare_source
	for k in $kernels; do
		build_kernel "$k"
	done
}

if [ "${1:-}" = "--configure" ]; then
	# Used by patch developers: configure_kernel on their own tree.
	shift
	[ $# -eq 3 ] || die "usage: $0 --configure SRC OBJ KERNEL"
	check_kernel "$3"
	configure_kernel "$@"
	exit 0
fi
main "$@"
