#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Two KNS link faults whose detours do not all fit on their destinations'
# SLs (router (2,2)'s y link and router (3,3)'s x link on a 4-ary 2-direct,
# `knsroute gen kns --k 4 --n 2 --p 1 --fail 2 --seed 8`; `knsroute route`
# on that fabric moves 3 pairs; no single link fault of this fabric moves
# any): only the pairs whose routes changed move, and the
# SA must hand those pairs the detour SL while the other sources of the
# same destination keep its SL. Every pair is read back with its own
# PathRecord and the check must pass on exactly what the fabric holds.
# With LMC 1, a port's second LID sends over the same routes as its first
# and must get the same SL.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 6
kr_tmpdir
if ! kr_plugin_ready || ! command -v gawk >/dev/null; then
	kr_skip_rest "needs ibsim, opensm, gawk and a built plugin"
	kr_done
fi

net="$KR_TMP/fabric.net"
"$KR_CLI" gen kns --k 4 --n 2 --p 1 -o "$net"
kr_plugin_conf "$KR_TMP/opensm.conf" "lmc 1"
kr_start_ibsim "$net"
kr_start_opensm -F "$KR_TMP/opensm.conf"
kr_wait_sm 60
kr_ibsim_cmd 'Unlink "router(2,2)"[3]'
kr_ibsim_cmd 'Unlink "router(3,3)"[2]'
kill -HUP "$KR_OSM_PID"
# the first unlink may get a sweep of its own: wait for the one with both
repair_re='knsroute: sweep [0-9]+: repair: 2 faults:'
for _ in $(seq 300); do
	grep -qE "$repair_re" "$KR_OSM_LOG" && break
	sleep 0.1
done
kr_wait_swept
sweep=$(grep -oE "$repair_re" "$KR_OSM_LOG" | head -1 | awk '{ print $3 }')
grep -qE "knsroute: sweep $sweep repair: [1-9][0-9]* changed SL" "$KR_OSM_LOG" &&
	! grep -q "ERR KR02" "$KR_OSM_LOG"
kr_ok $? "knsroute repairs the faults and moves some pairs off their SL"
grep -qE "knsroute: sweep $sweep repair: changed since the last sweep: .* [1-9][0-9]* pair SLs$" "$KR_OSM_LOG"
kr_ok $? "the log counts the pairs whose own SL changed since the last sweep"

kr_readback "$KR_TMP/rb" &&
	"$KR_CLI" check "$KR_TMP/rb" >"$KR_TMP/check.out" 2>&1
ok=$?
[ $ok -eq 0 ] || sed 's/^/# /' "$KR_TMP/check.out" | head -20
kr_ok $ok "the check passes with every pair's own PathRecord SL"

# "SLID DLID SL" of every PathRecord, and the SLs the plan keeps for
# repaired routes moved off their SL.
kr_norm_path_sl "$KR_TMP/rb/topology.net" "$KR_TMP/rb/path-sl" >"$KR_TMP/pair.sl"
grep "knsroute: sweep $sweep " "$KR_OSM_LOG" | grep -v repair: |
	grep -oE "SL [0-9]+: repaired routes" | awk '{ print $2 + 0 }' |
	sort -u >"$KR_TMP/tree.sl"
awk 'NR == FNR { tree[$1] = 1; next } ($3 in tree) { print $2 }' \
	"$KR_TMP/tree.sl" "$KR_TMP/pair.sl" | sort -u >"$KR_TMP/moved.dlid"
[ -s "$KR_TMP/tree.sl" ] && [ -s "$KR_TMP/moved.dlid" ]
kr_ok $? "the SA hands some pairs a detour SL of the plan"
# per pair, not per destination: such a DLID keeps sources on another SL
# (here a switch's LID may also move whole, so not every one need)
awk 'NR == FNR { tree[$1] = 1; next }
     FILENAME ~ /moved/ { want[$1] = 1; next }
     ($2 in want) && !($3 in tree) { other[$2] = 1 }
     END { for (d in want) if (d in other) exit 0; exit 1 }' \
	"$KR_TMP/tree.sl" "$KR_TMP/moved.dlid" "$KR_TMP/pair.sl"
kr_ok $? "a destination keeps its own SL for its other sources"

# The moved pairs from their sources' second LID (the checker walks base
# LIDs only, so this is the SA's own answer).
ok=0 n=0
while read -r slid dlid sl; do
	grep -qx "$sl" "$KR_TMP/tree.sl" || continue
	: >"$KR_TMP/pr2" &&
		kr_sim_try "$KR_TMP/pr2" saquery -p --src-to-dst \
			"$((slid + 1)):$dlid" || { ok=1; break; }
	sl2=$(awk -F. '/^[ \t]*sl\./ { print strtonum($NF); exit }' "$KR_TMP/pr2")
	n=$((n + 1))
	[ "$sl2" = "$sl" ] && continue
	echo "# SLID $((slid + 1)) -> DLID $dlid: SL ${sl2:-none}, its port's base LID $slid gets $sl"
	ok=1
done <"$KR_TMP/pair.sl"
[ "$ok" -eq 0 ] && [ "$n" -gt 0 ]
kr_ok $? "a moved pair's SL holds for its source's second LID (LMC 1)"

kr_done
