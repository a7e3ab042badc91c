#!/bin/bash
# shell.sh: `make shell`, an interactive guest of the suite on this terminal.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

usage() {
	cat <<USAGE
usage: workloads/shell.sh --kernel NAME [--vcpus N] [--plugin] [--append ARGS]

Boots kernel NAME (configs/NAME/) with N vCPUs (default 2) under QEMU with a
busybox shell on this terminal: perf, the kernel's modules (rcutorture,
refscale, rcuscale) and rcubench.ko in /modules.  'poweroff' or 'exit'
ends the session (the guest powers off, QEMU exits); Ctrl-A x kills QEMU.
A kernel that is not built yet is built first, as make bench does.
--plugin loads the rbcount TCG plugin (counts of marked windows in
\$RB_CACHE/shell/NAME-N/results/counts.csv).  The console log is kept in
\$RB_CACHE/shell/NAME-N/console.log.
USAGE
}

kernel='' vcpus=2 plugin=() append=''
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=${2:-}; shift ;;
	--vcpus) vcpus=${2:-}; shift ;;
	--plugin) plugin=(--plugin) ;;
	--append) append=${2:-}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option '$1'" ;;
	esac
	shift
done
[ -n "$kernel" ] || { usage >&2; die "no kernel given (KERNEL=NAME; kernels: $(scenarios | tr '\n' ' '))"; }
check_kernel "$kernel"
check_vcpus "$vcpus"
{ [ -t 0 ] && [ -t 1 ]; } || die "make shell needs a terminal on stdin and stdout"
need_tool qemu-system-x86_64 make

if [ ! -f "$(kernel_bzimage "$kernel")" ]; then
	note "shell: kernel $kernel is not built: building it (about 8 min)"
	"$RB_TOP/workloads/build-kernels.sh" "$kernel" || die "kernel $kernel does not build"
fi
bench_module "$kernel" >/dev/null
out=$RB_CACHE/shell/$kernel-$vcpus
exec "$RB_TOP/workloads/boot.sh" --kernel "$kernel" --vcpus "$vcpus" --interactive \
	--job "$RB_TOP/workloads/guest/jobs/shell.sh" --out "$out" "${plugin[@]}" \
	${append:+--append "$append"}
