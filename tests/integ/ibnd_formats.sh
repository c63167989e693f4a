#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Every form ibnetdiscover writes a fabric in is read to the same fabric,
# and so is OpenSM's opensm-subnet.lst:
# plain output, grouped output (-g) and the binary cache (--cache FILE,
# detected by its magic wherever a topology is read), and iblinkinfo's
# two forms, all taken from one simulated fabric after OpenSM gave it LIDs, and
# compared through `knsroute info` (links, nodes with port GUIDs, counts
# and LIDs).
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 9
if ! kr_have_sim; then
	kr_skip_rest "ibsim, opensm, ibnetdiscover or libumad2sim not installed"
	kr_done
fi
if [ ! -x "$KR_CLI" ]; then
	kr_skip_rest "knsroute not built at $KR_CLI"
	kr_done
fi
T=$KR_TMP
K=$KR_CLI

# The same three views of a topology file must agree.
same_info() {
	local v
	for v in --links --nodes --json; do
		"$K" info $v "$1" >"$1.info$v" || return 1
		"$K" info $v "$2" >"$2.info$v" || return 1
		diff -u "$1.info$v" "$2.info$v" >&2 || return 1
	done
}

"$K" gen torus --dims 3x3 --p 2 -o "$T/gen.net" &&
kr_start_ibsim "$T/gen.net" &&
kr_run_opensm_once -R minhop &&
kr_sim_try "$T/plain.net" ibnetdiscover &&
grep -q ' lid [1-9]' "$T/plain.net"
kr_ok $? "ibsim 3x3 torus with LIDs from opensm -o, plain ibnetdiscover output"

kr_sim_try "$T/grouped.net" ibnetdiscover -g &&
grep -qx 'Non-Chassis Nodes' "$T/grouped.net" &&
same_info "$T/plain.net" "$T/grouped.net"
kr_ok $? "ibnetdiscover -g reads as the plain output (info --links, --nodes, --json)"

# OpenSM's own topology dump, written by that opensm -o: the same fabric.
cp "$KR_OSM_DIR/opensm-subnet.lst" "$T/subnet.lst" &&
	same_info "$T/plain.net" "$T/subnet.lst"
kr_ok $? "OpenSM's opensm-subnet.lst reads as the plain output (info --links, --nodes, --json)"

# -s puts its discovery steps ("DR path ...") in front: skipped. -p lists
# links between port GUIDs, not nodes: refused, naming the form.
kr_sim_try "$T/steps.net" ibnetdiscover -s &&
	grep -q '^DR path ' "$T/steps.net" &&
	same_info "$T/plain.net" "$T/steps.net" &&
	kr_sim_try "$T/ports.txt" ibnetdiscover -p &&
	{ "$K" info "$T/ports.txt" >/dev/null 2>"$T/ports.err"; [ $? -eq 2 ]; } &&
	grep -q 'ports.txt:1: a port list (`ibnetdiscover -p` output)' "$T/ports.err"
kr_ok $? "ibnetdiscover -s reads as the plain output; -p is refused by name"

# iblinkinfo, plain and -l: the same fabric as far as it tells (CAs are
# named by port GUID, as it prints no CA node GUID, so --links and
# --nodes are compared between the two forms and --json with the rest).
kr_sim_try "$T/ibl.txt" iblinkinfo &&
	kr_sim_try "$T/ibl-l.txt" iblinkinfo -l &&
	grep -q '^Switch: 0x' "$T/ibl.txt" && grep -q '^0x[0-9a-f]* "' "$T/ibl-l.txt" &&
	same_info "$T/ibl.txt" "$T/ibl-l.txt" &&
	"$K" info --json "$T/ibl.txt" >"$T/ibl.json" &&
	diff -u "$T/plain.net.info--json" "$T/ibl.json" >&2 &&
	"$K" topo "$T/ibl.txt" | grep -q "^torus 3x3 (wrap x,y), p=2, parallel 1: 9 switches, 18 CAs$"
kr_ok $? "iblinkinfo and iblinkinfo -l read as the fabric ibnetdiscover saw; topo recognises it"

# A grouped file that lost its section header's form is refused with the line.
sed 's/^Non-Chassis Nodes$/Non-Chassis Nodes:/' "$T/grouped.net" >"$T/bad.net"
"$K" info --links "$T/bad.net" >/dev/null 2>"$T/bad.err"
[ $? -eq 2 ] && grep -q 'bad.net:[0-9]*: unknown line "Non-Chassis Nodes:"' "$T/bad.err"
kr_ok $? "a mangled -g header: FILE:LINE, exit 2"

# The cache: loaded through libibnetdisc when knsroute was built with it,
# else refused naming the package. Either way never parsed as text.
kr_sim_try /dev/null ibnetdiscover --cache "$T/fabric.cache" &&
	[ -s "$T/fabric.cache" ]
kr_ok $? "ibnetdiscover --cache wrote a cache"
kr_stop_ibsim
if "$K" capture "$T/probe" 2>&1 | grep -q "was built without"; then
	"$K" info --links "$T/fabric.cache" >/dev/null 2>"$T/nolib.err"
	[ $? -eq 2 ] && grep -q "fabric.cache: an ibnetdiscover cache, but knsroute was built without libibnetdisc (install libibnetdisc-dev" "$T/nolib.err"
	kr_ok $? "built without libibnetdisc: a cache is refused naming the package"
	kr_skip "built without libibnetdisc"
else
	same_info "$T/plain.net" "$T/fabric.cache"
	kr_ok $? "the cache reads as the plain output (info --links, --nodes, --json)"
	# libibnetdisc's loader says nothing of why; we name the file.
	head -c 200 "$T/fabric.cache" >"$T/cut.cache"
	"$K" info "$T/cut.cache" >/dev/null 2>"$T/cut.err"
	rc=$?
	cat "$T/fabric.cache" | "$K" info /dev/stdin >/dev/null 2>"$T/pipe.err"
	prc=${PIPESTATUS[1]}
	[ $rc -eq 2 ] && [ "$prc" -eq 2 ] &&
		grep -q "cut.cache: libibnetdisc could not load this ibnetdiscover cache" "$T/cut.err" &&
		grep -q "stdin: an ibnetdiscover cache must be read from a regular file" "$T/pipe.err"
	kr_ok $? "a truncated cache and a cache through a pipe: exit 2, the file named"
fi
kr_done
