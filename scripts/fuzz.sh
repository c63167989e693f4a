#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Runs the libFuzzer targets (tests/fuzz), one per reader, under ASan and
# UBSan:
#   scripts/fuzz.sh [--build DIR] [--runs N | --time SECS] [TARGET...]
# TARGET is net, lfts, sl2vl, pathsl, mft, mcast_sl, guid2lid, coords,
# conf or tables_cache (default: all); --runs N (default 1000000) inputs each, or --time
# SECS each. Without --build it installs clang (scripts/deps.sh) and
# builds ${KR_BUILD:-build}-fuzz with CC=clang --enable-fuzzing; with
# --build DIR it uses that fuzzing build as it is (the test suite does).
# Seeds: tests/data and fabrics and tables made by knsroute itself; what
# the fuzzer adds is kept in DIR/fuzz/TARGET/corpus for the next run.
# Prints one line per target ("fuzz_T: N inputs in S s: ok"); a report
# leaves the input in DIR/fuzz/TARGET/ and the tail of the log, exit 1.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
all="net lfts sl2vl pathsl mft mcast_sl guid2lid coords conf tables_cache namemap"
dir='' limit=-runs=1000000
while [ $# -gt 0 ]; do
	case $1 in
	--build) dir=$2; shift 2 ;;
	--runs) limit=-runs=$2; shift 2 ;;
	--time) limit=-max_total_time=$2; shift 2 ;;
	-h|--help) sed -n '2,14s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
targets=${*:-$all}
for t in $targets; do
	case " $all " in *" $t "*) ;;
	*) echo "fuzz.sh: no target $t (targets: $all)" >&2; exit 2 ;;
	esac
done
if [ -z "$dir" ]; then
	dir=${KR_BUILD:-$top/build}-fuzz
	"$top/scripts/deps.sh" || exit 2
	"$top/scripts/build.sh" "$dir" CC=clang --enable-fuzzing || exit 2
fi
dir=$(cd "$dir" && pwd) || exit 2
data=$top/tests/data
kr=$dir/tools/knsroute

# seeds T DIR: fills DIR with T's seed inputs.
seeds() {
	local t=$1 s=$2 tmp
	tmp=$(mktemp -d) || return 1
	case $t in
	net)
		cp "$data"/*.net "$data"/*.ibnd "$data"/*.lst "$data"/ibl_*.txt "$s/"
		"$kr" gen kns --k 3 --n 2 --p 1 -o "$s/gen-kns.net"
		"$kr" gen torus --dims 3x2x2 --p 2 --lmc 1 -o "$s/gen-torus.net"
		"$kr" gen mesh --dims 3x3 --parallel 2 --shuffle 7 -o "$s/gen-mesh.net" ;;
	lfts|sl2vl|pathsl)
		"$kr" route "$data/chk_t33.ibnd" --out "$tmp/r" >/dev/null &&
			python3 "$top/tests/integ/ibdiag_dir.py" "$kr" "$tmp/r" \
				"$tmp/ib" 0 || return 1
		case $t in
		lfts) cp "$tmp/r/opensm-lfts.dump" "$data"/chk_t33-lfts.dump \
			"$data"/chk_t33-dump_lfts.txt "$data"/chk_t33-ibroute-*.txt \
			"$data"/ibnd_mixed_lmc1-opensm.fdbs "$s/" ;;
		sl2vl) cp "$tmp/r/opensm-sl2vl.dump" "$data"/chk_t33-sl2vl.dump \
			"$data"/chk_t33-smp-sl2vl.txt "$tmp/ib/ibdiagnet.slvl" "$s/" ;;
		pathsl) cp "$tmp/r/path-sl" "$data"/chk_t33-saquery.txt \
			"$tmp/ib/ibdiagnet.psl" "$s/" ;;
		esac ;;
	mft) cp "$data"/mcast_t33-mcfdbs.dump "$data"/mcast_t33-dump_mfts.txt \
		"$data"/mcast_t33-ibroute-M*.txt "$s/" ;;
	mcast_sl)
		cp "$data"/mcast_t33-saquery-[gm].txt "$s/"
		printf '0xC000 0\n0xc00a 1\n# comment\n0xC00C 15\n' > "$s/mlid-sl" ;;
	guid2lid) cp "$data"/net_mixed.guid2lid "$s/" ;;
	namemap)
		printf '# map\n0x0002c9da037b4d46 "sw-x1y2" # rack 1\n%s\n%s\n' \
			'0x0002c9783aac1b04 row-2 switch # unquoted' \
			'0x0002c9783aac1b04 "loses"' >"$s/names" ;;
	coords)
		"$kr" topo "$data/chk_t33.ibnd" --cache-out "$s/t33.coords" >/dev/null
		"$kr" gen kns --k 3 --n 2 -o "$tmp/kns.net"
		"$kr" topo "$tmp/kns.net" --cache-out "$s/kns.coords" >/dev/null ;;
	tables_cache)
		# the dry run's, and one with a repaired destination and a pair
		"$kr" route "$data/chk_t33.ibnd" --out "$tmp/r" >/dev/null &&
			cp "$tmp/r/knsroute-tables" "$s/pristine.tables" &&
			awk '{ print }
			     /^switch/ && !g { g = $2; l = $3 }
			     END { printf "dest %d %s 0:1 1:- 2:3\npair 1 %d 2\n", l, g, l }' \
				"$tmp/r/knsroute-tables" >"$s/repaired.tables" ;;
	conf)
		cp "$top"/conf/knsroute.conf "$data"/topo_all_keys.conf "$s/"
		sed -n 's/^# \([a-z_]* [^ ]*\).*/\1/p' "$top"/conf/knsroute.conf \
			> "$s/uncommented.conf" ;;
	esac
	local rc=$?
	rm -rf "$tmp"
	return $rc
}

status=0
for t in $targets; do
	w=$dir/fuzz/$t
	rm -rf "$w/seeds"
	mkdir -p "$w/seeds" "$w/corpus"
	if ! seeds "$t" "$w/seeds"; then
		echo "fuzz_$t: could not make its seeds"
		status=1
		continue
	fi
	# -timeout: a parser that takes a minute on one input is a bug too;
	# the clock is wall time, so it leaves room for a loaded machine.
	"$dir/tests/fuzz/fuzz_$t" "$limit" -timeout=60 -print_final_stats=1 \
		-artifact_prefix="$w/" "$w/corpus" "$w/seeds" > "$w/log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/log" | tail -n 1)
	secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$w/log" | tail -n 1)
	if [ "$rc" -eq 0 ]; then
		echo "fuzz_$t: ${runs:-?} inputs in ${secs:-?} s: ok"
	else
		echo "fuzz_$t: FAILED (exit $rc) after ${runs:-?} inputs; log $w/log:"
		grep -a -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|artifact_prefix|Test unit written|==[0-9]+== ERROR|fuzz:)' \
			"$w/log" | head -n 20 | sed 's/^/   /'
		status=1
	fi
done
exit $status
