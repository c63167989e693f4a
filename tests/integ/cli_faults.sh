#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# knsroute faults: random link and switch faults on generated KNS and torus
# fabrics, repaired and checked trial by trial. Offline, a few seconds.
. "$(dirname "$0")/lib.sh"

kr_plan 18
kr_tmpdir
K="$KR_CLI"
T="$KR_TMP"

if ! command -v jq >/dev/null; then
	kr_skip_rest "jq is not installed"
	kr_done
fi

"$K" gen kns --k 4 --n 2 --p 1 -o "$T/kns.net" &&
	"$K" gen torus --dims 4x4x4 --p 1 -o "$T/torus.net"
kr_ok $? "gen: a 4-ary 2-direct KNS and a 4x4x4 torus"

# The thesis: every single link fault of a KNS leaves a dimension-order
# route through one intermediate router, and the repair finds them.
"$K" faults "$T/kns.net" --random 1 --trials 20 --json -q >"$T/one.json"
rc=$?
[ $rc -eq 0 ] && jq -e '.handled_total == 1 and .disconnected == 0 and
	.paths_1_intermediate > 0 and .routable_le1_intermediate == 1 and
	.fault_kind == "links" and .trials == 20 and .failures == 0 and
	.first_failure == null' "$T/one.json" >/dev/null
kr_ok $? "faults: one link on a KNS, 20 trials: all handled via intermediates"

"$K" faults "$T/torus.net" --random 3 --trials 10 --json -q >"$T/torus.json" &&
	jq -e '.handled_total == 1 and .connected_trials > 0' "$T/torus.json" >/dev/null
kr_ok $? "faults: three links on a 4x4x4 torus, 10 trials: all handled"

# The busiest link's mean over the trials lies between the least and the
# greatest trial's; with one trial it is that trial's.
"$K" faults "$T/torus.net" --random 3 --trials 1 --json -q >"$T/torus1.json" &&
	jq -e '.link_load_mean_ratio > 0 and
		.link_load_mean_ratio <= .link_load_max_ratio' \
		"$T/torus.json" >/dev/null &&
	jq -e '.link_load_mean_ratio == .link_load_max_ratio and
		.link_load_max_ratio >= 1' "$T/torus1.json" >/dev/null
kr_ok $? "faults: busiest link averaged over trials, one trial its own"

"$K" faults "$T/kns.net" --switches 1 --trials 20 --json -q >"$T/sw.json" &&
	jq -e '.handled_total == 1 and .fault_kind == "switches" and
		.connected_trials > 0 and .disconnected > 0' "$T/sw.json" >/dev/null
kr_ok $? "faults: one switch out of a KNS: crossbars handled, routers cut CAs off"

"$K" faults "$T/kns.net" --random 1 --trials 20 --max-intermediates 0 --json -q \
	>"$T/mi0.json" &&
	jq -e '.paths_1_intermediate == 0 and .paths_2_intermediates == 0 and
		.paths_general_repair > 0 and .max_intermediates == 0' \
		"$T/mi0.json" >/dev/null
kr_ok $? "faults: --max-intermediates 0 leaves it to the general repair"

# One trial of these (4 links of a 4x4x4 mesh, seed 1) keeps
# two-intermediate paths on their SLs by default; allowed only one, the
# repair moves those pairs to a layer of repaired trees with
# one-intermediate paths instead.
"$K" gen mesh --dims 4x4x4 --p 1 -o "$T/m444.net" &&
	"$K" faults "$T/m444.net" --random 4 --trials 2 --seed 1 --json -q \
		>"$T/mi2.json" &&
	"$K" faults "$T/m444.net" --random 4 --trials 2 --seed 1 --json -q \
		--max-intermediates 1 >"$T/mi1.json" &&
	jq -e '.paths_2_intermediates > 0 and .handled_le1_intermediate == 0.5' \
		"$T/mi2.json" >/dev/null &&
	jq -e '.paths_2_intermediates == 0 and .paths_general_repair == 0 and
		.paths_detour_layer == 0 and .handled_le1_intermediate == 1 and
		.handled_total == 1 and .pairs_sl_changed > 0' "$T/mi1.json" >/dev/null
kr_ok $? "faults: --max-intermediates 1 moves pairs rather than keep two intermediates"

