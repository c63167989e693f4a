#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The main job, end to end on the real components: generate a KNS fabric,
# simulate it with ibsim, let stock opensm route it with the knsroute
# plugin, read the programmed tables back from the fabric with knsroute
# capture, and check them. Every process it starts is stopped by
# PID on exit.
#
#   scripts/demo.sh [gen arguments]     default: kns --k 4 --n 2 --p 2
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
say() { printf '\n== %s\n' "$*"; }
die() { echo "demo: $*" >&2; exit 1; }

say "0. install what is missing (Debian packages: compiler, opensm, ibsim," \
    "infiniband-diags) and build knsroute into build-plain/ (a minute or" \
    "two the first time, nothing to do afterwards)"
"$top/scripts/deps.sh" || exit 2
"$top/scripts/build.sh" "$top/build-plain" --enable-werror || exit 2
echo "   built: $top/build-plain/tools/knsroute and the OpenSM plugin" \
     "$top/build-plain/osm_plugin/.libs/libknsroute.so"
export KR_BUILDDIR="$top/build-plain" KR_SRCDIR="$top"
. "$top/tests/integ/lib.sh"
. "$top/tests/integ/readback.sh"

# The plan's words in a plain sentence each, for those its lines use.
explain_plan() {
	local line=$1	# the sweep's lines
	echo "   In plain words: a packet's service level (SL, 0-15) picks its"
	echo "   virtual lane (VL) on each link; credit loops (deadlocks) are"
	echo "   avoided by giving the turns that could close a cycle lanes of"
	echo "   their own."
	case $line in *"ring halves"*) echo "   - ring halves: on each torus ring the SL says which half of" \
		"the ring the destination is in, so no route goes all the way round on one VL" ;; esac
	case $line in *"class xordet"*|*"class dbbm"*|*"class bbq"*|*"class iodet"*)
		echo "   - class NAME/Q: destinations are split into Q classes (by" \
		     "the named rule), each on its own VL, to spread the load" ;; esac
	case $line in *"to crossbars"*) echo "   - to crossbars (VL v on turns into them): packets for a" \
		"crossbar switch's own LID turn against the routing order; they switch to" \
		"VL v at that turn, a lane nothing else uses" ;; esac
	case $line in *"detour layer"*) echo "   - detour layer for faults, up*/down*: an SL kept free for" \
		"routes around failed links, deadlock-free by the up*/down* rule" ;; esac
	case $line in *"repaired routes moved"*) echo "   - repaired routes moved off their SL: spare SLs for" \
		"repaired routes whose own SL would close a loop" ;; esac
	case $line in *"multicast"*) echo "   - multicast: the SL (and VL) multicast trees use" ;; esac
	case $line in *"VLs used per port"*) echo "   - VLs used per port: how many of the links' data VLs" \
		"the plan needs" ;; esac
}

gen=("$@")
[ ${#gen[@]} -gt 0 ] || gen=(kns --k 4 --n 2 --p 2)
kr_tmpdir
work="$KR_TMP"

say "1. generate: knsroute gen ${gen[*]}"
"$KR_CLI" gen "${gen[@]}" -o "$work/fabric.net" || die "gen failed"
"$KR_CLI" info "$work/fabric.net"

say "2. simulate it (ibsim) and start opensm with the knsroute plugin"
kr_plugin_ready || die "ibsim, opensm or the plugin is missing"
kr_plugin_conf "$work/opensm.conf"
sed 's/^/   /' "$work/opensm.conf"
kr_start_ibsim "$work/fabric.net" || die "ibsim did not start"
kr_start_opensm -F "$work/opensm.conf" -D 0x43
kr_wait_sm 90 || die "opensm did not bring the subnet up"
# the first sweep's lines: the fabric, the plan (a line per SL with a role),
# the check, the multicast trees
grep -E "knsroute: sweep 1: |ERR KR|knsroute tables configured" "$KR_OSM_LOG" |
	sed 's/^.* -> [a-z_]*: /   /'
explain_plan "$(grep "knsroute: sweep 1: " "$KR_OSM_LOG")"

say "3. read back what the switches and the SA hold: knsroute capture" \
    "(every switch's LFT and SL2VL maps over SMPs, every pair's SL from the" \
    "SA; progress below)"
rb="$work/readback"
kr_sim "$KR_CLI" capture "$rb" 2>&1 | grep -v '^ibwarn' | sed 's/^/   /'
[ "${PIPESTATUS[0]}" -eq 0 ] || die "capture failed"
grep -E '^(discovery|LFT|SL2VL|path|total)' "$rb/capture.log" | sed 's/^/   /'

say "4. what knsroute recognises in the captured fabric"
"$KR_CLI" topo "$rb/topology.net" | sed 's/^/   /'

say "5. knsroute check on the tables read back from the fabric" \
    "(and the SA's own traffic, to and from the SM capture.log names)"
"$KR_CLI" check "$rb" | sed 's/^/   /'
status=${PIPESTATUS[0]}

say "6. the same tables computed offline (knsroute route) vs the fabric"
sm=$(kr_sm_args "$rb") || die "capture.log names no SM"
# shellcheck disable=SC2086
"$KR_CLI" route "$rb/topology.net" $sm --out "$work/dry" >/dev/null || die "dry run failed"
if kr_norm_lfts "$rb/lfts.dump" >"$work/rb.lft" &&
   kr_norm_lfts "$work/dry/opensm-lfts.dump" >"$work/dry.lft" &&
   cmp -s "$work/rb.lft" "$work/dry.lft" &&
   kr_norm_path_sl "$rb/topology.net" "$rb/path-sl" >"$work/rb.psl" &&
   kr_norm_path_sl "$rb/topology.net" "$work/dry/path-sl" >"$work/dry.psl" &&
   cmp -s "$work/rb.psl" "$work/dry.psl"; then
	echo "   identical: LFTs and path SLs in the fabric equal the dry run"
else
	echo "   DIFFERENT: the fabric does not hold the dry run's tables"
	status=1
fi

if [ "$status" -eq 0 ]; then
	say "result: all pairs delivered, no credit loop, fabric == dry run"
else
	say "result: PROBLEM (see above)"
fi
exit "$status"
