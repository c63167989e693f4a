#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The tree's layering, checked from the sources: every core file in a
# stage folder, no include of another stage's internal header, no circle
# of calls between files, no call to a stage a stage may not use. The
# rules and the allowed stage dependencies are in scripts/layering.py.
# Usage: scripts/layering.sh [SOURCE_DIR]; exit 1 on any violation.
top=$(cd "$(dirname "$0")/.." && pwd)
for tool in python3 ctags git; do
	command -v "$tool" >/dev/null || {
		echo "layering: $tool is missing (scripts/deps.sh installs it)" >&2
		exit 2
	}
done
exec python3 "$top/scripts/layering.py" "${1:-$top}"
