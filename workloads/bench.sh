#!/bin/bash
# bench.sh: the measurement sweep behind `make bench`.  See usage() below.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

usage() {
	cat <<USAGE
usage: workloads/bench.sh [--full] [--kernels "K..."] [--vcpus "N..."] [--repeats N]
                          [--tests "T..."] [--out DIR] [--no-analysis]
       workloads/bench.sh --resume DIR|last [--no-analysis]

Boots every (kernel, vCPUs, repeat) of the sweep once and runs the guest job
workloads/guest/jobs/bench.sh in it; results go to reports/<timestamp>/
(or --out DIR): metadata.json, csv/results.csv, csv/agreement.csv,
perf/<kernel>-<vcpus>-r<repeat>/, raw/ (consoles), then the analysis.

Default: quick profile, all kernels, VCPUS_QUICK, 1 repeat.  --full: VCPUS_FULL,
longer runs, 3 repeats.  Tests: $ALL_TESTS.
--no-analysis skips analysis/report.py at the end.
--resume continues an interrupted sweep with its own parameters ("last": the
newest unfinished one); finished cells are not redone, failed ones are.
BENCH_RUNS, BENCH_TARGET_MS, BENCH_CALLRCU_MS, BENCH_GP_SAMPLES,
BENCH_LATENCY_US (comma-separated), BENCH_LATENCY_SAMPLES in the
environment override the profile's guest settings.
Exits non-zero when any cell failed, listing them.
USAGE
}

ALL_TESTS="read read_mb callrcu gp refscale rcuscale latency"
RESULTS_PY=$RB_TOP/workloads/bench_results.py
PY=/usr/bin/python3

analysis=1 full=0 kernels='' vcpus='' repeats='' tests='' out='' resume=''
while [ $# -gt 0 ]; do
	case "$1" in
	--full) full=1 ;;
	--kernels) kernels=$2; shift ;;
	--vcpus) vcpus=$2; shift ;;
	--repeats) repeats=$2; shift ;;
	--tests) tests=$2; shift ;;
	--out) out=$2; shift ;;
	--resume) resume=$2; shift ;;
	--no-analysis) analysis=0 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option '$1'" ;;
	esac
	shift
done

