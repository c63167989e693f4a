# Sourced after lib.sh: run opensm with the knsroute plugin, read what it
# programmed into the simulated fabric, and compare it with a dry run.
#
#   kr_plugin_ready      status 0 when ibsim, opensm and the built plugin are
#                        there; exports LD_LIBRARY_PATH so opensm finds it
#   kr_plugin_conf FILE [LINE...]
#                        an opensm.conf as an admin writes it (load the
#                        plugin, knsroute then minhop, QoS on) plus LINEs
#
#   kr_readback DIR      ibnetdiscover -> DIR/capture.net, ibroute of every
#                        switch -> DIR/lfts, smpquery sl2vl of every switch
#                        out port and CA port -> DIR/sl2vl, saquery -p for
#                        every (CA port, destination LID) pair -> DIR/paths
#                        (one query per pair: ibsim cuts multi-packet SA
#                        answers, so a plain `saquery -p` lists a few);
#                        every query goes through kr_sim_try, so a
#                        transient timeout is retried and a lasting one
#                        leaves the tool's stderr in the log; status 1 then
#                        With KR_RB_PER_DLID=1: one PathRecord per
#                        destination LID instead, and DIR/path-sl with
#                        their "dlid sl" lines (kr_readback_per_dlid)
#   kr_norm_lfts FILE    "GUID LID PORT" lines, sorted, from ibroute output
#                        or opensm-lfts.dump
#   kr_norm_sl2vl FILE   "LID IN OUT VL0..VL15" lines, sorted, from
#                        smpquery sl2vl output or opensm-sl2vl.dump
#   kr_paths_match PATHS PATHSL
#                        status 0 when every PathRecord's SL in PATHS
#                        (saquery -p) equals the path-sl file's SL for its
#                        DLID (path-sl "dlid sl" lines only)
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
	local dir=$1 lid port lmc src dst i
	local -a srcs=() dsts=()
	mkdir -p "$dir"
	: >"$dir/capture.net"
	: >"$dir/lfts"
	: >"$dir/sl2vl"
	: >"$dir/paths"
	kr_sim_try "$dir/capture.net" ibnetdiscover || return 1
	while read -r lid port lmc; do
		case $port in
		0) kr_sim_try "$dir/lfts" ibroute "$lid" || return 1
		   kr_sim_try "$dir/sl2vl" smpquery sl2vl "$lid" 0 || return 1
		   dsts+=("$lid") ;;
		CA) kr_sim_try "$dir/sl2vl" smpquery sl2vl "$lid" || return 1
		    srcs+=("$lid")
		    for i in $(seq 0 $(( (1 << lmc) - 1 ))); do dsts+=($((lid + i))); done ;;
		*) kr_sim_try "$dir/sl2vl" smpquery sl2vl "$lid" "$port" || return 1 ;;
		esac
	done < <(kr_capture_ports "$dir/capture.net")
	if [ "${KR_RB_PER_DLID:-0}" = 1 ]; then
		kr_readback_per_dlid "$dir" || return 1
		return 0
	fi
	for src in "${srcs[@]}"; do
		for dst in "${dsts[@]}"; do
			[ "$src" = "$dst" ] && continue
			kr_sim_try "$dir/paths" saquery -p --src-to-dst "$src:$dst" ||
				return 1
		done
	done
}

# One PathRecord per destination LID, the sources taken in turn, and their
# SLs as a path-sl file ("dlid sl"): for engines whose SL depends on the
# destination alone (knsroute, as long as no repair moved single pairs to a
# detour layer), a read-back in a tenth of the queries.
# Uses kr_readback's srcs and dsts.
kr_readback_per_dlid() {
	local dir=$1 i=0 src dst
	for dst in "${dsts[@]}"; do
		src=${srcs[i % ${#srcs[@]}]}
		[ "$src" = "$dst" ] && src=${srcs[(i + 1) % ${#srcs[@]}]}
		i=$((i + 1))
		kr_sim_try "$dir/paths" saquery -p --src-to-dst "$src:$dst" ||
			return 1
	done
	gawk '/dlid\.\./ { split($0, a, "."); d = strtonum(a[length(a)]) }
	      /\tsl\.\./ { split($0, a, "."); print d, strtonum(a[length(a)]) }' \
		"$dir/paths" | sort -un >"$dir/path-sl"
	[ -s "$dir/path-sl" ]
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
	FNR == NR { if ($1 !~ /^#/ && NF == 2) sl[strtonum($1)] = strtonum($2); next }
	/dlid\.\./ { split($0, a, "."); dlid = strtonum(a[length(a)]) }
	/\tsl\.\./ { split($0, a, "."); n++
		     if (!(dlid in sl) || sl[dlid] != strtonum(a[length(a)])) bad++ }
	END { if (!n) { print "# no PathRecords" > "/dev/stderr"; exit 1 }
	      if (bad) { printf "# %d of %d PathRecords differ\n", bad, n > "/dev/stderr"; exit 1 } }
	' "$2" "$1"
}
