# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Sourced by scripts/sim-figures.sh: the figures' runs of OpenSM's own
# engines (and the knsroute plugin) in opensm on ibsim, whose tables
# knsroute capture reads back for the simulator. Uses the script's k,
# say, md, quick, LOADS and jobs, and tests/integ/lib.sh's helpers.

# osm NAME NET ENGINE: opensm routing NET with ENGINE (QoS on; knsroute:
# the plugin, as kr_plugin_conf configures it; nue-8vl: nue allowed 8 VLs
# where its default is 1) on ibsim, its tables read back into NAME by
# knsroute capture: the LFTs, SL2VL maps and every pair's PathRecord SL,
# what the fabric runs. NAME.used: the engine that configured the tables
# (OpenSM installs minhop when the one asked for gives up) and then why,
# from the log.
osm() {
	local name=$1 net=$2 eng=$3 args rc=0 used
	[ -d "$name" ] && return 0
	case $eng in
	torus-2QoS) kr_torus_conf "$net" >"$name.conf"
		    args=(-Q -R torus-2QoS --torus_config "$name.conf") ;;
	knsroute) kr_plugin_conf "$name.conf"; args=(-F "$name.conf") ;;
	nue-8vl) args=(-Q -R nue --nue_max_num_vls 8) ;;
	*) args=(-Q -R "$eng") ;;
	esac
	say "    ibsim -s $net &" "    opensm -D 0x43 ${args[*]} &" \
	    "    knsroute capture $name"
	kr_start_ibsim "$net" || return 1
	rm -rf "$KR_TMP/osm"
	kr_start_opensm -D 0x43 "${args[@]}"
	kr_wait_sm 600 && kr_readback "$name" || rc=1
	used=$(sed -n 's/.*osm_ucast_mgr_process: \(.*\) tables configured.*/\1/p' \
		"$KR_OSM_LOG" | head -n 1)
	[ "$used" = "${eng%-8vl}" ] || used="${used:-none} ($eng: $(grep -m1 -o \
		'ERR [0-9A-F]*: [^;]*' "$KR_OSM_LOG" || echo "no error logged"))"
	echo "$used" >"$name.used"
	kr_stop_opensm
	kr_stop_ibsim
	return $rc
}

# osm_intro ENGINES...: how the page's OpenSM runs are made, or why
# there are none (status 1).
osm_intro() {
	if ! kr_plugin_ready; then
		say "" "Not run here: OpenSM's engines need ibsim, opensm and" \
		    "infiniband-diags installed and the plugin built."
		return 1
	fi
	say "" "OpenSM's engines ($*) route the same fabric in" \
	    "\`opensm\` on \`ibsim\` (both, and the capture, under ibsim's" \
	    "umad2sim preload; the torus-2QoS.conf from the generator's" \
	    "switch names, the knsroute plugin's opensm.conf loading it with" \
	    "QoS on), and \`knsroute capture\` reads back what the fabric then" \
	    "runs: the LFTs, the SL2VL maps and every pair's PathRecord SL. The" \
	    "simulator uses these as captured; OpenSM numbers the LIDs, so the" \
	    "CA indices (and the hot CA) differ from \`knsroute route\`'s. A" \
	    "deadlock stops a run at the watchdog, its numbers up to then." ""
}

