#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Hosts on a KNS crossbar's spare ports (the SM's node among them, as an
# admin plugs it wherever a port is free): a 4-ary 2-direct KNS with one
# host on each of two crossbars of the second dimension. knsroute used to
# refuse the fabric ("both have CAs but would be a router and a crossbar"),
# and minhop, the fallback, installed tables with a credit loop. Now it
# must route it, with the SA on a crossbar host, prove it (the read-back
# tables with the SA's SLs and every SL2VL map pass the check), and repair
# it when a host's crossbar loses a router.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 4
kr_tmpdir
if ! kr_plugin_ready || ! command -v jq >/dev/null; then
	kr_skip_rest "needs ibsim, opensm, jq and a built plugin"
	kr_done
fi

# net with a host "host-X" on a new port of each switch X named after it;
# the hosts come first, so that ibsim's SM port is one of them.
with_hosts() {
	local net=$1; shift
	awk -v list="$*" '
	BEGIN { n = split(list, x, " "); for (i = 1; i <= n; i++) want[x[i]] = 1 }
	function flush() {
		if (cur != "") block = block sprintf("[%d]\t\"host-%s\"[1]\n", np, cur)
		body = body block; block = ""; cur = ""
	}
	/^Switch\t/ {
		split($0, q, "\""); name = q[2]
		if (name in want) {
			np = $2 + 1; cur = name
			sub(/^Switch\t[0-9]+/, "Switch\t" np)
			hosts = hosts sprintf("caguid=0x%x\nCa\t1 \"host-%s\"\n" \
				"[1](%x) \t\"%s\"[%d]\n\n", 28672 + 16 * nh,
				name, 28673 + 16 * nh, name, np)
			nh++
		}
	}
	/^$/ { flush() }
	{ block = block $0 "\n" }
	END { flush(); printf "%s%s", hosts, body }
	' "$net"
}

net="$KR_TMP/fabric.net"
"$KR_CLI" gen kns --k 4 --n 2 --p 1 -o "$KR_TMP/kns.net"
with_hosts "$KR_TMP/kns.net" "xbar1(0,*)" "xbar1(1,*)" >"$net"
kr_plugin_up "$net"
kr_first_sweep_routed "KNS 4-ary 2-direct 1-indirect, p=1: 16 routers, 8 crossbars, 18 CAs"
kr_ok $? "knsroute routes the KNS with hosts on two crossbars"

# the hosts' port GUIDs are 0x7001 and 0x7011: ibsim's SM port is the first
kr_sim_try "$KR_TMP/sminfo" sminfo && grep -q "sm guid 0x7001," "$KR_TMP/sminfo" &&
	kr_check_rb "$KR_TMP/rb"
kr_ok $? "the SM on a crossbar host; read back: every pair delivered"
jq -e '.classes.all.verdict == "ok" and .classes.all.pairs > .classes.data.pairs' \
	"$KR_TMP/rb/check.json" >/dev/null
kr_ok $? "read back: no credit loop, management traffic and the SA's SLs included"

kr_sweep_after 'Unlink "router(0,1)" 3' &&
	kr_check_rb "$KR_TMP/rb2" &&
	jq -e '.classes.all.verdict == "ok"' "$KR_TMP/rb2/check.json" >/dev/null &&
	! grep -q "ERR KR0[12]" "$KR_OSM_LOG"
kr_ok $? "a host's crossbar loses a router: repaired, read back clean"

kr_stop_opensm
kr_stop_ibsim
kr_done
