#!/bin/bash
# check-config.sh KERNEL DOTCONFIG: every symbol that KERNEL's config
# fragments (configs/base.config, configs/KERNEL.config, and
# configs/debug.config for a debug variant) ask for must hold in DOTCONFIG.
# Kconfig silently drops symbols whose dependencies fail; this makes that
# loud.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

[ $# -eq 2 ] || die "usage: $0 KERNEL DOTCONFIG"
name=$1
dotconfig=$2
[ -r "$dotconfig" ] || die "no such config: $dotconfig"

bad=0
while read -r line; do
	case "$line" in
	CONFIG_*=*)
		sym=${line%%=*}
		want=${line#*=}
		;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym%% *}
		want=n
		;;
	*) continue ;;
	esac
	got=$(grep -E "^$sym=" "$dotconfig" | head -1 | cut -d= -f2- || true)
	[ -n "$got" ] || got=n
	if [ "$got" != "$want" ]; then
		echo "rcu-bench: config $name: $sym=$got, fragment wants $want" >&2
		bad=1
	fi
done < <(kernel_fragments "$name" | xargs cat)
[ $bad -eq 0 ] || die "kernel $name: Kconfig dropped symbols the fragments ask for"
