#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Generated fabrics in ibsim, routed by OpenSM's own minhop engine: every
# endpoint gets a LID, and what ibnetdiscover reads back from the simulator
# parses to the generated graph (same node and port GUIDs, same cabling).
# This ties our writer, ibsim's reader, ibnetdiscover's output and our
# parser together with real tools in the middle.
. "$(dirname "$0")/lib.sh"

FABRICS=("kns --k 4 --n 2 --p 2" "torus --dims 4x4 --p 1")
PER_FABRIC=7

kr_tmpdir
kr_plan $(( ${#FABRICS[@]} * PER_FABRIC ))
if ! kr_have_sim; then
	kr_skip_rest "ibsim, opensm, ibnetdiscover or libumad2sim not installed"
	kr_done
fi
if [ ! -x "$KR_CLI" ]; then
	kr_skip_rest "knsroute not built at $KR_CLI"
	kr_done
fi

# First inter-switch link of a net file as ibsim's console names a port:
# "NODE"[PORT] (two passes: switch names first, then their port lines).
first_isl() {
	awk 'NR == FNR { if ($1 == "Switch") { split($0, q, "\""); sw[q[2]] = 1 }; next }
	     $1 == "Switch" { split($0, q, "\""); cur = q[2]; next }
	     /^\[/ && cur != "" { split($0, q, "\"")
		if (q[2] in sw) { print "\"" cur "\"" substr($1, 1, index($1, "]")); exit } }
	     /^$/ { cur = "" }' "$1" "$1"
}

# Fields of `knsroute info --json` by key, without a JSON tool.
json_field() {
	grep -o "\"$1\": [^,}]*" "$2" | head -n 1 | sed 's/^[^:]*: //; s/"//g'
}

run_fabric() {
	local spec=$1 dir i
	dir="$KR_TMP/$(echo "$spec" | tr -c 'a-z0-9\n' _)"
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	"$KR_CLI" gen $spec -o "$dir/gen.net"
	kr_ok $? "$spec: generated"

	if ! kr_start_ibsim "$dir/gen.net"; then
		for i in $(seq 2 "$PER_FABRIC"); do
			kr_ok 1 "$spec: ibsim did not start"
		done
		return
	fi
	kr_ok 0 "$spec: ibsim started"

	kr_run_opensm_once -R minhop
	kr_ok $? "$spec: opensm -o -R minhop configured the subnet"

	: >"$dir/disc.net"
	kr_sim_try "$dir/disc.net" ibnetdiscover
	"$KR_CLI" info --json "$dir/disc.net" >"$dir/disc.json"
	kr_ok $? "$spec: ibnetdiscover output parses"

	[ "$(json_field present "$dir/disc.json")" = all ] &&
		[ "$(json_field with_lid "$dir/disc.json")" -gt 0 ] &&
		! grep -q '^\[[0-9]*\]([0-9a-f]*).*# lid 0 ' "$dir/disc.net"
	kr_ok $? "$spec: every switch and CA port has a LID"

	"$KR_CLI" info --nodes "$dir/gen.net" >"$dir/gen.nodes" &&
	"$KR_CLI" info --links "$dir/gen.net" >"$dir/gen.links" &&
	"$KR_CLI" info --nodes "$dir/disc.net" >"$dir/disc.nodes" &&
	"$KR_CLI" info --links "$dir/disc.net" >"$dir/disc.links" &&
	cmp -s "$dir/gen.nodes" "$dir/disc.nodes" &&
	cmp -s "$dir/gen.links" "$dir/disc.links" &&
	[ -s "$dir/gen.links" ]
	kr_ok $? "$spec: discovered graph equals the generated one"

	# Take one inter-switch link down in the simulator: exactly that link
	# disappears from what ibnetdiscover sees.
	: >"$dir/down.net"
	kr_ibsim_cmd "Unlink $(first_isl "$dir/gen.net")" &&
	kr_sim_try "$dir/down.net" ibnetdiscover &&
	"$KR_CLI" info --links "$dir/down.net" >"$dir/down.links" &&
	[ "$(comm -23 "$dir/gen.links" "$dir/down.links" | wc -l)" -eq 1 ] &&
	[ -z "$(comm -13 "$dir/gen.links" "$dir/down.links")" ]
	kr_ok $? "$spec: a link unplugged in ibsim is missing, nothing else"

	kr_stop_ibsim
}

for spec in "${FABRICS[@]}"; do
	run_fabric "$spec"
done
kr_done
