#!/bin/bash
# deps.sh: install, with apt-get, every Debian package the suite needs.
# Idempotent and quiet when everything is already there.
set -euo pipefail

PACKAGES=(
	linux-source-6.1 gcc make bc flex bison libelf-dev libssl-dev
	cpio busybox-static qemu-system-x86 linux-perf kmod rsync patch
	xz-utils file procps python3 python3-matplotlib python3-numpy
	gnuplot-nox liburcu-dev spin
)

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0

echo "rcu-bench: installing ${missing[*]}" >&2
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "rcu-bench: dependencies installed" >&2
