#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# MiKANT end to end through the CLI: gen's counts, topo's addresses and
# missing links, the coordinates cache, and the dry run on shuffled
# MiKANT(4,3), (3,4), (6,3): minimal, the forced link load (docs/design.md),
# credit-loop-free, and the same verdict from check on the dumps. Needs no
# simulator.
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 14
if [ ! -x "$KR_CLI" ]; then
	kr_skip_rest "knsroute not built at $KR_CLI"
	kr_done
fi
T=$KR_TMP
K=$KR_CLI

# (2n-2) k^(n-1) switches, 2 k^n CAs: 36 and 54 for (3,3)
"$K" gen mikant --k 3 --n 3 -o "$T/m33.net" &&
[ "$(grep -c '^Switch' "$T/m33.net")" -eq 36 ] &&
[ "$(grep -c '^Ca' "$T/m33.net")" -eq 54 ] &&
grep -q '^Switch	6 "sw(1,1,20)"' "$T/m33.net" &&
grep -q '"ca(1,120)"' "$T/m33.net"
kr_ok $? "gen mikant: counts and address names"

"$K" gen mikant --k 3 --n 3 --p 2 -o "$T/bad.net" 2>"$T/err"
[ $? -eq 2 ] && grep -q "each leaf has K CAs" "$T/err" && [ ! -e "$T/bad.net" ]
kr_ok $? "gen mikant refuses --p, exit 2"

# the Clos of as many CAs: (2n-1) k^(n-1) = 45 switches; a middle switch
# reaches k leaves' parents in each group; nothing recognises it
"$K" gen clos --k 3 --n 3 -o "$T/c33.net" &&
[ "$(grep -c '^Switch' "$T/c33.net")" -eq 45 ] &&
[ "$(grep -c '^Ca' "$T/c33.net")" -eq 54 ] &&
[ "$(sed -n '/^Switch	6 "top(12)"/,/^$/p' "$T/c33.net" | grep -c '"sw([01],1,[0-2]2)"')" -eq 6 ] &&
"$K" gen clos --k 3 --n 3 --dims 3x3 2>"$T/err" >/dev/null
[ $? -eq 2 ] && grep -q "clos takes --k and --n" "$T/err" &&
"$K" topo "$T/c33.net" 2>"$T/err" >/dev/null
[ $? -eq 1 ] && grep -q "not recognised" "$T/err"
kr_ok $? "gen clos: counts, middle switches' links; topo recognises none"

"$K" gen mikant --k 3 --n 3 --shuffle 4 --fail 2 --seed 3 -o "$T/f33.net" \
	2>/dev/null &&
"$K" topo "$T/f33.net" >"$T/out" &&
[ "$(head -1 "$T/out")" = "MiKANT(k=3, n=3), 2 groups x 2 stages x 9 switches of radix 6, p=3: 36 switches, 54 CAs" ] &&
[ "$(grep -cE '^  \([01],[01],[0-2][0-2]\) sw-' "$T/out")" -eq 36 ] &&
grep -qx 'missing links: 2' "$T/out" &&
[ "$(grep -cE '^  \([01],[01],[0-2]{2}\) - \([01],1,[0-2]{2}\)$' "$T/out")" -eq 2 ]
kr_ok $? "topo: summary, every address, missing links by address"

# JSON: each missing link from its lower end up (or across) to the switch
# whose replaced digit (index = the stage here, n = 3) is the one given
"$K" topo --json "$T/f33.net" >"$T/f33.json" &&
[ "$(jq -c '[.family, .dims, (.missing_links | length),
	([.missing_links[] | select(.to[.from[2]] == .digit and
		(.to[2] == .from[2] + 1 or .to[3] != .from[3]))] | length)]' \
	"$T/f33.json")" = '["mikant",[3,3,2,2],2,2]' ]
kr_ok $? "topo --json: family, dims, missing links with their digit"

# the cache is a coordinates file of the MiKANT, read back as it is
"$K" topo --coords --cache-out "$T/cache" "$T/m33.net" >"$T/before" &&
grep -q '^family mikant$' "$T/cache" && grep -q '^dims 3x3x2x2$' "$T/cache" &&
printf 'coords_cache %s\n' "$T/cache" >"$T/c.conf" &&
"$K" topo --conf "$T/c.conf" --coords "$T/m33.net" >"$T/after" &&
diff <(grep '^0x' "$T/before") <(grep '^0x' "$T/after") >/dev/null
kr_ok $? "coordinates cache: family mikant, dims 3x3x2x2, read back"

