#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# knsroute check against OpenSM's own routing engines on ibsim fabrics, with
# tables read from OpenSM's dumps and read back from the fabric
# (dump_lfts.sh, knsroute capture's path SLs), ibdmchk's credit-loop verdict
# on the same files where it can read them, and a reference walk's per
# traffic class.
#
# Expected (independent of knsroute): dor on a torus with one VL has credit
# loops (rings of 5: every 2-hop path goes the same way round); torus-2QoS
# with its path SLs and SL2VL maps has none; minhop on a 5-ring has them;
# updn and ftree on a fat tree have none; ftree on a KNS with fat-tree
# subnets leaves pairs unrouted (capture records no SL for them, check
# finds them undelivered). lash, minhop, dfsssp and nue on
# tori, KNS and meshes: whatever the reference walk finds (nue, with its
# default nue_include_switches FALSE, leaves traffic to switch LIDs out of
# its deadlock avoidance; both find the loop only there; dfsssp's loop
# needs the SA's traffic on SL 0, which both walk from capture.log's SM).
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 36
if ! kr_have_sim || [ ! -x "$KR_CLI" ]; then
	kr_skip_rest "ibsim, opensm, infiniband-diags or knsroute missing"
	kr_done
fi
T=$KR_TMP
EXAMPLES=/usr/share/doc/ibsim-utils/net-examples

# check NAME ARGS...: knsroute check, report in $T/NAME.out, exit in $T/NAME.rc
check() {
	local name=$1
	shift
	"$KR_CLI" check "$@" >"$T/$name.out" 2>&1
	echo $? >"$T/$name.rc"
}

# expect NAME RC TEXT "what": the check exited RC and printed TEXT
expect() {
	[ "$(cat "$T/$1.rc")" = "$2" ] && grep -q "$3" "$T/$1.out"
	kr_ok $? "$4"
	[ "$(cat "$T/$1.rc")" = "$2" ] || sed 's/^/#   /' "$T/$1.out" | tail -n 15
}

