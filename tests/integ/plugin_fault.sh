#!/bin/bash
# A link fails under a running opensm. knsroute recognises the torus with
# the link missing but has no dimension-order route around it (fault repair
# is not part of this engine yet), so the next sweep must fall back to
# minhop with the reason logged, never install tables it cannot check, and
# leave the fabric delivering every pair with knsroute's SLs out of play.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 5
kr_tmpdir
if ! kr_plugin_ready || ! command -v jq >/dev/null; then
	kr_skip_rest "needs ibsim, opensm, jq and a built plugin"
	kr_done
fi

net="$KR_TMP/fabric.net"
"$KR_CLI" gen torus --dims 4x4 --p 1 -o "$net"
kr_plugin_conf "$KR_TMP/opensm.conf"
kr_start_ibsim "$net"
kr_start_opensm -F "$KR_TMP/opensm.conf"
kr_wait_sm 60
grep -q "knsroute: sweep 1:" "$KR_OSM_LOG"
kr_ok $? "the intact torus is routed by knsroute"

# The first switch-switch link of the file, as ibsim's console names it.
isl=$(awk '$1 == "Switch" { split($0, q, "\""); cur = q[2]; next }
	   /^\[/ && cur != "" && $2 ~ /^"switch/ { print "\"" cur "\"" substr($1, 1, index($1, "]")); exit }' "$net")
kr_ibsim_cmd "Unlink $isl"
kill -HUP "$KR_OSM_PID"
for _ in $(seq 300); do
	grep -q "ERR KR02" "$KR_OSM_LOG" && grep -q "minhop tables configured" "$KR_OSM_LOG" && break
	sleep 0.1
done
grep -q "ERR KR02: knsroute: routing: .*no dimension-order path" "$KR_OSM_LOG"
kr_ok $? "after the fault knsroute steps back and says why ($isl down)"
grep -q "minhop tables configured on all switches" "$KR_OSM_LOG"
kr_ok $? "minhop takes over"

sleep 1
kr_readback "$KR_TMP/rb" &&
	"$KR_CLI" check "$KR_TMP/rb/capture.net" --lfts "$KR_TMP/rb/lfts" --json \
		>"$KR_TMP/check.json" 2>/dev/null
jq -e '.undelivered == 0 and .delivered > 0' "$KR_TMP/check.json" >/dev/null
kr_ok $? "every pair is still delivered (minhop's tables, read back)"

# With another engine in charge knsroute's path_sl no longer applies: the
# SA answers OpenSM's default SL 0 for every pair.
! grep -q "sl\.\.\.*0x[1-9a-f]" "$KR_TMP/rb/paths" && grep -q "PathRecord" "$KR_TMP/rb/paths"
kr_ok $? "knsroute's path SLs are out of play after the fallback"

kr_done