# Eight links out of a 4-ary 3-direct KNS (seed 1, trial 0): every cut pair has a one-intermediate
# way (the thesis' measure), and the free repair, whose switches first
# pick their intermediates alone, re-points the few whose paths ended up
# through more until each path has one.
"$K" gen kns --k 4 --n 3 --p 1 -o "$T/kns43.net" &&
"$K" faults "$T/kns43.net" --random 8 --trials 1 --seed 1 --json -q \
	--max-intermediates 1 >"$T/mi1b.json" &&
	jq -e '.routable_le1_intermediate == 1 and .handled_le1_intermediate == 1 and
		.paths_general_repair == 0 and .paths_1_intermediate > 0' \
		"$T/mi1b.json" >/dev/null
kr_ok $? "faults: paths re-pointed to keep one intermediate where one suffices"

# Two links out of a 4x4x4 mesh, 30 sets: with one intermediate
# allowed, pairs whose bounded routes close a loop on their SL go to a
# layer of repaired trees instead of general repair on the SL. On the
# torus of that size the long way round a broken ring keeps every pair
# on its SL in the same sets.
"$K" gen mesh --dims 4x4x4 --p 1 -o "$T/mesh.net" &&
"$K" faults "$T/mesh.net" --random 2 --trials 30 --seed 7 --json -q \
	--max-intermediates 1 >"$T/mi1m.json" &&
	jq -e '.handled_le1_intermediate == 1 and .paths_general_repair == 0 and
		.handled_total == 1 and .pairs_sl_changed > 0' "$T/mi1m.json" >/dev/null &&
"$K" faults "$T/torus.net" --random 2 --trials 30 --seed 7 --json -q \
	--max-intermediates 1 >"$T/mi1t.json" &&
	jq -e '.handled_le1_intermediate == 1 and .paths_general_repair == 0 and
		.handled_total == 1 and .pairs_sl_changed == 0' "$T/mi1t.json" >/dev/null
kr_ok $? "faults: below two intermediates, paths before SLs"

# Wall times differ from run to run; everything else must not.
strip_ms() { jq -S 'with_entries(select(.key | test("_ms") | not))' "$1"; }
"$K" faults "$T/kns.net" --random 2 --trials 15 --seed 7 --json -q >"$T/s7a.json" &&
	"$K" faults "$T/kns.net" --random 2 --trials 15 --seed 7 --json -q >"$T/s7b.json" &&
	"$K" faults "$T/kns.net" --random 2 --trials 15 --seed 8 --json -q >"$T/s8.json" &&
	[ "$(strip_ms "$T/s7a.json")" = "$(strip_ms "$T/s7b.json")" ] &&
	[ "$(strip_ms "$T/s7a.json" | jq -c 'del(.seed)')" != \
	  "$(strip_ms "$T/s8.json" | jq -c 'del(.seed)')" ]
kr_ok $? "faults: the same seed gives the same figures, another seed others"

"$K" faults "$T/kns.net" --random 1 --trials 3 -q >"$T/text.out"
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c . "$T/text.out")" -eq "$(jq 'del(.version) | length' "$T/one.json")" ] &&
	grep -q "^handled_total  *1.000000$" "$T/text.out" &&
	grep -q "^fabric  *KNS 4-ary 2-direct" "$T/text.out"
kr_ok $? "faults: text output, one line per figure"

"$K" faults "$T/kns43.net" --random 2 --trials 1 --seed 1 -v 2>"$T/v.err" \
	>/dev/null &&
	grep -q "^knsroute faults: trial 0: .*; handled; " "$T/v.err" &&
	grep -q "^  repair: 2 faults: " "$T/v.err"
kr_ok $? "faults -v: a line per trial, its repair line counting its faults"

# The SM on switch LID 1, a broadcast group of every CA in each check: the
# SA's traffic and the tree share the multicast VL, and repaired routes
# from and to the SM's switch keep its order (without that, 31 of these
# 100 trials closed a loop through the tree).
"$K" gen torus --dims 4x4 --p 1 -o "$T/t44.net" &&
	"$K" faults "$T/t44.net" --random 2 --trials 100 --seed 3 --sm-lid 1 \
		--mcast --json -q >"$T/mcast.json" &&
	jq -e '.mcast == 1 and .failures == 0 and .handled_total == 1 and
		.connected_trials > 90' "$T/mcast.json" >/dev/null
