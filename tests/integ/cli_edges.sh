#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# What an admin meets at the edges of the offline tools: outputs that are
# all new or untouched when a late write fails, full disks and closed
# stdouts reported with their reason, memory limits. Needs no simulator.
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 17
if [ ! -x "$KR_CLI" ]; then
	kr_skip_rest "knsroute not built at $KR_CLI"
	kr_done
fi
T=$KR_TMP
K=$KR_CLI
"$K" gen torus --dims 4x4 --p 1 -o "$T/t44.net" || exit 99

# A directory where summary goes fails the last rename: the files before it
# get their old contents back, the new ones go, no temporary is left.
mkdir -p "$T/o/summary/x" && echo old >"$T/o/path-sl"
"$K" route "$T/t44.net" --out "$T/o" >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -qx "knsroute route: cannot replace $T/o/summary: Is a directory" "$T/err" &&
	[ "$(cd "$T/o" && ls -A | tr '\n' ' ')" = "path-sl summary " ] &&
	[ "$(cat "$T/o/path-sl")" = old ]
kr_ok $? "route --out: a late failure leaves DIR as it was (exit $rc)"

rmdir "$T/o/summary/x" "$T/o/summary"
"$K" route "$T/t44.net" --out "$T/o" >/dev/null &&
	[ "$(cd "$T/o" && ls -A | wc -l)" -eq 8 ] && ! grep -qx old "$T/o/path-sl"
kr_ok $? "route --out: with the way clear every file is replaced, none left over"

# A full disk: a 64 KiB tmpfs in a private mount namespace. Which of
# route's files run out of space depends on the timing of its two writing
# threads (the check's takes files once it has passed, and a failure
# stops the other): the error names one of them.
if mkdir "$T/full" && unshare -m true 2>/dev/null; then
	"$K" gen torus --dims 4x4x4 --p 2 -o "$T/t444.net"
	unshare -m bash -c '
		mount -t tmpfs -o size=64k tmpfs "$1" || exit 99
		"$2" route "$3" --out "$1/r" >"$1/out" 2>"$4/route.err"; echo $? >"$4/route.rc"
		"$2" gen torus --dims 8x8x8 -o "$1/g.net" 2>"$4/gen.err"; echo $? >"$4/gen.rc"
		cd "$1" && find . >"$4/left"' _ "$T/full" "$K" "$T/t444.net" "$T"
	[ "$(cat "$T/route.rc")" = 2 ] && [ "$(cat "$T/gen.rc")" = 2 ] &&
		grep -qxE "knsroute route: cannot write $T/full/r/[a-z0-9.-]+: No space left on device" "$T/route.err" &&
		grep -qx "knsroute gen: cannot write $T/full/g.net: No space left on device" "$T/gen.err" &&
		[ "$(sort "$T/left" | tr '\n' ' ')" = ". ./out " ]
	st=$?
	# what was seen, for the log when the case fails
	[ $st -eq 0 ] || sed 's/^/# /' "$T/route.rc" "$T/route.err" \
		"$T/gen.rc" "$T/gen.err" "$T/left"
	kr_ok $st "full disk: route --out and gen -o say so, leave nothing behind"
else
	kr_skip "no unshare -m here for a private tmpfs"
fi

# Every command that writes to stdout fails, with the reason, on a closed one
"$K" route "$T/t44.net" --out "$T/r" >/dev/null
bad=
for cmd in "gen torus --dims 3x3" "info $T/t44.net" "topo $T/t44.net" \
	   "topo --coords $T/t44.net" "topo --json $T/t44.net" \
	   "route $T/t44.net --out $T/r2" "check $T/r" "check --json $T/r" \
	   "path $T/r 1 5" "stats $T/t44.net" \
	   "stats $T/r/topology.net --lfts $T/r/opensm-lfts.dump" \
	   "faults $T/t44.net --random 1 --trials 2" "help" "--version"; do
	# shellcheck disable=SC2086
	"$K" $cmd >&- 2>"$T/closed.err"
	rc=$?
	{ [ $rc -eq 2 ] && grep -q "standard output: Bad file descriptor" "$T/closed.err"; } ||
		bad="$bad [$cmd: exit $rc]"
done
[ -z "$bad" ]
kr_ok $? "a closed stdout is an error for every command${bad:+:$bad}"

