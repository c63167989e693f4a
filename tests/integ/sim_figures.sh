#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# scripts/sim-figures.sh BUILD FIGURE...: the figures named run again and
# replace their own sections of docs/sim.md, byte for byte what a run
# makes, and nothing else of the page; an unknown figure, or a page
# without the section, leaves the page as it was.
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 5
if [ ! -x "$KR_CLI" ] || ! command -v jq >/dev/null; then
	kr_skip_rest "knsroute not built, or no jq"
	kr_done
fi
T=$KR_TMP
S=$KR_SRCDIR/scripts/sim-figures.sh
build=$(cd "$KR_BUILDDIR" && pwd)
mkdir -p "$T/tree/docs"
cp "$KR_SRCDIR/docs/sim.md" "$T/tree/docs/sim.md"

# figures NAME...: the script into the copy, KR_QUICK's small runs
figures() {
	KR_SRCDIR=$T/tree KR_QUICK=1 KR_JOBS=1 "$S" "$build" "$@" \
		2>"$T/err" >/dev/null
}

# outside SECTION-HEADING FILE: the page without that section
outside() {
	awk -v h="$1" '/^## / { skip = ($0 == h) } !skip' "$2"
}

bound='## Channel-load bound'
figures bound && cp "$T/tree/docs/sim.md" "$T/first.md"
kr_ok $? "one figure runs into a copy of the page"

cmp -s <(outside "$bound" "$KR_SRCDIR/docs/sim.md") \
	<(outside "$bound" "$T/first.md") &&
	grep -qx "$bound" "$T/first.md" &&
	[ "$(grep -c '^## ' "$T/first.md")" = \
	  "$(grep -c '^## ' "$KR_SRCDIR/docs/sim.md")" ]
kr_ok $? "the rest of the page is untouched, every heading kept once"

# the section made up: the next run puts the run's own back
awk -v h="$bound" '/^## / { s = ($0 == h) } s && /^\| / { $0 = "| 0 | 0 | 0 | 0 | 0 |" } 1' \
	"$T/first.md" >"$T/tree/docs/sim.md"
! cmp -s "$T/tree/docs/sim.md" "$T/first.md" && figures bound &&
	cmp -s "$T/tree/docs/sim.md" "$T/first.md"
kr_ok $? "the section is replaced by what the run makes, byte for byte"

cp "$T/tree/docs/sim.md" "$T/before.md"
figures f9
[ $? -eq 2 ] && grep -q "unknown figure f9" "$T/err" &&
	cmp -s "$T/tree/docs/sim.md" "$T/before.md"
kr_ok $? "an unknown figure: exit 2, the page as it was"

grep -vx "$bound" "$T/before.md" >"$T/tree/docs/sim.md"
cp "$T/tree/docs/sim.md" "$T/headless.md"
figures bound
[ $? -eq 3 ] && grep -q "no section \"$bound\"" "$T/err" &&
	cmp -s "$T/tree/docs/sim.md" "$T/headless.md"
kr_ok $? "a page without the section: exit 3, the page as it was"

kr_done
