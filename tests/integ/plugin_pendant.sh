#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Pendant switches: a leaf switch with two hosts on one cable to a 4x4
# torus switch, and a second one with the SM's node hanging off the first,
# as an admin adds a management switch where a port is free. No torus has
# a place for them: knsroute read the fabric as a 3x4x2 torus with seven
# switches missing. Now it must read the 4x4 grid with the two switches
# hanging off it, route them down their tree, prove the read-back tables
# (the SA's traffic from the pendant included), and keep them proven when
# a link of the host switch fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 4
kr_tmpdir
if ! kr_plugin_ready || ! command -v jq >/dev/null; then
	kr_skip_rest "needs ibsim, opensm, jq and a built plugin"
	kr_done
fi

net="$KR_TMP/fabric.net"
"$KR_CLI" gen torus --dims 4x4 --p 1 -o "$KR_TMP/torus.net"
kr_net_with_pendants "$KR_TMP/torus.net" "switch(1,2)" >"$net"
kr_plugin_up "$net"
kr_first_sweep_routed "torus 4x4 (wrap x,y), p=1, parallel 1: 16 switches, 2 pendant switches, 19 CAs"
kr_ok $? "knsroute reads the 4x4 torus with two pendant switches and routes it"

kr_sim_try "$KR_TMP/sminfo" sminfo && grep -q "sm guid 0x7101," "$KR_TMP/sminfo" &&
	kr_check_rb "$KR_TMP/rb"
kr_ok $? "the SM on the pendant's host; read back: every pair delivered"
jq -e '.classes.all.verdict == "ok" and .classes.all.pairs > .classes.data.pairs' \
	"$KR_TMP/rb/check.json" >/dev/null
kr_ok $? "read back: no credit loop, management traffic and the SA's SLs included"

# the host switch's link to switch(2,2), unplugged at the far end (ibsim
# leaves the switch it unplugs deaf to directed routes, here the way to
# the rest of the grid); switch(2,2) may then be gone, a hole next to the
# host that the leaf could fill: the coordinates cache says it does not

kr_sweep_after 'Unlink "switch(2,2)" 3' &&
	grep -Eq "knsroute: sweep 2: torus 4x4 \(wrap x,y\), p=1, parallel 1: 1[56] switches, 2 pendant switches" "$KR_OSM_LOG" &&
	kr_check_rb "$KR_TMP/rb2" &&
	jq -e '.classes.all.verdict == "ok"' "$KR_TMP/rb2/check.json" >/dev/null &&
	! grep -q "ERR KR0[12]" "$KR_OSM_LOG"
kr_ok $? "the host switch loses a grid link: still the 4x4 grid with its pendants, repaired, read back clean"

kr_stop_opensm
kr_stop_ibsim
kr_done
