#!/bin/bash
# verify/run.sh [--list] [NAME...]: check verify/rcupreempt.pml with SPIN in
# every configuration of verify/configs (or those named), print a table
# "config result expect states vector_bytes seconds search" and exit
# non-zero unless every outcome is the expected one.  A run that should
# fail must end with a counterexample trail; it is replayed into
# $VERIFY_OUT/<name>/trail.txt.  Build products and logs go to
# $VERIFY_OUT (default $RB_CACHE/verify), never into the repository.
#
# Environment: VERIFY_MEMLIM (MB, default 8192), VERIFY_TIMEOUT (seconds
# per run, default 900), VERIFY_BITSTATE_SECONDS (time bound of a bitstate
# search, default 120; its result is FAIL or NONE-FOUND, never PASS),
# VERIFY_JOBS (configurations checked at once, default the host's CPUs:
# each search is one process, and a failing one spends minutes shortening
# and replaying its trail; the table keeps verify/configs' order).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

MODEL=$RB_TOP/verify/rcupreempt.pml
CONFIGS=$RB_TOP/verify/configs
VERIFY_OUT=${VERIFY_OUT:-$RB_CACHE/verify}
VERIFY_MEMLIM=${VERIFY_MEMLIM:-8192}
VERIFY_TIMEOUT=${VERIFY_TIMEOUT:-900}
VERIFY_BITSTATE_SECONDS=${VERIFY_BITSTATE_SECONDS:-120}

usage() {
	sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

# configs: the non-comment lines of verify/configs
configs() {
	grep -vE '^[[:space:]]*(#|$)' "$CONFIGS"
}

# pan_cflags SEARCH: compile flags of pan for a search kind
pan_cflags() {
	case $1 in
	full) echo "-DSAFETY -DCOLLAPSE" ;;
	bitstate) echo "-DSAFETY -DBITSTATE" ;;
	liveness) echo "-DNP -DNFAIR=8 -DCOLLAPSE" ;;
	*) die "verify/configs: unknown search '$1'" ;;
	esac
}

# pan_runflags SEARCH: run flags of pan (depth bound; -l -f: non-progress
# cycles under weak fairness)
pan_runflags() {
	case $1 in
	full) echo "-m20000000" ;;
	bitstate) echo "-w30 -m6000000" ;;
	liveness) echo "-l -f -m6000000" ;;
	esac
}

# shorten_trail DIR DEFINES...: a depth-first counterexample can be
# hundreds of thousands of steps long; a breadth-first search (bounded in
# time and memory) replaces it with a shortest one when it finds it.
shorten_trail() {
	local dir=$1
	shift
	(
		cd "$dir"
		mv rcupreempt.pml.trail dfs.trail
		gcc -O2 -w -DSAFETY -DBFS -DMEMLIM="$VERIFY_MEMLIM" -o pan-bfs pan.c >>gcc.log 2>&1 &&
			timeout 120 ./pan-bfs >pan-bfs.log 2>&1 || true
		grep -q 'errors: [1-9]' pan-bfs.log 2>/dev/null && [ -f rcupreempt.pml.trail ] ||
			mv dfs.trail rcupreempt.pml.trail
	)
}

