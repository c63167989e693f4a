#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Multicast end to end: stock opensm with the knsroute plugin on ibsim; every
# CA joins the IPoIB broadcast group of the default partition and half of
# them a second group, with real MCMemberRecord joins through the SA
# (tests/integ/mcjoin, one run per CA under umad2sim). The MFTs read back
# from every switch with `ibroute -M` must be the trees knsroute logged:
# equal to `knsroute route --mcast-groups` on the captured fabric, and to
# OpenSM's own opensm.mcfdbs dump. A group on a unicast SL gets no tree and
# an ERR line with the fix, and so does every group with qos FALSE; after a
# link fails the trees are rebuilt around it. (osmtest cannot do the joins: its multicast flow joins from one port
# and deletes every group it made before it exits.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

MCJOIN="$KR_BUILDDIR/tests/integ/mcjoin"
BCAST=ff12:401b:ffff::ffff:ffff
SECOND=ff12:601b:ffff::1:1
FABRICS=(
	"torus44|torus --dims 4x4 --p 1"
	"kns42|kns --k 4 --n 2 --p 1"
)
CASES_PER_FABRIC=9

kr_plan $(( ${#FABRICS[@]} * CASES_PER_FABRIC + 6 ))
kr_tmpdir
if ! kr_plugin_ready || [ ! -x "$KR_CLI" ] || [ ! -x "$MCJOIN" ]; then
	kr_skip_rest "needs ibsim, opensm, infiniband-diags, the plugin and mcjoin"
	kr_done
fi

# "GUID MLID PORT" lines, sorted, from `ibroute -M` of every switch in the
# capture (port p's column sits under its label in the "Ports:" line).
read_mfts() {
	local cap=$1 out=$2 lid guid
	: >"$out"
	while read -r lid guid; do
		kr_sim_try "$out.raw" ibroute -M "$lid" || return 1
		awk -v g="$guid" '
		/Ports:/ { base = index($0, "Ports:") + 7; next }
		/^0x[0-9a-fA-F]+ / {
			for (c = base; c <= length($0); c += 2)
				if (substr($0, c, 1) == "x")
					printf "%s 0x%04x %d\n", g, strtonum($1), (c - base) / 2
		}' "$out.raw" >>"$out"
		rm -f "$out.raw"
	done < <(awk '/^Switch/ { match($0, /lid [0-9]+/);
		print substr($0, RSTART + 4, RLENGTH - 4), substr($3, 1) }' "$cap" |
		sed 's/^\([0-9]*\) "S-\(.*\)"$/\1 0x\2/')
	sort -o "$out" "$out"
}

# The same lines from an opensm.mcfdbs file.
norm_mcfdbs() {
	awk '/^Switch/ { g = tolower($2); next }
	/^0x[0-9A-Fa-f]+ :/ { for (i = 3; i <= NF; i++)
		printf "%s 0x%04x %d\n", g, strtonum($1), strtonum($i) }' "$1" |
		sort
}

# Every CA joins the broadcast group, every other one also SECOND; groups
# file lines "MLID SL PORTGUID..." for the dry run.
join_all() {
	local net=$1 dir=$2 i=0 name out ok=0
	: >"$dir/joins"
	while read -r name; do
		out=$(SIM_HOST="$name" kr_sim "$MCJOIN" ibsim0 1 "$BCAST" 2>>"$dir/join.err") || ok=1
		echo "$out" >>"$dir/joins"
		if [ $((i % 2)) -eq 0 ]; then
			out=$(SIM_HOST="$name" kr_sim "$MCJOIN" ibsim0 1 "$SECOND" 0 2>>"$dir/join.err") || ok=1
			echo "$out" >>"$dir/joins"
		fi
		i=$((i + 1))
	done < <(sed -n 's/^Ca[ \t]*[0-9]* "\([^"]*\)".*/\1/p' "$net")
	awk '{ m[$1] = m[$1] " " $2 } END { for (g in m) print g, 0 m[g] }' \
		"$dir/joins" | sort >"$dir/groups"
	return $ok
}

# OpenSM works joins off at idle time: wait until the log's last multicast
# line of sweep N (default 1) names both groups, then a little for the MFT
# blocks to go out.
wait_groups() {
	local i
	for i in $(seq 200); do
		tail -n 1 < <(grep "knsroute: sweep ${1:-1}: multicast:" "$KR_OSM_LOG") |
			grep -q "2 groups with trees" && { sleep 1; return 0; }
		sleep 0.1
	done
	return 1
}

# Trees in the switches = the dry run's on the captured fabric = OpenSM's dump.
# The SM's switch roots the trees: the dry run is told where it is, from a
# capture (which union_ok checks).
trees_match() {
	local dir=$1 tag=$2 sm
	kr_sim_try "$dir/$tag.net" ibnetdiscover >/dev/null || return 1
	read_mfts "$dir/$tag.net" "$dir/$tag.rb" || return 1
	kr_readback "$dir/$tag.cap" && sm=$(kr_sm_args "$dir/$tag.cap") || return 1
	# shellcheck disable=SC2086
	"$KR_CLI" route "$dir/$tag.net" --mcast-groups "$dir/groups" $sm \
		--out "$dir/$tag.dry" >"$dir/$tag.route.out" 2>&1 || return 1
	norm_mcfdbs "$dir/$tag.dry/opensm.mcfdbs" >"$dir/$tag.want"
	[ -s "$dir/$tag.want" ] && diff "$dir/$tag.want" "$dir/$tag.rb" >"$dir/$tag.diff"
}

# The union of what the fabric holds: trees_match's capture (LFTs, SL2VL
# maps, every pair's path SL, the SM the ports were told of), OpenSM's MFT
# dump (equal to ibroute -M, checked above) and the SA's group SLs;
# knsroute check must find every class clean, the SA's traffic included.
union_ok() {
	local dir=$1 tag=$2 sm
	sm=$(kr_sm_args "$dir/$tag.cap") &&
		kr_sim_try "$dir/$tag.groups" saquery -g >/dev/null &&
		# shellcheck disable=SC2086
		"$KR_CLI" check "$dir/$tag.cap" $sm --mfts "$KR_OSM_DIR/opensm.mcfdbs" \
			--mcast-sl "$dir/$tag.groups" --json >"$dir/$tag.union.json" \
			2>"$dir/$tag.union.err" &&
		jq -e '.multicast.groups == 2 and .verdict == "ok" and .sa.pairs > 0 and
		       .classes.multicast.verdict == "ok" and
		       .classes.all.verdict == "ok"' "$dir/$tag.union.json" >/dev/null ||
		{ sed 's/^/# /' "$dir/$tag.union.err" 2>/dev/null | head -5; return 1; }
}

run_fabric() {
	local name=$1 gen=$2 dir="$KR_TMP/$1" ok
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	"$KR_CLI" gen $gen -o "$dir/fabric.net"
	kr_plugin_conf "$dir/opensm.conf"
	if ! kr_start_ibsim "$dir/fabric.net"; then
		for _ in $(seq $CASES_PER_FABRIC); do kr_ok 1 "$name: ibsim"; done
		return
	fi
	rm -rf "$KR_TMP/osm"
	kr_start_opensm -F "$dir/opensm.conf" -D 0x43
	kr_wait_sm 90
	grep -q "SL 0: multicast (VL" "$KR_OSM_LOG" && ! grep -q "ERR KR0" "$KR_OSM_LOG"
	kr_ok $? "$name: knsroute routed and keeps SL 0 for multicast"

	join_all "$dir/fabric.net" "$dir"
	ok=$?
	[ $ok -eq 0 ] || sed 's/^/# /' "$dir/join.err" | head -5
	kr_ok $ok "$name: every CA joined through the SA (MCMemberRecord SubnAdmSet)"

	kr_sim_try "$dir/groups.sa" saquery -g >/dev/null &&
		[ "$(grep -c 'SL.*0x0$' "$dir/groups.sa")" -eq 2 ] &&
		[ "$(wc -l <"$dir/groups")" -eq 2 ]
	kr_ok $? "$name: saquery -g lists both groups on SL 0"

	wait_groups
	kr_ok $? "$name: knsroute logged trees for both groups"
	for _ in $(seq 50); do
		grep -q "check passed for unicast and 2 multicast trees together" \
			"$KR_OSM_LOG" && break
		sleep 0.1
	done
	grep -q "check passed for unicast and 2 multicast trees together" \
		"$KR_OSM_LOG" && ! grep -q "ERR KR10" "$KR_OSM_LOG"
	kr_ok $? "$name: the plugin's own check proves unicast and both trees together"

	trees_match "$dir" rb
	ok=$?
	[ $ok -eq 0 ] && cmp -s <(norm_mcfdbs "$KR_OSM_DIR/opensm.mcfdbs") "$dir/rb.want"
	ok=$((ok | $?))
	[ $ok -eq 0 ] || head -5 "$dir/rb.diff" "$dir/rb.route.out" 2>/dev/null | sed 's/^/# /'
	kr_ok $ok "$name: ibroute -M = knsroute route --mcast-groups = OpenSM's opensm.mcfdbs"
	union_ok "$dir" rb
	kr_ok $? "$name: knsroute check proves unicast + both trees credit-loop-free on what the fabric holds"

	# the first tree link between switches fails; a heavy sweep rebuilds
	# the trees around it. The trees hang from the SM's switch, so the link
	# is the SM's: routes from it that the repair would make climb again
	# take another SL (the SA's answers ride the trees' VL), which ERR KR07
	# may report; any other error fails.
	local link
	link=$(awk 'NR == FNR { g = $1; sub(/^0x0*/, "", g); want[g " " $3] = 1; next }
		/^switchguid=/ { split($1, a, /[=(]/); g = a[2]; sub(/^0x0*/, "", g) }
		/^Switch/ { match($0, /"[^"]*"/); n = substr($0, RSTART, RLENGTH) }
		/^\[/ && $2 ~ /^"(switch|router|xbar)/ {
			p = substr($1, 2, length($1) - 2)
			if ((g " " p) in want) { print n "[" p "]"; exit }
		}' "$dir/rb.want" "$dir/fabric.net")
	ok=1
	if [ -n "$link" ] && kr_ibsim_cmd "Unlink $link"; then
		kill -HUP "$KR_OSM_PID"
		wait_groups 2 && trees_match "$dir" fault &&
			! grep -q "ERR KR0[^7]\|ERR KR1" "$KR_OSM_LOG"
		ok=$?
	fi
	[ $ok -eq 0 ] || head -5 "$dir/fault.diff" 2>/dev/null | sed 's/^/# /'
	kr_ok $ok "$name: after link $link fails, the installed trees are the dry run's on the faulty fabric"
	union_ok "$dir" fault
	kr_ok $? "$name: and unicast + trees are still proven credit-loop-free"

	kr_stop_opensm
	kr_stop_ibsim
}

for f in "${FABRICS[@]}"; do
	IFS='|' read -r name gen <<<"$f"
	run_fabric "$name" "$gen"
done

# partitions.conf puts the broadcast group on SL 3, a unicast SL of the
# plan: no tree, and the log says which SL to configure.
dir="$KR_TMP/sl3"
mkdir -p "$dir"
"$KR_CLI" gen torus --dims 4x4 --p 1 -o "$dir/fabric.net"
printf 'Default=0x7fff, ipoib, sl=3 : ALL=full ;\n' >"$dir/partitions.conf"
kr_plugin_conf "$dir/opensm.conf" "partition_config_file $dir/partitions.conf"
kr_start_ibsim "$dir/fabric.net"
rm -rf "$KR_TMP/osm"
kr_start_opensm -F "$dir/opensm.conf"
kr_wait_sm 90
name=$(sed -n 's/^Ca[ \t]*[0-9]* "\([^"]*\)".*/\1/p' "$dir/fabric.net" | head -1)
SIM_HOST="$name" kr_sim "$MCJOIN" ibsim0 1 "$BCAST" >/dev/null 2>&1
kr_ok $? "SL 3 group: the SA still accepts the join"
for i in $(seq 50); do
	grep -q "ERR KR08" "$KR_OSM_LOG" && break
	sleep 0.1
done
grep "ERR KR08" "$KR_OSM_LOG" | grep -q "$BCAST.*SL 3 is a unicast SL.*give the group sl=0 in partitions.conf"
kr_ok $? "SL 3 group: ERR KR08 names the group and the SL to configure"
grep -q "knsroute: sweep 1: multicast: 0 groups with trees .*1 refused" "$KR_OSM_LOG"
kr_ok $? "SL 3 group: the multicast line counts it refused"
kr_sim_try "$dir/cap.net" ibnetdiscover >/dev/null && read_mfts "$dir/cap.net" "$dir/mfts" &&
	[ ! -s "$dir/mfts" ]
kr_ok $? "SL 3 group: no switch holds an MFT entry for it"
kr_stop_opensm
kr_stop_ibsim

# Between sweeps OpenSM rebuilds only the groups whose members changed:
# a join to a group below the highest MLID must be checked too (the check
# once waited for the highest MLID's tree, which such a pass never builds).
dir="$KR_TMP/idle"
mkdir -p "$dir"
"$KR_CLI" gen mesh --dims 4x3 --p 1 -o "$dir/fabric.net"
kr_plugin_conf "$dir/opensm.conf"
kr_start_ibsim "$dir/fabric.net"
rm -rf "$KR_TMP/osm"
kr_start_opensm -F "$dir/opensm.conf"
kr_wait_sm 90
mapfile -t cas < <(sed -n 's/^Ca[ \t]*[0-9]* "\([^"]*\)".*/\1/p' "$dir/fabric.net")
trees3() { grep -c "check passed for unicast and 3 multicast trees together" "$KR_OSM_LOG"; }
ok=1
if m2=$(SIM_HOST="${cas[0]}" kr_sim "$MCJOIN" ibsim0 1 "$SECOND" 0 2>>"$dir/join.err") &&
	m3=$(SIM_HOST="${cas[0]}" kr_sim "$MCJOIN" ibsim0 1 "ff12:601b:ffff::1:3" 0 2>>"$dir/join.err"); then
	for _ in $(seq 100); do [ "$(trees3)" -gt 0 ] && break; sleep 0.1; done
	before=$(trees3)
	low=$SECOND
	[ $((${m2%% *})) -lt $((${m3%% *})) ] || low=ff12:601b:ffff::1:3
	if [ "$before" -gt 0 ] &&
		SIM_HOST="${cas[1]}" kr_sim "$MCJOIN" ibsim0 1 "$low" >/dev/null 2>>"$dir/join.err"; then
		for _ in $(seq 100); do [ "$(trees3)" -gt "$before" ] && break; sleep 0.1; done
		[ "$(trees3)" -gt "$before" ] && ! grep -q "ERR KR10" "$KR_OSM_LOG" &&
			tail -n 1 < <(grep "check passed for unicast and 3 multicast trees" "$KR_OSM_LOG") |
			grep -q "together (the trees against the sweep's proof)$"
		ok=$?
	fi
fi
[ $ok -eq 0 ] || sed 's/^/# /' "$dir/join.err" | head -5
kr_ok $ok "a join between sweeps to a group below the highest MLID: its tree is checked with the rest (the trees against the sweep's proof)"
kr_stop_opensm
kr_stop_ibsim

# qos FALSE: every SL rides VL 0 with unicast, so the broadcast group
# OpenSM creates gets no tree, and the log says to set qos TRUE.
dir="$KR_TMP/noqos"
mkdir -p "$dir"
"$KR_CLI" gen mesh --dims 4x3 --p 1 -o "$dir/fabric.net"
kr_plugin_conf "$dir/opensm.conf" "qos FALSE"
kr_start_ibsim "$dir/fabric.net"
rm -rf "$KR_TMP/osm"
kr_start_opensm -F "$dir/opensm.conf"
kr_wait_sm 90
grep "ERR KR08" "$KR_OSM_LOG" | grep -q "$BCAST.*no tree installed (qos is FALSE.*set qos TRUE)"
kr_ok $? "qos FALSE: the broadcast group gets no tree, ERR KR08 says to set qos TRUE"
kr_stop_opensm
kr_stop_ibsim

kr_done
