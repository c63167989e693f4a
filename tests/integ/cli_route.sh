#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# knsroute route and stats from the command line: files written all or
# nothing, exit codes, the dry run passing knsroute check, the thesis'
# table 11.3 through `knsroute stats`, and --in-force chaining dry runs as
# the plugin's sweeps follow each other.
. "$(dirname "$0")/lib.sh"

kr_plan 25
kr_tmpdir
K="$KR_CLI"
T="$KR_TMP"

"$K" gen kns --k 4 --n 2 --p 2 --shuffle 4 --lids -o "$T/kns.net"
"$K" route "$T/kns.net" --out "$T/kns" >"$T/kns.out" 2>&1
kr_ok $? "route: a shuffled KNS routes"
files=0
for f in opensm-lfts.dump opensm-sl2vl.dump path-sl vlarb topology.net \
	knsroute-tables summary; do
	[ -s "$T/kns/$f" ] && files=$((files + 1))
done
[ "$files" -eq 7 ] && [ -z "$(find "$T/kns" -name '.*tmp*')" ]
kr_ok $? "route: seven files, no temporaries left"

"$K" check "$T/kns.net" --lfts "$T/kns/opensm-lfts.dump" \
	--sl2vl "$T/kns/opensm-sl2vl.dump" --path-sl "$T/kns/path-sl" >"$T/chk.out"
kr_ok $? "check passes on route's own dump files"

grep -q "^fabric: KNS 4-ary 2-direct 1-indirect, p=2" "$T/kns/summary" &&
	grep -q "^link load .* max/mean 1.00$" "$T/kns/summary" &&
	grep -q "^plan: SL bits" "$T/kns/summary" &&
	grep -q "^write ms:" "$T/kns/summary"
kr_ok $? "summary names the fabric, the plan, the times and KNS's even load"

# The SM's LID: its traffic joins the check (32 CA ports' queries to switch
# LID 1, its answers to them, and the PerfMgr's with the 23 other switches
# both ways); one no port has is an input error.
"$K" route "$T/kns.net" --sm-lid 1 --out "$T/sm" >"$T/sm.out" 2>&1 &&
	grep -q "^SM traffic:   110 of the pairs: SL 0 between the SM (LID 1) and every CA port (SA) and switch (PerfMgr)" "$T/sm/summary" &&
	grep -q "check passed, SA traffic on SL 0 included;" "$T/sm.out" &&
	"$K" route "$T/kns.net" --sm-lid 999 --out "$T/nosm" >/dev/null 2>"$T/nosm.err"
[ $? -eq 2 ] && grep -q "kns.net: --sm-lid 999: no port has that LID" "$T/nosm.err" &&
	[ -z "$(ls -A "$T/nosm" 2>/dev/null)" ]
kr_ok $? "route --sm-lid: the SA's pairs in the summary and the check; an unknown LID exit 2"

# The SL/VL plan fails after routing: nothing may be left behind.
"$K" route "$T/kns.net" --classify dbbq --out "$T/broken" >/dev/null 2>"$T/broken.err"
rc=$?
[ $rc -ne 0 ] && [ -z "$(ls -A "$T/broken" 2>/dev/null)" ]
kr_ok $? "route: a failure leaves nothing in the output directory"

"$K" route /usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca \
	--out "$T/ft" >/dev/null 2>"$T/ft.err"
rc=$?
[ $rc -eq 1 ] && grep -q "recognition failed" "$T/ft.err"
kr_ok $? "route: a fat tree is refused with exit 1 and the reason"

"$K" route "$T/kns.net" --classify bogus --out "$T/x" >/dev/null 2>&1
[ $? -eq 2 ]
kr_ok $? "route: an unknown classifier is a usage error"

"$K" route "$T/kns.net" --classify dbbq --out "$T/x" >/dev/null 2>"$T/dbbq.err"
[ $? -eq 2 ] && grep -q "LMC" "$T/dbbq.err"
kr_ok $? "route: dbbq without LMC is refused with the reason"

