#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# scripts/layering.sh passes on the tree, and fails, naming the problem,
# on copies of it with one violation each: a file outside a stage folder,
# an include of another stage's internal header, a circle of calls
# between two files, a call to a stage a stage may not use.
. "$(dirname "$0")/lib.sh"

kr_plan 5
kr_tmpdir
if ! command -v ctags >/dev/null || ! command -v python3 >/dev/null ||
   ! git -C "$KR_SRCDIR" rev-parse >/dev/null 2>&1; then
	kr_skip_rest "needs universal-ctags, python3 and a git checkout"
	kr_done
fi
L="$KR_SRCDIR/scripts/layering.sh"

"$L" "$KR_SRCDIR" >"$KR_TMP/tree.out" 2>&1
ok=$?
[ $ok -eq 0 ] || sed 's/^/# /' "$KR_TMP/tree.out"
kr_ok $ok "the tree: every core file in a stage folder, no circle, no forbidden use"

# A copy of the tree's sources (git ls-files) with one change made by $2
# (a shell snippet run in the copy); status 0 when layering.sh fails on it
# with a line matching $1.
caught() {
	local copy="$KR_TMP/copy$KR_TAP_N"
	mkdir -p "$copy" &&
		git -C "$KR_SRCDIR" ls-files -z core tools osm_plugin bench tests scripts |
		(cd "$KR_SRCDIR" && xargs -0 cp --parents -t "$copy") &&
		git -C "$copy" init -q && (cd "$copy" && eval "$2") &&
		git -C "$copy" add -A >/dev/null || return 2
	"$L" "$copy" >"$copy.out" 2>&1 && return 1
	grep -q "$1" "$copy.out" || { sed 's/^/# /' "$copy.out"; return 1; }
}

caught "core/stray.c: outside a stage folder" "echo 'int stray(void);' >core/stray.c"
kr_ok $? "a source file at core/'s top is caught"
caught "core/route/route.c: includes core/topo/topo_int.h" \
	"sed -i '0,/#include \"kr_route.h\"/s//#include \"kr_route.h\"\n#include \"topo_int.h\"/' core/route/route.c"
kr_ok $? "an include of another stage's internal header is caught"
caught "circle of calls: core/model/fabric.c -> core/model/fabric_builder.c" \
	"printf 'void kr_ring(void);\nvoid kr_ring(void) { kr_fb_free(0); }\n' >>core/model/fabric.c"
kr_ok $? "a circle of calls between two files is caught"
caught "core/model/base.c: calls kr_route of core/route/route.c: core/model/ may not use core/route/" \
	"printf 'void kr_up(void);\nvoid kr_up(void) { kr_route(0, 0, 0, 0, 0); }\n' >>core/model/base.c"
kr_ok $? "a call from a stage to one it may not use is caught"

kr_done
