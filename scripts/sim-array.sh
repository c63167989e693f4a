#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# One load point of a `knsroute sim` sweep as one task of a job array, so a
# site spreads a sweep over its cluster with its own scheduler (docs/sim.md
# has the Slurm recipe); and the merge that puts the tasks' output back in
# load order, byte for byte what `knsroute sim --sweep LOADS` prints.
#
#   SLURM_ARRAY_TASK_ID=I sim-array.sh run OUTDIR LOADS INPUT [SIM OPTIONS]
#       runs the I-th load of the comma-separated LOADS into OUTDIR/I.out
#   sim-array.sh merge OUTDIR [--csv]
#       prints OUTDIR/0.out, 1.out, ... in order (--csv: one header first)
#
# KNSROUTE names the binary (default: knsroute on PATH). Exit status: the
# run's (1 for a deadlock), 2 for usage errors.
set -u

usage() {
	sed -n '8,12p' "$0" >&2
	exit 2
}

[ $# -ge 2 ] || usage
cmd=$1 dir=$2
shift 2
case $cmd in
run)
	[ $# -ge 2 ] || usage
	loads=$1
	shift
	i=${SLURM_ARRAY_TASK_ID:?set SLURM_ARRAY_TASK_ID (the task index)}
	IFS=, read -r -a list <<<"$loads"
	[ "$i" -ge 0 ] && [ "$i" -lt "${#list[@]}" ] || {
		echo "sim-array.sh: task $i: LOADS has ${#list[@]} loads" >&2
		exit 2
	}
	mkdir -p "$dir" || exit 2
	"${KNSROUTE:-knsroute}" sim "$@" --load "${list[$i]}" >"$dir/$i.tmp"
	rc=$?
	mv "$dir/$i.tmp" "$dir/$i.out"
	exit $rc
	;;
merge)
	n=$(find "$dir" -maxdepth 1 -name '*.out' | wc -l)
	[ "$n" -gt 0 ] || { echo "sim-array.sh: nothing in $dir" >&2; exit 2; }
	# CSV: each run's header once, then every run's rows
	skip=1
	if [ "${1:-}" = --csv ]; then
		head -n 1 "$dir/0.out"
		skip=2
	fi
	for ((i = 0; i < n; i++)); do
		tail -n +$skip "$dir/$i.out" || exit 2
	done
	;;
*)
	usage
	;;
esac
