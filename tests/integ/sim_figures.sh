#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# scripts/sim-figures.sh BUILD FIGURE...: the figures named run again and
# replace their own sections of docs/sim.md, byte for byte what a run
# makes, and nothing else of the page; an unknown figure, or a page
# without the section, leaves the page as it was. F3's and F6's rows of
# OpenSM's engines come from opensm on ibsim, each engine's own tables
# captured; F2's second dimension order, F4's loads and F5's fault sets
# make their tables.
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 12
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

# F3 in KR_QUICK runs on an 8x8 torus: the copy's heading says so
if ! kr_have_sim || [ ! -e "$KR_BUILDDIR/osm_plugin/.libs/libknsroute.so" ]; then
	kr_skip_rest "ibsim, opensm or the plugin missing"
	kr_done
fi
# ibsim's umad2sim preload and the sanitizers' runtime do not mix
if grep -q __asan_init "$KR_CLI" 2>/dev/null; then
	kr_skip_rest "sanitizer build"
	kr_done
fi
sed 's/^## F3: hot spot, 16x16 torus$/## F3: hot spot, 8x8 torus/' \
	"$T/before.md" >"$T/tree/docs/sim.md"
figures f3
kr_ok $? "F3 runs OpenSM's engines on ibsim into the copy"
# every engine's row names it as the engine that configured the tables
sec=$(awk '/^## / { s = ($0 == "## F3: hot spot, 8x8 torus") } s' "$T/tree/docs/sim.md")
n=0
for e in "torus-2QoS:-R torus-2QoS --torus_config f3o-torus-2QoS.conf" \
	 "dfsssp:-R dfsssp" "nue:-R nue" "nue-8vl:-R nue --nue_max_num_vls 8" \
	 "knsroute:-F f3o-knsroute.conf"; do
	by=${e%%:*}
	grep -q "^| ${e%%:*} | ${by%-8vl} | none | [0-9.]* | [0-9.]* | false |\$" <<<"$sec" &&
		grep -q -- "^    opensm -D 0x43 .*${e#*:} &\$" <<<"$sec" && n=$((n + 1))
done
[ "$n" = 5 ]
kr_ok $? "F3: torus-2QoS, dfsssp, nue (1 and 8 VLs) and knsroute each routed, captured and simulated ($n of 5)"
[ "$n" = 5 ] || { grep '^| ' <<<"$sec" | sed 's/^/#   /'; sed 's/^/#   /' "$T/err" | tail -n 5; }

# F2, F4, F5 and F6 at once, their quick headings in the copy
sed -e 's/^## F2: head-of-line schemes, 16x16 torus, uniform$/## F2: head-of-line schemes, 8x8 torus, uniform/' \
    -e 's/^## F4: hot spot on the 48-ary 2-direct KNS$/## F4: hot spot on the 8-ary 2-direct KNS/' \
	"$T/before.md" >"$T/tree/docs/sim.md"
figures f2 f4 f5 f6
kr_ok $? "F2, F4, F5 and F6 run into the copy"
section() { awk -v h="$1" '/^## / { s = ($0 == h) } s' "$T/tree/docs/sim.md"; }
num='[0-9][0-9.]*'
sec=$(section "## F2: head-of-line schemes, 8x8 torus, uniform")
[ "$(grep -cE "^\| (dbbm|bbq|xordet) \| $num \| $num \| [-+]$num% \| $num \|\$" <<<"$sec")" = 3 ] &&
	grep -q -- "--lmc 1 --out f2l-bbq\$" <<<"$sec" &&
	grep -q -- "sim f2l-bbq --preset thesis11 --lmc-path rr " <<<"$sec"
kr_ok $? "F2: each scheme with two dimension orders (LMC 1, round-robin) beside one"
sec=$(section "## F4: hot spot on the 8-ary 2-direct KNS")
[ "$(grep -cE "^\| 0\.[36] \|( $num \($num%\) \|){4}\$" <<<"$sec")" = 2 ] &&
	grep -q -- "--lmc-path least --pattern hotspot --sweep 0.3,0.6 " <<<"$sec"
kr_ok $? "F4: accepted traffic of the four schemes per load, one sweep each"
sec=$(section "## F5: faulty links")
# the two sets' peaks differ at every level (fixed seeds), so an interval
# of 0 would mean one set was read as all
grep -qE "^\| 8-ary 2-direct KNS \|( [-+]$num% ±$num \($num\) \|){3} 2 / 2 / 2 \|" <<<"$sec" &&
	! grep -q '±0\.0 ' <<<"$sec"
kr_ok $? "F5: each level's mean change over its 2 sets, with a confidence interval"
sec=$(section "## F6: credit loops and the watchdog")
grep -qE "^\| minhop \| minhop \| PROBLEM: credit loop \| 6 \| [1-6] \|\$" <<<"$sec" &&
	grep -qE "^\| knsroute \| knsroute \| OK \| 6 \| 0 \|\$" <<<"$sec" &&
	grep -q '^DEADLOCK at cycle .* channels wait in a cycle' <<<"$sec"
kr_ok $? "F6: minhop's captured tables deadlock and the cycle is printed; the plugin's do not"

kr_done
