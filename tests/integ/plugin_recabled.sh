#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# A fabric re-cabled while OpenSM was down: two KNS routers trade every
# cable. The coordinates cache of the run before still places them where
# they were, which would leave healthy cables unused, count the links
# they displaced as missing and route around them at every sweep (the
# cache being rewritten each time). The first sweep after the restart
# must take the reading afresh, say why, and install tables that pass the
# check with the SA's path SLs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 4
kr_tmpdir
if ! kr_plugin_ready || ! command -v jq >/dev/null; then
	kr_skip_rest "needs ibsim, opensm, jq and a built plugin"
	kr_done
fi
T=$KR_TMP

"$KR_CLI" gen kns --k 4 --n 2 --p 2 -o "$T/kns.net"
# routers (1,0) and (1,1) trade GUIDs: to a GUID-keyed cache, each took
# the other's cables
sed -e 's/2c90000000001\b/TRADED/g; s/2c90000000005\b/2c90000000001/g' \
	-e 's/TRADED/2c90000000005/g' "$T/kns.net" >"$T/traded.net"
kr_plugin_up "$T/kns.net"
kr_first_sweep_routed "KNS 4-ary 2-direct" && kr_wait_swept &&
	[ -s "$KR_OSM_DIR/knsroute-coords" ]
kr_ok $? "the fabric as cabled first: routed, coordinates cached"
kr_stop_opensm
kr_stop_ibsim

mv "$KR_OSM_LOG" "$KR_OSM_LOG.first"
kr_start_ibsim "$T/traded.net"
kr_start_opensm -F "$T/opensm.conf"
kr_wait_sm 60 && kr_first_sweep_routed "KNS 4-ary 2-direct" &&
	grep -q "knsroute: sweep 1: recognition: coords_cache $KR_OSM_DIR/knsroute-coords not used: its labelling leaves [0-9]* cables between switches without a place, a reading afresh places every one (0 faults against [0-9]*)" "$KR_OSM_LOG"
kr_ok $? "after the re-cabling: the cache is set aside for a reading afresh, and the log says why"
! grep "knsroute: sweep 1:" "$KR_OSM_LOG" | grep -q "missing\|not used$\|; not used" &&
	! grep -q "ERR KR0[27]" "$KR_OSM_LOG"
kr_ok $? "... with no missing link and no cable left unused"
kr_check_rb "$T/rb" &&
	jq -e '.verdict == "ok" and .links.max == .links.mean' "$T/rb/check.json" >/dev/null
kr_ok $? "the tables read back, with the SA's path SLs, pass the check, every link equally loaded"
kr_stop_opensm
kr_stop_ibsim

kr_done
