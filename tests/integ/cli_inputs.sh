#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Wrong or odd inputs are reported against the file and line that is wrong,
# once, with exit 2; a cut LFT capture is never taken for a routing finding.
# Outputs named by odd paths (FIFOs, symbolic links, standard output) are
# written where the name leads, never replaced by a plain file. Needs no
# simulator.
. "$(dirname "$0")/lib.sh"

kr_plan 19
kr_tmpdir
if [ ! -x "$KR_CLI" ]; then
	kr_skip_rest "knsroute not built at $KR_CLI"
	kr_done
fi
K=$KR_CLI
T=$KR_TMP
"$K" gen torus --dims 4x4 --p 1 -o "$T/t.net" &&
	"$K" route "$T/t.net" --out "$T/r" >/dev/null || exit 99

# A coords_file with a bad GUID on its line 7: every command that plans
# names that file and line, not the fabric.
"$K" topo --cache-out "$T/coords" "$T/t.net" >/dev/null &&
	sed -n 7p "$T/coords" | grep -q '^0x[0-9a-f]* 1 0 cas 1:0$' || exit 99
sed -i '7s/^0x[0-9a-f]*/0xzz/' "$T/coords"
printf 'coords_file %s\n' "$T/coords" >"$T/bad.conf"
bad=
for cmd in "route $T/t.net --out $T/o" "stats $T/t.net" \
	   "faults $T/t.net --random 1 --trials 1"; do
	# shellcheck disable=SC2086
	"$K" $cmd --conf "$T/bad.conf" >/dev/null 2>"$T/err"
	rc=$?
	{ [ $rc -eq 2 ] && grep -q "^knsroute ${cmd%% *}: $T/coords:7: recognition failed.*: expected a GUID, not \"0xzz\"" "$T/err"; } ||
		bad="$bad [${cmd%% *}: exit $rc: $(head -1 "$T/err")]"
done
[ -z "$bad" ]
kr_ok $? "a bad coords_file is named with its line by route, stats, faults${bad:+:$bad}"

printf 'coords_file %s\n' "$T/none" >"$T/none.conf"
"$K" route "$T/t.net" --conf "$T/none.conf" --out "$T/o" 2>"$T/err" >/dev/null
[ $? -eq 2 ] && grep -q "^knsroute route: $T/none: recognition failed: cannot open: No such file" "$T/err"
kr_ok $? "a missing coords_file is named, not the fabric"

# LFT dumps without every switch's block: exit 2 naming the file and the
# count, where the tables alone would read as undelivered pairs (exit 1).
: >"$T/empty.dump"
awk '/^Unicast lids/ { n++ } n <= 3' "$T/r/opensm-lfts.dump" >"$T/cut.dump"
"$K" check "$T/r" --lfts "$T/empty.dump" >/dev/null 2>"$T/err.empty"
rc1=$?
"$K" check "$T/r" --lfts "$T/cut.dump" >/dev/null 2>"$T/err.cut"
rc2=$?
"$K" stats "$T/r/topology.net" --lfts "$T/cut.dump" >/dev/null 2>"$T/err.stats"
rc3=$?
[ "$rc1 $rc2 $rc3" = "2 2 2" ] &&
	grep -q "^knsroute check: $T/empty.dump: no LFT block for 16 of 16 switches" "$T/err.empty" &&
	grep -q "^knsroute check: $T/cut.dump: no LFT block for 13 of 16 switches" "$T/err.cut" &&
	grep -q "^knsroute stats: $T/cut.dump: no LFT block for 13 of 16 switches" "$T/err.stats" &&
	"$K" check "$T/r" >/dev/null
kr_ok $? "check and stats refuse LFT dumps missing switch blocks (exit $rc1 $rc2 $rc3)"

# stats --lfts on a topology without LIDs takes them from the dump's port
# GUIDs, as check does, and counts what it counts with them given.
"$K" stats "$T/t.net" --lfts "$T/r/opensm-lfts.dump" --all-lids >"$T/s.nolid" 2>"$T/err" &&
	grep -q "LIDs taken from the port GUIDs" "$T/err" &&
	"$K" stats "$T/r/topology.net" --lfts "$T/r/opensm-lfts.dump" --all-lids >"$T/s.lid" &&
	grep -q "^balance:" "$T/s.lid" && cmp -s "$T/s.nolid" "$T/s.lid"
kr_ok $? "stats --lfts on a topology without LIDs agrees with one with them"

