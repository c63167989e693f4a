#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# knsroute sim as a command, on tables from `knsroute gen` + `route`:
# the same seed gives the same bytes, every injected packet is delivered,
# dropped or still queued, uniform traffic never beats the bound the
# check's link load sets, tables with a credit loop deadlock under load
# (the watchdog names the ring) while knsroute's own do not, sweeps run as
# processes give the single runs' output, bad input names file and line.
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 28
if [ ! -x "$KR_CLI" ]; then
	kr_skip_rest "knsroute not built"
	kr_done
fi
T=$KR_TMP

# fabric NAME GEN-ARGS...: $T/NAME (route output) from `knsroute gen`.
fabric() {
	local name=$1
	shift
	"$KR_CLI" gen "$@" -o "$T/$name.net" &&
		"$KR_CLI" route "$T/$name.net" --out "$T/$name" >/dev/null
}

sim() {
	"$KR_CLI" sim "$@" 2>"$T/err"
}

fabric t44 torus --dims 4x4 --p 4 &&
	fabric m44 mesh --dims 4x4 --p 2 &&
	fabric k42 kns --k 4 --n 2 --p 4 &&
	fabric ring8 torus --dims 8 --p 2 &&
	"$KR_CLI" gen torus --dims 4x4 -o "$T/l44.net" &&
	"$KR_CLI" route "$T/l44.net" --lmc 1 --out "$T/l44" >/dev/null &&
	"$KR_CLI" gen torus --dims 8x8 -o "$T/t88.net" &&
	"$KR_CLI" route "$T/t88.net" --out "$T/t88" >/dev/null &&
	"$KR_CLI" route "$T/t88.net" --classify none --out "$T/t88-1" >/dev/null &&
	fabric ring80 torus --dims 80
kr_ok $? "fabrics generated and routed"

"$KR_CLI" sim --help >"$T/help" &&
	grep -q "JSON keys" "$T/help" && grep -q "Exit status" "$T/help"
kr_ok $? "--help documents the JSON keys and the exit status"

sim "$T/t44" --pattern nosuch
[ $? -eq 2 ] && grep -q 'no pattern "nosuch"' "$T/err"
kr_ok $? "an unknown pattern: exit 2, named"

printf '0x0002c90000000000 1 low 0:64\nbogus\n' >"$T/bad.vlarb"
sim "$T/t44" --vlarb "$T/bad.vlarb"
[ $? -eq 2 ] && grep -q "bad.vlarb:2: expected" "$T/err"
kr_ok $? "a bad vlarb file: exit 2 naming FILE:LINE"

sim "$T/t44" --json --seed 7 >"$T/a.json" &&
	sim "$T/t44" --json --seed 7 >"$T/b.json" &&
	sim "$T/t44" --json --seed 8 >"$T/c.json" &&
	cmp -s "$T/a.json" "$T/b.json" && ! cmp -s "$T/a.json" "$T/c.json"
kr_ok $? "the same seed gives byte-identical JSON, another seed not"

# Presets set the papers' parameters; options given win wherever they are.
sim "$T/t44" --preset thesis11 --cycles 2000 --json >"$T/p1.json" &&
	sim "$T/t44" --packet 32 --preset thesis11 --cycles 2000 --json >"$T/p2.json" &&
	sim "$T/t44" --preset nosuch
[ $? -eq 2 ] && grep -q -- "--preset expects" "$T/err" && python3 - "$T"/p1.json "$T"/p2.json <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["packet_credits"] == 16 and b["packet_credits"] == 32
# thesis11: 300 packet times of warm-up, then the 2000 cycles asked
assert a["cycles"] == 300 * 16 + 2000 and b["cycles"] == 300 * 32 + 2000
PY
kr_ok $? "--preset thesis11: its packet size and run length; options win"

# Per-link utilisation: a line per linked port, its share of the measured
# cycles; the switch-switch ones give the JSON's max.
sim "$T/t44" --json --seed 7 --links "$T/links.csv" >"$T/l.json" &&
	cmp -s "$T/a.json" "$T/l.json" && python3 - "$T/links.csv" "$T/l.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
r = json.load(open(sys.argv[2]))
u = [float(x["utilisation"]) for x in rows]
sw = [float(x["utilisation"]) for x in rows
      if x["node"].startswith("switch") and x["peer"].startswith("switch")]
