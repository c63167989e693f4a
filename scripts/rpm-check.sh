#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Builds the RPM of rpm/knsroute.spec from the committed tree (git archive
# HEAD) with Debian's rpmbuild (--nodeps: RHEL's package names are not
# Debian's), then checks what it installs: the file list (rpm -qlp)
# against tests/data/rpm-contents.txt, knsroute.conf as its only config
# file, the spec's version as configure.ac's, the plugin exporting only
# osm_event_plugin. Installs rpmbuild (scripts/deps.sh --rpm).
# Prints "ok"/"not ok" lines; exit 1 on a difference, 2 when it cannot run.
#   scripts/rpm-check.sh
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" --rpm || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
status=0

spec_v=$(sed -n 's/^Version: *//p' "$top/rpm/knsroute.spec")
ac_v=$(sed -n 's/^AC_INIT(\[knsroute\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
if [ -n "$spec_v" ] && [ "$spec_v" = "$ac_v" ]; then
	echo "ok - the spec's version is configure.ac's ($ac_v)"
else
	echo "not ok - the spec says version '$spec_v', configure.ac '$ac_v'"
	status=1
fi

mkdir -p "$tmp/SOURCES"
git -C "$top" archive --prefix="knsroute-$spec_v/" \
	-o "$tmp/SOURCES/knsroute-$spec_v.tar.gz" HEAD || exit 2
if ! rpmbuild -bb --nodeps --define "_topdir $tmp" \
	"$top/rpm/knsroute.spec" >"$tmp/build.log" 2>&1; then
	echo "not ok - rpmbuild failed; the end of its log:"
	tail -n 30 "$tmp/build.log" | sed 's/^/   /'
	exit 1
fi
rpm=$(ls "$tmp"/RPMS/*/knsroute-"$spec_v"-*.rpm | grep -v debug | head -1)

# what depends on the build machine's rpm macros goes: the build-id links
# (hashes), the library directory's name (LIBDIR), man page compression
rpm -qlp "$rpm" 2>/dev/null | grep -v '/\.build-id' |
	sed 's|^/usr/lib64/|/usr/LIBDIR/|; s|^/usr/lib/|/usr/LIBDIR/|; s|\.gz$||' |
	sort >"$tmp/files"
if diff -u "$top/tests/data/rpm-contents.txt" "$tmp/files" >"$tmp/files.diff"; then
	echo "ok - the package installs the files of tests/data/rpm-contents.txt"
else
	echo "not ok - the package's files differ from tests/data/rpm-contents.txt:"
	sed 's/^/   /' "$tmp/files.diff"
	status=1
fi

if [ "$(rpm -qcp "$rpm" 2>/dev/null)" = /etc/opensm/knsroute.conf ]; then
	echo "ok - /etc/opensm/knsroute.conf is the only config file"
else
	echo "not ok - config files: $(rpm -qcp "$rpm" 2>/dev/null | tr '\n' ' ')"
	status=1
fi

mkdir -p "$tmp/x"
(cd "$tmp/x" && rpm2cpio "$rpm" | cpio -id --quiet) || exit 2
so=$(find "$tmp/x" -name libknsroute.so | head -1)
exports=$(nm -D --defined-only "$so" 2>/dev/null | awk '$2 ~ /^[TDBR]$/ { print $3 }')
if [ "$exports" = osm_event_plugin ]; then
	echo "ok - libknsroute.so exports only osm_event_plugin"
else
	echo "not ok - libknsroute.so exports: $(echo "$exports" | tr '\n' ' ')"
	status=1
fi
exit $status
