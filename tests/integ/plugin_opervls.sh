#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# OpenSM sets PortInfo:OperVLs after routing, so at the first sweep of a
# (re)started SM the ports still run what the SM before left them, and
# OpenSM programs the SL2VL maps before it sets them, folding every VL to
# the ones the port runs at that moment. With sweep_interval 0 (no sweep
# but those asked for, so the tables read back are the last sweep's):
#  - ibsim's ports start at VL0-7, opensm runs with max_op_vls 3 (VL0-3):
#    the plan is for VL0-3, no map sends an SL to VL 4 or above;
#  - restarted with max_op_vls 4 on ports left at VL0-3: the first sweep
#    plans for VL0-3 (no fallback) and asks for another sweep, which
#    plans for VL0-7, and the tables read back pass the check;
#  - an SM with max_op_vls 1 leaves every port on VL 0, then one with
#    max_op_vls 4 starts: the first sweep cannot route a torus on VL 0
#    alone, the next one routes it on VL0-7.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 7
kr_tmpdir
if ! kr_plugin_ready; then
	kr_skip_rest "needs ibsim, opensm, infiniband-diags and a built plugin"
	kr_done
fi

# How many data VLs port 1 of the SM's node runs (directed route 0: the
# node ibsim attaches the SM to, a switch), from "OperVLs:....VL0-7".
oper_vls() {
	kr_sim smpquery -D portinfo 0 1 2>/dev/null |
		sed -n 's/^OperVLs:\.*VL0-\([0-9]*\)$/\1/p; s/^OperVLs:\.*VL0$/0/p' |
		gawk '{ print $1 + 1 }'
}

# Status 0 when every SL2VL entry the switches and CAs hold of capture $1
# is a VL below $2 or VL 15 (the drop); the worst entry is printed.
maps_below() {
	kr_norm_sl2vl "$1/sl2vl.dump" >"$1/maps" || return 1
	gawk -v lim="$2" '{ for (i = 4; i <= NF; i++) if ($i != 15 && $i >= lim)
				{ print "# " $0; bad++ } }
			  END { exit bad > 0 }' "$1/maps"
}

# opensm with max_op_vls $1 until its first sweep is up; stopped after $2.
start_with() {
	kr_plugin_conf "$KR_TMP/opensm-$1.conf" "max_op_vls $1" "sweep_interval 0"
	rm -rf "$KR_TMP/osm"
	kr_start_opensm -F "$KR_TMP/opensm-$1.conf"
	kr_wait_sm 60
}

"$KR_CLI" gen torus --dims 4x4 --p 1 -o "$KR_TMP/t44.net"
kr_start_ibsim "$KR_TMP/t44.net"
before=$(oper_vls)
[ "${before:-0}" -gt 4 ]
kr_ok $? "ibsim's ports start with more VLs than max_op_vls 3 gives ($before)"

start_with 3
grep "knsroute: sweep 1:" "$KR_OSM_LOG" | grep -q "VLs used per port: [0-9]* of 4\b" &&
	! grep -q "ERR KR02" "$KR_OSM_LOG" && kr_readback "$KR_TMP/rb3" &&
	maps_below "$KR_TMP/rb3" 4 && [ "$(oper_vls)" = 4 ] &&
	"$KR_CLI" check "$KR_TMP/rb3" >"$KR_TMP/rb3.check" 2>&1
ok=$?
[ $ok -eq 0 ] || sed 's/^/# /' "$KR_TMP/rb3.check" | head -20
kr_ok $ok "max_op_vls 3 on ports at VL0-7: planned for VL0-3, no map to a VL above, check passes"
kr_stop_opensm

# Waits for sweep $1's plan in the log (30 s at most); status 0 when it
# was for $2 VLs.
sweep_for() {
	local i
	for i in $(seq 300); do
		grep -q "knsroute: sweep $1: .*VLs used per port" "$KR_OSM_LOG" && break
		sleep 0.1
	done
	kr_wait_swept
	grep "knsroute: sweep $1: .*VLs used per port" "$KR_OSM_LOG" |
		grep -q "VLs used per port: [0-9]* of $2\b"
}

start_with 4
grep "knsroute: sweep 1:" "$KR_OSM_LOG" | grep -q "VLs used per port: [0-9]* of 4\b" &&
	grep -q "knsroute: sweep 1: [0-9]* ports are about to run more VLs" "$KR_OSM_LOG" &&
	! grep -q "ERR KR02" "$KR_OSM_LOG"
kr_ok $? "max_op_vls 4 on ports at VL0-3: sweep 1 plans for VL0-3 and asks for a sweep"
sweep_for 2 8 && kr_readback "$KR_TMP/rb4" && maps_below "$KR_TMP/rb4" 8 &&
	[ "$(oper_vls)" = 8 ] && "$KR_CLI" check "$KR_TMP/rb4" >/dev/null 2>&1
kr_ok $? "max_op_vls 4: sweep 2 plans for VL0-7, the tables read back pass the check"
! grep -q "ERR KR13" "$KR_OSM_LOG" && [ "$(grep -c "another heavy sweep asked" "$KR_OSM_LOG")" -eq 1 ]
kr_ok $? "max_op_vls 4: one sweep asked for, no port left behind"
kr_stop_opensm

# An SM that left every port on VL 0 (knsroute cannot route a torus on
# one VL: minhop does)
start_with 1
kr_stop_opensm
[ "$(oper_vls)" = 1 ]
kr_ok $? "an SM with max_op_vls 1 left the ports on VL 0"

start_with 4
grep -q "knsroute: sweep 1: [0-9]* ports are about to run more VLs" "$KR_OSM_LOG" &&
	sweep_for 2 8 && kr_readback "$KR_TMP/rb1" && maps_below "$KR_TMP/rb1" 8 &&
	"$KR_CLI" check "$KR_TMP/rb1" >/dev/null 2>&1
kr_ok $? "max_op_vls 4 on ports at VL 0: sweep 2 routes for VL0-7, check passes"
kr_stop_opensm
kr_stop_ibsim

kr_done
