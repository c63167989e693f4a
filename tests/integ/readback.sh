# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Sourced after lib.sh: run opensm with the knsroute plugin, read what it
# programmed into the simulated fabric, and compare it with a dry run.
#
#   kr_plugin_ready      status 0 when ibsim, opensm and the built plugin are
#                        there; exports LD_LIBRARY_PATH so opensm finds it
#   kr_plugin_conf FILE [LINE...]
#                        an opensm.conf as an admin writes it (load the
#                        plugin, knsroute then minhop, QoS on) plus LINEs
#   kr_plugin_up NET [SECONDS]
#                        ibsim on NET, opensm with KR_TMP/opensm.conf
#                        (kr_plugin_conf), wait for SUBNET UP (def. 60 s)
#   kr_first_sweep_routed DESC
#                        status 0 when the log says sweep 1 read DESC (a
#                        prefix of the fabric's description), knsroute did
#                        not step aside (no ERR KR02) and configured its
#                        tables
#
#   kr_readback DIR      `knsroute capture DIR` against this test's
#                        simulator: DIR/topology.net, lfts.dump, sl2vl.dump,
#                        path-sl (every CA port to every other LID, one
#                        PathRecord each) and capture.log; a failed capture
#                        is run again (kr_sim_try), status 1 when it keeps
#                        failing, its stderr in the log
#   kr_sm_args DIR       "--sm-lid LID --sm-sl SL" for route and check: the
#                        SM the ports of capture DIR were told of (its
#                        capture.log), as the plugin learns it from OpenSM
#   kr_norm_lfts FILE    "GUID LID PORT" lines, sorted, from ibroute output
#                        or opensm-lfts.dump
#   kr_norm_sl2vl FILE   "LID IN OUT VL0..VL15" lines, sorted, from
#                        smpquery sl2vl output or opensm-sl2vl.dump
#   kr_paths_match PATHS PATHSL
#                        status 0 when every PathRecord's SL in PATHS
#                        (saquery -p) equals the path-sl file's SL for its
#                        pair ("slid dlid sl" line, else "dlid sl")
#   kr_norm_path_sl TOPO PATHSL
#                        "SLID DLID SL" for every CA port of TOPO (base
#                        LID) to every DLID PATHSL lists but its own, sorted:
#                        two path-sl files that say the same compare equal
#   kr_norm_topo TOPO    "NODE LID LMC" and "NODE[P] PEER[Q]" lines, sorted,
#                        from ibnetdiscover output or a capture's topology.net
#   kr_snapshot DIR      kr_readback DIR, checked, with what ref_stable.py
#                        reads: DIR/lfts and DIR/psl (as knsroute check
#                        writes them), DIR/links and DIR/nodes (knsroute info)
#   kr_stable A B        ref_stable.py on snapshots A and B: prints
#                        "SAME n MOVED m CHANGED c" (pairs on an unchanged
#                        route, of those with another SL, all with another SL)
#   kr_sweep_after CMD...
#                        console commands to the simulator, then the heavy
#                        sweep after them routed (status 1: none came)
#   kr_wait_swept        until OpenSM's last routed sweep has sent every
#                        table (its SUBNET UP line), up to 30 s
# The normalisers fail on input they find nothing in, so that two empty
# results never compare equal. gawk: mawk lacks strtonum.

