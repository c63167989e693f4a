#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Configures and builds knsroute out of tree: scripts/build.sh DIR [configure
# options]. Generates the autotools files first when they are missing.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
shift
cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] ||
   [ -n "$(find . -name '*.am' -newer configure -print -quit)" ]; then
	autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
fi
if [ -f "$top/config.status" ] && [ "$dir" != "$top" ]; then
	echo "knsroute: $top is configured in place; run 'make distclean' there" \
	     "or build in place" >&2
	exit 2
fi
mkdir -p "$dir"
cd "$dir"
if [ ! -f config.status ] || [ "$top/configure" -nt config.status ]; then
	"$top/configure" -q "$@" 2>&1 | grep -v "cannot remove 'core'" >&2 || true
	[ -f config.status ] || exit 2
fi
make -j2 >/dev/null 2>build.err || { cat build.err >&2; exit 2; }
grep -i "warning" build.err >&2 || true
