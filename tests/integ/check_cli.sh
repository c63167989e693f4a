#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# knsroute check as a command: exit status 0 / 1 / 2, FILE:LINE on bad
# input, JSON that parses, --write-* files equal to what was read and never
# left half-written. Needs no simulator (so it also runs under sanitizers).
# Data: chk_t33-* (OpenSM dor on a shuffled 3x3 torus, a credit loop) and
# chk_fattree-* (OpenSM ftree on a 2-level fat tree, clean).
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 38
if [ ! -x "$KR_CLI" ]; then
	kr_skip_rest "knsroute not built"
	kr_done
fi
D=$KR_SRCDIR/tests/data
T=$KR_TMP
T33="$D/chk_t33.ibnd --lfts $D/chk_t33-lfts.dump"

# run NAME ARGS...: stdout to $T/NAME.out, stderr to $T/NAME.err, status in RC
run() {
	local name=$1
	shift
	"$KR_CLI" check "$@" >"$T/$name.out" 2>"$T/$name.err"
	RC=$?
}

run help --help
[ $RC -eq 0 ] && grep -q "JSON keys" "$T/help.out" &&
	grep -q "Exit status" "$T/help.out"
kr_ok $? "--help documents the JSON keys and the exit status"

run noargs
[ $RC -eq 2 ] && grep -q "expected a TOPOLOGY" "$T/noargs.err"
kr_ok $? "no topology: exit 2"

run nolfts "$D/chk_t33.ibnd"
[ $RC -eq 2 ] && grep -q -- "--lfts FILE is required" "$T/nolfts.err"
kr_ok $? "no --lfts: exit 2"

run clean "$D/chk_fattree.ibnd" --lfts "$D/chk_fattree-ftree-lfts.dump"
[ $RC -eq 0 ] && grep -q "verdict: OK" "$T/clean.out"
kr_ok $? "ftree on a fat tree: exit 0, verdict OK"

# Every LID's SL given (dor leaves all on SL 0): the loop is proven.
awk '/^0x/ { print strtonum($1), 0 }' "$D/chk_t33-lfts.dump" | sort -un \
	>"$T/t33-sl0.path-sl"

# shellcheck disable=SC2086
run loop $T33 --sl2vl "$D/chk_t33-sl2vl.dump" --path-sl "$T/t33-sl0.path-sl"
[ $RC -eq 1 ] && grep -q "credit loop of 4 channels" "$T/loop.out" &&
	grep -q "verdict: PROBLEM: credit loop" "$T/loop.out"
kr_ok $? "dor on the shuffled 3x3 torus, every SL given: exit 1, a 4-channel credit loop"

# shellcheck disable=SC2086
run unproven $T33 --sl2vl "$D/chk_t33-sl2vl.dump"
[ $RC -eq 3 ] && grep -q "verdict: UNPROVEN: credit loop through 4 pairs whose SL was assumed" \
	"$T/unproven.out" && grep -q "no path SLs (--path-sl)" "$T/unproven.err" &&
	grep -q "pairs without a path SL:    144 data, 81 management" "$T/unproven.out"
kr_ok $? "the same loop with the SLs not given (QoS maps): exit 3, UNPROVEN, a warning"

# shellcheck disable=SC2086
run json $T33 --json
[ $RC -eq 3 ] && python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "assumed_credit_loop" and r["pairs"] == r["delivered"] == 225
assert len(r["credit_loop"]) == 4 and r["cdg"]["dependencies"] > 0
assert all(c["assumed"] == ["sl2vl"] for c in r["credit_loop"])
a = r["assumed"]
assert not a["exact"] and a["sl2vl_ports"] == a["ports"] == 54
assert a["sl_pairs"] == {"data": 144, "management": 81}
c = r["classes"]
assert c["data"]["pairs"] == 144 and c["all"]["pairs"] == 225
assert c["data"]["verdict"] == c["all"]["verdict"] == "assumed_credit_loop"
assert r["dests"] == "cas"' "$T/json.out"
kr_ok $? "--json parses, with verdict, pairs, classes, assumptions and the loop"

