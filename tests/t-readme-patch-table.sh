#!/bin/bash
# tier: host
# README.md's patch table is the one scripts/patch-table.sh generates from
# patches/series and the patches' subjects (so a changed series shows up as
# a failure here until `scripts/patch-table.sh --update` is run).  On a
# scratch copy, a patch added to the series makes the tables differ and
# --update makes them agree again, touching nothing outside the markers.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
. "$RB_TOP/tests/lib.sh"
test_tmp
gen=scripts/patch-table.sh

# check TOP: the generated table and README's agree in TOP; prints the diff.
check() {
	diff -u <("$1/$gen" --readme-table) <("$1/$gen")
}

check "$RB_TOP" || fail "README.md's patch table differs from scripts/patch-table.sh's (diff above): run scripts/patch-table.sh --update"
rows=$("$RB_TOP/$gen" | tail -n +3 | wc -l)
[ "$rows" = "$(grep -cv '^[[:space:]]*\(#\|$\)' "$RB_TOP/patches/series")" ] ||
	fail "the table has $rows rows, patches/series another number of patches"
echo "ok: README.md's patch table is the generated one ($rows patches)"

# A scratch copy with one more patch in the series.
top=$tmp/top
mkdir -p "$top"
cp -a "$RB_TOP/scripts" "$RB_TOP/patches" "$RB_TOP/README.md" "$RB_TOP/suite.conf" "$top/"
printf '%s\n' 'From: x <x@localhost>' 'Subject: [PATCH 99/99] rcu: a patch with a subject' \
	' folded over two lines' '' 'Why.' >"$top/patches/9999-test.patch"
echo 9999-test.patch >>"$top/patches/series"
if check "$top" >"$tmp/diff"; then fail "a patch added to the series went unnoticed"; fi
grep -qxF '+| [9999](patches/9999-test.patch) | rcu: a patch with a subject folded over two lines |' "$tmp/diff" ||
	fail "the new patch's row is not in the difference: $(cat "$tmp/diff")"
echo "ok: a patch added to the series makes the tables differ"
"$top/$gen" --update
check "$top" >/dev/null || fail "--update did not make README.md's table the generated one"
diff <(grep -v '^| \[' "$RB_TOP/README.md") <(grep -v '^| \[' "$top/README.md") ||
	fail "--update changed README.md outside the table rows"
echo "ok: --update writes the table between the markers and nothing else"

echo 'no-such.patch' >>"$top/patches/series"
expect_fail "a series naming a missing patch" "$top/$gen"