"$K" gen kns --k 4 --n 2 --p 1 -o "$T/nolids.net"
"$K" route "$T/nolids.net" --classify dbbq --lmc 1 --out "$T/dbbq" >/dev/null &&
	grep -q "virtual network (2 orders)" "$T/dbbq/summary" &&
	"$K" check "$T/dbbq/topology.net" --lfts "$T/dbbq/opensm-lfts.dump" \
		--sl2vl "$T/dbbq/opensm-sl2vl.dump" --path-sl "$T/dbbq/path-sl" >/dev/null
kr_ok $? "route: dbbq with --lmc 1 (assigned LIDs): two virtual networks, checkable"

# A 3-D torus of 4s has 3 ring bits: a second order for LMC offsets would
# take the last SL bit from multicast and the detour layers (LMC 2's four
# orders, every plan). The offsets share the first order instead.
"$K" gen torus --dims 4x4x4 --p 1 --lmc 2 -o "$T/t3lmc.net"
"$K" route "$T/t3lmc.net" --out "$T/t3lmc" >/dev/null &&
	grep -q "LMC offsets take 1 of 4 dimension orders" "$T/t3lmc/summary" &&
	grep -q "SL 0: multicast" "$T/t3lmc/summary" &&
	grep -q "detour layer for faults" "$T/t3lmc/summary" &&
	"$K" check "$T/t3lmc" >/dev/null
kr_ok $? "route: a 3-D torus with LMC 2 keeps multicast and detours, its offsets share one order"

# On 2 VLs a KNS's plan has no VL for the SA's traffic: the dry run says
# that only --sm-lid checks it as OpenSM will, and stays quiet when given.
"$K" route "$T/nolids.net" --vls 2 --out "$T/kv2" >/dev/null 2>"$T/kv2.err" &&
	grep -q "leaves the SA's traffic no VL of its own.*--sm-lid" "$T/kv2.err" &&
	"$K" route "$T/nolids.net" --vls 2 --sm-lid 30 --out "$T/kv2s" >/dev/null 2>"$T/kv2s.err" &&
	[ ! -s "$T/kv2s.err" ] &&
	"$K" route "$T/nolids.net" --out "$T/kv8" >/dev/null 2>"$T/kv8.err" &&
	[ ! -s "$T/kv8.err" ]
kr_ok $? "route: a plan with no VL for the SA's traffic asks for --sm-lid; with it, or with 8 VLs, nothing on stderr"

# Thesis table 11.3: XORDET, 8x8 mesh, 4 VCs, node (0,0): X port 14 per VL,
# Y port 1/2/2/2. Four classes asked for: left to choose, they would leave
# multicast a VL of its own.
"$K" gen mesh --dims 8x8 --p 1 -o "$T/mesh.net"
"$K" stats "$T/mesh.net" --vls 4 --detour-vls 0 --classes 4 \
	--switch "switch(0,0)" >"$T/stats.out"
awk '$2 == "switch(1,0)" && $3 == 14 && $4 == 14 && $5 == 14 && $6 == 14 { x = 1 }
     $2 == "switch(0,1)" && $3 == 1 && $4 == 2 && $5 == 2 && $6 == 2 { y = 1 }
     END { exit !(x && y) }' "$T/stats.out"
kr_ok $? "stats: XORDET on an 8x8 mesh matches the thesis' table 11.3"

"$K" stats "$T/mesh.net" --lfts "$T/nonexistent" >/dev/null 2>&1
[ $? -eq 2 ]
kr_ok $? "stats: a missing dump file is an input error"

"$K" route "$T/kns.net" --out /proc/knsroute-cannot-write >/dev/null 2>&1
[ $? -eq 2 ]
kr_ok $? "route: an unwritable output directory is an error"

"$K" gen bogus --k 2 >/dev/null 2>&1
rc1=$?
"$K" gen mesh --dims 4x4 --mesh-dims 0 >/dev/null 2>&1
rc2=$?
[ $rc1 -eq 2 ] && [ $rc2 -eq 2 ]
kr_ok $? "gen: an unknown family and --mesh-dims on a mesh are usage errors"

"$K" gen torus --dims 4x5 --mesh-dims 1 --shuffle 2 -o "$T/mixed.net" &&
	"$K" topo "$T/mixed.net" | grep -q "^torus 4x5 (wrap x), p=1"
