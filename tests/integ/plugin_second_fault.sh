#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# A second link fault while a first is repaired, then a router down, in
# OpenSM: every CA pair whose route a further fault leaves alone keeps its
# SL (applications keep their PathRecords), and the tables pass the check
# after each fault. The router gone shifts the rows of the switches after
# it, which the repair must see through. The fabric as read back from the simulator after each sweep, the
# routes walked and compared by ref_stable.py, which shares no code with
# knsroute. On this 4-ary 2-direct KNS the plugin of e7bd3bb moved 12
# pairs of unchanged route to another SL for this pair of faults (259 of
# its 992 ordered link pairs moved some, offline). Then OpenSM restarts
# with the faults in place: without the tables cache the plugin of 15f9fa0
# repaired from scratch there and moved the SLs of some pairs. A dry run
# of the captured fabric with the same tables cache (route --in-force)
# gives the tables the restarted OpenSM installed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 10
kr_tmpdir
if ! kr_plugin_ready || ! command -v python3 >/dev/null; then
	kr_skip_rest "needs ibsim, opensm, python3 and a built plugin"
	kr_done
fi

net="$KR_TMP/fabric.net"
"$KR_CLI" gen kns --k 4 --n 2 --p 1 -o "$net"
kr_plugin_up "$net"
kr_ok $? "opensm with knsroute brings the subnet up"

# fault N: the sweep that repairs N faults, read back and normalised
fault() {
	local n=$1 re="knsroute: sweep [0-9]+: repair: $1 faults:"

	kr_ibsim_cmd "$2"
	kill -HUP "$KR_OSM_PID"
	for _ in $(seq 300); do
		grep -qE "$re" "$KR_OSM_LOG" && break
		sleep 0.1
	done
	grep -qE "$re" "$KR_OSM_LOG" || return 1
	kr_wait_swept
	kr_snapshot "$KR_TMP/s$n"
}

fault 1 'Unlink "router(3,3)"[3]'
kr_ok $? "the first fault repaired, read back and checked"
fault 2 'Unlink "router(1,1)"[2]'
kr_ok $? "the second fault repaired, read back and checked"

# stable A B: the pairs of unchanged route from fault A's sweep to B's
stable() {
	kr_stable "$KR_TMP/s$1" "$KR_TMP/s$2" >"$KR_TMP/stable$2"
	read -r _ same _ moved _ changed <"$KR_TMP/stable$2"
	echo "# fault $1 -> $2: $(cat "$KR_TMP/stable$2")"
	[ "${same:-0}" -gt 100 ] && [ "${moved:-1}" -eq 0 ] &&
		! cmp -s "$KR_TMP/s$1/lfts" "$KR_TMP/s$2/lfts"
}

stable 1 2
kr_ok $? "the second fault moves no pair of unchanged route to another SL (${same:-0} such pairs, ${moved:-?} moved, ${changed:-?} SL changes in all)"

fault 3 'Unlink "router(2,3)"'
kr_ok $? "a router down too: repaired, read back and checked"
stable 2 3
kr_ok $? "the router down moves no pair of unchanged route to another SL (${same:-0} such pairs, ${moved:-?} moved, ${changed:-?} SL changes in all)"
! grep -q "ERR KR0[12]" "$KR_OSM_LOG"
kr_ok $? "knsroute routed every sweep itself"

# OpenSM restarted with the three faults in place (its caches stay): the
# tables cache gives the first sweep the tables in force, so it repairs
# as the running OpenSM would have, and no pair moves
mv "$KR_OSM_LOG" "$KR_OSM_LOG.before"
kr_stop_opensm && grep -q "^dest " "$KR_OSM_DIR/knsroute-tables" &&
	cp "$KR_OSM_DIR/knsroute-tables" "$KR_TMP/tables.before" &&
	kr_start_opensm -F "$KR_TMP/opensm.conf" && kr_wait_sm 60 &&
	sleep 1 && kr_snapshot "$KR_TMP/s4" &&
	grep -q "knsroute: sweep 1: tables in force from " "$KR_OSM_LOG" &&
	grep -q "knsroute: sweep 1: repair: 3 faults: " "$KR_OSM_LOG" &&
	grep -q "knsroute: sweep 1: repair: changed since the tables cache: 0 LFT entries, 0 destination SLs, 0 pair SLs$" "$KR_OSM_LOG"
kr_ok $? "opensm restarted with the faults in place: read back and checked, the repair line says nothing changed"
kr_stable "$KR_TMP/s3" "$KR_TMP/s4" >"$KR_TMP/stable4"
read -r _ same _ moved _ changed <"$KR_TMP/stable4"
echo "# restart: $(cat "$KR_TMP/stable4")"
[ "${same:-0}" -gt 100 ] && [ "${moved:-1}" -eq 0 ] && [ "${changed:-1}" -eq 0 ]
kr_ok $? "the restart changes no pair's SL (${same:-0} pairs of unchanged route, ${changed:-?} SL changes in all)"

printf 'coords_cache %s\n' "$KR_OSM_DIR/knsroute-coords" >"$KR_TMP/dry.conf"
# shellcheck disable=SC2046
"$KR_CLI" route "$KR_TMP/s4/topology.net" -c "$KR_TMP/dry.conf" \
	$(kr_sm_args "$KR_TMP/s4") --in-force "$KR_TMP/tables.before" \
	--out "$KR_TMP/dry4" -q >/dev/null &&
	cmp -s <(kr_norm_lfts "$KR_TMP/dry4/opensm-lfts.dump") \
		<(kr_norm_lfts "$KR_TMP/s4/lfts.dump") &&
	cmp -s <(kr_norm_path_sl "$KR_TMP/s4/topology.net" "$KR_TMP/dry4/path-sl") \
		<(kr_norm_path_sl "$KR_TMP/s4/topology.net" "$KR_TMP/s4/path-sl")
kr_ok $? "route --in-force with the cache before the restart: the restarted OpenSM's LFTs and path SLs"

kr_done