assert len(rows) == 2 * (32 + 64) and all(0 <= x <= 1 for x in u)
assert abs(max(sw) - r["link_util_max"]) < 1e-6
PY
kr_ok $? "--links: every linked port's utilisation, the JSON's max among them"

python3 - "$T/a.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
need = ["offered", "accepted", "accepted_flits_per_cycle_per_node",
        "latency_mean", "latency_p99", "injected", "delivered", "queued",
        "deadlock", "deadlock_cycle"]
assert all(k in r for k in need), [k for k in need if k not in r]
assert r["injected"] == r["delivered"] + r["dropped"] + r["queued"]
assert r["delivered"] > 0 and not r["deadlock"] and r["deadlock_cycle"] == []
PY
kr_ok $? "JSON has the issue's keys; injected = delivered + dropped + queued"

# Uniform traffic loads a link with L of the N(N-1) pairs' paths, so no CA
# can be accepted above (N-1)/L of link rate (nor above 1); 2% for noise.
bound_ok() {
	local dir=$1
	"$KR_CLI" check "$dir" --json >"$T/check.json" 2>/dev/null
	sim "$dir" --json >"$T/sim.json" || return 1
	python3 - "$T/check.json" "$T/sim.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
bound = min(1.0, (s["cas"] - 1) / c["links"]["max"])
print("# %s CAs, max link load %d: bound %.3f, accepted %.3f" %
      (s["cas"], c["links"]["max"], bound, s["accepted"]))
assert s["offered"] > bound and 0 < s["accepted"] <= bound * 1.02
PY
}
bound_ok "$T/t44"
kr_ok $? "4x4 torus, 4 CAs each: accepted <= link rate / max channel load"
bound_ok "$T/m44"
kr_ok $? "4x4 mesh, 2 CAs each: accepted <= link rate / max channel load"
bound_ok "$T/k42"
kr_ok $? "4-ary 2-direct KNS, 4 CAs each: accepted <= link rate / max channel load"

# The ring's own tables with their SL2VL maps left out: every SL on VL 0,
# which check reports as a (assumed) credit loop; under full load it fills.
R=$T/ring8
"$KR_CLI" check "$R/topology.net" --lfts "$R/opensm-lfts.dump" \
	--path-sl "$R/path-sl" >/dev/null 2>&1
[ $? -eq 3 ]
kr_ok $? "check: the 8-ring's tables on one VL have a credit loop"

sim "$R/topology.net" --lfts "$R/opensm-lfts.dump" --path-sl "$R/path-sl" \
	--buffer-vl 128 --json >"$T/dl.json"
rc=$?
python3 - "$T/dl.json" <<'PY' && [ $rc -eq 1 ]
import json, re, sys
r = json.load(open(sys.argv[1]))
cyc = r["deadlock_cycle"]
assert r["deadlock"] and len(cyc) >= 2, r
# the channels of one direction of the ring, each its own switch, VL 0
sw = [re.fullmatch(r"switch\((\d)\)\[(\d)\] VL 0", c) for c in cyc]
assert all(sw) and len({m.group(2) for m in sw}) == 1
assert len({m.group(1) for m in sw}) == len(cyc)
assert r["injected"] == r["delivered"] + r["dropped"] + r["queued"]
PY
kr_ok $? "on one VL the ring deadlocks: exit 1, the cycle as switch[port] VL v"

sim "$R/topology.net" --lfts "$R/opensm-lfts.dump" --path-sl "$R/path-sl" \
	--buffer-vl 128 >"$T/dl.txt"
grep -q "^DEADLOCK at cycle" "$T/dl.txt" && grep -q "^  switch(.)\[.\] VL 0" "$T/dl.txt"
kr_ok $? "the text report prints the deadlock's channels"

sim "$R" --buffer-vl 128 --json >"$T/ok.json" &&
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert not r["deadlock"] and r["delivered"] > 0' "$T/ok.json"
kr_ok $? "the same ring with knsroute's SL2VL maps: no deadlock at full load"

sim "$T/m44" --sweep 0.3,0.9 --jobs 2 --json >"$T/sweep.json" &&
	sim "$T/m44" --load 0.3 --json >"$T/s1.json" &&
	sim "$T/m44" --load 0.9 --json >"$T/s2.json" &&
	cat "$T/s1.json" "$T/s2.json" | cmp -s - "$T/sweep.json"
kr_ok $? "--sweep with --jobs 2: the single runs' output, in load order"

