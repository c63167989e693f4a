#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Every source file states the licence in its SPDX line, as LICENSE says:
# C sources and headers, scripts, automake fragments and configure.ac.
. "$(dirname "$0")/lib.sh"

kr_plan 2
id="SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause"
missing=$(cd "$KR_SRCDIR" && find core osm_plugin tools bench tests scripts \
	.ci -path tests/data -prune -o -type f \
	\( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' -o -name '*.am' \
	-o -name run -o -name compare \) -print 2>/dev/null |
	while read -r f; do
		head -n 3 "$f" | grep -qF "$id" || echo "$f"
	done)
[ -z "$missing" ]
kr_ok $? "every source file has the SPDX line${missing:+ (missing: $(echo $missing))}"

grep -qF "GPL-2.0-only OR BSD-2-Clause" "$KR_SRCDIR/LICENSE" &&
	head -n 1 "$KR_SRCDIR/configure.ac" | grep -qF "$id" &&
	head -n 2 "$KR_SRCDIR/Makefile.am" | grep -qF "$id"
kr_ok $? "LICENSE names the same choice; configure.ac and Makefile.am state it"
kr_done
