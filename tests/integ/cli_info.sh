#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# knsroute info on fabrics counted by hand: the summary (text and JSON),
# the --links / --nodes listings, and the exit codes; and output lost to a
# full stdout fails every command. Needs no simulator.
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 15
if [ ! -x "$KR_CLI" ]; then
	kr_skip_rest "knsroute not built at $KR_CLI"
	kr_done
fi
T=$KR_TMP
# every JSON object starts with the version of knsroute that wrote it
V=$("$KR_CLI" --version | cut -d' ' -f2)

# tests/data/net_mixed.net: sw-a (8 ports) = sw-b (4) twice, sw-a - sw-c
# (6); h1, h2, h3 and router rt1 hang off switches. Unlinked: sw-a 3, sw-b 2,
# sw-c 3 ports; h1 port 2, h2 port 1, rt1 port 1. Only sw-c has a LID (7).
cat >"$T/mixed.json" <<EOF
{"version": "$V", "switches": 3, "cas": 3, "routers": 1,
 "links": {"switch_switch": 3, "switch_ca": 4, "ca_ca": 0},
 "unconnected": {"switch_ports": 8, "ca_ports": 3},
 "lids": {"present": "some", "with_lid": 1, "endpoints": 7, "lmc": [0]},
 "switch_ports": {"4": 1, "6": 1, "8": 1},
 "parallel": {"pairs": 1, "max": 2},
 "components": {"count": 1, "sizes": [7]}}
EOF
"$KR_CLI" info --json "$KR_SRCDIR/tests/data/net_mixed.net" >"$T/out.json"
diff -u "$T/mixed.json" "$T/out.json" >&2
kr_ok $? "JSON summary of net_mixed.net"

"$KR_CLI" info "$KR_SRCDIR/tests/data/net_mixed.net" >"$T/out.txt"
grep -qx 'switches     3 (1 with 8 ports, 1 with 6 ports, 1 with 4 ports)' "$T/out.txt" &&
grep -qx 'LIDs         some (1 of 7 endpoints), LMC 0' "$T/out.txt" &&
grep -qx 'parallel     1 switch pairs with more than one link, at most 2' "$T/out.txt" &&
grep -qx 'components   1 (7 nodes)' "$T/out.txt"
kr_ok $? "text summary of net_mixed.net"

# Two switches joined three times, and a CA on its own: two components.
cat >"$T/two.net" <<'EOF'
Switch 3 "a"
[1] "b"[1]
[2] "b"[2]
[3] "b"[3]

Switch 3 "b"

Ca 1 "lonely"
EOF
cat >"$T/two.json" <<EOF
{"version": "$V", "switches": 2, "cas": 1, "routers": 0,
 "links": {"switch_switch": 3, "switch_ca": 0, "ca_ca": 0},
 "unconnected": {"switch_ports": 0, "ca_ports": 1},
 "lids": {"present": "none", "with_lid": 0, "endpoints": 2, "lmc": []},
 "switch_ports": {"3": 2},
 "parallel": {"pairs": 1, "max": 3},
 "components": {"count": 2, "sizes": [2, 1]}}
EOF
"$KR_CLI" info --json "$T/two.net" >"$T/out.json"
diff -u "$T/two.json" "$T/out.json" >&2
kr_ok $? "JSON summary: parallel links, two components, no LIDs"

# ibsim GUIDs: switches from 0x200000, the CA 0x100000 (port 1: +1).
printf '%s\n' "0x0000000000200000 1 0x0000000000200001 1" \
	"0x0000000000200000 2 0x0000000000200001 2" \
	"0x0000000000200000 3 0x0000000000200001 3" >"$T/two.links"
"$KR_CLI" info --links "$T/two.net" | diff -u "$T/two.links" - >&2
kr_ok $? "--links lists each link once, sorted"

printf '%s\n' "0x0000000000100000 Ca 1 0x0000000000100001" \
	"0x0000000000200000 Switch 3 0x0000000000200000" \
	"0x0000000000200001 Switch 3 0x0000000000200001" >"$T/two.nodes"