# faults --mcast on a plan that cannot make SL 0 safe for multicast: said
# once, up front, not as a failure of every trial.
"$K" gen torus --dims 4x4x4x4 --p 1 -o "$T/t4.net"
"$K" faults "$T/t4.net" --mcast --random 1 --trials 2 >"$T/f.out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && [ ! -s "$T/f.out" ] &&
	grep -q "^knsroute faults: --mcast: the plan of $T/t4.net has no SL or VL left for multicast" "$T/err"
kr_ok $? "faults --mcast without a multicast SL: said once (exit $rc)"
# multicast on SL 3 and the SA's SL 5, which joins it: SL 0 is neither
printf 'mcast_sls 3\n' >"$T/m3.conf"
"$K" faults "$T/t.net" --conf "$T/m3.conf" --sm-sl 5 --mcast --random 1 --trials 2 >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "keeps multicast safe on SL 3, not on the group's SL 0" "$T/err" &&
	"$K" faults "$T/t.net" --mcast --random 1 --trials 2 | grep -qx "failures  *0"
kr_ok $? "faults --mcast with multicast on another SL names it (exit $rc)"

# gen: more faults than links, options of other families
links=$("$K" gen torus --dims 3x3 --p 1 --fail 18 -o "$T/all.net" 2>&1 | grep -c "^left out:")
"$K" gen torus --dims 3x3 --p 1 --fail 19 -o "$T/over.net" 2>"$T/err"
rc=$?
[ "$links" -eq 18 ] && [ $rc -eq 2 ] && [ ! -e "$T/over.net" ] &&
	grep -qx "knsroute gen: cannot leave out 19 links: the fabric has 18 between switches" "$T/err"
kr_ok $? "gen --fail beyond the link count is refused, nothing written (exit $rc)"
"$K" gen kns --k 3 --n 2 --parallel 2 -o "$T/k.net" 2>"$T/err1"
rc1=$?
"$K" gen kns --k 3 --n 2 --mesh-dims 0 -o "$T/k.net" 2>"$T/err2"
rc2=$?
[ "$rc1 $rc2" = "2 2" ] && [ ! -e "$T/k.net" ] &&
	grep -q "^knsroute gen: --parallel is for tori and meshes" "$T/err1" &&
	grep -q "^knsroute gen: --mesh-dims is for tori" "$T/err2"
kr_ok $? "gen kns refuses --parallel and --mesh-dims (exit $rc1 $rc2)"

# A path that is not there is said to be missing, not a missing option
"$K" check "$T/nonexistent" >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^knsroute check: $T/nonexistent: No such file or directory" "$T/err"
kr_ok $? "check of a missing directory says so (exit $rc)"

# A duplicate LID is reported on the port line that repeats it
"$K" gen torus --dims 3x3 --p 1 --lids -o "$T/l.net"
first=$(grep -m1 -o '^\[1\]([0-9a-f]*) .*# lid [0-9]*' "$T/l.net" | sed 's/.*# lid //')
second_line=$(grep -n '^\[1\]([0-9a-f]*) .*# lid [0-9]*' "$T/l.net" | sed -n 2p | cut -d: -f1)
sed "${second_line}s/# lid [0-9]*/# lid $first/" "$T/l.net" >"$T/dup.net"
"$K" info "$T/dup.net" >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^knsroute info: $T/dup.net:$second_line: LID $first used by " "$T/err"
kr_ok $? "a duplicate CA LID is reported on its port line $second_line (exit $rc)"

# knsroute.conf's wrap with more values than the fabric has dimensions
printf 'wrap yes yes yes\n' >"$T/w3.conf"
"$K" route "$T/t.net" --conf "$T/w3.conf" --out "$T/w" >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && grep -q "does not fit the fabric: wrap: 3 values, but the fabric has 2 dimensions" "$T/err"
kr_ok $? "wrap with 3 values on a 2-D torus does not fit (exit $rc)"

# A fabric without CAs: nothing to prove, and neither command claims a pass
"$K" gen torus --dims 3x3 --p 0 -o "$T/nocas.net"
"$K" route "$T/nocas.net" --out "$T/nc" >"$T/nc.out" &&
	grep -q "; check had no source (no CA with a LID);" "$T/nc.out" &&
	! grep -q "check passed" "$T/nc.out"
kr_ok $? "route of a fabric without CAs does not say its check passed"
"$K" check "$T/nc" >"$T/nc.chk" 2>/dev/null
rc=$?
[ $rc -eq 2 ] && grep -q "^verdict: NOTHING CHECKED" "$T/nc.chk"
kr_ok $? "check of it says nothing was checked (exit $rc)"

