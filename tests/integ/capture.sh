#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# knsroute capture against the classic tools: a 3x3 torus with LMC 1 routed
# by the knsroute plugin in stock opensm (QoS on, so SL2VL maps and path SLs
# vary), on ibsim. Each file of the capture must say what ibnetdiscover,
# ibroute, smpquery sl2vl and saquery -p read from the same simulator, via
# readback.sh's normalisers; then the error cases: a bad option, a DIR that
# cannot be written, and an SA that no longer answers (the error names the
# pair, exit 1, the earlier capture in DIR untouched).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

kr_plan 16
kr_tmpdir
if ! kr_plugin_ready || [ ! -x "$KR_CLI" ]; then
	kr_skip_rest "needs ibsim, opensm, infiniband-diags and a built plugin"
	kr_done
fi
if "$KR_CLI" capture "$KR_TMP/none" 2>&1 | grep -q "built without"; then
	kr_skip_rest "knsroute built without libibnetdisc, libibmad, libibumad"
	kr_done
fi

T=$KR_TMP
C=$T/cap
"$KR_CLI" gen torus --dims 3x3 --p 1 -o "$T/t33.net"
kr_plugin_conf "$T/opensm.conf" "lmc 1"
kr_start_ibsim "$T/t33.net" && kr_start_opensm -F "$T/opensm.conf" &&
	kr_wait_sm 90
kr_ok $? "ibsim and opensm with the knsroute plugin, LMC 1"

kr_sim "$KR_CLI" capture "$C" >"$T/cap.out" 2>"$T/cap.err"
ok=$?
[ $ok -eq 0 ] || sed 's/^/# /' "$T/cap.err"
[ $ok -eq 0 ] && [ ! -s "$T/cap.out" ] &&
	[ "$(ls -A "$C" | sort | tr '\n' ' ')" = "capture.log lfts.dump oper-vls path-sl sl2vl.dump topology.net " ]
kr_ok $? "capture: exit 0, the six files and nothing else in DIR"

# umad2sim says on stderr which simulated node it attached to.
quiet() {
	! grep -qv '^ibwarn: .*sim_connect: attached' "$1"
}

# stderr is no tty here: one progress line per tenth of each batch at most.
grep -q '^path SLs: \([0-9]*\)/\1$' "$T/cap.err" &&
	[ "$(grep -c '^path SLs: ' "$T/cap.err")" -le 10 ] &&
	grep -q '^discovery: from .*, 9 switches, 9 other nodes, SM LID [1-9]' "$C/capture.log" &&
	grep -q '^path SLs: 225 queries, [0-9]* retried, 225 answered' "$C/capture.log" &&
	grep -q '^total: ' "$C/capture.log"
kr_ok $? "progress a line per 10 % off a tty; capture.log counts the queries (9 CAs x 25 LIDs not their own)"

: >"$T/ibnd"
kr_sim_try "$T/ibnd" ibnetdiscover
kr_norm_topo "$T/ibnd" >"$T/topo.want" && kr_norm_topo "$C/topology.net" >"$T/topo.got" &&
	diff "$T/topo.want" "$T/topo.got" >&2
kr_ok $? "topology.net: the links, LIDs and LMCs ibnetdiscover reads"

: >"$T/ibroute"
: >"$T/smp"
ok=0
while read -r lid port lmc; do
	case $port in
	0) kr_sim_try "$T/ibroute" ibroute "$lid" || ok=1 ;;
	CA) kr_sim_try "$T/smp" smpquery sl2vl "$lid" || ok=1 ;;
	*) kr_sim_try "$T/smp" smpquery sl2vl "$lid" "$port" || ok=1 ;;
	esac
done < <(kr_capture_ports "$T/ibnd")
kr_norm_lfts "$T/ibroute" >"$T/lft.want" && kr_norm_lfts "$C/lfts.dump" >"$T/lft.got" &&
	diff "$T/lft.want" "$T/lft.got" >&2 && [ $ok -eq 0 ]
kr_ok $? "lfts.dump: what ibroute reads from every switch"

kr_norm_sl2vl "$T/smp" >"$T/sl2vl.want" && kr_norm_sl2vl "$C/sl2vl.dump" >"$T/sl2vl.got" &&
	diff "$T/sl2vl.want" "$T/sl2vl.got" >&2 &&
	awk '{ for (i = 4; i <= NF; i++) if ($i) vl = 1 } END { exit !vl }' "$T/sl2vl.got"
kr_ok $? "sl2vl.dump: what smpquery sl2vl reads, every switch in/out pair and CA port, VLs above 0 among them"

# OperVLs as smpquery portinfo reads them ("VL0-7": 8 VLs), of every linked
# switch port and CA port: the same count and the same values
: >"$T/pinfo"
ok=0
while read -r lid port lmc; do
	[ "$port" = 0 ] && continue	# a switch's own port: no link
	[ "$port" = CA ] && port=
	# shellcheck disable=SC2086
	kr_sim_try "$T/pinfo" smpquery portinfo "$lid" $port || ok=1
done < <(kr_capture_ports "$T/ibnd")
sed -n 's/^OperVLs:\.*VL0-\{0,1\}\([0-9]*\)$/\1/p' "$T/pinfo" |
	awk '{ print $1 == "" ? 1 : $1 + 1 }' | sort -n >"$T/ovl.want"
grep -v '^#' "$C/oper-vls" | awk '{ print $3 }' | sort -n >"$T/ovl.got"
[ $ok -eq 0 ] && [ -s "$T/ovl.want" ] && diff "$T/ovl.want" "$T/ovl.got" >&2
kr_ok $? "oper-vls: the OperVLs smpquery portinfo reads, every linked port"

