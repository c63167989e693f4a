#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# A fabric that is already faulty when opensm starts, with no coordinates
# cache yet: a 4-ary 2-direct KNS whose routers (0,2) and (1,2) both lost
# their dimension-1 link, so each fits two places. knsroute must recognise
# it (saying which places it took) and route it itself; it used to refuse,
# and minhop, the fallback, installed tables with a credit loop. Then a KNS
# with fat-tree subnets that starts with a host down, and a mesh whose
# faults cut it in halves.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 6
kr_tmpdir
if ! kr_plugin_ready || ! command -v jq >/dev/null; then
	kr_skip_rest "needs ibsim, opensm, jq and a built plugin"
	kr_done
fi

net="$KR_TMP/fabric.net"
"$KR_CLI" gen kns --k 4 --n 2 --p 2 --fail 2 --seed 3 -o "$net" 2>/dev/null
kr_plugin_up "$net"
kr_first_sweep_routed "KNS 4-ary 2-direct"
kr_ok $? "knsroute routes the faulty KNS at the first sweep"

[ "$(grep -c "knsroute: sweep 1: recognition: router .* placed at .* of the 2 places its missing links leave open" "$KR_OSM_LOG")" -eq 2 ]
kr_ok $? "the log names both routers placed by choice"

kr_check_rb "$KR_TMP/rb"
kr_ok $? "read back: every pair delivered, no credit loop with the SA's SLs"
kr_stop_opensm
kr_stop_ibsim

# A KNS with fat-tree subnets whose router (3,3) has its only host down:
# a switch without CAs that joins two subnets, still a router. It used to
# make the whole fabric unrecognisable at a fresh start.
"$KR_CLI" gen kns --k 9 --n 2 --radix 6 -o "$KR_TMP/sub.net"
awk '/^(Ca|Hca)/ { skip = $0 ~ /"ca\(3,3\)\/0"/ }
     /^\[/ && /"ca\(3,3\)\/0"/ { next }
     !skip' "$KR_TMP/sub.net" >"$KR_TMP/sub-down.net"
rm -rf "$KR_OSM_DIR"
kr_start_ibsim "$KR_TMP/sub-down.net"
kr_start_opensm -F "$KR_TMP/opensm.conf"
kr_wait_sm 90
kr_first_sweep_routed "KNS 9-ary 2-direct 2-indirect"
kr_ok $? "knsroute routes the KNS with subnets whose router lost its only host"
kr_check_rb "$KR_TMP/rb2"
kr_ok $? "read back: every pair delivered, no credit loop"
kr_stop_opensm
kr_stop_ibsim

# A 4x6 mesh without the links (1,1)-(1,2) and (2,1)-(2,2), shuffled: its
# halves hang together by their border links only, whose dimension no
# square tells. Placed cluster by cluster, a half fitted nowhere, and
# minhop, the fallback, installed tables with a credit loop.
"$KR_CLI" gen mesh --dims 4x6 --p 1 --fail 2 --seed 16 --shuffle 16 \
	-o "$KR_TMP/mesh.net" 2>/dev/null
rm -rf "$KR_OSM_DIR"
kr_start_ibsim "$KR_TMP/mesh.net"
kr_start_opensm -F "$KR_TMP/opensm.conf"
kr_wait_sm 60
grep -q "knsroute: sweep 1: mesh 4x6" "$KR_OSM_LOG" &&
	! grep -q "ERR KR02" "$KR_OSM_LOG" &&
	kr_check_rb "$KR_TMP/rb3"
kr_ok $? "knsroute routes the mesh cut in halves at the first sweep; read back and checked"
kr_done
