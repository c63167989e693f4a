#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Offline scaling: the dry run (`knsroute route --out`) and the check
# (`knsroute check` of what it wrote) on generated fabrics from 1K to 40K
# CAs, each next to the bound it cannot beat: dd writing as many bytes as
# the dry run writes, and zeroing as many bytes as the LFTs have entries
# (dd from /dev/zero to /dev/null, about a memset). Prints one Markdown
# table per command, with CPU seconds (user + sys as wait4 reports them),
# wall seconds (the dry run writes its dumps on a second thread while the
# check runs, so its wall time is less than its CPU time) and the largest
# resident set. Each command runs --reps times (default 3), the dry run
# and dd taking turns, and the least CPU time and the least wall time are
# kept, each on its own: a single run of a 0.03 s dd says more about the
# machine than about dd.
#
#   bench/scaling.sh [--md FILE] [--big] [--reps N] [--grouped] [BUILD_DIR]
#
# The fabrics' LIDs are in OpenSM's order: with shuffled GUIDs (`knsroute
# gen --shuffle`) a switch's CAs get LIDs far apart, as OpenSM hands them
# out; --grouped keeps the generator's order (every switch's CAs on
# consecutive LIDs), to see what the order costs.
# BUILD_DIR holds tools/knsroute (default: build-plain). --big adds the
# 16x16x16 torus with 8 CAs per switch (151 M LFT entries, a 10 GB dump).
# --md FILE also writes the tables, with the command, date and machine, to
# FILE (docs/benchmarks-offline.md). Scratch files go to $TMPDIR.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
md=
big=0
reps=3
grouped=0
build=$top/build-plain
while [ $# -gt 0 ]; do
	case $1 in
	--md) md=$2; shift 2 ;;
	--big) big=1; shift ;;
	--reps) reps=$2; shift 2 ;;
	--grouped) grouped=1; shift ;;
	-h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) build=$1; shift ;;
	esac
