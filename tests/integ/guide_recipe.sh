#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# docs/user-guide.md's "Validating a live fabric", run as the guide writes
# it: its sh blocks are taken from the markdown here, so the guide and the
# test cannot drift apart. The fabric is a 3x3 torus with LMC 1 routed by
# the knsroute plugin in stock opensm (QoS on) on ibsim; every block must
# exit 0 with an OK verdict, but the three classic ones, which leave out
# SL2VL maps or path SLs: exit 3, UNPROVEN, as the guide says. `knsroute` is the built binary (first on
# PATH) and every process runs with umad2sim preloaded, as the guide says
# to run it under ibsim. Only OpenSM's dump and cache directories are
# replaced by the test's own (one here), and the "paths" file the classic recipe
# names (saquery -p output) is made with saquery -p per pair beforehand.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/readback.sh"

GUIDE=$KR_SRCDIR/docs/user-guide.md
NBLOCKS=6

kr_plan $((NBLOCKS + 2))
kr_tmpdir
if ! kr_plugin_ready || [ ! -x "$KR_CLI" ]; then
	kr_skip_rest "needs ibsim, opensm, infiniband-diags and a built plugin"
	kr_done
fi
if "$KR_CLI" capture "$KR_TMP/none" 2>&1 | grep -q "built without"; then
	kr_skip_rest "knsroute built without libibnetdisc, libibmad, libibumad"
	kr_done
fi
T=$KR_TMP

# The sh blocks of the section, NUL-separated.
awk '/^## / { in_sec = ($0 == "## Validating a live fabric") ; next }
     in_sec && /^```sh$/ { blk = 1; next }
     in_sec && blk && /^```$/ { blk = 0; printf "%c", 0; next }
     in_sec && blk { print }' "$GUIDE" >"$T/blocks"
mapfile -d '' BLOCK <"$T/blocks"
[ "${#BLOCK[@]}" -eq "$NBLOCKS" ] && [[ ${BLOCK[0]} == *"knsroute capture fabric && knsroute check fabric"* ]]
kr_ok $? "the guide's section has $NBLOCKS sh blocks, the first one 'capture && check'"

"$KR_CLI" gen torus --dims 3x3 --p 1 -o "$T/t33.net"
kr_plugin_conf "$T/opensm.conf" "lmc 1"
# "paths": saquery -p for every CA port to every LID of every other CA port
# (a bare `saquery -p` returns junk records under ibsim).
paths() {
	local s d dl lmc
	: >"$T/ibnd" && kr_sim_try "$T/ibnd" ibnetdiscover &&
		kr_capture_ports "$T/ibnd" | awk '$2 == "CA"' >"$T/cas" || return 1
	while read -r s _ _; do
		while read -r d _ lmc; do
			[ "$s" = "$d" ] && continue
			for dl in $(seq "$d" $((d + (1 << lmc) - 1))); do
				kr_sim_try "$1" saquery -p --src-to-dst "$s:$dl" || return 1
			done
		done <"$T/cas"
	done <"$T/cas"
}

mkdir -p "$T/bin" "$T/work" && ln -sf "$KR_CLI" "$T/bin/knsroute"
kr_start_ibsim "$T/t33.net" && kr_start_opensm -F "$T/opensm.conf" -D 0x43 &&
	kr_wait_sm 90 && paths "$T/work/paths"
kr_ok $? "ibsim and opensm with the knsroute plugin, LMC 1; saquery -p per CA pair"

# The classic recipes give no SL2VL maps (block 3) or no path SLs (blocks
# 4 and 5, the second OpenSM's dump directory alone), and this engine
# spreads pairs over SLs and VLs: the guide says such a check is
# UNPROVEN, exit 3. Block 6 adds multicast to the capture of block 1.
for i in "${!BLOCK[@]}"; do
	b=${BLOCK[i]//\/var\/log\//$KR_OSM_DIR/}
	b=${b//\/var\/cache\/opensm\//$KR_OSM_DIR/}
	want=0 verdict=OK
	[ "$i" -ge 2 ] && [ "$i" -le 4 ] && want=3 verdict=UNPROVEN
	(cd "$T/work" && PATH="$T/bin:$PATH" LD_PRELOAD="$KR_PRELOAD" \
		bash -c "$b") >"$T/out.$i" 2>"$T/err.$i"
	rc=$?
	[ $rc -eq $want ] && grep -q "^verdict: $verdict" "$T/out.$i"
	ok=$?
	if [ $ok -ne 0 ]; then
		echo "# block $((i + 1)) exit $rc; its stdout and stderr tails:" >&2
		tail -n 5 "$T/out.$i" "$T/err.$i" | sed 's/^/#   /' >&2
	fi
	kr_ok $ok "block $((i + 1)): $(head -n 1 <<<"$b")"
done

kr_stop_opensm
kr_stop_ibsim
kr_done
