#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Builds the Debian package from a clean copy of the committed tree (git
# archive HEAD, so nothing of a local build leaks in) with
# dpkg-buildpackage -b -us -uc, then checks what it installs: the file
# list (dpkg -c) against tests/data/deb-contents.txt, no dpkg-shlibdeps
# warning, /etc/opensm/
# knsroute.conf as its only conffile, the plugin exporting only
# osm_event_plugin, the ldconfig trigger, and lintian's verdict (no error
# or warning beyond debian/knsroute.lintian-overrides). Installs the build
# dependencies (scripts/deps.sh --deb).
# Takes about 70 s user + 60 s system CPU (the unit tests included).
# Prints "ok"/"not ok" lines; exit 1 on a difference, 2 when it cannot run.
#   scripts/deb-check.sh [OUTDIR]   (OUTDIR keeps the .deb; default: a temp dir)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" --deb || exit 2
out=${1:-}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/knsroute"
git -C "$top" archive HEAD | tar -x -C "$tmp/src/knsroute" || exit 2
if ! (cd "$tmp/src/knsroute" && dpkg-buildpackage -b -us -uc) >"$tmp/build.log" 2>&1; then
	echo "not ok - dpkg-buildpackage failed; the end of its log:"
	tail -n 30 "$tmp/build.log" | sed 's/^/   /'
	exit 1
fi
deb=$(ls "$tmp"/src/knsroute_*_*.deb)
status=0

if grep -q "dpkg-shlibdeps: warning" "$tmp/build.log"; then
	echo "not ok - dpkg-shlibdeps warns:"
	grep "dpkg-shlibdeps: warning" "$tmp/build.log" | sed 's/^/   /'
	status=1
else
	echo "ok - dpkg-shlibdeps builds the dependencies without a warning"
fi

dpkg -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|; s|/$||' | grep . |
	sort >"$tmp/files"
if diff -u "$top/tests/data/deb-contents.txt" "$tmp/files" >"$tmp/files.diff"; then
	echo "ok - the package installs the files of tests/data/deb-contents.txt"
else
	echo "not ok - the package's files differ from tests/data/deb-contents.txt:"
	sed 's/^/   /' "$tmp/files.diff"
	status=1
fi

mkdir "$tmp/ctl" "$tmp/root"
dpkg-deb -e "$deb" "$tmp/ctl" && dpkg-deb -x "$deb" "$tmp/root" || exit 2
if [ "$(cat "$tmp/ctl/conffiles")" = /etc/opensm/knsroute.conf ] &&
   ! grep -v '^#' "$tmp/root/etc/opensm/knsroute.conf" | grep -q '[^[:space:]]'; then
	echo "ok - /etc/opensm/knsroute.conf is the only conffile, all comments"
else
	echo "not ok - conffiles: $(tr '\n' ' ' <"$tmp/ctl/conffiles")"
	status=1
fi

syms=$(nm -D --defined-only "$tmp"/root/usr/lib/*/libknsroute.so | awk '{ print $3 }')
if [ "$syms" = osm_event_plugin ]; then
	echo "ok - libknsroute.so exports only osm_event_plugin"
else
	echo "not ok - libknsroute.so exports: $syms"
	status=1
fi

if grep -qx 'activate-noawait ldconfig' "$tmp/ctl/triggers" 2>/dev/null; then
	echo "ok - the package triggers ldconfig for the plugin in the libdir"
else
	echo "not ok - no ldconfig trigger"
	status=1
fi

if lintian --fail-on error,warning "$tmp"/src/knsroute_*.changes \
	>"$tmp/lintian.out" 2>&1; then
	echo "ok - lintian: no error or warning"
else
	echo "not ok - lintian:"
	grep -v '^running with root' "$tmp/lintian.out" | sed 's/^/   /'
	status=1
fi

[ -n "$out" ] && mkdir -p "$out" && cp "$deb" "$out/"
exit $status
