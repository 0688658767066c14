#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch.sh DIR: puts Debian bookworm's Xen source, version XEN_VERSION (pinned below), with
# Debian's patches applied, in DIR/src and prints DIR/src. Nothing of Xen is committed.
#
#   - If DIR/src holds that version already (DIR/src/.perfvisor-version), it is reused: no
#     network. Remove DIR/src to unpack it again.
#   - Otherwise apt-get downloads the source package with a private state under DIR/apt
#     (scripts/apt-private.sh, with a sources list of its own: one deb-src line for
#     XEN_MIRROR) and dpkg-source unpacks it (applying Debian's patches).
#
# Exit status 0 with the source's path on stdout; otherwise nonzero, with one line on stderr
# starting "fetch: " that says why (make xen-check reports it as the skip reason). Each
# apt-get call is bounded by FETCH_TIMEOUT seconds (default 120); apt's log is DIR/fetch.log.
set -u
dir=${1:-build/xen}
XEN_VERSION=${XEN_VERSION:-4.17.5+72-g01140da4e8-1}
XEN_MIRROR=${XEN_MIRROR:-http://deb.debian.org/debian}
FETCH_TIMEOUT=${FETCH_TIMEOUT:-120}

fail() {
	echo "fetch: $*" >&2
	exit 1
}

src=$dir/src
if [ -f "$src/xen/Makefile" ] && [ "$(cat "$src/.perfvisor-version" 2>/dev/null)" = "$XEN_VERSION" ]
then
	echo "$src"
	exit 0
fi
command -v apt-get >/dev/null 2>&1 || fail "apt-get not found (a Debian machine is needed)"
command -v dpkg-source >/dev/null 2>&1 || fail "dpkg-source not found (apt-get install dpkg-dev)"
mkdir -p "$dir" || fail "cannot create $dir"
apt=$(cd "$dir" && pwd)/apt
private=$(cd "$(dirname "$0")/../../scripts" && pwd)/apt-private.sh
mkdir -p "$apt" || fail "cannot create $apt"
echo "deb-src $XEN_MIRROR bookworm main" >"$apt/sources.list"
aptp() {
	FETCH_TIMEOUT=$FETCH_TIMEOUT sh "$private" "$apt" apt-get -o Dir::Etc::SourceList="$apt/sources.list" \
		-o Dir::Etc::SourceParts=/nonexistent "$@"
}

log=$dir/fetch.log
if ! APT_PRIVATE_LISTS='*_source_Sources*' aptp update >"$log" 2>&1; then
	fail "apt-get update ($XEN_MIRROR bookworm sources) failed: $(grep -E -A1 '^(E|W|Err):' "$log" | head -n2 | tr -s '\n\t ' '  ')"
fi
dl=$dir/dl
rm -rf "$dl" && mkdir -p "$dl" || fail "cannot create $dl"
if ! (cd "$dl" && aptp source --download-only "xen=$XEN_VERSION") >>"$log" 2>&1; then
	fail "apt-get source xen=$XEN_VERSION failed: $(grep -E '^(E|W):' "$log" | tail -n1)"
fi
dsc=$(ls "$dl"/xen_*.dsc 2>/dev/null | head -n1)
[ -n "$dsc" ] || fail "apt-get source xen=$XEN_VERSION gave no .dsc"
rm -rf "$src" "$dir/src.tmp"
dpkg-source -x "$dsc" "$dir/src.tmp" >>"$log" 2>&1 || fail "dpkg-source -x $dsc failed (log: $log)"
[ -f "$dir/src.tmp/xen/Makefile" ] || fail "$dsc has no xen/Makefile"
echo "$XEN_VERSION" >"$dir/src.tmp/.perfvisor-version"
mv "$dir/src.tmp" "$src" || fail "cannot move the source to $src"
# dpkg-source leaves a link to the orig tarball beside the tree it made.
rm -rf "$dl" "$apt" "$dir"/xen_*.orig.tar.*
echo "$src"
