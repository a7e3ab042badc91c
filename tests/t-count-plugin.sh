#!/bin/bash
# tier: guest
# The rbcount TCG plugin builds with make and exports the plugin API
# version; a boot whose plugin QEMU refuses (no such file, another API
# version) fails with one clear "rcu-bench: error:" line instead of
# silently counting nothing.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp classic
need_tool nm gcc

make -s -C "$RB_TOP/workloads/tcg-plugin" PLUGIN_DIR="$tmp/build" >"$tmp/build.log" 2>&1 ||
	{ cat "$tmp/build.log"; fail "the plugin does not build"; }
syms=$(nm -D --defined-only "$tmp/build/rbcount.so")
for s in qemu_plugin_version qemu_plugin_install; do
	echo "$syms" | grep -q " $s$" || fail "rbcount.so does not export $s"
done
echo "ok: rbcount.so builds and exports the plugin entry points"

echo 'echo never runs' >"$tmp/job.sh"
RB_PLUGIN_SO=$tmp/missing.so expect_fail "a plugin that is not there" \
	"$RB_TOP/workloads/boot.sh" --kernel "$kernel" --vcpus 1 --job "$tmp/job.sh" --out "$tmp/b1" \
	--quiet --plugin

# A plugin of another API version: QEMU 7.2 refuses it at load.
printf '%s\n' '__attribute__((visibility("default"))) int qemu_plugin_version = 999;' \
	'__attribute__((visibility("default"))) int qemu_plugin_install(void) { return 0; }' >"$tmp/v999.c"
gcc -shared -fPIC -o "$tmp/v999.so" "$tmp/v999.c"
RB_PLUGIN_SO=$tmp/v999.so expect_fail "a plugin of API version 999" \
	"$RB_TOP/workloads/boot.sh" --kernel "$kernel" --vcpus 1 --job "$tmp/job.sh" --out "$tmp/b2" \
	--quiet --plugin

# A plugin boot that hangs is booted once more, then fails as a hang; the
# first boot's console is kept.
echo 'sleep 600' >"$tmp/silent.sh"
if "$RB_TOP/workloads/boot.sh" --kernel "$kernel" --vcpus 1 --job "$tmp/silent.sh" --out "$tmp/b3" \
	--quiet --plugin --hang-timeout 8 2>"$tmp/b3.err"; then
	fail "a silent plugin boot succeeded"
fi
grep -q 'booting it once more' "$tmp/b3.err" || fail "a hung plugin boot was not retried: $(cat "$tmp/b3.err")"
[ "$(grep -c 'booting it once more' "$tmp/b3.err")" = 1 ] || fail "a hung plugin boot was retried more than once"
[ -s "$tmp/b3/console-hung.log" ] || fail "the hung boot's console was not kept"
grep -q 'hang' "$tmp/b3/status" || fail "the retried boot's status is not a hang: $(cat "$tmp/b3/status")"
echo "ok: a hung plugin boot is retried once, then fails as a hang ($(cat "$tmp/b3/status"))"

# count_rows.py: the kernel's grace-period count is modulo rcu_seq_ctr()'s 62
# bits, so a difference that an older rcubench.ko took modulo 2^64 across
# Tree RCU's early wrap comes out exact.
/usr/bin/python3 - "$RB_TOP/workloads/tcg-plugin" <<'PY' || fail "count_rows.py does not reduce a wrapped grace-period count"
import sys
sys.path.insert(0, sys.argv[1])
import count_rows as counts
assert counts.kernel_gps(20) == 20
assert counts.kernel_gps((3 << 62) + 20) == 20, counts.kernel_gps((3 << 62) + 20)
PY
echo "ok: count_rows.py reads a grace-period count across the counter's wrap as the count"

# count_rows.py: a window's interrupts-off work from the plugin's irqwork
# rows (hand-computed: 4 grace periods on 2 vCPUs, 10 + 14 episodes of
# 2000 + 2200 core instructions, the largest 410): 24 / 8 = 3 episodes
# per grace period per CPU, 4200 / 24 = 175 each, at most 410; none
# without rows (a plugin without core=).
/usr/bin/python3 - "$RB_TOP/workloads/tcg-plugin" <<'PY' || fail "count_rows.py misreads the irqwork rows"
import sys
sys.path.insert(0, sys.argv[1])
import count_rows as counts
rows = [{"episodes": "10", "insns": "2000", "max": "300"},
        {"episodes": "14", "insns": "2200", "max": "410"}]
got = counts.irqwork_metrics(rows, 4 * 2)
want = {"irqoff_episodes_per_gp": 3.0, "irqoff_core_insns_mean": 175.0, "irqoff_core_insns_max": 410.0}
assert got == want, got
assert counts.irqwork_metrics([], 8) == {}
assert counts.irqwork_metrics([{"episodes": "0", "insns": "0", "max": "0"}], 8)["irqoff_core_insns_mean"] == 0
PY
echo "ok: count_rows.py turns irqwork rows into the interrupts-off work per grace period, per episode and its worst"
