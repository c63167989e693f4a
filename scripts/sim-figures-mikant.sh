# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Sourced by scripts/sim-figures.sh: the MiKANT figure, a MiKANT against
# a folded Clos of as many CAs (the Clos routed by OpenSM's ftree on
# ibsim). Uses the script's k, say, md, plot, quick, jobs and the
# OpenSM helpers of tests/integ/lib.sh it sources.

# The Clos: ftree's tables in OpenSM on ibsim, read back into DIR. The
# LIDs are the generator's (--lids, handed to OpenSM as its guid2lid
# cache), so CA indices in LID order are the addresses' order as in the
# MiKANT's dry run, and complement is the slides' bit inversion.
clos_ftree() {
	local net=$1 dir=$2 rc=0
	say "    ibsim -s ${net##*/}; opensm -R ftree -Q, its guid2lid cache the LIDs of ${net##*/}" \
	    "    knsroute capture ${dir##*/} --no-path-sl"
	kr_have_sim || { echo "sim-figures.sh: mikant needs ibsim and opensm" >&2; exit 2; }
	kr_start_ibsim "$net" || return 1
	rm -rf "$KR_TMP/osm"
	kr_osm_dirs
	gawk '/^switchguid=/ { g = strtonum(substr($1, 12)) }
	/^Switch/ { match($0, /base port 0 lid [0-9]+/); l = substr($0, RSTART + 16, RLENGTH - 16)
		printf "0x%016x 0x%04x 0x%04x\n", g, l, l }
	/^Ca/ { ca = 1 }
	ca && /^\[1\]\(/ { match($0, /\([0-9a-f]+\)/); g = strtonum("0x" substr($0, RSTART + 1, RLENGTH - 2))
		match($0, /# lid [0-9]+/); l = substr($0, RSTART + 6, RLENGTH - 6)
		printf "0x%016x 0x%04x 0x%04x\n", g, l, l; ca = 0 }' \
		"$net" >"$KR_OSM_DIR/guid2lid"
	kr_start_opensm -R ftree -Q
	kr_wait_sm 900 && grep -q "ftree tables configured" "$KR_OSM_LOG" &&
		kr_sim_try /dev/null "$K" capture "$dir" --no-path-sl --quiet || rc=1
	kr_stop_opensm
	kr_stop_ibsim
	return $rc
}

# in_address_order TOPOLOGY: the CA ports by LID have rising GUIDs, which
# the unshuffled generator gives in address order.
in_address_order() {
	gawk '/^(Ca|Hca)/ { ca = 1; next }
	ca && /^\[1\]\(/ { match($0, /\([0-9a-f]+\)/); g = strtonum("0x" substr($0, RSTART + 1, RLENGTH - 2))
		match($0, /# lid [0-9]+/); at[substr($0, RSTART + 6, RLENGTH - 6) + 0] = g; ca = 0 }
	END { n = asorti(at, lid, "@ind_num_asc")
		for (i = 2; i <= n; i++) if (at[lid[i]] <= at[lid[i - 1]]) exit 1 }' "$1"
}

# mk_sweep DIR PATTERN OUT.csv: the loads, each measured for 200 packets'
# time per CA at its rate (the slides stop at 200 packets per source),
# KR_JOBS at once, rows in load order.
mk_sweep() {
	local l i=0
	for l in ${MK_LOADS//,/ }; do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
		"$K" sim "$1" "${MK_SIM[@]}" --pattern "$2" --load "$l" \
			--cycles "$(awk -v l="$l" 'BEGIN { printf "%d", 200 * 16 / l }')" \
			--csv >"$3.$i" &
		i=$((i + 1))
	done
	wait
	for l in $(seq 0 $((i - 1))); do
		sed "$([ "$l" = 0 ] || echo 1d)" "$3.$l"
	done >"$3"
}

mikant() {
	local k=4 n=5 p
	MK_LOADS=0.05,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0
	MK_SIM=(--packet 16 --buffer-vl 64 --route-delay 4 --latency 1)
	[ -n "$quick" ] && { n=3; MK_LOADS=0.1,0.3,0.6,1.0; }
	say "" "## MiKANT against a folded Clos (ScalCom 2018 slides)" "" \
	    "The slides compare MiKANT(k=4, n=5) with a Clos network of as many" \
	    "nodes under uniform and bit-inversion traffic, loads 0.05 to 1.00," \
	    "each run until every source has 200 packets delivered. Here: the" \
	    "MiKANT routed by knsroute, one route per pair as Algorithm 1" \
	    "(\`--classify none\`: VL 1 only for the second hop across the" \
	    "top, which deadlock freedom needs); the folded Clos of the same" \
	    "$((2 * k ** n)) CAs and groups (\`knsroute gen clos\`, radix $((2 * k))," \
	    "$(((2 * n - 1) * k ** (n - 1))) switches against the MiKANT's $(((2 * n - 2) * k ** (n - 1))))" \
	    "routed by OpenSM's ftree on ibsim, all on VL 0. The slides give no" \
	    "packet length, buffer or router delay and switch wormhole with" \
	    "32-bit flits; the simulator switches cut-through, with F8's" \
	    "parameters: 16-credit packets, 4 packets per input FIFO and VL, a" \
	    "4-cycle router, 1-cycle links. Each load runs 200 packets' time" \
	    "per CA at its rate (3,200 / load cycles) after the warm-up, so" \
	    "past saturation fewer than 200 per source arrive. Bit inversion" \
	    "is \`--pattern complement\`: both fabrics number their CAs in" \
	    "address order (checked), where CA N-1-i has every base-4 digit" \
	    "and the group of CA i inverted." ""
	say "    knsroute gen mikant --k $k --n $n -o mk.net" \
	    "    knsroute route mk.net --classify none --out mk"
	[ -d mk ] || { "$K" gen mikant --k $k --n $n -o mk.net &&
		"$K" route mk.net --classify none --out mk >/dev/null 2>&1; }
	k gen clos --k $k --n $n --lids -o clos.net
	[ -d clos ] || clos_ftree "$W/clos.net" "$W/clos" || {
		echo "sim-figures.sh: ftree's tables for the Clos: no capture" >&2
		exit 2
	}
	in_address_order mk/topology.net && in_address_order clos/topology.net || {
		echo "sim-figures.sh: CA LIDs not in address order" >&2
		exit 2
	}
	say "    for L in ${MK_LOADS//,/ }; do" \
	    "        knsroute sim mk|clos ${MK_SIM[*]} --pattern uniform|complement \\" \
	    "            --load \$L --cycles \$(awk -v l=\$L 'BEGIN { print int(3200 / l) }') --csv" \
	    "    done"
	for p in uniform complement; do
		mk_sweep mk "$p" "mk-$p.csv"
		mk_sweep clos "$p" "clos-$p.csv"
	done
	"$K" check mk --json >mk-check.json 2>/dev/null || true
	"$K" check clos --json >clos-check.json 2>/dev/null || true
	say "" "| fabric | link load max/mean | uniform: latency at ${MK_LOADS%%,*} | saturation | bit inversion: latency at ${MK_LOADS%%,*} | saturation |" \
	    "|---|---|---|---|---|---|"
	for p in mk clos; do
		say "| $([ $p = mk ] && echo "MiKANT($k,$n), knsroute" || echo "Clos, ftree") | $(jq -r '.links.max / .links.mean * 100 | round / 100' "$p-check.json") | $(awk -F, 'NR == 2 { printf "%.1f", $6 }' "$p-uniform.csv") | $(peak "$p-uniform.csv") | $(awk -F, 'NR == 2 { printf "%.1f", $6 }' "$p-complement.csv") | $(peak "$p-complement.csv") |"
	done
	say "" "Link load: CA-to-CA routes per directed link between switches" \
	    "(\`knsroute check\`), the busiest over the mean. Saturation: the" \
	    "highest accepted traffic of the loads. A bound for the MiKANT's" \
	    "bit inversion: the $((k ** (n - 1))) CAs under one top digit of a group all send" \
	    "to those under the inverse digit in the other group, and the two" \
	    "blocks of top switches are joined by $((k ** (n - 2))) links, so no minimal" \
	    "routing accepts more than 1/k = $(awk -v k=$k 'BEGIN { print 1 / k }') of link rate per CA; in the" \
	    "Clos the same traffic spreads over the whole middle stage." \
	    "" "Mean latency (cycles from generation) against offered load:" "" \
	    '```' "$(paste -d, mk-uniform.csv clos-uniform.csv mk-complement.csv clos-complement.csv |
		awk -F, 'function f(x) { return x > 0 ? sprintf("%.1f", x) : "-" }
		NR == 1 { print "load   MiKANT-uniform  Clos-uniform  MiKANT-inversion  Clos-inversion"; next }
		{ printf "%-6s %14s %13s %17s %15s\n", $2, f($6), f($21), f($36), f($51) }')" '```' "" \
	    "A dash: none of the packets made in the measured window arrived" \
	    "in it (far past saturation, where the queues at the CAs hold" \
	    "more than the window's worth)."
	PLOT_Y=6 PLOT_SET="set logscale y" plot mikant.svg \
		"MiKANT($k,$n) and the folded Clos of $((2 * k ** n)) CAs" \
		"mean latency (cycles)" mk-uniform.csv:"MiKANT, uniform" \
		clos-uniform.csv:"Clos, uniform" mk-complement.csv:"MiKANT, bit inversion" \
		clos-complement.csv:"Clos, bit inversion"
	say "" "![MiKANT against Clos](sim/mikant.svg)"
}