run badlfts "$D/chk_t33.ibnd" --lfts "$D/chk_t33-sl2vl.dump"
[ $RC -eq 2 ] && grep -q "chk_t33-sl2vl.dump:1: expected \"Unicast lids" \
	"$T/badlfts.err"
kr_ok $? "an SL2VL dump given as LFTs: exit 2 with FILE:LINE"

# shellcheck disable=SC2086
run badsl2vl $T33 --sl2vl "$D/chk_t33-lfts.dump"
[ $RC -eq 2 ] && grep -q "chk_t33-lfts.dump:1: expected a port header" \
	"$T/badsl2vl.err"
kr_ok $? "an LFT dump given as SL2VL: exit 2 with FILE:LINE"

printf '1 3\n999 2\n' >"$T/bad.psl"
# shellcheck disable=SC2086
run badpsl $T33 --path-sl "$T/bad.psl"
[ $RC -eq 2 ] && grep -q "bad.psl:2: unknown DLID 999" "$T/badpsl.err"
kr_ok $? "a path-sl file with an unknown LID: exit 2 with FILE:LINE"

run wrongtopo "$D/chk_fattree.ibnd" --lfts "$D/chk_t33-lfts.dump"
[ $RC -eq 2 ] && grep -q "chk_t33-lfts.dump:1: unknown switch GUID" \
	"$T/wrongtopo.err"
kr_ok $? "LFTs of another fabric: exit 2, unknown switch GUID"

# shellcheck disable=SC2086
run write $T33 --sl2vl "$D/chk_t33-sl2vl.dump" --write-lfts "$T/w.lfts" \
	--write-sl2vl "$T/w.sl2vl"
cmp -s "$T/w.lfts" "$D/chk_t33-lfts.dump" &&
	cmp -s "$T/w.sl2vl" "$D/chk_t33-sl2vl.dump"
kr_ok $? "--write-lfts and --write-sl2vl reproduce OpenSM's files"

printf '# mixed\n1 3\n10 0x4 5\n' >"$T/in.psl"
# shellcheck disable=SC2086
run wpsl $T33 --path-sl "$T/in.psl" --write-path-sl "$T/w.psl"
# shellcheck disable=SC2086
run wpsl2 $T33 --path-sl "$T/w.psl"
grep -q "^10 4 5$" "$T/w.psl" && grep -q "^1 3$" "$T/w.psl" &&
	cmp -s "$T/wpsl.out" "$T/wpsl2.out"
kr_ok $? "--write-path-sl writes what was read; reading it back reports the same"

# shellcheck disable=SC2086
run nodir $T33 --write-lfts "$T/no/such/dir/x"
[ $RC -eq 2 ] && [ -z "$(ls -A "$T" | grep '\.tmp\.')" ]
kr_ok $? "an unwritable --write-lfts: exit 2, no temporary file left"

sed '5q' "$D/chk_t33-lfts.dump" >"$T/cut.lfts"
run cut "$D/chk_t33.ibnd" --lfts "$T/cut.lfts" --write-lfts "$T/cut.rewritten"
[ $RC -eq 2 ] && grep -q "cut.lfts:5: truncated" "$T/cut.err" &&
	[ ! -e "$T/cut.rewritten" ]
kr_ok $? "a truncated dump: exit 2 at its last line, nothing written"

# A capture directory: check DIR reads topology.net, lfts.dump and the
# optional files; each missing one is a warning and an assumption.
mkdir -p "$T/cap"
cp "$D/chk_t33.ibnd" "$T/cap/topology.net"
cp "$D/chk_t33-lfts.dump" "$T/cap/lfts.dump"
run capmin "$T/cap"
[ $RC -eq 3 ] && grep -q "no SL2VL maps" "$T/capmin.err" &&
	grep -q "no path SLs" "$T/capmin.err" &&
	grep -q "ports without an SL2VL map: 54 of 54" "$T/capmin.out"
kr_ok $? "check DIR with topology and LFTs only: exit 3, two warnings, the maps counted"