# f3_osm: F3's transient on the tables of OpenSM's engines (f3's dims,
# start, cycles, hotpk)
f3_osm() {
	local e series=() engines="torus-2QoS dfsssp nue nue-8vl knsroute"
	osm_intro $engines || return 0
	k gen torus --dims "$dims" -o f3o.net
	for e in $engines; do
		osm "f3o-$e" f3o.net "$e" || continue
		k check "f3o-$e" --json >"f3o-$e.check" 2>/dev/null || true
		f3_run "f3o-$e" "f3o-$e"
		series+=("f3o-$e:$e")
	done
	say "" "| engine | tables configured by | CA-to-CA credit loops (check) | cold accepted / offered | least cold window | deadlock |" \
	    "|---|---|---|---|---|---|"
	for e in $engines; do
		[ -s "f3o-$e.json" ] || { say "| $e | (capture failed) | | | | |"; continue; }
		say "| $e | $(cat "f3o-$e.used") | $(jq -r '.classes.data.credit_loop | if . then "found" else "none" end' "f3o-$e.check") | $(f3_cold "f3o-$e") | $(jq -r .deadlock "f3o-$e.json") |"
	done
	[ ${#series[@]} -gt 0 ] || return 0
	f3_plot f3-osm.svg "Hot spot on a $dims torus: OpenSM engines" "${series[@]}"
	say "" "![F3, OpenSM's engines](sim/f3-osm.svg)"
}

# F5 on a torus: the same faulty tori routed by OpenSM's engines and by
# the knsroute plugin, read back and simulated alike.
f5t() {
	local e pct n seed dims=16x16 links=512 sets=5
	local engines="torus-2QoS dfsssp nue nue-8vl knsroute"
	[ -n "$quick" ] && { dims=8x8; links=128; sets=2; }
	say "" "## F5 on a torus: OpenSM's engines, $dims" "" \
	    "F5's fault levels on a $dims torus (1, 3 and 5% of its $links" \
	    "links, $sets sets each, \`knsroute gen --fail N --seed S\`), each" \
	    "fabric routed in OpenSM by each engine and by the knsroute plugin" \
	    "(\`nue-8vl\`: nue allowed 8 VLs), uniform traffic with the" \
	    "chapter-11 parameters as in F5. A saturation is the highest" \
	    "accepted traffic of the sweep's runs that did not deadlock."
	osm_intro $engines || return 0
	k gen torus --dims "$dims" -o f5t-0.net
	for e in $engines; do
		osm "f5t-$e-0" f5t-0.net "$e" && f5_set "f5t-$e-0"
	done
	for pct in 1 3 5; do
		n=$((links * pct / 100))
		for seed in $(seq "$sets"); do
			k gen torus --dims "$dims" --fail "$n" --seed "$seed" \
				-o "f5t-$pct-$seed.net" || continue
			for e in $engines; do
				osm "f5t-$e-$pct-$seed" "f5t-$pct-$seed.net" "$e" &&
					f5_set "f5t-$e-$pct-$seed"
			done
		done
	done
	say "" "Per engine: the pristine torus' saturation, then the mean change" \
	    "per level ± the half-width of its 95% confidence interval (busiest" \
	    "link's paths over the mean in brackets); the fabrics on which" \
	    "OpenSM installed the engine's own tables (not its minhop" \
	    "fallback); the sweeps' runs that deadlocked." "" \
	    "| engine | pristine | 1% | 3% | 5% | own tables | deadlocked runs |" \
	    "|---|---|---|---|---|---|---|"
	# an engine's fabrics: f5t-E-0 and f5t-E-PCT-SEED (nue's glob must
	# not take nue-8vl's)
	for e in $engines; do
		[ -e "f5t-$e-0.peak" ] || { say "| $e | (no tables) | | | | | |"; continue; }
		say "| $e | $(cat "f5t-$e-0.peak") | $(f5_level "f5t-$e" 1) | $(f5_level "f5t-$e" 3) | $(f5_level "f5t-$e" 5) | $(grep -lx "${e%-8vl}" "f5t-$e"-[0-9].used "f5t-$e"-[0-9]-*.used | wc -l) of $(ls "f5t-$e"-[0-9].used "f5t-$e"-[0-9]-*.used | wc -l) | $(cat "f5t-$e"-[0-9].csv "f5t-$e"-[0-9]-*.csv | awk -F, '$1 != "pattern" { n++; d += $15 } END { print d + 0 " of " n }') |"
	done
	for e in $engines; do
		grep -vxh "${e%-8vl}" "f5t-$e"-[0-9].used "f5t-$e"-[0-9]-*.used | sort | uniq -c |
			awk -v e="$e" '{ c = $1; $1 = ""; print "- " e ", " c " fabrics:" $0 }'
	done >f5t-fallback
	[ -s f5t-fallback ] && say "" "What OpenSM installed where the engine gave up:" "" \
		"$(cat f5t-fallback)"
	return 0
}

# f6_minhop: OpenSM's minhop on a KNS, whose credit loop check proves,
# and the knsroute plugin on the same fabric.
f6_minhop() {
	local e engines="minhop knsroute"
	say "" "OpenSM's minhop on a 4-ary 3-direct KNS (1 CA per router), and" \
	    "the knsroute plugin on the same fabric: \`knsroute check\` on what" \
	    "the fabric runs, the simulator at full load, and two seeds over" \
	    "the loads."
	osm_intro $engines || return 0
	k gen kns --k 4 --n 3 -o f6k.net
	for e in $engines; do
		osm "f6k-$e" f6k.net "$e" || continue
		k check "f6k-$e" >"f6k-$e.check" 2>&1 || true
		k sim "f6k-$e" >"f6k-$e.txt" 2>/dev/null || true
		f6_seeds "f6k-$e" "f6-k-$e"
	done
	say "" "| tables | configured by | check | runs | deadlocks |" "|---|---|---|---|---|"
	for e in $engines; do
		[ -e "f6k-$e.used" ] || continue
		say "| $e | $(cat "f6k-$e.used") | $(sed -n 's/^verdict: //p' "f6k-$e.check") | $(f6_count "f6-k-$e") |"
	done
	if grep -q '^DEADLOCK' f6k-minhop.txt 2>/dev/null; then
		say "" "minhop's tables at full load:" "" '```' \
		    "$(grep -A20 '^DEADLOCK' f6k-minhop.txt)" '```'
	fi
	return 0
}
