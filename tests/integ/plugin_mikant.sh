#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# MiKANT(3,3) in stock opensm on ibsim: knsroute routes it itself (no
# fallback), the tables read back deliver every pair with no credit loop on
# the SA's SLs, a link across the top and then a top switch fail and are
# repaired without moving any pair to another SL (tables and the SA's path
# SLs read back, compared by ref_stable.py), and the pristine tables
# return with each.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 11
kr_tmpdir
if ! kr_plugin_ready || ! command -v jq >/dev/null ||
	! command -v python3 >/dev/null; then
	kr_skip_rest "needs ibsim, opensm, jq, python3 and a built plugin"
	kr_done
fi

net="$KR_TMP/fabric.net"
"$KR_CLI" gen mikant --k 3 --n 3 -o "$net"
kr_plugin_up "$net"
grep -q "knsroute: sweep 1:" "$KR_OSM_LOG" && ! grep -q "ERR KR02" "$KR_OSM_LOG"
kr_ok $? "the intact MiKANT(3,3) is routed by knsroute"

grep -q "second hop across the top" "$KR_OSM_LOG"
kr_ok $? "the plan logged keeps a VL for the second hop across"

kr_snapshot "$KR_TMP/rb0"
kr_ok $? "pristine: every pair delivered, no credit loop (read back)"
kr_norm_lfts "$KR_TMP/rb0/lfts.dump" >"$KR_TMP/lft0"

# same A B: from snapshot A to B no pair changed SL, and the tables did
# change
same() {
	kr_stable "$KR_TMP/$1" "$KR_TMP/$2" >"$KR_TMP/stable.$2"
	read -r _ kept _ moved _ changed <"$KR_TMP/stable.$2"
	echo "# $1 -> $2: $(cat "$KR_TMP/stable.$2")"
	[ "${kept:-0}" -gt 1000 ] && [ "${moved:-1}" -eq 0 ] &&
		[ "${changed:-1}" -eq 0 ] &&
		! cmp -s "$KR_TMP/$1/lfts" "$KR_TMP/$2/lfts"
}

# port 4 of (0,1,00) leads across to (1,1,00), whose port 4 leads back
kr_ibsim_cmd 'Unlink "sw(0,1,00)"[4]'
kr_resweep 2
grep -q "knsroute: sweep 2: repair: 1 faults" "$KR_OSM_LOG" &&
	! grep -q "ERR KR02" "$KR_OSM_LOG"
kr_ok $? "a link across down: knsroute repairs it, no fallback"

kr_snapshot "$KR_TMP/rb1"
kr_ok $? "link down: every pair delivered, no credit loop with the SA's SLs"
same rb0 rb1
kr_ok $? "the link across moves no pair to another SL (${changed:-?} SL changes)"

kr_ibsim_cmd 'Link "sw(0,1,00)"[4] "sw(1,1,00)"[4]'
kr_resweep 3
kr_snapshot "$KR_TMP/rb2" &&
	kr_norm_lfts "$KR_TMP/rb2/lfts.dump" | cmp -s - "$KR_TMP/lft0"
kr_ok $? "link back: the pristine LFTs return, check passed"

kr_ibsim_cmd 'Unlink "sw(1,1,12)"'
kr_resweep 4
kr_snapshot "$KR_TMP/rb3" && ! grep -q "ERR KR02" "$KR_OSM_LOG"
kr_ok $? "a top switch down: repaired, every pair delivered, no credit loop"
same rb2 rb3
kr_ok $? "the top switch moves no pair to another SL (${changed:-?} SL changes)"

kr_ibsim_cmd 'ReLink "sw(1,1,12)"'
kr_resweep 5
kr_check_rb "$KR_TMP/rb4" &&
	kr_norm_lfts "$KR_TMP/rb4/lfts.dump" | cmp -s - "$KR_TMP/lft0"
kr_ok $? "the switch back: the pristine LFTs return, check passed"

grep -q "knsroute: sweep 5:" "$KR_OSM_LOG" && kr_log_short &&
	! grep -q "ERR KR02" "$KR_OSM_LOG"
kr_ok $? "every sweep by knsroute, log lines short"

kr_done
