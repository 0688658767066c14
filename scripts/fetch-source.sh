#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch-source.sh DIR PACKAGE SUITE PIN CHECK: puts Debian's source package PACKAGE, with
# Debian's patches applied (dpkg-source -x), in DIR/src and prints DIR/src. CHECK is a file the
# tree must hold (xen/Makefile, say), so that a wrong package is never taken for the right one.
#
# The version is PIN where SUITE's archive still has it. A pinned source leaves the archive
# when a point release moves the suite on (bookworm-security's update becomes bookworm's), and
# a build that asked only for the pin would then fail every run until someone edited it: so
# when PIN is gone, the newest version SUITE has now is taken instead, and said. The caller
# applies its hooks to whichever came (they are found by identifiers, so that such drift is
# survivable) and fails only when they no longer apply.
#
#   - DIR/src is reused, with no network, when it holds PIN (DIR/src/.perfvisor-version).
#   - Otherwise apt downloads the source with a state of its own under DIR/apt
#     (scripts/apt-private.sh, one deb-src line for MIRROR SUITE main): nothing of the machine's
#     package lists or dpkg's state is touched. A tree of the fallback version is reused too.
#
# DIR/src/.perfvisor-version holds the version unpacked, DIR/src/.perfvisor-note one line
# saying which it is ("4.17.5+72-g01140da4e8-1, the pinned version" or "4.17.7+13-...,
# bookworm's current version: the pin 4.17.5+72-... is not in the archive"), for the
# caller's summary. Exit status 0 with the tree's path on stdout; otherwise nonzero, with one
# line on stderr starting "fetch: " that says why. MIRROR (default http://deb.debian.org/debian),
# FETCH_TIMEOUT (seconds per apt call, default 120); apt's log is DIR/fetch.log.
# APT_PRIVATE and DPKG_SOURCE name the commands used (the tests of this script set them).
set -u
if [ $# -ne 5 ]; then
	echo "usage: fetch-source.sh DIR PACKAGE SUITE PIN CHECK" >&2
	exit 2
fi
dir=$1 pkg=$2 suite=$3 pin=$4 check=$5
MIRROR=${MIRROR:-http://deb.debian.org/debian}
FETCH_TIMEOUT=${FETCH_TIMEOUT:-120}
APT_PRIVATE=${APT_PRIVATE:-sh $(cd "$(dirname "$0")" && pwd)/apt-private.sh}
DPKG_SOURCE=${DPKG_SOURCE:-dpkg-source}

fail() {
	echo "fetch: $*" >&2
	exit 1
}

src=$dir/src
# have VERSION: DIR/src is a whole tree of that version.
have() {
	[ -f "$src/$check" ] && [ "$(cat "$src/.perfvisor-version" 2>/dev/null)" = "$1" ]
}
# done_with VERSION NOTE: records what DIR/src is and prints its path.
done_with() {
	echo "$1, $2" >"$src/.perfvisor-note" || fail "cannot write $src/.perfvisor-note"
	echo "$src"
	exit 0
}
have "$pin" && done_with "$pin" "the pinned version"

command -v "${DPKG_SOURCE%% *}" >/dev/null 2>&1 || fail "dpkg-source not found (apt-get install dpkg-dev)"
mkdir -p "$dir" || fail "cannot create $dir"
apt=$(cd "$dir" && pwd)/apt
mkdir -p "$apt" || fail "cannot create $apt"
echo "deb-src $MIRROR $suite main" >"$apt/sources.list"
# aptp TOOL ARG...: apt with the private state and this one source.
aptp() {
	tool=$1
	shift
	# $APT_PRIVATE is a command and its script: split on purpose.
	# shellcheck disable=SC2086
	FETCH_TIMEOUT=$FETCH_TIMEOUT $APT_PRIVATE "$apt" "$tool" -o Dir::Etc::SourceList="$apt/sources.list" \
		-o Dir::Etc::SourceParts=/nonexistent "$@"
}

log=$dir/fetch.log
if ! APT_PRIVATE_LISTS='*_source_Sources*' aptp apt-get update >"$log" 2>&1; then
	fail "apt-get update ($MIRROR $suite sources) failed: $(grep -E -A1 '^(E|W|Err):' "$log" | head -n2 | tr -s '\n\t ' '  ')"
fi
# The versions of PACKAGE that SUITE has, newest first (dpkg's order).
versions=$(aptp apt-cache showsrc "$pkg" 2>>"$log" |
	awk -v p="$pkg" '/^Package: / { mine = ($2 == p) } mine && /^Version: / { print $2 }' |
	sort -u)
[ -n "$versions" ] || fail "$suite has no source package $pkg"
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
if ! (cd "$dl" && aptp apt-get source --download-only "$pkg=$version") >>"$log" 2>&1; then
	fail "apt-get source $pkg=$version failed: $(grep -E '^(E|W):' "$log" | tail -n1)"
fi
dsc=$(ls "$dl/${pkg}_"*.dsc 2>/dev/null | head -n1)
[ -n "$dsc" ] || fail "apt-get source $pkg=$version gave no .dsc"
rm -rf "$src" "$dir/src.tmp"
# shellcheck disable=SC2086 # DPKG_SOURCE may carry arguments
$DPKG_SOURCE -x "$dsc" "$dir/src.tmp" >>"$log" 2>&1 || fail "dpkg-source -x $dsc failed (log: $log)"
[ -f "$dir/src.tmp/$check" ] || fail "$dsc has no $check"
echo "$version" >"$dir/src.tmp/.perfvisor-version"
mv "$dir/src.tmp" "$src" || fail "cannot move the source to $src"
# dpkg-source leaves links to the tarballs beside the tree it made.
rm -rf "$dl" "$apt" "$dir/${pkg}_"*.orig.tar.* "$dir/${pkg}_"*.debian.tar.*
done_with "$version" "$note"
