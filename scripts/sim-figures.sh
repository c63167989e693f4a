#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Runs the simulator's validation ladder and the papers' comparisons that
# it can reach, and writes docs/sim.md (the model, then each figure with
# the exact commands that made it and the numbers) and docs/sim/*.svg
# (gnuplot: scripts/deps.sh --figures). Tens of minutes on two cores.
#
#   scripts/sim-figures.sh [BUILD_DIR [FIGURE...]]   (default: build-plain)
#
# FIGURE (f0 bound f1 ... f8 f5t mikant perf todo): only those are run,
# and their sections replace the ones of the same heading in the
# docs/sim.md there is (todo: the page's closing list of what it does not
# show yet).
#
# KR_JOBS: load points run at once (default 2). KR_QUICK=1: a few loads
# and small fabrics only, to try the script (the page then says so).
set -eu

# KR_SRCDIR: the tree to write into (default: this script's), so that a
# copy of the script can run while the tree's own is being edited
top=${KR_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${1:-$top/build-plain}
[ $# -gt 0 ] && shift
only=("$@")
K=$build/tools/knsroute
BENCH=$build/bench/bench_sim
jobs=${KR_JOBS:-2}
quick=${KR_QUICK:-}
[ -x "$K" ] || { echo "sim-figures.sh: no $K (build first)" >&2; exit 2; }
command -v jq >/dev/null || {
	echo "sim-figures.sh: needs jq (scripts/deps.sh)" >&2
	exit 2
}
W=$(mktemp -d)
# OpenSM's own engines run in opensm on ibsim with the integration tests'
# helpers (this script's tree's): each process started and stopped by its
# PID alone; kr_cleanup stops what is left and removes W
KR_BUILDDIR=$build KR_TMP=$W
. "$(dirname "$0")/../tests/integ/lib.sh"
. "$(dirname "$0")/../tests/integ/readback.sh"
trap kr_cleanup EXIT
trap 'exit 130' INT TERM HUP
cd "$W"
md=$W/sim.md
svg=$top/docs/sim
mkdir -p "$svg"
LOADS=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0
[ -n "$quick" ] && LOADS=0.3,0.6,1.0

# k ARGS...: runs knsroute, and lists the command in the page's current
# code block (with the fabric's file names as the script made them).
k() {
	echo "    knsroute $*" >>"$md"
	"$K" "$@"
}
say() { printf '%s\n' "$@" >>"$md"; }
fabric() {		# fabric NAME GEN-ARGS... [-- ROUTE-ARGS...]
	local name=$1 gen=() route=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do gen+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	route=("$@")
	[ -d "$name" ] && return 0
	k gen "${gen[@]}" -o "$name.net" &&
		k route "$name.net" "${route[@]}" --out "$name" >/dev/null 2>&1
}
# peak FILE.csv: the highest accepted traffic of a sweep (column 5) over
# its runs that did not deadlock (column 15)
peak() { awk -F, 'NR > 1 && !$15 && $5 > m { m = $5 } END { printf "%.3f", m }' "$1"; }

# gp OUT.svg KEY TITLE XLABEL YLABEL SERIES...: a gnuplot SVG into
# docs/sim of the series ("'FILE' using ... title '...'"), key at KEY;
# PLOT_SET: one more gnuplot setting.
gp() {
	local out=$1 key=$2 title=$3 xlabel=$4 ylabel=$5
	shift 5
	command -v gnuplot >/dev/null || {
		echo "sim-figures.sh: $out needs gnuplot (scripts/deps.sh --figures)" >&2
		exit 2
	}
	gnuplot <<GP
set terminal svg size 640,420 dynamic font "sans,11"
set output '$svg/$out'
set datafile separator ','
set key $key
set grid
set title '$title'
set xlabel '$xlabel'
set ylabel '$ylabel'
${PLOT_SET:-}
plot $(IFS=,; echo "$*")
GP
}

# plot OUT.svg TITLE YLABEL FILE:TITLE...: accepted against offered;
# PLOT_Y: another CSV column for y.
plot() {
	local out=$1 title=$2 ylabel=$3 s=() f
	shift 3
	for f in "$@"; do
		s+=("'${f%%:*}' using 4:${PLOT_Y:-5} with linespoints title '${f#*:}'")
	done
	gp "$out" "left top" "$title" "offered load (fraction of link rate per CA)" \
		"$ylabel" "${s[@]}"
}

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

cat >"$md" <<'MD'
# Traffic simulation: `knsroute sim`

Generated by `scripts/sim-figures.sh` (do not edit by hand): the model,
then each figure with the commands that made it and what came out. The
numbers are this machine's run of the script; every run with the same
seeds gives the same ones (`scripts/sim-figures.sh BUILD_DIR f1` runs one
figure again and replaces its section).

## The model

`knsroute sim` runs packets over exactly the tables `knsroute check`
reads, so it simulates any engine's tables, captured or dry-run.

- Time is in cycles; a cycle is one InfiniBand credit (64 bytes) on a
  link, so link rate is one credit per cycle and a throughput given as a
  fraction of link rate per CA is also flits/cycle/node with the credit
  as the flit. The papers' presets make the packet as many credits as the
  paper's packet has flits.
- Virtual cut-through with credit-based flow control per VL: a packet
  starts on a link only when the buffer at the other end has credits for
  all of it; its head arrives after the link latency, its tail a packet
  time later; the credits go back (after the link latency) when its tail
  leaves that buffer.
- Switches: one FIFO per input port and VL, sized from a per-port buffer
  split over the VLs in use (`--buffer`) or per VL (`--buffer-vl`). The
  head of a FIFO is routed on the LFT (the DLID's entry), takes the VL
  that SL2VL[switch][in][out][SL] gives, and after the routing delay
  requests its output. An input port feeds one output at a time. An
  output that is free picks among the requests whose next buffer has room
  for a whole packet: the VL by VL arbitration (the low-priority weights
  of `knsroute route`'s `vlarb` file in 64-byte units, else equal), then
  the input round-robin. Only heads request, so a head waiting for a busy
  output blocks what is behind it: head-of-line blocking comes out of the
  FIFOs with no special case. `--voq` splits each input buffer into a
  queue per output; `--oq` adds output queues per port and VL, filled
  through the crossbar at `--speedup` times link rate.
- Hosts: every linked CA port with a LID, in LID order. Each makes
  packets by a Bernoulli process at the offered load (geometric gaps),
  on the pair's path SL (else the DLID's), and queues them by the VL the
  CA port's SL2VL map gives that SL. The papers give a host one
  admittance queue per destination; in a host a packet only ever waits
  for the first link's credits on its VL, which all destinations on that
  VL share, so one queue per VL in generation order serves the same
  packets at the same times, without state per pair. A queue holding
  `--host-queue` packets refuses more (counted as `refused`), which keeps
  an overloaded run's memory bounded; the host's other queues go on. With LMC, `--lmc-path` picks the
  DLID of the destination's range: the base, round-robin (OSHA) or the
  one whose first-hop queue holds fewest (SASHA).
- Traffic: uniform; hot spot (`--hot-share` of the CAs send only to one
  CA, from `--hot-start` until `--hot-packets` hot packets arrived, the
  others uniformly to the rest); bit reversal, transpose, complement,
  tornado, shift and a random permutation on CA indices in LID order;
  Zipf(s) with each source ranking the others by its own random affine
  order; all-to-all with its completion time.
- Measured after `--warmup`: offered and accepted traffic, latency from
  generation and in the network (mean; 99th percentile from a histogram
  exact below 4,096 cycles and within 1.6% above), hot and cold traffic
  and the share of full and empty switch buffers per `--window`, link
  utilisation. Conservation holds at the end of every run: injected =
  delivered + dropped + queued.
- Deadlock watchdog: when nothing has been delivered for `--watchdog`
  cycles (default 200 packet and fly times) while packets wait in
  switches, the run stops; the head of each full buffer waits for the
  channel it leaves by, and following those waits from any blocked
  channel ends in the cycle, printed as `NAME[PORT] VL v` channels (the
  sending port and the VL) as `knsroute check` prints a credit loop.
- Deterministic: discrete events taken in (time, insertion) order, the
  simulator's own xoshiro256** generator seeded by `--seed`; the same
  seed gives byte-identical output.
- Flow level (`--flow`): max-min fair rates of flows along the LFT paths,
  every link one unit, by progressive filling; no credits, VLs or
  buffers. Uniform: the mean over `--flow-samples` random permutations,
  the effective bisection bandwidth; alltoall: that many of its shift
  phases, each as long as its slowest flow.
- Ideal baseline, not programmable in InfiniBand: `--ideal voqnet` gives
  every input a queue per destination CA with its own credits;
  `--ideal adaptive-bubble` (tori and meshes, from the recognised
  coordinates) routes minimally and adaptively on VL 0 with a
  dimension-order escape on VL 1 under bubble flow control: continuing
  along a ring needs room for one packet, entering one room for two.

## Running many points: processes and job arrays

A sweep is many independent runs. `--sweep 0.1,0.2,... --jobs N` runs
them as N processes at a time on one host, output in load order. On a
cluster the same runs are a job array, one load point per task, and a
merge; `scripts/sim-array.sh` is the task and the merge (the test suite
checks on localhost that the merged output is byte for byte the
sweep's). With Slurm:

    # sim.sbatch
    #!/bin/bash
    #SBATCH --array=0-9 --cpus-per-task=1 --mem=2G --time=01:00:00
    exec scripts/sim-array.sh run out/ 0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0 \
        fabric-dir --pattern uniform --seed 1 --json

    sbatch sim.sbatch                  # ten tasks, one load each
    scripts/sim-array.sh merge out/ >sweep.json   # after they all ended

Schemes, seeds and fault sets are more arrays (or more tasks with the
index split by the script that submits them); every task is a plain
`knsroute sim` process, so any scheduler does.
MD
[ -n "$quick" ] && say "" "**KR_QUICK run: fewer loads and small fabrics only.**"

# F0: one crossbar, FIFO inputs: Karol et al.'s head-of-line limit.
f0() {
	local n sizes="8 16 32 64"
	[ -n "$quick" ] && sizes="8 16"
	say "" "## F0 calibration: one switch, FIFO inputs" "" \
	    "A KNS with one dimension is one crossbar switch with a router per" \
	    "CA in front; routed with one class, each crossbar input is one FIFO." \
	    "Karol, Hluchyj and Morgan (1987): uniform traffic saturates FIFO" \
	    "inputs at 2 - sqrt(2) = 0.586 of link rate as N grows; virtual output" \
	    "queues (here in 64-packet buffers) remove the limit." ""
	for n in $sizes; do
		fabric "x$n" kns --k "$n" --n 1 -- --classify none
		k sim "x$n" --json >"x$n-fifo.json"
		k sim "x$n" --voq --buffer-vl 4096 --json >"x$n-voq.json"
	done
	say "" "| N | FIFO accepted | VOQ accepted |" "|---|---|---|"
	for n in $sizes; do
		say "| $n | $(jq -r '.accepted' "x$n-fifo.json") | $(jq -r '.accepted' "x$n-voq.json") |"
	done
	n=${sizes##* }
	say "" "Accepted against offered for N = $n:" ""
	k sim "x$n" --sweep "$LOADS" --jobs "$jobs" --csv >f0-fifo.csv
	k sim "x$n" --voq --buffer-vl 4096 --sweep "$LOADS" --jobs "$jobs" --csv >f0-voq.csv
	plot f0.svg "One $n-port crossbar, uniform" "accepted" \
		f0-fifo.csv:"FIFO inputs" f0-voq.csv:"VOQ"
	say "" "![F0](sim/f0.svg)"
}

# The channel-load bound: uniform accepted <= (N-1) / max channel load.
bound() {
	local f specs=("t44:torus --dims 4x4 --p 4" "m44:mesh --dims 4x4 --p 2"
		       "k42:kns --k 4 --n 2 --p 4" "t88:torus --dims 8x8 --p 2"
		       "k82:kns --k 8 --n 2 --p 4")
	say "" "## Channel-load bound" "" \
	    "Uniform traffic puts L of the N(N-1) CA pairs' paths on the busiest" \
	    "link (\`knsroute check\`'s link load), so no CA can be accepted above" \
	    "(N-1)/L of link rate. knsroute's own tables, full offered load:" ""
	for f in "${specs[@]}"; do
		# shellcheck disable=SC2086
		fabric "${f%%:*}" ${f#*:}
		k check "${f%%:*}" --json >"${f%%:*}-check.json" 2>/dev/null || true
		k sim "${f%%:*}" --json >"${f%%:*}-sim.json"
	done
	say "" "| fabric | CAs | max link load | bound | accepted |" "|---|---|---|---|---|"
	for f in "${specs[@]}"; do
		jq -rs '.[0].links.max as $l | .[1] |
		  "| '"${f#*:}"' | \(.cas) | \($l) | \([1, (.cas - 1) / $l] | min * 1000 | round / 1000) | \(.accepted) |"' \
		  "${f%%:*}-check.json" "${f%%:*}-sim.json" >>"$md"
	done
}

# F1: the thesis' Table 3.3 with its chapter-3 parameters.
f1() {
	local f row specs=("f1k:kns --k 4 --n 2:4-ary 2-direct KNS:0.66259"
			   "f1t:torus --dims 4x4:4x4 torus:0.63534"
			   "f1m:mesh --dims 4x4:4x4 mesh:0.57466")
	[ -z "$quick" ] && specs+=("f1K:kns --k 16 --n 2:16-ary 2-direct KNS:"
				   "f1T:torus --dims 16x16:16x16 torus:"
				   "f1M:mesh --dims 16x16:16x16 mesh:")
	say "" "## F1: KNS, torus and mesh (thesis Table 3.3)" "" \
	    "\`--preset thesis3\`: 256-flit packets, 2-packet input and output" \
	    "queues (chapter 4's size; chapter 3 states none), 20-cycle routing," \
	    "8-cycle links, one flit per cycle. Saturation throughput is the" \
	    "highest accepted traffic of a sweep, in flits/cycle/node. Table 3.3" \
	    "is for deterministic routing (section 3.6.2) and chapter 3 uses no" \
	    "destination classes, so the tables are routed with" \
	    "\`--classify none\`: plain DOR (Hybrid-DOR on the KNS), each" \
	    "destination on one SL; the thesis does not state its torus deadlock" \
	    "scheme, here the torus keeps knsroute's ring halves (two VLs)." ""
	for f in "${specs[@]}"; do
		IFS=: read -r name gen _ _ <<<"$f"
		# shellcheck disable=SC2086
		fabric "$name" $gen -- --classify none
		k sim "$name" --preset thesis3 --sweep "$LOADS" --jobs "$jobs" \
			--csv >"$name.csv"
	done
	say "" "| nodes | fabric | saturation | thesis | ratio |" "|---|---|---|---|---|"
	for f in "${specs[@]}"; do
		IFS=: read -r name _ label want <<<"$f"
		row="| $(jq -r .cas <("$K" sim "$name" --preset thesis3 --cycles 1 --warmup 0 --json)) | $label | $(peak "$name.csv") |"
		if [ -n "$want" ]; then
			row="$row $want | $(awk -v a="$(peak "$name.csv")" -v b="$want" 'BEGIN { printf "%.2f", a / b }') |"
		else
			row="$row (4,096-node rows only) | |"
		fi
		say "$row"
	done
	say "" \
	    "Against the 10% aimed at, see the ratio column. The preset gives 2" \
	    "packets per input port and VL; where a plan uses more than one VL" \
	    "on a link (the torus' ring halves, the KNS' second VL after a" \
	    "crossbar) a port holds more than 2 packets and blocks less than a" \
	    "single-queue port would, which the thesis' model may not have done."
	plot f1.svg "Uniform traffic, thesis chapter-3 parameters" \
		"accepted (flits/cycle/node)" f1k.csv:"4-ary 2-direct KNS" \
		f1t.csv:"4x4 torus" f1m.csv:"4x4 mesh"
	say "" "![F1](sim/f1.svg)"
}

# F2: HoL schemes on the 16x16 torus, uniform, 4 queues.
f2() {
	local c dims="16x16" schemes="none dbbm bbq iodet xordet" args
	[ -n "$quick" ] && dims=8x8
	say "" "## F2: head-of-line schemes, $dims torus, uniform" "" \
	    "\`--preset thesis11\` (16-flit packets, 4-packet input and output" \
	    "queues, a 4-cycle router, 1-cycle links); \`knsroute route\` with" \
	    "\`--classify C --classes 4 --detour-vls 0\` (the VLs a pristine run" \
	    "does not need for fault detours go to classes), and VOQnet on the" \
	    "same routes as the ideal reference. The thesis: every scheme but" \
	    "DBBM nearly reaches VOQnet." ""
	for c in $schemes; do
		args=(--classify "$c" --classes 4 --detour-vls 0)
		[ "$c" = none ] && args=(--classify none)
		fabric "f2-$c" torus --dims "$dims" -- "${args[@]}"
		k sim "f2-$c" --preset thesis11 --sweep "$LOADS" --jobs "$jobs" \
			--csv >"f2-$c.csv"
	done
	k sim f2-xordet --preset thesis11 --ideal voqnet --sweep "$LOADS" \
		--jobs "$jobs" --csv >f2-voqnet.csv
	say "" "| scheme | classes planned | saturation |" "|---|---|---|"
	for c in $schemes voqnet; do
		say "| $c | $(grep -o 'class [a-z]*/[0-9]*\( per dimension\)\?\|no classes' \
			"f2-${c/voqnet/xordet}/summary" | head -1) | $(peak "f2-$c.csv") |"
	done
	plot f2.svg "$dims torus, uniform, thesis chapter-11 parameters" \
		"accepted (flits/cycle/node)" f2-none.csv:"one class" \
		f2-dbbm.csv:DBBM f2-bbq.csv:BBQ f2-iodet.csv:IODET \
		f2-xordet.csv:XORDET f2-voqnet.csv:"VOQnet (ideal)"
	say "" "![F2](sim/f2.svg)"
	f2_orders "$dims"
}

# f2_orders DIMS: F2's second dimension order. In InfiniBand a CA's second
# LID (LMC 1) is routed in the other order, on VLs of its own (a virtual
# network), so 8 VLs hold 2 classes per order; the same 2 classes with
# one order beside them.
f2_orders() {
	local c dims=$1 series=()
	say "" "The second dimension order: \`knsroute route --lmc 1\` routes" \
	    "each CA's second LID in the other dimension order, on an SL bit" \
	    "and VLs of its own (without them the two orders close credit" \
	    "loops), and the sender takes the two LIDs in turn" \
	    "(\`--lmc-path rr\`). With the ring halves that leaves one SL" \
	    "bit, 2 classes per order in the 8 VLs; IODET needs a bit per" \
	    "dimension and cannot be planned (route: \"iodet needs a class bit" \
	    "per dimension (2) but only 1 SL bits are left\"). Beside each," \
	    "the same 2 classes with one order." ""
	for c in dbbm bbq xordet; do
		fabric "f2o-$c" torus --dims "$dims" -- --classify "$c" --classes 2 \
			--detour-vls 0
		k sim "f2o-$c" --preset thesis11 --sweep "$LOADS" --jobs "$jobs" \
			--csv >"f2o-$c.csv"
		fabric "f2l-$c" torus --dims "$dims" -- --classify "$c" --classes 2 \
			--detour-vls 0 --lmc 1
		k sim "f2l-$c" --preset thesis11 --lmc-path rr --sweep "$LOADS" \
			--jobs "$jobs" --csv >"f2l-$c.csv"
		series+=("f2o-$c.csv:$c/2, one order" "f2l-$c.csv:$c/2, two orders")
	done
	say "" "Saturation; the change is against the 4 classes of one order" \
	    "above, which take the same 8 VLs (and so the same buffer per port)" \
	    "as 2 classes of two orders:" "" \
	    "| scheme | 4 classes, one order (8 VLs) | 2 classes, two orders (8 VLs) | change | 2 classes, one order (4 VLs) |" \
	    "|---|---|---|---|---|"
	for c in dbbm bbq xordet; do
		say "| $c | $(peak "f2-$c.csv") | $(peak "f2l-$c.csv") | $(awk -v a="$(peak "f2l-$c.csv")" -v b="$(peak "f2-$c.csv")" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }') | $(peak "f2o-$c.csv") |"
	done
	plot f2-orders.svg "$dims torus, uniform, one and two dimension orders" \
		"accepted (flits/cycle/node)" "${series[@]}"
	say "" "![F2, two dimension orders](sim/f2-orders.svg)"
}

# F3: the hot-spot transient, cold traffic per window.
# f3_run DIR OUT [ARGS...]: the transient on DIR's tables, OUT.json and
# OUT.dat (cycle, accepted cold, accepted hot per window); the caller's
# dims, start, cycles and hotpk
f3_run() {
	local dir=$1 out=$2
	shift 2
	k sim "$dir" --preset thesis11 "$@" --pattern hotspot --hot-share 0.25 \
		--load 0.3 --hot-start "$start" --hot-packets "$hotpk" --warmup 0 \
		--cycles "$cycles" --window 5000 --json >"$out.json" || true
	jq -r '.windows[] | "\(.start),\(.accepted_cold),\(.accepted_hot)"' \
		"$out.json" >"$out.dat"
}

# f3_cold OUT: "cold accepted / offered | least cold window" of a run
f3_cold() {
	jq -r '"\(.accepted_cold / .offered_cold * 1000 | round / 1000) | \([.windows[].accepted_cold] | min * 1000 | round / 1000)"' "$1.json"
}

# f3_plot OUT.svg TITLE OUT:TITLE...: cold traffic against time
f3_plot() {
	local out=$1 title=$2 series=() f
	shift 2
	for f in "$@"; do
		series+=("'${f%%:*}.dat' using 1:2 with lines title '${f#*:}'")
	done
	gp "$out" "right bottom" "$title" cycle \
		"accepted cold traffic per cold CA" "${series[@]}"
}

f3() {
	local c e dims=16x16 start=100000 cycles=400000 hotpk=10000 series=()
	local schemes="none default bbq xordet iodet"
	local engines="torus-2QoS dfsssp nue nue-8vl knsroute"
	[ -n "$quick" ] && { dims=8x8; start=20000; cycles=100000; hotpk=2000; }
	say "" "## F3: hot spot, $dims torus" "" \
	    "A quarter of the CAs send only to one CA from cycle $start until" \
	    "$hotpk hot packets have arrived (thesis chapter 11); every CA sends" \
	    "uniformly to the others before and after, and the other three" \
	    "quarters throughout, at 30% of link rate (the thesis does not state" \
	    "the background load). Accepted cold traffic per cold CA against" \
	    "time, in windows of 5,000 cycles; \`default\` is knsroute's default" \
	    "plan (classes beside the detour layers)." ""
	for c in $schemes; do
		case $c in
		none) fabric "f3-$c" torus --dims "$dims" -- --classify none ;;
		default) fabric "f3-$c" torus --dims "$dims" ;;
		*) fabric "f3-$c" torus --dims "$dims" -- --classify "$c" \
			--classes 4 --detour-vls 0 ;;
		esac
	done
	for c in $schemes; do
		f3_run "f3-$c" "f3-$c"
		series+=("f3-$c:$c")
	done
	f3_run f3-xordet f3-voqnet --ideal voqnet
	say "" "| scheme | cold accepted / offered over the run | least cold window |" \
	    "|---|---|---|"
	for c in $schemes voqnet; do
		say "| $c | $(f3_cold "f3-$c") |"
	done
	f3_plot f3.svg "Hot spot on a $dims torus: cold traffic" "${series[@]}" \
		f3-voqnet:voqnet
	say "" "![F3](sim/f3.svg)" "" \
	    "The same transient on the tables of OpenSM's engines; \`nue-8vl\` is" \
	    "nue allowed 8 VLs (\`--nue_max_num_vls 8\`, where its default is 1)."
	osm_intro $engines || return 0
	k gen torus --dims "$dims" -o f3o.net
	series=()
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
	f3_plot f3-osm.svg "Hot spot on a $dims torus: OpenSM engines" "${series[@]}"
	say "" "![F3, OpenSM's engines](sim/f3-osm.svg)"
}

# F6: credit loops deadlock; knsroute's tables do not.
f6() {
	local f
	say "" "## F6: credit loops and the watchdog" "" \
	    "An 8-switch ring (2 CAs each) routed by knsroute, its SL2VL maps left" \
	    "out so every SL is on VL 0: \`knsroute check\` reports the credit loop" \
	    "(exit 3, assumed maps), and at full load the simulator deadlocks and" \
	    "prints the cycle:" ""
	fabric f6r torus --dims 8 --p 2
	k check f6r/topology.net --lfts f6r/opensm-lfts.dump --path-sl f6r/path-sl \
		>/dev/null 2>&1 || true
	k sim f6r/topology.net --lfts f6r/opensm-lfts.dump --path-sl f6r/path-sl \
		--buffer-vl 128 >f6.txt 2>/dev/null || true
	say "" '```' "$(grep -A20 '^DEADLOCK' f6.txt)" '```' "" \
	    "knsroute's own tables (SL2VL maps included), two seeds over the" \
	    "loads:" ""
	fabric t88 torus --dims 8x8 --p 2
	fabric k82 kns --k 8 --n 2 --p 4
	fabric f2-xordet torus --dims "$([ -n "$quick" ] && echo 8x8 || echo 16x16)" \
		-- --classify xordet --classes 4 --detour-vls 0
	local specs=(f6r:"8-ring, 2 CAs each" f2-xordet:"F2's torus, XORDET/4"
		     t88:"8x8 torus, 2 CAs each" k82:"8-ary 2-direct KNS, 4 CAs each")
	for f in "${specs[@]}"; do
		f6_seeds "${f%%:*}" "f6-${f%%:*}"
	done
	say "" "| tables | runs | deadlocks |" "|---|---|---|"
	for f in "${specs[@]}"; do
		say "| ${f#*:} | $(f6_count "f6-${f%%:*}") |"
	done
	f6_minhop
}

# f6_seeds DIR PREFIX: sweeps of two seeds on DIR's tables, PREFIX-SEED.csv
f6_seeds() {
	local seed
	for seed in 1 2; do
		k sim "$1" --seed $seed --sweep "$LOADS" --jobs "$jobs" --csv \
			>"$2-$seed.csv" || true
	done
}

# f6_count PREFIX: "runs | deadlocks" of the sweeps PREFIX-*.csv
f6_count() {
	cat "$1"-*.csv | awk -F, '$1 != "pattern" { n++; d += $15 } END { print n " | " d + 0 }'
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

# F7: flow level at 10,000 CAs.
f7() {
	local f specs=("f7k:kns --k 100 --n 2:100-ary 2-direct KNS"
		       "f7t:torus --dims 100x100:100x100 torus")
	[ -n "$quick" ] && specs=("f7k:kns --k 16 --n 2:16-ary 2-direct KNS"
				  "f7t:torus --dims 16x16:16x16 torus")
	say "" "## F7: flow level" "" \
	    "Max-min fair rates along knsroute's LFT paths: the effective bisection" \
	    "bandwidth (mean over 10 random permutations) and all-to-all (10 of its" \
	    "shift phases, each as long as its slowest flow)." ""
	for f in "${specs[@]}"; do
		IFS=: read -r name gen _ <<<"$f"
		# shellcheck disable=SC2086
		fabric "$name" $gen
		k sim "$name" --flow --json >"$name-ebb.json"
		k sim "$name" --flow --pattern alltoall --json >"$name-a2a.json"
	done
	say "" "| fabric | CAs | effective bisection bandwidth | all-to-all efficiency |" \
	    "|---|---|---|---|"
	for f in "${specs[@]}"; do
		IFS=: read -r name _ label <<<"$f"
		say "| $label | $(jq -r .cas "$name-ebb.json") | $(jq -r .accepted "$name-ebb.json") | $(jq -r .alltoall_efficiency "$name-a2a.json") |"
	done
	say "" "Other engines' tables at this size need OpenSM on ibsim; not here yet."
}

# F4: the OSHA paper's hot spot on the 2,304-CA KNS, over its 11 loads.
f4() {
	local s k=48 loads=0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0 row l
	local schemes=("1VC:f4-1:" "BBQ-4:f4-b:" "OSHA-DBBQ:f4-d:--lmc-path rr"
		       "SASHA-DBBQ:f4-d:--lmc-path least") series=()
	[ -n "$quick" ] && { k=8; loads=0.3,0.6; }
	say "" "## F4: hot spot on the $k-ary 2-direct KNS" "" \
	    "The OSHA/SASHA paper (section 5): a quarter of the CAs send to one" \
	    "hot CA at the load point's rate, the rest uniformly; \`--preset osha\`" \
	    "(4 KB packets, 128 KB of input buffer per port over the VLs in use," \
	    "100 Gb/s links, 1 ms warm-up and 2 ms measured), at the paper's 11" \
	    "load points from 0 to 100% of link rate. knsroute's plans:" \
	    "\`--classify none\` (1VC), \`bbq --classes 4\` (BBQ-4) and \`dbbq" \
	    "--lmc 1 --classes 2\` with the two LIDs of each CA taken in turn" \
	    "(OSHA) or by the shorter first-hop queue (SASHA). At most 0.75 of" \
	    "the load (plus the hot CA's one link) can be accepted." ""
	fabric f4-1 kns --k $k --n 2 -- --classify none
	fabric f4-b kns --k $k --n 2 -- --classify bbq --classes 4
	fabric f4-d kns --k $k --n 2 -- --classify dbbq --lmc 1 --classes 2
	for s in "${schemes[@]}"; do
		IFS=: read -r label dir extra <<<"$s"
		# shellcheck disable=SC2086
		k sim "$dir" --preset osha $extra --pattern hotspot --sweep "$loads" \
			--jobs "$jobs" --csv >"f4-$label.csv"
		series+=("f4-$label.csv:$label")
	done
	# accepted (column 5) of each scheme per load, and the share of the
	# most that can be: 0.75 of the load plus the hot CA's one link
	row="| load |" l="|---|"
	for s in "${schemes[@]}"; do row="$row ${s%%:*} |" l="$l---|"; done
	say "" "Accepted traffic per CA (fraction of link rate), and in brackets" \
	    "its share of the most that can be accepted:" "" "$row" "$l"
	for l in ${loads//,/ }; do
		row="| $l |"
		for s in "${schemes[@]}"; do
			row="$row $(awk -F, -v l="$l" -v n=$((k * k)) 'NR > 1 && $2 == l { printf "%.3f (%d%%)", $5, ($5 / (0.75 * l + 1 / n)) * 100 + 0.5 }' \
				"f4-${s%%:*}.csv") |"
		done
		say "$row"
	done
	plot f4.svg "Hot spot, $k-ary 2-direct KNS, the OSHA paper parameters" \
		"accepted (fraction of link rate per CA)" "${series[@]}"
	say "" "![F4](sim/f4.svg)"
}

# F5: throughput lost to faulty links, knsroute's repaired tables.
# f5_set NAME: the sweep's peak and check's max/mean link load of one set
# (a sweep whose runs deadlocked counts: column 15 says which).
f5_set() {
	k sim "$1" --preset thesis11 --sweep "$LOADS" --jobs "$jobs" --csv \
		>"$1.csv" || true
	[ "$(wc -l <"$1.csv")" -gt 1 ] || return 1
	k check "$1" --json 2>/dev/null | jq -r '.links | "\(.max / .mean)"' \
		>"$1.load" || true
	peak "$1.csv" >"$1.peak"
}

# f5_level NAME PCT: "loss% ±CI (max/mean load)" over the sets of a
# level: the mean change of the peak against the pristine fabric's, the
# half-width of its 95% confidence interval (normal, 1.96 standard
# errors; 0 with one set).
f5_level() {
	local base sets=("$1-$2"-*.peak)
	[ -e "${sets[0]}" ] || { echo "-"; return; }
	base=$(cat "$1-0.peak")
	awk -v b="$base" -v l="$(cat "${sets[@]/%.peak/.load}" |
		awk '{ s += $1 } END { printf "%.1f", s / NR }')" '
		{ c = ($1 / b - 1) * 100; s += c; q += c * c }
		END { m = s / NR; v = NR > 1 ? (q - NR * m * m) / (NR - 1) : 0
		      printf "%+.1f%% ±%.1f (%s)", m, 1.96 * sqrt(v > 0 ? v : 0) / sqrt(NR), l }' \
		"${sets[@]}"
}

f5() {
	local f pct n got seed sets=6
	local specs=("f5k:32 2:2048:32-ary 2-direct KNS (1,024 nodes)"
		     "f5l:10 3:3000:10-ary 3-direct KNS (1,000 nodes)")
	[ -n "$quick" ] && { sets=2; specs=("f5k:8 2:128:8-ary 2-direct KNS"); }
	say "" "## F5: faulty links" "" \
	    "Links removed before routing (\`knsroute gen --fail N --seed S\`; a" \
	    "seed whose faults split the fabric is skipped, as the thesis keeps" \
	    "tolerated sets only), then knsroute's tables for what is left," \
	    "uniform traffic with the chapter-11 parameters: the change of the" \
	    "sweep's highest accepted traffic against the pristine fabric's," \
	    "the mean over up to $sets fault sets per level (the thesis: 50," \
	    "6.5.3; the first $((20 * sets)) seeds tried) ± the half-width of its" \
	    "95% confidence interval, and in brackets the busiest link's" \
	    "CA-to-CA paths over the mean (\`knsroute check\`; 1.0 on the" \
	    "pristine fabric)." ""
	for f in "${specs[@]}"; do
		IFS=: read -r name kn links _ <<<"$f"
		read -r kk nn <<<"$kn"
		fabric "$name-0" kns --k "$kk" --n "$nn"
		f5_set "$name-0"
		for pct in 1 3 5; do
			n=$((links * pct / 100)) got=0 seed=0
			while [ $got -lt $sets ] && [ $seed -lt $((20 * sets)) ]; do
				seed=$((seed + 1))
				fabric "$name-$pct-$seed" kns --k "$kk" --n "$nn" \
					--fail "$n" --seed "$seed" 2>/dev/null || continue
				f5_set "$name-$pct-$seed" && got=$((got + 1))
			done
		done
	done
	say "" "| fabric | 1% | 3% | 5% | sets 1 / 3 / 5% | thesis 1 / 3 / 5% |" \
	    "|---|---|---|---|---|---|"
	for f in "${specs[@]}"; do
		IFS=: read -r name _ _ label <<<"$f"
		case $name in
		f5k) want="-1 / -3.8 / -6.5%" ;;
		*) want="-9 / -13 / -15%" ;;
		esac
		say "| $label | $(f5_level "$name" 1) | $(f5_level "$name" 3) | $(f5_level "$name" 5) | $(for pct in 1 3 5; do ls "$name-$pct"-*.peak 2>/dev/null | wc -l; done | paste -sd/ | sed 's|/| / |g') | $want |"
	done
	say "" "knsroute's repair keeps every pair delivered and loop-free, but it" \
	    "picks intermediate routers without regard to load: the busiest link" \
	    "carries several times the mean, and under uniform traffic the" \
	    "fabric saturates when that link does. Balancing the detours is the" \
	    "repair's open problem this figure shows."
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

# The 8x8 torus: XORDET against the adaptive bubble router.
f8() {
	local p m=(--packet 16 --buffer-vl 64 --route-delay 4 --latency 1)
	say "" "## XORDET against the adaptive bubble router, 8x8 torus" "" \
	    "The thesis (9.4.1): with 2 VCs, IODET and XORDET reach 93% of the" \
	    "adaptive router's saturation throughput under uniform traffic, and" \
	    "adaptive routing gets almost 3x XORDET's on bit reversal and more" \
	    "than 2x on transpose. Chapter-9 parameters without output queues" \
	    "(the bubble router here is input-queued): 16-flit packets, 4-packet" \
	    "queues, a 4-cycle router. XORDET is knsroute's \`--classes 2\` plan" \
	    "(2 classes; in InfiniBand each costs 2 VLs for the ring halves)." ""
	fabric f8 torus --dims 8x8 -- --classify xordet --classes 2 --detour-vls 0
	for p in uniform transpose bitrev; do
		k sim f8 "${m[@]}" --pattern "$p" --sweep "$LOADS" --jobs "$jobs" \
			--csv >"f8-$p-x.csv"
		k sim f8 "${m[@]}" --ideal adaptive-bubble --pattern "$p" \
			--sweep "$LOADS" --jobs "$jobs" --csv >"f8-$p-a.csv"
	done
	say "" "| pattern | XORDET | adaptive bubble | XORDET / adaptive |" \
	    "|---|---|---|---|"
	for p in uniform transpose bitrev; do
		say "| $p | $(peak "f8-$p-x.csv") | $(peak "f8-$p-a.csv") | $(awk -v a="$(peak "f8-$p-x.csv")" -v b="$(peak "f8-$p-a.csv")" 'BEGIN { printf "%.2f", a / b }') |"
	done
	plot f8.svg "8x8 torus, uniform" "accepted (flits/cycle/node)" \
		f8-uniform-x.csv:"XORDET/2 (knsroute)" \
		f8-uniform-a.csv:"adaptive bubble (ideal)"
	say "" "![F8](sim/f8.svg)"
}

# The Clos: ftree's tables in OpenSM on ibsim, read back into DIR. The
# LIDs are the generator's (--lids, handed to OpenSM as its guid2lid
# cache), so CA indices in LID order are the addresses' order as in the
# MiKANT's dry run, and complement is the slides' bit inversion.
clos_ftree() {
	local net=$1 dir=$2
	say "    ibsim -s ${net##*/}; opensm -R ftree -Q, its guid2lid cache the LIDs of ${net##*/}" \
	    "    knsroute capture ${dir##*/} --no-path-sl"
	(
		set +eu		# lib.sh is written for the tests' shell
		KR_BUILDDIR=$build
		. "$top/tests/integ/lib.sh"
		kr_have_sim || { echo "sim-figures.sh: mikant needs ibsim and opensm" >&2; exit 2; }
		kr_tmpdir
		kr_start_ibsim "$net" || exit 2
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
			kr_sim_try /dev/null "$K" capture "$dir" --no-path-sl --quiet
	)
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

perf() {
	say "" "## Speed and memory" "" "\`bench/bench_sim\` (packet-hops per CPU" \
	    "second; each case's peak resident memory beside its LFT bytes):" ""
	if [ -x "$BENCH" ]; then
		say '```' "$("$BENCH")" '```'
	else
		say "(bench/bench_sim not built)"
	fi
}

# What the issue's figures ask for that the page does not show.
todo() {
	say "" "## Not reproduced yet" "" \
	    "F5 with the thesis' 50 fault sets per level (up to 6 here), the" \
	    "4,096-node rows of Table 3.3, OpenSM's engines on faulty KNS (F5" \
	    "compares them on the torus only), F6's minhop with OpenSM's" \
	    "multicast trees, and F7 with other engines' tables are not in this" \
	    "page."
}

# splice FRAGMENT: each "## " section of FRAGMENT replaces the section
# of docs/sim.md whose heading line is the same; an unknown one is an
# error (a renamed figure needs the whole page run).
splice() {
	awk -v frag="$1" '
	# one blank line ends every section, as say "" "## ..." leaves it
	function flush() {
		if (cur == "") return
		while (body ~ /\n\n$/) sub(/\n$/, "", body)
		sec[cur] = body "\n"
	}
	BEGIN {
		while ((getline l < frag) > 0) {
			if (l ~ /^## /) { flush(); cur = l; body = l "\n"; order[++n] = l }
			else if (cur != "") body = body l "\n"
		}
		flush()
	}
	/^## / { skip = ($0 in sec); if (skip) { printf "%s", sec[$0]; done[$0] = 1 } }
	!skip { print }
	END { for (i = 1; i <= n; i++) if (!(order[i] in done)) {
		print "sim-figures.sh: no section \"" order[i] "\" in docs/sim.md" > "/dev/stderr"; exit 3 } }
	' "$top/docs/sim.md" >"$W/page.md"
}

if [ ${#only[@]} -gt 0 ]; then
	# a section of small fabrics would pass for the real one
	if [ -n "$quick" ] && [ "$top" = "$(cd "$(dirname "$0")/.." && pwd)" ]; then
		echo "sim-figures.sh: KR_QUICK with figures only into a copy" \
		     "(KR_SRCDIR)" >&2
		exit 2
	fi
	: >"$md"
	for fig in "${only[@]}"; do
		case $fig in
		f[0-8] | f5t | bound | mikant | perf | todo) "$fig" ;;
		*) echo "sim-figures.sh: unknown figure $fig" >&2; exit 2 ;;
		esac
	done
	splice "$md"
	cp "$W/page.md" "$top/docs/sim.md"
	echo "sim-figures.sh: replaced ${only[*]} in docs/sim.md" >&2
	exit 0
fi
f0
bound
f1
f2
f3
f4
f5
f5t
f6
f7
f8
mikant
perf
todo
cp "$md" "$top/docs/sim.md"
echo "sim-figures.sh: wrote docs/sim.md and docs/sim/*.svg" >&2
