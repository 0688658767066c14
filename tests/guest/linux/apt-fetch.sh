#!/bin/sh
# SPDX-License-Identifier: MIT
# apt-fetch.sh PACKAGE DIR: downloads the arm64 Debian package PACKAGE with apt-get from the
# machine's own sources (/etc/apt: only the Debian mirror is contacted), unpacks it into
# DIR/x with dpkg-deb and prints DIR/x. Nothing is installed: apt runs with its own state under
# DIR/apt (arm64 package lists, download cache), and dpkg's architectures and the system's
# package lists are left alone (scripts/apt-private.sh). PACKAGE may be a meta-package whose first "Depends:" on a
# package named PACKAGE_PREFIX* (APT_FETCH_RESOLVE, e.g. linux-image-[0-9]) is taken instead.
#
# Exit status 0 with DIR/x on stdout; otherwise nonzero, with one line on stderr that starts
# "apt-fetch: " and says why. Each apt-get call is bounded by FETCH_TIMEOUT seconds (default
# 60); apt's log is DIR/fetch.log. The .deb's name is written to DIR/package.
set -u
pkg=$1
dir=$2
FETCH_TIMEOUT=${FETCH_TIMEOUT:-60}

fail() {
	echo "apt-fetch: $*" >&2
	exit 1
}

command -v apt-get >/dev/null 2>&1 || fail "apt-get not found (a Debian machine is needed)"
command -v dpkg-deb >/dev/null 2>&1 || fail "dpkg-deb not found"
mkdir -p "$dir" || fail "cannot create $dir"
apt=$(cd "$dir" && pwd)/apt
private=$(cd "$(dirname "$0")/../../../scripts" && pwd)/apt-private.sh
# aptp TOOL ARG...: arm64 package lists only, from the machine's own sources.
aptp() {
	tool=$1
	shift
	FETCH_TIMEOUT=$FETCH_TIMEOUT sh "$private" "$apt" "$tool" -o APT::Architecture=arm64 \
		-o APT::Architectures=arm64 "$@"
}

log="$dir/fetch.log"
if ! APT_PRIVATE_LISTS='*_binary-arm64_Packages*' aptp apt-get update >"$log" 2>&1; then
	fail "apt-get update (arm64 package lists) failed: $(grep -E -A1 '^(E|W|Err):' "$log" | head -n2 | tr -s '\n\t ' '  ')"
fi
real=$pkg
if [ -n "${APT_FETCH_RESOLVE:-}" ]; then
	real=$(aptp apt-cache depends "$pkg" 2>>"$log" |
		sed -n "s/^ *Depends: \\(${APT_FETCH_RESOLVE}[^ ]*\\).*/\\1/p" | head -n1)
	[ -n "$real" ] || real=$pkg # already the versioned package
fi
rm -rf "$dir/dl" "$dir/x"
mkdir -p "$dir/dl" || fail "cannot create $dir/dl"
if ! (cd "$dir/dl" && aptp apt-get download "$real:arm64") >>"$log" 2>&1; then
	fail "apt-get download $real:arm64 failed: $(grep -E '^(E|W):' "$log" | tail -n1)"
fi
deb=$(ls "$dir"/dl/*.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || fail "apt-get download $real:arm64 gave no .deb"
dpkg-deb -x "$deb" "$dir/x" || fail "dpkg-deb -x $deb failed"
basename "$deb" >"$dir/package"
rm -rf "$dir/dl" "$apt" # the package lists are only needed again for another download
echo "$dir/x"
