#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# A host down in OpenSM (a node reboot), on a torus whose switches have
# their three hosts on different port numbers each (`knsroute gen --shuffle`):
# every pair between the hosts left keeps its route and its SL, and with
# the host back the tables are the first ones again. The host taken is
# the one on the lowest port of its switch, whose siblings' slots a rank
# among the live CA ports would shift. Read back from the simulator after
# each sweep; ref_stable.py (the tests' own walker) compares. Then
# OpenSM restarts while the host is down: from the coordinates cache, which
# keeps the hosts' slots (the host's too, while it is away), the tables are
# those of before the restart, and the host back gets its own slot.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 9
kr_tmpdir
if ! kr_plugin_ready || ! command -v python3 >/dev/null; then
	kr_skip_rest "needs ibsim, opensm, python3 and a built plugin"
	kr_done
fi

net="$KR_TMP/fabric.net"
"$KR_CLI" gen torus --dims 4x4 --p 3 --shuffle 5 -o "$net"
# the CA on the lowest port of the first switch that has three
host=$(awk '/^Switch/ { if (n == 3) exit; n = 0; low = 999 }
	    /^\[[0-9]+\][ \t]+"ca-/ { p = substr($1, 2) + 0; n++
				     if (p < low) { low = p; name = $2 } }
	    END { sub(/\[1\]$/, "", name); gsub(/"/, "", name); print name }' "$net")
ncas=$(grep -c '^Ca' "$net")
kr_plugin_up "$net"
kr_ok $? "opensm with knsroute brings the subnet up"

kr_snapshot "$KR_TMP/s1"
kr_ok $? "the intact fabric read back and checked"
[ -n "$host" ] && kr_sweep_after "Unlink \"$host\"" && kr_snapshot "$KR_TMP/s2"
kr_ok $? "host $host down: read back and checked"
read -r _ same _ moved _ <<<"$(kr_stable "$KR_TMP/s1" "$KR_TMP/s2")"
echo "# $host down: SAME $same MOVED $moved (pairs among the $((ncas - 1)) hosts left: $(((ncas - 1) * (ncas - 2))))"
[ "${same:-0}" -eq $(((ncas - 1) * (ncas - 2))) ] && [ "${moved:-1}" -eq 0 ]
kr_ok $? "every pair between the hosts left keeps its route and SL"
kr_sweep_after "ReLink \"$host\"" && kr_snapshot "$KR_TMP/s3"
kr_ok $? "host back: read back and checked"
cmp -s "$KR_TMP/s1/lfts" "$KR_TMP/s3/lfts" && cmp -s "$KR_TMP/s1/psl" "$KR_TMP/s3/psl"
kr_ok $? "with the host back, the first tables and SLs again"

# the host down again, and OpenSM restarted (the cache and guid2lid stay)
kr_sweep_after "Unlink \"$host\"" && kr_stop_opensm &&
	mv "$KR_OSM_LOG" "$KR_OSM_LOG.before" &&
	grep -q " cas " "$KR_OSM_DIR/knsroute-coords" &&
	kr_start_opensm -F "$KR_TMP/opensm.conf" && kr_wait_sm 60 &&
	sleep 1 && kr_snapshot "$KR_TMP/s4"
kr_ok $? "opensm restarted with the host down: read back and checked"
read -r _ same _ moved _ <<<"$(kr_stable "$KR_TMP/s2" "$KR_TMP/s4")"
echo "# restart with $host down: SAME $same MOVED $moved"
[ "${same:-0}" -eq $(((ncas - 1) * (ncas - 2))) ] && [ "${moved:-1}" -eq 0 ]
kr_ok $? "after the restart, every pair between the hosts left keeps its route and SL"
kr_sweep_after "ReLink \"$host\"" && kr_snapshot "$KR_TMP/s5" &&
	cmp -s "$KR_TMP/s1/lfts" "$KR_TMP/s5/lfts" && cmp -s "$KR_TMP/s1/psl" "$KR_TMP/s5/psl"
kr_ok $? "the host back after the restart: the first tables and SLs again"

kr_done
