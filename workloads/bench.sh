#!/bin/bash
# bench.sh: the measurement sweep behind `make bench`.  See usage() below.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

usage() {
	cat <<USAGE
usage: workloads/bench.sh [--full|--scale] [--kernels "K..."] [--vcpus "N..."] [--repeats N]
                          [--tests "T..."] [--seed N] [--out DIR] [--no-analysis]
       workloads/bench.sh --resume DIR|last [--no-analysis]

First builds what is missing or out of date: the kernels
(workloads/build-kernels.sh), rcubench.ko for each, the guest initramfs and
the TCG counting plugin (workloads/tcg-plugin/).  Then boots
every (kernel, vCPUs, repeat) of the sweep once, in an order shuffled by the
seed (--seed N replays an order; default: a random seed, recorded in
metadata.json), with the guest's vCPU threads pinned to host CPUs, and runs
the guest job workloads/guest/jobs/bench.sh in it.  Results go to
reports/<timestamp>/ (or --out DIR): metadata.json, csv/results.csv,
csv/boots.csv (one row per boot: order, pinning, host load, overcommitted),
csv/agreement.csv, perf/<kernel>-<vcpus>-r<repeat>/, raw/ (consoles), then
the analysis.

Profiles (suite.conf BENCH_QUICK, BENCH_FULL, BENCH_SCALE: boots per cell
and guest settings): quick by default, with VCPUS_QUICK; --full with
VCPUS_FULL; --scale (make scale) the count tests SCALE_TESTS only, with
VCPUS_SCALE, counted in every boot, the plugin's coherence model and
single-threaded TCG (its RB_PLUGIN_COH and RB_TCG_THREAD settings); the
full profile runs that scale run too, in the sweep's scale/ (after the
sweep; RB_BENCH_SCALE=0 leaves it out; a complete scale/ is kept).  A
vCPU count above a kernel's CONFIG_NR_CPUS is refused.
--repeats N overrides the profile's boots per cell.  Tests (suite.conf
BENCH_TEST_*): $SWEEP_TESTS by default; also $(bench_tests any named).
--no-analysis skips analysis/report.py at the end.
--resume continues an interrupted sweep with its own parameters, seed and
order ("last": the newest unfinished one); finished cells are not redone,
failed ones are.  BENCH_* settings of the profiles in the environment
override them.  Exits non-zero when any cell failed, listing them.
USAGE
}

# The bench tests (suite.conf BENCH_TEST_*): those a sweep runs by default,
# all it accepts, and the counted ones.
SWEEP_TESTS=$(bench_tests any sweep)
ALL_TESTS=$(bench_tests any any)
COUNT_TESTS=$(bench_tests count any)

# count_tests_in 1|0 TESTS...: those of TESTS that are (1) or are not (0)
# count tests.
count_tests_in() {
	local want=$1 t out=
	shift
	for t in "$@"; do
		case " $COUNT_TESTS " in *" $t "*) [ "$want" = 1 ] && out+=" $t" ;; *) [ "$want" = 0 ] && out+=" $t" ;; esac
	done
	echo $out
}

# count_rows K CELL: the plugin boot's counts as guest rows in CELL/results/bench.csv.
count_rows() {
	[ -f "$2/results/counts.csv" ] || return 0
	"$PY" "$RB_TOP/workloads/tcg-plugin/count_rows.py" --kernel "$1" --counts "$2/results/counts.csv" \
		--labels "$2/results/count-labels.csv" --append "$2/results/bench.csv" 2>>"$2/boot.log" ||
		note "bench: $2: count_rows.py failed (see boot.log)"
}

PY=/usr/bin/python3

analysis=1 full=0 scale=0 kernels='' vcpus='' repeats='' tests='' out='' resume='' seed=''
while [ $# -gt 0 ]; do
	case "$1" in
	--full) full=1 ;;
	--scale) scale=1 ;;
	--kernels) kernels=$2; shift ;;
	--vcpus) vcpus=$2; shift ;;
	--repeats) repeats=$2; shift ;;
	--tests) tests=$2; shift ;;
	--out) out=$2; shift ;;
	--seed) seed=$2; shift ;;
	--resume) resume=$2; shift ;;
	--no-analysis) analysis=0 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option '$1'" ;;
	esac
	shift