results() {
	"$PY" "$RESULTS_PY" "$@"
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

# Guest settings of a profile, as K=V lines; the environment overrides.
profile_settings() {
	local runs target callrcu samples
	if [ "$1" = full ]; then
		runs=11 target=50 callrcu=2000 samples=200
	else
		runs=5 target=20 callrcu=500 samples=50
	fi
	echo "BENCH_RUNS=${BENCH_RUNS:-$runs}"
	echo "BENCH_TARGET_MS=${BENCH_TARGET_MS:-$target}"
	echo "BENCH_CALLRCU_MS=${BENCH_CALLRCU_MS:-$callrcu}"
	echo "BENCH_GP_SAMPLES=${BENCH_GP_SAMPLES:-$samples}"
	# Read-side section lengths (us, comma-separated) and wakeups per length.
	echo "BENCH_LATENCY_US=${BENCH_LATENCY_US:-10,100,1000,10000}"
	echo "BENCH_LATENCY_SAMPLES=${BENCH_LATENCY_SAMPLES:-100}"
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

# ---- the sweep's parameters: new, or those of the sweep being resumed ----
if [ -n "$resume" ]; then
	[ -z "$kernels$vcpus$repeats$tests$out" ] && [ $full = 0 ] ||
		die "--resume takes the sweep's own parameters: give no others"
	[ "$resume" != last ] || resume=$(newest_unfinished)
	[ -f "$resume/metadata.json" ] || die "no sweep to resume at $resume (no metadata.json)"
	sweep=$(cd "$resume" && pwd)
	kernels=$(results get --dir "$sweep" kernels)
	vcpus=$(results get --dir "$sweep" vcpus)
	repeats=$(results get --dir "$sweep" repeats)
	tests=$(results get --dir "$sweep" tests)
	settings=$(results get --dir "$sweep" job)
else
	profile=quick
	[ $full = 0 ] || profile=full
	kernels=${kernels:-$(conf_get KERNELS)}
	if [ -z "$vcpus" ]; then
		if [ $full = 1 ]; then vcpus=$(conf_get VCPUS_FULL); else vcpus=$(conf_get VCPUS_QUICK); fi
	fi
	repeats=${repeats:-$([ $full = 1 ] && echo 3 || echo 1)}
	tests=${tests:-$ALL_TESTS}
	settings=$(profile_settings $profile)
fi
[ -n "$kernels" ] || die "no kernels given"
for k in $kernels; do check_kernel "$k"; done
[ -n "$vcpus" ] || die "no vCPU counts given"
for v in $vcpus; do check_vcpus "$v"; done
check_positive REPEATS "$repeats"
check_tests "$tests"
need_tool qemu-system-x86_64 make git

commit=$(commit_id)
accel=$("$RB_TOP/workloads/accel.sh")
schema=$(conf_get CSV_SCHEMA_VERSION)
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
		"${set_args[@]}"
	note "bench: new sweep $sweep"
else
	results resumed --dir "$sweep" --commit "$commit"
	note "bench: resuming $sweep"
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
	elif ! make -s -C "$RB_TOP/bench-module" KDIR="$obj" OUT="$(dirname "$(bench_module_path "$k")")" \
		>"$sweep/raw/module-$k.log" 2>&1; then
		unusable[$k]="module-build-failed (raw/module-$k.log)"
		note "bench: rcubench.ko does not build against $k: see $sweep/raw/module-$k.log"
	fi
done

# ---- the boots ----
boots=()
for r in $(seq 1 "$repeats"); do
	for k in $kernels; do
		for v in $vcpus; do
			pending=$(results pending --dir "$sweep" --kernel "$k" --vcpus "$v" --repeat "$r" --tests "$tests")
			[ -z "$pending" ] || boots+=("$k $v $r $pending")
		done
	done
done
total=${#boots[@]}
ntests_total=0
for b in "${boots[@]}"; do
	set -- $b
	ntests_total=$((ntests_total + $# - 3))
done
note "bench: $total boots, $ntests_total cells to run"

boot_pid=
trap '[ -z "$boot_pid" ] || kill "$boot_pid" 2>/dev/null; exit 130' INT TERM

sweep_start=$(date +%s) ntests_done=0
# progress K V R TEST: one line with the elapsed and estimated remaining time.
progress() {
	local elapsed=$(($(date +%s) - sweep_start)) remaining='?'
	[ $ntests_done -eq 0 ] || remaining="~$(fmt_s $((elapsed * (ntests_total - ntests_done) / ntests_done)))"
	echo "bench [$((ntests_done + 1))/$ntests_total] kernel=$1 vcpus=$2 repeat=$3 test=$4" \
		"elapsed $(fmt_s "$elapsed") remaining $remaining"
}

# run_boot K V R TESTS...: boot once for the pending tests, merge the results.
run_boot() {
	local k=$1 v=$2 r=$3 cell=$sweep/raw/$1-$2-r$3 seen=0 started t
	shift 3
	if [ -n "${unusable[$k]:-}" ]; then
		progress "$k" "$v" "$r" "$*"
		results merge --dir "$sweep" --kernel "$k" --vcpus "$v" --repeat "$r" --tests "$*" \
			--commit "$commit" --accel "$accel" --schema-version "$schema" --reason "${unusable[$k]}" >/dev/null
		ntests_done=$((ntests_done + $#))
		return 0
	fi
	mkdir -p "$cell"
	{
		echo "BENCH_TESTS='$*'"
		echo "$settings"
		cat "$RB_TOP/workloads/guest/jobs/bench.sh"
	} >"$cell/job.sh"
	"$RB_TOP/workloads/boot.sh" --kernel "$k" --vcpus "$v" --job "$cell/job.sh" --out "$cell" \
		--quiet 2>"$cell/boot.log" &
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
		sleep 1
	done
	wait "$boot_pid" || true
	boot_pid=
	[ $seen -gt 0 ] || progress "$k" "$v" "$r" "(boot failed)"
	ntests_done=$((ntests_done + $# - (seen > 0 ? seen - 1 : 0)))
	results merge --dir "$sweep" --kernel "$k" --vcpus "$v" --repeat "$r" --tests "$*" \
		--commit "$commit" --accel "$(cat "$cell/accel" 2>/dev/null || echo "$accel")" \
		--schema-version "$schema" --cell-dir "$cell" | grep -v ':ok$' | sed "s|^|bench: $k/$v/r$r: failed |" || true
	if compgen -G "$cell/results/perf-*.txt" >/dev/null; then
		mkdir -p "$sweep/perf/$k-$v-r$r"
		cp "$cell"/results/perf-*.txt "$sweep/perf/$k-$v-r$r/"
	fi
}

for b in "${boots[@]}"; do
	# shellcheck disable=SC2086 # "kernel vcpus repeat tests..." split on purpose
	run_boot $b
done

echo "bench: sweep done in $(fmt_s $(($(date +%s) - sweep_start))): $sweep"
rc=0
# The native liburcu anchor (real-hardware barrier costs), once per sweep:
# a resumed sweep that has its rows does not run it again.
if [ $analysis = 1 ] && ! awk -F, '$6 == "urcu" { found = 1; exit } END { exit !found }' \
	"$sweep/csv/results.csv" 2>/dev/null; then
	echo "bench: native liburcu anchor on the host ($(nproc) CPUs)"
	"$RB_TOP/workloads/urcu/run.sh" "$sweep" --repeats "$repeats" ||
		{ note "bench: workloads/urcu/run.sh failed: no native anchor rows"; rc=1; }
fi
results finish --dir "$sweep" || rc=$?
if [ $analysis = 0 ]; then
	:
elif [ -f "$RB_TOP/analysis/report.py" ]; then
	"$PY" "$RB_TOP/analysis/report.py" "$sweep" || { note "bench: analysis/report.py failed"; rc=1; }
else
	note "bench: analysis/report.py not there yet: no report"
fi
[ $rc -eq 0 ] || note "bench: some cells failed (listed above); results in $sweep"
exit $rc
