#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# OpenSM as a long-running daemon with knsroute, under valgrind: several
# heavy sweeps (SIGHUP re-reads the configuration and resweeps) must keep
# routing with identical tables, and nothing the plugin allocated may leak
# or be misused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

SWEEPS=4
kr_plan 6
kr_tmpdir
if ! kr_plugin_ready || ! command -v valgrind >/dev/null; then
	kr_skip_rest "needs ibsim, opensm, valgrind and a built plugin"
	kr_done
fi

"$KR_CLI" gen kns --k 3 --n 2 --p 1 -o "$KR_TMP/fabric.net"
echo "dump_tables yes" >"$KR_TMP/knsroute.conf"
kr_plugin_conf "$KR_TMP/opensm.conf" \
	"event_plugin_options knsroute=$KR_TMP/knsroute.conf"
kr_start_ibsim "$KR_TMP/fabric.net"
kr_osm_dirs
mapfile -t base < <(kr_osm_args)
# valgrind starts opensm as its child: stopping valgrind's PID stops it.
OSM_CACHE_DIR="$KR_OSM_DIR" OSM_TMP_DIR="$KR_OSM_DIR" LD_PRELOAD="$KR_PRELOAD" \
	valgrind --leak-check=full --log-file="$KR_TMP/valgrind.log" \
	opensm "${base[@]}" -F "$KR_TMP/opensm.conf" -D 0x43 \
	</dev/null >"$KR_OSM_DIR/stdout" 2>&1 &
KR_OSM_PID=$!
kr_wait_sm 240
kr_ok $? "opensm with knsroute brings the subnet up under valgrind"

# knsroute's own copy of each sweep's LFTs (dump_tables yes), written once
# the subnet is up: renamed into place whole, unlike OpenSM's dump, which a
# reader can catch half written.
lfts="$KR_OSM_DIR/knsroute/opensm-lfts.dump"
dumped() {
	for _ in $(seq 600); do
		grep -q "knsroute: sweep $1: tables dumped" "$KR_OSM_LOG" && return
		sleep 0.1
	done
}
sums=()
dumped 1
for i in $(seq 2 "$SWEEPS"); do
	sums+=("$(md5sum <"$lfts")")
	kill -HUP "$KR_OSM_PID"
	dumped "$i"
done
sums+=("$(md5sum <"$lfts")")
[ "$(grep -c "knsroute: sweep [0-9]*: tables dumped" "$KR_OSM_LOG")" -ge "$SWEEPS" ]
kr_ok $? "$SWEEPS heavy sweeps routed by knsroute"
[ -s "$lfts" ] && [ "$(printf '%s\n' "${sums[@]}" | sort -u | wc -l)" -eq 1 ]
kr_ok $? "the same LFTs after every sweep"

# The plugin's files are a dry run's on the fabric as captured, byte for
# byte: node names as ibnetdiscover gives them, nodes and ports in the
# same order (the summary holds times and is left out).
bad=
# shellcheck disable=SC2046
kr_readback "$KR_TMP/rb" &&
	"$KR_CLI" route "$KR_TMP/rb/topology.net" $(kr_sm_args "$KR_TMP/rb") \
		--out "$KR_TMP/dry" >/dev/null &&
	for f in "$KR_OSM_DIR"/knsroute/*; do
		f=${f##*/}
		[ "$f" = summary ] && continue
		cmp -s "$KR_OSM_DIR/knsroute/$f" "$KR_TMP/dry/$f" || bad="$bad $f"
	done &&
	[ -z "$bad" ] && [ "$(ls "$KR_TMP/dry" | wc -l)" -ge 6 ]
kr_ok $? "the plugin's files equal a dry run on the captured fabric${bad:+ but for$bad}"

# The labelling is kept for later sweeps next to OpenSM's guid2lid cache,
# and it describes this fabric.
"$KR_CLI" topo "$KR_TMP/fabric.net" --conf <(echo "coords_cache $KR_OSM_DIR/knsroute-coords") \
	>"$KR_TMP/topo.out" 2>&1 && [ -s "$KR_OSM_DIR/knsroute-coords" ] &&
	grep -q "KNS 3-ary 2-direct" "$KR_TMP/topo.out"
kr_ok $? "the coordinates cache is written where the next sweep reads it"

kill "$KR_OSM_PID"
wait "$KR_OSM_PID"
KR_OSM_PID=
# Only what knsroute allocated counts; OpenSM's own exit-time leftovers
# are not ours to judge. valgrind must have run to the end to say anything.
grep -q "ERROR SUMMARY" "$KR_TMP/valgrind.log" &&
	grep -q "kr_build_fwd_tables\|knsroute" "$KR_OSM_LOG" &&
	! grep -A12 "definitely lost\|Invalid \(read\|write\)\|uninitialised" \
	"$KR_TMP/valgrind.log" | grep -q "knsroute\|kr_"
ok=$?
[ $ok -eq 0 ] || grep -B2 -A12 "kr_" "$KR_TMP/valgrind.log" | head -40 | sed 's/^/# /'
kr_ok $ok "valgrind: no leak or memory error in the plugin"

kr_done