# Under a memory limit route fails with the reason, exit 2, and never
# prints a report: a check cut short proves nothing. The limits step from
# "cannot start" to "enough" through every phase (check peaks last on this
# mesh). AddressSanitizer reserves terabytes of address space: not there.
if grep -q '^SAN_CFLAGS = -f' "$KR_BUILDDIR/Makefile" 2>/dev/null; then
	kr_skip "ulimit -v under AddressSanitizer"
	kr_skip "ulimit -v under AddressSanitizer"
else
	"$K" gen mesh --dims 16x16 --p 8 -o "$T/m.net"
	bad= oom=0 ok=0
	for kb in $(seq 6000 500 16000); do
		(ulimit -v $kb; "$K" route "$T/m.net" --out "$T/m$kb" >"$T/m.out" 2>"$T/m.err")
		rc=$?
		if [ $rc -eq 0 ]; then
			ok=$((ok + 1))
		elif [ $rc -eq 2 ] && grep -q 'out of memory' "$T/m.err" &&
		     ! grep -q 'verdict' "$T/m.out" "$T/m.err" && [ ! -e "$T/m$kb/summary" ]; then
			oom=$((oom + 1))
		else
			bad="$bad [$kb KiB: exit $rc, $(head -c 200 "$T/m.err" | tr '\n' ' ')]"
		fi
	done
	[ -z "$bad" ]
	kr_ok $? "route under ulimit -v: out of memory, exit 2, no report${bad:+:$bad}"
	[ $oom -gt 0 ] && [ $ok -gt 0 ]
	kr_ok $? "the limits cover both outcomes ($oom out of memory, $ok routed)"
fi

# One exit code for "not a fabric knsroute routes", whatever the command:
# a fat tree by hand: three leaves, two spines, one CA per leaf
{
	for s in 1 2 3; do
		printf 'Switch\t3 "S-%016x"\t# "leaf%d"\n' $s $s
		printf '[1]\t"S-%016x"[%d]\n[2]\t"S-%016x"[%d]\n' 4 $s 5 $s
		printf '[3]\t"H-%016x"[1]\n\n' $((s + 16))
	done
	for s in 4 5; do
		printf 'Switch\t3 "S-%016x"\t# "spine%d"\n' $s $s
		printf '[1]\t"S-%016x"[%d]\n[2]\t"S-%016x"[%d]\n[3]\t"S-%016x"[%d]\n\n' \
			1 $((s - 3)) 2 $((s - 3)) 3 $((s - 3))
	done
	for s in 1 2 3; do
		printf 'Ca\t1 "H-%016x"\t# "ca%d"\n[1]\t"S-%016x"[3]\n\n' $((s + 16)) $s $s
	done
} >"$T/ft.net"
bad=
for cmd in "topo $T/ft.net" "route $T/ft.net --out $T/ft" "stats $T/ft.net" \
	   "faults $T/ft.net --random 1 --trials 1"; do
	# shellcheck disable=SC2086
	"$K" $cmd >/dev/null 2>"$T/ft.err"
	rc=$?
	{ [ $rc -eq 1 ] && grep -q "not a torus" "$T/ft.err"; } || bad="$bad [$cmd: exit $rc]"
done
[ -z "$bad" ]
kr_ok $? "a fat tree: exit 1 with the reason from topo, route, stats, faults${bad:+:$bad}"
# both families' reasons, past 256 bytes, whole
"$K" topo "$T/ft.net" 2>&1 | grep -q 'not a KNS: .*; not a torus or mesh: .*two switches share at most 2$'
kr_ok $? "topo: the reason is not cut short"

# infiniband-diags conventions: -V, help CMD, - for standard input
[ "$("$K" -V)" = "$("$K" --version)" ] && "$K" -V | grep -qx 'knsroute [0-9.]*' &&
	"$K" help route >"$T/h1" && "$K" route --help >"$T/h2" && cmp -s "$T/h1" "$T/h2" &&
	{ "$K" help nosuch 2>/dev/null; [ $? -eq 2 ]; }
kr_ok $? "-V, --version and 'help CMD' (an unknown one: exit 2)"