kr_ok $? "faults --mcast --sm-lid: unicast, the SA's traffic and a broadcast tree clean in every trial"

# Without the detour layer some mesh repairs have nowhere to go (with
# five faults in most trials of this seed): exit 1 and the first failure
# says why. (A torus's broken rings give the same sets a way round.)
"$K" faults "$T/mesh.net" --random 5 --trials 10 --detour-vls 0 --json -q \
	>"$T/nodetour.json"
rc=$?
[ $rc -eq 1 ] && jq -e '.failures > 0 and .handled_total < 1 and
	(.first_failure | test("credit loop"))' "$T/nodetour.json" >/dev/null
kr_ok $? "faults: unhandled trials exit 1 and name the first failure"

# Each must exit 2; the messages go to one file.
bad=0
usage2() {
	"$K" faults "$T/kns.net" "$@" >/dev/null 2>>"$T/usage.err"
	[ $? -eq 2 ] || bad=$((bad + 1))
}
usage2 --trials 3
usage2 --random 1 --bogus
usage2 --random 1 --switches 1
usage2 --random 33
usage2 --random 1 --max-intermediates 3
usage2 --random 1 --no-check
[ $bad -eq 0 ] &&
	grep -q "^knsroute faults: --random F or --switches F is required" "$T/usage.err" &&
	grep -q "^knsroute faults: bad option" "$T/usage.err" &&
	grep -q "^knsroute faults: --random 33: the fabric has 32 inter-switch links" "$T/usage.err" &&
	grep -q "^knsroute faults: --no-check" "$T/usage.err"
kr_ok $? "faults: usage errors exit 2 and say what is wrong"

# Eight links of a shuffled 6-ary 3-direct KNS, the SM on LID 1: repaired
# columns may take the SA's packets off the multicast VL's ranks where
# that closes no loop, and here, admitted early, they leave the detour
# layer no room for LID 529 later ("detour layer closes a credit loop").
# The repair then runs again with the SA's routes kept to the ranks.
"$K" gen kns --k 6 --n 3 --p 1 --shuffle 5 -o "$T/k63.net" &&
	awk -v cut='sw-748a7fd20b:2 sw-8202b123d9:5 sw-3cc2d02557:3
		    sw-fa63700580:2 sw-97033c1dde:1 sw-d79c7694df:2
		    sw-c086dcf808:2 sw-caa159f36e:4 sw-2fc7fa6eb9:4
		    sw-b0f96176bb:2 sw-b9ca3b90a9:4 sw-f8cb818718:5
		    sw-dc43f75b1a:1 sw-dd0f4fa4f6:3 sw-0fe15972ce:3
		    sw-9112e1766d:3' '
	BEGIN { n = split(cut, c, /[ \t\n]+/); for (i = 1; i <= n; i++) gone[c[i]] = 1 }
	/^Switch/ { sw = $3; gsub(/"/, "", sw) }
	/^\[/ { p = substr($1, 2, index($1, "]") - 2); if ((sw ":" p) in gone) { dropped++; next } }
	{ print }
	END { if (dropped != 16) exit 1 }' "$T/k63.net" >"$T/k63cut.net" &&
	"$K" route "$T/k63cut.net" --sm-lid 1 --out "$T/k63cut" >"$T/k63cut.out" &&
	grep -q "check passed, SA traffic on SL 0 included" "$T/k63cut.out"
kr_ok $? "route: eight links, the SM known: the SA's routes fall back to the ranks"

"$K" faults --help | grep -q -- "--max-intermediates N" &&
	"$K" --help | grep -q "^  faults "
kr_ok $? "faults: --help, and listed among the commands"

# The CLI frees what it allocates (the plain build only: valgrind and the
# sanitizers do not mix).
if ! command -v valgrind >/dev/null; then
	kr_skip "valgrind is not installed"
elif grep -q __asan_init "$K" 2>/dev/null; then
	kr_skip "sanitizer build"
else
	valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect \
		"$K" faults "$T/kns.net" --switches 1 --trials 4 --json -q \
		>/dev/null 2>"$T/vg.out"
	rc=$?
	[ $rc -eq 0 ] || sed 's/^/# /' "$T/vg.out" | head -20
	kr_ok $rc "faults: valgrind clean"
fi

kr_done
