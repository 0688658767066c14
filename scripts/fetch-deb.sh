#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch-deb.sh DIR PACKAGE SUITE PIN CHECK: puts Debian's binary package PACKAGE (of this
# machine's architecture, or `all`) from SUITE, unpacked with dpkg-deb -x and not installed,
# in DIR/x and prints DIR/x. CHECK is a file the unpacked tree must hold (usr/bin/meson, say).
# For a build tool that this machine's Debian release lacks in the version needed
# (bookworm-backports' meson for QEMU 10): nothing of the system's apt sources, package lists
# or dpkg's state is touched, and the caller puts DIR/x on its PATH or PYTHONPATH.
#
# The version is PIN while SUITE's archive has it; once the pin has left it, the newest
# version SUITE has now, said (as scripts/fetch-source.sh does for sources).
#   - DIR/x is reused, with no network, when it holds PIN (DIR/x/.perfvisor-version), or the
#     fallback version once that is known to be the suite's current one.
#   - Otherwise apt downloads the package with a state of its own under DIR/apt
#     (scripts/apt-private.sh, one "deb MIRROR SUITE main" line).
# DIR/x/.perfvisor-note says which version it is ("1.7.0-1~bpo12+1, the pinned version", or
# "..., bookworm-backports's current version: the pin ... is not in the archive"). Exit status
# 0 with DIR/x on stdout; otherwise nonzero, with one line on stderr starting "fetch: " that
# says why. MIRROR (default http://deb.debian.org/debian), FETCH_TIMEOUT (seconds per apt
# call, default 120); apt's log is DIR/fetch.log.
set -u
if [ $# -ne 5 ]; then
	echo "usage: fetch-deb.sh DIR PACKAGE SUITE PIN CHECK" >&2
	exit 2
fi
dir=$1 pkg=$2 suite=$3 pin=$4 check=$5
MIRROR=${MIRROR:-http://deb.debian.org/debian}
FETCH_TIMEOUT=${FETCH_TIMEOUT:-120}
private=$(cd "$(dirname "$0")" && pwd)/apt-private.sh

fail() {
	echo "fetch: $*" >&2
	exit 1
}

x=$dir/x
have() {
	[ -e "$x/$check" ] && [ "$(cat "$x/.perfvisor-version" 2>/dev/null)" = "$1" ]
}
done_with() {
	echo "$1, $2" >"$x/.perfvisor-note" || fail "cannot write $x/.perfvisor-note"
	echo "$x"
	exit 0
}
have "$pin" && done_with "$pin" "the pinned version"

command -v dpkg-deb >/dev/null 2>&1 || fail "dpkg-deb not found"
mkdir -p "$dir" || fail "cannot create $dir"
apt=$(cd "$dir" && pwd)/apt
mkdir -p "$apt" || fail "cannot create $apt"
echo "deb $MIRROR $suite main" >"$apt/sources.list"
aptp() {
	tool=$1
	shift
	FETCH_TIMEOUT=$FETCH_TIMEOUT sh "$private" "$apt" "$tool" -o Dir::Etc::SourceList="$apt/sources.list" \
		-o Dir::Etc::SourceParts=/nonexistent "$@"
}

log=$dir/fetch.log
if ! APT_PRIVATE_LISTS='*_Packages*' aptp apt-get update >"$log" 2>&1; then
	fail "apt-get update ($MIRROR $suite) failed: $(grep -E -A1 '^(E|W|Err):' "$log" | head -n2 | tr -s '\n\t ' '  ')"
fi
versions=$(aptp apt-cache show "$pkg" 2>>"$log" |
	awk -v p="$pkg" '/^Package: / { mine = ($2 == p) } mine && /^Version: / { print $2 }' | sort -u)
[ -n "$versions" ] || fail "$suite has no package $pkg"
newest=""
for v in $versions; do
	if [ -z "$newest" ] || dpkg --compare-versions "$v" gt "$newest"; then
		newest=$v
	fi
done
if printf '%s\n' "$versions" | grep -qxF "$pin"; then
	version=$pin note="the pinned version"
else
	version=$newest note="$suite's current version: the pin $pin is not in the archive"
	echo "fetch: $pkg $pin is not in $suite; taking $newest, the suite's current version" >>"$log"
	have "$version" && done_with "$version" "$note"
fi

dl=$dir/dl
rm -rf "$dl" && mkdir -p "$dl" || fail "cannot create $dl"
if ! (cd "$dl" && aptp apt-get download "$pkg=$version") >>"$log" 2>&1; then
	fail "apt-get download $pkg=$version failed: $(grep -E '^(E|W):' "$log" | tail -n1)"
fi
deb=$(ls "$dl"/*.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || fail "apt-get download $pkg=$version gave no .deb"
rm -rf "$x" "$x.tmp"
dpkg-deb -x "$deb" "$x.tmp" || fail "dpkg-deb -x $deb failed"
[ -e "$x.tmp/$check" ] || fail "$(basename "$deb") has no $check"
echo "$version" >"$x.tmp/.perfvisor-version"
mv "$x.tmp" "$x" || fail "cannot move the package to $x"
rm -rf "$dl" "$apt"
done_with "$version" "$note"
