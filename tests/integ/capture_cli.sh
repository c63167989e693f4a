#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# knsroute capture as a command, with no fabric at hand (so it also runs
# under the sanitizers): --help, option errors, and what it says when there
# is no InfiniBand port, or when knsroute was built without rdma-core's
# libraries. capture.sh reads a simulated fabric.
. "$(dirname "$0")/lib.sh"

kr_tmpdir
kr_plan 3
if [ ! -x "$KR_CLI" ]; then
	kr_skip_rest "knsroute not built"
	kr_done
fi
T=$KR_TMP

"$KR_CLI" capture --help >"$T/help.out"
[ $? -eq 0 ] && grep -q "topology.net" "$T/help.out" &&
	grep -q "capture.log" "$T/help.out" && grep -q "Exit status" "$T/help.out"
kr_ok $? "--help lists the files and the exit status"

"$KR_CLI" capture "$T/a" "$T/b" 2>"$T/two.err"
[ $? -eq 2 ] && grep -q "expected one DIR" "$T/two.err" &&
	"$KR_CLI" capture 2>"$T/none.err"
[ $? -eq 2 ] && grep -q "expected a DIR" "$T/none.err" &&
	"$KR_CLI" capture "$T/c" --retries 2>"$T/val.err"
[ $? -eq 2 ] && grep -q -- "--retries expects a value" "$T/val.err" &&
	"$KR_CLI" capture "$T/e" -t 0 2>"$T/t.err"
[ $? -eq 2 ] && grep -q -- "--timeout" "$T/t.err" &&
	[ ! -e "$T/a" ] && [ ! -e "$T/c" ] && [ ! -e "$T/e" ]
kr_ok $? "two DIRs, none, no value, -t out of range: exit 2, no DIR"

# Without the simulator's preload this machine has no InfiniBand port (a
# machine with one would find a real fabric: skip there).
"$KR_CLI" capture "$T/d" -t 100 2>"$T/noib.err"
rc=$?
if grep -q "built without" "$T/noib.err"; then
	[ $rc -eq 2 ] && grep -q "install libibnetdisc-dev libibmad-dev libibumad-dev" "$T/noib.err" &&
		[ ! -e "$T/d" ]
	kr_ok $? "built without the libraries: exit 2 naming the packages"
elif ls /sys/class/infiniband/* >/dev/null 2>&1; then
	kr_skip "this machine has InfiniBand ports"
else
	[ $rc -eq 1 ] && grep -q "^knsroute capture: no usable InfiniBand port" "$T/noib.err" &&
		[ ! -e "$T/d" ]
	kr_ok $? "no InfiniBand port: exit 1 saying so, no DIR left"
fi

kr_done
