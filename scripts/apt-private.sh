#!/bin/sh
# SPDX-License-Identifier: MIT
# apt-private.sh STATE TOOL [APT-OPTION...] COMMAND [ARG...]: TOOL (apt-get or apt-cache)
# with a state of its own under
# the directory STATE (package lists, download cache; no dpkg status, so nothing counts as
# installed and nothing is), for downloads the tests make without touching the machine's
# package lists or dpkg's state. APT-OPTIONs (-o ...) add to the private ones, for example a
# sources list of the caller's. Bounded by FETCH_TIMEOUT seconds (default 60).
#
# With APT_PRIVATE_LISTS (a file name pattern, e.g. '*_source_Sources*'), set for "update":
# a list matching it must have arrived, since apt-get update exits 0 when a mirror cannot be
# reached and the lists it got are what counts.
set -u
state=$1
tool=$2
shift 2
case $tool in
apt-get | apt-cache) ;;
*)
	echo "apt-private.sh: TOOL is apt-get or apt-cache, not '$tool'" >&2
	exit 2
	;;
esac
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" ||
	{ echo "cannot create $state" >&2; exit 1; }
state=$(cd "$state" && pwd)
sandbox=""
# apt's downloads run as the _apt user when it can switch to it; that user may not be able
# to write into the build tree, so root downloads as root (apt would only warn about it).
[ "$(id -u)" = 0 ] && sandbox="-oAPT::Sandbox::User=root"
timeout "${FETCH_TIMEOUT:-60}" "$tool" -q -o Dir::State::Lists="$state/lists" \
	-o Dir::Cache="$state/cache" -o Dir::State::status=/dev/null -o Acquire::Retries=1 \
	-o Acquire::http::Timeout=20 $sandbox "$@"
rc=$?
# shellcheck disable=SC2086 # the pattern is to be expanded
if [ "$rc" -eq 0 ] && [ -n "${APT_PRIVATE_LISTS:-}" ] &&
	! ls "$state"/lists/$APT_PRIVATE_LISTS >/dev/null 2>&1; then
	echo "E: no list $APT_PRIVATE_LISTS arrived" >&2
	rc=1
fi
exit $rc
