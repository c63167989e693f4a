#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# End to end: stock opensm loads the knsroute plugin and routes simulated
# fabrics (ibsim). What the switches and the SA then hold, read back with
# `knsroute capture` (checked against infiniband-diags in capture.sh), must
# equal `knsroute route` on the captured topology and pass `knsroute check`. An unrecognised fabric must fall back to minhop.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

# name|gen arguments|knsroute.conf|LMC; every (source, destination) pair's
# PathRecord is read back. kns8r4 is the 8-ary 2-direct 3-indirect KNS of
# radix 4 (fat-tree subnets, 256 switches). torus444lmc's 3 ring bits
# leave no SL for LMC 1's second order: its offsets share the first.
FABRICS=(
	"kns44p2|kns --k 4 --n 2 --p 2|"
	"kns33p1|kns --k 3 --n 3 --p 1|"
	"torus44p2|torus --dims 4x4 --p 2 --shuffle 3|"
	"torus333|torus --dims 3x3x3 --p 1|"
	"mesh43|mesh --dims 4x3 --p 1 --shuffle 8|"
	"kns44dbbq|kns --k 4 --n 2 --p 1|classify dbbq|1"
	"torus444lmc|torus --dims 4x4x4 --p 1 --shuffle 4||1"
	"kns8r4|kns --k 8 --n 2 --p 1 --radix 4 --shuffle 5|"
)
CASES_PER_FABRIC=8

