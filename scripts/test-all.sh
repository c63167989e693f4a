#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Builds knsroute twice (plain with gcc and -Werror, and with clang under
# ASan+UBSan with the fuzz targets) and runs every test: unit tests in both
# builds, integration tests (ibsim + opensm) and valgrind runs in the plain
# one, a few seconds of each fuzz target in the other. Prints a line per
# test file as it starts ("== NAME: started") and as it ends ("== NAME: P
# passed, F failed, S skipped (T s)", with the tail of its log when
# something failed), the failing and skipped cases of each build, and ends
# with "N passed, N failed". The full make output of a build is
# in BUILD_DIR/check.out, each test's in BUILD_DIR/tests/.../NAME.log.
# The build dirs are build-plain and build-fuzz, or $KR_BUILD-plain and
# $KR_BUILD-fuzz when KR_BUILD is set (scripts/fuzz.sh uses the same).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" || exit 2
status=0
pass=0
fail=0

# trs_counts TRS: "PASSED FAILED SKIPPED" for one test file. A test that
# stops because some of its cases failed also gets ERROR results from the
# TAP driver ("exited with status N", "too few tests run"); those are the
# same failure, so they count once, and only when nothing else in the file
# failed.
trs_counts() {
	local trs=$1 p f e s after
	p=$(grep -c '^:test-result: PASS' "$trs")
	f=$(grep -cE '^:test-result: (FAIL|XPASS)' "$trs")
	e=$(grep -c '^:test-result: ERROR' "$trs")
	s=$(grep -c '^:test-result: SKIP' "$trs")
	after=$(grep -cE '^ERROR: .* - (exited with status|too few tests run)' \
		"${trs%.trs}.log" 2>/dev/null)
	after=${after:-0}
	[ "$after" -le "$e" ] || after=$e
	if [ $((f + e - after)) -gt 0 ]; then
		e=$((e - after))
	elif [ "$after" -gt 0 ]; then
		e=1
	fi
	echo "$p $((f + e)) $s"
}

# watch_tests DIR: reads make's output (only to wake up on it, until EOF)
# and prints one line per test file of DIR as it ends. The TAP driver
# creates NAME.log when the test starts and writes NAME.trs when it ends; a
# .trs counts as complete once its size is the same on two looks a second
# apart (or make has ended).
watch_tests() {
	local dir=$1 last=0 now rc
	local -A started=() size=() shown=()
	while :; do
		IFS= read -r -t 1 _
		rc=$?
		[ "$rc" -eq 0 ] || [ "$rc" -gt 128 ] || break
		printf -v now '%(%s)T' -1
		[ "$now" = "$last" ] && continue
		last=$now
		look_tests 0
	done
	printf -v now '%(%s)T' -1
	look_tests 1
}

# look_tests FINAL: one look for watch_tests (uses its variables).
look_tests() {
	local final=$1 f sz p nf s t0 secs name
	while IFS= read -r f; do
		[ -n "${started[$f]:-}" ] && continue
		started[$f]=$now
		name=${f#"$dir"/}
		echo "== ${name%.log}: started"
	done < <(find "$dir/tests" -name '*.log' 2>/dev/null | sort)
	while IFS= read -r f; do
		[ -n "${shown[$f]:-}" ] && continue
		sz=$(stat -c %s "$f" 2>/dev/null) || continue
		if [ "$final" = 0 ] && [ "${size[$f]:-}" != "$sz" ]; then
			size[$f]=$sz
			continue
		fi
		shown[$f]=1
		read -r p nf s < <(trs_counts "$f")
		# Start: the .log's birth time where the file system keeps it.
		t0=$(stat -c %W "${f%.trs}.log" 2>/dev/null) || t0=0
		case $t0 in '' | 0 | *[!0-9]*) t0=${started[${f%.trs}.log]:-$now} ;; esac
		secs=$(( $(stat -c %Y "$f") - t0 ))
		[ "$secs" -ge 0 ] || secs=0
		name=${f#"$dir"/}
		name=${name%.trs}
		echo "== $name: $p passed, $nf failed, $s skipped ($secs s)"
		if [ "$nf" -gt 0 ]; then
			echo "-- last 40 lines of $dir/$name.log:"
			tail -n 40 "${f%.trs}.log" | sed 's/^/   /'
			echo "--"
		fi
	done < <(find "$dir/tests" -name '*.trs' 2>/dev/null | sort)
}

for kind in plain fuzz; do
	dir="${KR_BUILD:-$top/build}-$kind"
	opts=(--enable-werror)
	[ "$kind" = fuzz ] && opts=(CC=clang --enable-fuzzing)
	echo "== $kind build ($dir)"
	if ! "$top/scripts/build.sh" "$dir" "${opts[@]}"; then
		echo "not ok - $kind build failed"
		fail=$((fail + 1))
		status=1
		continue
	fi
	find "$dir" -name '*.trs' -delete
	find "$dir/tests" -name '*.log' -delete 2>/dev/null
	# Under the sanitizers the unit tests that repair every fault of a
	# fabric take every fifth (KR_TEST_STRIDE): the plain build covers
	# them all, and these runs look for memory errors, not for cases.
	stride=1
	[ "$kind" = fuzz ] && stride=5
	KR_TEST_STRIDE=$stride make -C "$dir" -j2 check 2>&1 |
		tee "$dir/check.out" | watch_tests "$dir"
	rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] || status=1
	grep -E '^(FAIL|XFAIL|XPASS|ERROR|SKIP):' "$dir/check.out" || true
	p=0 f=0 s=0
	while IFS= read -r trs; do
		read -r tp tf ts < <(trs_counts "$trs")
		p=$((p + tp)) f=$((f + tf)) s=$((s + ts))
	done < <(find "$dir" -name '*.trs')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - make check failed (exit $rc) with no failing test;" \
		     "last 40 lines of $dir/check.out:"
		tail -n 40 "$dir/check.out" | sed 's/^/   /'
		f=1
	fi
	echo "$kind: $p passed, $f failed, $s skipped"
	pass=$((pass + p))
	fail=$((fail + f))
done

[ "$fail" -eq 0 ] || status=1
echo "$pass passed, $fail failed"
exit $status
