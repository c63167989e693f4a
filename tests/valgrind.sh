#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The unit test programs again, under valgrind: no invalid access, no use of
# uninitialised memory, no leak. Only in the plain build (the sanitizer
# build checks the same things its own way and does not mix with valgrind).
: "${KR_BUILDDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
PROGS=(model/test_fabric gen/test_gen formats/test_parse_net route/test_route
       slvl/test_slvl formats/test_dump cdg/test_cdg check/test_check
       repair/test_repair repair/test_repair_sweeps
       repair/test_repair_turns formats/test_io
       sim/test_sim draw/test_draw model/test_base)

echo "1..${#PROGS[@]}"
n=0
for p in "${PROGS[@]}"; do
	n=$((n + 1))
	bin="$KR_BUILDDIR/tests/unit/$p"
	if ! command -v valgrind >/dev/null || [ ! -x "$bin" ]; then
		echo "ok $n # SKIP valgrind or $p missing"
		continue
	fi
	log=$(mktemp)
	if KR_TEST_STRIDE=25 CMOCKA_MESSAGE_OUTPUT=TAP valgrind -q --error-exitcode=99 \
		--leak-check=full --errors-for-leak-kinds=definite,indirect \
		--track-origins=yes "$bin" >"$log" 2>&1; then
		echo "ok $n - $p is valgrind clean"
	else
		echo "not ok $n - $p under valgrind"
		grep -E "==[0-9]+==|not ok" "$log" | head -20 | sed 's/^/# /'
	fi
	rm -f "$log"
done
