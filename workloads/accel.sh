#!/bin/bash
# accel.sh: print the QEMU accelerator the suite uses here, "kvm" or "tcg".
#
# KVM is used only when a probe boot under -accel kvm actually finishes:
# on our machines /dev/kvm exists but guests abort or hang under it.  The
# verdict is cached per host kernel and QEMU version; RB_ACCEL=kvm|tcg
# overrides the probe.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

case "${RB_ACCEL:-}" in
kvm | tcg) echo "$RB_ACCEL"; exit 0 ;;
'') ;;
*) die "RB_ACCEL must be kvm or tcg, got '$RB_ACCEL'" ;;
esac

cache=$RB_CACHE/accel.verdict
key="$(uname -r) $(qemu-system-x86_64 --version | head -1)"
if [ -f "$cache" ] && [ "$(head -1 "$cache")" = "$key" ]; then
	sed -n 2p "$cache"
	exit 0
fi

probe() {
	local bz
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || { echo "no usable /dev/kvm"; return 1; }
	bz=$(ls "$RB_CACHE"/obj/*/arch/x86/boot/bzImage 2>/dev/null | head -1)
	[ -n "$bz" ] || { echo "no built kernel to probe with"; return 2; }
	# A probe boot: the kernel must reach the (missing) init and panic
	# cleanly within 60 s; an abort, hang or crash before that fails it.
	if timeout 60 qemu-system-x86_64 -accel kvm -cpu host -smp 2 -m 256 \
		-nographic -no-reboot -monitor none -kernel "$bz" \
		-append "console=ttyS0 panic=-1 rdinit=/rb-no-init" </dev/null 2>&1 |
		grep -q 'No working init found\|Kernel panic - not syncing'; then
		echo "probe boot under KVM passed"
		return 0
	fi
	echo "probe boot under KVM failed (abort, hang or crash)"
	return 1
}

mkdir -p "$RB_CACHE"
if why=$(probe); then
	verdict=kvm
else
	rc=$?
	verdict=tcg
	# Without a kernel there was nothing to probe: do not cache that.
	if [ $rc -eq 2 ]; then
		note "accelerator: tcg (multi-threaded), KVM not probed: $why"
		echo tcg
		exit 0
	fi
fi
printf '%s\n%s\n%s\n' "$key" "$verdict" "$why" >"$cache"
note "accelerator: $verdict ($why)"
echo "$verdict"