"$K" topo - <"$T/t44.net" >"$T/stdin.topo" && "$K" topo "$T/t44.net" >"$T/file.topo" &&
	cmp -s "$T/stdin.topo" "$T/file.topo" &&
	"$K" route - --out "$T/rs" <"$T/t44.net" >/dev/null && cmp -s "$T/rs/opensm-lfts.dump" "$T/r/opensm-lfts.dump" &&
	{ printf 'Switch\t2 "a"\n[9]\t"b"[1]\n' | "$K" info - 2>"$T/stdin.err"; [ $? -eq 2 ]; } &&
	grep -q '^knsroute info: standard input:2: ' "$T/stdin.err"
kr_ok $? "a TOPOLOGY of - is standard input, named so in errors"

# --json on route and stats, in the style of topo --json and check --json
"$K" route "$T/t44.net" --out "$T/rj" --json >"$T/route.json" &&
	"$K" route "$T/ft.net" --out "$T/rj2" --json >"$T/route_err.json" 2>/dev/null
rc=$?
"$K" stats "$T/t44.net" -s 'switch(0,0)' >"$T/stats.txt" &&
	"$K" stats "$T/t44.net" -s 'switch(0,0)' --json >"$T/stats.json"
python3 - "$T" $rc <<'PY'
import json, sys
t, rc = sys.argv[1], int(sys.argv[2])
r = json.load(open(t + "/route.json"))
assert r["fabric"].startswith("torus 4x4 ") and r["lids"] == 32 and r["check"] == "passed", r
assert set(r["ms"]) == {"topo", "route", "slvl", "repair", "check"} and r["out"].endswith("/rj")
e = json.load(open(t + "/route_err.json"))
assert rc == 1 and e["phase"] == "recognition" and e["error"].startswith("not a KNS"), (rc, e)
s = json.load(open(t + "/stats.json"))
rows = [l.split() for l in open(t + "/stats.txt") if l[:6].strip().isdigit()]
want = [[int(x) for x in row[2:]] for row in rows]
got = [p["vl"] for p in s["switches"][0]["ports"]]
assert got == want and [p["to"] for p in s["switches"][0]["ports"]] == [row[1] for row in rows], (got, want)
bal = [l for l in open(t + "/stats.txt") if l.startswith("balance:")][0].split()
assert s["balance"]["max"] == int(bal[8].rstrip(",")) and s["balance"]["port_vls"] == int(bal[4]), (s, bal)
PY
kr_ok $? "route --json (and its error object) and stats --json agree with the text"

# Progress: none for a short run, a line per step once past 2 s (a slow
# pipe holds the reading back), from the start with -v, never with -q.
"$K" route "$T/t44.net" --out "$T/p0" 2>"$T/p0.err" >/dev/null &&
	(sleep 2.2; cat "$T/t44.net") | "$K" route - --out "$T/p1" 2>"$T/p1.err" >/dev/null &&
	(sleep 2.2; cat "$T/t44.net") | "$K" route - -q --out "$T/p2" 2>"$T/p2.err" >/dev/null &&
	"$K" route -v "$T/t44.net" --out "$T/p3" 2>"$T/p3.err" >/dev/null &&
	"$K" check -v "$T/p3" 2>"$T/p4.err" >/dev/null &&
	[ ! -s "$T/p0.err" ] && [ ! -s "$T/p2.err" ] &&
	[ "$(sed 's/.*\] //' "$T/p1.err" | tr '\n' '|')" = "recognition ...|routing ...|SL/VL plan ...|repair ...|writing $T/p1/ while checking|check ...|" ] &&
	[ "$(grep -c '^knsroute route: \[ *[0-9.]* s\] ' "$T/p3.err")" -eq 7 ] &&
	grep -q '^knsroute check: \[ *[0-9.]* s\] checking' "$T/p4.err"
kr_ok $? "progress lines on stderr after 2 s, at once with -v, none with -q"