# A sample of pairs: every source to the switch LIDs and to the second LID
# of an LMC range; knsroute's torus SLs differ by destination.
: >"$T/paths"
ok=0
mapfile -t cas < <(kr_capture_ports "$T/ibnd" | awk '$2 == "CA" { print $1 }')
mapfile -t sws < <(kr_capture_ports "$T/ibnd" | awk '$2 == 0 { print $1 }' | head -n 3)
for s in "${cas[@]}"; do
	for d in "${sws[@]}" $(( ${cas[0]} + 1 )) $(( ${cas[5]} + 1 )); do
		[ "$s" = "$((d - 1))" ] && continue
		kr_sim_try "$T/paths" saquery -p --src-to-dst "$s:$d" || ok=1
	done
done
[ $ok -eq 0 ] && kr_paths_match "$T/paths" "$C/path-sl" &&
	[ "$(grep -c '^PathRecord' "$T/paths")" -ge 40 ] &&
	[ "$(grep -v '^#' "$C/path-sl" | awk 'NF == 2 { print $2 }' | sort -u | wc -l)" -gt 1 ]
kr_ok $? "path-sl: the SL saquery -p gets for a sample of pairs"

# The SA's traffic joins the check, on sm_sl (OpenSM's default 0) as
# capture.log says the ports were told. ibsim attaches opensm to the first
# node of the file, a switch in gen's: 9 CA ports to the SM's LID, its
# answers to both LIDs of each, and the 8 other switches both ways (the
# PerfMgr's queries and replies), 9 + 18 + 16 pairs.
read -r sm_lid sm_sl < <(sed -n 's/^discovery: .*, SM LID \([0-9]*\) SL \([0-9]*\),.*/\1 \2/p' "$C/capture.log")
"$KR_CLI" check "$C/topology.net" --lfts "$C/lfts.dump" --sl2vl "$C/sl2vl.dump" \
	--path-sl "$C/path-sl" --sm-lid "$sm_lid" --sm-sl "$sm_sl" >"$T/check.out" 2>&1
ok=$?
[ $ok -eq 0 ] || sed 's/^/# /' "$T/check.out" | head
[ $ok -eq 0 ] && [ "$sm_sl" = 0 ] &&
	grep -q "^SM traffic:   43 of the pairs: SL 0 between the SM (LID $sm_lid) and every CA port (SA) and switch (PerfMgr)" "$T/check.out"
ok=$?
[ $ok -eq 0 ] || grep '^SM\|^pairs' "$T/check.out" | sed 's/^/# /'
kr_ok $ok "knsroute check passes on the capture, the SA's traffic on SL 0 included"

# check DIR finds the SM in capture.log by itself: the same report.
"$KR_CLI" check "$C" >"$T/dir.out" 2>&1 && diff "$T/check.out" "$T/dir.out" >&2
kr_ok $? "check DIR: the SM from capture.log, the same report as with --sm-lid"

kr_sim "$KR_CLI" check --live --quiet --window 8 >"$T/live.out" 2>"$T/live.err" &&
	diff "$T/check.out" "$T/live.out" >&2 && quiet "$T/live.err"
ok=$?
[ $ok -eq 0 ] || sed 's/^/# /' "$T/live.err"
kr_ok $ok "check --live: the same report, as one command"

"$KR_CLI" capture "$T/bad" --window 0 2>"$T/bad.err"
[ $? -eq 2 ] && grep -q -- "--window expects a number" "$T/bad.err" && [ ! -e "$T/bad" ]
ok=$?
"$KR_CLI" capture "$T/bad" --frobnicate 2>"$T/bad.err"
[ $? -eq 2 ] && grep -q 'bad option "--frobnicate"' "$T/bad.err" && [ ! -e "$T/bad" ] &&
	[ $ok -eq 0 ]
kr_ok $? "bad options: exit 2 with the reason, no DIR"

kr_sim "$KR_CLI" capture "$C/capture.log/sub" 2>"$T/nodir.err"
[ $? -eq 2 ] && grep -q "cannot create $C/capture.log/sub: Not a directory" "$T/nodir.err"
kr_ok $? "a DIR that cannot be created: exit 2, said before any query"

# The SM goes away: its LID stays in every PortInfo, nobody answers.
sums=$(cd "$C" && md5sum -- *)
kr_stop_opensm
kr_sim "$KR_CLI" capture "$C" --timeout 100 --retries 1 2>"$T/nosa.err"
[ $? -eq 1 ] &&
	grep -q "^knsroute capture: PathRecord SLID [0-9]* DLID [0-9]* (SA at LID [0-9]*): no answer after 2 attempts (timeout 100 ms each)" "$T/nosa.err" &&
	[ "$sums" = "$(cd "$C" && md5sum -- *)" ] && [ -z "$(ls -A "$C" | grep -v -e '^[a-z]')" ]
ok=$?
[ $ok -eq 0 ] || sed 's/^/# /' "$T/nosa.err"
kr_ok $ok "no SA: exit 1 naming the pair, the capture already in DIR untouched"

kr_sim "$KR_CLI" capture "$T/new" --timeout 100 --retries 0 2>/dev/null
[ $? -eq 1 ] && [ ! -e "$T/new" ]
kr_ok $? "no SA: a DIR made for the capture is gone again"

kr_sim "$KR_CLI" capture "$C" --no-path-sl --quiet 2>"$T/nopsl.err"
[ $? -eq 0 ] && quiet "$T/nopsl.err" && [ ! -e "$C/path-sl" ] &&
	kr_norm_lfts "$C/lfts.dump" | cmp -s - "$T/lft.want" &&
	grep -q "path SLs no" "$C/capture.log"
kr_ok $? "--no-path-sl works without an SA, quietly, and drops the old path-sl"

kr_done