cp "$D/chk_t33-sl2vl.dump" "$T/cap/sl2vl.dump"
cp "$T/t33-sl0.path-sl" "$T/cap/path-sl"
run capall "$T/cap"
[ $RC -eq 1 ] && [ ! -s "$T/capall.err" ] &&
	grep -q "assumed: nothing" "$T/capall.out" &&
	grep -q "verdict: PROBLEM: credit loop" "$T/capall.out"
kr_ok $? "check DIR with every file: no warning, nothing assumed, the loop proven"

run capover "$T/cap" --lfts "$D/chk_t33-dump_lfts.txt" --json
[ $RC -eq 1 ] && python3 -c 'import json, sys
r = json.load(open(sys.argv[1])); assert r["assumed"]["exact"] is True
assert r["verdict"] == "credit_loop" and r["dests"] == "all"' "$T/capover.out"
kr_ok $? "an option overrides the directory's file"

# Partial inputs: path SLs for one DLID only, SL2VL maps of CAs only.
head -1 "$T/t33-sl0.path-sl" >"$T/one.psl"
awk '/^Switch/ { skip = 1 } /^Channel/ { skip = 0 } !skip' \
	"$D/chk_t33-sl2vl.dump" >"$T/ca.sl2vl"
# shellcheck disable=SC2086
run partial $T33 --path-sl "$T/one.psl" --sl2vl "$T/ca.sl2vl"
[ $RC -eq 3 ] && [ ! -s "$T/partial.err" ] &&
	grep -q "ports without an SL2VL map: 45 of 54" "$T/partial.out" &&
	grep -q "pairs without a path SL:    144 data, 72 management" "$T/partial.out"
kr_ok $? "partial SL2VL and path SLs: counted in the report, exit 3"

# --dests: the data alone, or everything.
# shellcheck disable=SC2086
run dests $T33 --dests all --json
[ $RC -eq 3 ] && python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["dests"] == "all"' "$T/dests.out"
kr_ok $? "--dests all counts management traffic"
# shellcheck disable=SC2086
run badests $T33 --dests some
[ $RC -eq 2 ] && grep -q "dests expects cas, all or auto" "$T/badests.err"
kr_ok $? "--dests with another word: exit 2"

# The SA's traffic: an SM LID no port has is refused before any check; a
# real one (the last CA's second LID, LMC 1) adds its pairs to the
# management class: 8 other CA ports' queries, answers to their 16 LIDs,
# on --sm-sl, and on SL 0 the PerfMgr's with the same ports and the 9
# switches.
# shellcheck disable=SC2086
run nosm $T33 --sm-lid 999
[ $RC -eq 2 ] && grep -q -- "--sm-lid 999: no port of the fabric has that LID" "$T/nosm.err" &&
	[ ! -s "$T/nosm.out" ]
ok=$?
# --sm-sl alone has no SM to apply to (the ibnetdiscover file marks none)
# shellcheck disable=SC2086
run nosmlid $T33 --sm-sl 3
[ $ok -eq 0 ] && [ $RC -eq 2 ] && [ ! -s "$T/nosmlid.out" ] &&
	grep -q -- "--sm-sl needs the SM's LID" "$T/nosmlid.err"
ok=$?
sm=$(awk '/^0x/ { print strtonum($1) }' "$D/chk_t33-lfts.dump" | sort -n | tail -n 1)
# shellcheck disable=SC2086
run sa $T33 --sm-lid "$sm" --sm-sl 3 --json
[ $ok -eq 0 ] && python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["sa"] == {"sm_lid": int(sys.argv[2]), "sl": 3, "sl_taken": False,
                   "perfmgr_sl": 0,
                   "pairs": 24 + 42}, r["sa"]' "$T/sa.out" "$sm"
kr_ok $? "--sm-lid: an unknown LID exit 2, --sm-sl without it exit 2; a CA's LID adds 8 + 16 SA pairs on --sm-sl, 8 + 16 + 9 + 9 PerfMgr pairs on SL 0"