kr_plugin_ready() {
	kr_have_sim && [ -e "$KR_PLUGINDIR/libknsroute.so" ] || return 1
	export LD_LIBRARY_PATH="$KR_PLUGINDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

kr_plugin_conf() {
	local file=$1
	shift
	printf '%s\n' "event_plugin_name knsroute" "routing_engine knsroute,minhop" \
		"qos TRUE" "$@" >"$file"
}

kr_plugin_up() {
	kr_plugin_conf "$KR_TMP/opensm.conf"
	kr_start_ibsim "$1"
	kr_start_opensm -F "$KR_TMP/opensm.conf"
	kr_wait_sm "${2:-60}"
}

kr_first_sweep_routed() {
	grep -qF "knsroute: sweep 1: $1" "$KR_OSM_LOG" &&
		! grep -q "ERR KR02" "$KR_OSM_LOG" &&
		grep -q "knsroute tables configured on all switches" "$KR_OSM_LOG"
}

# "LID PORT" for every linked switch port, "LID 0" for switch management
# ports, "LID CA LMC" for CA ports, from an ibnetdiscover capture.
kr_capture_ports() {
	gawk '
	/^Switch/ { sw = 1; match($0, /base port 0 lid [0-9]+/)
		    lid = substr($0, RSTART + 16, RLENGTH - 16); print lid, 0; next }
	/^(Ca|Hca|Rt)/ { sw = 0; next }
	/^\[/ { if (sw) { match($0, /^\[[0-9]+\]/); print lid, substr($0, 2, RLENGTH - 2) }
		else if (match($0, /# lid [0-9]+ lmc [0-9]+/)) {
			split(substr($0, RSTART + 6, RLENGTH - 6), a, " lmc ")
			print a[1], "CA", a[2] } }
	' "$1"
}

kr_readback() {
	kr_sim_try /dev/null "$KR_CLI" capture "$1" --quiet
}

kr_snapshot() {
	kr_readback "$1" &&
		"$KR_CLI" check "$1" --write-lfts "$1/lfts" --write-path-sl "$1/psl" \
			>"$1/check.out" 2>&1 &&
		"$KR_CLI" info --links "$1/topology.net" >"$1/links" &&
		"$KR_CLI" info --nodes "$1/topology.net" >"$1/nodes"
}

kr_stable() {
	python3 "$KR_LIBDIR/ref_stable.py" \
		"$1/nodes" "$1/links" "$1/lfts" "$1/psl" \
		"$2/nodes" "$2/links" "$2/lfts" "$2/psl"
}

kr_sm_args() {
	sed -n 's/^discovery: .*, SM LID \([0-9]*\) SL \([0-9]*\),.*/--sm-lid \1 --sm-sl \2/p' "$1/capture.log" |
		grep . || { echo "# $1/capture.log names no SM" >&2; return 1; }
}

kr_norm_lfts() {
	gawk '
	/^Unicast lids/ { match($0, /guid 0x[0-9a-fA-F]+/); guid = tolower(substr($0, RSTART + 5, RLENGTH - 5)); next }
	/^0x[0-9a-fA-F]+ [0-9]+/ { printf "%s %d %d\n", guid, strtonum($1), $2 + 0; n++ }
	END { exit !n }
	' "$1" | sort
	return "${PIPESTATUS[0]}"
}

kr_norm_sl2vl() {
	gawk '
	/^# SL2VL table: Lid/ { lid = $5; next }
	/^ports: in/ { gsub(/[,:|]/, " "); printf "%d %d %d", lid, $3, $5
		       for (i = 6; i <= NF; i++) printf " %d", $i; printf "\n"; n++; next }
	/base LID/ { match($0, /base LID [0-9]+/); lid = substr($0, RSTART + 9, RLENGTH - 9); next }
	/^[0-9]+ +[0-9]+ +:/ { gsub(/:/, " "); printf "%d %d %d", lid, $1, $2
			       for (i = 3; i <= NF; i++) printf " %d", $i; printf "\n"; n++ }
	END { exit !n }
	' "$1" | sort
	return "${PIPESTATUS[0]}"
}

kr_paths_match() {
	gawk '
	FNR == NR { if ($1 ~ /^#/) next
		    if (NF == 2) sl[strtonum($1)] = strtonum($2)
		    if (NF == 3) psl[strtonum($1) " " strtonum($2)] = strtonum($3)
		    next }
	/slid\.\./ { split($0, a, "."); slid = strtonum(a[length(a)]) }
	/dlid\.\./ { split($0, a, "."); dlid = strtonum(a[length(a)]) }
	/\tsl\.\./ { split($0, a, "."); n++; k = slid " " dlid
		     want = k in psl ? psl[k] : dlid in sl ? sl[dlid] : -1
		     if (want != strtonum(a[length(a)])) bad++ }
	END { if (!n) { print "# no PathRecords" > "/dev/stderr"; exit 1 }
	      if (bad) { printf "# %d of %d PathRecords differ\n", bad, n > "/dev/stderr"; exit 1 } }
	' "$2" "$1"
}

kr_norm_path_sl() {
	gawk '
	FNR == NR { if ($2 == "CA" && $1 > 0) for (i = 0; i < 2 ^ $3; i++) own[$1 + i] = $1
		    next }
	$1 ~ /^#/ { next }
	NF == 2 { sl[strtonum($1)] = strtonum($2) }
	NF == 3 { psl[strtonum($1) " " strtonum($2)] = strtonum($3) }
	END { for (s in own) { if (own[s] != s) continue
		for (d in sl) { if (own[d] == s) continue
			k = s " " d; printf "%d %d %d\n", s, d, k in psl ? psl[k] : sl[d]; n++ } }
	      exit !n }
	' <(kr_capture_ports "$1") "$2" | sort -n
	return "${PIPESTATUS[0]}"
}

kr_norm_topo() {
	gawk '
	/^(Switch|Ca|Hca|Rt)/ { match($0, /"[^"]+"/); node = substr($0, RSTART, RLENGTH)
		if (match($0, /base port 0 lid [0-9]+ lmc [0-9]+/)) {
			split(substr($0, RSTART + 16, RLENGTH - 16), a, " lmc ")
			print node, a[1], a[2]; n++ }
		next }
	/^\[/ { match($0, /^\[[0-9]+\]/); p = substr($0, RSTART, RLENGTH)
		match($0, /"[^"]+"\[[0-9]+\]/); print node p, substr($0, RSTART, RLENGTH)
		if (match($0, /# lid [0-9]+ lmc [0-9]+/)) {
			split(substr($0, RSTART + 6, RLENGTH - 6), a, " lmc ")
			print node p, a[1], a[2] } }
	END { exit !n }
	' "$1" | sort
	return "${PIPESTATUS[0]}"
}

# The number of the last line of OpenSM's log matching ERE $1 (0: none).
kr_log_last() {
	local n
	n=$(grep -nE -- "$1" "$KR_OSM_LOG" | tail -n 1)
	n=${n%%:*}
	echo "${n:-0}"
}

# The line knsroute logs for each sweep it routed (a pattern for grep and
# grep -E alike).
KR_PLANNED='knsroute: sweep [0-9]*: [0-9]* LIDs routed$'

# knsroute's sweep lines in the log (from "knsroute: " on) stay short: the
# longest is the fabric's description. A recognition note quotes the
# fabric and may run longer.
kr_log_short() {
	local max
	max=$(grep -o "knsroute: sweep .*" "$KR_OSM_LOG" | grep -v ": recognition: " |
		awk '{ if (length > m) m = length } END { print m + 0 }')
	echo "# longest sweep line: $max characters"
	[ "$max" -gt 0 ] && [ "$max" -le 128 ]
}

# Waits (up to 30 s) until the last sweep OpenSM routed has ended: it logs
# SUBNET UP once a heavy sweep has sent every table, and a read-back taken
# before would mix old blocks with new ones. The log must stay so for
# 0.3 s, as traps of one change can bring a sweep more.
kr_wait_swept() {
	local calm=0
	for _ in $(seq 300); do
		if [ "$(kr_log_last "SUBNET UP")" -gt \
		     "$(kr_log_last "$KR_PLANNED|ERR KR0[12]")" ]; then
			calm=$((calm + 1))
			[ "$calm" -ge 3 ] && return 0
		else
			calm=0
		fi
		sleep 0.1
	done
	return 1
}

# Forces a heavy sweep of the opensm we started and waits for knsroute's
# repair line about sweep $1 (plugin_fault.sh, plugin_ksub_fault.sh), then
# for the sweep to end.
kr_resweep() {
	local n=$1
	kill -HUP "$KR_OSM_PID"
	for _ in $(seq 300); do
		grep -q "knsroute: sweep $n: repair:" "$KR_OSM_LOG" && break
		grep -q "ERR KR02" "$KR_OSM_LOG" && break
		sleep 0.1
	done
	kr_wait_swept
	grep -q "knsroute: sweep $n: repair:" "$KR_OSM_LOG"
}

# Sends each argument to the simulator (console commands), forces a heavy
# sweep of the opensm we started and waits for knsroute's plan line of the
# sweep after (or its refusal, ERR KR01/KR02), then for the sweep to end
# (kr_wait_swept). Status 1 when no such sweep came.
kr_sweep_after() {
	local plans refused cmd

	plans=$(grep -c "$KR_PLANNED" "$KR_OSM_LOG")
	refused=$(grep -c "ERR KR0[12]" "$KR_OSM_LOG")
	for cmd in "$@"; do
		kr_ibsim_cmd "$cmd" || return 1
	done
	kill -HUP "$KR_OSM_PID"
	for _ in $(seq 300); do
		[ "$(grep -c "$KR_PLANNED" "$KR_OSM_LOG")" -gt "$plans" ] ||
			[ "$(grep -c "ERR KR0[12]" "$KR_OSM_LOG")" -gt "$refused" ] && break
		sleep 0.1
	done
	kr_wait_swept
	[ "$(grep -c "$KR_PLANNED" "$KR_OSM_LOG")" -gt "$plans" ]
}

# The check on a read-back, with every pair's path SL from the SA and every
# SL2VL map: every pair delivered, no credit loop (needs jq).
kr_check_rb() {
	local dir=$1
	kr_readback "$dir" &&
		"$KR_CLI" check "$dir" --json >"$dir/check.json" 2>"$dir/check.err" &&
		jq -e '.undelivered == 0 and .delivered > 0' "$dir/check.json" >/dev/null
}
