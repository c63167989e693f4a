#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# A few seconds of every fuzz target (scripts/fuzz.sh) in the test suite:
# enough to replay the seeds and the corpus kept from earlier runs, and to
# catch what a change breaks at the surface. The long runs are
# scripts/fuzz.sh's default (1M inputs per target).
set -u
secs=${KR_FUZZ_SECS:-3}
targets="net lfts sl2vl pathsl mft mcast_sl guid2lid coords conf tables_cache namemap"
echo "1..$(echo $targets | wc -w)"
n=0
for t in $targets; do
	n=$((n + 1))
	if out=$("$KR_SRCDIR/scripts/fuzz.sh" --build "$KR_BUILDDIR" --time "$secs" "$t"); then
		echo "ok $n - $out"
	else
		echo "not ok $n - fuzz_$t"
		echo "$out" | sed 's/^/# /'
	fi
done