kr_ok $? "gen: --mesh-dims makes a dimension a line"

# Routers (0,2) and (1,2) lost their dimension-1 links: two places fit
# each, and the summary says which each took.
"$K" gen kns --k 4 --n 2 --p 2 --fail 2 --seed 3 -o "$T/kf.net" 2>/dev/null &&
	"$K" route "$T/kf.net" --out "$T/kf" -q >/dev/null &&
	[ "$(grep -c '^recognition: router router([01],2) placed at [0-3] in dimension 0 of the 2 places' "$T/kf/summary")" -eq 2 ]
kr_ok $? "route: routers placed by choice are named in the summary"

# A mesh with 25 of its 180 links out at a first sweep: refused, with the
# remedy named; the coordinates file of the intact fabric then places
# every switch, and the faults are repaired and checked. (With 20 out,
# seed 2, it was refused too; now a corner switch left with one link
# hangs off its neighbour, and the rest reads as the 10x10 mesh.)
"$K" gen mesh --dims 10x10 --p 1 --fail 25 --seed 1 --shuffle 2 -o "$T/hurt.net" 2>/dev/null &&
	"$K" gen mesh --dims 10x10 --p 1 --shuffle 2 -o "$T/whole.net" &&
	"$K" topo "$T/whole.net" --cache-out "$T/whole.coords" >/dev/null
"$K" route "$T/hurt.net" --out "$T/hurt" -q >/dev/null 2>"$T/hurt.err"
[ $? -eq 1 ] && grep -q "cannot be placed: .* (a coords_file places every switch, knsroute.conf(5))" "$T/hurt.err" &&
	printf 'coords_file %s\n' "$T/whole.coords" >"$T/whole.conf" &&
	"$K" route "$T/hurt.net" --conf "$T/whole.conf" --out "$T/hurt" -q >"$T/hurt.out" &&
	grep -q "check passed" "$T/hurt.out" && grep -q "^repair: 25 faults:" "$T/hurt/summary"
kr_ok $? "route: a mesh too damaged to read names coords_file, which then places it"

# 20 links out, seed 2: a corner switch left with one link. No reading of
# the whole mesh fits (it was refused); the rest reads as the 10x10 mesh
# with a hole, the corner switch hanging off its neighbour: routed down
# its one link and checked.
"$K" gen mesh --dims 10x10 --p 1 --fail 20 --seed 2 --shuffle 2 -o "$T/corner.net" 2>/dev/null &&
	"$K" route "$T/corner.net" --out "$T/corner" -q >"$T/corner.out" &&
	grep -q "check passed" "$T/corner.out" &&
	grep -q "^fabric: mesh 10x10, p=1, parallel 1: 99 switches, 1 pendant switch, 100 CAs" "$T/corner/summary"
kr_ok $? "route: a mesh whose corner switch kept one link reads with it hanging off"

# cut_cable NET NAME PORT: NET without the cable at NAME[PORT], both ends.
cut_cable() {
	awk -v n="$2" -v p="$3" '
	/^(Switch|Ca|Hca)[ \t]/ { split($0, q, "\""); cur = q[2] }
	cur == n && $1 == "[" p "]" { next }
	index($0, "\"" n "\"[" p "]") { next }
	{ print }' "$1"
}

# Two faults of a 4x4 mesh (where some detours still leave their SL), as
# dry runs: the second with the first's tables in force keeps the SL of
# every pair whose route stays; a second from scratch (as before
# --in-force, or an OpenSM restarted without its tables cache) moves some.
"$K" gen mesh --dims 4x4 --p 2 --lids -o "$T/k.net" &&
	"$K" topo "$T/k.net" --cache-out "$T/k.coords" >/dev/null &&
	printf 'coords_cache %s\n' "$T/k.coords" >"$T/k.conf" &&
	cut_cable "$T/k.net" "switch(2,1)" 5 >"$T/k1.net" &&
	cut_cable "$T/k1.net" "switch(2,2)" 3 >"$T/k2.net" &&
	[ "$(wc -l <"$T/k2.net")" -eq $(($(wc -l <"$T/k.net") - 4)) ]