"$KR_CLI" info --nodes "$T/two.net" | diff -u "$T/two.nodes" - >&2
kr_ok $? "--nodes lists GUID, type, ports and port GUIDs"

# The same cabling described from the other end lists the same links.
cat >"$T/two-b.net" <<'EOF'
Switch 3 "a"

Switch 3 "b"
[3] "a"[3]
[1] "a"[1]
[2] "a"[2]

Ca 1 "lonely"
EOF
"$KR_CLI" info --links "$T/two-b.net" | diff -u "$T/two.links" - >&2
kr_ok $? "--links does not depend on which end describes a link"

printf 'Switch 4 "a"\n[9] "b"[1]\n' >"$T/bad.net"
"$KR_CLI" info "$T/bad.net" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && [ ! -s "$T/out" ] &&
	grep -q "^knsroute info: $T/bad.net:2: port 9 beyond \"a\" (4 ports)" "$T/err"
kr_ok $? "bad input: exit 2 with FILE:LINE"

"$KR_CLI" info "$T/missing.net" 2>"$T/err"
[ $? -eq 2 ] && grep -q "^knsroute info: $T/missing.net: cannot open" "$T/err"
kr_ok $? "missing file: exit 2 naming the file"

"$KR_CLI" info --links <"$T/two.net" /dev/stdin | diff -u "$T/two.links" - >&2
kr_ok $? "reads a pipe through /dev/stdin"

"$KR_CLI" info --help >"$T/help"
[ $? -eq 0 ] && grep -q "components.sizes" "$T/help" &&
	grep -q -- "--links" "$T/help" && grep -q -- "--nodes" "$T/help"
kr_ok $? "--help documents the JSON keys and listings"

"$KR_CLI" info --json --links "$T/two.net" 2>/dev/null
[ $? -eq 2 ]
kr_ok $? "--json and --links together: usage error"

"$KR_CLI" info 2>/dev/null
[ $? -eq 2 ]
kr_ok $? "no FILE: usage error"

# every command that prints to stdout fails, with the reason, on a full one
net=$KR_SRCDIR/tests/data/net_mixed.net
bad=
for cmd in "info $net" "info --links $net" "topo $T/t.net" "topo --json $T/t.net" \
	   "gen torus --dims 3x3 --p 1 -o -" "route --help" "stats --help" \
	   "faults --help" "--help" "--version"; do
	[ -s "$T/t.net" ] || "$KR_CLI" gen torus --dims 3x3 --p 1 -o "$T/t.net"
	# shellcheck disable=SC2086
	"$KR_CLI" $cmd >/dev/full 2>"$T/full.err"
	rc=$?
	{ [ $rc -eq 2 ] && grep -q "standard output: No space left" "$T/full.err"; } ||
		bad="$bad [$cmd: exit $rc]"
done
[ -z "$bad" ]
kr_ok $? "a full stdout is an error for every command${bad:+:$bad}"

# a device's description with ESC and BEL in it reaches no terminal raw
"$KR_CLI" gen torus --dims 3x3 --p 1 -o "$T/esc.net"
sed -i 's/"switch(1,1)"/"sw\x1b[31m(1,1)\x07"/g' "$T/esc.net"
grep -q $'\x1b' "$T/esc.net"
kr_ok $? "the test fabric names a switch with ESC and BEL"
{ "$KR_CLI" topo --coords "$T/esc.net"; "$KR_CLI" route "$T/esc.net" --out "$T/esc.out";
  "$KR_CLI" check "$T/esc.out" --max-examples 3
  # its record renamed, so the links to it quote the name in an error
  sed '/^Switch/s/"sw\x1b/"xx\x1b/' "$T/esc.net" | "$KR_CLI" info /dev/stdin
} >"$T/esc.txt" 2>&1
! grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$T/esc.txt" "$T/esc.out/summary" &&
	grep -q 'sw\\x1b\[31m(1,1)\\x07' "$T/esc.txt" &&
	grep -q 'unknown node "sw?\[31m(1,1)?"' "$T/esc.txt"
kr_ok $? "control characters in names are printed as \\xNN (or ? in errors)"

kr_done
