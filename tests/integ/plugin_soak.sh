#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Faults that pile up and clear in a seeded random order under a running
# opensm with knsroute: cables between switches and whole switches go
# down, several at a time, and come back, on shuffled fabrics of odd sizes
# (a 3x5 torus, whose rings have no halves, and a 3-ary 2-direct KNS).
# After every sweep knsroute must have routed the fabric itself (no
# fallback, no error but the KR07 warning), and the tables read back from
# the simulator must deliver every pair and have no credit loop; whenever
# everything is back, the first tables return. Then OpenSM restarts with
# what is still down: from the tables cache its first sweep installs the
# tables and SLs in force before (with these faults a repair from scratch
# happens to give the same; plugin_second_fault.sh has faults where it
# does not, so this guards the cache's reading). The SM's own switch (the
# simulator's first node is or hangs off it) keeps its cables: without
# them the SM would see nothing else.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

STEPS=8
FABRICS=("torus --dims 3x5 --p 2 --shuffle 11" "kns --k 3 --n 2 --p 2 --shuffle 23")
SEEDS=(15 17)	# each mixes cables, whole switches and returns
kr_plan $(( ${#FABRICS[@]} * (STEPS + 3) ))
kr_tmpdir
if ! kr_plugin_ready || ! command -v jq >/dev/null; then
	kr_skip_rest "needs ibsim, opensm, jq and a built plugin"
	kr_done
fi

# "NAME PORT" of every switch port cabled to another switch in net $1,
# but the SM's switch $2's own (cutting them all would cut the SM off).
switch_links() {
	awk -v sm="$2" '
	NR == FNR { if ($1 == "Switch") { split($0, q, "\""); sw[q[2]] = 1 } next }
	$1 == "Switch" { split($0, q, "\""); cur = q[2]; next }
	/^[A-Za-z]/ { cur = "" }
	/^\[/ && cur != "" && cur != sm { split($2, r, "\"")
		if ((r[2] in sw) && r[2] != sm)
			print cur, substr($1, 2, index($1, "]") - 2) }' "$1" "$1" | sort
}

# The switch the simulator's first node is or hangs off: the SM's.
sm_switch() {
	awk '/^(Switch|Ca)/ { split($0, q, "\""); if ($1 == "Switch") { print q[2]; exit }
			      ca = 1; next }
	     ca && /^\[/ { split($2, r, "\""); print r[2]; exit }' "$1"
}

# The console command bringing "NAME PORT" ($1; PORT all: the switch) back.
relink() {
	local name port

	read -r name port <<<"$1"
	if [ "$port" = all ]; then
		echo "ReLink \"$name\""
	else
		echo "ReLink \"$name\"[$port]"
	fi
}

for ((fi = 0; fi < ${#FABRICS[@]}; fi++)); do
	gen=${FABRICS[$fi]}
	net="$KR_TMP/f$fi.net"
	# shellcheck disable=SC2086
	"$KR_CLI" gen $gen -o "$net"
	sm=$(sm_switch "$net")
	mapfile -t links < <(switch_links "$net" "$sm")
	kr_plugin_conf "$KR_TMP/opensm.conf"
	kr_start_ibsim "$net" && kr_start_opensm -F "$KR_TMP/opensm.conf" &&
		kr_wait_sm 60 && kr_check_rb "$KR_TMP/r$fi.0" &&
		kr_norm_lfts "$KR_TMP/r$fi.0/lfts.dump" >"$KR_TMP/lft$fi.0"
	kr_ok $? "$gen: routed and checked intact"
	RANDOM=${SEEDS[$fi]}
	down=()
	for ((i = 1; i <= STEPS; i++)); do
		if [ ${#down[@]} -gt 0 ] && [ $((RANDOM % 3)) = 0 ]; then
			j=$((RANDOM % ${#down[@]}))
			cmd=$(relink "${down[$j]}")
			down=("${down[@]:0:$j}" "${down[@]:$((j + 1))}")
		else
			read -r name port <<<"${links[$((RANDOM % ${#links[@]}))]}"
			if [ $((RANDOM % 4)) = 0 ]; then
				port=all
				cmd="Unlink \"$name\""
			else
				cmd="Unlink \"$name\"[$port]"
			fi
			down+=("$name $port")
		fi
		kr_sweep_after "$cmd"
		errs=$(grep "ERR KR" "$KR_OSM_LOG" | grep -v "ERR KR07" | head -3)
		[ -z "$errs" ] && kr_check_rb "$KR_TMP/r$fi.$i" &&
			{ [ ${#down[@]} -gt 0 ] ||
			  kr_norm_lfts "$KR_TMP/r$fi.$i/lfts.dump" | cmp -s - "$KR_TMP/lft$fi.0"; }
		kr_ok $? "$gen: step $i, $cmd (${#down[@]} down): checked${errs:+; $errs}"
	done
	last="$KR_TMP/r$fi.$STEPS"
	mv "$KR_OSM_LOG" "$KR_OSM_LOG.$fi"
	kr_stop_opensm && kr_start_opensm -F "$KR_TMP/opensm.conf" &&
		kr_wait_sm 60 && sleep 1 && kr_check_rb "$KR_TMP/r$fi.restart" &&
		grep -q "knsroute: sweep 1: tables in force from" "$KR_OSM_LOG" &&
		cmp -s <(kr_norm_lfts "$last/lfts.dump") \
			<(kr_norm_lfts "$KR_TMP/r$fi.restart/lfts.dump") &&
		cmp -s <(kr_norm_path_sl "$last/topology.net" "$last/path-sl") \
			<(kr_norm_path_sl "$KR_TMP/r$fi.restart/topology.net" \
				"$KR_TMP/r$fi.restart/path-sl")
	kr_ok $? "$gen: OpenSM restarted with ${#down[@]} down: the tables and SLs in force before"
	# everything back: the first tables again
	back=()
	for d in "${down[@]}"; do
		back+=("$(relink "$d")")
	done
	kr_sweep_after "${back[@]}"
	kr_check_rb "$KR_TMP/r$fi.end" &&
		kr_norm_lfts "$KR_TMP/r$fi.end/lfts.dump" | cmp -s - "$KR_TMP/lft$fi.0"
	kr_ok $? "$gen: all back after ${#down[@]} still down: the first tables again"
	kr_stop_opensm
	kr_stop_ibsim
	rm -rf "$KR_OSM_DIR"
done
kr_done
