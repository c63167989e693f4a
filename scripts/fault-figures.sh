#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The fault-tolerance figures of docs/faults.md: `knsroute faults` on the
# fabrics the KNS thesis measures, written as one markdown file.
#
#   scripts/fault-figures.sh [KNSROUTE]
#
# KNSROUTE is the binary to run (default: knsroute in PATH). Environment:
# TRIALS trials per run (default 200), SEED (default 1), SHUFFLE the seed of
# the fabrics' shuffled GUIDs and ports (default 7), OUT the file to
# write (default docs/faults.md next to this script), BUILT_FROM what the
# binary was built from (default: this tree's `git describe --dirty`). The
# file appears whole or not at all. Needs jq. Exit 0 written, 2 a run or
# the write failed.
set -u -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
K=${1:-$(command -v knsroute)}
TRIALS=${TRIALS:-200}
SEED=${SEED:-1}
SHUFFLE=${SHUFFLE:-7}
OUT=${OUT:-$top/docs/faults.md}
BUILT_FROM=${BUILT_FROM:-$(git -C "$top" describe --always --dirty 2>/dev/null)}

die() {
	echo "fault-figures: $*" >&2
	exit 2
}

if [ -z "$K" ] || [ ! -x "$K" ]; then
	die "no knsroute binary (give its path as \$1)"
fi
command -v jq >/dev/null || die "jq is needed"
[[ $TRIALS =~ ^[1-9][0-9]*$ ]] || die "TRIALS must be a positive number"

work=$(mktemp -d "${TMPDIR:-/tmp}/fault-figures.XXXXXX") || exit 2
tmp="$OUT.tmp.$$"
trap 'rm -rf "$work"; rm -f "$tmp"' EXIT

# name | gen arguments | faults arguments | what the thesis says about it
RUNS=(
	"kns10x3|kns --k 10 --n 3 --p 1 --shuffle $SHUFFLE|--random 10|>= 99.5% of fault sets supported with one intermediate"
	"kns10x3|kns --k 10 --n 3 --p 1 --shuffle $SHUFFLE|--random 10 --max-intermediates 1|>= 99.5% of fault sets supported with one intermediate"
	"kns10x3|kns --k 10 --n 3 --p 1 --shuffle $SHUFFLE|--random 10 --max-intermediates 1 --classes 2|>= 99.5% of fault sets supported with one intermediate"
	"kns10x3|kns --k 10 --n 3 --p 1 --shuffle $SHUFFLE|--random 15 --max-intermediates 2|>= 99.98% of fault sets supported with two intermediates"
	"kns10x3|kns --k 10 --n 3 --p 1 --shuffle $SHUFFLE|--random 15 --max-intermediates 2 --classes 2|>= 99.98% of fault sets supported with two intermediates"
	"kns32x2|kns --k 32 --n 2 --p 1 --shuffle $SHUFFLE|--random 10|"
	"kns32x2|kns --k 32 --n 2 --p 1 --shuffle $SHUFFLE|--random 23|below 80% of fault sets supported with two intermediates"
	"torus8x8x8|torus --dims 8x8x8 --p 1 --shuffle $SHUFFLE|--random 10|"
)

now() { date +%s.%N; }

# Runs i: writes $work/run$i.{json,cmd,secs}.
run_one() {
	local i=$1 name gen args note t0 rc
	IFS='|' read -r name gen args note <<<"${RUNS[i]}"
	if [ ! -e "$work/$name.net" ]; then
		# shellcheck disable=SC2086 # the argument lists split on purpose
		"$K" gen $gen -o "$work/$name.net" || die "gen $gen failed"
	fi
	echo "fault-figures: $name $args, $TRIALS trials" >&2
	t0=$(now)
	# shellcheck disable=SC2086
	"$K" faults "$work/$name.net" $args --trials "$TRIALS" --seed "$SEED" \
		--json -q >"$work/run$i.json"
	rc=$?
	[ $rc -le 1 ] || die "knsroute faults $name $args failed (exit $rc)"
	awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }' >"$work/run$i.secs"
	printf '%s\n' "knsroute gen $gen -o $name.net" \
		"knsroute faults $name.net $args --trials $TRIALS --seed $SEED --json -q" \
		>"$work/run$i.cmd"
}

# "12.3%" of a share, "n/a" for null.
pct() {
	jq -r --arg k "$2" '.[$k] | if . == null then "n/a"
		else (. * 1000 | round / 10 | tostring) + "%" end' "$1"
}

table() {
	echo "| figure | value |"
	echo "|---|---|"
	jq -r 'to_entries[] | "| \(.key) | \(.value // "null" | tostring |
		gsub("\\|"; "\\|")) |"' "$1"
}

section() {
	local i=$1 name gen args note secs
	IFS='|' read -r name gen args note <<<"${RUNS[i]}"
	secs=$(cat "$work/run$i.secs")
	echo
	echo "## $(jq -r .fabric "$work/run$i.json" | cut -d: -f1): $args"
	echo
	echo '```'
	cat "$work/run$i.cmd"
	echo '```'
	echo
	awk -v s="$secs" -v n="$TRIALS" 'BEGIN { printf "Wall time %.0f s " \
		"for %d trials, %.2f s per trial.\n", s, n, s / n }'
	[ -n "$note" ] && echo "Thesis: $note."
	echo
	table "$work/run$i.json"
}