# Outputs that are not plain files. Never a device here (/dev/null,
# /dev/full, /dev/stdout): a regression would replace the machine's node.
# A FIFO stays a FIFO and its reader, started here and stopped by its PID,
# gets the whole dump.
fifo_read() {	# FIFO OUT: a reader in the background, its PID in $reader
	cat "$1" >"$2" &
	reader=$!
	KR_PIDS+=("$reader")
}
fifo_done() {	# waits up to 10 s for $reader, then stops it
	local i
	for i in $(seq 100); do
		kill -0 "$reader" 2>/dev/null || break
		sleep 0.1
	done
	kr_stop_pid "$reader"
}
mkfifo "$T/fifo"
fifo_read "$T/fifo" "$T/fifo.got"
timeout 60 "$K" check "$T/r" --write-lfts "$T/fifo" >/dev/null 2>"$T/err"
rc=$?
fifo_done
[ $rc -eq 0 ] && [ -p "$T/fifo" ] && cmp -s "$T/fifo.got" "$T/r/opensm-lfts.dump"
kr_ok $? "check --write-lfts into a FIFO: it stays one, its reader gets the dump (exit $rc)"

# A symbolic link stays one, and the file it names gets the content: a
# relative link from another directory, a chain, a dangling link (its
# target is created)
mkdir "$T/links" "$T/data"
echo old >"$T/data/sl2vl"
ln -s ../data/sl2vl "$T/links/sl2vl"
ln -s sl2vl "$T/links/chain"
ln -s ../data/new.net "$T/links/dangling"
"$K" gen torus --dims 4x4 --p 1 -o "$T/links/dangling" &&
	"$K" check "$T/r" --write-sl2vl "$T/links/chain" >/dev/null &&
	[ -L "$T/links/sl2vl" ] && [ -L "$T/links/chain" ] && [ -L "$T/links/dangling" ] &&
	cmp -s "$T/data/sl2vl" "$T/r/opensm-sl2vl.dump" &&
	cmp -s "$T/data/new.net" "$T/t.net" &&
	[ "$(ls -A "$T/links" "$T/data" | tr '\n' ' ')" = "$T/data: new.net sl2vl  $T/links: chain dangling sl2vl " ]
kr_ok $? "symbolic links stay, their targets get the content, nothing else is left"

# Standard output by a name of it (/proc/self/fd/1: a pipe, then a file
# the shell opened for a block) or as "-"
"$K" gen torus --dims 4x4 --p 1 -o /proc/self/fd/1 2>"$T/err" | cat >"$T/pipe.net" &&
	"$K" gen torus --dims 4x4 --p 1 -o - >"$T/dash.net" &&
	{ echo "# before"; "$K" gen torus --dims 4x4 --p 1 -o /proc/self/fd/1 2>"$T/err"; } >"$T/block.net" &&
	cmp -s "$T/pipe.net" "$T/t.net" && cmp -s "$T/dash.net" "$T/t.net" &&
	[ "$(head -1 "$T/block.net")" = "# before" ] &&
	tail -n +2 "$T/block.net" | cmp -s - "$T/t.net"
kr_ok $? "gen -o to standard output by name or as -, after what the shell wrote"

# A directory, or a link to one, is refused with nothing written
mkdir "$T/outdir"
ln -s outdir "$T/dirlink"
"$K" gen torus --dims 3x3 -o "$T/dirlink" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && [ -L "$T/dirlink" ] && [ -z "$(ls -A "$T/outdir")" ] &&
	grep -qx "knsroute gen: cannot write $T/dirlink: Is a directory" "$T/err"
kr_ok $? "gen -o into a link to a directory: refused, the link stays (exit $rc)"

# route --out: a FIFO and a link among DIR's files are written through
cp -r "$T/r" "$T/r2"
rm "$T/r2/vlarb" "$T/r2/summary"
mkfifo "$T/r2/vlarb"
ln -s ../data/summary "$T/r2/summary"
fifo_read "$T/r2/vlarb" "$T/vlarb.got"
timeout 60 "$K" route "$T/t.net" --out "$T/r2" >/dev/null 2>"$T/err"
rc=$?
fifo_done
[ $rc -eq 0 ] && [ -p "$T/r2/vlarb" ] && [ -L "$T/r2/summary" ] &&
	cmp -s "$T/vlarb.got" "$T/r/vlarb" &&
	grep -q "^fabric: torus 4x4" "$T/data/summary" &&
	[ "$(ls -A "$T/r2" | wc -l)" -eq 8 ]
kr_ok $? "route --out through a FIFO and a link in DIR (exit $rc)"

# A failure names the path given, not a temporary beside it
"$K" gen torus --dims 3x3 -o "$T/nodir/x.net" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -qx "knsroute gen: cannot write $T/nodir/x.net: No such file or directory" "$T/err"
kr_ok $? "gen -o into a missing directory names that path (exit $rc)"

kr_done