# The same sweep as a job array (what a Slurm array task runs), on localhost.
for i in 1 0; do
	SLURM_ARRAY_TASK_ID=$i KNSROUTE=$KR_CLI "$KR_SRCDIR/scripts/sim-array.sh" \
		run "$T/array" 0.3,0.9 "$T/m44" --json 2>/dev/null || break
done
"$KR_SRCDIR/scripts/sim-array.sh" merge "$T/array" | cmp -s - "$T/sweep.json"
kr_ok $? "scripts/sim-array.sh tasks merged: the sweep's output"

# Tornado on the 4x4 torus: every flow meets the same bottleneck, so the
# packets reach the max-min fair rate of the flow level.
sim "$T/t44" --pattern tornado --json >"$T/tp.json" &&
	sim "$T/t44" --pattern tornado --flow --json >"$T/tf.json" &&
	python3 - "$T/tp.json" "$T/tf.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
f = json.load(open(sys.argv[2]))
print("# tornado: packet level %.4f, flow level %.4f" % (p["accepted"], f["accepted"]))
assert f["mode"] == "flow" and f["unrouted"] == 0 and f["flows"] == 64
assert abs(p["accepted"] - f["accepted"]) <= 0.05 * f["accepted"]
PY
kr_ok $? "packet and flow level agree on tornado (within 5%)"

# 39 hops the same way round an 80-ring: no path is cut short, and each
# link carries 39 flows, so each gets 1/39 of it
sim "$T/ring80" --flow --pattern shift --shift 39 --json >"$T/r80f.json" &&
	sim "$T/ring80" --pattern shift --shift 39 --load 0.02 --json >"$T/r80p.json" &&
	python3 - "$T/r80f.json" "$T/r80p.json" <<'PY'
import json, sys
f, p = (json.load(open(x)) for x in sys.argv[1:])
assert f["flows"] == 80 and f["unrouted"] == 0
assert abs(f["accepted"] - 1 / 39) < 1e-5 and f["rate_min"] == f["accepted"]
assert p["dropped"] == 0 and not p["deadlock"]
assert abs(p["accepted"] - p["offered"]) < 0.05 * p["offered"]
PY
kr_ok $? "paths of 40 switches: delivered at flow and packet level"

sim "$T/t44" --flow --json --flow-samples 4 >"$T/ebb.json" &&
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["samples"] == 4 and r["flows"] > 0 and 0 < r["rate_min"] <= r["accepted"] <= 1' "$T/ebb.json"
kr_ok $? "flow level uniform: the mean of 4 random permutations' fair rates"

# LMC 1: offset 0 routes x first, offset 1 y first. Transpose sends every
# pair through the same corner turns on one order; spreading packets over
# both (round-robin or least occupied) gets far more through.
for how in fixed rr least; do
	sim "$T/l44" --pattern transpose --lmc-path $how --json >"$T/lmc-$how.json" || break
done
python3 - "$T"/lmc-{fixed,rr,least}.json <<'PY'
import json, sys
fixed, rr, least = (json.load(open(p))["accepted"] for p in sys.argv[1:])
print("# transpose accepted: fixed %.3f, rr %.3f, least %.3f" % (fixed, rr, least))
assert rr > 1.5 * fixed and least > 1.5 * fixed
PY
kr_ok $? "--lmc-path rr and least use both dimension orders"

# A tiny F3: a quarter of the CAs send only to one, the rest uniformly to
# the others at 30% of link rate. With one class the hot tree's packets
# block the cold ones at every input FIFO they share; XORDET's classes keep
# the cold traffic off half of them, and VOQnet (a queue per destination)
# off all.
for run in "t88-1" "t88" "t88 --ideal voqnet"; do
	# shellcheck disable=SC2086
	set -- $run
	sim "$T/$1" "${@:2}" --pattern hotspot --load 0.3 --json \
		>"$T/hot-$1${2:+-voqnet}.json" || break
done
python3 - "$T"/hot-t88-1.json "$T"/hot-t88.json "$T"/hot-t88-voqnet.json <<'PY'
import json, sys
one, xor, voq = (json.load(open(p)) for p in sys.argv[1:])
cold = [r["accepted_cold"] / r["offered_cold"] for r in (one, xor, voq)]
print("# cold accepted / offered: one class %.3f, xordet %.3f, voqnet %.3f" % tuple(cold))
assert all(r["accepted_hot"] > 0.95 for r in (one, xor, voq))
assert cold[1] > 1.1 * cold[0] and cold[2] >= cold[1]
assert voq["ideal"].startswith("voqnet") and one["ideal"] is None
PY
kr_ok $? "hot spot on an 8x8 torus: cold traffic one class < xordet <= VOQnet"

