#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# A leaf switch with two hosts and a cable to each of two switches
# (redundant uplinks) on a 4-ary 2-direct KNS, one cable to a router, one
# to a crossbar of another line. Such a leaf has two neighbours, as every
# router there has: knsroute read the fabric as a 5-ary KNS with 8
# routers missing. It must read the 4-ary KNS with the leaf hanging off
# one switch (the router, of lower GUID), its other cable unused, route
# it, and prove the tables read back from the switches, the SA's traffic
# included; then, with that cable unplugged, route the leaf over the
# other one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 3
kr_tmpdir
if ! kr_plugin_ready || ! command -v jq >/dev/null; then
	kr_skip_rest "needs ibsim, opensm, jq and a built plugin"
	kr_done
fi

net="$KR_TMP/fabric.net"
"$KR_CLI" gen kns --k 4 --n 2 --p 1 -o "$KR_TMP/kns.net"
kr_net_with_two_homed "$KR_TMP/kns.net" "router(3,3)" "xbar1(1,*)" >"$net"
# opensm.conf's node-name-map names the leaf in knsroute's log lines
printf '# the leaf\n0x0000000000007300 "leaf-rack7"\n' >"$KR_TMP/names"
kr_plugin_conf "$KR_TMP/opensm.conf" "node_name_map_name $KR_TMP/names"
kr_start_ibsim "$net"
kr_start_opensm -F "$KR_TMP/opensm.conf"
kr_wait_sm 60
kr_first_sweep_routed "KNS 4-ary 2-direct 1-indirect, p=1: 16 routers, 8 crossbars, 1 pendant switch, 18 CAs" &&
	grep -qF 'pendant switch S-0000000000007300 "leaf-rack7" (2 CAs) hangs off S-0002c9000000000f ' "$KR_OSM_LOG"
kr_ok $? "knsroute reads the 4-ary KNS with the two-homed leaf hanging off one switch, named by the map"

kr_check_rb "$KR_TMP/rb" &&
	jq -e '.classes.all.verdict == "ok" and .classes.all.pairs > .classes.data.pairs' \
		"$KR_TMP/rb/check.json" >/dev/null
kr_ok $? "read back: every pair delivered, no credit loop, management traffic included"

# the cable the leaf hangs off, unplugged at the router's end (ibsim
# leaves the switch it unplugs deaf to directed routes, so the router
# goes too): the leaf now hangs off the crossbar
kr_sweep_after 'Unlink "router(3,3)" 4' &&
	grep -Eq 'knsroute: sweep 2: KNS 4-ary 2-direct 1-indirect, p=1: 1[56] routers, 8 crossbars, 1 pendant switch' "$KR_OSM_LOG" &&
	grep -qF 'sweep 2: recognition: pendant switch S-0000000000007300 "leaf-rack7" (2 CAs) hangs off S-0002c90000000015 ' "$KR_OSM_LOG" &&
	kr_check_rb "$KR_TMP/rb2" &&
	jq -e '.classes.all.verdict == "ok"' "$KR_TMP/rb2/check.json" >/dev/null &&
	! grep -q "ERR KR0[12]" "$KR_OSM_LOG"
kr_ok $? "the leaf's used cable unplugged: it hangs off the other switch, read back clean"

kr_stop_opensm
kr_stop_ibsim
kr_done
