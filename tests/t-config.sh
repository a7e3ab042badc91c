#!/bin/bash
# tier: guest
# Config assertions on each built kernel's .config (every scenario of
# configs/ that is built, the debug variants too): the symbols its
# fragments set and its #CHECK# lines assert hold (check-config.sh), and
# what holds for every kernel of the suite: one RCU implementation, no
# PREEMPT_DYNAMIC, a periodic tick.  Then check-config.sh must refuse a
# .config where a #CHECK# assertion fails.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp

sym() { grep -E "^$1=" "$2" | cut -d= -f2 || echo n; }

checked=
test_kernels=$(test_kernels)
for k in $(scenarios); do
	cfg=$(kernel_obj "$k")/.config
	if [ ! -f "$cfg" ]; then
		# The default kernels must be built; a variant only when named.
		case " $test_kernels " in *" $k "*) fail "$k: no .config (build failed?)" ;; esac
		continue
	fi
	"$RB_TOP/workloads/check-config.sh" "$k" "$cfg"
	[ "$(sym CONFIG_PREEMPT_DYNAMIC "$cfg")" = n ] || fail "$k: PREEMPT_DYNAMIC set"
	[ "$(sym CONFIG_HZ_PERIODIC "$cfg")" = y ] || fail "$k: not HZ_PERIODIC"
	impl=
	for s in CLASSIC_RCU PREEMPT_RCU TREE_RCU TINY_RCU; do
		[ "$(sym CONFIG_$s "$cfg")" = n ] || impl="$impl $s"
	done
	[ "$(wc -w <<<"$impl")" = 1 ] || fail "$k: RCU implementations:${impl:- none}"
	checks=$(kernel_fragments "$k" | xargs cat | grep -c '^#CHECK#' || true)
	echo "ok: $k:$impl, PREEMPT=$(sym CONFIG_PREEMPT "$cfg")," \
		"PROVE_LOCKING=$(sym CONFIG_PROVE_LOCKING "$cfg"), its fragments and $checks #CHECK# lines hold"
	checked="$checked $k"
done
[ -n "$checked" ] || { echo "no kernel built"; exit 77; }

# Negative: flip the last #CHECK# assertion of the first checked kernel
# in a copy of its .config; check-config.sh must fail on it and name it.
k=${checked# }
k=${k%% *}
line=$(kernel_fragments "$k" | xargs cat | sed -n 's/^#CHECK#\(CONFIG_[A-Za-z0-9_]*=.*\)/\1/p' | tail -1)
[ -n "$line" ] || fail "$k: no #CHECK# line in its fragments"
s=${line%%=*}
grep -v -E "^(# )?${s}[= ]" "$(kernel_obj "$k")/.config" >"$tmp/config"
if [ "${line#*=}" = n ]; then echo "$s=y" >>"$tmp/config"; fi
if err=$("$RB_TOP/workloads/check-config.sh" "$k" "$tmp/config" 2>&1); then
	fail "$k: check-config.sh accepted a .config that breaks '#CHECK#$line'"
fi
grep -q "$s" <<<"$err" || fail "$k: check-config.sh failed without naming $s: $err"
echo "ok: check-config.sh refuses $k's .config with #CHECK#$line broken"