# A capture DIR's capture.log names the SM (a log from before the SL was
# logged: SL 0); one naming an LID no port has is an input error there.
mkdir -p "$T/cap"
cp "$D/chk_t33.ibnd" "$T/cap/topology.net" && cp "$D/chk_t33-lfts.dump" "$T/cap/lfts.dump"
echo "discovery: from mlx5_0 port 1, 9 switches, 9 other nodes, SM LID $sm, 0.02 s" >"$T/cap/capture.log"
run caplog "$T/cap" --json
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["sa"] == {"sm_lid": int(sys.argv[2]), "sl": 0, "sl_taken": True,
                   "perfmgr_sl": 0,
                   "pairs": 24 + 42}, r["sa"]
assert r["assumed"]["sl_pairs"]["management"] == 24, r["assumed"]' "$T/caplog.out" "$sm"
ok=$?
echo "discovery: from mlx5_0 port 1, 9 switches, 9 other nodes, SM LID 999 SL 2, 0.02 s" >"$T/cap/capture.log"
run badlog "$T/cap"
[ $RC -eq 2 ] && grep -q "$T/cap/capture.log: SM LID 999: no port of the fabric has that LID" "$T/badlog.err" &&
	[ $ok -eq 0 ]
kr_ok $? "check DIR: the SM from capture.log (an older log gives no SL: SL 0 taken, its SA pairs assumed); an unknown SM LID there exit 2 naming the log"

# LIDs from the LFT dump's port GUIDs when the topology has none.
sed 's/ lid [0-9]* lmc [0-9]*//; s/# lid [0-9]* /# /; s/ lid [0-9]* 4x/ 4x/' \
	"$D/chk_t33.ibnd" >"$T/nolids.ibnd"
"$KR_CLI" info "$T/nolids.ibnd" 2>/dev/null | grep -qi "lids: *0\|no lids" ; :
run nolids "$T/nolids.ibnd" --lfts "$D/chk_t33-lfts.dump" --sl2vl "$D/chk_t33-sl2vl.dump" \
	--path-sl "$T/t33-sl0.path-sl"
[ $RC -eq 1 ] && grep -q "LIDs taken from the port GUIDs" "$T/nolids.err" &&
	grep -q "credit loop of 4 channels" "$T/nolids.out"
kr_ok $? "a topology without LIDs: LIDs from the LFT dump, same verdict"

# ibnetdiscover -l output: a node list, refused by name.
printf 'Switch\t : 0x0002c9783aac1b04 ports 5 devid 0x0 vendid 0x0 "sw"\n' \
	>"$T/list.txt"
run nodelist "$T/list.txt" --lfts "$D/chk_t33-lfts.dump"
[ $RC -eq 2 ] && grep -q "list.txt:1: a node list (.ibnetdiscover -l." "$T/nodelist.err" &&
	grep -q "use plain .ibnetdiscover. output" "$T/nodelist.err"
kr_ok $? "a node list: exit 2 naming the format to use"

# knsroute path: hops to delivery (exit 0), to a failure (exit 1), JSON.
"$KR_CLI" path "$T/cap" H-0002ccbdb8176800 S-0002c9783aac1b04 \
	>"$T/path.out" 2>"$T/path.err"
RC=$?
[ $RC -eq 0 ] && grep -q "SLID 2 -> DLID 4, SL 0$" "$T/path.out" &&
	grep -Eq 'delivered at S-0002c9783aac1b04( "[^"]*")?\[0\]' "$T/path.out" &&
	[ "$(grep -c '^  [0-9]' "$T/path.out")" -eq 4 ]
kr_ok $? "path by node names in a capture: 4 hops, delivered"
"$KR_CLI" path "$T/cap" 0x0002ccbdb8176801 24 --json >"$T/pathj.out" 2>&1
RC=$?
[ $RC -eq 0 ] && python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
assert p["slid"] == 2 and p["dlid"] == 24 and p["result"] == "delivered"
assert not p["sl_assumed"] and p["hops"][0]["node"] == "H-0002ccbdb8176800"
assert all(h["vl"] == 0 and not h["map_assumed"] for h in p["hops"])' "$T/pathj.out"
kr_ok $? "path by port GUID and LID, --json"
sed 's/^0x0018 002/0x0018 003/' "$D/chk_t33-lfts.dump" >"$T/broken.lfts"
"$KR_CLI" path "$D/chk_t33.ibnd" 2 24 --lfts "$T/broken.lfts" \
	>"$T/pathb.out" 2>/dev/null