kr_plan $(( ${#FABRICS[@]} * CASES_PER_FABRIC + 2 ))
kr_tmpdir
if ! kr_plugin_ready || [ ! -x "$KR_CLI" ]; then
	kr_skip_rest "needs ibsim, opensm, infiniband-diags and a built plugin"
	kr_done
fi

# opensm.conf as an admin writes it; $2 lines go into knsroute.conf.
write_conf() {
	local dir=$1 knsconf=$2 lmc=$3
	printf '%s\n' "$knsconf" >"$dir/knsroute.conf"
	kr_plugin_conf "$dir/opensm.conf" \
		"event_plugin_options knsroute=$dir/knsroute.conf" "lmc $lmc"
}

run_fabric() {
	local name=$1 gen=$2 knsconf=$3 lmc=${4:-0} dir="$KR_TMP/$1" rb dry ok
	mkdir -p "$dir"
	rb="$dir/readback"
	dry="$dir/dry"
	# shellcheck disable=SC2086
	"$KR_CLI" gen $gen -o "$dir/fabric.net"
	write_conf "$dir" "$knsconf" "$lmc"
	if ! kr_start_ibsim "$dir/fabric.net"; then
		for _ in $(seq $CASES_PER_FABRIC); do kr_ok 1 "$name: ibsim"; done
		return
	fi
	# a fresh log and dump directory, or the last fabric's would answer
	rm -rf "$KR_TMP/osm"
	kr_start_opensm -F "$dir/opensm.conf" -D 0x43
	kr_wait_sm 90
	grep -q "knsroute: sweep 1: check passed, SA traffic on SL 0 included$" "$KR_OSM_LOG" &&
		! grep -q "ERR KR" "$KR_OSM_LOG" && [ ! -e "$KR_OSM_DIR/knsroute" ] &&
		kr_log_short

	ok=$?
	[ $ok -eq 0 ] || grep "knsroute" "$KR_OSM_LOG" | sed 's/^/# /' | tail -5
	kr_ok $ok "$name: opensm routed with knsroute, the SA's traffic (sm_sl 0) in the check, no errors logged, no dry-run files without dump_tables, the plan in short lines"

	kr_readback "$rb"
	kr_ok $? "$name: tables read back with knsroute capture"

	# shellcheck disable=SC2046
	"$KR_CLI" route "$rb/topology.net" -c "$dir/knsroute.conf" $(kr_sm_args "$rb") \
		--out "$dry" >/dev/null
	kr_ok $? "$name: knsroute route on the captured topology"

	kr_norm_lfts "$rb/lfts.dump" >"$dir/rb.lft" &&
		kr_norm_lfts "$dry/opensm-lfts.dump" >"$dir/dry.lft" &&
		diff "$dir/rb.lft" "$dir/dry.lft" >"$dir/lft.diff"
	kr_ok $? "$name: LFTs in the switches equal the dry run"

	cmp -s "$KR_OSM_DIR/opensm-lfts.dump" "$dry/opensm-lfts.dump" &&
		cmp -s "$KR_OSM_DIR/opensm-sl2vl.dump" "$dry/opensm-sl2vl.dump"
	kr_ok $? "$name: OpenSM's own dumps equal the dry run's, byte for byte"

	kr_norm_sl2vl "$dry/opensm-sl2vl.dump" >"$dir/dry.sl2vl" &&
		kr_norm_sl2vl "$rb/sl2vl.dump" >"$dir/rb.sl2vl" &&
		[ -z "$(comm -23 "$dir/dry.sl2vl" "$dir/rb.sl2vl")" ] &&
		kr_norm_path_sl "$rb/topology.net" "$dry/path-sl" >"$dir/dry.psl" &&
		kr_norm_path_sl "$rb/topology.net" "$rb/path-sl" >"$dir/rb.psl" &&
		diff "$dir/dry.psl" "$dir/rb.psl" >"$dir/psl.diff"
	kr_ok $? "$name: SL2VL maps and PathRecord SLs equal the dry run"

	# OpenSM's min-hop matrices are not built; with -D 0x40 the plugin
	# gives OpenSM's dumps the hop counts of its own paths instead.
	"$KR_CLI" info --nodes "$rb/topology.net" >"$dir/nodes" &&
		"$KR_CLI" info --links "$rb/topology.net" >"$dir/links" &&
		python3 "$KR_LIBDIR/ref_hops.py" "$dir/nodes" "$dir/links" \
			"$KR_OSM_DIR/opensm-lfts.dump" \
			"$KR_OSM_DIR/opensm-lid-matrix.dump" >"$dir/hops.out" &&
		! grep -q "HOPS UNKNOWN\|hop path possible" "$KR_OSM_DIR/opensm.fdbs"
	ok=$?
	[ $ok -eq 0 ] || sed 's/^/# /' "$dir/hops.out"
	kr_ok $ok "$name: opensm-lid-matrix.dump holds the hop count of each LFT path"

	# OpenSM's dump directory: its opensm-subnet.lst marks the SM, whose
	# traffic joins the check there too, its SA's SL taken, not given
	sm=$(sed -n 's/^discovery: .*, SM LID \([0-9]*\) .*/\1/p' "$rb/capture.log")
	"$KR_CLI" check "$rb" >"$dir/check.out" 2>&1 &&
		"$KR_CLI" check "$KR_OSM_DIR" --path-sl "$rb/path-sl" \
			>"$dir/check-osm.out" 2>&1 &&
		grep -q "^SM traffic: .* the SM (LID $sm)" "$dir/check-osm.out" &&
		grep -q "^  the SM's SL: not given" "$dir/check-osm.out"
	ok=$?
	[ $ok -eq 0 ] || sed 's/^/# /' "$dir/check.out" "$dir/check-osm.out" | head -20
	kr_ok $ok "$name: knsroute check passes on what the fabric holds, and on OpenSM's dump directory"

	kr_stop_opensm
	kr_stop_ibsim
}

for f in "${FABRICS[@]}"; do
	IFS='|' read -r name gen knsconf lmc <<<"$f"
	run_fabric "$name" "$gen" "$knsconf" "$lmc"
done

# ibsim's example fat tree is no KNS, torus or mesh: minhop takes over and
# the log says why.
dir="$KR_TMP/fallback"
mkdir -p "$dir"
write_conf "$dir" "" 0
kr_start_ibsim /usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
rm -rf "$KR_TMP/osm"
kr_start_opensm -F "$dir/opensm.conf"
kr_wait_sm 60
grep -q "ERR KR02: knsroute: recognition" "$KR_OSM_LOG" &&
	grep -q "SUBNET UP" "$KR_OSM_LOG"
kr_ok $? "unrecognised fabric: fallback to minhop, reason logged"
kr_readback "$dir/readback" &&
	"$KR_CLI" check "$dir/readback/topology.net" --lfts "$dir/readback/lfts.dump" >/dev/null
kr_ok $? "unrecognised fabric: minhop's tables deliver every pair"
kr_stop_opensm
kr_stop_ibsim

kr_done
