#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Files planted where the plugin reads and writes, as anyone who can
# create a name in OpenSM's cache or dump directory could: the sweep
# (which holds OpenSM's lock) must neither block nor grow, and root must
# not write through a link to someone else's file.
#  - tables cache a FIFO, coordinates cache a link to a victim file, the
#    dump subdirectory another user's with a link in it: the subnet comes
#    up, knsroute routes, says why it set the caches aside, replaces the
#    names, leaves the victims alone and refuses the dump directory;
#  - tables cache a link to /dev/zero, coordinates cache a FIFO: the same;
#  - restarted with LMC 1 where the cache was written with LMC 0: every
#    CA LID moved, so the tables cache is set aside, not read onto the
#    ports that now hold its LIDs;
#  - a cache directory 246 bytes long: two caches, not one cut name.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 8
kr_tmpdir
if ! kr_plugin_ready; then
	kr_skip_rest "needs ibsim, opensm, infiniband-diags and a built plugin"
	kr_done
fi
T=$KR_TMP
O=$T/osm

export KNSROUTE_CONF="$T/knsroute.conf"
printf 'dump_tables yes\n' >"$KNSROUTE_CONF"
kr_plugin_conf "$T/opensm.conf"
"$KR_CLI" gen torus --dims 4x4 --p 1 -o "$T/t44.net"
kr_start_ibsim "$T/t44.net"

mkdir -p "$O/knsroute"
echo precious >"$T/victim"
echo precious >"$T/victim2"
mkfifo "$O/knsroute-tables"
ln -s "$T/victim" "$O/knsroute-coords"
ln -s "$T/victim2" "$O/knsroute/summary"
chown 65534 "$O/knsroute"
kr_start_opensm -F "$T/opensm.conf"
kr_wait_sm 60 && kr_first_sweep_routed "torus 4x4"
kr_ok $? "a FIFO and a link at the cache paths: the subnet comes up, knsroute routes"

grep -q "tables cache not used: $O/knsroute-tables: cannot read: not a regular file" "$KR_OSM_LOG" &&
	grep -q "coords_cache not used: $O/knsroute-coords: a symbolic link" "$KR_OSM_LOG"
kr_ok $? "the log says why each cache was set aside"

for _ in $(seq 100); do
	grep -q "ERR KR05" "$KR_OSM_LOG" && break
	sleep 0.1
done
[ "$(cat "$T/victim")" = precious ] && [ "$(cat "$T/victim2")" = precious ] &&
	[ -f "$O/knsroute-tables" ] && [ ! -L "$O/knsroute-coords" ] &&
	[ -f "$O/knsroute-coords" ] &&
	grep -q "ERR KR05: knsroute: cannot dump tables: cannot use $O/knsroute: owned by another user" "$KR_OSM_LOG"
kr_ok $? "the caches replace what stood at their names, the victims untouched, the dump directory refused"
kr_stop_opensm

rm -f "$O/knsroute-tables" "$O/knsroute-coords"
ln -s /dev/zero "$O/knsroute-tables"
mkfifo "$O/knsroute-coords"
: >"$KR_OSM_LOG"
kr_start_opensm -F "$T/opensm.conf"
kr_wait_sm 60 && kr_first_sweep_routed "torus 4x4" &&
	grep -q "tables cache not used: $O/knsroute-tables: a symbolic link" "$KR_OSM_LOG" &&
	grep -q "coords_cache not used: $O/knsroute-coords: cannot read: not a regular file" "$KR_OSM_LOG"
kr_ok $? "a link to /dev/zero and a FIFO at the cache paths: set aside, routed"
rss=$(awk '/^VmHWM/ { print $2 }' "/proc/$KR_OSM_PID/status")
[ "${rss:-999999}" -lt 200000 ]
kr_ok $? "opensm's peak memory stays small (${rss:-?} kB)"
kr_wait_swept
kr_stop_opensm

kr_plugin_conf "$T/opensm-lmc.conf" "lmc 1"
: >"$KR_OSM_LOG"
kr_start_opensm -F "$T/opensm-lmc.conf"
kr_wait_sm 60 && kr_first_sweep_routed "torus 4x4" &&
	grep -q "knsroute: sweep 1: tables cache not used: $O/knsroute-tables:[0-9]*: port 0x[0-9a-f]* has LID [0-9]* LMC 1, not LID [0-9]* LMC 0: the LIDs were handed out anew since" "$KR_OSM_LOG" &&
	! grep -q "ERR KR07" "$KR_OSM_LOG"
kr_ok $? "LMC 0 -> 1 across a restart: the tables cache is set aside, no pair counted as moved"
kr_stop_opensm

# OpenSM's cache directory in a path of 246 bytes: both caches get their
# own names (they used to be cut to one, each sweep overwriting the other)
long=$T/$(printf 'c%.0s' $(seq $((246 - ${#T} - 1))))
mkdir -p "$long"
mapfile -t base < <(kr_osm_args)
: >"$KR_OSM_LOG"
OSM_CACHE_DIR="$long" OSM_TMP_DIR="$O" LD_PRELOAD="$KR_PRELOAD" \
	opensm "${base[@]}" -F "$T/opensm.conf" </dev/null >"$O/stdout" 2>&1 &
KR_OSM_PID=$!
kr_wait_sm 60 && kr_first_sweep_routed "torus 4x4" && kr_wait_swept &&
	[ -f "$long/knsroute-coords" ] && [ -f "$long/knsroute-tables" ] &&
	head -1 "$long/knsroute-tables" | grep -q "tables" &&
	! head -1 "$long/knsroute-coords" | grep -q "tables"
kr_ok $? "a cache directory of ${#long} bytes: both caches written, each to its name"
! grep -q "ERR KR0[14]" "$KR_OSM_LOG"
kr_ok $? "and no cache error"
kr_stop_opensm
kr_stop_ibsim

kr_done
