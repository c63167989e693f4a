#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# knsroute check with multicast, on tables read back from a live ibsim
# fabric: OpenSM (minhop, QoS on) routes a 3x3 torus, osmtest's multicast
# flow, run as four different CAs, joins groups through real MCMemberRecord
# joins, OpenSM builds its default trees. The MFTs come three ways (OpenSM's
# opensm.mcfdbs, dump_mfts, ibroute -M per switch) and the group SLs from
# saquery -g.
#
# Expected, independent of knsroute's own reading: all three MFT sources
# name the same groups and give the same verdicts; groups without an SL in
# saquery -g are counted as assumed; the exit status follows the verdict;
# a capture directory with mfts.dump and mcast-sl reads as the options do.
# Found with it (and pinned): minhop's data paths alone have no credit
# loop, with OpenSM's default trees they do (the witness turns at a tree's
# root where minhop's paths never turn on the same VL).
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 10
if ! kr_have_sim || ! command -v osmtest >/dev/null || [ ! -x "$KR_CLI" ]; then
	kr_skip_rest "ibsim, opensm, osmtest, infiniband-diags or knsroute missing"
	kr_done
fi
T=$KR_TMP

# Fields of `knsroute check --json` by key, without a JSON tool.
json_field() {
	grep -o "\"$1\": [^,}]*" "$2" | head -n 1 | sed 's/^[^:]*: //; s/"//g'
}

# check NAME ARGS...: JSON report in $T/NAME.json, exit in $T/NAME.rc
check() {
	local name=$1
	shift
	"$KR_CLI" check "$@" --json >"$T/$name.json" 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
}

# The group count, the verdicts (data, all, multicast, overall) and the exit
# status: what must agree.
summary() {
	printf '%s groups, verdicts %s, exit %s' \
		"$(json_field groups "$T/$1.json")" \
		"$(grep -o '"verdict": "[a-z_]*"' "$T/$1.json" |
		   sed 's/.*: "//; s/"//' | tr '\n' ' ' | sed 's/ $//')" \
		"$(cat "$T/$1.rc")"
}

"$KR_CLI" gen torus --dims 3x3 --p 1 -o "$T/t33.net"
kr_start_ibsim "$T/t33.net" || { kr_skip_rest "ibsim did not start"; kr_done; }
kr_start_opensm -R minhop -Q -D 0x43
kr_wait_sm 60
kr_ok $? "opensm minhop brought the 3x3 torus up"

for ca in "ca(0,0)/0" "ca(1,1)/0" "ca(2,2)/0" "ca(0,2)/0"; do
	SIM_HOST="$ca" timeout 90 env LD_PRELOAD="$KR_PRELOAD" \
		osmtest -f m -t 200 >"$T/osmtest.out" 2>&1
done
sleep 1
: >"$T/groups"
kr_sim_try "$T/groups" saquery -g
[ "$(grep -c 'MCMemberRecord group dump' "$T/groups")" -ge 1 ]
kr_ok $? "osmtest's joins left multicast groups in the SA"

: >"$T/topo"; : >"$T/dump_mfts"; : >"$T/ibroute"
kr_sim_try "$T/topo" ibnetdiscover
kr_sim_try "$T/dump_mfts" "$(command -v dump_mfts.sh || echo dump_mfts)"
ok=0
for lid in $(sed -n 's/.*Switch.*base port 0 lid \([0-9]*\).*/\1/p' "$T/topo"); do
	kr_sim_try "$T/ibroute" ibroute -M "$lid" || ok=1
done
kr_ok $ok "ibroute -M read every switch's MFT back"
kr_stop_opensm
O=$KR_OSM_DIR
# minhop sets no SLs: the SA answers SL 0 for every pair, so say so
awk '/^0x/ { print strtonum($1), 0 }' "$O/opensm-lfts.dump" | sort -un >"$T/path-sl"
# data counted: multicast's class is data + the trees
common=(--lfts "$O/opensm-lfts.dump" --sl2vl "$O/opensm-sl2vl.dump"
	--path-sl "$T/path-sl" --mcast-sl "$T/groups" --dests cas)
check osm "$T/topo" "${common[@]}" --mfts "$O/opensm.mcfdbs"
check dump "$T/topo" "${common[@]}" --mfts "$T/dump_mfts"
check ibroute "$T/topo" "${common[@]}" --mfts "$T/ibroute"
n=$(json_field groups "$T/osm.json")
[ -n "$n" ] && [ "$n" -ge 1 ] && grep -q '"multicast": {"pairs' "$T/osm.json"
kr_ok $? "check --mfts opensm.mcfdbs: $n groups, a multicast class ($(summary osm))"
[ "$(summary dump)" = "$(summary osm)" ]
kr_ok $? "dump_mfts read back: the same groups and verdicts ($(summary dump))"
[ "$(summary ibroute)" = "$(summary osm)" ]
kr_ok $? "ibroute -M per switch: the same groups and verdicts ($(summary ibroute))"

# issue #12 live: OpenSM's unicast alone is loop-free for data, its default
# trees (rooted at one switch, min-hop) on the same VL close a loop
[ "$(summary osm)" = "3 groups, verdicts ok credit_loop credit_loop credit_loop, exit 1" ]
kr_ok $? "minhop: data alone loop-free, data + OpenSM's default trees a proven credit loop"

# groups in the MFTs that saquery -g does not list are assumptions
mlids=$(grep -o '^0x[0-9A-F]* :' "$O/opensm.mcfdbs" | sort -u | tr -d ' :' |
	tr 'A-F' 'a-f')
given=$(sed -n 's/.*Mlid\.*\(0x[0-9A-Fa-f]*\).*/\1/p' "$T/groups" | tr 'A-F' 'a-f')
want=0
for m in $mlids; do
	echo "$given" | grep -qix "$m" || want=$((want + 1))
done
[ "$(json_field groups_sl "$T/osm.json")" = "$want" ]
kr_ok $? "groups without an SL in saquery -g: $want counted as assumed"

v=$(grep -o '"verdict": "[a-z_]*"}$' "$T/osm.json" | sed 's/.*: "//; s/"}//')
case "$v" in
ok) want=0 ;; assumed_credit_loop) want=3 ;; *) want=1 ;;
esac
[ "$(cat "$T/osm.rc")" = "$want" ]
kr_ok $? "exit status $(cat "$T/osm.rc") for the verdict $v"

D=$T/capture
mkdir -p "$D"
cp "$T/topo" "$D/topology.net"
cp "$O/opensm-lfts.dump" "$D/lfts.dump"
cp "$O/opensm-sl2vl.dump" "$D/sl2vl.dump"
cp "$T/path-sl" "$D/path-sl"
cp "$T/dump_mfts" "$D/mfts.dump"
cp "$T/groups" "$D/mcast-sl"
"$KR_CLI" check "$D" --dests cas --json >"$T/dir.json" 2>"$T/dir.err"
echo $? >"$T/dir.rc"
[ "$(summary dir)" = "$(summary osm)" ]
kr_ok $? "check DIR reads mfts.dump and mcast-sl ($(summary dir))"
kr_done
