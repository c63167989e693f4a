#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The plugin's configuration under a running opensm: a knsroute.conf
# created at the default path after OpenSM started is read at the next
# sweep (the guide says the file is read every sweep), OpenSM's sm_sl and
# perfmgr are taken into account, and a long reason for falling back
# reaches the log whole; a tables cache that cannot be written is logged
# (ERR KR14) without falling back; the sweep that falls back removes the tables
# cache, since the switches then hold the fallback engine's tables, also
# when it fell back on a broken knsroute.conf; OpenSM's unicast cache is
# turned off (ERR KR12), so a KNS router going down is repaired.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 8
kr_tmpdir
if ! kr_plugin_ready; then
	kr_skip_rest "needs ibsim, opensm, infiniband-diags and a built plugin"
	kr_done
fi
T=$KR_TMP

# The default path, moved into this test's directory: it does not exist
# when opensm starts. The SA on SL 1 (which joins the multicast SLs' VL),
# the PerfMgr on: its traffic is proven on SL 0 with the SA's on SL 1.
export KNSROUTE_CONF="$T/knsroute.conf"
kr_plugin_conf "$T/opensm.conf" "perfmgr TRUE" "sm_sl 1"
"$KR_CLI" gen torus --dims 3x3 --p 1 -o "$T/t33.net"
kr_start_ibsim "$T/t33.net"
kr_start_opensm -F "$T/opensm.conf"
kr_wait_sm 60
grep -q "knsroute: sweep 1: torus 3x3" "$KR_OSM_LOG" &&
	grep -q "knsroute: sweep 1: SL bits: 0-1 class xordet" "$KR_OSM_LOG" &&
	grep -q "knsroute: sweep 1: SL 0, 1: multicast" "$KR_OSM_LOG" &&
	grep -q "knsroute: sweep 1: check passed, SA traffic on SL 1 and the PerfMgr's on SL 0 included$" "$KR_OSM_LOG" &&
	! grep -q "ERR KR" "$KR_OSM_LOG"
kr_ok $? "no knsroute.conf at start: sweep 1 uses the defaults (xordet classes); the SA's SL 1 and the PerfMgr's SL 0 proven"

printf 'classify none\ntables_cache %s\n' "$T/none/tables" >"$KNSROUTE_CONF"
kill -HUP "$KR_OSM_PID"
for _ in $(seq 300); do
	grep -q "knsroute: sweep 2:" "$KR_OSM_LOG" && break
	sleep 0.1
done
grep -q "knsroute: config $KNSROUTE_CONF\$" "$KR_OSM_LOG" &&
	grep -q "knsroute: sweep 2: SL bits: no classes" "$KR_OSM_LOG" &&
	grep -q "ERR KR14: knsroute: cannot save the tables cache: .*$T/none/tables" "$KR_OSM_LOG" &&
	! grep -q "ERR KR0[12]" "$KR_OSM_LOG"
kr_ok $? "knsroute.conf created later: read at the next sweep (classify none); a tables cache it cannot write is an error, not a fallback"
kr_stop_opensm
kr_stop_ibsim

# A fat tree by hand (three leaves, two spines, a CA per leaf): both
# families' reasons together run past 256 bytes.
{
	for s in 1 2 3; do
		printf 'Switch\t3 "leaf%d"\n[1]\t"spine4"[%d]\n[2]\t"spine5"[%d]\n' $s $s $s
		printf '[3]\t"ca%d"[1]\n\n' $s
	done
	for s in 4 5; do
		printf 'Switch\t3 "spine%d"\n[1]\t"leaf1"[%d]\n[2]\t"leaf2"[%d]\n[3]\t"leaf3"[%d]\n\n' \
			$s $((s - 3)) $((s - 3)) $((s - 3))
	done
	for s in 1 2 3; do
		printf 'Ca\t1 "ca%d"\n[1]\t"leaf%d"[3]\n\n' $s $s
	done
} >"$T/ft.net"
cp "$KR_OSM_DIR/knsroute-tables" "$T/tables"
rm -rf "$KR_TMP/osm" "$KNSROUTE_CONF"
mkdir "$KR_TMP/osm" && cp "$T/tables" "$KR_TMP/osm/knsroute-tables"
kr_start_ibsim "$T/ft.net"
kr_start_opensm -F "$T/opensm.conf"
kr_wait_sm 60
line=$(grep "ERR KR02: knsroute: recognition:" "$KR_OSM_LOG" | head -1)
[[ $line == *"not a KNS: "*"; not a torus or mesh: "*"two switches share at most 2"*"; falling back to the next routing engine"* ]]
kr_ok $? "a long reason reaches the log whole (${#line} bytes)"
grep -q "SUBNET UP" "$KR_OSM_LOG"
kr_ok $? "the fat tree comes up on the fallback engine"
[ -s "$T/tables" ] && [ ! -e "$KR_OSM_DIR/knsroute-tables" ] &&
	grep -q "knsroute: sweep 1: tables cache not used: .*none of its 9 switches is in the subnet" "$KR_OSM_LOG"
kr_ok $? "the torus's tables cache is not used on the fat tree, and the sweep that fell back removed it"

kr_stop_opensm
mv "$KR_OSM_LOG" "$KR_OSM_LOG.ft"
cp "$T/tables" "$KR_OSM_DIR/knsroute-tables"
printf 'classify nonsense\n' >"$KNSROUTE_CONF"
kr_start_opensm -F "$T/opensm.conf"
kr_wait_sm 60
grep -q "ERR KR01: knsroute: $KNSROUTE_CONF:1: " "$KR_OSM_LOG" &&
	[ ! -e "$KR_OSM_DIR/knsroute-tables" ]
kr_ok $? "a broken knsroute.conf at start: ERR KR01, and the tables cache removed all the same"
kr_stop_opensm
kr_stop_ibsim

# OpenSM's unicast cache would take a KNS router with its CA for a leaf
# and, when it goes down, reinstall the last tables without knsroute:
# 12 pairs through it were left on a dead switch. The plugin turns it off.
rm -rf "$KR_TMP/osm" "$KNSROUTE_CONF"
kr_plugin_conf "$T/opensm.conf" "use_ucast_cache TRUE"
"$KR_CLI" gen kns --k 3 --n 2 --p 1 -o "$T/k32.net"
kr_start_ibsim "$T/k32.net" && kr_start_opensm -F "$T/opensm.conf" &&
	kr_wait_sm 60 &&
	[ "$(grep -c "ERR KR12: knsroute: use_ucast_cache is TRUE in opensm.conf; turned off" "$KR_OSM_LOG")" -eq 1 ]
kr_ok $? "use_ucast_cache TRUE: ERR KR12, once"
kr_sweep_after 'Unlink "router(1,1)"' &&
	grep -q "knsroute: sweep 2: repair: " "$KR_OSM_LOG" &&
	! grep -q "cached routing" "$KR_OSM_LOG" &&
	kr_check_rb "$T/ucache" &&
	! grep -q '"router(1,1)"' "$T/ucache/topology.net"
kr_ok $? "... a router goes down: knsroute repairs, every pair left is delivered"

kr_done