# One row of the comparison: run i, intermediates N, what the thesis says.
compare_row() {
	local f="$work/run$1.json" n=$2 thesis=$3 r h opts
	r=routable_le${n}_intermediate h=handled_le${n}_intermediate
	[ "$n" = 1 ] || { r=${r}s; h=${h}s; }
	opts=$(cut -d'|' -f3 <<<"${RUNS[$1]}" | sed 's/--random [0-9]* *//')
	printf '| %s, %s%s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
		"$(jq -r '.fabric | sub(" 1-indirect.*"; "")' "$f")" \
		"$(jq -r --argjson n "$n" '"\(.faults) link faults, <= \($n) " +
			(if $n > 1 then "intermediates" else "intermediate" end)' "$f")" \
		"${opts:+ (\`$opts\`)}" "$thesis" \
		"$(jq -r --arg r "$r" '((.connected_trials * .[$r]) / .trials *
			1000 | round / 10 | tostring) + "%"' "$f")" \
		"$(pct "$f" "$r")" "$(pct "$f" "$h")" "$(pct "$f" handled_total)" \
		"$(pct "$f" pairs_sl_changed)" "$(pct "$f" paths_detour_layer)" \
		"$(pct "$f" disconnected)"
}

comparison() {
	cat <<EOF

## Against the thesis

The thesis counts a fault set as supported when every source-destination
pair whose Hybrid-DOR path is cut has a fault-free Hybrid-DOR path through
at most one (two) intermediate routers, and fault sets that physically
disconnect the network as not supported. "Routable, all sets" is that
measure here; "routable, connected" and the knsroute columns are shares
of the connected fault sets. knsroute's "same bound" counts a fault set
when every repaired path uses at most that many intermediates, on its own
SL or on a layer of repaired trees (an SL and VL of their own: the thesis'
extra virtual channel); "SL changed" is the share of all CA pairs whose
destination moved off its SL to such a layer or to up*/down*, "up*/down*"
the share routed there. $TRIALS fault sets per row, seed $SEED.

| fabric, faults | thesis | routable, all sets | routable, connected | knsroute, same bound | knsroute, any repair | SL changed | up*/down* | disconnected |
|---|---|---|---|---|---|---|---|---|
EOF
	compare_row 0 1 ">= 99.5% supported"
	compare_row 1 1 ">= 99.5% supported"
	compare_row 2 1 ">= 99.5% supported"
	compare_row 3 2 ">= 99.98% supported"
	compare_row 4 2 ">= 99.98% supported"
	compare_row 6 2 "< 80% supported"
	cat <<EOF

With the default \`max_intermediates 2\` a destination keeps a path through
two intermediates on its own SL rather than move pairs off it, so the
one-intermediate share of the first row is what SL stability leaves.
\`--max-intermediates 1\` prefers one intermediate on a layer of repaired
trees (the thesis' extra virtual channel), and \`--classes 2\` leaves XORDET
two destination classes instead of four and so four such layers instead
of two.
EOF
}

write_doc() {
	cat <<EOF
# Fault experiments

Generated by \`scripts/fault-figures.sh\` (do not edit by hand: rerun it)
on $(date -u '+%Y-%m-%d %H:%M UTC'), \`$(uname -srm)\`,
$("$K" --version) built from ${BUILT_FROM:-an unknown tree}, $TRIALS trials
per run, seed $SEED; load average at the start $(cut -d' ' -f1-3 /proc/loadavg)
(wall times grow with it).

Each run recognises and plans the intact fabric once, then in every trial
removes random inter-switch links, routes, plans SLs and VLs, repairs and
checks, and puts the links back (\`knsroute faults --help\` and
knsroute(8) define every figure). Shares of trials (\`disconnected\`,
\`handled_*\`, \`routable_*\`) are fractions of the trials, or of the
connected ones; \`paths_*\` and \`pairs_*\` are fractions of all CA-to-CA
pairs over all trials. \`routable_*\` is the thesis' measure, computed from
the dimension-order tables before repair and without regard to credit
loops; \`handled_*\` is what knsroute's repair and check delivered.

The fabrics are numbered as a live subnet numbers them: \`knsroute gen
--shuffle $SHUFFLE\` draws every node's GUID, every switch's port numbers
and the order of the records at random, so the LIDs (handed out in that
order) say nothing about where a CA sits, and no result can lean on the
generator's numbering.
EOF
	if [ "$TRIALS" -lt 200 ]; then
		cat <<EOF

The script's default is 200 trials per run; this file was made with
TRIALS=$TRIALS to finish in minutes (the per-trial times below say why).
EOF
	fi
	for i in "${!RUNS[@]}"; do
		section "$i"
	done
	comparison
}

for i in "${!RUNS[@]}"; do
	run_one "$i"
done
write_doc >"$tmp" || die "cannot write $tmp"
mv -f "$tmp" "$OUT" || die "cannot write $OUT"
echo "fault-figures: wrote $OUT" >&2