# LIDs from ibnetdiscover output: "ca LID GUID" and "sw LID" lines.
lids() {
	awk '/^caguid=/ { g = substr($0, 8) }
	     /^Ca/ { ca = 1 }
	     /^Switch/ { ca = 0
		if (match($0, /base port 0 lid [0-9]+/)) {
			split(substr($0, RSTART, RLENGTH), a, " "); print "sw", a[5] } }
	     ca && /^\[/ && match($0, /# lid [0-9]+/) {
		split(substr($0, RSTART, RLENGTH), a, " "); print "ca", a[3], g }' "$1"
}

# ibdmchk on OpenSM's subnet.lst and fdbs (plus SL files): "found",
# "none", or empty when it printed no verdict. It crashes on exit after printing
# one (status 139 with ibutils 1.5.7), so only its words count.
ibdm_verdict() {
	: >"$T/empty.mcfdbs"
	timeout 60 ibdmchk -s "$KR_OSM_DIR/opensm-subnet.lst" \
		-f "$KR_OSM_DIR/opensm.fdbs" -m "$T/empty.mcfdbs" "$@" \
		>"$T/ibdm.out" 2>&1
	if grep -q "credit loops in routing" "$T/ibdm.out"; then
		echo found
	elif grep -q "no credit loops found" "$T/ibdm.out"; then
		echo none
	fi
}

# compare_ibdm "what" OURS ARGS...: ibdmchk's verdict must equal OURS.
compare_ibdm() {
	local what=$1 ours=$2 theirs
	shift 2
	if ! command -v ibdmchk >/dev/null; then
		kr_skip "ibdmchk not installed"
		return
	fi
	theirs=$(ibdm_verdict "$@")
	if [ -z "$theirs" ]; then
		kr_skip "ibdmchk printed no verdict on $what ($(tail -n 1 "$T/ibdm.out"))"
		return
	fi
	[ "$theirs" = "$ours" ]
	kr_ok $? "ibdmchk agrees on $what: credit loops $theirs"
}

# ref_agrees NAME TOPO ARGS...: knsroute check's pairs, delivered pairs and
# loop verdict per traffic class equal those of ref_check.py, a brute-force
# walk of every pair written for the tests alone, on the same tables
# (normalised through check's --write-* options). With REF_SM="LID SL" both
# walk the SA's traffic too (ARGS then say --sm-lid LID --sm-sl SL).
ref_agrees() {
	local name=$1 topo=$2 ours theirs
	shift 2
	"$KR_CLI" check "$topo" "$@" --json --write-lfts "$T/$name.nl" \
		--write-sl2vl "$T/$name.ns" --write-path-sl "$T/$name.np" \
		>"$T/$name.json" 2>"$T/$name.check.err"
	"$KR_CLI" info --nodes "$topo" >"$T/$name.nodes" &&
		"$KR_CLI" info --links "$topo" >"$T/$name.links" &&
		# shellcheck disable=SC2086
		theirs=$(python3 "$KR_LIBDIR/ref_check.py" "$T/$name.nodes" \
			"$T/$name.links" "$T/$name.nl" "$T/$name.ns" "$T/$name.np" \
			${REF_SM:-} | tr '\n' ' ')
	ours=$(jq -r '.classes | [.data, .all] | map("\(.pairs) \(.delivered) \(
		if .credit_loop then "loop" else "ok" end)") |
		"data \(.[0]) all \(.[1]) "' "$T/$name.json")
	[ -n "$theirs" ] && [ "$theirs" = "$ours" ]
	kr_ok $? "the reference walk agrees per class on $name: ${theirs:-nothing}"
	[ "$theirs" = "$ours" ] || {
		echo "#   knsroute: $ours"
		sed 's/^/#   check: /' "$T/$name.check.err"
	}
}

# start_fabric NET: ibsim on NET, a fresh OpenSM directory.
start_fabric() {
	kr_stop_opensm
	kr_stop_ibsim
	rm -rf "$T/osm"
	kr_start_ibsim "$1"
}

# ---------------------------------------------------------------- dor
"$KR_CLI" gen torus --dims 5x5 --p 1 -o "$T/torus.net"
start_fabric "$T/torus.net" || { kr_skip_rest "ibsim did not start"; kr_done; }
kr_run_opensm_once -Q -D 0x43 -R dor
kr_ok $? "opensm dor routed a 5x5 torus"
: >"$T/torus.ibnd"
kr_sim_try "$T/torus.ibnd" ibnetdiscover
# dor sets no SLs: the SA answers SL 0 for every pair, so say so
awk '/^0x/ { print strtonum($1), 0 }' "$KR_OSM_DIR/opensm-lfts.dump" |
	sort -un >"$T/dor.path-sl"
check dor "$T/torus.ibnd" --lfts "$KR_OSM_DIR/opensm-lfts.dump" \
	--sl2vl "$KR_OSM_DIR/opensm-sl2vl.dump" --path-sl "$T/dor.path-sl"
expect dor 1 "verdict: PROBLEM: credit loop" "dor, OpenSM's dumps and SL 0 given: credit loop proven"
ref_agrees dor "$T/torus.ibnd" --lfts "$KR_OSM_DIR/opensm-lfts.dump" \
	--sl2vl "$KR_OSM_DIR/opensm-sl2vl.dump" --path-sl "$T/dor.path-sl"
# infiniband-diags installs it as dump_lfts.sh or (Debian) as dump_lfts
: >"$T/dor.dump_lfts"
kr_sim_try "$T/dor.dump_lfts" "$(command -v dump_lfts.sh || echo dump_lfts)"
check dor_diag "$T/torus.ibnd" --lfts "$T/dor.dump_lfts" \
	--write-lfts "$T/dor.rewritten"
expect dor_diag 3 "verdict: UNPROVEN: credit loop" "dor, LFTs read back by dump_lfts.sh, no SLs or maps: a loop only through assumed inputs"
cmp -s "$T/dor.rewritten" "$KR_OSM_DIR/opensm-lfts.dump"
kr_ok $? "dump_lfts.sh output rewritten as opensm-lfts.dump equals OpenSM's file"
compare_ibdm "dor on the torus" found

# --------------------------------------------------------- torus-2QoS
cat >"$T/torus-2QoS.conf" <<EOF
torus 5 5 1
xp_link 0x0002c90000000000 0x0002c90000000001
yp_link 0x0002c90000000000 0x0002c90000000005
EOF
rm -rf "$T/osm"
kr_start_opensm -Q -D 0x43 -R torus-2QoS --torus_config "$T/torus-2QoS.conf"
kr_wait_sm 60 && grep -q "torus_build_lfts: Built 5 x 5 x 1 torus" "$KR_OSM_LOG"
kr_ok $? "opensm torus-2QoS routed the torus (QoS on)"
lids "$T/torus.ibnd" >"$T/lids"
# the SA's path SL of every pair, read by one capture
kr_sim_try /dev/null "$KR_CLI" capture "$T/t2q.cap" --quiet
n_ca=$(awk '$1 == "ca"' "$T/lids" | wc -l)
n_lid=$(wc -l <"$T/lids")
n=$((n_ca * (n_lid - 1)))
grep -qE "^path SLs: $n queries, [0-9]+ retried, $n answered" "$T/t2q.cap/capture.log"
kr_ok $? "the capture read a PathRecord SL for each of the $n pairs"
check t2q "$T/torus.ibnd" --lfts "$KR_OSM_DIR/opensm-lfts.dump" \
	--sl2vl "$KR_OSM_DIR/opensm-sl2vl.dump" --path-sl "$T/t2q.cap/path-sl"
expect t2q 0 "credit loops: none" "torus-2QoS with its path SLs and SL2VL: clean"
ref_agrees t2q "$T/torus.ibnd" --lfts "$KR_OSM_DIR/opensm-lfts.dump" \
	--sl2vl "$KR_OSM_DIR/opensm-sl2vl.dump" --path-sl "$T/t2q.cap/path-sl"
check t2q_nosl "$T/torus.ibnd" --lfts "$KR_OSM_DIR/opensm-lfts.dump" \
	--sl2vl "$KR_OSM_DIR/opensm-sl2vl.dump"
expect t2q_nosl 3 "verdict: UNPROVEN: credit loop through [0-9]* pairs whose SL was assumed" \
	"torus-2QoS tables without path SLs: a loop only through assumed SLs, exit 3"
# ibdmchk takes path SLs as "0xSRC_NODE_GUID DLID SL", every pair spelled
# out; path-sl has "DLID SL" defaults and "SLID DLID SL" exceptions
awk 'NR == FNR { if ($1 == "ca") g[$2] = $3; lid[$2] = 1; next }
     /^#/ { next }
     NF == 2 { d[$1] = $2 }
     NF == 3 { p[$1 " " $2] = $3 }
     END { for (s in g) for (l in lid) if (l != s)
		print g[s], l, ((s " " l) in p) ? p[s " " l] : d[l] }' \
	"$T/lids" "$T/t2q.cap/path-sl" >"$T/t2q.psl"
compare_ibdm "torus-2QoS (with -c path SLs, -d opensm-sl2vl.dump)" none \
	-c "$T/t2q.psl" -d "$KR_OSM_DIR/opensm-sl2vl.dump"

# ------------------------------------------------------------ minhop ring
"$KR_CLI" gen torus --dims 5 --p 1 -o "$T/ring.net"
start_fabric "$T/ring.net" || { kr_skip_rest "ibsim did not start"; kr_done; }
kr_run_opensm_once -D 0x43 -R minhop
: >"$T/ring.ibnd"
kr_sim_try "$T/ring.ibnd" ibnetdiscover
check ring "$T/ring.ibnd" --lfts "$KR_OSM_DIR/opensm-lfts.dump"
expect ring 3 "credit loop of 5 channels" "minhop on a 5-ring, no SL2VL maps: credit loop of 5 channels, unproven"
compare_ibdm "minhop on the ring" found

# ------------------------------------------- engines with SLs, captured
# engine_case NET ENGINE NAME: OpenSM's ENGINE (QoS on) as a daemon on NET,
# read back by one capture; knsroute check and the reference walk must
# agree per traffic class on what the fabric holds, the SA's traffic (the
# SM and SL capture.log names) included.
engine_case() {
	local net=$1 eng=$2 name=$3 sm
	start_fabric "$net" || { kr_ok 1 "ibsim on $net"; kr_ok 1 "$name"; return; }
	rm -rf "$T/osm"
	kr_start_opensm -Q -D 0x43 -R "$eng"
	kr_wait_sm 60 && kr_sim_try /dev/null "$KR_CLI" capture "$T/$name.cap" --quiet &&
		grep -q "$eng tables configured on all switches" "$KR_OSM_LOG" &&
		sm=$(sed -n 's/^discovery: .*, SM LID \([0-9]*\) SL \([0-9]*\),.*/\1 \2/p' \
			"$T/$name.cap/capture.log") && [ -n "$sm" ]
	kr_ok $? "opensm $eng (not a fallback) routed $(basename "$net"), knsroute capture read it"
	REF_SM=$sm ref_agrees "$name" "$T/$name.cap/topology.net" \
		--lfts "$T/$name.cap/lfts.dump" --sl2vl "$T/$name.cap/sl2vl.dump" \
		--path-sl "$T/$name.cap/path-sl" --sm-lid "${sm% *}" --sm-sl "${sm#* }"
	# OpenSM's opensm.fdbs holds the tables its opensm-lfts.dump holds
	check "$name.fdbs" "$T/$name.cap/topology.net" \
		--lfts "$KR_OSM_DIR/opensm.fdbs" --write-lfts "$T/$name.fdbs.lfts" &&
	check "$name.lfts" "$T/$name.cap/topology.net" \
		--lfts "$KR_OSM_DIR/opensm-lfts.dump" --write-lfts "$T/$name.lfts.lfts" &&
	[ -s "$T/$name.fdbs.lfts" ] && cmp "$T/$name.fdbs.lfts" "$T/$name.lfts.lfts" >&2
	kr_ok $? "$eng: opensm.fdbs read by check --lfts gives opensm-lfts.dump's tables"
}

"$KR_CLI" gen torus --dims 4x4 --p 1 -o "$T/t44.net"
"$KR_CLI" gen kns --k 4 --n 2 --p 1 -o "$T/k42.net"
"$KR_CLI" gen mesh --dims 4x3 --p 1 -o "$T/m43.net"
engine_case "$T/t44.net" lash t44_lash
engine_case "$T/k42.net" minhop k42_minhop
engine_case "$T/m43.net" dfsssp m43_dfsssp
engine_case "$T/t44.net" nue t44_nue
# ftree on a KNS with fat-tree subnets leaves pairs unrouted: the SA knows
# no path for them, and the capture goes on without their SLs
"$KR_CLI" gen kns --k 4 --n 2 --radix 4 -o "$T/k4r.net"
engine_case "$T/k4r.net" ftree k4r_ftree
n=$(sed -n 's/^path SLs: the SA knows no path for \([0-9]*\) pairs.*/\1/p' \
	"$T/k4r_ftree.cap/capture.log")
check k4r_ftree "$T/k4r_ftree.cap"
[ "${n:-0}" -gt 0 ] && [ "$(cat "$T/k4r_ftree.rc")" = 1 ] &&
	grep -q "verdict: PROBLEM: undelivered pairs" "$T/k4r_ftree.out"
kr_ok $? "ftree's pairs without a path (${n:-none}) are left out of path-sl, their undelivery found"
kr_stop_opensm

# ------------------------------------------------------------ fat trees
# fat_tree NET ENGINE NAME: route NET with ENGINE, check; the description
# says when OpenSM gave up on ENGINE and installed its minhop fallback.
fat_tree() {
	local net=$1 eng=$2 name=$3 how
	start_fabric "$net" || { kr_ok 1 "ibsim on $net"; return; }
	kr_run_opensm_once -D 0x43 -R "$eng"
	: >"$T/$name.ibnd"
	kr_sim_try "$T/$name.ibnd" ibnetdiscover
	how="$eng"
	grep -q "$eng tables configured on all switches" "$KR_OSM_LOG" ||
		how="$eng (OpenSM fell back to minhop: $(grep -o "$eng: cannot build lid matrices\|no root nodes were found" "$KR_OSM_LOG" | head -n 1))"
	check "$name" "$T/$name.ibnd" --lfts "$KR_OSM_DIR/opensm-lfts.dump"
	expect "$name" 0 "verdict: OK" "$how on $(basename "$net"): all delivered, no credit loop"
}

fat_tree "$KR_SRCDIR/tests/data/chk_fattree.net" updn ft_updn
fat_tree "$KR_SRCDIR/tests/data/chk_fattree.net" ftree ft_ftree
grep -q "ftree tables configured on all switches" "$KR_OSM_LOG"
kr_ok $? "ftree really routed the 2-level fat tree (not a fallback)"
compare_ibdm "ftree on the fat tree" none
fat_tree "$EXAMPLES/net.2sw2path4hca" updn ex_updn
fat_tree "$EXAMPLES/net.2sw2path4hca" ftree ex_ftree
kr_done