# Permutations on CA indices: the flows are the CAs that do not map to
# themselves. On 64 CAs bit reversal fixes the 8 six-bit palindromes,
# transpose the 8 on the diagonal; complement and tornado fix none.
ok=0
for p in bitrev:56 transpose:56 complement:64 tornado:64 shift:64; do
	sim "$T/t44" --flow --pattern "${p%%:*}" --json >"$T/perm.json" &&
		[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["flows"])' "$T/perm.json")" = "${p#*:}" ] ||
		{ echo "# ${p%%:*}: not ${p#*:} flows"; ok=1; }
done
for p in zipf randperm hotspot; do
	sim "$T/t44" --pattern $p --load 0.5 --json >"$T/pat.json" &&
		python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["delivered"] > 0 and r["injected"] == r["delivered"] + r["dropped"] + r["queued"]' "$T/pat.json" ||
		{ echo "# $p failed"; ok=1; }
done
[ $ok -eq 0 ]
kr_ok $? "permutations have their fixed points; zipf, randperm, hotspot conserve packets"

# All-to-all: every CA sends one packet to every other; no CA can finish
# before its N-1 packets crossed its own link.
sim "$T/m44" --pattern alltoall --load 1 --json >"$T/a2a.json" &&
	python3 - "$T/a2a.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
n = r["cas"]
assert r["delivered"] == n * (n - 1) and r["queued"] == 0
assert r["completion"] >= (n - 1) * r["packet_credits"]
print("# all-to-all of %d CAs complete at cycle %d" % (n, r["completion"]))
PY
kr_ok $? "all-to-all: every pair once, completion after N-1 packet times"

# A transient hot spot: hot senders turn to the hot CA at cycle 20000 and
# back once 300 hot packets arrived; what they queued meanwhile drains,
# then the windows see no hot traffic.
sim "$T/t44" --pattern hotspot --load 0.3 --hot-start 20000 --hot-packets 300 \
	--warmup 0 --cycles 200000 --window 10000 --json >"$T/tr.json" &&
	python3 - "$T/tr.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["windows"]
hot = [x["accepted_hot"] for x in w]
assert hot[0] == hot[1] == 0 and max(hot) > 0, hot
last = max(i for i, h in enumerate(hot) if h > 0)
assert last < len(hot) - 2 and all(h == 0 for h in hot[last + 1:]), hot
# at least the 300 packets of 64 credits, over windows of 10000 cycles
assert sum(hot) * 10000 / 64 >= 300 - 1e-6, sum(hot)
PY
kr_ok $? "hot spot transient: hot traffic starts at --hot-start, ends after --hot-packets"

# The adaptive bubble router (an ideal baseline): never deadlocks on a
# torus or a mesh at full load, and routing around the corner turns that
# dimension order funnels transpose through gets far more of it across.
sim "$T/t88" --ideal adaptive-bubble --json >"$T/ab.json" &&
	sim "$T/m44" --ideal adaptive-bubble --json >"$T/abm.json" &&
	python3 - "$T/ab.json" "$T/abm.json" <<'PY'
import json, sys
for p in sys.argv[1:]:
    r = json.load(open(p))
    assert not r["deadlock"] and r["dropped"] == 0 and r["accepted"] > 0.3, r
    assert r["injected"] == r["delivered"] + r["queued"]
    assert r["ideal"].startswith("adaptive-bubble")
PY
kr_ok $? "adaptive bubble router: torus and mesh at full load, no deadlock"

sim "$T/t88" --pattern transpose --json >"$T/tr-det.json" &&
	sim "$T/t88" --pattern transpose --ideal adaptive-bubble --json >"$T/tr-ab.json" &&
	python3 - "$T/tr-det.json" "$T/tr-ab.json" <<'PY'
import json, sys
det, ab = (json.load(open(p))["accepted"] for p in sys.argv[1:])
print("# transpose: LFT routes %.3f, adaptive bubble %.3f" % (det, ab))
assert ab > 1.5 * det
PY
kr_ok $? "adaptive bubble router beats dimension order on transpose"

sim "$T/k42" --ideal adaptive-bubble
[ $? -eq 2 ] && grep -q "needs a torus or a mesh" "$T/err"
kr_ok $? "adaptive bubble router on a KNS: exit 2, why"

kr_done