done

# The sweep's results directory (analysis/sweep.py) and its boots (analysis/boots.py).
results() {
	"$PY" "$RB_TOP/analysis/sweep.py" "$@"
}

boots() {
	"$PY" "$RB_TOP/analysis/boots.py" "$@"
}

# The newest sweep under reports/ whose metadata says it is not complete.
newest_unfinished() {
	local d
	for d in $(ls -1d "$RB_TOP"/reports/*/ 2>/dev/null | sort -r); do
		[ -f "$d/metadata.json" ] || continue
		grep -q '"complete": false' "$d/metadata.json" && { echo "${d%/}"; return 0; }
	done
	die "no unfinished sweep under reports/ to resume"
}

check_positive() {
	case "$2" in '' | *[!0-9]* | 0) die "$1 must be a positive integer, got '$2'" ;; esac
}

check_tests() {
	local t
	[ -n "$1" ] || die "no tests given"
	for t in $1; do
		case " $ALL_TESTS " in *" $t "*) ;; *) die "unknown test '$t' (known: $ALL_TESTS)" ;; esac
	done
}

commit_id() {
	local id
	id=$(git -C "$RB_TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)
	git -C "$RB_TOP" diff --quiet HEAD -- 2>/dev/null || id=$id-dirty
	echo "$id"
}

fmt_s() {
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

# check_resumable DIR: die unless DIR holds a sweep of this suite's schema.
check_resumable() {
	local found want
	[ -f "$1/metadata.json" ] || die "no sweep to resume at $1 (no metadata.json)"
	want=$(conf_get CSV_SCHEMA_VERSION)
	found=$(results get --dir "$1" schema_version 2>/dev/null) ||
		die "cannot read $1/metadata.json: not a sweep this suite can resume"
	[ "$found" = "$want" ] && [ -n "$(results get --dir "$1" seed)" ] ||
		die "sweep $1 is from schema v$found, this suite writes v$want: start a new sweep"
}

# ---- the sweep's parameters: new, or those of the sweep being resumed ----
if [ -n "$resume" ]; then
	[ -z "$kernels$vcpus$repeats$tests$out$seed" ] && [ $full = 0 ] && [ $scale = 0 ] ||
		die "--resume takes the sweep's own parameters: give no others"
	[ "$resume" != last ] || resume=$(newest_unfinished)
	check_resumable "$resume"
	sweep=$(cd "$resume" && pwd)
	seed=$(results get --dir "$sweep" seed)
	kernels=$(results get --dir "$sweep" kernels)
	vcpus=$(results get --dir "$sweep" vcpus)
	repeats=$(results get --dir "$sweep" repeats)
	tests=$(results get --dir "$sweep" tests)
	settings=$(results get --dir "$sweep" job)
else
	[ $full = 0 ] || [ $scale = 0 ] || die "--full and --scale are two profiles: give one"
	profile=quick
	[ $full = 0 ] || profile=full
	[ $scale = 0 ] || profile=scale
	kernels=${kernels:-$(conf_get KERNELS)}
	vcpus=${vcpus:-$(conf_get "VCPUS_${profile^^}")}
	repeats=${repeats:-$(bench_repeats $profile)}
	if [ $scale = 1 ]; then tests=${tests:-$(conf_get SCALE_TESTS)}; else tests=${tests:-$SWEEP_TESTS}; fi
	settings=$(bench_settings $profile)
	seed=$(boots seed --seed "$seed") || exit 1
fi
[ -n "$kernels" ] || die "no kernels given"
for k in $kernels; do check_kernel "$k"; done
[ -n "$vcpus" ] || die "no vCPU counts given"
for v in $vcpus; do check_vcpus "$v"; done
check_positive REPEATS "$repeats"
check_tests "$tests"
need_tool qemu-system-x86_64 make git
# The profile's host-side settings (recorded with the guest's, so that a
# resumed sweep boots as it began): the plugin's coherence model and TCG's
# threading.
for kv in $settings; do
	case "$kv" in RB_PLUGIN_COH=* | RB_TCG_THREAD=*) export "${kv?}" ;; esac
done
# A guest with more vCPUs than the kernel's CONFIG_NR_CPUS would use only
# that many: refused before anything is written.
for k in $kernels; do
	nr=$(sed -n 's/^CONFIG_NR_CPUS=//p' "$(kernel_obj "$k")/.config" 2>/dev/null || true)
	[ -n "$nr" ] || continue  # not built yet: its build comes below
	for v in $vcpus; do
		[ "$v" -le "$nr" ] || die "kernel $k has CONFIG_NR_CPUS=$nr: $v vCPUs would run as $nr (configs/base.config sets it)"
	done
done

# ---- build what is missing (a fresh machine: make deps && make bench) ----
# Each kernel without a bzImage through workloads/build-kernels.sh; a kernel
# that fails to build fails its cells only.  A built kernel is used as it is:
# make kernels brings it up to date when the series or its config changed.
build_kernels() {
	local k
	for k in $kernels; do
		if [ -f "$(kernel_bzimage "$k")" ]; then
			note "bench: kernel $k is built (make kernels rebuilds what a change made stale)"
			continue
		fi
		"$RB_TOP/workloads/build-kernels.sh" "$k" ||
			note "bench: kernel $k failed to build: its cells fail"
	done
}

build_initramfs() {
	note "bench: guest initramfs"
	mkdir -p "$RB_CACHE/initramfs"
	"$RB_TOP/workloads/mkinitramfs.sh" "$RB_CACHE/initramfs/base.cpio"
}

# The TCG counting plugin (workloads/tcg-plugin/), which the count_* tests
# need; when it does not build, only their cells fail.
build_plugin() {
	note "bench: TCG counting plugin"
	mkdir -p "$RB_CACHE/bench"
	make -s -C "$RB_TOP/workloads/tcg-plugin" >"$RB_CACHE/bench/plugin.log" 2>&1 ||
		note "bench: the TCG plugin does not build: see $RB_CACHE/bench/plugin.log"
}

note "bench: building what is missing (kernels, rcubench.ko, initramfs, plugin)"
build_kernels
build_initramfs
build_plugin

commit=$(commit_id)
accel=$("$RB_TOP/workloads/accel.sh")
schema=$(conf_get CSV_SCHEMA_VERSION)
# What builds the kernels and what built them (scripts/lib.sh), for
# metadata.json: a built kernel is booted as it is, so its key may be
# another than the one this tree's series and fragments give.
provenance=(--patches "$RB_TOP/patches")
for k in $kernels; do
	tree_key=$(kernel_key "$k") || die "cannot compute the build key of kernel $k"
	provenance+=(--tree-key "$k=$tree_key" --built-key "$k=$(kernel_built_key "$k")"
		--boot-args "$k=$(kernel_boot_args "$k")")
done
if [ -z "$resume" ]; then
	sweep=${out:-$RB_TOP/reports/$(date +%Y%m%d-%H%M%S)}
	[ ! -e "$sweep/metadata.json" ] || die "$sweep already holds a sweep: use --resume $sweep"
	mkdir -p "$sweep"
	sweep=$(cd "$sweep" && pwd)
	set_args=()
	while IFS= read -r kv; do set_args+=(--setting "$kv"); done <<<"$settings"
	results init --dir "$sweep" --commit "$commit" --accel "$accel" \
		--qemu "$(qemu-system-x86_64 --version | head -1)" --cache "$RB_CACHE" \
		--kernels "$kernels" --vcpus "$vcpus" --repeats "$repeats" --tests "$tests" \
		--profile "$profile" --schema-version "$schema" --columns "$(conf_get CSV_COLUMNS)" \
		"${set_args[@]}" "${provenance[@]}"
	boots annotate --dir "$sweep" --seed "$seed" --host-cpus "$(nproc)" --columns "$(conf_get BOOTS_COLUMNS)"
	note "bench: new sweep $sweep (seed $seed)"
else
	results resumed --dir "$sweep" --commit "$commit" "${provenance[@]}"
	note "bench: resuming $sweep (seed $seed, its boots in the same order)"
fi
mkdir -p "$sweep/perf" "$sweep/raw"
exec 9>"$sweep/.lock"
flock -w 30 9 || die "another bench is running on $sweep"

# ---- rcubench.ko for each built kernel ----
declare -A unusable=()
for k in $kernels; do
	obj=$(kernel_obj "$k")
	if [ ! -f "$(kernel_bzimage "$k")" ]; then
		unusable[$k]="kernel-not-built: run make kernels KERNELS=$k"
		note "bench: kernel $k is not built: its cells fail"
	elif note "bench: rcubench.ko for $k" && ! make -s -C "$RB_TOP/bench-module" KDIR="$obj" OUT="$(dirname "$(bench_module_path "$k")")" \
		>"$sweep/raw/module-$k.log" 2>&1; then
		unusable[$k]="module-build-failed (raw/module-$k.log)"
		note "bench: rcubench.ko does not build against $k: see $sweep/raw/module-$k.log"
	fi
done

# ---- the boots, in the seeded order (a resumed sweep: the same order) ----
host_cpus=$(nproc)
load_flag=$(conf_get LOAD_FLAG)
boot_list=()
while read -r pos k v r; do
	pending=$(results pending --dir "$sweep" --kernel "$k" --vcpus "$v" --repeat "$r" --tests "$tests")
	for group in "$(count_tests_in 0 $pending)" "$(count_tests_in 1 $pending)"; do
		[ -z "$group" ] || boot_list+=("$pos $k $v $r $group")
	done
done < <(boots order --seed "$seed" --kernels "$kernels" --vcpus "$vcpus" --repeats "$repeats")
total=${#boot_list[@]}
ntests_total=0
for b in "${boot_list[@]}"; do
	set -- $b
	ntests_total=$((ntests_total + $# - 4))
done
note "bench: $total boots, $ntests_total cells to run (seed $seed)"
for v in $vcpus; do
	[ "$v" -lt "$host_cpus" ] ||
		note "bench: $v vCPUs on $host_cpus host CPUs: those cells are overcommitted (run, marked in boots.csv)"
done

boot_pid= lane=
trap '[ -z "$boot_pid" ] || kill "$boot_pid" 2>/dev/null; exit 130' INT TERM

# merge_locked ARGS...: results merge, one at a time (lanes share the CSV).
merge_locked() {
	flock "$sweep/.merge.lock" "$PY" "$RB_TOP/analysis/sweep.py" merge "$@"
}

sweep_start=$(date +%s) ntests_done=0
# progress K V R TEST: one line with the elapsed and estimated remaining time.
progress() {
	local elapsed=$(($(date +%s) - sweep_start)) remaining='?'
	[ $ntests_done -eq 0 ] || remaining="~$(fmt_s $((elapsed * (ntests_total - ntests_done) / ntests_done)))"
	echo "bench${lane:+ lane $lane} [$((ntests_done + 1))/$ntests_total] kernel=$1 vcpus=$2 repeat=$3 test=$4" \
		"elapsed $(fmt_s "$elapsed") remaining $remaining$([ "$2" -lt "$host_cpus" ] || echo " (overcommitted)")"
}

# ---- host load around each boot ----
# Busy seconds of all host CPUs so far (/proc/stat: user nice system irq
# softirq steal), and CPU seconds of this script and its reaped children
# (boot.sh, QEMU): their difference over a boot is the other load.
host_busy_s() {
	awk -v hz="$(getconf CLK_TCK)" '/^cpu / { printf "%.2f\n", ($2 + $3 + $4 + $7 + $8 + $9) / hz; exit }' /proc/stat
}

# own_cpu_s: set own_s.  Not in $(...): `times` in a subshell would count
# the subshell, not this script.
own_cpu_s() {
	times >"$sweep/.times$lane"
	own_s=$(awk '{ for (i = 1; i <= NF; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } }
		END { printf "%.2f\n", s }' "$sweep/.times$lane")
}

load1() {
	cut -d' ' -f1 /proc/loadavg
}

# other_cpus_idle S: host CPUs busy over S seconds while no guest runs.
other_cpus_idle() {
	local b0 b1
	b0=$(host_busy_s)
	sleep "$1"
	b1=$(host_busy_s)
	awk -v a="$b0" -v b="$b1" -v s="$1" 'BEGIN { printf "%.2f\n", (b - a) / s }'
}

# record_boot POS K V R STATUS START_S DURATION_S PINNED LOAD1_BEFORE
#             OTHER_BEFORE OTHER_DURING: one row of csv/boots.csv.
record_boot() {
	local flagged over
	flagged=$(awk -v a="${10}" -v b="${11:-0}" -v f="$load_flag" 'BEGIN { print (a > f || b > f) ? 1 : 0 }')
	over=$(($3 >= host_cpus ? 1 : 0))
	[ "$flagged" = 0 ] ||
		note "bench: $2/$3/r$4 ran beside other load (${10} CPUs busy before, ${11:-?} during): flagged"
	boots record --dir "$sweep" schema_version="$schema" commit="$commit" accel="$accel" kernel="$2" \
		vcpus="$3" repeat="$4" order="$1" seed="$seed" host_cpus="$host_cpus" overcommitted="$over" \
		pinned="$8" load1_before="$9" load1_after="$(load1)" other_cpus_before="${10}" \
		other_cpus_during="${11}" flagged="$flagged" started_utc="$(date -u -d "@$6" +%Y-%m-%dT%H:%M:%SZ)" \
		duration_s="$7" status="$(printf "%s" "$5" | tr ',\n' '; ' | cut -c1-160)"
}

# run_boot POS K V R TESTS...: boot once for the pending tests, merge the
# results, record the boot.
run_boot() {
	local pos=$1 k=$2 v=$3 r=$4 cell=$sweep/raw/$2-$3-r$4 seen=0 started t plugin=()
	local load_before other_before busy0 own0 start_s duration other_during
	shift 4
	if [ -n "$(count_tests_in 1 "$@")" ]; then
		cell+=-count plugin=(--plugin)
	fi
	if [ -n "${unusable[$k]:-}" ]; then
		progress "$k" "$v" "$r" "$*"
		merge_locked --dir "$sweep" --kernel "$k" --vcpus "$v" --repeat "$r" --tests "$*" \
			--commit "$commit" --accel "$accel" --schema-version "$schema" --reason "${unusable[$k]}" >/dev/null
		record_boot "$pos" "$k" "$v" "$r" "not-booted: ${unusable[$k]}" "$(date +%s)" 0 0 "$(load1)" 0 0
		ntests_done=$((ntests_done + $#))
		return 0
	fi
	mkdir -p "$cell"
	{
		echo "BENCH_TESTS='$*'"
		echo "$settings"
		# count_refscale (named only) needs refscale's loop found on the host.
		case " $* " in *" count_refscale "*) echo "BENCH_REFSCALE_RANGE='$(refscale_range "$k")'" ;; esac
		cat "$RB_TOP/workloads/guest/jobs/bench.sh"
	} >"$cell/job.sh"
	load_before=$(load1)
	other_before=$(other_cpus_idle 0.3)
	own_cpu_s
	busy0=$(host_busy_s) own0=$own_s start_s=$(date +%s.%N)
	"$RB_TOP/workloads/boot.sh" --kernel "$k" --vcpus "$v" --job "$cell/job.sh" --out "$cell" \
		--pin --quiet "${plugin[@]}" 2>"$cell/boot.log" &
	boot_pid=$!
	# Progress from the job's "start <test>" console lines.
	while kill -0 "$boot_pid" 2>/dev/null; do
		started=$(grep -a -c '^rcu-bench-job: start ' "$cell/console.log" 2>/dev/null || true)
		while [ "${started:-0}" -gt $seen ]; do
			t=$(grep -a '^rcu-bench-job: start ' "$cell/console.log" | sed -n "$((seen + 1))p" | tr -d '\r')
			[ $seen -eq 0 ] || ntests_done=$((ntests_done + 1))
			progress "$k" "$v" "$r" "${t##* }"
			seen=$((seen + 1))
		done
		sleep 0.2
	done
	wait "$boot_pid" || true
	boot_pid=
	duration=$(awk -v a="$start_s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }')
	own_cpu_s
	other_during=$(awk -v b0="$busy0" -v b1="$(host_busy_s)" -v o0="$own0" -v o1="$own_s" -v d="$duration" \
		'BEGIN { x = ((b1 - b0) - (o1 - o0)) / d; printf "%.2f\n", x < 0 ? 0 : x }')
	# A plugin boot counts, it does not time: boots.csv keeps the timed boot.
	[ ${#plugin[@]} != 0 ] ||
		record_boot "$pos" "$k" "$v" "$r" "$(cat "$cell/status" 2>/dev/null || echo no-status)" "${start_s%.*}" \
		"$duration" "$(cat "$cell/pinned" 2>/dev/null || echo 0)" "$load_before" "$other_before" "$other_during"
	[ $seen -gt 0 ] || progress "$k" "$v" "$r" "(boot failed)"
	ntests_done=$((ntests_done + $# - (seen > 0 ? seen - 1 : 0)))
	[ ${#plugin[@]} = 0 ] || count_rows "$k" "$cell"
	merge_locked --dir "$sweep" --kernel "$k" --vcpus "$v" --repeat "$r" --tests "$*" \
		--commit "$commit" --accel "$(cat "$cell/accel" 2>/dev/null || echo "$accel")" \
		--schema-version "$schema" --cell-dir "$cell" | grep -v ':ok$' | sed "s|^|bench: $k/$v/r$r: failed |" || true
	if compgen -G "$cell/results/perf-*.txt" >/dev/null; then
		mkdir -p "$sweep/perf/$k-$v-r$r"
		cp "$cell"/results/perf-*.txt "$sweep/perf/$k-$v-r$r/"
	fi
}

# run_lane L N: the boots L, L + N, L + 2N, ... of the list, in order, with
# their own progress count (run_lane 0 1: all of them).
run_lane() {
	local first=$1 step=$2 i b
	ntests_total=0 ntests_done=0
	for ((i = first; i < total; i += step)); do
		set -- ${boot_list[i]}
		ntests_total=$((ntests_total + $# - 4))
	done
	for ((i = first; i < total; i += step)); do
		b=${boot_list[i]}
		# shellcheck disable=SC2086 # "pos kernel vcpus repeat tests..." split on purpose
		run_boot $b
	done
}

# A count boot counts, it does not time: the scale profile's boots run
# SCALE_LANES at a time (each single-threaded TCG guest keeps one host CPU
# busy; "auto": one per host CPU; RB_SCALE_LANES overrides it).  Timed
# boots run one at a time.
lanes=1
if [ "$(results get --dir "$sweep" profile)" = scale ]; then
	lanes=${RB_SCALE_LANES:-$(conf_get SCALE_LANES)}
	[ "$lanes" != auto ] || lanes=$host_cpus
	check_positive SCALE_LANES "$lanes"
fi
if [ "$lanes" -le 1 ] || [ "$total" -le 1 ]; then
	run_lane 0 1
else
	note "bench: $lanes count boots at a time (lanes 1-$lanes: boots 1, 1+$lanes, ... of the order in lane 1)"
	lane_pids=()
	for ((l = 1; l <= lanes; l++)); do
		lane=$l run_lane $((l - 1)) "$lanes" &
		lane_pids+=($!)
	done
	trap 'kill "${lane_pids[@]}" 2>/dev/null; exit 130' INT TERM
	for p in "${lane_pids[@]}"; do wait "$p" || true; done
	trap - INT TERM
fi

echo "bench: sweep done in $(fmt_s $(($(date +%s) - sweep_start))): $sweep"
rc=0
# sweep_has TEST: the sweep's results already have rows of TEST (a resumed
# sweep does not run its once-per-sweep steps again).
sweep_has() {
	awk -F, -v t="$1" '$6 == t { found = 1; exit } END { exit !found }' \
		"$sweep/csv/results.csv" 2>/dev/null
}
# The native liburcu anchor (real-hardware barrier costs), once per sweep:
# a resumed sweep that has its rows does not run it again.
# The scale profile counts: of the native steps it takes the calibration
# only (the cost of an instruction class and of a cache-line transfer).
sweep_profile=$(results get --dir "$sweep" profile)
if [ $analysis = 1 ] && [ "$sweep_profile" != scale ] && ! sweep_has urcu; then
	echo "bench: native liburcu anchor on the host ($(nproc) CPUs)"
	"$RB_TOP/workloads/urcu/run.sh" "$sweep" --repeats "$repeats" ||
		{ note "bench: workloads/urcu/run.sh failed: no native anchor rows"; rc=1; }
fi
# The host's per-instruction costs that turn the plugin's counts into
# modelled ns (analysis/costmodel.py), once per sweep, after the guests.
if [ $analysis = 1 ] && ! sweep_has calib; then
	echo "bench: native calibration on the host"
	"$RB_TOP/workloads/calibrate/run.sh" "$sweep" ||
		{ note "bench: workloads/calibrate/run.sh failed: no calib rows"; rc=1; }
fi
# The model's check: each kernel's read pair replayed natively on the host
# (workloads/replay), after the calibration, once per sweep.
if [ $analysis = 1 ] && [ "$sweep_profile" != scale ] && ! sweep_has replay; then
	echo "bench: native replay of each kernel's read pair"
	"$RB_TOP/workloads/replay/run.sh" "$sweep" --kernels "$kernels" ||
		{ note "bench: workloads/replay/run.sh failed: no replay rows"; rc=1; }
fi
# Real kernel paths (workloads/paths.sh: plugin boots, PATHS_VCPUS), in the
# full profile only: about a minute per kernel and vCPU count.
if [ $analysis = 1 ] && [ "$sweep_profile" = full ] &&
	! sweep_has paths; then
	echo "bench: real kernel paths (rbstat in plugin boots)"
	"$RB_TOP/workloads/paths.sh" "$sweep" --kernels "$kernels" ||
		{ note "bench: workloads/paths.sh failed: no paths rows"; rc=1; }
fi
# The full profile includes the scale run (the count tests across
# VCPUS_SCALE on the sweep's kernels, as make scale) in the sweep's scale/,
# a results directory of its own that the report reads; resumed with the
# sweep, and kept when complete (a make scale of the same kernels may be
# put there before the sweep starts).  RB_BENCH_SCALE=0 leaves it out.
if [ $analysis = 1 ] && [ "$sweep_profile" = full ] && [ "${RB_BENCH_SCALE:-1}" != 0 ] &&
	[ "$(results get --dir "$sweep/scale" complete 2>/dev/null)" != True ]; then
	echo "bench: the scale run (counts across vCPUs $(conf_get VCPUS_SCALE)) in $sweep/scale"
	if [ -f "$sweep/scale/metadata.json" ]; then
		scale_args=(--resume "$sweep/scale")
	else
		scale_args=(--scale --kernels "$kernels" --out "$sweep/scale")
	fi
	"$0" "${scale_args[@]}" || { note "bench: the scale run failed: $sweep/scale"; rc=1; }
fi
results finish --dir "$sweep" || rc=$?
if [ $analysis = 1 ]; then
	"$PY" "$RB_TOP/analysis/report.py" "$sweep" || { note "bench: analysis/report.py failed"; rc=1; }
fi
[ $rc -eq 0 ] || note "bench: some cells failed (listed above); results in $sweep"
exit $rc