# run_one NAME EXPECT SEARCH DEFINES...: one SPIN run; prints a table row
# and returns 0 when the outcome matches EXPECT.
run_one() {
	local name=$1 expect=$2 search=$3 dir result states vec secs limit=$VERIFY_TIMEOUT
	shift 3
	dir=$VERIFY_OUT/$name
	[ "$search" != bitstate ] || limit=$VERIFY_BITSTATE_SECONDS
	rm -rf "$dir" && mkdir -p "$dir"
	cp "$MODEL" "$dir/"
	(
		cd "$dir"
		# shellcheck disable=SC2086 # flag lists
		spin -a "$@" rcupreempt.pml >spin.log 2>&1 &&
			gcc -O2 -w $(pan_cflags "$search") -DMEMLIM="$VERIFY_MEMLIM" \
				-o pan pan.c >gcc.log 2>&1
	) || die "$name: model does not compile, see $dir"
	(
		cd "$dir"
		start=$(date +%s.%N)
		# shellcheck disable=SC2046
		# SIGINT: pan stops and still prints its statistics
		timeout -s INT -k 30 "$limit" ./pan $(pan_runflags "$search") >pan.log 2>&1 || true
		echo "$start $(date +%s.%N)" | awk '{ printf "%.1f\n", $2 - $1 }' >seconds
	)
	secs=$(cat "$dir/seconds")
	states=$(sed -nE 's/^ *([0-9.e+]+) states, stored.*/\1/p' "$dir/pan.log" | head -1)
	vec=$(sed -nE 's/^State-vector ([0-9]+) byte.*/\1/p' "$dir/pan.log" | head -1)
	if grep -q 'errors: [1-9]' "$dir/pan.log"; then
		result=FAIL
		[ -f "$dir/rcupreempt.pml.trail" ] || result=FAIL-NO-TRAIL
		[ "$search" = liveness ] || shorten_trail "$dir" "$@"
		# the replay of a long trail is slow: keep its end
		(cd "$dir" && timeout 120 spin -t -p -g -l "$@" rcupreempt.pml 2>&1 |
			tail -n 600 >trail.txt || true)
	elif grep -q 'errors: 0' "$dir/pan.log" && [ "$search" = bitstate ]; then
		result=NONE-FOUND	# supertrace, maybe time-bounded: not a proof
	elif grep -q 'errors: 0' "$dir/pan.log" &&
		! grep -qE 'Interrupted|Search not completed|max search depth too small|reached -DMEMLIM' "$dir/pan.log"; then
		result=PASS
	else
		result=INCOMPLETE	# timeout, memory or depth limit
	fi
	printf '%-26s %-13s %-6s %12s %6s %8s %s\n' "$name" "$result" "$expect" \
		"${states:--}" "${vec:--}" "$secs" "$search"
	[ "$result" = "$expect" ]
}

main() {
	local list=0 line name expect search rc=0 jobs
	local -a want=() defs ran=()
	while [ $# -gt 0 ]; do
		case $1 in
		-h | --help) usage ;;
		--list) list=1 ;;
		-*) die "unknown option '$1' (see --help)" ;;
		*) want+=("$1") ;;
		esac
		shift
	done
	need_tool spin gcc
	[ -f "$MODEL" ] || die "missing $MODEL"
	if [ $list = 1 ]; then
		configs | awk '{ print $1 }'
		return 0
	fi
	for name in "${want[@]}"; do
		configs | awk '{ print $1 }' | grep -qxF "$name" ||
			die "unknown configuration '$name' (see --list)"
	done
	jobs=${VERIFY_JOBS:-$(nproc)}
	[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "VERIFY_JOBS must be a positive integer, not '$jobs'"
	mkdir -p "$VERIFY_OUT"
	printf '%-26s %-13s %-6s %12s %6s %8s %s\n' config result expect states vector seconds search
	while read -r name expect search line; do
		if [ ${#want[@]} -gt 0 ] && ! printf '%s\n' "${want[@]}" | grep -qxF "$name"; then
			continue
		fi
		read -r -a defs <<<"$line"
		note "verify: $name ($search search) ..."
		ran+=("$name")
		rm -f "$VERIFY_OUT/$name.row" "$VERIFY_OUT/$name.rc"
		(
			r=0
			run_one "$name" "$expect" "$search" "${defs[@]}" >"$VERIFY_OUT/$name.row" || r=$?
			echo $r >"$VERIFY_OUT/$name.rc"
		) &
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
	done < <(configs)
	wait
	[ ${#ran[@]} -gt 0 ] || die "no configuration ran"
	# a run that died (its model did not compile) wrote no exit status
	for name in "${ran[@]}"; do
		cat "$VERIFY_OUT/$name.row" 2>/dev/null || true
		[ "$(cat "$VERIFY_OUT/$name.rc" 2>/dev/null)" = 0 ] || rc=1
		rm -f "$VERIFY_OUT/$name.row" "$VERIFY_OUT/$name.rc"
	done
	[ $rc = 0 ] || note "verify: some outcomes differ from the expected ones (logs in $VERIFY_OUT)"
	return $rc
}

main "$@"