RC=$?
[ $RC -eq 1 ] && grep -q "not delivered: " "$T/pathb.out"
kr_ok $? "path through a broken entry: exit 1 and where it failed"
"$KR_CLI" path "$T/cap" nosuchnode 24 >/dev/null 2>"$T/pathu.err"
[ $? -eq 2 ] && grep -q '"nosuchnode": no node' "$T/pathu.err"
kr_ok $? "path with an unknown SRC: exit 2"
# Node descriptions name nodes too (OpenSM's files name them by GUID),
# unless two nodes share one.
mkdir -p "$T/dupdesc"
cp "$T/cap/lfts.dump" "$T/dupdesc/lfts.dump"
sed 's/"ca-96bf887f"/"same desc"/; s/"sw-232f36b4"/"same desc"/' \
	"$T/cap/topology.net" >"$T/dupdesc/topology.net"
"$KR_CLI" path "$T/cap" ca-96bf887f sw-232f36b4 >"$T/pathd.out" 2>&1 &&
	cmp -s "$T/path.out" "$T/pathd.out" &&
	! "$KR_CLI" path "$T/dupdesc" "same desc" 24 >/dev/null 2>"$T/pathdd.err" &&
	grep -q '"same desc": several nodes have that description' "$T/pathdd.err"
kr_ok $? "path by node descriptions: the same hops as by names; a description two nodes share is refused"
# Multicast (mcast_t33-*: OpenSM minhop with osmtest's groups, real dumps).
M="$D/mcast_t33.ibnd --lfts $D/mcast_t33-lfts.dump --sl2vl $D/mcast_t33-sl2vl.dump"
awk '/^0x/ { print strtonum($1), 0 }' "$D/mcast_t33-lfts.dump" | sort -un \
	>"$T/m33-sl0.path-sl"
# shellcheck disable=SC2086
run mcast $M --path-sl "$T/m33-sl0.path-sl" --dests cas \
	--mfts "$D/mcast_t33-dump_mfts.txt"
[ $RC -eq 3 ] && grep -q "no group SLs (--mcast-sl): every multicast group taken as SL 0" \
	"$T/mcast.err" && grep -q "multicast groups without an SL: 3 of 3" "$T/mcast.out" &&
	grep -q "verdict: UNPROVEN: credit loop with multicast" "$T/mcast.out"
kr_ok $? "--mfts dump_mfts without --mcast-sl: SLs assumed with a warning, the multicast loop unproven"

# ibroute -M prints a block for every switch it is asked about, even one
# without entries: a switch without one was never dumped
# shellcheck disable=SC2086
run mcast_one $M --path-sl "$T/m33-sl0.path-sl" --mfts "$D/mcast_t33-ibroute-Mn.txt"
[ $RC -eq 2 ] && grep -q "^knsroute check: $D/mcast_t33-ibroute-Mn.txt: no MFT block for 8 of 9 switches, the first 0x0002c90000000001 " \
	"$T/mcast_one.err" && [ ! -s "$T/mcast_one.out" ]
kr_ok $? "--mfts ibroute -M -n of one switch: exit 2, how many switches have no block and the first"

# opensm.mcfdbs leaves such switches out, but a cut shows in its last line
# 0xC00C of the first switch, cut after "0x001  0"
head -c 139 "$D/mcast_t33-mcfdbs.dump" >"$T/cut.mcfdbs"
# shellcheck disable=SC2086
run mcast_cut $M --path-sl "$T/m33-sl0.path-sl" --mfts "$T/cut.mcfdbs" \
	--mcast-sl "$D/mcast_t33-saquery-g.txt"
