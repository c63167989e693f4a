#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# knsroute route --mcast-groups: the hand-worked 4x4 torus tree of
# test_mcast.c in opensm.mcfdbs, members by name, GUID and LID; input
# errors name FILE:LINE and exit 2; a group on a unicast SL is left out
# with a warning naming its line and the SL to use; members on pendant
# switches get their tree down the pendants.
. "$(dirname "$0")/lib.sh"

kr_plan 9
kr_tmpdir
K="$KR_CLI"
T="$KR_TMP"

"$K" gen torus --dims 4x4 --p 1 --lids -o "$T/t.net"
# LIDs as the generator assigns them: switches 1-16, then ca(x,y)/0 at
# x + 4y + 17; the port GUID from the net file.
guid=$(awk '/^Ca/ && /"ca\(3,2\)\/0"/ { getline; print; exit }' "$T/t.net" |
	sed -n 's/^\[1\](\([0-9a-f]*\)).*/0x\1/p')
cat >"$T/groups" <<EOF2
# the tree of test_torus44_group: (1,1), (3,2), (2,3)
0xc000 0 ca(1,1)/0 $guid 31   # ca(3,2)/0 by port GUID, ca(2,3)/0 by LID
0xc001 0 ca(0,0)/0
EOF2
"$K" route "$T/t.net" --mcast-groups "$T/groups" --out "$T/r" >"$T/r.out" 2>&1
rc=$?
[ -n "$guid" ] && [ $rc -eq 0 ]
kr_ok $? "route --mcast-groups: two groups, members by name, port GUID and LID"

# switch -> ports of 0xc000, worked by hand (port 1 is the CA, 2 +x, 3 -x,
# 4 +y, 5 -y, as the generator wires them)
cat >"$T/want" <<'EOF2'
switch(0,0) 0xC000 2 3
switch(0,0) 0xC001 1
switch(1,0) 0xC000 3 2 4
switch(1,1) 0xC000 1 5
switch(2,0) 0xC000 3 5
switch(2,3) 0xC000 1 4
switch(3,0) 0xC000 2 4
switch(3,1) 0xC000 5 4
switch(3,2) 0xC000 1 5
EOF2
awk 'NR == FNR { if (/^switchguid=/) { split($1, a, /[=(]/); g = a[2] }
		 if (/^Switch/) { match($0, /"[^"]*"/); name[g] = substr($0, RSTART + 1, RLENGTH - 2) }
		 next }
     /^Switch/ { g = $2; sub(/^0x0*/, "0x", g); next }
     /^0x[0-9A-F]+ :/ { line = name[g] " " $1
		       for (i = 3; i <= NF; i++) line = line " " strtonum($i)
		       print line }' "$T/t.net" "$T/r/opensm.mcfdbs" |
	sort >"$T/got"
sort "$T/want" | awk '{ n = split($0, w, " "); s = w[1] " " w[2]; delete p
	for (i = 3; i <= n; i++) p[i] = w[i] + 0; m = asort(p)
	for (i = 1; i <= m; i++) s = s " " p[i]; print s }' >"$T/want.sorted"
diff "$T/want.sorted" "$T/got" >"$T/diff"
ok=$?
[ $ok -eq 0 ] || sed 's/^/# /' "$T/diff"
kr_ok $ok "opensm.mcfdbs holds the hand-worked trees"

# ca(2,3)/0's node GUID made ca(3,2)/0's port GUID: the member is still
# that port (the SA names members by port), so the trees are the same.
node=$(awk '/^caguid=/ { g = substr($0, 8) } /^Ca/ && /"ca\(2,3\)\/0"/ { print g; exit }' "$T/t.net")
sed "/^caguid=$node\$/ s/=.*/=$guid/; /^sysimgguid=$node\$/ s/=.*/=$guid/" \
	"$T/t.net" >"$T/twin.net"
grep -q "^caguid=$guid\$" "$T/twin.net" &&
	"$K" route "$T/twin.net" --mcast-groups "$T/groups" --out "$T/twin" \
		>/dev/null 2>&1 &&
	cmp -s "$T/r/opensm.mcfdbs" "$T/twin/opensm.mcfdbs"
