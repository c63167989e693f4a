#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# bench/compare --quick as a smoke test: every OpenSM engine and knsroute
# on one small torus in real opensm on ibsim, read back, checked, and the
# report written. Known independently of knsroute: dor on a 4x4 torus with
# one VL has credit loops; torus-2QoS (with the generated torus-2QoS.conf)
# and knsroute route it themselves, loop-free, every pair delivered.
. "$(dirname "$0")/lib.sh"

kr_plan 3
kr_tmpdir
if ! kr_have_sim || [ ! -e "$KR_PLUGINDIR/libknsroute.so" ]; then
	kr_skip_rest "needs ibsim, opensm, infiniband-diags and a built plugin"
	kr_done
fi
R="$KR_TMP/benchmarks.md"
"$KR_SRCDIR/bench/compare" --quick --out "$R" 2>"$KR_TMP/compare.err"
ok=$?
[ $ok -eq 0 ] || sed 's/^/# /' "$KR_TMP/compare.err" | tail -n 20
kr_ok $ok "bench/compare --quick ran and wrote its report"

row() { grep "^| $1 |" "$R"; }
row knsroute | grep -q "^| knsroute | yes | [0-9.]* ([0-9.-]*) | no / no | 0 |" &&
	row torus-2QoS | grep -q "^| torus-2QoS | yes | [0-9.]* ([0-9.-]*) | no / no | 0 |"
kr_ok $? "knsroute and torus-2QoS routed it themselves: no credit loop, all delivered"
row dor | grep -q "^| dor | yes | .* | \*\*yes\*\* / \*\*yes\*\* | 0 |" &&
	[ "$(grep -cE '^\| [a-zA-Z0-9-]+ \| (yes|fell back)' "$R")" -eq 8 ]
ok=$?
[ $ok -eq 0 ] || sed "s/^/# /" "$R"
kr_ok $ok "dor's credit loop is found; one row per engine (8)"
kr_done