# Dry runs: the forced load figures of design.md, hops 2..2n, check passed
for kn in "4 3 160 136.00 1.18" "3 4 189 162.60 1.16" "6 3 576 476.00 1.21" \
	"4 2 40 40.00 1.00"; do
	set -- $kn
	rm -rf "$T/r"
	"$K" gen mikant --k "$1" --n "$2" --shuffle 9 -o "$T/m.net" &&
	"$K" route "$T/m.net" --out "$T/r" >/dev/null &&
	grep -q "max $3, mean $4, max/mean $5\$" "$T/r/summary" &&
	grep -q 'data + management (to and from switches): .* credit loops: none' \
		"$T/r/summary" &&
	grep -q 'second hop across the top' "$T/r/summary" &&
	"$K" check "$T/r/topology.net" --lfts "$T/r/opensm-lfts.dump" \
		--sl2vl "$T/r/opensm-sl2vl.dump" --path-sl "$T/r/path-sl" \
		>"$T/chk" &&
	grep -q 'credit loops: none' "$T/chk"
	kr_ok $? "route + check MiKANT($1,$2): load max/mean $5, no credit loop"
done

# one data VL cannot hold it: the plan says why, nothing written
printf 'vls 1\n' >"$T/v1.conf"
rm -rf "$T/r"
"$K" route "$T/m33.net" --conf "$T/v1.conf" --out "$T/r" >/dev/null 2>"$T/err"
[ $? -ne 0 ] && grep -q "one for the second hop across the top" "$T/err" &&
[ ! -e "$T/r/opensm-lfts.dump" ]
kr_ok $? "vls 1 refused: the second hop across needs its VL"

# minimal: no path of MiKANT(4,3) is longer than its diameter 2n = 6
# links (the summary's hop histogram counts every link of a path)
rm -rf "$T/r"
"$K" gen mikant --k 4 --n 3 --shuffle 2 -o "$T/m43.net" &&
"$K" route "$T/m43.net" --out "$T/r" >/dev/null &&
awk '/^hops/ { on = 1; next } on && /^ *[0-9]+:/ { h = $1 + 0; if (h > max) max = h; next } on { on = 0 } END { exit max == 6 ? 0 : 1 }' "$T/r/summary"
kr_ok $? "hops of MiKANT(4,3): the longest is the diameter 2n"

# multicast: two groups over both groups of the MiKANT, trees proven
# together with unicast
{
	printf '0xc001 0 '; grep -o '"ca-[0-9a-f]*"' "$T/m43.net" | sort -u |
		head -40 | tr -d '"' | tr '\n' ' '; echo
	printf '0xc002 0 '; grep -o '"ca-[0-9a-f]*"' "$T/m43.net" | sort -u |
		tail -20 | tr -d '"' | tr '\n' ' '; echo
} >"$T/groups"
rm -rf "$T/r"
"$K" route "$T/m43.net" --mcast-groups "$T/groups" --out "$T/r" >/dev/null &&
"$K" check "$T/r/topology.net" --lfts "$T/r/opensm-lfts.dump" \
	--sl2vl "$T/r/opensm-sl2vl.dump" --path-sl "$T/r/path-sl" \
	--mfts "$T/r/opensm.mcfdbs" >"$T/chk" 2>/dev/null &&
grep -q 'counted unicast + multicast: .* credit loops: none' "$T/chk"
kr_ok $? "multicast trees on MiKANT(4,3): proven with unicast"

# faults: random link pairs and single switches, all handled, no SL moved
"$K" faults "$T/m43.net" --random 2 --trials 10 >"$T/fl" &&
"$K" faults "$T/m43.net" --switches 1 --trials 10 >"$T/fs" &&
grep -q '^fabric  *MiKANT(k=4, n=3)' "$T/fl" &&
[ "$(cat "$T/fl" "$T/fs" |
      grep -cE '^(handled_total +1|pairs_sl_changed +0)\.000000$')" -eq 4 ]
kr_ok $? "faults on MiKANT(4,3): links and switches handled, SLs kept"

kr_done
