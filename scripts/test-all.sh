#!/bin/sh
# Builds knsroute twice (plain with -Werror, and with ASan+UBSan) and runs
# every test: unit tests in both builds, integration tests (ibsim + opensm)
# and valgrind runs in the plain one. Ends with "N passed, N failed".
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" || exit 2
status=0
pass=0
fail=0

for kind in plain asan; do
	dir="$top/build-$kind"
	opts=--enable-werror
	[ "$kind" = asan ] && opts=--enable-sanitizers
	echo "== $kind build ($dir)"
	if ! "$top/scripts/build.sh" "$dir" $opts; then
		echo "not ok - $kind build failed"
		fail=$((fail + 1))
		status=1
		continue
	fi
	find "$dir" -name '*.trs' -delete
	make -C "$dir" -j2 check >"$dir/check.out" 2>&1 || status=1
	grep -E '^(PASS|FAIL|XFAIL|XPASS|ERROR|SKIP):' "$dir/check.out" |
		grep -v '^PASS' || true
	p=$(find "$dir" -name '*.trs' -exec cat {} + | grep -c '^:test-result: PASS')
	f=$(find "$dir" -name '*.trs' -exec cat {} + | grep -cE '^:test-result: (FAIL|ERROR|XPASS)')
	s=$(find "$dir" -name '*.trs' -exec cat {} + | grep -c '^:test-result: SKIP')
	echo "$kind: $p passed, $f failed, $s skipped"
	pass=$((pass + p))
	fail=$((fail + f))
done

[ "$fail" -eq 0 ] || status=1
echo "$pass passed, $fail failed"
exit $status
