#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# knsroute topo end to end: generated fabrics written as net files and read
# back by the real parser, the text and JSON output, the coordinates cache,
# ibsim's example nets refused, and the exit codes. Needs no simulator.
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 19
if [ ! -x "$KR_CLI" ]; then
	kr_skip_rest "knsroute not built at $KR_CLI"
	kr_done
fi
T=$KR_TMP
K=$KR_CLI

"$K" gen kns --k 8 --n 2 --p 2 --shuffle 7 -o "$T/kns.net" &&
"$K" topo "$T/kns.net" >"$T/out" &&
[ "$(head -1 "$T/out")" = "KNS 8-ary 2-direct 1-indirect, p=2: 64 routers, 16 crossbars, 128 CAs" ]
kr_ok $? "KNS 8x2 summary line"

# Fat-tree subnets: the summary, a label per subnet switch, the JSON keys,
# and a radix that cannot build a full tree refused with the reason.
"$K" gen kns --k 8 --n 2 --p 1 --radix 4 --shuffle 2 --fail 2 --seed 8 \
	-o "$T/ksub.net" 2>/dev/null &&
"$K" topo "$T/ksub.net" >"$T/out" &&
[ "$(head -1 "$T/out")" = "KNS 8-ary 2-direct 3-indirect (fat-tree subnets of radix 4), p=1: 64 routers, 192 subnet switches, 64 CAs" ] &&
[ "$(grep -c '^  \[[01], ([0-7*],[0-7*]), [0-2], [0-3]\] ' "$T/out")" -eq 192 ] &&
grep -qx 'missing inside subnets: 2 links, 0 switches' "$T/out"
kr_ok $? "KNS with subnets: summary, [d, p, e, o] of 192 switches, faults"

"$K" topo --json "$T/ksub.net" >"$T/ksub.json" &&
[ "$(jq -c '[.s, .radix, .missing_subnet_links, ([.crossbars[] | .stage] | max)]' "$T/ksub.json")" = "[3,4,2,2]" ]
kr_ok $? "KNS with subnets: JSON s, radix, missing links, stages"

"$K" gen kns --k 6 --n 2 --radix 4 -o "$T/bad.net" 2>"$T/err"
[ $? -eq 2 ] && grep -q "power of radix/2" "$T/err" && [ ! -e "$T/bad.net" ]
kr_ok $? "gen --radix refuses k that is no power of radix/2"

"$K" gen torus --dims 4x4x4 --p 2 --shuffle 3 -o "$T/t444.net" &&
"$K" topo "$T/t444.net" >"$T/out" &&
[ "$(cat "$T/out")" = "torus 4x4x4 (wrap x,y,z), p=2, parallel 1: 64 switches, 128 CAs" ]
kr_ok $? "torus 4x4x4 summary, nothing missing"

"$K" gen torus --dims 5x3x4 --mesh-dims 1 --parallel 2 --p 1 -o "$T/mixed.net" &&
"$K" topo "$T/mixed.net" >"$T/out" &&
[ "$(head -1 "$T/out")" = "torus 5x3x4 (wrap x,z), p=1, parallel 2: 60 switches, 60 CAs" ]
kr_ok $? "unshuffled mixed torus keeps the generator's dimension order"

# Three links left out: listed, and counted in the JSON
"$K" gen torus --dims 6x6 --p 1 --shuffle 5 --fail 3 --seed 4 -o "$T/f.net" 2>/dev/null &&
"$K" topo "$T/f.net" >"$T/out" &&
grep -qx 'missing links: 3' "$T/out" && [ "$(grep -c '^  (' "$T/out")" -eq 3 ]
kr_ok $? "missing links listed"

if command -v python3 >/dev/null; then
	"$K" topo --json "$T/f.net" >"$T/f.json" &&
	python3 - "$T/f.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["family"] == "torus" and j["dims"] == [6, 6], j
assert j["wrap"] == [True, True] and j["p"] == 1
assert len(j["coords"]) == 36 and len(set(map(tuple, j["coords"].values()))) == 36
assert len(j["missing_links"]) == 3 and j["missing_switches"] == []
for m in j["missing_links"]:
    assert set(m) == {"from", "to", "dim"}
EOF
	kr_ok $? "--json: family, dims, wrap, coords, missing_links"
	"$K" topo --json "$T/kns.net" >"$T/k.json" &&
	python3 - "$T/k.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["family"] == "kns" and j["dims"] == [8, 8] and "wrap" not in j
assert len(j["coords"]) == 64 and len(j["crossbars"]) == 16
for x in j["crossbars"].values():
    assert x["line"][x["dim"]] is None and len(x["line"]) == 2
EOF
	kr_ok $? "--json for KNS: crossbars with their line"
else
	kr_skip "python3 not installed"
	kr_skip "python3 not installed"
fi

