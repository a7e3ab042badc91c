#!/bin/bash
# check-config.sh KERNEL DOTCONFIG: every symbol that KERNEL's config
# fragments (scripts/lib.sh kernel_fragments: configs/base.config, then its
# scenario's) set, and every symbol a #CHECK# line of them asserts
# ("#CHECK#CONFIG_X=y", as kvm.sh's scenarios; =n: not set), must hold in
# DOTCONFIG.  Kconfig silently drops symbols whose dependencies fail; this
# makes that loud.  Of several lines on one symbol the last counts, as in
# merge_config.sh: a later fragment overrides an earlier one.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

[ $# -eq 2 ] || die "usage: $0 KERNEL DOTCONFIG"
name=$1
dotconfig=$2
[ -r "$dotconfig" ] || die "no such config: $dotconfig"
check_kernel "$name"

# wants: "CONFIG_X=value" for each symbol the fragments set or assert, the
# last line on it, in the order of their first lines.
wants() {
	kernel_fragments "$name" | xargs cat | sed -n -E \
		-e 's/^(#CHECK#)?(CONFIG_[A-Za-z0-9_]+=.*)$/\2/p' \
		-e 's/^(#CHECK#)?# (CONFIG_[A-Za-z0-9_]+) is not set$/\2=n/p' |
		awk '{ i = index($0, "="); s = substr($0, 1, i - 1)
			if (!(s in want)) order[++n] = s
			want[s] = substr($0, i + 1) }
			END { for (j = 1; j <= n; j++) print order[j] "=" want[order[j]] }'
}

bad=0
checked=0
while IFS= read -r line; do
	sym=${line%%=*}
	want=${line#*=}
	got=$(grep -E "^$sym=" "$dotconfig" | head -1 | cut -d= -f2- || true)
	[ -n "$got" ] || got=n
	if [ "$got" != "$want" ]; then
		echo "rcu-bench: config $name: $sym=$got, its fragments want $want" >&2
		bad=1
	fi
	checked=$((checked + 1))
done < <(wants)
[ $checked -gt 0 ] || die "kernel $name: its fragments set no symbol"
[ $bad -eq 0 ] || die "kernel $name: Kconfig dropped symbols the fragments ask for"