kr_ok $? "a member's port GUID wins over another node's equal GUID"

grep -q "^multicast: MLID 0xc000 SL 0: 3 members, 8 switches, 7 tree links$" "$T/r.out"
kr_ok $? "route prints a line per group"

"$K" route "$T/t.net" --out "$T/none" >/dev/null && [ -e "$T/none/opensm.mcfdbs" ] &&
	[ ! -s "$T/none/opensm.mcfdbs" ]
kr_ok $? "without groups opensm.mcfdbs is empty"

bad=0
while IFS='|' read -r text line msg; do
	printf '# ok\n%b' "$text" >"$T/bad"
	"$K" route "$T/t.net" --mcast-groups "$T/bad" --out "$T/bad.out" \
		>/dev/null 2>"$T/bad.err"
	rc=$?
	if [ $rc -ne 2 ] || ! grep -qF "$T/bad:$line: $msg" "$T/bad.err" ||
	   [ -e "$T/bad.out/opensm.mcfdbs" ]; then
		echo "# case \"$text\": exit $rc: $(cat "$T/bad.err")"
		bad=1
	fi
done <<'EOF2'
0xc000 0\n|2|expected MLID SL MEMBER..., got 2 words
0xbfff 0 ca(0,0)/0\n|2|MLID: expected 0xc000 to 0xfffe, not "0xbfff"
0xc000 16 ca(0,0)/0\n|2|SL: expected 0 to 15, not "16"
0xc000 0 ca(9,9)/0\n|2|member "ca(9,9)/0": no node, GUID or LID of the topology with a LID
0xc000 0 ca(0,0)/0\n\n0xc000 0 ca(1,0)/0\n|4|MLID 0xc000 given twice
0xc002 1 ca(0,0)/0\n0xc002 0 ca(1,0)/0\n|3|MLID 0xc002 given twice
0xc000 0 ca(0,0)/0\0 ca(1,1)/0\n|2|NUL byte in line
EOF2
kr_ok $bad "input errors: FILE:LINE, exit 2, nothing written"

printf '0xc000 0 ca(0,0)/0 ca(1,1)/0\n0xc002 1 ca(0,0)/0 ca(2,2)/0\n' >"$T/sl1"
"$K" route "$T/t.net" --mcast-groups "$T/sl1" --out "$T/sl1.out" >/dev/null 2>"$T/sl1.err"
kr_ok $? "a group on a unicast SL: exit 0"
grep -qF "$T/sl1:2: warning: MLID 0xc002: SL 1 is a unicast SL of the plan, so its tree could close a credit loop; give the group sl=0 in partitions.conf" "$T/sl1.err" &&
	grep -q "0xC000" "$T/sl1.out/opensm.mcfdbs" &&
	! grep -q "0xC002" "$T/sl1.out/opensm.mcfdbs"
kr_ok $? "... warned with its line and the fix, and left out"

# leaf (up by its port 1, CAs on 2 and 3) hangs off switch(1,2), mgmt
# (up by 1, its CA on 2) off leaf's port 4
kr_net_with_pendants "$T/t.net" "switch(1,2)" >"$T/p.net"
printf '0xc001 0 leaf-ca0 mgmt-ca0 ca(3,0)/0\n' >"$T/pg"
"$K" route "$T/p.net" --mcast-groups "$T/pg" --out "$T/p" >"$T/p.log" 2>&1 &&
	grep -q "check passed" "$T/p.log" &&
	awk '/^Switch 0x0000000000007300$/ { s = 1 } s && /^0xC001/ { print; exit }' \
		"$T/p/opensm.mcfdbs" | grep -q "^0xC001 : 0x001  0x002  0x004 $" &&
	awk '/^Switch 0x0000000000007200$/ { s = 1 } s && /^0xC001/ { print; exit }' \
		"$T/p/opensm.mcfdbs" | grep -q "^0xC001 : 0x001  0x002 $"
kr_ok $? "members on pendant switches: the tree runs down them (leaf: up, its CA, mgmt; mgmt: up, its CA), checked"

kr_done
