#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Node names in what knsroute prints: the NodeDescription beside the id,
# or the name --node-name-map gives the GUID, in a check's credit-loop
# witness and most-loaded links, in path's hops (text and JSON), in topo
# and stats; a broken map refused with FILE:LINE. No simulator needed.
# Data: chk_t33-* (OpenSM dor on a shuffled 3x3 torus, a credit loop).
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 8
if [ ! -x "$KR_CLI" ] || ! command -v jq >/dev/null; then
	kr_skip_rest "needs knsroute built and jq"
	kr_done
fi
K=$KR_CLI
D=$KR_SRCDIR/tests/data
T=$KR_TMP
IN="$D/chk_t33.ibnd --lfts $D/chk_t33-lfts.dump --sl2vl $D/chk_t33-sl2vl.dump"
cat >"$T/names" <<'MAP'
# infiniband-diags' format: GUID "name", comments, an unquoted name
0x0002c9da037b4d46 "sw-x1y2"   # rack 1
0x0002c9783aac1b04 row-2 switch # unquoted: up to the comment
0x0002d084aac1b040 "login-1"
0x0002c9da037b4d46 "a second line for a GUID loses"
MAP

# shellcheck disable=SC2086
"$K" check $IN >"$T/plain" 2>/dev/null
[ $? -eq 3 ] &&
	grep -qF '      S-0002c9da037b4d46 "sw-60a1aa09"[1] VL 0 -> S-0002c9783aac1b04 "sw-232f36b4"[2] VL 0   LID 14 -> LID 16' "$T/plain" &&
	grep -qF '  S-0002c9783aac1b04 "sw-232f36b4"[2] -> S-0002c9c2edd4db88 "sw-8bb4402a"[5]: 10' "$T/plain"
kr_ok $? "check: the witness and the loaded links show each NodeDescription beside its id"

# shellcheck disable=SC2086
"$K" check $IN --node-name-map "$T/names" >"$T/named" 2>/dev/null
[ $? -eq 3 ] &&
	grep -qF '      S-0002c9da037b4d46 "sw-x1y2"[1] VL 0 -> S-0002c9783aac1b04 "row-2 switch"[2] VL 0   LID 14 -> LID 16' "$T/named" &&
	grep -qF '  S-0002c9783aac1b04 "row-2 switch"[2] -> S-0002c9c2edd4db88 "sw-8bb4402a"[5]: 10' "$T/named" &&
	! grep -q "a second line" "$T/named"
kr_ok $? "check --node-name-map: the map's names in the witness and the loaded links, the first line of a GUID wins"

# shellcheck disable=SC2086
"$K" check $IN --node-name-map "$T/names" --json >"$T/named.json" 2>/dev/null
jq -e '(.credit_loop[] | select(.node == "S-0002c9da037b4d46") | .name == "sw-x1y2")
	and (.links.top[0] | .node == "S-0002c9783aac1b04" and .name == "row-2 switch" and .peer_name == "sw-8bb4402a")
	and (.credit_loop | all(has("node_port") and has("vl")))' "$T/named.json" >/dev/null
kr_ok $? "check --json: a name beside every described node, the ids and ports as before"

# shellcheck disable=SC2086
"$K" path $IN login-1 16 --node-name-map "$T/names" >"$T/path" 2>/dev/null &&
	grep -Eq '^  0 +H-0002d084aac1b040 "login-1" +- +1  ' "$T/path" &&
	grep -Eq '^  1 +S-0002c9783aac1b04 "row-2 switch" +1 +2  ' "$T/path" &&
	grep -qF 'delivered at H-0002d52fdd4db880 "ca-ba6e2bb0"[1]' "$T/path"
kr_ok $? "path: a node named by the map as SRC, every hop with its name"

# shellcheck disable=SC2086
"$K" path $IN login-1 16 --node-name-map "$T/names" --json >"$T/path.json" 2>/dev/null &&
	jq -e '.hops[0].node == "H-0002d084aac1b040" and .hops[0].name == "login-1"
		and .hops[1].name == "row-2 switch" and .at_name == "ca-ba6e2bb0"' "$T/path.json" >/dev/null
kr_ok $? "path --json: name beside node"

"$K" stats "$D/chk_t33.ibnd" --lfts "$D/chk_t33-lfts.dump" --switch sw-x1y2 \
	--node-name-map "$T/names" >"$T/stats" 2>/dev/null &&
	grep -qF 'switch 0x0002c9da037b4d46 S-0002c9da037b4d46 "sw-x1y2": destinations' "$T/stats"
kr_ok $? "stats --switch takes and shows the map's name"

# a broken map: FILE:LINE and what was expected, exit 2, nothing printed
printf '0x0002c9da037b4d46 "ok"\n\n0x0002c9783aac1b04x "glued"\n' >"$T/bad"
# shellcheck disable=SC2086
"$K" check $IN --node-name-map "$T/bad" >"$T/bad.out" 2>"$T/bad.err"
[ $? -eq 2 ] && [ ! -s "$T/bad.out" ] &&
	grep -qF "$T/bad:3: expected a space after the GUID, not 'x'" "$T/bad.err"
kr_ok $? "a malformed map line: exit 2 naming FILE:LINE"

"$K" topo "$D/chk_t33.ibnd" --node-name-map "$T/missing" >/dev/null 2>"$T/miss.err"
[ $? -eq 2 ] && grep -qF "$T/missing" "$T/miss.err"
kr_ok $? "a named map that is missing: exit 2"
kr_done
