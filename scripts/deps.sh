#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Installs the Debian 12 packages knsroute needs to build, test (clang for
# the fuzz targets; graphviz for the pictures of fabrics no grid lays out,
# chromium to render the report page, xmllint to read back the SVG) and
# demo, only those missing; runs apt-get update at
# most once. Needs root (or sudo). --deb: also what dpkg-buildpackage and
# lintian need; --rpm: rpmbuild, for scripts/rpm-check.sh; --figures:
# gnuplot, for scripts/sim-figures.sh.
set -eu

pkgs="build-essential autoconf automake libtool pkg-config libcmocka-dev
opensm libopensm-dev libibumad-dev libibmad-dev libibnetdisc-dev ibsim-utils infiniband-diags ibutils
valgrind jq gawk python3 clang universal-ctags graphviz chromium
libxml2-utils"
case ${1:-} in
--deb) pkgs="$pkgs debhelper dpkg-dev fakeroot lintian" ;;
--rpm) pkgs="$pkgs rpm cpio" ;;
--figures) pkgs="$pkgs gnuplot-nox" ;;
'') ;;
*) echo "usage: scripts/deps.sh [--deb|--rpm|--figures]" >&2; exit 2 ;;
esac

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "knsroute: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
