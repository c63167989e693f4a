#!/bin/bash
# A KNS link fault whose detours do not all fit on their destinations' SLs
# (router (3,3)'s x link on a 4-ary 2-direct; `knsroute route` on the same
# fabric moves 3 pairs): only the pairs whose routes changed move, and the
# SA must hand those pairs the detour SL while the other sources of the
# same destination keep its SL. Every pair is read back with its own
# PathRecord and the check must pass on exactly what the fabric holds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 5
kr_tmpdir
if ! kr_plugin_ready || ! command -v gawk >/dev/null; then
	kr_skip_rest "needs ibsim, opensm, gawk and a built plugin"
	kr_done
fi

net="$KR_TMP/fabric.net"
"$KR_CLI" gen kns --k 4 --n 2 --p 1 -o "$net"
kr_plugin_conf "$KR_TMP/opensm.conf"
kr_start_ibsim "$net"
kr_start_opensm -F "$KR_TMP/opensm.conf"
kr_wait_sm 60
kr_ibsim_cmd 'Unlink "router(3,3)"[2]'
kill -HUP "$KR_OSM_PID"
for _ in $(seq 300); do
	grep -q "knsroute: sweep 2: repair:" "$KR_OSM_LOG" && break
	sleep 0.1
done
sleep 1	# let OpenSM send the changed blocks
grep -q "knsroute: sweep 2: repair: 1 faults: .* [1-9][0-9]* changed SL" "$KR_OSM_LOG" &&
	! grep -q "ERR KR02" "$KR_OSM_LOG"
kr_ok $? "knsroute repairs the fault and moves some pairs off their SL"
grep -q "knsroute: sweep 2: repair: .* those of [1-9][0-9]* single pairs changed" "$KR_OSM_LOG"
kr_ok $? "the log counts the pairs whose own SL changed since the last sweep"

kr_readback "$KR_TMP/rb" &&
	"$KR_CLI" check "$KR_TMP/rb/topology.net" --lfts "$KR_TMP/rb/lfts.dump" \
		--sl2vl "$KR_TMP/rb/sl2vl.dump" --path-sl "$KR_TMP/rb/path-sl" \
		>"$KR_TMP/check.out" 2>&1
ok=$?
[ $ok -eq 0 ] || sed 's/^/# /' "$KR_TMP/check.out" | head -20
kr_ok $ok "the check passes with every pair's own PathRecord SL"

# "SLID DLID SL" of every PathRecord, and the SLs the plan keeps for
# repaired routes moved off their SL.
kr_norm_path_sl "$KR_TMP/rb/topology.net" "$KR_TMP/rb/path-sl" >"$KR_TMP/pair.sl"
grep "knsroute: sweep 2: " "$KR_OSM_LOG" | grep -v repair: |
	grep -oE "SL [0-9]+: repaired routes" | awk '{ print $2 + 0 }' |
	sort -u >"$KR_TMP/tree.sl"
awk 'NR == FNR { tree[$1] = 1; next } ($3 in tree) { print $2 }' \
	"$KR_TMP/tree.sl" "$KR_TMP/pair.sl" | sort -u >"$KR_TMP/moved.dlid"
[ -s "$KR_TMP/tree.sl" ] && [ -s "$KR_TMP/moved.dlid" ]
kr_ok $? "the SA hands some pairs a detour SL of the plan"
# per pair, not per destination: each such DLID has sources on another SL
awk 'NR == FNR { tree[$1] = 1; next }
     FILENAME ~ /moved/ { want[$1] = 1; next }
     ($2 in want) && !($3 in tree) { other[$2] = 1 }
     END { for (d in want) if (!(d in other)) exit 1 }' \
	"$KR_TMP/tree.sl" "$KR_TMP/moved.dlid" "$KR_TMP/pair.sl"
kr_ok $? "their destinations keep their own SL for the other sources"

kr_done
