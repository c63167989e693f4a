#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# A link inside a fat-tree subnet fails under a running opensm: knsroute
# (8-ary 2-direct 3-indirect KNS of radix 4) repairs it inside the subnet,
# every CA pair keeps its dimension-order path, the read-back passes the
# check, and the pristine tables return with the link.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 5
kr_tmpdir
if ! kr_plugin_ready || ! command -v jq >/dev/null; then
	kr_skip_rest "needs ibsim, opensm, jq and a built plugin"
	kr_done
fi

net="$KR_TMP/fabric.net"
"$KR_CLI" gen kns --k 8 --n 2 --p 1 --radix 4 -o "$net"
kr_plugin_up "$net" 90
grep -q "knsroute: sweep 1: KNS 8-ary 2-direct 3-indirect" "$KR_OSM_LOG" &&
	kr_check_rb "$KR_TMP/rb0"
ok=$?
[ $ok -eq 0 ] || grep "knsroute" "$KR_OSM_LOG" | sed 's/^/# /' | tail -5
kr_ok $ok "the intact KNS with subnets is routed by knsroute and checks"
kr_norm_lfts "$KR_TMP/rb0/lfts.dump" >"$KR_TMP/lft0"

# Stage 1 to stage 2 of the x subnet of line y = 0 (gen.c's port 3: up).
kr_ibsim_cmd 'Unlink "sw0(*,0)e1o0"[3]'
kr_resweep 2 && ! grep -q "ERR KR0" "$KR_OSM_LOG"
kr_ok $? "after a subnet link fault knsroute still routes, no errors"

grep -q "knsroute: sweep 2: repair: .*CA pairs: 4032 direct, 0 via 1 intermediate, 0 via 2, 0 general" "$KR_OSM_LOG"
ok=$?
[ $ok -eq 0 ] || grep "sweep 2: repair" "$KR_OSM_LOG" | sed 's/^/# /'
kr_ok $ok "repaired inside the subnet: every CA pair keeps its path"

kr_check_rb "$KR_TMP/rb1"
kr_ok $? "link down: every pair delivered, no credit loop (read back)"

kr_ibsim_cmd 'Link "sw0(*,0)e1o0"[3] "sw0(*,0)e2o0"[1]'
kr_resweep 3 && kr_check_rb "$KR_TMP/rb2" &&
	kr_norm_lfts "$KR_TMP/rb2/lfts.dump" | cmp -s - "$KR_TMP/lft0"
kr_ok $? "link back: the pristine LFTs return"

kr_stop_opensm
kr_stop_ibsim
kr_done