for r in 1 2 2x; do
	force=()
	[ "$r" = 2 ] && force=(--in-force "$T/r1/knsroute-tables")
	"$K" route "$T/k${r%x}.net" --conf "$T/k.conf" "${force[@]}" \
		--out "$T/r$r" -q >/dev/null &&
		"$K" info --nodes "$T/r$r/topology.net" >"$T/r$r/nodes" &&
		"$K" info --links "$T/r$r/topology.net" >"$T/r$r/links" || break
done
stable() {
	python3 "$KR_LIBDIR/ref_stable.py" \
		"$T/r1/nodes" "$T/r1/links" "$T/r1/opensm-lfts.dump" "$T/r1/path-sl" \
		"$T/r$1/nodes" "$T/r$1/links" "$T/r$1/opensm-lfts.dump" "$T/r$1/path-sl"
}
if command -v python3 >/dev/null; then
	read -r _ same _ moved _ <<<"$(stable 2)"
	read -r _ same_x _ moved_x _ <<<"$(stable 2x)"
	echo "# second fault with the first in force: SAME $same MOVED $moved; from scratch: SAME $same_x MOVED $moved_x"
	[ "${same:-0}" -gt 100 ] && [ "${moved:-1}" -eq 0 ] && [ "${moved_x:-0}" -gt 0 ] &&
		grep -q "^tables in force: from a tables cache, [1-9][0-9]* destinations repaired" "$T/r2/summary" &&
		! grep -q "^tables in force" "$T/r2x/summary"
	kr_ok $? "route --in-force: the second fault keeps every unchanged route's SL (from scratch $moved_x move)"
else
	kr_skip "needs python3"
fi

# --in-force of another fabric, or damaged: exit 2 naming the file
"$K" route "$T/kns.net" --in-force "$T/r1/knsroute-tables" --out "$T/bad1" \
	>/dev/null 2>"$T/bad1.err"
[ $? -eq 2 ] && grep -q "r1/knsroute-tables:[0-9]*: .*: the LIDs were handed out anew since" "$T/bad1.err" &&
	[ ! -e "$T/bad1" ]
kr_ok $? "route --in-force: another fabric's tables cache is an input error"
line=$(grep -n '^sl 1 ' "$T/r1/knsroute-tables" | cut -d: -f1)
sed "${line}s/^sl 1 /sl 1 z/" "$T/r1/knsroute-tables" >"$T/bad.tables"
"$K" route "$T/k1.net" --in-force "$T/bad.tables" --out "$T/bad2" >/dev/null 2>"$T/bad2.err"
[ $? -eq 2 ] && grep -q "bad.tables:$line: expected one SL per LID" "$T/bad2.err"
kr_ok $? "route --in-force: a damaged tables cache names its line"
# the repair's pass is kept, and a pass number out of range is refused
line=$(grep -n '^pass [1-9][0-9]*$' "$T/r1/knsroute-tables" | cut -d: -f1)
sed "${line:-0}s/^pass .*/pass 0/" "$T/r1/knsroute-tables" >"$T/bad3.tables"
"$K" route "$T/k1.net" --in-force "$T/bad3.tables" --out "$T/bad3" >/dev/null 2>"$T/bad3.err"
rc=$?
[ -n "$line" ] && [ $rc -eq 2 ] &&
	grep -q "bad3.tables:$line: expected \"pass N\" (N from 1)" "$T/bad3.err"
kr_ok $? "route --in-force: the tables cache says which repair pass made them"

# Two VLs leave a KNS with subnets no VL for the up*/down* layer: the
# pristine tables' check names management traffic, and a fault's repair,
# which meets the loop first, says where it may come from.
"$K" gen kns --k 8 --n 2 --radix 4 --p 1 --fail 1 --seed 1 -o "$T/ft.net" 2>/dev/null
"$K" route "$T/ft.net" --vls 2 --out "$T/ft" >/dev/null 2>"$T/ft.err"
[ $? -eq 1 ] && [ ! -e "$T/ft" ] &&
	grep -q "repair failed: the routes that survive the faults already close a credit loop, maybe through the routes to switches, which this plan left no VL of their own" "$T/ft.err"
kr_ok $? "route: a repair that meets the management loop of a plan without its VL says so"

kr_done
