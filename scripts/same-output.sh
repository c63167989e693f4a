#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# For a change that must not change behaviour (a refactor): builds REV in
# a scratch worktree and compares, file by file, the dry runs of REV and
# of BUILD_DIR's knsroute on the same fabrics: a KNS, a torus, a faulty
# KNS, a faulty torus and a KNS with fat-tree subnets (s > 1), each with
# shuffled GUIDs and ports. summary is left out: it reports run times.
# Usage: scripts/same-output.sh REV BUILD_DIR [SCRATCH]
# Exit 0 when every file is byte for byte the same, 1 otherwise.
set -u
rev=${1:?usage: same-output.sh REV BUILD_DIR [SCRATCH]}
new=$(cd "${2:?usage: same-output.sh REV BUILD_DIR [SCRATCH]}" && pwd)/tools/knsroute
top=$(cd "$(dirname "$0")/.." && pwd)
scratch=${3:-$(mktemp -d)}
tree=$scratch/tree

[ -x "$new" ] || { echo "same-output: no $new" >&2; exit 2; }
git -C "$top" worktree add -f --detach "$tree" "$rev" >/dev/null 2>&1 ||
	{ echo "same-output: cannot check out $rev" >&2; exit 2; }
trap 'git -C "$top" worktree remove -f "$tree" >/dev/null 2>&1' EXIT
"$tree/scripts/build.sh" "$scratch/build" >/dev/null ||
	{ echo "same-output: $rev does not build" >&2; exit 2; }
old=$scratch/build/tools/knsroute

fabrics=(
	"kns --k 6 --n 3 --p 2 --shuffle 11"
	"torus --dims 6x6x4 --p 2 --shuffle 12"
	"kns --k 6 --n 3 --p 2 --fail 4 --seed 3 --shuffle 13"
	"torus --dims 8x8 --p 2 --fail 3 --seed 5 --shuffle 14"
	"kns --k 8 --n 2 --radix 4 --shuffle 15"
)
status=0
for i in "${!fabrics[@]}"; do
	f=$scratch/f$i
	# shellcheck disable=SC2086
	"$new" gen ${fabrics[$i]} -o "$f.net" 2>/dev/null ||
		{ echo "same-output: gen ${fabrics[$i]} failed" >&2; exit 2; }
	"$old" route "$f.net" --out "$f.old" -q >/dev/null 2>&1
	a=$?
	"$new" route "$f.net" --out "$f.new" -q >/dev/null 2>&1
	b=$?
	same=1
	[ $a -eq $b ] || same=0
	for file in "$f.old"/*; do
		name=${file##*/}
		[ "$name" = summary ] && continue
		cmp -s "$file" "$f.new/$name" || { same=0; echo "  differs: $name"; }
	done
	if [ $same = 1 ]; then
		echo "same: ${fabrics[$i]} (exit $b, $(ls "$f.new" | wc -l) files)"
	else
		echo "DIFFERENT: ${fabrics[$i]} (exit $a before, $b now)"
		status=1
	fi
done
exit $status