done
K=$build/tools/knsroute
[ -x "$K" ] || { echo "scaling.sh: no $K (build first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/kr-scaling.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

# label and `knsroute gen` arguments, smallest first
cases=(
	"torus 8x8x8 p2|torus --dims 8x8x8 --p 2"
	"kns k8 n3 p8|kns --k 8 --n 3 --p 8"
	"torus 8x8x8 p8|torus --dims 8x8x8 --p 8"
	"torus 16x16x8 p4|torus --dims 16x16x8 --p 4"
	"kns k8 n3 p32|kns --k 8 --n 3 --p 32"
	"kns k10 n3 p40|kns --k 10 --n 3 --p 40"
)
[ "$big" = 1 ] && cases+=("torus 16x16x16 p8|torus --dims 16x16x16 --p 8")

# timed OUT CMD...: runs CMD, leaves "wall user sys maxrss_kB" in OUT,
# in microseconds' detail (GNU time's are hundredths of a second): the
# least wall time of the runs so far, and the user, sys and peak of the run
# of least CPU time. Fails as CMD does.
timed() {
	local out=$1
	shift
	python3 - "$out" "$@" <<'PY'
import os, sys, time
out, argv = sys.argv[1], sys.argv[2:]
t0 = time.monotonic()
# GNU time for the peak: a child spawned by Python reports Python's own
# resident set as its peak; wait4 for the CPU time, in microseconds
rss = out + ".rss"
pid = os.posix_spawnp("/usr/bin/time",
                      ["/usr/bin/time", "-f", "%M", "-o", rss] + argv,
                      os.environ)
_, status, ru = os.wait4(pid, 0)
with open(rss) as f:
    peak = int(f.read().split()[-1])
run = [time.monotonic() - t0, ru.ru_utime, ru.ru_stime, peak]
try:
    with open(out) as f:
        old = [float(x) for x in f.read().split()]
except OSError:
    old = None
if old is not None:
    if old[1] + old[2] <= run[1] + run[2]:
        run[1:] = old[1:]
    run[0] = min(run[0], old[0])
with open(out, "w") as f:
    f.write("%.6f %.6f %.6f %d\n" % tuple(run))
sys.exit(os.waitstatus_to_exitcode(status))
PY
}

# cpu FILE: user + sys seconds of a timed file. The ratios take these
# and the wall times whole; the tables show them to a tenth of a
# millisecond (sec), a 20 ms run's ratio rounded from whole milliseconds
# being off by up to 0.08.
cpu() { awk '{ printf "%.6f", $2 + $3 }' "$1"; }
sec() { awk -v x="$1" 'BEGIN { printf "%.4f", x }'; }
field() { awk -v i="$2" '{ print $i }' "$1"; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.1f", (s > 0 ? n / s / 1e6 : 0) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

route_rows=()
check_rows=()
for c in "${cases[@]}"; do
	label=${c%%|*}
	read -r -a gen <<<"${c#*|}"
	net=$work/fabric.net
	out=$work/out
	rm -rf "$out"
	[ "$grouped" = 1 ] || gen+=(--shuffle 42)
	"$K" gen "${gen[@]}" -o "$net" >/dev/null || exit 1
	rm -f "$work"/*.t
	for ((rep = 0; rep < reps; rep++)); do
		sync
		kept=$(awk '{ print $1 }' "$work/route.t" 2>/dev/null)
		if ! timed "$work/route.t" "$K" route "$net" --out "$out" \
			>/dev/null; then
			echo "scaling.sh: $label: route failed" >&2
			exit 1
		fi
		# the summary's own timers in the run of least wall time
		[ "$(awk '{ print $1 }' "$work/route.t")" = "$kept" ] ||
			phases=$(awk '/^compute ms:/ {
					for (i = 3; i <= NF - 3; i += 2) t += $(i + 1)
					c = $NF }
				/^write ms:/ { w = $3 }
				END { printf "%.4f %.4f %.4f", t / 1000, c / 1000,
					     w / 1000 }' "$out/summary")
		if [ "$rep" = 0 ]; then
			nsw=$(grep -c '^Unicast lids' "$out/opensm-lfts.dump")
			stride=$(( $(head -n 1 "$out/opensm-lfts.dump" |
				     sed 's/^Unicast lids \[0-\([0-9]*\)\].*/\1/') + 1 ))
			cas=$(sed -n 's/^fabric:.* \([0-9]*\) CAs$/\1/p' \
				  "$out/summary")
			entries=$((nsw * stride))
			bytes=$(cat "$out"/* | wc -c)
		fi
		# each writes into a page cache without the other's files
		rm -rf "$out"
		sync
		timed "$work/dd.t" dd if=/dev/zero of="$work/dd.out" bs=1M \
			count=$(( (bytes + 1048575) / 1048576 )) status=none
		rm -f "$work/dd.out"
	done
	"$K" route "$net" --out "$out" -q >/dev/null || exit 1
	for ((rep = 0; rep < reps; rep++)); do
		timed "$work/check.t" "$K" check "$out" -q >/dev/null || {
			echo "scaling.sh: $label: check failed" >&2
			exit 1
		}
		timed "$work/zero.t" dd if=/dev/zero of=/dev/null bs=1M \
			count=$(( (entries + 1048575) / 1048576 )) status=none
	done
	rc=$(cpu "$work/route.t")
	cc=$(cpu "$work/check.t")
	ddc=$(cpu "$work/dd.t")
	rw=$(field "$work/route.t" 1)
	ddw=$(field "$work/dd.t" 1)
	read -r plan check write <<<"$phases"
	route_rows+=("| $label | $cas | $nsw | $entries | $((bytes / 1000000)) | $(sec "$rc") | $(sec "$rw") | $plan | $check | $write | $(rate "$entries" "$rw") | $(( $(field "$work/route.t" 4) / 1024 )) | $(sec "$ddc") | $(sec "$ddw") | $(ratio "$rc" "$ddc") | $(ratio "$rw" "$ddw") |")
	check_rows+=("| $label | $cas | $nsw | $entries | $(sec "$cc") | $(sec "$(field "$work/check.t" 1)") | $(rate "$entries" "$cc") | $(( $(field "$work/check.t" 4) / 1024 )) | $(ratio "$(( $(field "$work/check.t" 4) * 1024 ))" "$entries") | $(sec "$(cpu "$work/zero.t")") |")
	rm -rf "$out"
	echo "scaling.sh: $label done" >&2
done

report() {
	echo "Dry run: \`knsroute route FABRIC --out DIR\` (recognise, route, plan,"
	echo "repair, check, write every file) against dd writing the same bytes."
	echo "\"plan s\", \"check s\" and \"write s\" are the summary's own timers"
	echo "(recognition to repair; the check; the first byte written to the"
	echo "summary) in the run of least wall time: the check runs while the"
	echo "dumps are written, so write s overlaps check s."
	echo
	echo "| fabric | CAs | switches | LFT entries | MB written | CPU s | wall s | plan s | check s | write s | M entries/s (wall) | peak MB | dd CPU s | dd wall s | CPU / dd CPU | wall / dd wall |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	printf '%s\n' "${route_rows[@]}"
	echo
	echo "Check: \`knsroute check DIR\` of that output (read every dump, check"
	echo "both traffic classes), against zeroing one byte per LFT entry."
	echo
	echo "| fabric | CAs | switches | LFT entries | CPU s | wall s | M entries/s (CPU) | peak MB | peak bytes / entry | zero CPU s |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	printf '%s\n' "${check_rows[@]}"
}

report
if [ -n "$md" ]; then
	{
		echo "# Offline benchmarks"
		echo
		echo "Generated by \`bench/scaling.sh$([ "$big" = 1 ] && echo " --big")$([ "$reps" = 3 ] || echo " --reps $reps")$([ "$grouped" = 1 ] && echo " --grouped") --md $(basename "$md")\`"
		echo "on $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -srm),"
		echo "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'),"
		echo "$(nproc) cores, $(free -g | awk '/^Mem/ { print $2 }') GiB;"
		echo "knsroute $(git -C "$top" describe --always --dirty 2>/dev/null)."
		if [ "$grouped" = 1 ]; then
			echo "LIDs as the generator numbers them: each switch's CAs on"
			echo "consecutive LIDs (not OpenSM's order)."
		else
			echo "LIDs in OpenSM's order: GUIDs shuffled (\`knsroute gen"
			echo "--shuffle 42\`), so a switch's CAs get LIDs far apart."
		fi
		echo "CPU seconds are user + sys of the whole command; peak is the"
		echo "largest resident set. Each command ran $reps times, taking turns"
		echo "with dd; each row keeps the least wall time and, on its own, the"
		echo "run of least CPU time (and its peak). Do not edit: rerun the"
		echo "command."
		echo
		report
	} >"$md.tmp.$$" && mv "$md.tmp.$$" "$md"
fi