[ $RC -eq 2 ] && grep -q "^knsroute check: $T/cut.mcfdbs:6: truncated: the file ends inside this entry" "$T/mcast_cut.err" &&
	[ ! -s "$T/mcast_cut.out" ]
kr_ok $? "--mfts opensm.mcfdbs cut inside an entry: exit 2, FILE:LINE"

# shellcheck disable=SC2086
run mcast_loop $M --path-sl "$T/m33-sl0.path-sl" --dests cas \
	--mfts "$D/mcast_t33-mcfdbs.dump" --mcast-sl "$D/mcast_t33-saquery-g.txt"
[ $RC -eq 1 ] && grep -q "verdict: PROBLEM: credit loop with multicast" "$T/mcast_loop.out" &&
	grep -q "data (CA to CA): 72 pairs, 0 undelivered, credit loops: none" "$T/mcast_loop.out" &&
	grep -q "MLID 0xC000 (multicast)" "$T/mcast_loop.out"
kr_ok $? "OpenSM's default trees with minhop data paths: exit 1, a loop only multicast closes, the MLID in the witness"

# shellcheck disable=SC2086
run msl_only $M --mcast-sl "$D/mcast_t33-saquery-g.txt"
[ $RC -eq 2 ] && grep -q -- "--mcast-sl needs --mfts" "$T/msl_only.err"
kr_ok $? "--mcast-sl without --mfts: exit 2"

# shellcheck disable=SC2086
run msl_m $M --mfts "$D/mcast_t33-mcfdbs.dump" --mcast-sl "$D/mcast_t33-saquery-m.txt"
[ $RC -eq 2 ] && grep -q "mcast_t33-saquery-m.txt:1: saquery -m member records carry no SL" \
	"$T/msl_m.err"
kr_ok $? "saquery -m as --mcast-sl: exit 2, FILE:LINE saying to use saquery -g"


# a topology where only a switch has a LID: no pair can be formed, and an
# empty check must not read as OK
"$KR_CLI" check "$KR_SRCDIR/tests/data/net_mixed.net" \
	--lfts "$KR_SRCDIR/tests/data/ibnd_mixed_lmc1-opensm.fdbs" \
	>"$T/empty.out" 2>"$T/empty.err"
RC=$?
[ $RC -eq 2 ] && grep -q "verdict: NOTHING CHECKED" "$T/empty.out" &&
	grep -q "no pair to check" "$T/empty.err" &&
	! grep -q "verdict: OK" "$T/empty.out"
kr_ok $? "no pair to check: NOTHING CHECKED, exit 2 (was verdict OK, exit 0)"

# A directory's oper-vls (a capture's OperVLs): knsroute's 3x3 torus maps
# its SLs onto VLs 0-2, so ports said to run VL 0 alone drop traffic, and
# ports running VL0-7 carry it all
"$KR_CLI" gen torus --dims 3x3 --p 1 -o "$T/ov.net" &&
	"$KR_CLI" route "$T/ov.net" --out "$T/ov" >/dev/null &&
	"$KR_CLI" info "$T/ov.net" --nodes |
	awk '{ for (p = 1; p <= $3; p++) print $1, p, 1 }' >"$T/ov/oper-vls" &&
	"$KR_CLI" check "$T/ov" >"$T/ov1.out" 2>/dev/null
RC=$?
sed -i 's/ 1$/ 8/' "$T/ov/oper-vls"
"$KR_CLI" check "$T/ov" >"$T/ov8.out" 2>/dev/null
RC8=$?
[ $RC -eq 1 ] && [ $RC8 -eq 0 ] &&
	grep -q "^ports on a VL at or above their OperVLs: [1-9]" "$T/ov1.out" &&
	grep -q "^verdict: PROBLEM: undelivered pairs" "$T/ov1.out" &&
	grep -q "^ports on a VL at or above their OperVLs: 0$" "$T/ov8.out" &&
	grep -q "^undelivered:  0$" "$T/ov8.out"
kr_ok $? "check DIR with oper-vls: a map above a port's OperVLs undelivered (exit 1), none at VL0-7"

kr_done