# One naming rule: every command names a node as the topology does
# (ibnetdiscover's "S-GUID" / "H-GUID", the ibsim name), its description
# ("sw-60a1aa09" here, which need not be unique) only in quotes beside
# that id, never alone.
ib=$KR_SRCDIR/tests/data/chk_t33.ibnd
lf=$KR_SRCDIR/tests/data/chk_t33-lfts.dump
{ "$K" stats "$ib" --lfts "$lf" -s sw-60a1aa09
  "$K" check "$ib" --lfts "$lf"
  "$K" path "$ib" --lfts "$lf" S-0002c9da037b4d46 S-0002c9783aac1b04
  "$K" faults "$ib" --random 2 --trials 3 -v --seed 2
} >"$T/names.txt" 2>&1
! sed 's/S-0002c9[0-9a-f]\{10\} "sw-[0-9a-f]\{8\}"//g' "$T/names.txt" |
	grep -q 'sw-[0-9a-f]\{8\}' &&
	grep -q '^switch 0x0002c9da037b4d46 S-0002c9da037b4d46 "sw-60a1aa09":' "$T/names.txt" &&
	grep -q '^  S-0002c9[0-9a-f]* "sw-[0-9a-f]*"\[[0-9]*\] -> S-0002c9' "$T/names.txt" &&
	grep -q '^knsroute faults: trial 0: "S-0002c9[0-9a-f]*"\[' "$T/names.txt"
kr_ok $? "stats, check, path and faults name nodes alike (the topology's names, descriptions beside)"

# A dry run at 11,000 CAs: opensm-lfts.dump passes 1 GiB, said before a
# byte of it is written (here into a directory that cannot be made, so
# that none is); 10 CAs say nothing
"$K" gen kns --k 10 --n 3 --p 11 -o "$T/big.net" &&
	"$K" route "$T/big.net" --out "$T/none/big" -q 2>"$T/big.err" >/dev/null
rc=$?
"$K" route "$T/t44.net" --out "$T/small" -q 2>"$T/small.err" >/dev/null
[ $rc -eq 2 ] && grep -qx "knsroute route: $T/none/big/opensm-lfts.dump will take about 1.[0-9] GB (1300 switches, a line for each LID)" "$T/big.err" &&
	! grep -q "will take" "$T/small.err"
kr_ok $? "a dry run says beforehand when its LFT dump passes 1 GiB"

# Every --json command answers a failure with one JSON object on stdout
# (the error and knsroute's version) besides the message on stderr, which
# starts with the command's name
bad=
for cmd in "check $T/missing.net --lfts $T/x" "route $T/missing.net --out $T/m" \
	   "topo $T/missing.net" "stats $T/missing.net" "info $T/missing.net" \
	   "faults $T/missing.net --random 1" "path $T/missing.net --lfts $T/x a b" \
	   "sim $T/missing.net --lfts $T/x"; do
	# shellcheck disable=SC2086
	"$K" $cmd --json >"$T/j.out" 2>"$T/j.err"
	rc=$?
	{ [ $rc -eq 2 ] && grep -q "^knsroute ${cmd%% *}: .*missing.net" "$T/j.err" &&
		python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))
sys.exit(not ("missing.net" in o["error"] and o["version"] == sys.argv[2]))' \
		"$T/j.out" "$("$K" --version | cut -d' ' -f2)"; } ||
		bad="$bad [${cmd%% *}: exit $rc]"
done
[ -z "$bad" ]
kr_ok $? "--json: a failure is a JSON object with the error and the version${bad:+:$bad}"

# ... and every object a --json command prints on success starts with it
bad=
for cmd in "check $T/r" "route $T/t44.net --out $T/rj" "topo $T/t44.net" \
	   "stats $T/t44.net" "info $T/t44.net" "faults $T/t44.net --random 1 --trials 2" \
	   "path $T/r 1 2" "sim $T/r --load 0.2 --cycles 500"; do
	# shellcheck disable=SC2086
	"$K" $cmd --json >"$T/j.out" 2>/dev/null
	python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))
sys.exit(not (list(o)[0] == "version" and o["version"] == sys.argv[2]))' \
		"$T/j.out" "$("$K" --version | cut -d' ' -f2)" || bad="$bad ${cmd%% *}"
done
[ -z "$bad" ]
kr_ok $? "--json: every object starts with knsroute's version${bad:+; not:$bad}"

# "Try --help" follows a usage error, not a file that is missing
"$K" check "$T/missing.net" --lfts "$T/x" 2>"$T/in.err"
rc_in=$?
"$K" check "$T/t44.net" 2>"$T/use.err"
rc_use=$?
[ $rc_in -eq 2 ] && [ $rc_use -eq 2 ] && ! grep -q "Try" "$T/in.err" &&
	grep -q "^knsroute check: .*missing.net" "$T/in.err" &&
	grep -qx "Try 'knsroute check --help'." "$T/use.err"
kr_ok $? "'Try --help' after a usage error only"

kr_done
