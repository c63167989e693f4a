#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# An ibdiagnet (v1) output directory, and its files one by one, read by
# check, path, info, topo and route. ibdiagnet crashes under ibsim here,
# so ibdiag_dir.py writes the directory, in ibdiagnet's formats, from
# the tables `knsroute route` made for a 4x4 torus (SLs and SL2VL maps
# that matter: with every map folded onto VL 0 the check must find the
# credit loop). No simulator needed.
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 8
if [ ! -x "$KR_CLI" ] || ! command -v python3 >/dev/null ||
	! command -v jq >/dev/null; then
	kr_skip_rest "needs knsroute built, python3 and jq"
	kr_done
fi
K=$KR_CLI
T=$KR_TMP
D=$T/ibdiag

# 16 switches on LIDs 1-16, the CAs on 17-32; the SM on the first CA;
# a multicast group, for ibdiagnet.mcfdbs
printf '0xc000 0 ca(1,1)/0 ca(3,2)/0 ca(2,3)/0\n' >"$T/groups"
"$K" gen torus --dims 4x4 --p 1 -o "$T/t.net" &&
	"$K" route "$T/t.net" --out "$T/r" --sm-lid 17 --mcast-groups "$T/groups" \
		-q >/dev/null &&
	python3 "$KR_SRCDIR/tests/integ/ibdiag_dir.py" "$K" "$T/r" "$D" 17 &&
	for x in lst fdbs mcfdbs slvl psl sm; do [ -s "$D/ibdiagnet.$x" ] || exit 1; done
kr_ok $? "an ibdiagnet directory written from route's tables"

"$K" check "$D" --json >"$T/dir.json" 2>"$T/dir.err"
[ $? -eq 0 ] &&
	jq -e '.verdict == "ok" and .sa.sm_lid == 17 and .undelivered == 0
		and .assumed.sl_pairs.data == 0 and .assumed.sl2vl_ports == 16
		and .multicast.groups == 1 and .classes.multicast.verdict == "ok"' \
		"$T/dir.json" >/dev/null &&
	grep -q "the SM from $D/ibdiagnet.sm: LID 17" "$T/dir.err" &&
	! grep -q "no SL2VL maps\|no path SLs" "$T/dir.err"
kr_ok $? "check DIR: the SM from .sm, maps from .slvl (CA ports' assumed: ibdiagnet reads switches), every data pair's SL from .psl, the group from .mcfdbs; ok"

"$K" check "$D/ibdiagnet.lst" --lfts "$D/ibdiagnet.fdbs" --mfts "$D/ibdiagnet.mcfdbs" \
	--sl2vl "$D/ibdiagnet.slvl" --path-sl "$D/ibdiagnet.psl" --sm-lid 17 \
	--json >"$T/files.json" 2>/dev/null &&
	jq -e --slurpfile dir "$T/dir.json" '.verdict == "ok" and
		.classes.data == $dir[0].classes.data' "$T/files.json" >/dev/null
kr_ok $? "the files one by one read as the directory"

# Every map folded onto VL 0: the torus's rings close, and the loop is
# proven by the maps read (not assumed).
awk '{ for (i = 4; i <= 11; i++) $i = "0x00"; print }' "$D/ibdiagnet.slvl" \
	>"$T/vl0.slvl"
"$K" check "$D" --sl2vl "$T/vl0.slvl" --dests cas --json >"$T/vl0.json" 2>/dev/null
[ $? -eq 1 ] && jq -e '.verdict == "credit_loop" and
	(.classes.data.credit_loop | all(.assumed | index("sl2vl") | not))' \
	"$T/vl0.json" >/dev/null
kr_ok $? "maps from .slvl are used: all on VL 0, a proven credit loop"

"$K" path "$D" 17 27 >"$T/path" 2>/dev/null &&
	grep -q "^SLID 17 -> DLID 27, SL [0-9]*$" "$T/path" &&
	"$K" info --json "$D" | jq -e '.switches == 16 and .cas == 16' >/dev/null &&
	"$K" topo "$D" | grep -q "^torus 4x4 (wrap x,y), p=1, parallel 1: 16 switches, 16 CAs$" &&
	"$K" route "$D" --out "$T/r2" -q >/dev/null
kr_ok $? "path, info, topo and route take the directory"

printf '0x0002c90000000000 1 1 0x01 0x23\n' >"$T/bad.slvl"
"$K" check "$D" --sl2vl "$T/bad.slvl" >/dev/null 2>"$T/bad.err"
[ $? -eq 2 ] && grep -q "bad.slvl:1: expected \"0xNODEGUID IN OUT\" and 8 bytes" "$T/bad.err"
kr_ok $? "a short .slvl line: exit 2, FILE:LINE"

{ head -n 3 "$D/ibdiagnet.psl"; echo "0x0002c9ffffffffff 1 0"; } >"$T/bad.psl"
"$K" check "$D" --path-sl "$T/bad.psl" >/dev/null 2>"$T/psl.err"
[ $? -eq 2 ] && grep -q "bad.psl:4: unknown node GUID 0x0002c9ffffffffff" "$T/psl.err"
kr_ok $? "a .psl line of another fabric: exit 2, FILE:LINE"

mkdir "$T/nosm" && cp "$D"/ibdiagnet.* "$T/nosm/" &&
	printf 'ibdiagnet fabric SM report\n\n  SM - standby\n    x lid=0x0001 guid=0x1 dev=1 priority:0\n' \
		>"$T/nosm/ibdiagnet.sm"
"$K" check "$T/nosm" >/dev/null 2>"$T/nosm.err"
[ $? -eq 2 ] && grep -q "ibdiagnet.sm: no master SM" "$T/nosm.err"
kr_ok $? "an .sm without a master: exit 2 naming the file"
kr_done
