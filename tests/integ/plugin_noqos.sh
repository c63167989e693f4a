#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# qos FALSE: OpenSM programs no SL2VL map, every SL rides VL 0. knsroute
# must plan and check for that one VL: a mesh routes (and the tables read
# back from the fabric pass the check with the maps really in force); a KNS
# cannot (its crossbar traffic needs a VL of its own), so knsroute must say
# so and step aside instead of installing tables it proved for maps that
# will never be programmed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 5
kr_tmpdir
if ! kr_plugin_ready; then
	kr_skip_rest "needs ibsim, opensm, infiniband-diags and a built plugin"
	kr_done
fi

noqos_conf() {
	kr_plugin_conf "$1"
	sed -i 's/^qos TRUE$/qos FALSE/' "$1"
}

"$KR_CLI" gen mesh --dims 3x3 --p 1 -o "$KR_TMP/mesh.net"
noqos_conf "$KR_TMP/opensm.conf"
kr_start_ibsim "$KR_TMP/mesh.net"
kr_start_opensm -F "$KR_TMP/opensm.conf"
kr_wait_sm 60
grep -q "knsroute: sweep 1: mesh 3x3" "$KR_OSM_LOG" &&
	grep -q "ERR KR03: knsroute: qos is FALSE" "$KR_OSM_LOG" &&
	! grep -q "ERR KR02" "$KR_OSM_LOG"
kr_ok $? "qos FALSE: a mesh is routed by knsroute, with the warning"
grep "knsroute: sweep 1:" "$KR_OSM_LOG" | grep -q "VLs used per port: 1 of 1"
kr_ok $? "qos FALSE: the plan uses one VL"
# What the switches really hold, SL2VL included (all VL 0), and the SA's SLs.
kr_readback "$KR_TMP/rb" &&
	"$KR_CLI" check "$KR_TMP/rb" >"$KR_TMP/check.out" 2>&1
ok=$?
[ $ok -eq 0 ] || sed 's/^/# /' "$KR_TMP/check.out" | head -20
kr_ok $ok "qos FALSE: the mesh's read-back tables pass the check"
kr_stop_opensm
kr_stop_ibsim

"$KR_CLI" gen kns --k 3 --n 2 --p 1 -o "$KR_TMP/kns.net"
rm -rf "$KR_TMP/osm"
kr_start_ibsim "$KR_TMP/kns.net"
kr_start_opensm -F "$KR_TMP/opensm.conf"
kr_wait_sm 60
grep -q "ERR KR02: knsroute: SL/VL plan: qos is FALSE in opensm.conf, so every SL rides VL 0, .*set qos TRUE" "$KR_OSM_LOG" &&
	grep -q "ERR KR02: knsroute: SL/VL plan: qos is FALSE" "$KR_OSM_DIR/stdout"
kr_ok $? "qos FALSE: a KNS is refused with the reason and the fix, in the log and (OSM_LOG_SYS) syslog and standard output"
! grep -q "knsroute: sweep 1:" "$KR_OSM_LOG" &&
	grep -q "minhop tables configured" "$KR_OSM_LOG"
kr_ok $? "qos FALSE: nothing of knsroute's is installed, minhop routes"

kr_done