"$K" topo --coords "$T/kns.net" >"$T/out" &&
[ "$(grep -c '^0x' "$T/out")" -eq 80 ] && [ "$(grep -c ' \* \| \*  #' "$T/out")" -eq 16 ]
kr_ok $? "--coords lists every switch, crossbars with *"

# The cache keeps the labels when a later sweep lost the origin switch
"$K" topo --cache-out "$T/cache" "$T/t444.net" >/dev/null &&
origin=$(awk '/^0x/ { print $1; exit }' "$T/cache") &&
hex=$(printf '%x' "$origin") &&
name=$(grep -A1 "switchguid=0x$hex(" "$T/t444.net" | sed -n 's/^Switch[^"]*"\([^"]*\)".*/\1/p') &&
[ -n "$name" ] &&
awk -v RS= -v ORS='\n\n' -v g="switchguid=0x$hex(" '!index($0, g)' "$T/t444.net" |
	grep -v "\"$name\"" >"$T/less.net" &&
printf 'coords_cache %s\n' "$T/cache" >"$T/k.conf" &&
"$K" topo --conf "$T/k.conf" --coords "$T/less.net" >"$T/out" &&
grep -qx 'missing switches: 1' "$T/out" &&
grep '^0x' "$T/out" | cut -d'#' -f1 | sed 's/ *$//' | sort >"$T/a" &&
grep '^0x' "$T/cache" | grep -v "$origin" | sed 's/ cas .*//' | sort >"$T/b" &&
diff -u "$T/b" "$T/a" >&2
kr_ok $? "--cache-out, then coords_cache keeps every label without the origin"

# A fabric a random probe found (knsroute gen kns --k 6 --n 2 --p 1
# --shuffle 12059, then a leaf switch cabled to two switches, one extra
# cable, two links down), which read afresh is no grid. The coordinates
# cache written before the faults, as the plugin keeps it, places it:
# the KNS with its two missing links, the extra cable and the leaf. A
# copy: route writes the cache back.
cp "$KR_SRCDIR/tests/data/kns6_leaf.coords" "$T/k6.coords" &&
printf 'coords_cache %s\n' "$T/k6.coords" >"$T/k6.conf" &&
"$K" topo --conf "$T/k6.conf" "$KR_SRCDIR/tests/data/kns6_leaf_cut.net" >"$T/out" &&
grep -q '^KNS 6-ary 2-direct 1-indirect, p=1: 36 routers, 12 crossbars, 1 pendant switch, 38 CAs$' "$T/out" &&
grep -qx 'missing links: 2' "$T/out" &&
grep -q '^note: 1 neighbour pair with more links' "$T/out" &&
grep -q '^note: pendant switch leafX ' "$T/out"
kr_ok $? "coords_cache places a damaged KNS with a two-homed leaf and an extra cable"
"$K" route --conf "$T/k6.conf" "$KR_SRCDIR/tests/data/kns6_leaf_cut.net" \
	--out "$T/r6" >"$T/out" &&
grep -q '; check passed' "$T/out" && [ -s "$T/r6/opensm-lfts.dump" ]
kr_ok $? "... and its dry run routes it, check passed"

ex=/usr/share/doc/ibsim-utils/net-examples
if [ -d "$ex" ]; then
	bad=0
	for net in "$ex"/net*; do
		"$K" topo "$net" >/dev/null 2>"$T/err"
		[ $? -eq 1 ] && grep -q 'not recognised: .*too few' "$T/err" || bad=1
	done
	kr_ok $bad "ibsim's example nets refused, exit 1"
	"$K" topo --json "$ex/net" >"$T/out"
	[ $? -eq 1 ] && grep -q '^{"version": "[^"]*", "error": "2 switches: too few' "$T/out"
	kr_ok $? "--json says why with \"error\""
else
	kr_skip "no ibsim example nets"
	kr_skip "no ibsim example nets"
fi

"$K" topo >/dev/null 2>&1
[ $? -eq 2 ]
kr_ok $? "no file: exit 2"
"$K" topo "$T/missing.net" >/dev/null 2>&1
[ $? -eq 2 ]
kr_ok $? "unreadable file: exit 2"
printf 'family torus\ndims 4x\n' >"$T/bad.conf"
"$K" topo --conf "$T/bad.conf" "$T/t444.net" 2>"$T/err" >/dev/null
[ $? -eq 2 ] && grep -q "bad.conf:2: dims:" "$T/err"
kr_ok $? "bad conf: FILE:LINE, exit 2"
printf 'dims 5x5\n' >"$T/c.conf"
"$K" topo --conf "$T/c.conf" "$T/t444.net" 2>"$T/err" >/dev/null
[ $? -eq 1 ] && grep -q "dims: no dimension of size 5" "$T/err"
kr_ok $? "conf that does not fit: the conflict, exit 1"

kr_done
