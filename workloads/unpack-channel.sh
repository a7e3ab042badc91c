#!/bin/bash
# unpack-channel.sh CHANNEL DIR: split the guest's result channel (see
# workloads/guest/init for the framing) into files under DIR.  A file whose
# decoded size differs from the announced one is dropped and reported: a
# truncated result never passes for a complete one.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

[ $# -eq 2 ] || die "usage: $0 CHANNEL DIR"
channel=$1 dir=$2
[ -f "$channel" ] || die "no result channel $channel"
mkdir -p "$dir"
bad=0 name= size= tmp=
while IFS= read -r line; do
	line=${line%$'\r'}
	case "$line" in
	"RB-FILE "*)
		read -r _ name size <<<"$line"
		tmp=$dir/.$name.b64
		: >"$tmp"
		;;
	"RB-END "*)
		[ -n "$name" ] || continue
		if base64 -d "$tmp" >"$dir/.$name.part" 2>/dev/null &&
			[ "$(stat -c %s "$dir/.$name.part")" = "$size" ]; then
			mv -f "$dir/.$name.part" "$dir/$name"
		else
			note "result file $name truncated on the channel"
			rm -f "$dir/.$name.part"
			bad=1
		fi
		rm -f "$tmp"
		name=
		;;
	*)
		[ -z "$name" ] || printf '%s\n' "$line" >>"$tmp"
		;;
	esac
done <"$channel"
if [ -n "$name" ]; then
	note "result file $name truncated on the channel"
	rm -f "$tmp"
	bad=1
fi
exit $bad
